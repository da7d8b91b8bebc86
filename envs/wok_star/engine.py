"""The Wok Star rules engine: one tick = ``seconds_per_tick`` of table time.

The state is plain lists and ints (JSON-able as is). This module holds the
state, setup, the tick loop, ``done``, ``outcome``, snapshots and ``clone``;
the rules are plain functions in :mod:`envs.wok_star.rules` (one module per
rulebook section, ``rules.ACTIONS`` maps each action to its rule), the masks
and reasons in :mod:`envs.wok_star.legality`. The bound on a game's length,
:func:`max_episode_steps`, is at the end.

Phases (``engine.phase``): ``choose_character``, ``distribute``,
``third_die`` (setup decisions), ``open`` (timers run, everyone acts at
once), ``wash`` (timers stopped), ``closed`` (spend remaining dice),
``goal_cubes``, ``prep`` (Next Day Prep), ``over``.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Mapping

import numpy as np

from envs.core.config import engine_options
from envs.core.engine import NOOP, StepResult, TickEngine
from envs.core.seeding import copy_rng
from envs.wok_star import legality
from envs.wok_star.actions import build_action_table
from envs.wok_star.cards import is_event_card, load_data
from envs.wok_star.legality import DECISION_PHASES, KITCHEN_PHASES
from envs.wok_star.options import GAME_OPTIONS
from envs.wok_star.public import PublicView, build_public_table
from envs.wok_star.rules import (ACTIONS, closed_for_business, daily_accounting, next_day_prep, open_for_business,
                                 player_powers, setup, wash_the_dishes)
from envs.wok_star.rules.events import check_events
from envs.wok_star.rules.open_for_business import ticks_for
from envs.wok_star.rules.serve_customers import can_cook
from envs.wok_star.snapshot import ALL_PHASES, check_config, check_state, check_tick

PHASES = ("choose_character", "distribute", "third_die", "open", "wash", "closed", "goal_cubes", "prep", "over")
#: Actions that count as doing something in a wash or after closing.
PRODUCTIVE = frozenset({"prepare", "take", "hustle_gain", "rotate", "move_cubes", "grandpa_substitute",
                        "mama_reroll", "uncle_deliver"})

#: Every field of the game state, saved by ``state_dict`` in this order.
STATE_FIELDS = (
    "phase", "day", "turn", "decision_k", "recipe_holder", "offers", "ing_holder", "ing_level", "ing_unlocked",
    "pending", "pending_by", "pool", "die_holder", "die_pip", "cubes", "goal_cubes", "cubes_passed", "hustle",
    "timers", "washes", "first_served", "late_ticks", "deck", "coupons", "current", "serial", "served", "income",
    "event_pile", "events_today", "events_gone", "character", "power_used", "money", "passes", "won", "end_reason",
    "history", "log", "total_income", "close_reason", "service",
)

if set(PHASES) != set(ALL_PHASES):
    raise AssertionError("envs/wok_star/snapshot.py must know every phase")


check_events(load_data())


@functools.lru_cache(maxsize=None)
def _table_index(n: int) -> tuple[dict, list]:
    """Action groups by name and every index decoded, per player count (shared, read-only)."""
    table = build_action_table(n)
    return {g.name: g for g in table.groups}, [table.decode(i) for i in range(table.n)]


class WokStarEngine(TickEngine):
    ENGINE_NAME = "wok_star"
    OPTIONS = engine_options("WokStarEngine", GAME_OPTIONS, realtime=True)
    LOAD_BUILDS_FRESH_STATE = True  # snapshot.check_state returns fresh copies of every field
    SNAPSHOT_VERSION = 1

    # ------------------------------------------------------------------ construction
    @classmethod
    def agent_ids(cls, config: Mapping[str, Any]) -> list[str]:
        return [f"chef_{i}" for i in range(int(config["players"]))]

    @classmethod
    def action_table(cls, config: Mapping[str, Any]):
        return build_action_table(int(config["players"]))

    @classmethod
    def check_config(cls, config: Mapping[str, Any]) -> None:
        """A snapshot's config, checked before the core builds the engine from it (cached per config)."""
        check_config(dict(config))

    def _init_common(self, config: dict, rng: np.random.Generator, tick: int) -> None:
        super()._init_common(config, rng, tick)
        self.data = load_data()
        self.n = int(config["players"])
        spt = float(config.get("seconds_per_tick", 1.0))
        self.T = ticks_for(float(config["timer_seconds"]), spt)
        self.P = ticks_for(float(config["patience_seconds"]), spt)
        self.crowd_ticks = ticks_for(float(self.data.events[self.data.event_id("impatient_crowd")].amount), spt)
        self.goals = self.data.goals[(config["difficulty"], self.n)]
        self.top = self.data.track_top
        self.seat = {a: i for i, a in enumerate(self.agents)}
        self._groups, self._decoded = _table_index(self.n)
        self._close_index = self._groups["close"].start
        self._waiting_columns = [NOOP, self._close_index]  # the actions that are not "doing something"
        #: values derived from the current state, dropped by ``touch()`` on every change
        self._cache: dict = {}
        #: name -> (key, value...): values derived from slowly changing parts of the state (who holds
        #: which card, ...), each stored with the key it was computed from and checked against it on use;
        #: ``touch()`` keeps them (see ``FramePlan.base``)
        self._keyed_cache: dict = {}
        self._reset_transient()

    def _reset_transient(self) -> None:
        self._productive = False
        self._votes = 0
        self._serial_at_start = -1
        self._finish_flip = None
        self._fresh_timers = []  # timers flipped or restarted by an action this tick (their sand runs from the next)
        self._phase_started = False
        self._decided = False
        self._reward = 0.0

    def _setup(self) -> None:
        setup.deal(self)

    # ------------------------------------------------------------------ caches
    def __getstate__(self) -> dict:
        """A deep copy or a pickle carries the game, not the values derived from it (the public view's
        read-only mappings do not pickle): the copy builds them again when it needs them."""
        state = self.__dict__.copy()
        state["_cache"] = {}
        state["_keyed_cache"] = {}
        return state

    def touch(self) -> None:
        """Drop every cache after a state change."""
        self._cache.clear()
        self._mask_cache.clear()

    def invalidate_masks(self) -> None:
        super().invalidate_masks()
        self.touch()

    def step_validated(self, joint: dict[str, int]) -> StepResult:
        # The base clears the mask cache before and after _resolve. Every state change goes through
        # touch(), so the masks that validate() used still describe this state (conflict() reuses
        # them for the first actions of the tick), and those end_tick computes for the final state
        # are kept for the observations and the next validate().
        return self._resolve(joint)

    # ------------------------------------------------------------------ helpers
    def rel(self, seat: int, r: int) -> int:
        """The absolute seat of the chef ``r`` places clockwise from ``seat``."""
        return (seat + r) % self.n

    def say(self, text: str) -> None:
        self.log.append(f"d{self.day} t{self.tick}: {text}")
        if len(self.log) > 8:
            del self.log[0]

    def add_income(self, dollars: int) -> None:
        """Income earned today (negative: lost), paid as the shared reward."""
        self.income += dollars
        self.give_reward(dollars)

    def give_reward(self, dollars: float) -> None:
        """Income earned now (negative: lost), paid as the shared reward."""
        if self.config["reward"] in ("income", "income+win_loss"):
            self._reward += dollars * float(self.config["reward_scale"])

    @property
    def done(self) -> bool:
        return self.phase == "over"

    @property
    def covering(self) -> int:
        """Hustle tokens covering locked methods (not in the pool)."""
        unlocked = self.ing_unlocked  # 0 (not in play) or 1-4: each card in play has 4 - u covered
        return 4 * (len(unlocked) - unlocked.count(0)) - sum(unlocked)

    @property
    def hustle_supply(self) -> int:
        return self.data.components["hustle_tokens"] - self.hustle - self.covering

    def lead_chef(self) -> int:
        """The chef who makes the day's single-choice team decisions and opens Next Day Prep."""
        return (max(self.day, 1) - 1) % self.n

    def current_customer(self):
        """The Customer card at the counter, or None (no card, or an Event)."""
        c = self.current
        if c < 0 or is_event_card(c):
            return None
        return self.data.customers[c]

    # ------------------------------------------------------------------ dice
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
        """The die that an action naming (holder, pip, own/taken) uses; -1 if none. Dice of one colour
        class and pip in one area are interchangeable; a taken die is chosen nearest-owner-first
        (clockwise from the holder), then by number."""
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

    # ------------------------------------------------------------------ masks
    def _compute_mask(self, agent: str) -> np.ndarray:
        """``agent``'s row of :meth:`all_masks`; every other chef's mask-cache entry is filled too."""
        masks = self.all_masks()
        cache = self._mask_cache
        for a, row in zip(self.agents, masks):
            cache[a] = row
        return masks[self.seat[agent]]

    def all_masks(self) -> np.ndarray:
        """Every chef's action mask, ``int8[n, A]`` (row = seat), computed in one pass and cached
        until the state changes (``touch()``). Read-only: the rows are the masks ``action_mask`` returns."""
        masks = self._cache.get("masks")
        if masks is None:
            masks = legality.compute_masks(self)
            masks.setflags(write=False)
            self._cache["masks"] = masks
        return masks

    def masks_into(self, out: np.ndarray) -> None:
        """Every chef's mask into ``out`` ``(n, A)``: one copy of :meth:`all_masks` (after the game: noop only)."""
        if self.done:
            super().masks_into(out)
        else:
            out[...] = self.all_masks()

    def _why_illegal(self, agent: str, action: int) -> str:
        name, params = self._decoded[int(action)]
        seat = self.seat[agent]
        reason = self.check(seat, name, params)
        return reason or "legal now"

    def check(self, seat: int, name: str, params: dict) -> str | None:
        """None if ``name(**params)`` is legal for ``seat`` now, else why not (:func:`legality.check`)."""
        return legality.check(self, seat, name, params)

    def any_productive(self, seat: int) -> bool:
        """Has ``seat`` any legal action other than waiting or voting to close?"""
        m = self.action_mask(self.agents[seat])
        # entries are 0/1: more legal actions than noop and close means a productive one
        return int(np.count_nonzero(m)) > int(m[NOOP]) + int(m[self._close_index])

    def anyone_productive(self) -> bool:
        """``any(self.any_productive(s) for s in range(n))``: in the open phase yes at once when
        ``wash``, the current customer's ``serve``, ``rotate`` or ``hustle_gain`` is legal (entries of
        the masks read without them), else from the masks of all chefs at once."""
        if self.done:
            return False
        masks = self._cache.get("masks")
        if masks is None and self.phase == "open":
            # Entries of the masks that need no mask: wash (every chef), serve (the recipe's holder), rotate and
            # hustle_gain (below).
            # So the masks of most open ticks are left to whoever reads them next (a batch computes many at once).
            if self.washes < self.data.components["washes_per_day"] and 0 in self.die_pip:
                return True
            cu = self.current_customer()
            if cu is not None and self.recipe_holder[cu.recipe] >= 0 and can_cook(self, cu.recipe):
                return True
            # An unused die in some area with a Hustle token in the pool (rotate, for every chef) or in the
            # supply (hustle_gain, for the chef whose area holds it).
            if max(self.die_pip) > 0 and (self.hustle > 0 or self.hustle_supply > 0):
                return True
        if masks is None:
            masks = self.all_masks()
        # per chef, nonzero entries minus noop and close is >= 0, so the sum over chefs is > 0 iff one is
        return np.count_nonzero(masks) > np.count_nonzero(masks[:, self._waiting_columns])

    # ------------------------------------------------------------------ ticks
    def begin_tick(self, joint: dict[str, int], result: StepResult) -> None:
        self._reset_transient()
        self._serial_at_start = self.serial
        close = self._close_index
        self._votes = [joint.get(a, NOOP) for a in self.agents].count(close)

    def conflict(self, agent: str, action: int) -> str | None:
        name, params = self._decoded[action]
        if name in ("serve", "auntie_reseat") and self.serial != self._serial_at_start:
            return "pre-empted by another player this tick: the customer you acted on has already left the counter"
        mask = self._mask_cache.get(agent)
        if mask is None:  # every chef's masks of this state, if computed (the batched env's path fills no row cache)
            masks = self._cache.get("masks")
            mask = None if masks is None else masks[self.seat[agent]]
        if mask is not None and mask[action]:  # no action has changed the state since the masks were computed
            return None
        # The rule check agrees with the mask (tested) and is cheaper than recomputing the masks.
        reason = self.check(self.seat[agent], name, params)
        return None if reason is None else "pre-empted by another player this tick: " + reason

    def apply(self, agent: str, action: int, result: StepResult) -> None:
        seat = self.seat[agent]
        name, params = self._decoded[action]
        if name in PRODUCTIVE:
            self._productive = True
        ACTIONS[name](self, seat, **params)
        self.touch()

    def end_tick(self, joint: dict[str, int], result: StepResult) -> None:
        if self.phase == "open":
            open_for_business.end_open_tick(self)
        elif self.phase == "wash":
            wash_the_dishes.end_wash_tick(self)
        elif self.phase == "closed":
            closed_for_business.end_closed_tick(self)
        elif self.phase in DECISION_PHASES:
            self.end_decision_tick()
        self.touch()
        # "Cannot serve the current customer": only a customer can be unservable. With an Event
        # showing, the team waits for an empty timer and the next card (at most T ticks).
        if (self.phase == "open" and self.current_customer() is not None
                and not self.anyone_productive()):
            closed_for_business.close_for_business(self, "stuck: no chef has anything left to do")
        if self._reward:
            result.reward_all(self._reward)
        if self.phase == "over" and self.config["reward"] in ("win_loss", "income+win_loss"):
            result.reward_all(1.0 if self.won == 1 else -1.0)

    def end_decision_tick(self) -> None:
        """The end of a turn-based tick: the default for a decider who waited; the phase moves on."""
        if self._phase_started:
            return
        waited = not self._decided
        self._decided = False
        phase = self.phase
        if phase == "choose_character":
            if waited:
                player_powers.default_character(self)
            setup.next_setup_step(self)
        elif phase == "distribute":
            if waited:
                next_day_prep.give_card(self, setup.pro_tip_holder(self, self.pending[0], setup=True))
            setup.next_setup_step(self)
        elif phase == "third_die":
            if waited:
                setup.third_die_to(self, setup.default_third_die(self))
            setup.next_setup_step(self)
        elif phase == "goal_cubes":
            if waited:
                daily_accounting.goal_cubes_to(self, daily_accounting.default_cube_recipient(self))
            next_day_prep.start_prep(self)
        elif phase == "prep":
            next_day_prep.end_prep_tick(self, waited)

    # ------------------------------------------------------------------ outcome
    def outcome(self) -> dict:
        """Winners (the whole team or nobody), the team's total income as every
        chef's score, and service statistics over all completed days:
        ``customers`` counts every customer who reached the counter (served on
        time, served late, or still waiting when the day closed)."""
        total = float(self.total_income)
        on_time = sum(s[1] for s in self.service)
        late = sum(s[2] for s in self.service)
        customers = on_time + late + sum(s[3] for s in self.service)
        won = self.won == 1
        return {
            "winners": list(self.agents) if won else [],
            "scores": {a: total for a in self.agents},
            "result": "win" if won else ("loss" if self.won == 0 else "unfinished"),
            "end_reason": self.end_reason,
            "days_completed": len(self.history),
            "incomes": [h[1] for h in self.history],
            "goals": list(self.goals),
            "income_per_day": total / len(self.history) if self.history else 0.0,
            "served_on_time": on_time,
            "served_late": late,
            "customers": customers,
            "on_time_share": on_time / customers if customers else 0.0,
        }

    # ------------------------------------------------------------------ public view
    def public_view(self, agent: str) -> PublicView:
        """Everything ``agent`` can see at the table (no deck order, no face-down cards)."""
        table = self._cache.get("public")
        if table is None:
            table = self._cache["public"] = build_public_table(self)
        try:
            seat = self.seat[agent]
        except (KeyError, TypeError):
            self.check_agent(agent)
            raise
        return PublicView(seat, table)

    # ------------------------------------------------------------------ snapshots
    def state_dict(self) -> dict:
        return {f: copy.deepcopy(getattr(self, f)) for f in STATE_FIELDS}

    def clone(self) -> "WokStarEngine":
        """An independent deep copy (its own rng in the same state): ``from_dict(to_dict())`` without the
        snapshot checks. A copy of a live engine is the same state, so there is nothing to check (and the
        scenario tests clone tables built by hand that no game reaches); snapshots from anywhere else go
        through ``from_dict``, which checks them (``load_state_dict``)."""
        obj = type(self).__new__(type(self))
        obj._init_common(copy.deepcopy(self.config), copy_rng(self.rng), self.tick)
        for f in STATE_FIELDS:
            setattr(obj, f, _copy_plain(getattr(self, f)))
        obj._reset_transient()
        obj.touch()
        return obj

    @classmethod
    def from_dict(cls, snapshot) -> "WokStarEngine":
        """The core's :meth:`~envs.core.engine.GameEngine.from_dict`, and then the snapshot's tick
        against its state (:func:`~envs.wok_star.snapshot.check_tick`): the tick is not part of
        ``state``, and Wok Star's rules never read it, so nothing else would refuse a tick that
        no game reaches."""
        obj = super().from_dict(snapshot)
        check_tick(obj.tick, obj.config, obj.log)
        return obj

    def load_state_dict(self, state: dict) -> None:
        """Adopt a snapshot's state, after checking it fully (``envs/wok_star/snapshot.py``): a bad one
        raises SnapshotError naming the field and leaves this engine exactly as it was. The checked
        values are fresh copies, so nothing is shared with ``state``."""
        fields = check_state(self, state, STATE_FIELDS)
        for f in STATE_FIELDS:
            setattr(self, f, fields[f])
        self._reset_transient()
        self.touch()


def _copy_plain(value):
    """A deep copy of plain state data (ints, bools, strings, and lists of them or of such lists)."""
    if type(value) is list:
        return [_copy_plain(x) for x in value] if any(type(x) is list for x in value) else value[:]
    return value if isinstance(value, (int, float, str, type(None))) else copy.deepcopy(value)


# ---------------------------------------------------------------------------- the bound on a game's length
def max_episode_steps(players: int = 3, timer_seconds: float = 30.0, patience_seconds: float = 30.0,
                      seconds_per_tick: float = 1.0, events: bool = False, **_: object) -> int:
    """The documented bound on the length of any Wok Star game played with legal actions.

    Every phase ends by rule (see docs/wok_star.md, "Why every game ends"):

    * **Open for Business**: split the open ticks of a day into *segments* that
      start when a card is revealed or a timer is refilled (serve, Event expiry,
      restart after a wash, Lily). Within a segment both timers hold at most
      ``T`` ticks of sand, so after ``T`` ticks both are empty; a customer then
      waits at most ``P + 1`` more ticks before walking out and the day closes
      (an Event card leaves as soon as a timer is empty). A day reveals at most
      every card of the Regular deck (Regular and Coupon customers of every
      recipe, Event cards) plus one card Auntie sends back, and refills at most
      3 more times (2 washes, Lily): at most ``cards + 4`` segments.
    * **Wash and after closing**: each tick but the first and the last has a
      productive action applied, and each such action uses up something that
      does not come back during that step: an unused die (prepare, Hustle),
      a die taken from its owner's area, a Hustle token (rotate, move cubes:
      at most the pool plus one per die turned into Hustle) or a once-a-day
      power: at most ``15 n + 28`` actions.
    * **Turn-based decisions**: one tick each at setup (characters, at most 10
      Ingredient cards, the 2-player third die) and for the goal cubes; in Next
      Day Prep at most 72 purchases (3 recipes, 20 upgrades, 25 Hustle, 24
      Coupons), each after at most ``n - 1`` passes, plus 10 card hand-outs and
      the final ``n`` passes.
    """
    n = int(players)
    T = ticks_for(float(timer_seconds), float(seconds_per_tick))
    P = ticks_for(float(patience_seconds), float(seconds_per_tick))
    recipes = 8 if n == 2 else 12
    cards = 3 * recipes + 2 * recipes + (15 if events else 0)
    open_ticks = (cards + 1 + 3 + 1) * (T + P + 1)
    kitchen_step = (15 * n + 28) + 2
    day = open_ticks + 3 * kitchen_step
    setup_ticks = n + 10 + 1
    prep = 73 * n + 10
    return setup_ticks + 4 * day + 3 * (1 + prep)
