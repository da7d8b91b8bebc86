"""One determinisation for the search player: a full engine whose hidden parts are re-sampled.

What a chef cannot see at the table (:mod:`envs.frying_master.public`) and what is therefore
drawn afresh, from the public view only:

* **Which food each face-down card is.** Card counting fixes how many face-down cards of each
  food there are (its total minus every visible card of it,
  :func:`~envs.frying_master.heuristic.face_down_counts`); their order within each category's
  face-down cards (which card a flip turns up) is shuffled.
* **The Order Plates nobody sees**: the piles below their tops, the tops' order sides (outside
  Pre-order Fry) and the mode cards set aside. They are dealt from the plates not visible now
  (held, completed this round, given up), so that each pile's top shows the back (hint and
  mode) and, in Pre-order Fry, the order the table sees; each set-aside card shows its round's
  mode and was not served in a round after it was set aside (served orders are public).
* **The generator** (future scatters and landings): a fresh one.

Everything else (the table's image-up cards, every chef's plate, food, spatulas, completed
orders, the clock, the Gold Spatulas, the past rounds) is public and copied as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from envs.core.decks import Deck
from envs.core.seeding import make_rng
from envs.frying_master.heuristic import face_down_counts

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine


def determinize(engine: "FryingMasterEngine", viewer: str, rng: np.random.Generator,
                own_actions: Sequence[int] = (), memory: Sequence = ()) -> "FryingMasterEngine":
    """A full engine consistent with what ``viewer`` sees, its hidden parts drawn with ``rng``
    (``engine`` is read through ``public_view(viewer)`` only; ``own_actions`` and ``memory``
    are not needed: everything a chef did is public)."""
    view = engine.public_view(viewer)
    cat = engine.cat
    out = engine.clone()
    # Face-down cards: the counted multiset per category, in a fresh order.
    down_of_food = face_down_counts(view, cat)
    down: list[list[int]] = [[] for _ in cat.categories]
    for f in cat.foods:
        down[f.category].extend([f.idx] * down_of_food[f.idx])
    for c, cards in enumerate(down):
        if len(cards) != view.table_down[c]:
            raise ValueError(f"face-down cards of category {c}: counting gives {len(cards)}, the table shows "
                             f"{view.table_down[c]}")
        down[c] = [cards[i] for i in rng.permutation(len(cards))]
    # Order Plates out of sight.
    seen = set(view.discarded)
    for seat in view.seats:
        if seat.plate is not None:
            seen.add(seat.plate)
        seen.update(p for p, _ in seat.completed)
    unseen = [p for p in range(len(cat.plates)) if p not in seen]
    served_from = _served_after(engine, len(engine.modes_played))
    slots: list[Callable[[int], bool]] = []
    drawn_modes = list(engine.modes_played) if engine.config["mode"] == "drawn" else []
    for j, m in enumerate(drawn_modes):  # the mode cards set aside, one per round so far
        slots.append(lambda p, m=m, j=j: cat.plates[p].mode == m and p not in served_from[j])
    tops = [p for p in (0, 1) if view.pile_sizes[p]]
    for p in tops:
        slots.append(lambda q, p=p: _shows(cat.plates[q], view, p))
    chosen = _fill(slots, unseen, rng)
    if chosen is None:
        raise ValueError("no deal of the unseen Order Plates fits what the table shows")
    set_aside, top_plates = chosen[:len(drawn_modes)], dict(zip(tops, chosen[len(drawn_modes):]))
    taken = set(chosen)
    rest = [p for p in unseen if p not in taken]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    piles = []
    for p in (0, 1):
        size = view.pile_sizes[p]
        below, rest = rest[:max(0, size - 1)], rest[max(0, size - 1):]
        piles.append(Deck(below + ([top_plates[p]] if size else [])))  # the top is the last card
    if rest:
        raise ValueError(f"{len(rest)} unseen Order Plates left over after the deal")
    out.table.down = down
    out.piles = piles
    out.set_aside = set_aside
    out.rng = make_rng(int(rng.integers(2 ** 63)))
    out.invalidate_masks()
    return out


def _shows(plate, view, p: int) -> bool:
    """Whether ``plate`` on top of pile ``p`` shows what the table sees there."""
    if plate.mode != view.pile_modes[p] or tuple(plate.hint) != tuple(view.pile_hints[p]):
        return False
    return view.pile_fronts[p] is None or plate.idx == view.pile_fronts[p]


def _served_after(engine: "FryingMasterEngine", rounds: int) -> list[set[int]]:
    """Per round ``j``: the plates served in round ``j`` or later (public: completed orders lie face
    up), which round ``j``'s mode card cannot be."""
    per_round = [set() for _ in range(rounds)]
    for i, r in enumerate(engine.history):
        per_round[i] = {row["plate"] for rows in r["orders"].values() for row in rows}
    now = {p for done in engine.public_view(engine.agents[0]).seats for p, _ in done.completed}
    if rounds and len(engine.history) < rounds:
        per_round[rounds - 1] |= now
    out, acc = [set() for _ in range(rounds)], set()
    for j in range(rounds - 1, -1, -1):
        acc = acc | per_round[j]
        out[j] = acc
    return out


def _fill(slots: list[Callable[[int], bool]], pool: list[int], rng: np.random.Generator) -> list[int] | None:
    """Distinct plates of ``pool``, one per slot, each satisfying its slot (candidates in a random
    order, backtracking when a later slot is left without one)."""
    chosen: list[int] = []
    used: set[int] = set()

    def place(k: int) -> bool:
        if k == len(slots):
            return True
        cands = [p for p in pool if p not in used and slots[k](p)]
        for i in rng.permutation(len(cands)):
            p = cands[int(i)]
            chosen.append(p)
            used.add(p)
            if place(k + 1):
                return True
            chosen.pop()
            used.discard(p)
        return False

    return chosen if place(0) else None


def round_of(engine) -> int:
    """How many rounds are over (the search player's ``horizon=round`` cut)."""
    return len(engine.history)


#: the search player's default ``horizon``: to the end of the game
HORIZON = 0


def search_arms(engine: "FryingMasterEngine", agent: str, first: int, legal: Sequence[int]) -> list[int]:
    """The decisions the search player searches, and over which moves (public information only:
    the phase and the mask): **which Order Plate pile to draw from** (at setup and after each
    order), the one choice whose effect a round's rollouts can tell apart from their noise. Every
    other tick's move (which card to lift or flip, when to serve or tip) costs or gains a tick or
    two, well below a round's spread, and is played as the rollout policy plays it: searching
    those ticks too (``arms=all``) measured worse than the heuristic itself (docs/search.md)."""
    draws = [a for a in engine.ix.draw if a in legal]
    if first in draws and len(draws) > 1:
        return [first] + [a for a in draws if a != first]
    return []
