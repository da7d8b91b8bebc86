"""The Wok Star rules engine: one tick = ``seconds_per_tick`` of table time.

The state is plain lists and ints (JSON-able as is). The rules live in four
mixins, one per part of the rulebook:

* :mod:`envs.wok_star.kitchen` - dice, preparing ingredients, taking dice,
  Hustle, Fortune cubes, washing the dishes;
* :mod:`envs.wok_star.service` - the Regular deck, serving, the sand timers,
  events, closing for business, Daily Accounting;
* :mod:`envs.wok_star.decisions` - setup decisions, goal-cube recipient,
  Next Day Prep purchases (turn-based: one chef decides per tick);
* :mod:`envs.wok_star.powers` - the Wang Family powers.

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

from envs.core.engine import NOOP, StepResult, TickEngine
from envs.core.seeding import rng_from_dict, rng_to_dict
from envs.wok_star.actions import build_action_table
from envs.wok_star.cards import load_data
from envs.wok_star.decisions import DecisionRules
from envs.wok_star.events import check_events
from envs.wok_star.kitchen import KitchenRules
from envs.wok_star.mask_tables import blank_masks
from envs.wok_star.powers import PowerRules
from envs.wok_star.public import PublicView, build_public_table
from envs.wok_star.service import ServiceRules
from envs.wok_star.snapshot import ALL_PHASES, check_config, check_state
from envs.wok_star.timers import ticks_for

PHASES = ("choose_character", "distribute", "third_die", "open", "wash", "closed", "goal_cubes", "prep", "over")
DECISION_PHASES = ("choose_character", "distribute", "third_die", "goal_cubes", "prep")
KITCHEN_PHASES = ("open", "wash", "closed")
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


class WokStarEngine(KitchenRules, ServiceRules, DecisionRules, PowerRules, TickEngine):
    ENGINE_NAME = "wok_star"
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
        self._phase_started = False
        self._decided = False
        self._reward = 0.0

    def _setup(self) -> None:
        self._deal()

    # ------------------------------------------------------------------ caches
    def touch(self) -> None:
        """Drop every cache after a state change."""
        self._cache.clear()
        self._mask_cache.clear()

    def invalidate_masks(self) -> None:
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
            masks = blank_masks(self.n, self.actions.n).copy()  # noop legal for everyone
            if self.phase in KITCHEN_PHASES:
                self.kitchen_masks(masks)
                self.service_masks(masks)
                if self.config["powers"]:
                    for seat in range(self.n):
                        self.power_mask(seat, masks[seat])
            elif self.phase in DECISION_PHASES and 0 <= self.turn < self.n:
                self.decision_mask(self.turn, masks[self.turn])
            masks.setflags(write=False)
            self._cache["masks"] = masks
        return masks

    def why_illegal(self, agent: str, action: int) -> str:
        if agent not in self.seat:
            return f"no such agent; agents are {list(self.agents)}"
        if not 0 <= int(action) < self.actions.n:
            return f"index out of range: valid indices are 0..{self.actions.n - 1}"
        if self.done:
            return "the game is over"
        name, params = self._decoded[int(action)]
        seat = self.seat[agent]
        reason = self.check(seat, name, params)
        return reason or "legal now"

    def check(self, seat: int, name: str, params: dict) -> str | None:
        """None if ``name(**params)`` is legal for ``seat`` now, else why not."""
        if name == "noop":
            return None
        for rules in (self.kitchen_check, self.service_check, self.power_check, self.decision_check):
            verdict = rules(seat, name, params)
            if verdict is not NotImplemented:
                return verdict
        return f"unknown action {name}"

    def any_productive(self, seat: int) -> bool:
        """Has ``seat`` any legal action other than waiting or voting to close?"""
        m = self.action_mask(self.agents[seat])
        # entries are 0/1: more legal actions than noop and close means a productive one
        return int(np.count_nonzero(m)) > int(m[NOOP]) + int(m[self._close_index])

    def anyone_productive(self) -> bool:
        """``any(self.any_productive(s) for s in range(n))``, from the masks of all chefs at once."""
        if self.done:
            return False
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
        handler = getattr(self, "do_" + name)
        handler(seat, **params)
        self.touch()

    def end_tick(self, joint: dict[str, int], result: StepResult) -> None:
        if self.phase == "open":
            self.end_open_tick()
        elif self.phase == "wash":
            self.end_wash_tick()
        elif self.phase == "closed":
            self.end_closed_tick()
        elif self.phase in DECISION_PHASES:
            self.end_decision_tick(joint)
        self.touch()
        # "Cannot serve the current customer": only a customer can be unservable. With an Event
        # showing, the team waits for an empty timer and the next card (at most T ticks).
        if (self.phase == "open" and self.current_customer() is not None
                and not self.anyone_productive()):
            self.close_for_business("stuck: no chef has anything left to do")
        if self._reward:
            result.reward_all(self._reward)
        if self.phase == "over" and self.config["reward"] in ("win_loss", "income+win_loss"):
            result.reward_all(1.0 if self.won == 1 else -1.0)

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
        return PublicView(self.seat[agent], table)

    # ------------------------------------------------------------------ snapshots
    def state_dict(self) -> dict:
        return {f: copy.deepcopy(getattr(self, f)) for f in STATE_FIELDS}

    def clone(self) -> "WokStarEngine":
        """An independent deep copy (its own rng in the same state): ``from_dict(to_dict())`` without the
        snapshot checks. A copy of a live engine is the same state, so there is nothing to check (and the
        scenario tests clone tables built by hand that no game reaches); snapshots from anywhere else go
        through ``from_dict``, which checks them (``load_state_dict``)."""
        obj = type(self).__new__(type(self))
        obj._init_common(copy.deepcopy(self.config), rng_from_dict(rng_to_dict(self.rng)), self.tick)
        for f in STATE_FIELDS:
            setattr(obj, f, _copy_plain(getattr(self, f)))
        obj._reset_transient()
        obj.touch()
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
