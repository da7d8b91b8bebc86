"""Waroong Wars in plain words: one player's view of the table, and the rules in short.

Built only from :func:`envs.waroong_wars.public.build` (``engine.public_view``,
the observation's source): the viewer's own pack during Shopping, its hand
when the rules let it look (after Shopping, or with the No-Memory Chef
variant), its customer cards and full score; of everyone else only what the
table shows (hand and customer counts, Go Boy! cards, VP tokens, scoring
piles, characters, this turn's public events). Never another player's cards,
anyone's face-down picks the rules keep hidden, or a deck's order.
"""

from __future__ import annotations

from envs.waroong_wars.render import cards_text, customers_text, menu_text
from envs.waroong_wars.rules.variants import slots_for

RULES_SUMMARY = """\
Waroong Wars is competitive and turn-based: 3-5 players (you are one) run food stalls. Each round has two phases.
Shopping: everyone drafts ingredient cards at the same time, one pick per step from the pack in front of them
(picks lie face down), and the rest of the pack passes to the left. Cooking: in turn, each player cooks menus
from the shared display by paying their ingredient requirements (a Go Boy! card or a Tukang customer can cover
a missing card; a supplement adds VP tokens); a cooked menu scores its victory points and brings customer cards
with abilities (Maling and Perayu steal, Hansip cancels a theft, Mbok Bakul exchanges cards, Tukang pay for
missing ingredients). A player who cooks nothing may take a Go Boy!. The game ends in the round in which the last
menu card is revealed; the most VP wins. Targets are seats to your left (target=1 is the player on your left)."""


def _seat(n: int, viewer: int, s: int) -> str:
    d = (s - viewer) % n
    return "you" if d == 0 else f"player_{s} (target={d})"


def view(engine, agent: str) -> str:
    """The table as ``agent`` sees it."""
    v = engine.public_view(agent)
    cat = engine.cat
    n, me = v.n, v.viewer
    name = [f"player_{s}" for s in range(n)]
    phase = {"draft": f"Shopping (pick {min(v.pick_no + 1, 6)} of 6)", "cook": "Cooking", "over": "game over"}[v.phase]
    lines = [f"You are {agent}. Round {v.round}/{v.round_limit}, {phase}"
             + ("; this is the LAST ROUND" if v.last_round else "") + "."]
    if v.phase == "cook":
        if v.pending is None:
            lines.append(f"Cooking turn: {_seat(n, me, v.turn)}.")
        elif v.pending["kind"] == "theft":
            lines.append(f"Waiting for {_seat(n, me, v.pending['target'])} to answer "
                         f"{_seat(n, me, v.pending['attacker'])}'s {v.pending['ability']} (Hansip or not).")
        else:
            lines.append(f"Waiting for {_seat(n, me, v.pending['seat'])} (Bu Prasojo) to take or decline an extra "
                         f"customer card.")
        if v.cooked_this_turn:
            cooked = ", ".join(cat.menus[m].name + (f" + {cat.supplements[s - 1].name}" if s else "")
                               for m, s in zip(v.cooked_this_turn, v.cooked_supplements))
            lines.append(f"Cooked this turn by {_seat(n, me, v.turn)}: {cooked}.")
        for s, k in enumerate(v.mbok_exchanges):
            if k:
                lines.append(f"This turn {_seat(n, me, v.turn)} exchanged {k} card(s) with {_seat(n, me, s)} "
                             f"(Mbok Bakul).")
        for s, (ing, cus, cancelled) in enumerate(v.thefts):
            if ing or cus or cancelled:
                lines.append(f"This turn against {_seat(n, me, s)}: {ing} ingredient card(s) and {cus} customer "
                             f"card(s) stolen, {cancelled} theft(s) cancelled by Hansip.")
    elif v.phase == "draft":
        waiting = [name[s] for s in range(n) if not v.picked[s]]
        lines.append(f"Still to pick from their pack this step: {', '.join(waiting) or 'nobody'}.")
    lines.append(f"Menu deck: {v.menu_deck_left} left. VP tokens in the supply: {v.token_supply}. Go Boy! supply: "
                 f"{v.go_boy_supply}. Customer deck: {v.customer_deck_size}. First Cooking marker: {name[v.first]}.")
    cookable = slots_for(v.constraint)
    lines.append("Display (slot 0 = leftmost; * = may be cooked):")
    lines += [f"  {'*' if s in cookable else ' '} {s}  {menu_text(cat, m)}" for s, m in enumerate(v.display)]
    lines.append("Players:")
    for s in range(n):
        ch = cat.characters[v.characters[s]].name if v.characters[s] >= 0 else "no character"
        piles = ", ".join(cat.menus[m].name for m in v.piles[s]) or "none"
        lines.append(f"  {name[s]}{' (you)' if s == me else ''}: {ch}; {v.hand_sizes[s]} ingredient card(s), "
                     f"{v.customer_counts[s]} customer card(s), Go Boy! {'yes' if v.go_boy[s] else 'no'}, "
                     f"{v.tokens[s]} VP token(s), public VP {v.public_scores[s]}; menus cooked: {piles}")
    if v.phase == "draft":
        lines.append(f"The pack in front of you: {cards_text(cat, v.pack)}")
    if v.hand_visible:
        lines.append(f"Your hand: {cards_text(cat, v.hand)}")
    else:
        lines.append(f"Your picks: {v.hand_sizes[me]} card(s) face down (the rules do not let you look at them)")
    lines.append(f"Your customer cards: {customers_text(cat, v.customers)}. Your score so far: {v.score} VP.")
    if any(v.customer_discard):
        lines.append(f"Customer discard pile (face up): {customers_text(cat, v.customer_discard)}")
    return "\n".join(lines)
