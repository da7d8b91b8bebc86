"""The Frying Master rules engine: rounds of real-time cooking in ticks.

A match is a series of rounds. Each round:

1. **Setup** (no ticks): all Food Cards and Spice Tiles are scattered, each
   side up with probability 1/2; the round's Stir-Fry Mode is drawn (the
   first plate of the shuffled pool whose back shows a mode not yet played;
   it is set aside for the rest of the match) or fixed by the ``mode``
   option; the other plates form two piles (A gets the extra one).
2. **Choice** (``players`` ticks): from a random first player, clockwise,
   each player in turn takes one plate from pile A or B, seeing the backs.
   Only the chooser acts; a chooser's ``noop`` takes pile A (B if A is empty).
3. **Play**: all players act every tick (see :mod:`envs.frying_master.actions`
   and :mod:`envs.frying_master.rules.how_to_play`).
   When a player serves the round's last required order (2 players: 6,
   3: 5, 4: 4) a countdown of ``ceil(3 s / seconds_per_tick)`` ticks runs for
   the others; the finisher only waits. If nobody gets there within
   ``round_ticks`` play ticks, the round ends at that tick.
4. **End**: everything still on a spatula is discarded; completed orders are
   scored (:mod:`envs.frying_master.rules.scoring`), the top scorer(s) take a Gold
   Spatula. The first to two Gold Spatulas wins (simultaneous winners share);
   otherwise a new round is set up at once.

Every round awards at least one Gold Spatula, so a match lasts at most
``players + 1`` rounds.

The rules are module functions under :mod:`envs.frying_master.rules`, one
module per rulebook section; this class holds the state, runs the tick loop
and delegates to them, to :mod:`~envs.frying_master.legality` (masks) and to
:mod:`~envs.frying_master.public` (the public view).
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping

import numpy as np

from envs.core.config import engine_options
from envs.core.decks import Deck
from envs.core.engine import StepResult, TickEngine
from envs.core.tables import ActionTable
from envs.frying_master.actions import action_index, build_action_table, table_spatulas
from envs.frying_master.cards import catalog
from envs.frying_master.legality import compute_masks, is_legal, mask_plan, why_illegal
from envs.frying_master.options import GAME_OPTIONS
from envs.frying_master.public import PublicView, SeatView, build_view
from envs.frying_master.rules import how_to_play, setup
from envs.frying_master.rules.end_of_round import countdown_ticks, end_countdown_tick, end_play_tick, end_round
from envs.frying_master.rules.how_to_play import Table
from envs.frying_master.snapshot import check_config, check_state

PHASES = ("choose", "play", "countdown", "over")
_UIDS = itertools.count()


class FryingMasterEngine(TickEngine):
    ENGINE_NAME = "frying_master"
    OPTIONS = engine_options("FryingMasterEngine", GAME_OPTIONS, realtime=True)
    SNAPSHOT_VERSION = 1
    LOAD_BUILDS_FRESH_STATE = True  # snapshot.check_state builds every container it keeps afresh

    @classmethod
    def check_config(cls, config: Mapping[str, Any]) -> None:
        check_config(dict(config), catalog())

    # ------------------------------------------------------------------ construction
    @classmethod
    def agent_ids(cls, config: Mapping[str, Any]) -> list[str]:
        return [f"chef_{i}" for i in range(int(config["players"]))]

    @classmethod
    def action_table(cls, config: Mapping[str, Any]) -> ActionTable:
        return build_action_table(table_spatulas(config))

    def __setstate__(self, state: dict) -> None:
        """A copy made by ``copy.deepcopy`` or ``pickle`` is a game of its own: a fresh ``_uid``, so
        that an encoder's buffer kept for the original (keyed by id, uid and version) is never
        served for the copy, which CPython may place at the address of a freed engine."""
        self.__dict__.update(state)
        self._uid = next(_UIDS)

    def _init_common(self, config: dict, rng: np.random.Generator, tick: int) -> None:
        super()._init_common(config, rng, tick)
        self.cat = catalog()
        self._uid = next(_UIDS)
        self._version = 0
        self._views: dict[str, PublicView] = {}
        self._views_version = -1
        self.n = len(self.agents)
        self.seat_of = {a: i for i, a in enumerate(self.agents)}
        # Per seat: a revision bumped whenever that chef's public values may have changed (see _touch),
        # and the (revision, source values, SeatView) last built for it.
        self._seat_rev = [0] * self.n
        self._seat_views: list[tuple[int, tuple, SeatView] | None] = [None] * self.n
        self._tops: tuple | None = None  # (the piles' top plates, mode) when _top_faces was computed
        self._top_faces: tuple = ((None, None), (None, None), (None, None))  # (pile_hints, pile_fronts, pile_modes)
        self.cat_of = tuple(f.category for f in self.cat.foods)
        self.n_foods = len(self.cat.foods)
        self.n_cats = len(self.cat.categories)
        self.S = table_spatulas(config)
        self.ix = action_index(self.S)
        self.countdown_ticks = countdown_ticks(config.get("seconds_per_tick", 1.0))
        self.orders_to_end = self.cat.orders_to_end_round[self.n]
        self.round_ticks = int(config.get("round_ticks") or self.cat.default_round_ticks)
        self.capacity = self.cat.spatula_capacity
        self.serve_any_food = config.get("serve_rule", "order_size") == "any_food"
        self.order_size = self.cat.order_sizes
        self.ticks_of = self.cat.action_ticks
        self.table = Table(self.cat_of, self.n_cats)
        self.n_actions = self.actions.n
        self._mask_plan = mask_plan(self)

    def _setup(self) -> None:
        setup.start_match(self)

    # ------------------------------------------------------------------ legality
    def _compute_mask(self, agent: str) -> np.ndarray:
        """``agent``'s mask; every other chef's is built in the same pass and
        stored in the core's mask cache (which is emptied on every state change)."""
        masks = compute_masks(self, self.agents)
        self._mask_cache.update(masks)
        return masks[agent]

    def conflict(self, agent: str, action: int) -> str | None:
        """Re-check one action when its turn in the resolution order comes
        (:func:`~envs.frying_master.legality.is_legal`: the mask entry, without the mask)."""
        if action == 0 or self.done:
            return super().conflict(agent, action)
        kind, s, p = self.ix.decoded[action]
        if is_legal(self, agent, kind, s, p):
            return None
        return "pre-empted by another player this tick: " + self.why_illegal(agent, action)

    def _why_illegal(self, agent: str, action: int) -> str:
        return why_illegal(self, agent, action)

    # ------------------------------------------------------------------ stepping
    def _bump(self) -> None:
        """The state changed: views, observations and masks of the old version are stale."""
        self._version += 1

    def _touch(self, agent: str) -> None:
        """``agent``'s own public values (plate, food, spatulas, completed orders,
        ...) may have changed: its :class:`SeatView` is rebuilt at the next view."""
        self._seat_rev[self.seat_of[agent]] += 1

    def _touch_all(self) -> None:
        for i in range(self.n):
            self._seat_rev[i] += 1

    def invalidate_masks(self) -> None:
        """Call after any state change made outside ``step`` (masks, views
        and observations of every seat are rebuilt)."""
        super().invalidate_masks()
        self._bump()
        self._touch_all()

    def _resolve(self, joint: dict[str, int]) -> StepResult:
        self._bump()
        result = super()._resolve(joint)
        self._bump()
        return result

    def apply(self, agent: str, action: int, result: StepResult) -> None:
        self._bump()
        self._seat_rev[self.seat_of[agent]] += 1  # _touch(agent), inlined
        kind, s, p = self.ix.decoded[action]
        how_to_play.apply(self, agent, kind, s, p, result)

    def end_tick(self, joint: dict[str, int], result: StepResult) -> None:
        self._bump()
        how_to_play.end_spatula_tick(self)
        phase = self.phase
        if phase == "choose":
            setup.end_choice_tick(self, result)
            return
        if phase == "play":
            why = end_play_tick(self)
        elif phase == "countdown":
            why = end_countdown_tick(self)
        else:
            return
        if why is not None and not end_round(self, result, why):
            setup.start_round(self)

    # ------------------------------------------------------------------ results
    @property
    def done(self) -> bool:
        return self.phase == "over"

    def outcome(self) -> dict:
        return {
            "winners": list(self.winners),
            "scores": {a: float(self.gold[a]) for a in self.agents},
            "gold_spatulas": dict(self.gold),
            "rounds": len(self.history),
            "round_totals": [dict(r["total"]) for r in self.history],
            "modes": [self.cat.modes[m].id for m in self.modes_played],
        }

    # ------------------------------------------------------------------ public information
    def public_view(self, agent: str) -> PublicView:
        """Everything ``agent`` can see at the table (see :mod:`envs.frying_master.public`)."""
        if self._views_version != self._version:
            self._views = {}
            self._views_version = self._version
        v = self._views.get(agent) if isinstance(agent, str) else None
        if v is None:
            self.check_agent(agent)
            other = next(iter(self._views.values()), None)
            v = build_view(self, agent) if other is None else other.seen_by(agent)
            self._views[agent] = v
        return v

    # ------------------------------------------------------------------ snapshots
    def state_dict(self) -> dict:
        return {
            "round_no": self.round_no,
            "phase": self.phase,
            "mode": self.mode,
            "modes_played": list(self.modes_played),
            "set_aside": list(self.set_aside),
            "spatulas": self.spatulas,
            "piles": [pile.to_list() for pile in self.piles],
            "discard": list(self.discard),
            "table": self.table.state_dict(),
            "plates": dict(self.plates),
            "plate_cards": {a: list(c) for a, c in self.plate_cards.items()},
            "loads": {a: [list(load) for load in ls] for a, ls in self.loads.items()},
            "busy": {a: list(b) for a, b in self.busy.items()},
            "completed": {a: [[p, list(c)] for p, c in done] for a, done in self.completed.items()},
            "choose_queue": list(self.choose_queue),
            "play_tick": self.play_tick,
            "countdown_left": self.countdown_left,
            "finishers": list(self.finishers),
            "gold": dict(self.gold),
            "history": [_copy_round(r) for r in self.history],
            "winners": list(self.winners),
        }

    def load_state_dict(self, state: dict) -> None:
        """Adopt a ``state_dict()`` after checking all of it (:mod:`envs.frying_master.snapshot`):
        a bad state raises :class:`~envs.core.errors.SnapshotError` and leaves the engine as it was."""
        s = check_state(self, state)
        self.round_no = s["round_no"]
        self.phase = s["phase"]
        self.mode = s["mode"]
        self.modes_played = s["modes_played"]
        self.set_aside = s["set_aside"]
        self.spatulas = s["spatulas"]
        self.piles = [Deck(pile) for pile in s["piles"]]
        self.discard = s["discard"]
        self.table.up, self.table.down = s["table"]
        self.plates = s["plates"]
        self.plate_cards = s["plate_cards"]
        self.loads = s["loads"]
        self.busy = s["busy"]
        self.completed = s["completed"]
        self.choose_queue = s["choose_queue"]
        self.play_tick = s["play_tick"]
        self.countdown_left = s["countdown_left"]
        self.finishers = s["finishers"]
        self.gold = s["gold"]
        self.history = s["history"]
        self.winners = s["winners"]
        self.invalidate_masks()


def _copy_round(r: dict) -> dict:
    """A copy of one round's result in ``history`` (a snapshot shares nothing with the engine)."""
    out = dict(r)
    for key in ("base", "bonus", "total", "completed", "discarded_from_spatulas"):
        out[key] = dict(r[key])
    out["gold"] = list(r["gold"])
    out["orders"] = {a: [dict(o) for o in rows] for a, rows in r["orders"].items()}
    return out
