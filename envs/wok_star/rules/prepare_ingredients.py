"""Rulebook section "Prepare Ingredients" (Phase 1: Open for Business).

"To prepare an ingredient, the player with the specific Ingredient card:
chooses a method and finds matching dice (any 2 unused dice that fulfill the
requirements of the selected, available method), swaps if needed, places the
used dice in the Dirty Dishes, gains the ingredient (slides the token up the
number of slots indicated on the method used)." And: "you must hand a player
1 of your Fortune cubes when you take 1 of their dice" (``take``).

``amount_table(ingredient)`` gives, per number of unlocked methods (1-4), the
best amount each dice combination (:mod:`envs.wok_star.actions`) yields (0: no
method fits). The engine always applies the best fitting method: the only
effect of a method is how far the token rises, and a higher token is never
worse.

Dice: die ``d`` has colour ``d // 5`` (its owner). ``die_pip[d]`` is ``-1``
while the die is not in its owner's pool, ``0`` while it lies in the Dirty
Dishes (or is gathered after closing), else the value shown. ``die_holder[d]``
is the chef in whose area an unused die lies: its owner, or the chef who
*took* it for a Fortune cube (``engine.find_die``).
"""

from __future__ import annotations

import functools

import numpy as np

from envs.wok_star.actions import COMBO_BY_LABEL, COMBOS, N_COMBOS
from envs.wok_star.cards import Ingredient, load_data


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


@functools.lru_cache(maxsize=None)
def prepare_effect(ingredient: int, unlocked: int, combo: int) -> tuple[int, str]:
    """``(rows gained, text of the method applied)`` when ``combo`` prepares ``ingredient`` with
    ``unlocked`` methods uncovered (static data, memoised: the text is built once)."""
    gain = int(amount_table(ingredient)[unlocked][combo])
    method = load_data().ingredients[ingredient].methods[best_method(ingredient, unlocked, combo)]
    return gain, method.text()


def prepare(eng, seat: int, ingredient: str, dice: str) -> None:
    i = eng.data.ingredient_id(ingredient)
    c = COMBO_BY_LABEL[dice]
    lo, hi, mode = COMBOS[c]
    d1 = eng.find_die(seat, lo, bool(mode & 1))
    eng.to_dishes(d1)
    d2 = eng.find_die(seat, hi, bool(mode & 2))
    eng.to_dishes(d2)
    gain, method = prepare_effect(i, eng.ing_unlocked[i], c)
    eng.ing_level[i] = min(eng.top, eng.ing_level[i] + gain)
    eng.say(f"chef_{seat} prepares {ingredient} with {dice} ({method}, now row {eng.ing_level[i]})")


def take(eng, seat: int, chef: int, pip: int) -> None:
    """Use another chef's die: it moves to your area, one of your Fortune cubes to its owner."""
    other = eng.rel(seat, chef)
    d = eng.find_die(other, pip, False)
    eng.die_holder[d] = seat
    eng.cubes[seat] -= 1
    eng.cubes[other] += 1
    eng.say(f"chef_{seat} takes chef_{other}'s {pip} for a Fortune cube")
