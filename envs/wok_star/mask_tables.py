"""Precomputed tables that make the kitchen part of the action mask cheap.

The dice actions ``take``, ``hustle_gain`` and ``rotate`` are consecutive
blocks of the action table, and each index is legal exactly when one cell of
the area counts (``engine.area_counts()``, ``int[n, 12]``: per chef, own dice
per pip then taken dice per pip) is positive, and the block's gate holds
(a Fortune cube to hand over, a Hustle token in the supply, one in the pool).
So the three blocks are one gather from the flattened ``counts > 0`` vector,
extended with a trailing ``False`` that gated-off indices point at::

    m[take.start:rotate.stop] = positive[dice_gather(n, seat, gate)]

``prepare_legal`` and ``cube_moves_legal`` memoise the two other kitchen
blocks by their small inputs (the acting chef's 12 counts; the cubes of the
chefs in relative order), which repeat constantly; ``substitutions_legal``
does the same for Grandpa's power.

The engine computes the masks of all ``n`` chefs in one pass, as one
``int8[n, A]`` array (``KitchenRules.kitchen_masks``), with the batched forms
of these tables: ``dice_gathers`` (every chef's gather, stacked),
``prepare_row`` (a chef's whole ``prepare`` block, memoised by its area
and its cards) and ``cube_moves_all``.
"""

from __future__ import annotations

import functools

import numpy as np

from envs.wok_star.actions import build_action_table, cube_moves, substitutions
from envs.wok_star.dice import N_COMBOS, amount_table, feasible

#: gate bits of :func:`dice_gather`
GATE_TAKE, GATE_HUSTLE_GAIN, GATE_ROTATE = 1, 2, 4


@functools.lru_cache(maxsize=None)
def dice_gather(n: int, seat: int, gate: int) -> np.ndarray:
    """Index into ``append(counts.ravel() > 0, False)`` for every action from ``take`` to ``rotate``.

    ``gate`` is a bitmask of the blocks whose condition holds; a block whose
    gate is off points at the trailing ``False`` (index ``12 * n``).
    """
    t = build_action_table(n)
    off = 12 * n
    idx: list[int] = []
    for r in range(1, n):  # take(chef=r, pip): the other chef's own die of that pip
        for pip in range(6):
            idx.append(((seat + r) % n) * 12 + pip if gate & GATE_TAKE else off)
    assert len(idx) == t.group("take").size
    for pip in range(6):  # hustle_gain(pip, die): a die of the actor's area
        for die in range(2):
            idx.append(seat * 12 + die * 6 + pip if gate & GATE_HUSTLE_GAIN else off)
    for r in range(n):  # rotate(chef=r, pip, die, direction): a die of that chef's area
        for pip in range(6):
            for die in range(2):
                cell = ((seat + r) % n) * 12 + die * 6 + pip if gate & GATE_ROTATE else off
                idx += [cell, cell]
    assert t.group("take").start + len(idx) == t.group("rotate").stop
    out = np.array(idx, dtype=np.intp)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=65536)
def prepare_legal(have: tuple[int, ...], ingredient: int, unlocked: int) -> np.ndarray:
    """bool[78]: the ``prepare`` combinations of ``ingredient`` that the counts ``have`` allow."""
    out = combos_feasible(have) & method_fits(ingredient, unlocked)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def method_fits(ingredient: int, unlocked: int) -> np.ndarray:
    """bool[78]: the combinations that fit one of the first ``unlocked`` methods of ``ingredient``."""
    out = amount_table(ingredient)[unlocked] > 0
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def _cube_needs(n: int) -> np.ndarray:
    """int[moves, n]: cubes each move takes from each chef (relative seats)."""
    moves = cube_moves(n)
    need = np.zeros((len(moves), n), dtype=np.int64)
    for k, move in enumerate(moves):
        for src, _ in move:
            need[k, src] += 1
    need.setflags(write=False)
    return need


@functools.lru_cache(maxsize=4096)
def cube_moves_legal(cubes: tuple[int, ...]) -> np.ndarray:
    """bool[moves]: which ``move_cubes`` moves the cubes of the chefs (relative order) allow."""
    out = np.all(_cube_needs(len(cubes)) <= np.array(cubes), axis=1)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=65536)
def substitutions_legal(in_play: tuple[bool, ...], level: tuple[int, ...], top: int) -> np.ndarray:
    """bool[subs]: Grandpa's ``a>b`` swaps allowed (both in play, ``a`` on row 1+, ``b`` below ``top``)."""
    out = np.array([in_play[a] and in_play[b] and level[a] >= 1 and level[b] < top
                    for a, b in substitutions(len(level))], dtype=bool)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def dice_gathers(n: int, gates: tuple[int, ...]) -> np.ndarray:
    """``intp[n, take..rotate]``: :func:`dice_gather` of every seat, ``gates[seat]`` being that seat's gate."""
    out = np.stack([dice_gather(n, seat, gate) for seat, gate in enumerate(gates)])
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=16384)
def combos_feasible(have: tuple[int, ...]) -> np.ndarray:
    """bool[78]: the dice combinations that one chef's area (12 counts: own then taken dice, per pip) allows."""
    out = feasible(np.array(have, dtype=np.int16))
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=8192)
def prepare_row(have: tuple[int, ...], unlocked: tuple[int, ...]) -> np.ndarray:
    """bool[ingredients * 78]: one chef's whole ``prepare`` block.

    ``have``: the chef's area (12 counts); ``unlocked[i]``: the methods
    uncovered on ingredient ``i`` if the chef holds its card, else 0 (with 0
    methods nothing fits, so a card held elsewhere and a card with no method
    give the same zero block, as in :func:`prepare_legal`).
    """
    out = np.zeros((len(unlocked), N_COMBOS), dtype=bool)
    for i, u in enumerate(unlocked):
        if u:
            out[i] = prepare_legal(have, i, u)
    out = out.ravel()
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=16384)
def area_flags(have: tuple[int, ...]) -> bytes:
    """One chef's area (12 counts) as 12 bytes ``count > 0``: its part of the ``positive`` vector."""
    return bytes(c > 0 for c in have)


def area_positive(rows: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """bool[12 n + 1]: ``counts.ravel() > 0`` of all areas (``engine.area_rows()``) and a trailing
    False, the vector that :func:`dice_gather` indexes (read-only)."""
    return np.frombuffer(b"".join([area_flags(have) for have in rows]) + b"\0", dtype=bool)


@functools.lru_cache(maxsize=4096)
def cube_moves_all(cubes: tuple[int, ...]) -> np.ndarray:
    """bool[n, moves]: :func:`cube_moves_legal` of every seat (``cubes`` in absolute seat order)."""
    n = len(cubes)
    out = np.stack([cube_moves_legal(tuple(cubes[(seat + r) % n] for r in range(n))) for seat in range(n)])
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def blank_masks(n: int, size: int) -> np.ndarray:
    """Read-only ``int8[n, size]``: every chef's mask with only ``noop`` (index 0) legal; copy to fill."""
    out = np.zeros((n, size), dtype=np.int8)
    out[:, 0] = 1
    out.setflags(write=False)
    return out
