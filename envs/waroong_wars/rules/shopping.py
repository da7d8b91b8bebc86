"""Rulebook "Gameplay: Shopping Phase": deal, simultaneous picks, passing left.

Each round all 39 ingredient cards are shuffled into a new deck and 6 are
dealt to each player as a pack. Every step each player who has not yet
picked this pass takes one card; once everyone has, each pack passes to the
player on the left (seat ``i`` to seat ``i + 1``). The sixth card is the last
one of a pack and has no choice, so it is taken automatically with the fifth
pass. Picks go face down (:mod:`envs.waroong_wars.public` hides them from
their owner too unless No-Memory Chef is on). Then Cak Londho draws his
extra card (:mod:`.characters`) and the Cooking phase starts at the First
Cooking marker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult
from envs.waroong_wars.rules import characters

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

def start_round(eng: "WaroongEngine") -> None:
    """Shopping step 1: shuffle every ingredient card into a new deck and deal the packs.

    The same shuffle and deal as ``Deck(...).shuffle(rng)`` and :func:`envs.core.decks.deal` (one
    permutation; one card at a time from the top, the end of the list, to each seat in turn), done on
    plain lists: card ``r * n + seat`` from the top is the ``r``-th card of ``seat``'s pack."""
    cards = eng.cat.ingredient_deck
    cards = [cards[i] for i in eng.rng.permutation(len(cards)).tolist()]
    n = eng.n
    dealt = n * eng.cat.components["cards_dealt_per_player"]
    top = cards[len(cards) - dealt:][::-1]  # top card first
    n_types = eng.cat.n_types
    eng.ingredient_deck = cards[:len(cards) - dealt]
    eng.packs = [_counts(top[seat::n], n_types) for seat in range(n)]
    eng.hands = [[0] * n_types for _ in range(n)]
    eng.picked = [False] * n
    eng.pick_no = 0
    eng.phase = "draft"
    eng.turn = eng.first
    eng.turns_taken = 0
    eng.cooked_this_turn = []
    eng.cooked_supplements = []
    eng.mbok_exchanges = [0] * n
    eng.thefts = [[0, 0, 0] for _ in range(n)]
    eng.pending = None


def _counts(cards, n_types: int) -> list[int]:
    out = [0] * n_types
    for t in cards:
        out[t] += 1
    return out


def pick(eng: "WaroongEngine", seat: int, ingredient: int) -> None:
    eng.packs[seat][ingredient] -= 1
    eng.hands[seat][ingredient] += 1
    eng.picked[seat] = True


def after_picks(eng: "WaroongEngine", result: StepResult) -> None:
    """End of a draft step: once every player has picked, pass the packs left."""
    if not all(eng.picked):
        return
    n = eng.n
    eng.packs = [eng.packs[(i - 1) % n] for i in range(n)]  # seat i receives from its right, seat i - 1
    eng.picked = [False] * n
    eng.pick_no += 1
    per_hand = eng.cat.components["cards_dealt_per_player"]
    if eng.pick_no == per_hand - 1:
        # The last card of each pack: no choice left, taken at once.
        for i in range(n):
            t = next(k for k, c in enumerate(eng.packs[i]) if c)
            pick(eng, i, t)
        eng.picked = [False] * n
        eng.pick_no = per_hand
        finish(eng, result)


def finish(eng: "WaroongEngine", result: StepResult) -> None:
    """End of Shopping: picks become hands; Cak Londho draws; cooking starts at the marker."""
    eng.packs = [[0] * eng.cat.n_types for _ in range(eng.n)]
    characters.cak_londho_draws(eng, result)
    eng.phase = "cook"
    eng.turn = eng.first
    eng.turns_taken = 0
    eng.cooked_this_turn = []
    eng.cooked_supplements = []
    eng.mbok_exchanges = [0] * eng.n
    eng.thefts = [[0, 0, 0] for _ in range(eng.n)]
    result.events.append(f"round {eng.round}: shopping done; {eng.agents[eng.first]} cooks first")
