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

from envs.core.encoding import BatchDoor, game_records, write_rows
from envs.core.tables import ObservationLayout
from envs.wok_star.actions import build_action_table
from envs.wok_star.cards import EVENT_CARD_BASE, GameData
from envs.wok_star.engine import PHASES
from envs.wok_star.legality import KITCHEN_PHASES, batch_masks

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
        # per card id (customers below EVENT_CARD_BASE, then Event cards): 1 for a Coupon customer, 1 for an Event
        width = EVENT_CARD_BASE + len(data.events)
        self.coupon_of = tuple(1 if c < len(customers) and customers[c].coupon else 0 for c in range(width))
        self.event_of = tuple(1 if c >= EVENT_CARD_BASE else 0 for c in range(width))
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
        coupons_in_deck, events_in_deck = self.deck_counts(eng)
        b = self.o_deck
        v[b] = len(eng.deck) / 80
        v[b + 1] = coupons_in_deck / 24
        v[b + 2] = len(eng.coupons) / 24
        v[b + 3] = events_in_deck / 15
        v[b + 4] = len(eng.event_pile) / 15

    def deck_counts(self, eng) -> tuple[int, int]:
        """``(Coupon customers, Event cards)`` in the Regular deck: the counts the table sees (its
        order stays hidden). Kept on the engine (``eng._keyed_cache``) with a copy of the deck they
        were counted in, and counted again when the deck differs (one list comparison per state)."""
        deck = eng.deck
        entry = eng._keyed_cache.get("deck_counts")
        if entry is None or entry[0] != deck:
            entry = eng._keyed_cache["deck_counts"] = (deck.copy(), sum(map(self.coupon_of.__getitem__, deck)),
                                                       sum(map(self.event_of.__getitem__, deck)))
        return entry[1], entry[2]

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


class BatchObserver:
    """Every chef's observation and mask of many Wok Star games of one configuration at once, for
    the batched env (:mod:`envs.vector`, from ``min_games`` games).

    The frame of one game (:meth:`FramePlan.build`) writes some sixty entries one numpy item at a
    time. Here each game gives its decision-time base frame (:meth:`FramePlan.base`, kept on the
    engine as before) and one list of small ints read from its state: the numerator of every
    per-tick count (at the entries :attr:`dense`, each with its fixed denominator), then the offset
    of each per-tick one-hot in its field (:attr:`hot_starts`; 255: none, sent to a scratch column)
    and the recipe ordered. All games' lists become one byte array (an int64 array where a value
    leaves 0..255), and a handful of numpy calls build every game's frame: the bases stacked, the
    counts divided in float64 and rounded once to float32 (as ``v[i] = a / b`` rounds the Python
    float), the one-hots set, and one ``take`` gathers every chef's observation of every game. The
    masks: each game's cached ones (the tick's check that no chef is stuck computed some), the
    others in a kitchen phase computed together (:func:`~envs.wok_star.legality.batch_masks`, left
    in each engine's cache as ``all_masks()`` leaves them), the rest game by game. Equal to
    ``observe_seats`` and ``masks_into`` of each game (``tests/wok_star/test_batch.py``). It keeps
    nothing of a game between calls.
    """

    #: The fewest games for which one call executes fewer instructions than going game by game
    #: (per agent-step, 2 chefs: 2 games +10%, 4 games level, 6 games -5.5%, 8 games -8.7%,
    #: 64 games -15%; docs/performance.md, the fourteenth increment).
    min_games = 6

    def __init__(self, encoder, num_games: int):
        plan = self.plan = encoder.plan
        self.n = n = plan.n
        self.size = size = plan.size
        self.num_games = num_games
        self.actions = actions = build_action_table(n).n
        self._door = BatchDoor(encoder.config, num_games, n, size, actions)
        data = encoder.data
        R, I = len(data.recipes), plan.n_ing
        self.R, self.I = R, I
        self.n_events = len(data.events)
        # per customer: (recipe, coupon?); the recipes' ingredient rows (the last row: no customer)
        self.cust = tuple(zip(plan.cust_recipe, plan.cust_coupon))
        needs = np.zeros((R + 1, I), dtype=np.float32)
        for r, ings in enumerate(plan.recipe_needs):
            needs[r, list(ings)] = 1
        needs.setflags(write=False)
        self.needs = needs
        sl = plan.layout.slices
        self.needs_at = (sl["current_needs"].start, sl["current_needs"].stop)
        p = plan
        dense = [p.o_cubes_passed, p.o_income, p.o_money, p.o_timers, p.o_timers + 1, p.o_late, p.o_washes_left,
                 p.o_first_served, p.o_hustle, p.o_hustle_supply, p.o_passes] + [p.o_deck + k for k in range(5)] \
            + [p.o_current_coupon, p.o_current_income, p.o_current_ready] \
            + [p.o_regular_left + r for r in range(R)] + [p.o_coupon_unseen + r for r in range(R)] \
            + [p.o_ing_level + i for i in range(I)]
        for h in range(n):  # engine.area_rows(): per chef 6 own counts then 6 taken, per pip
            dense += [p.o_dice_own + h * 6 + k for k in range(6)] + [p.o_dice_taken + h * 6 + k for k in range(6)]
        for name in ("dirty", "pool", "cubes", "on_time", "late_served", "power_used"):
            dense += [sl[name].start + s for s in range(n)]
        self.dense = np.array(dense, dtype=np.intp)
        if len(set(dense)) != len(dense):
            raise AssertionError("the batch observer's dense entries overlap")
        self._dens: np.ndarray | None = None  # each dense entry's divisor (the configuration's: the first engine's)
        #: the one-hots' fields, in the order of each game's record
        self.hot_starts = np.array([p.o_phase, p.o_day, p.o_decider, p.o_my_decision, p.o_current_kind,
                                    p.o_current_event, p.o_current_recipe, p.o_current_holder, p.o_pending_card],
                                   dtype=np.intp)
        self._start_counts: dict[tuple, list[int]] = {}  # recipes in play -> regular_left, coupon_unseen at the day's start
        self._dice_slices = tuple((5 * s, 5 * s + 5) for s in range(n))  # chef s owns dice 5s .. 5s+4

    def _denominators(self, eng) -> np.ndarray:
        """float64[len(dense)]: each dense entry's divisor, fixed by the configuration (the door
        takes only engines of the observer's), so computed from the first engine given."""
        if self._dens is None:
            comp = eng.data.components
            n, R, I = self.n, self.R, self.I
            d = np.array([comp["goal_cubes"], 100, 100, eng.T, eng.T, eng.P, comp["washes_per_day"], 1, 25, 25, n,
                          80, 24, 24, 15, 15, 1, 10, 1] + [3] * R + [2] * R + [eng.top] * I + [5] * (12 * n)
                         + [5] * n + [5] * n + [15] * n + [20] * n + [20] * n + [1] * n, dtype=np.float64)
            d.setflags(write=False)
            self._dens = d
        return self._dens

    def _refuse(self, g: int, eng) -> None:
        """A one-hot index outside its field (set by hand: no step and no snapshot makes one), which
        the per-game path writes into a neighbouring field or fails on. Nothing is written."""
        raise ValueError(f"engine {g} holds a state no game reaches (day {eng.day}, turn {eng.turn}, card at the "
                         f"counter {eng.current}, pending card {list(eng.pending)[:1]}); allowed: days 0..4, turns "
                         f"-1..{self.n - 1}, Event cards "
                         f"{EVENT_CARD_BASE}..{EVENT_CARD_BASE + self.n_events - 1}, Ingredient cards 0..{self.I - 1}")

    def observe(self, rows, engines, obs: np.ndarray, masks: np.ndarray) -> None:
        """Write every chef's observation of ``engines[k]`` into ``obs[rows[k]]`` (float32
        ``(players, size)``) and its masks into ``masks[rows[k]]`` (int8 ``(players, A)``). An
        engine holding a one-hot index outside its field (a day above 4, ...: only a state set by
        hand) is refused with a ValueError before anything is written."""
        self._door.check(rows, engines, obs, masks)
        if not len(rows):
            return
        p = self.plan
        R, E = self.R, EVENT_CARD_BASE
        cust, cust_income, recipe_needs, deck_counts = self.cust, p.cust_income, p.recipe_needs, p.deck_counts
        start_counts, dice_slices = self._start_counts, self._dice_slices
        n, n_ing, n_events = self.n, self.I, self.n_events
        washes = engines[0].data.components["washes_per_day"]
        flat: list[int] = []  # per game: the dense numerators, the one-hots' offsets (255: none), the recipe ordered
        bases, mask_rows = [], []
        pending_masks: list[int] = []  # games whose masks are computed in one batch
        events_g, events_c = [], []  # the Events of the day: (game, entry)
        o_events_today = p.o_events_today
        for g, eng in enumerate(engines):
            base, in_play = p.base(eng)
            bases.append(base)
            phase, day, turn, cur = eng.phase, eng.day, eng.turn, eng.current
            # customers of each recipe still to come (regular) and not yet seen (coupon) today
            counts = start_counts.get(in_play)
            if counts is None:
                counts = start_counts[in_play] = [3 if r in in_play else 0 for r in range(R)] \
                    + [2 if r in in_play else 0 for r in range(R)]
            left = counts.copy()
            on_time, late = [], []
            for chef in eng.served:
                k = 0
                for c, lt in chef:
                    r, coupon = cust[c]
                    left[r + R if coupon else r] -= 1
                    if lt:
                        k += 1
                on_time.append(len(chef) - k)
                late.append(k)
            pending = eng.pending
            if day > 4 or turn >= n or (pending and not 0 <= pending[0] < n_ing):
                self._refuse(g, eng)
            if cur < 0:
                head, hot, need = (0, 0, 0), (0, 255, 255, 255), R
            elif cur >= E:
                if cur - E >= n_events:
                    self._refuse(g, eng)
                head, hot, need = (0, 0, 0), (2, cur - E, 255, 255), R
            else:
                r, coupon = cust[cur]
                left[r + R if coupon else r] -= 1
                holder = eng.recipe_holder[r]  # (a holder outside 0..n-1 fails in the base frame, as game by game)
                level = eng.ing_level
                ready = 1
                for i in recipe_needs[r]:
                    if level[i] < 1:
                        ready = 0
                        break
                head, hot, need = (coupon, cust_income[cur], ready), (1, 255, r, holder if holder >= 0 else 255), r
            if phase in BETWEEN_DAYS:
                left[:R] = counts[:R]
            t0, t1 = eng.timers
            if t1 < t0:
                t0, t1 = t1, t0
            income = eng.income
            coupons_in_deck, events_in_deck = deck_counts(eng)
            flat += (eng.cubes_passed, income if income > 0 else 0, eng.money, t0, t1, eng.late_ticks,
                     washes - eng.washes, eng.first_served, eng.hustle, eng.hustle_supply, eng.passes, len(eng.deck),
                     coupons_in_deck, len(eng.coupons), events_in_deck, len(eng.event_pile), *head)
            flat += left
            flat += eng.ing_level
            for have in eng.area_rows():
                flat += have
            die_pip = eng.die_pip
            flat += [die_pip[a:b].count(0) for a, b in dice_slices]
            flat += eng.pool
            flat += eng.cubes
            flat += on_time
            flat += late
            flat += map(bool, eng.power_used)
            flat += (PHASE_INDEX[phase], day - 1 if day >= 1 else 255, turn if turn >= 0 else 255,
                     0 if turn == 0 else 255, *hot, pending[0] if pending else 255, need)
            for e in eng.events_today:
                events_g.append(g)
                events_c.append(o_events_today + e)
            m = eng._cache.get("masks")  # (most computed by the tick's check that no chef is stuck)
            if m is None:
                if eng.done:  # (noop only; the batched env gives none)
                    m = np.zeros((self.n, self.actions), dtype=np.int8)
                    eng.masks_into(m)
                elif phase in KITCHEN_PHASES:  # computed with the batch's others, below
                    pending_masks.append(g)
                else:
                    m = eng.all_masks()
            mask_rows.append(m)
        if pending_masks:
            batch = batch_masks([engines[g] for g in pending_masks])
            batch.setflags(write=False)
            for g, m in zip(pending_masks, batch):
                mask_rows[g] = engines[g]._cache["masks"] = m  # (the engine's cache, as all_masks() keeps it)
        G = len(bases)
        rec = game_records(flat, G)  # (int64 where a value leaves 0..255: a negative count, money above 255)
        D, size = len(self.dense), self.size
        frames = np.empty((G, size + 1), dtype=np.float32)  # the last column: where empty one-hots go
        frames[:, :size] = bases
        frames[:, self.dense] = rec[:, :D] / self._denominators(engines[0])
        hot = rec[:, D:-1]
        at = hot + self.hot_starts
        at[hot == 255] = size
        frames[np.arange(G)[:, None], at] = 1
        a, b = self.needs_at
        frames[:, a:b] = self.needs[rec[:, -1]]
        if events_g:
            frames[events_g, events_c] = 1
        write_rows(rows, obs, masks, frames, p.all_gathers, np.concatenate(mask_rows).reshape(G, self.n, -1))
