"""How to Play.

Rulebook, "How to Play": the game is played in real time, following the
round's Stir-Fry Mode. Players use their Spatula Cards to stir and collect
Food Cards from the centre of the table and place them on their Order Plate
(image face-up; amount and type must exactly match the order). Once
complete, the player shouts "Order's up!" and sets the whole order in front
of them, then draws a new Order Plate from either pile. No hands: only the
spatula picks up food. If you can't find enough Food Cards, return the food
of your current order to the table and discard the plate to draw a new one.

Modelled: one move per chef per tick (the engine resolves a tick's moves in
a seeded order, :mod:`envs.core.engine`); :func:`apply` carries out one
legal move (``draw``, ``serve``, ``give_up``, ``flip``, ``stir``, ``lift``,
``unload``, ``tip``; the legality is :mod:`envs.frying_master.legality`;
"Order's up!" needs a plate holding the order's number of food cards,
:func:`can_serve`),
:func:`end_spatula_tick` runs the spatulas' busy time, and :class:`Table`
is the food in the middle of the table:

* ``up[f]``: how many cards of food ``f`` lie image-up (everyone sees them);
* ``down[c]``: the face-down cards of category ``c`` as a list of food
  indices in a hidden order. A card's shape and background show its category
  from either side, so everyone sees ``len(down[c])``; which food each
  face-down card is, is hidden. Flipping in category ``c`` reveals
  ``down[c][-1]``; a card that lands face-down is inserted at a random place.

All randomness comes from the engine's generator passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from envs.core.decks import Deck
from envs.core.engine import StepResult
from envs.core.snapshot import Checker
from envs.frying_master.actions import PILES
from envs.frying_master.rules.end_of_round import note_finisher
from envs.frying_master.snapshot import check_table

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine


class Table:
    __slots__ = ("up", "down", "cat_of")

    def __init__(self, cat_of: Sequence[int], n_cats: int):
        self.cat_of = tuple(cat_of)
        self.up: list[int] = [0] * len(cat_of)
        self.down: list[list[int]] = [[] for _ in range(n_cats)]

    # ------------------------------------------------------------------ queries
    def n_up(self) -> int:
        return sum(self.up)

    def n_down(self, cat: int | None = None) -> int:
        if cat is None:
            return sum(len(d) for d in self.down)
        return len(self.down[cat])

    def total(self) -> int:
        return self.n_up() + self.n_down()

    def down_by_food(self) -> list[int]:
        """Hidden: how many face-down cards of each food (global state only)."""
        out = [0] * len(self.up)
        for d in self.down:
            for f in d:
                out[f] += 1
        return out

    # ------------------------------------------------------------------ moves
    def clear(self) -> None:
        self.up = [0] * len(self.up)
        self.down = [[] for _ in self.down]

    def scatter(self, counts: Sequence[int], rng: np.random.Generator) -> None:
        """Put every card on the table, each side up with probability 1/2."""
        self.clear()
        cards = [f for f, k in enumerate(counts) for _ in range(k)]
        faces = rng.random(len(cards)) < 0.5
        for f, face_up in zip(cards, faces):
            if face_up:
                self.up[f] += 1
            else:
                self.down[self.cat_of[f]].append(f)
        for c, d in enumerate(self.down):
            if len(d) > 1:
                self.down[c] = [d[i] for i in rng.permutation(len(d))]

    def flip(self, cat: int) -> int:
        """Turn a face-down card of ``cat`` image-up; returns its food."""
        f = self.down[cat].pop()
        self.up[f] += 1
        return f

    def take_up(self, food: int) -> None:
        """Lift an image-up card of ``food`` off the table."""
        if self.up[food] <= 0:
            raise ValueError(f"no image-up card of food {food} on the table")
        self.up[food] -= 1

    def put_down(self, food: int, rng: np.random.Generator) -> None:
        """A card lands face-down at a random place among its category's."""
        d = self.down[self.cat_of[food]]
        d.insert(int(rng.integers(len(d) + 1)), food)

    def land(self, foods: Iterable[int], rng: np.random.Generator) -> None:
        """Cards fall back onto the table, each on a random side."""
        for f in foods:
            if rng.random() < 0.5:
                self.up[f] += 1
            else:
                self.put_down(f, rng)

    def stir(self, k: int, rng: np.random.Generator) -> list[int]:
        """Stir ``k`` random table cards (any side up): each lands on a
        random side. Returns the stirred foods."""
        n_up = self.n_up()
        total = n_up + self.n_down()
        if total == 0:
            return []
        picks = rng.choice(total, size=min(k, total), replace=False).tolist()
        up, down = self.up, self.down
        stirred: list[tuple[int, int]] = []  # (order, food)
        taken_down: list[tuple[int, int, int]] = []  # (category, -position, order)
        for order, idx in enumerate(picks):
            if idx < n_up:
                f = 0
                while idx >= up[f]:
                    idx -= up[f]
                    f += 1
                stirred.append((order, f))
            else:
                idx -= n_up
                c = 0
                while idx >= len(down[c]):
                    idx -= len(down[c])
                    c += 1
                taken_down.append((c, -idx, order))
        for _, f in stirred:
            up[f] -= 1
        # Face-down picks leave their lists from the back of each list forward, so positions stay valid.
        for c, neg_pos, order in sorted(taken_down):
            stirred.append((order, down[c].pop(-neg_pos)))
        foods = [f for _, f in sorted(stirred)]
        self.land(foods, rng)
        return foods

    # ------------------------------------------------------------------ scenarios and snapshots
    def place(self, face_up: dict[int, int] | None = None, face_down: Sequence[int] = ()) -> None:
        """Set the table to exactly these cards (for scenarios): ``face_up``
        maps food -> count; ``face_down`` lists foods, the last of each
        category being the next one a flip reveals."""
        self.clear()
        for f, k in (face_up or {}).items():
            self.up[f] += k
        for f in face_down:
            self.down[self.cat_of[f]].append(f)

    def state_dict(self) -> dict:
        return {"up": list(self.up), "down": [list(d) for d in self.down]}

    def load_state_dict(self, state: dict) -> None:
        """Adopt a ``state_dict()``: checked first (:func:`envs.frying_master.snapshot.check_table`,
        ``SnapshotError`` naming the field), assigned only if all of it is good. The engine checks
        its table with the rest of its state, component totals included, and assigns it itself."""
        self.up, self.down = check_table(Checker("table"), state, self.cat_of, len(self.down), field="")


# ---------------------------------------------------------------------- the moves


def can_serve(eng: "FryingMasterEngine", plate: int, cards: Sequence[int]) -> bool:
    """"Once complete, the player shouts 'Order's up!'": the plate holds the order's number of
    food cards (whether they are the right foods is checked only at scoring). With
    ``serve_rule='any_food'`` (the v0 rule) any plate with at least one card."""
    if eng.serve_any_food:
        return any(cards)
    return sum(cards) == eng.order_size[plate]


def apply(eng: "FryingMasterEngine", agent: str, kind: str, s: int, p: int, result: StepResult) -> None:
    """Carry out ``agent``'s legal move decoded as ``(kind, spatula, parameter)``."""
    cat = eng.cat
    rng = eng.rng
    if kind == "draw":
        plate = eng.piles[p].draw()
        eng.plates[agent] = plate
        refill_piles(eng)
        result.events.append(f"{agent} takes {cat.plates[plate].name} from pile {PILES[p]}")
        return
    if kind == "serve":
        plate = eng.plates[agent]
        eng.completed[agent].append((plate, list(eng.plate_cards[agent])))
        eng.plates[agent] = None
        eng.plate_cards[agent] = [0] * eng.n_foods
        result.events.append(f"{agent}: \"Order's up!\" ({cat.plates[plate].name})")
        note_finisher(eng, agent, result)
        return
    if kind == "give_up":
        plate = eng.plates[agent]
        cards = [f for f, k in enumerate(eng.plate_cards[agent]) for _ in range(k)]
        eng.table.land(cards, rng)
        eng.discard.append(plate)
        eng.plates[agent] = None
        eng.plate_cards[agent] = [0] * eng.n_foods
        refill_piles(eng)
        result.events.append(f"{agent} gives up {cat.plates[plate].name}")
        return
    load = eng.loads[agent][s]
    if kind == "flip":
        f = eng.table.flip(p)
        result.events.append(f"{agent} flips a {cat.categories[p].id} card: {cat.foods[f].id}")
    elif kind == "stir":
        eng.table.stir(cat.stir_cards, rng)
    elif kind == "lift":
        eng.table.take_up(p)
        load.append(p)
    elif kind == "unload":
        cards = eng.plate_cards[agent]
        for f in load:
            cards[f] += 1
        load.clear()
    elif kind == "tip":
        eng.table.land(list(load), rng)
        load.clear()
    eng.busy[agent][s] = eng.ticks_of[kind]


def end_spatula_tick(eng: "FryingMasterEngine") -> None:
    """A tick passes for every spatula: busy ones count down (a chef's seat changes with them)."""
    rev = eng._seat_rev
    S = eng.S
    for i, a in enumerate(eng.agents):
        b = eng.busy[a]
        for s in range(S):
            if b[s]:
                b[s] -= 1
                rev[i] += 1


def refill_piles(eng: "FryingMasterEngine") -> None:
    """(project) Both piles empty: the given-up plates are shuffled into two new piles."""
    if not eng.piles[0] and not eng.piles[1] and eng.discard:
        pool = [eng.discard[i] for i in eng.rng.permutation(len(eng.discard))]
        half = (len(pool) + 1) // 2
        eng.piles = [Deck(pool[:half]), Deck(pool[half:])]
        eng.discard = []
