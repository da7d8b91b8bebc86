"""Dice combinations a chef can prepare an ingredient with, and what they yield.

A *combination* names two dice in the acting chef's area by pip value and by
colour class: ``own`` (the chef's colour) or ``taken`` (another chef's colour,
taken earlier for a Fortune cube). Labels read ``"3+5"`` (both own),
``"3*+5"`` (the 3 is a taken die), ``"3+5*"``, ``"3*+5*"``; for doubles
``"4+4"``, ``"4*+4"``, ``"4*+4*"``. That is 15*4 + 6*3 = 78 combinations.

Dice of the same colour class and pip value in one area are interchangeable,
so naming dice this way loses nothing (see docs/wok_star.md, "Action folding").

``amount_table(ingredient)`` gives, per number of unlocked methods (1-4), the
best amount each combination yields (0: no method fits). The engine always
applies the best fitting method: the only effect of a method is how far the
token rises, and a higher token is never worse.
"""

from __future__ import annotations

import functools

import numpy as np

from envs.wok_star.cards import Ingredient, load_data

PIPS = (1, 2, 3, 4, 5, 6)


def _combos() -> list[tuple[int, int, int]]:
    """(low pip, high pip, taken) where taken is a bitmask: 1 = low die taken, 2 = high die taken."""
    out = []
    for lo in PIPS:
        for hi in PIPS:
            if hi < lo:
                continue
            modes = (0, 1, 2, 3) if lo != hi else (0, 1, 3)
            for m in modes:
                out.append((lo, hi, m))
    return out


COMBOS: tuple[tuple[int, int, int], ...] = tuple(_combos())
N_COMBOS = len(COMBOS)


def combo_label(lo: int, hi: int, taken: int) -> str:
    a = f"{lo}{'*' if taken & 1 else ''}"
    b = f"{hi}{'*' if taken & 2 else ''}"
    return f"{a}+{b}"


COMBO_LABELS: tuple[str, ...] = tuple(combo_label(*c) for c in COMBOS)
COMBO_INDEX = {c: i for i, c in enumerate(COMBOS)}

#: NEED[c] = 12 counts: own dice needed per pip (0-5), then taken dice per pip (6-11).
NEED = np.zeros((N_COMBOS, 12), dtype=np.int16)
for _i, (_lo, _hi, _m) in enumerate(COMBOS):
    NEED[_i, (6 if _m & 1 else 0) + _lo - 1] += 1
    NEED[_i, (6 if _m & 2 else 0) + _hi - 1] += 1


def feasible(have: np.ndarray) -> np.ndarray:
    """bool[78]: which combinations the 12 counts ``have`` (own then taken, per pip) allow."""
    return np.all(NEED <= have, axis=1)


#: NEED as plain ints: per combination, the (cell, dice needed) pairs of its nonzero entries.
NEED_CELLS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((k, int(x)) for k, x in enumerate(row) if x) for row in NEED)


def combo_fits(have, combo: int) -> bool:
    """``feasible(have)[combo]`` for one combination, without numpy (``have``: 12 ints)."""
    for cell, need in NEED_CELLS[combo]:
        if have[cell] < need:
            return False
    return True


@functools.lru_cache(maxsize=None)
def _amounts(ingredient_id: int) -> np.ndarray:
    ing: Ingredient = load_data().ingredients[ingredient_id]
    table = np.zeros((5, N_COMBOS), dtype=np.int8)  # index: unlocked methods 0..4
    for unlocked in range(1, 5):
        for c, (lo, hi, m) in enumerate(COMBOS):
            best = 0
            for method in ing.methods[:unlocked]:
                if method.foreign and m == 0:
                    continue
                if method.matches(lo, hi):
                    best = max(best, method.amount)
            table[unlocked, c] = best
    table.setflags(write=False)
    return table


def amount_table(ingredient_id: int) -> np.ndarray:
    """int8[5, 78]: best amount per (unlocked methods, combination)."""
    return _amounts(ingredient_id)


def best_method(ingredient_id: int, unlocked: int, combo: int) -> int:
    """Index of the best unlocked method that the combination fits (-1 if none)."""
    ing = load_data().ingredients[ingredient_id]
    lo, hi, m = COMBOS[combo]
    best, best_i = 0, -1
    for i, method in enumerate(ing.methods[:unlocked]):
        if method.foreign and m == 0:
            continue
        if method.matches(lo, hi) and method.amount > best:
            best, best_i = method.amount, i
    return best_i
