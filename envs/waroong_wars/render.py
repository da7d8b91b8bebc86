"""Text picture of a Waroong Wars table.

``viewer`` chooses whose hidden cards are shown: ``"all"`` (a spectator who
sees every hand, pack and customer card), ``"none"`` (public information
only) or ``"player_i"`` (exactly what that player may see: its own pack,
its hand when the rules allow, its customers).
"""

from __future__ import annotations

from typing import Sequence

from envs.core.render import box, rule, table
from envs.waroong_wars.rules import scoring
from envs.waroong_wars.rules.cooking import EMPTY
from envs.waroong_wars.rules.variants import slots_for

SHORT = ("R", "V", "M", "U", "S")


def menu_text(cat, menu: int) -> str:
    if menu == EMPTY:
        return "(empty)"
    d = cat.menus[menu].dish
    req = " ".join(f"{SHORT[c]}{k}" for c, k in enumerate(d.requires) if k)
    icons = ",".join(cat.supplements[i].icon for i in d.icons) or "-"
    return f"{d.name:<15} {req:<15} {d.vp} VP  icons: {icons}"


def cards_text(cat, counts) -> str:
    parts = [f"{cat.ingredient_names[t]} x{c}" for t, c in enumerate(counts) if c]
    return ", ".join(parts) or "-"


def customers_text(cat, counts) -> str:
    parts = [f"{cat.customers[k].name}" + (f" x{c}" if c > 1 else "") for k, c in enumerate(counts) if c]
    return ", ".join(parts) or "-"


def render_table(eng, viewer: str = "all", events: Sequence[str] = ()) -> str:
    """The table as text; ``events`` (the last step's log lines, public information only) are shown first."""
    cat = eng.cat
    n = eng.n
    if viewer not in ("all", "none") and viewer not in eng.seat_of:
        raise ValueError(f"viewer must be 'all', 'none' or one of {list(eng.agents)}, got {viewer!r}")
    phase = {"draft": f"Shopping (pick {min(eng.pick_no + 1, 6)} of 6)", "cook": "Cooking",
             "over": f"game over ({eng.ended_by})"}[eng.phase]
    head = f"Waroong Wars  round {eng.round}/{eng.round_limit}  {phase}"
    if eng.phase == "cook":
        p = eng.pending
        if p is None:
            head += f"  to act: {eng.agents[eng.turn]}"
        else:  # an answer is awaited before the cook's turn goes on
            head += f"  to act: {eng.agents[p['target'] if p['kind'] == 'theft' else p['seat']]} (answer)"
    lines = [rule(head)]
    if events:
        lines.append("Last step: " + "; ".join(events))
    lines.append(f"Menu deck: {len(eng.menu_deck)} left{'  (LAST ROUND)' if eng.last_round else ''}   "
                 f"VP tokens: {eng.token_supply}   Go Boy! supply: {eng.go_boy_supply}   "
                 f"customer deck: {len(eng.customer_deck)}   First Cooking marker: {eng.agents[eng.first]}")
    if eng.pending:
        p = eng.pending
        if p["kind"] == "theft":
            lines.append(f"Pending: {eng.agents[p['target']]} answers {eng.agents[p['attacker']]}'s {p['ability']} "
                         f"(Hansip or not)")
        else:
            lines.append(f"Pending: {eng.agents[p['seat']]} (Bu Prasojo) may take an extra customer card")
    cookable = slots_for(eng.constraint)
    disp = [f"{'*' if s in cookable else ' '} {s}  {menu_text(cat, m)}" for s, m in enumerate(eng.display)]
    lines.append(box("Display (slot 0 = leftmost; * = may be cooked)", disp))
    rows = []
    for s, a in enumerate(eng.agents):
        ch = cat.characters[eng.characters[s]].name if eng.characters[s] >= 0 else "-"
        rows.append([a, ch, sum(eng.hands[s]), "yes" if eng.go_boy[s] else "-", sum(eng.customers[s]),
                     eng.tokens[s], len(eng.piles[s]), scoring.public_score(eng, s),
                     scoring.score(eng, s) if viewer in ("all", a) or eng.done else "?"])
    lines.append(table(rows, ["player", "character", "hand", "go boy", "customers", "tokens", "menus",
                              "public VP", "score"]))
    lines.append("Scoring piles:")
    for s, a in enumerate(eng.agents):
        names = ", ".join(cat.menus[m].name for m in eng.piles[s]) or "-"
        lines.append(f"  {a}: {names}")
    lines.append(f"Hands (viewer: {viewer}):")
    for s, a in enumerate(eng.agents):
        if viewer not in ("all", a):
            continue
        drafting = eng.phase == "draft"
        if drafting:
            lines.append(f"  {a} pack: {cards_text(cat, eng.packs[s])}")
        if drafting and not eng.no_memory and viewer != "all":
            lines.append(f"  {a} picks: {sum(eng.hands[s])} face down (not even their owner may look)")
        else:
            lines.append(f"  {a} {'picks' if drafting else 'hand'}: {cards_text(cat, eng.hands[s])}")
        lines.append(f"  {a} customers: {customers_text(cat, eng.customers[s])}")
    if viewer == "none":
        lines.append("  (hidden)")
    if eng.done:
        out = eng.outcome()
        lines.append("Winner(s): " + ", ".join(out["winners"]) + "   final: "
                     + ", ".join(f"{a} {out['scores'][a]:g} VP/{out['menus'][a]} menus" for a in eng.agents))
    return "\n".join(lines)
