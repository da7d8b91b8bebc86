"""The flat action table of Wok Star (one per player count) and the dice
combinations its ``prepare`` actions name.

Chefs are named *relative to the acting chef*: ``chef=0`` is yourself,
``chef=1`` the next chef clockwise (``chef_{(i+1) % n}``), and so on, so one
policy can play every seat. The table is the same whatever the optional rules
(Events, Player Powers) or the setup mode: actions they do not allow are
masked.

A dice *combination* names two dice in the acting chef's area by pip value and
by colour class: ``own`` (the chef's colour) or ``taken`` (another chef's
colour, taken earlier for a Fortune cube). Labels read ``"3+5"`` (both own),
``"3*+5"`` (the 3 is a taken die), ``"3+5*"``, ``"3*+5*"``; for doubles
``"4+4"``, ``"4*+4"``, ``"4*+4*"``. That is 15*4 + 6*3 = 78 combinations.
Dice of the same colour class and pip value in one area are interchangeable,
so naming dice this way loses nothing (see docs/wok_star.md, "Action folding").
``NEED``/``feasible``/``combo_fits`` decode which combinations an area allows.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from envs.core.tables import ActionTable
from envs.wok_star.cards import load_data

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


#: combination index by label (``"3*+5"``)
COMBO_BY_LABEL = {label: i for i, label in enumerate(COMBO_LABELS)}


FLIPS = ("low", "high")


@functools.lru_cache(maxsize=None)
def cube_moves(n: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Fortune-cube moves paid with one Hustle token, chefs relative to the actor.

    Every move of up to 2 cubes with a distinct net effect: one transfer
    ``(src, dst)``, or two transfers that neither undo nor chain into each
    other (``a>b`` then ``b>c`` nets to the single transfer ``a>c``).
    """
    transfers = [(s, d) for s in range(n) for d in range(n) if s != d]
    out: list[tuple[tuple[int, int], ...]] = [(t,) for t in transfers]
    for t1, t2 in itertools.combinations_with_replacement(transfers, 2):
        if t1[1] == t2[0] or t2[1] == t1[0]:
            continue
        out.append((t1, t2))
    return tuple(out)


def move_label(move: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{s}>{d}" for s, d in move)


@functools.lru_cache(maxsize=None)
def substitutions(n_ingredients: int) -> tuple[tuple[int, int], ...]:
    return tuple((a, b) for a in range(n_ingredients) for b in range(n_ingredients) if a != b)


@functools.lru_cache(maxsize=None)
def moves_by_label(n: int) -> dict:
    return {move_label(m): m for m in cube_moves(n)}


@functools.lru_cache(maxsize=None)
def build_action_table(n: int) -> ActionTable:
    data = load_data()
    ings = tuple(i.key for i in data.ingredients)
    chefs = tuple(range(n))
    t = ActionTable(
        "wait this tick. In a decision that is yours to make it takes the documented default; "
        "on your purchase turn it passes; in a wash or after closing, a tick in which no chef does anything ends that step"
    )
    t.add("serve", "serve the current customer (you hold its recipe, every ingredient is on row 1+, the timers run); "
               "then flip the timer with less (`low`) or more (`high`) sand on top; the first serve of a day flips the unstarted timer (`low`)",
          flip=FLIPS)
    t.add("prepare", "prepare an ingredient whose card you hold with two unused dice in your area (`*` = a die of another chef you took); "
                     "they go to the Dirty Dishes and the token rises by the best unlocked method they fit",
          ingredient=ings, dice=COMBO_LABELS)
    t.add("take", "take an unused die of that pip from that chef's area, handing them one of your Fortune cubes",
          chef=tuple(range(1, n)), pip=PIPS)
    t.add("hustle_gain", "put an unused die of your area (`own` colour or `taken`) in the Dirty Dishes for a Hustle token",
          pip=PIPS, die=("own", "taken"))
    t.add("rotate", "spend a Hustle token: turn an unused die in that chef's area one pip up or down (6 and 1 wrap)",
          chef=chefs, pip=PIPS, die=("own", "taken"), direction=("up", "down"))
    t.add("move_cubes", "spend a Hustle token: move up to 2 Fortune cubes (`a>b`: one cube from chef a to chef b, relative seats)",
          move=tuple(move_label(m) for m in cube_moves(n)))
    t.add("wash", "use the Dishwasher: stop both timers and start washing the dishes")
    t.add("finish_wash", "end the wash (counts only in a tick where no chef does anything): restart the timers, flipping the one with `low`/`high` sand on top",
          flip=FLIPS)
    t.add("close", "vote to close for business (closes when every chef votes in the same tick)")
    t.add("lily_restart", "Lily's power: restart the timer with less (`low`) or more (`high`) sand with full sand", timer=FLIPS)
    t.add("grandpa_substitute", "Grandpa's power: ingredient `swap` a>b moves token a down 1 row and token b up 1 row",
          swap=tuple(f"{ings[a]}>{ings[b]}" for a, b in substitutions(len(ings))))
    t.add("mama_reroll", "Mama's power: re-roll every unused die of your colour in your area")
    t.add("uncle_deliver", "Uncle's power: raise one ingredient token 1 row", ingredient=ings)
    t.add("auntie_reseat", "Auntie's power: reveal the next card and shuffle the current customer back into the Regular deck")
    t.add("choose_character", "setup, Player Powers: take this Wang Family character", character=tuple(c.key for c in data.characters))
    t.add("give_ingredient", "give the pending Ingredient card to that chef", chef=chefs)
    if n == 2:
        t.add("give_third_die", "two players, setup: that chef starts with 3 dice", chef=chefs)
    t.add("give_goal_cubes", "give the Fortune cubes passed on the Income Tracker to that chef", chef=chefs)
    t.add("buy_recipe", "Next Day Prep, your turn: buy the offered recipe in that slot and give it to that chef", offer=(0, 1, 2), chef=chefs)
    t.add("upgrade", "Next Day Prep, your turn: pay $6 to uncover that card's leftmost covered method", ingredient=ings)
    t.add("advertise", "Next Day Prep, your turn: shuffle one random Coupon customer into the Regular deck (free)")
    t.add("buy_hustle", "Next Day Prep, your turn: pay $2 for a Hustle token")
    return t
