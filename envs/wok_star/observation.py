"""Fast observations: one public *frame* per game state, one gather per chef.

Every chef's observation holds the same public facts; only the order of the
per-chef entries differs (chefs are listed relative to the observer). So the
encoder builds, once per game state, the observation of ``chef_0`` (the
*frame*, in which relative and absolute seats coincide) and derives chef
``s``'s observation from it with one precomputed gather::

    obs_s = frame[gather[s]]          # a fresh float32 array

``gather[s][k]`` is the frame entry that observation entry ``k`` of chef
``s`` copies: the identity for seat-independent fields, a rotation by ``s``
along the chef axis for per-chef fields (``obs_s`` row ``r`` = frame row
``(s + r) % n``). The observer's ``seat`` one-hot rotates the other way, and
``my_decision`` copies ``decider`` entry ``s`` (set exactly when ``s`` is the
decider).

No leak: :meth:`FramePlan.build` reads only what the chefs see at the table
(the same facts as :func:`envs.wok_star.public.build_public_table`): from the
face-down piles it takes only sizes and the counts the public table gives
(Coupons and Events shuffled into the Regular deck), never a card's position
or identity. The frame is cached on the engine (``engine._cache``), which
``engine.touch()`` clears on every state change.

Values are computed exactly as the reference encoding did (each one a Python
float rounded once to float32), so observations are bit-for-bit unchanged.
"""

from __future__ import annotations

import functools

import numpy as np

from envs.core.tables import ObservationLayout
from envs.wok_star.cards import EVENT_CARD_BASE, GameData
from envs.wok_star.engine import PHASES

DIFFICULTY_ORDER = ("mild", "medium", "extra_spicy")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
#: Phases in which every customer is back in its deck (``regular_left`` counts all three).
BETWEEN_DAYS = frozenset({"choose_character", "distribute", "third_die", "goal_cubes", "prep", "over"})

#: Per-chef fields of shape ``(n,)``: relative chef ``r`` is absolute chef ``(s + r) % n``.
CHEF_VECTORS = ("decider", "current_holder", "dirty", "pool", "cubes", "on_time", "late_served",
                "ingredient_cards", "recipes_held", "power_used")
#: Per-chef fields of shape ``(n, k)``: rows rotate.
CHEF_ROWS = ("dice_own", "dice_taken", "character")
#: Fields of shape ``(k, n)`` with a relative chef one-hot per row: columns rotate.
CHEF_COLUMNS = ("recipe_holder", "ing_holder")


@functools.lru_cache(maxsize=16384)
def dice_cells(have: tuple[int, ...]) -> tuple[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...]]:
    """The nonzero ``dice_own`` and ``dice_taken`` entries of one chef's area (12 counts: own then
    taken dice per pip) as ``(pip - 1, count / 5)`` pairs; the zero entries stay as the template's +0.0."""
    return (tuple((k, have[k] / 5) for k in range(6) if have[k]),
            tuple((k, have[6 + k] / 5) for k in range(6) if have[6 + k]))


def seat_gathers(layout: ObservationLayout, n: int) -> tuple[np.ndarray, ...]:
    """Per seat, the index array that turns the frame into that seat's observation."""
    sl = layout.slices
    out = []
    for s in range(n):
        g = np.arange(layout.size, dtype=np.intp)
        for name in CHEF_VECTORS:
            b = sl[name].start
            for r in range(n):
                g[b + r] = b + (s + r) % n
        for name in CHEF_ROWS:
            b, k = sl[name].start, layout.field(name).shape[1]
            for r in range(n):
                g[b + r * k: b + (r + 1) * k] = np.arange(k) + b + ((s + r) % n) * k
        for name in CHEF_COLUMNS:
            b, rows = sl[name].start, layout.field(name).shape[0]
            for x in range(rows):
                for r in range(n):
                    g[b + x * n + r] = b + x * n + (s + r) % n
        b = sl["seat"].start
        for r in range(n):
            g[b + r] = b + (r - s) % n
        g[sl["my_decision"].start] = sl["decider"].start + s
        g.setflags(write=False)
        out.append(g)
    return tuple(out)


class FramePlan:
    """Field offsets and static tables for one player count (built once per encoder)."""

    def __init__(self, layout: ObservationLayout, n: int, data: GameData):
        self.layout = layout
        self.n = n
        self.size = layout.size
        self.gathers = seat_gathers(layout, n)
        self.all_gathers = np.stack(self.gathers)  # (n, size): every seat's gather, for observe_seats
        #: every field's first index, as a plain int attribute ``o_<name>``
        for name, s in layout.slices.items():
            setattr(self, "o_" + name, s.start)
        self.n_ing = len(data.ingredients)
        self.n_characters = len(data.characters)
        customers = data.customers
        self.cust_recipe = tuple(c.recipe for c in customers)
        self.cust_coupon = tuple(bool(c.coupon) for c in customers)
        self.cust_income = tuple(c.income for c in customers)
        self.recipe_needs = tuple(tuple(r.ingredients) for r in data.recipes)
        #: ingredients each recipe uses, each once (the ``ing_demand`` count)
        self.recipe_uses = tuple(tuple(sorted(set(r.ingredients))) for r in data.recipes)
        self.prices = np.array([r.price / 31 for r in data.recipes], dtype=np.float32)
        self._templates: dict[tuple, np.ndarray] = {}

    # ------------------------------------------------------------------ constants
    def template(self, eng) -> np.ndarray:
        """The frame entries fixed by the configuration (read-only; copy before writing)."""
        cfg = eng.config
        key = (cfg["difficulty"], bool(cfg["events"]), bool(cfg["powers"]), tuple(eng.goals))
        t = self._templates.get(key)
        if t is None:
            sl = self.layout.slices
            t = self.layout.zeros()
            t[sl["difficulty"].start + DIFFICULTY_ORDER.index(key[0])] = 1
            t[sl["options"]] = key[1:3]
            t[sl["goals"]] = np.asarray(key[3], dtype=np.float32) / 100
            t[sl["recipe_price"]] = self.prices
            t[sl["seat"].start] = 1  # the frame is chef_0's observation
            t.setflags(write=False)
            self._templates[key] = t
        return t

    # ------------------------------------------------------------------ the frame
    def frame(self, eng) -> np.ndarray:
        """The frame of ``eng``'s current state (cached until ``eng.touch()``). Do not mutate."""
        v = eng._cache.get("obs_frame")
        if v is None:
            v = eng._cache["obs_frame"] = self.build(eng)
        return v

    def observe(self, eng, seat: int) -> np.ndarray:
        """Chef ``seat``'s observation: a fresh array."""
        return self.frame(eng)[self.gathers[seat]]

    def build(self, eng) -> np.ndarray:
        """Compute the frame (``chef_0``'s observation) from the public state of ``eng``."""
        base, in_play = self.base(eng)
        v = base.copy()
        self._fill_table(v, eng)
        self._fill_counter(v, eng)
        self._fill_progress(v, eng, in_play)
        self._fill_chefs(v, eng)
        v.setflags(write=False)  # cached and shared by every chef's gather
        return v

    # ------------------------------------------------------------------ decision-time part
    @staticmethod
    def base_key(eng) -> list:
        """The state the base frame derives from: everything that changes only between days or in a
        turn-based decision (who holds which card, offers, upgrades, characters, goal cubes, past events),
        as one list of ints (a fresh list: the engine's own lists change in place). Every part has a
        fixed length but ``offers`` and ``events_gone``, so the length of ``offers`` is part of the key."""
        return (eng.recipe_holder + eng.ing_holder + eng.ing_unlocked + eng.character + eng.goal_cubes
                + [len(eng.offers)] + eng.offers + eng.events_gone)

    def base(self, eng) -> tuple[np.ndarray, tuple[int, ...]]:
        """``(base frame, recipes in play)``: the template plus the fields of :meth:`base_key`.

        Kept on the engine (``eng._keyed_cache``, which ``touch()`` does not clear)
        with its key, and rebuilt only when the key differs, so an open day
        reuses one base frame for every tick. Read-only.
        """
        key = self.base_key(eng)
        entry = eng._keyed_cache.get("frame_base")
        if entry is None or entry[0] != key:
            v = self.template(eng).copy()
            in_play = self._fill_cards(v, eng)
            self._fill_decided(v, eng)
            v.setflags(write=False)
            entry = eng._keyed_cache["frame_base"] = (key, v, in_play)
        return entry[1], entry[2]

    def _fill_cards(self, v: np.ndarray, eng) -> tuple[int, ...]:
        """Recipes and Ingredient cards: who holds what, offers, upgrades, demand. Returns the recipes in play."""
        n = self.n
        demand = [0] * self.n_ing
        held = [0] * n
        in_play = []
        b_in, b_holder = self.o_recipe_in_play, self.o_recipe_holder
        for r, h in enumerate(eng.recipe_holder):
            if h >= 0:
                in_play.append(r)
                v[b_in + r] = 1
                v[b_holder + r * n + h] = 1
                held[h] += 1
                for i in self.recipe_uses[r]:
                    demand[i] += 1
        b = self.o_recipe_offer
        for r in eng.offers:
            if r >= 0:
                v[b + r] = 1
        b = self.o_recipes_held
        for s in range(n):
            if held[s]:
                v[b + s] = held[s] / 12
        unlocked = eng.ing_unlocked
        cards = [0] * n
        b_in, b_holder = self.o_ing_in_play, self.o_ing_holder
        b_unl, b_dem = self.o_ing_unlocked, self.o_ing_demand
        for i, h in enumerate(eng.ing_holder):
            if h >= 0:
                v[b_in + i] = 1
                v[b_holder + i * n + h] = 1
                cards[h] += 1
            if unlocked[i]:  # zero entries stay as the template's +0.0
                v[b_unl + i] = unlocked[i] / 4
            if demand[i]:
                v[b_dem + i] = demand[i] / 12
        b = self.o_ingredient_cards
        for s in range(n):
            if cards[s]:
                v[b + s] = cards[s] / 10
        return tuple(in_play)

    def _fill_decided(self, v: np.ndarray, eng) -> None:
        """Characters, goal cubes still on the Income Tracker, Event cards of earlier days."""
        b_char, width = self.o_character, self.n_characters
        for s, c in enumerate(eng.character):
            if c >= 0:
                v[b_char + s * width + c] = 1
        b = self.o_goal_cubes
        for k, on in enumerate(eng.goal_cubes):
            if on:
                v[b + k] = 1
        b = self.o_events_gone
        for e in eng.events_gone:
            v[b + e] = 1

    # ------------------------------------------------------------------ per-state part
    def _fill_table(self, v: np.ndarray, eng) -> None:
        """Phase, day, turn, money, timers and other single numbers."""
        v[self.o_phase + PHASE_INDEX[eng.phase]] = 1
        day = eng.day
        if day >= 1:
            v[self.o_day + day - 1] = 1
        turn = eng.turn
        if turn >= 0:
            v[self.o_decider + turn] = 1
            if turn == 0:
                v[self.o_my_decision] = 1
        v[self.o_cubes_passed] = eng.cubes_passed / eng.data.components["goal_cubes"]
        v[self.o_income] = max(0, eng.income) / 100
        v[self.o_money] = eng.money / 100
        t0, t1 = eng.timers
        lo, hi = (t0, t1) if t0 <= t1 else (t1, t0)
        v[self.o_timers] = lo / eng.T
        v[self.o_timers + 1] = hi / eng.T
        v[self.o_late] = eng.late_ticks / eng.P
        washes = eng.data.components["washes_per_day"]
        v[self.o_washes_left] = (washes - eng.washes) / washes
        v[self.o_first_served] = float(eng.first_served)
        v[self.o_hustle] = eng.hustle / 25
        v[self.o_hustle_supply] = eng.hustle_supply / 25
        b = self.o_events_today
        for e in eng.events_today:
            v[b + e] = 1
        v[self.o_passes] = eng.passes / self.n

    def _fill_counter(self, v: np.ndarray, eng) -> None:
        """The card at the counter and the face-down piles (sizes and public counts only)."""
        cur = eng.current
        if cur < 0:
            v[self.o_current_kind] = 1
        elif cur >= EVENT_CARD_BASE:
            v[self.o_current_kind + 2] = 1
            v[self.o_current_event + cur - EVENT_CARD_BASE] = 1
        else:
            v[self.o_current_kind + 1] = 1
            r = self.cust_recipe[cur]
            v[self.o_current_recipe + r] = 1
            v[self.o_current_coupon] = float(self.cust_coupon[cur])
            v[self.o_current_income] = self.cust_income[cur] / 10
            holder = eng.recipe_holder[r]
            if holder >= 0:
                v[self.o_current_holder + holder] = 1
            level = eng.ing_level
            ready = True
            b = self.o_current_needs
            for i in self.recipe_needs[r]:
                v[b + i] = 1
                ready = ready and level[i] >= 1
            v[self.o_current_ready] = float(ready)
        coupon = self.cust_coupon
        coupons_in_deck = events_in_deck = 0
        for c in eng.deck:
            if c >= EVENT_CARD_BASE:
                events_in_deck += 1
            elif coupon[c]:
                coupons_in_deck += 1
        b = self.o_deck
        v[b] = len(eng.deck) / 80
        v[b + 1] = coupons_in_deck / 24
        v[b + 2] = len(eng.coupons) / 24
        v[b + 3] = events_in_deck / 15
        v[b + 4] = len(eng.event_pile) / 15

    def _fill_progress(self, v: np.ndarray, eng, in_play: tuple[int, ...]) -> None:
        """Customers still to come per recipe, token rows, the Ingredient card waiting for a holder."""
        # recipe -> count; a recipe in neither dict counts 0 (and its entry stays the template's +0.0)
        regular_left = dict.fromkeys(in_play, 3)
        coupon_unseen = dict.fromkeys(in_play, 2)
        cust_recipe, cust_coupon = self.cust_recipe, self.cust_coupon
        seen = [c for served in eng.served for c, _ in served]
        cur = eng.current
        if 0 <= cur < EVENT_CARD_BASE:
            seen.append(cur)
        for c in seen:
            r = cust_recipe[c]
            if cust_coupon[c]:
                coupon_unseen[r] = coupon_unseen.get(r, 0) - 1
            else:
                regular_left[r] = regular_left.get(r, 0) - 1
        if eng.phase in BETWEEN_DAYS:
            regular_left = dict.fromkeys(in_play, 3)
        b = self.o_regular_left
        for r, k in regular_left.items():
            if k:
                v[b + r] = k / 3
        b = self.o_coupon_unseen
        for r, k in coupon_unseen.items():
            if k:
                v[b + r] = k / 2
        top = eng.top
        b_lvl = self.o_ing_level
        for i, level in enumerate(eng.ing_level):
            if level:  # zero entries stay as the template's +0.0
                v[b_lvl + i] = level / top
        if eng.pending:
            v[self.o_pending_card + eng.pending[0]] = 1

    def _fill_chefs(self, v: np.ndarray, eng) -> None:
        """Per chef: dice in the area (``eng.area_rows()``, shared with the masks) and the Dirty Dishes,
        pool, cubes, serves, power used."""
        n = self.n
        b_own, b_taken = self.o_dice_own, self.o_dice_taken
        for h, have in enumerate(eng.area_rows()):
            own, taken = dice_cells(have)
            for k, x in own:
                v[b_own + h * 6 + k] = x
            for k, x in taken:
                v[b_taken + h * 6 + k] = x
        die_pip = eng.die_pip
        dirty = [die_pip[5 * s: 5 * s + 5].count(0) for s in range(n)]  # chef s owns dice 5s .. 5s+4
        b_dirty, b_pool, b_cubes = self.o_dirty, self.o_pool, self.o_cubes
        b_on, b_late, b_used = self.o_on_time, self.o_late_served, self.o_power_used
        pool, cubes, served, used = eng.pool, eng.cubes, eng.served, eng.power_used
        for s in range(n):  # zero entries stay as the template's +0.0
            if dirty[s]:
                v[b_dirty + s] = dirty[s] / 5
            if pool[s]:
                v[b_pool + s] = pool[s] / 5
            if cubes[s]:
                v[b_cubes + s] = cubes[s] / 15
            if served[s]:
                late = 0
                for _, lt in served[s]:
                    if lt:
                        late += 1
                v[b_on + s] = (len(served[s]) - late) / 20
                v[b_late + s] = late / 20
            if used[s]:
                v[b_used + s] = 1
