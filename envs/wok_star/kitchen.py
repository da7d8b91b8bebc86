"""Dice, ingredients, Hustle and Fortune cubes (rulebook: Prepare Ingredients,
Wash the Dishes, Gain and Spend Hustle).

Dice: die ``d`` has colour ``d // 5`` (its owner). ``die_pip[d]`` is ``-1``
while the die is not in its owner's pool, ``0`` while it lies in the Dirty
Dishes (or is gathered after closing), else the value shown. ``die_holder[d]``
is the chef in whose area an unused die lies: its owner, or the chef who
*took* it for a Fortune cube. Dice of one colour class (own / taken) and pip
in one area are interchangeable; a taken die is chosen nearest-owner-first
(clockwise from the holder), then by number.
"""

from __future__ import annotations

import functools

import numpy as np

from envs.wok_star import timers
from envs.wok_star.actions import moves_by_label
from envs.wok_star.cards import load_data
from envs.wok_star.dice import COMBO_LABELS, COMBOS, amount_table, best_method, combo_fits
from envs.wok_star.mask_tables import (GATE_HUSTLE_GAIN, GATE_ROTATE, GATE_TAKE, area_positive, cube_moves_all,
                                       dice_gathers, prepare_row)

COMBO_BY_LABEL = {label: i for i, label in enumerate(COMBO_LABELS)}

KITCHEN = ("open", "wash", "closed")


ROTATE = {"up": 1, "down": -1}


@functools.lru_cache(maxsize=None)
def prepare_effect(ingredient: int, unlocked: int, combo: int) -> tuple[int, str]:
    """``(rows gained, text of the method applied)`` when ``combo`` prepares ``ingredient`` with
    ``unlocked`` methods uncovered (static data, memoised: the text is built once)."""
    gain = int(amount_table(ingredient)[unlocked][combo])
    method = load_data().ingredients[ingredient].methods[best_method(ingredient, unlocked, combo)]
    return gain, method.text()


class KitchenRules:
    # ------------------------------------------------------------------ dice helpers
    def roll(self, d: int) -> None:
        self.die_pip[d] = int(self.rng.integers(1, 7))

    def area_counts(self) -> np.ndarray:
        """int16[n, 12]: unused dice per area, own colour per pip then taken per pip (cached per state)."""
        c = self._cache.get("area")
        if c is None:
            rows = self.area_rows()
            c = self._cache["area"] = np.array(rows, dtype=np.int16)
        return c

    def area_rows(self) -> tuple[tuple[int, ...], ...]:
        """``area_counts()`` as plain ints, one tuple of 12 per chef (cached per state)."""
        rows = self._cache.get("area_rows")
        if rows is None:
            c = [[0] * 12 for _ in range(self.n)]
            holder = self.die_holder
            for d, pip in enumerate(self.die_pip):
                if pip > 0:
                    h = holder[d]
                    c[h][(0 if d // 5 == h else 6) + pip - 1] += 1
            rows = self._cache["area_rows"] = tuple(tuple(r) for r in c)
        return rows

    def dirty_dice(self) -> int:
        return sum(1 for p in self.die_pip if p == 0)

    def find_die(self, holder: int, pip: int, taken: bool) -> int:
        """The die that an action naming (holder, pip, own/taken) uses; -1 if none."""
        best, best_key = -1, None
        for d, p in enumerate(self.die_pip):
            if p != pip or self.die_holder[d] != holder:
                continue
            owner = d // 5
            if (owner != holder) != taken:
                continue
            key = ((owner - holder) % self.n, d)
            if best_key is None or key < best_key:
                best, best_key = d, key
        return best

    def to_dishes(self, d: int) -> None:
        self.die_pip[d] = 0
        self.die_holder[d] = d // 5

    def in_kitchen(self) -> bool:
        return self.phase in KITCHEN

    # ------------------------------------------------------------------ masks
    def seat_unlocked(self) -> tuple[tuple[int, ...], ...]:
        """Per chef, ``ing_unlocked`` of the Ingredient cards it holds and 0 for the others (the key of
        its ``prepare`` block, ``mask_tables.prepare_row``). Kept in ``_keyed_cache`` with the holders
        and upgrades it derives from, which change only in decisions."""
        key = (tuple(self.ing_holder), tuple(self.ing_unlocked))
        entry = self._keyed_cache.get("seat_unlocked")
        if entry is None or entry[0] != key:
            holder, unlocked = key
            per_seat = tuple(tuple(u if h == s else 0 for h, u in zip(holder, unlocked)) for s in range(self.n))
            entry = self._keyed_cache["seat_unlocked"] = (key, per_seat)
        return entry[1]

    def kitchen_masks(self, masks: np.ndarray) -> None:
        """Dice actions of every chef (``masks``: ``int8[n, A]``, one row per seat; tables in ``mask_tables``).

        ``prepare``: each chef's block memoised by its area and its cards;
        ``take``, ``hustle_gain``, ``rotate``: one gather from the areas'
        ``positive`` flags; ``move_cubes``: memoised by the cubes.
        """
        g = self._groups
        n = self.n
        rows = self.area_rows()
        prep = g["prepare"]
        for seat, unlocked in enumerate(self.seat_unlocked()):
            masks[seat, prep.start: prep.stop] = prepare_row(rows[seat], unlocked)
        # take (a cube to hand over), hustle_gain (supply not empty), rotate (pool not empty): one gather
        hustle = self.hustle
        shared = (GATE_HUSTLE_GAIN if self.hustle_supply > 0 else 0) | (GATE_ROTATE if hustle > 0 else 0)
        gates = tuple([shared | GATE_TAKE if c > 0 else shared for c in self.cubes])
        if any(gates):
            masks[:, g["take"].start: g["rotate"].stop] = area_positive(rows)[dice_gathers(n, gates)]
        if hustle > 0:
            g_moves = g["move_cubes"]
            masks[:, g_moves.start: g_moves.stop] = cube_moves_all(tuple(self.cubes))

    def _cubes_allow(self, seat: int, move) -> bool:
        need = {}
        for s, _ in move:
            need[s] = need.get(s, 0) + 1
        return all(self.cubes[self.rel(seat, s)] >= k for s, k in need.items())

    # ------------------------------------------------------------------ legality (slow path)
    def kitchen_check(self, seat: int, name: str, p: dict):
        if name not in ("prepare", "take", "hustle_gain", "rotate", "move_cubes"):
            return NotImplemented
        if not self.in_kitchen():
            return f"dice can only be used while the restaurant is open, washing or just closed (now: {self.phase})"
        if name == "prepare":
            i = self.data.ingredient_id(p["ingredient"])
            if self.ing_holder[i] < 0:
                return f"{p['ingredient']} is not in play"
            if self.ing_holder[i] != seat:
                return f"only the holder of the {p['ingredient']} card (chef_{self.ing_holder[i]}) can prepare it"
            c = COMBO_BY_LABEL[p["dice"]]
            if not combo_fits(self.area_rows()[seat], c):
                return (f"your area lacks unused dice {p['dice']} (`*` = a die you took from another chef); "
                        f"you have {self.describe_area(seat)}")
            if amount_table(i)[self.ing_unlocked[i]][c] == 0:
                methods = "; ".join(mt.text() for mt in self.data.ingredients[i].methods[: self.ing_unlocked[i]])
                return f"dice {p['dice']} fit no unlocked {p['ingredient']} method ({methods})"
            return None
        if name == "take":
            other = self.rel(seat, p["chef"])
            if self.cubes[seat] < 1:
                return "you have no Fortune cube to hand over, so you cannot use another chef's dice"
            if self.area_rows()[other][p["pip"] - 1] == 0:
                return f"chef_{other} has no unused die of their colour showing {p['pip']} in their area"
            return None
        if name == "hustle_gain":
            if self.hustle_supply <= 0:
                return "the Hustle supply is empty"
            col = (0 if p["die"] == "own" else 6) + p["pip"] - 1
            if self.area_rows()[seat][col] == 0:
                return f"you have no unused {p['die']} die showing {p['pip']}; you have {self.describe_area(seat)}"
            return None
        if name == "rotate":
            if self.hustle < 1:
                return "the Hustle pool is empty"
            holder = self.rel(seat, p["chef"])
            col = (0 if p["die"] == "own" else 6) + p["pip"] - 1
            if self.area_rows()[holder][col] == 0:
                return f"chef_{holder}'s area has no unused {p['die']} die showing {p['pip']}"
            return None
        # move_cubes
        if self.hustle < 1:
            return "the Hustle pool is empty"
        move = self._move_by_label(p["move"])
        if not self._cubes_allow(seat, move):
            return "a chef named as a source has too few Fortune cubes (cubes: " + ", ".join(
                f"chef_{s}={c}" for s, c in enumerate(self.cubes)) + ")"
        return None

    def _move_by_label(self, label: str):
        return moves_by_label(self.n)[label]

    def describe_area(self, seat: int) -> str:
        c = self.area_counts()[seat]
        own = [str(p + 1) for p in range(6) for _ in range(c[p])]
        taken = [f"{p + 1}*" for p in range(6) for _ in range(c[6 + p])]
        return "[" + " ".join(own + taken) + "]" if own or taken else "no unused dice"

    # ------------------------------------------------------------------ actions
    def do_prepare(self, seat: int, ingredient: str, dice: str) -> None:
        i = self.data.ingredient_id(ingredient)
        c = COMBO_BY_LABEL[dice]
        lo, hi, mode = COMBOS[c]
        d1 = self.find_die(seat, lo, bool(mode & 1))
        self.to_dishes(d1)
        d2 = self.find_die(seat, hi, bool(mode & 2))
        self.to_dishes(d2)
        gain, method = prepare_effect(i, self.ing_unlocked[i], c)
        self.ing_level[i] = min(self.top, self.ing_level[i] + gain)
        self.say(f"chef_{seat} prepares {ingredient} with {dice} ({method}, now row {self.ing_level[i]})")

    def do_take(self, seat: int, chef: int, pip: int) -> None:
        other = self.rel(seat, chef)
        d = self.find_die(other, pip, False)
        self.die_holder[d] = seat
        self.cubes[seat] -= 1
        self.cubes[other] += 1
        self.say(f"chef_{seat} takes chef_{other}'s {pip} for a Fortune cube")

    def do_hustle_gain(self, seat: int, pip: int, die: str) -> None:
        d = self.find_die(seat, pip, die == "taken")
        self.to_dishes(d)
        self.hustle += 1
        self.say(f"chef_{seat} turns a {pip} into Hustle (pool {self.hustle})")

    def do_rotate(self, seat: int, chef: int, pip: int, die: str, direction: str) -> None:
        holder = self.rel(seat, chef)
        d = self.find_die(holder, pip, die == "taken")
        self.die_pip[d] = (pip - 1 + ROTATE[direction]) % 6 + 1
        self.hustle -= 1
        self.say(f"chef_{seat} spends Hustle: chef_{holder}'s {pip} -> {self.die_pip[d]}")

    def do_move_cubes(self, seat: int, move: str) -> None:
        for s, d in self._move_by_label(move):
            self.cubes[self.rel(seat, s)] -= 1
            self.cubes[self.rel(seat, d)] += 1
        self.hustle -= 1
        self.say(f"chef_{seat} spends Hustle to move Fortune cubes ({move})")

    # ------------------------------------------------------------------ washing
    def start_wash(self, seat: int) -> None:
        self.phase = "wash"
        self.washes += 1
        self._phase_started = True
        self.say(f"chef_{seat} starts wash {self.washes}: timers stopped")

    def end_wash_tick(self) -> None:
        if self._phase_started or self._productive:
            return
        flip = self._finish_flip or "low"
        timers.flip(self.timers, flip, self.T)
        for d, pip in enumerate(self.die_pip):
            if pip == 0:
                self.die_holder[d] = d // 5
                self.roll(d)
        self.phase = "open"
        self.late_ticks = 0
        self.say(f"dishes washed: timers restart ({flip} timer flipped), dirty dice re-rolled")

    def gather_dice(self) -> None:
        """Daily Accounting step 1: every die back to its owner (rolled at the next opening)."""
        for d, pip in enumerate(self.die_pip):
            if pip >= 0:
                self.die_pip[d] = 0
                self.die_holder[d] = d // 5

    def activate_dice(self, owner: int, count: int) -> None:
        for k in range(5):
            d = owner * 5 + k
            if k < count and self.die_pip[d] < 0:
                self.die_pip[d] = 0
                self.die_holder[d] = owner
        self.pool[owner] = max(self.pool[owner], count)

    def roll_all(self) -> None:
        for d, pip in enumerate(self.die_pip):
            if pip >= 0:
                self.die_holder[d] = d // 5
                self.roll(d)
