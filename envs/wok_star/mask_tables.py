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
"""

from __future__ import annotations

import functools

import numpy as np

from envs.wok_star.actions import build_action_table, cube_moves, substitutions
from envs.wok_star.dice import amount_table, feasible

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
    out = feasible(np.array(have, dtype=np.int16)) & (amount_table(ingredient)[unlocked] > 0)
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
