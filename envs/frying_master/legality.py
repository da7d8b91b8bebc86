"""Which Frying Master actions are legal: every chef's mask at once, or one action.

The action table lists its entries in blocks (see
:func:`~envs.frying_master.actions.build_action_table`): noop, draw A/B,
serve, give_up, then per spatula the flips (one per category), the stirs,
per spatula the lifts (one per food), the unloads and the tips. A mask is
therefore the concatenation of a few byte strings: the flip block of a free
spatula *is* the table's "category has a face-down card" bytes, the lift
block of a free spatula with room *is* the table's "food lies image-up"
bytes, and everything else is a handful of 0/1 bytes. :func:`compute_masks`
builds those table bytes once and joins the pieces for every chef (one
``bytes.join`` and one ``numpy.frombuffer`` per chef, no per-entry writes and
no cache that could miss). :class:`MaskPlan` checks once per action table
that its indices really follow that block order.

The masks are read-only int8 arrays over immutable bytes: callers copy them
(the env does) and can never change a mask the engine cached.

:func:`is_legal` answers for one non-noop action without building a mask;
the engine uses it to re-check an action when its turn in the tick's
resolution order comes. Both follow the same rules, and a test checks they
agree on every action in many random states (and with the rule-by-rule
reference mask in ``tests/frying_master/reference.py``). :func:`why_illegal`
says in words why an action is not allowed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

import numpy as np

from envs.frying_master.actions import PILES, action_index, build_action_table
from envs.frying_master.cards import catalog
from envs.frying_master.rules.how_to_play import can_serve

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine


#: Distinct mask arrays kept per action table (about 200 bytes each).
ARRAY_LIMIT = 20_000


class MaskPlan:
    """Constant byte pieces of the masks of one action table.

    ``S`` spatulas in the table, ``F`` foods, ``C`` categories. Raises
    ``ValueError`` at construction if the table's indices are not laid out in
    the block order the joins assume.
    """

    def __init__(self, ix, n_actions: int, S: int, F: int, C: int):
        order = [0, *ix.draw, ix.serve, ix.give_up, *[i for s in range(S) for i in ix.flip[s]], *ix.stir,
                 *[i for s in range(S) for i in ix.lift[s]], *ix.unload, *ix.tip]
        if order != list(range(n_actions)):
            raise ValueError("the action table is not in the block order legality.MaskPlan joins")
        self.S, self.F, self.C = S, F, C
        self.zero_flips = bytes(C)
        self.zero_lifts = bytes(F)
        #: noop (only) + draw A/B + serve + give_up, without a plate, by (pile A, pile B) non-empty
        self.head_no_plate = {(a, b): bytes([1, a, b, 0, 0]) for a in (0, 1) for b in (0, 1)}
        self.head_no_serve = bytes([1, 0, 0, 0, 1])  # give up only
        self.head_serve = bytes([1, 0, 0, 1, 1])     # serve or give up
        #: a whole mask with only noop, and the setup chooser's by (pile A, pile B) non-empty
        #: (the chooser's noop is legal: it takes pile A, or B if A is empty, as the engine documents)
        self.only_noop = np.frombuffer(bytes([1]) + bytes(n_actions - 1), dtype=np.int8)
        self.chooser = {(a, b): np.frombuffer(bytes([1, a, b]) + bytes(n_actions - 3), dtype=np.int8)
                        for a in (0, 1) for b in (0, 1)}
        self._arrays: dict[bytes, np.ndarray] = {}

    def array(self, mask: bytes) -> np.ndarray:
        """The read-only int8 array of the mask bytes ``mask``, one shared
        array per distinct mask (``numpy.frombuffer`` costs more than the
        lookup; at most ``ARRAY_LIMIT`` are kept, then the store restarts)."""
        arr = self._arrays.get(mask)
        if arr is None:
            if len(self._arrays) >= ARRAY_LIMIT:
                self._arrays.clear()
            arr = self._arrays[mask] = np.frombuffer(mask, dtype=np.int8)
        return arr


@lru_cache(maxsize=4)
def _plan(ix, n_actions: int, S: int, F: int, C: int) -> MaskPlan:
    return MaskPlan(ix, n_actions, S, F, C)


def mask_plan(eng: "FryingMasterEngine") -> MaskPlan:
    """The shared :class:`MaskPlan` of the engine's action table."""
    return _plan(eng.ix, eng.n_actions, eng.S, eng.n_foods, eng.n_cats)


def compute_masks(eng: "FryingMasterEngine", agents: Iterable[str]) -> dict[str, np.ndarray]:
    """The int8 legal-action masks of ``agents`` (index 0, noop, is always
    legal; the setup chooser's noop takes pile A, or B if A is empty)."""
    plan = eng._mask_plan
    phase = eng.phase
    piles = (1 if eng.piles[0] else 0, 1 if eng.piles[1] else 0)
    if phase == "choose":
        chooser = eng.choose_queue[0]
        return {a: plan.chooser[piles] if a == chooser else plan.only_noop for a in agents}
    if phase != "play" and phase != "countdown":
        return {a: plan.only_noop for a in agents}
    table = eng.table
    up = bytes(map(bool, table.up))      # lift blocks: 1 where a food lies image-up
    down = bytes(map(bool, table.down))  # flip blocks: 1 where a category has face-down cards
    stir = 1 if (1 in up or 1 in down) else 0              # any card on the table, either side up
    S, capacity, in_use = plan.S, eng.capacity, range(eng.spatulas)
    zero_flips, zero_lifts = plan.zero_flips, plan.zero_lifts
    finishers = eng.finishers
    any_food, size = eng.serve_any_food, eng.order_size
    out = {}
    for a in agents:
        if a in finishers:
            out[a] = plan.only_noop
            continue
        plate = eng.plates[a]
        if plate is None:
            head = plan.head_no_plate[piles]
        elif (any(eng.plate_cards[a]) if any_food else sum(eng.plate_cards[a]) == size[plate]):
            head = plan.head_serve
        else:
            head = plan.head_no_serve
        busy, loads = eng.busy[a], eng.loads[a]
        flips, lifts = [zero_flips] * S, [zero_lifts] * S
        stirs, unloads, tips = bytearray(S), bytearray(S), bytearray(S)
        for s in in_use:
            if busy[s]:
                continue
            flips[s] = down
            stirs[s] = stir
            load = loads[s]
            if len(load) < capacity:
                lifts[s] = up
            if load:
                tips[s] = 1
                if plate is not None:
                    unloads[s] = 1
        out[a] = plan.array(b"".join([head, *flips, stirs, *lifts, unloads, tips]))
    return out


def compute_mask(eng: "FryingMasterEngine", agent: str) -> np.ndarray:
    """The int8 legal-action mask of one chef (see :func:`compute_masks`)."""
    return compute_masks(eng, (agent,))[agent]


def is_legal(eng: "FryingMasterEngine", agent: str, kind: str, s: int, p: int) -> bool:
    """Whether the non-noop action decoded as ``(kind, spatula, parameter)``
    is legal for ``agent`` now (the same answer as its mask entry)."""
    phase = eng.phase
    if phase == "choose":
        return kind == "draw" and agent == eng.choose_queue[0] and bool(eng.piles[p])
    if (phase != "play" and phase != "countdown") or agent in eng.finishers:
        return False
    plate = eng.plates[agent]
    if kind == "draw":
        return plate is None and bool(eng.piles[p])
    if kind == "give_up":
        return plate is not None
    if kind == "serve":
        return plate is not None and can_serve(eng, plate, eng.plate_cards[agent])
    if s >= eng.spatulas or eng.busy[agent][s]:
        return False
    table = eng.table
    if kind == "flip":
        return bool(table.down[p])
    if kind == "stir":
        return any(table.up) or any(table.down)
    load = eng.loads[agent][s]
    if kind == "lift":
        return len(load) < eng.capacity and table.up[p] != 0
    if kind == "tip":
        return bool(load)
    if kind == "unload":
        return bool(load) and plate is not None
    raise ValueError(f"unknown action kind {kind!r}")


def why_illegal(eng: "FryingMasterEngine", agent: str, action: int) -> str:
    """Why ``action`` is not legal for ``agent`` now (a short reason)."""
    kind, s, p = eng.ix.decoded[action]
    cat = eng.cat
    if eng.phase == "over":
        return "the match is over"
    if eng.phase == "choose":
        chooser = eng.choose_queue[0]
        if agent != chooser:
            return f"setup: it is {chooser}'s turn to choose a plate; others wait (noop)"
        if kind != "draw":
            return ("setup: the chooser may only take a plate from pile A or B, or wait (noop takes pile A, "
                    "or B if A is empty)")
        return f"pile {PILES[p]} is empty"
    if agent in eng.finishers:
        return f"{agent} has completed the round's orders and is counting down; only noop"
    plate = eng.plates[agent]
    if kind == "draw":
        if plate is not None:
            return "you already hold an order; serve it or give it up first"
        return f"pile {PILES[p]} is empty"
    if kind in ("serve", "give_up"):
        if plate is None:
            return "you hold no order plate; draw one from pile A or B"
        held, size = sum(eng.plate_cards[agent]), eng.order_size[plate]
        if not held:
            return "your plate holds no food: nothing to serve"
        return (f"your plate holds {held} food card(s) but the order ({cat.plates[plate].name}) needs {size}: "
                f"\"Order's up!\" needs the order's number of food cards (serve_rule='order_size')")
    if s >= eng.spatulas:
        return f"spatula {s} is not in use this round (two spatulas only in Teppanyaki)"
    if eng.busy[agent][s]:
        return f"spatula {s} is still busy for {eng.busy[agent][s]} tick(s) (lifting takes {eng.ticks_of['lift']} ticks)"
    load = eng.loads[agent][s]
    if kind == "flip":
        return f"no face-down {cat.categories[p].id} card on the table"
    if kind == "stir":
        return "the table is empty"
    if kind == "lift":
        if len(load) >= eng.capacity:
            return f"spatula {s} is full ({eng.capacity} cards)"
        return (f"no image-up {cat.foods[p].id} card on the table (face-down cards, spatulas and plates "
                f"cannot be lifted from)")
    if kind in ("unload", "tip"):
        if not load:
            return f"spatula {s} is empty"
        return "you hold no order plate to set the food on"
    return "not allowed now"


# ---------------------------------------------------------------------- many games at once


class BatchMaskPlan:
    """The mask columns of one action table for :func:`batch_masks` (from the table's own index)."""

    def __init__(self, S: int, serve_any_food: bool):
        from envs.frying_master.engine import PHASES  # (the engine imports this module)

        cat = catalog()
        ix = action_index(S)
        self.A = build_action_table(S).n
        self.draw = ix.draw
        self.serve, self.give_up = ix.serve, ix.give_up
        self.flip_cols = np.array(ix.flip).ravel()  # spatula-major: (S, C) flattened
        self.lift_cols = np.array(ix.lift).ravel()  # (S, F) flattened
        self.stir, self.unload, self.tip = np.array(ix.stir), np.array(ix.unload), np.array(ix.tip)
        self.capacity = cat.spatula_capacity
        self.order_size = np.array(list(cat.order_sizes) + [0])  # the last entry: no plate
        self.serve_any_food = serve_any_food
        self.choose, self.play, self.countdown = (PHASES.index(p) for p in ("choose", "play", "countdown"))


def batch_masks(plan: BatchMaskPlan, phase: np.ndarray, piles: np.ndarray, chooser: np.ndarray, up: np.ndarray,
                down: np.ndarray, plate: np.ndarray, has: np.ndarray, on_plate: np.ndarray, busy: np.ndarray,
                load_n: np.ndarray, in_play: np.ndarray, finished: np.ndarray) -> np.ndarray:
    """The int8 masks ``(G, players, A)`` of ``G`` games at once, by the rules of
    :func:`compute_masks`: per game its phase (index into ``engine.PHASES``), piles non-empty
    ``(G, 2)``, the chooser's seat (-1: none), food image-up ``(G, F)`` and categories with
    face-down cards ``(G, C)`` (bools); per seat its plate (the last ``order_size`` entry: none),
    whether it holds one, the cards on it, each spatula's busy ticks and load size ``(G, n, S)``;
    the spatulas in play ``(G, S)`` and the finishers ``(G, n)``. Equal entry for entry to
    :func:`compute_masks` of each game (``tests/frying_master/test_batch.py``)."""
    G, n = has.shape
    m = np.zeros((G, n, plan.A), dtype=np.int8)
    m[:, :, 0] = 1
    acting = ((phase == plan.play) | (phase == plan.countdown))[:, None] & ~finished  # (G, n)
    if acting.any():
        no_plate = acting & ~has
        m[:, :, plan.draw[0]] = no_plate & piles[:, None, 0]
        m[:, :, plan.draw[1]] = no_plate & piles[:, None, 1]
        held = acting & has
        ready = on_plate > 0 if plan.serve_any_food else on_plate == plan.order_size[plate]
        m[:, :, plan.serve] = held & ready
        m[:, :, plan.give_up] = held
        free = acting[:, :, None] & (busy == 0) & in_play[:, None, :]  # (G, n, S): spatulas that may act
        any_card = up.any(axis=1) | down.any(axis=1)
        m[:, :, plan.flip_cols] = (free[:, :, :, None] & down[:, None, None, :]).reshape(G, n, -1)
        m[:, :, plan.stir] = free & any_card[:, None, None]
        room = free & (load_n < plan.capacity)
        m[:, :, plan.lift_cols] = (room[:, :, :, None] & up[:, None, None, :]).reshape(G, n, -1)
        loaded = free & (load_n > 0)
        m[:, :, plan.tip] = loaded
        m[:, :, plan.unload] = loaded & has[:, :, None]
    choose = phase == plan.choose
    if choose.any():  # (after the play masks, which leave these games' rows at noop only)
        cg = np.flatnonzero(choose)
        m[cg, chooser[cg], plan.draw[0]] = piles[cg, 0]
        m[cg, chooser[cg], plan.draw[1]] = piles[cg, 1]
    return m
