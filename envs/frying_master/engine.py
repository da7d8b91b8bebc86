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
3. **Play**: all players act every tick (see :mod:`envs.frying_master.actions`).
   When a player serves the round's last required order (2 players: 6,
   3: 5, 4: 4) a countdown of ``ceil(3 s / seconds_per_tick)`` ticks runs for
   the others; the finisher only waits. If nobody gets there within
   ``round_ticks`` play ticks, the round ends at that tick.
4. **End**: everything still on a spatula is discarded; completed orders are
   scored (:mod:`envs.frying_master.scoring`), the top scorer(s) take a Gold
   Spatula. The first to two Gold Spatulas wins (simultaneous winners share);
   otherwise a new round is set up at once.

Every round awards at least one Gold Spatula, so a match lasts at most
``players + 1`` rounds.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping

import numpy as np

from envs.core.decks import Deck
from envs.core.engine import StepResult, TickEngine
from envs.core.tables import ActionTable
from envs.frying_master.actions import PILES, action_index, build_action_table
from envs.frying_master.cards import catalog
from envs.frying_master.legality import compute_masks, is_legal, mask_plan
from envs.frying_master.scoring import score_round
from envs.frying_master.snapshot import check_config, check_state
from envs.frying_master.table import Table
from envs.frying_master.view import PublicView, SeatView, view_of

PHASES = ("choose", "play", "countdown", "over")
_UIDS = itertools.count()


def table_spatulas(config: Mapping[str, Any]) -> int:
    """Spatulas per player in the action table: 2 if any round can be a
    two-spatula round (Teppanyaki preset, fixed Teppanyaki Fry, or a drawn mode)."""
    if config.get("teppanyaki") or config.get("mode") in ("drawn", "teppanyaki"):
        return 2
    return 1


def countdown_ticks(seconds_per_tick: float) -> int:
    """Ticks of the "3... 2... 1... Time's up!" countdown."""
    if not float(seconds_per_tick) > 0:
        raise ValueError(f"seconds_per_tick must be positive, got {seconds_per_tick!r}")
    return max(1, math.ceil(catalog().countdown_seconds / float(seconds_per_tick) - 1e-9))


class FryingMasterEngine(TickEngine):
    ENGINE_NAME = "frying_master"
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
        self._top_faces: tuple = ((None, None), (None, None))  # (pile_hints, pile_fronts) seen then
        self.cat_of = tuple(f.category for f in self.cat.foods)
        self.n_foods = len(self.cat.foods)
        self.n_cats = len(self.cat.categories)
        self.S = table_spatulas(config)
        self.ix = action_index(self.S)
        self.countdown_ticks = countdown_ticks(config.get("seconds_per_tick", 1.0))
        self.orders_to_end = self.cat.orders_to_end_round[self.n]
        self.round_ticks = int(config.get("round_ticks") or self.cat.default_round_ticks)
        self.capacity = self.cat.spatula_capacity
        self.ticks_of = self.cat.action_ticks
        self.table = Table(self.cat_of, self.n_cats)
        self.n_actions = self.actions.n
        self._mask_plan = mask_plan(self)

    def _setup(self) -> None:
        self.gold = {a: 0 for a in self.agents}
        self.history: list[dict] = []
        self.set_aside: list[int] = []
        self.modes_played: list[int] = []
        self.winners: list[str] = []
        self.round_no = 0
        self._start_round()

    # ------------------------------------------------------------------ rounds
    def _start_round(self) -> None:
        cat = self.cat
        self.round_no += 1
        pool = [p for p in range(len(cat.plates)) if p not in self.set_aside]
        pool = [pool[i] for i in self.rng.permutation(len(pool))]
        fixed = self.config["mode"]
        if fixed == "drawn":
            # The top plate (last) is the mode card; skip plates whose mode was already played.
            for k in range(len(pool) - 1, -1, -1):
                if cat.plates[pool[k]].mode not in self.modes_played:
                    break
            mode_plate = pool.pop(k)
            self.set_aside.append(mode_plate)
            self.mode = cat.plates[mode_plate].mode
        else:
            self.mode = cat.mode(fixed).idx
        self.modes_played.append(self.mode)
        half = (len(pool) + 1) // 2
        self.piles = [Deck(pool[:half]), Deck(pool[half:])]
        self.discard: list[int] = []
        self.table.scatter([f.count for f in cat.foods], self.rng)
        self.plates: dict[str, int | None] = {a: None for a in self.agents}
        self.plate_cards = {a: [0] * self.n_foods for a in self.agents}
        self.loads = {a: [[] for _ in range(self.S)] for a in self.agents}
        self.busy = {a: [0] * self.S for a in self.agents}
        self.completed: dict[str, list[tuple[int, list[int]]]] = {a: [] for a in self.agents}
        first = int(self.rng.integers(self.n))
        self.choose_queue = [self.agents[(first + i) % self.n] for i in range(self.n)]
        self.phase = "choose"
        self.play_tick = 0
        self.countdown_left = 0
        self.finishers: list[str] = []
        two = self.config.get("teppanyaki") or cat.modes[self.mode].kind == "teppanyaki"
        self.spatulas = 2 if two else 1
        self._touch_all()

    def _end_round(self, result: StepResult, why: str) -> None:
        discarded = {a: sum(len(load) for load in self.loads[a]) for a in self.agents}
        for a in self.agents:
            self.loads[a] = [[] for _ in range(self.S)]
            self.busy[a] = [0] * self.S
        self._touch_all()
        res = score_round(self.cat, self.cat.modes[self.mode], {a: self.completed[a] for a in self.agents})
        res.update({"round": self.round_no, "ended_by": why, "discarded_from_spatulas": discarded})
        self.history.append(res)
        for a in res["gold"]:
            self.gold[a] += 1
        result.events.append(f"round {self.round_no} ends ({why}): totals {res['total']}, Gold Spatula to {res['gold']}")
        shaping = float(self.config.get("round_shaping", 0.0))
        if shaping:
            mean = sum(res["total"].values()) / self.n
            for a in self.agents:
                result.rewards[a] += shaping * (res["total"][a] - mean)
        for a in self.agents:
            result.info.setdefault(a, {})["round_result"] = {
                "round": self.round_no, "total": res["total"][a], "gold": a in res["gold"], "ended_by": why}
        winners = [a for a in self.agents if self.gold[a] >= self.cat.gold_to_win]
        if winners:
            self.winners = winners
            self.phase = "over"
            k = len(winners)
            for a in self.agents:
                if a in winners:
                    result.rewards[a] += 1.0 / k if k < self.n else 0.0
                else:
                    result.rewards[a] -= 1.0 / (self.n - k)
            result.events.append(f"{winners} win the match")
        else:
            self._start_round()

    def _refill_piles(self) -> None:
        """Both piles empty: the given-up plates are shuffled into two new piles."""
        if not self.piles[0] and not self.piles[1] and self.discard:
            pool = [self.discard[i] for i in self.rng.permutation(len(self.discard))]
            half = (len(pool) + 1) // 2
            self.piles = [Deck(pool[:half]), Deck(pool[half:])]
            self.discard = []

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

    def why_illegal(self, agent: str, action: int) -> str:
        kind, s, p = self.ix.decoded[action]
        cat = self.cat
        if self.phase == "over":
            return "the match is over"
        if self.phase == "choose":
            chooser = self.choose_queue[0]
            if agent != chooser:
                return f"setup: it is {chooser}'s turn to choose a plate; others wait (noop)"
            if kind != "draw":
                return "setup: the chooser may only take a plate from pile A or B"
            return f"pile {PILES[p]} is empty"
        if agent in self.finishers:
            return f"{agent} has completed the round's orders and is counting down; only noop"
        plate = self.plates[agent]
        if kind == "draw":
            if plate is not None:
                return "you already hold an order; serve it or give it up first"
            return f"pile {PILES[p]} is empty"
        if kind in ("serve", "give_up"):
            if plate is None:
                return "you hold no order plate; draw one from pile A or B"
            return "your plate holds no food: nothing to serve"
        if s >= self.spatulas:
            return f"spatula {s} is not in use this round (two spatulas only in Teppanyaki)"
        if self.busy[agent][s]:
            return f"spatula {s} is still busy for {self.busy[agent][s]} tick(s) (lifting takes {self.ticks_of['lift']} ticks)"
        load = self.loads[agent][s]
        if kind == "flip":
            return f"no face-down {cat.categories[p].id} card on the table"
        if kind == "stir":
            return "the table is empty"
        if kind == "lift":
            if len(load) >= self.capacity:
                return f"spatula {s} is full ({self.capacity} cards)"
            return (f"no image-up {cat.foods[p].id} card on the table (face-down cards, spatulas and plates "
                    f"cannot be lifted from)")
        if kind in ("unload", "tip"):
            if not load:
                return f"spatula {s} is empty"
            return "you hold no order plate to set the food on"
        return "not allowed now"

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
        cat = self.cat
        rng = self.rng
        if kind == "draw":
            plate = self.piles[p].draw()
            self.plates[agent] = plate
            self._refill_piles()
            result.events.append(f"{agent} takes {cat.plates[plate].name} from pile {PILES[p]}")
            return
        if kind == "serve":
            plate = self.plates[agent]
            self.completed[agent].append((plate, list(self.plate_cards[agent])))
            self.plates[agent] = None
            self.plate_cards[agent] = [0] * self.n_foods
            result.events.append(f"{agent}: \"Order's up!\" ({cat.plates[plate].name})")
            if len(self.completed[agent]) >= self.orders_to_end and agent not in self.finishers:
                self.finishers.append(agent)
                result.events.append(f"{agent} completed {self.orders_to_end} orders: \"3... 2... 1...\"")
            return
        if kind == "give_up":
            plate = self.plates[agent]
            cards = [f for f, k in enumerate(self.plate_cards[agent]) for _ in range(k)]
            self.table.land(cards, rng)
            self.discard.append(plate)
            self.plates[agent] = None
            self.plate_cards[agent] = [0] * self.n_foods
            self._refill_piles()
            result.events.append(f"{agent} gives up {cat.plates[plate].name}")
            return
        load = self.loads[agent][s]
        if kind == "flip":
            f = self.table.flip(p)
            result.events.append(f"{agent} flips a {cat.categories[p].id} card: {cat.foods[f].id}")
        elif kind == "stir":
            self.table.stir(cat.stir_cards, rng)
        elif kind == "lift":
            self.table.take_up(p)
            load.append(p)
        elif kind == "unload":
            cards = self.plate_cards[agent]
            for f in load:
                cards[f] += 1
            load.clear()
        elif kind == "tip":
            self.table.land(list(load), rng)
            load.clear()
        self.busy[agent][s] = self.ticks_of[kind]

    def end_tick(self, joint: dict[str, int], result: StepResult) -> None:
        self._bump()
        rev = self._seat_rev
        for i, a in enumerate(self.agents):
            b = self.busy[a]
            for s in range(self.S):
                if b[s]:
                    b[s] -= 1
                    rev[i] += 1
        if self.phase == "choose":
            chooser = self.choose_queue.pop(0)
            if self.plates[chooser] is None:  # hesitated: takes the default pile
                p = 0 if self.piles[0] else 1
                self.plates[chooser] = self.piles[p].draw()
                self._touch(chooser)
                self._refill_piles()
                result.events.append(f"{chooser} hesitates and takes pile {PILES[p]}")
            if not self.choose_queue:
                self.phase = "play"
                result.events.append(f"\"Wok on Fire!\" round {self.round_no}, {self.cat.modes[self.mode].name}")
        elif self.phase == "play":
            self.play_tick += 1
            if self.finishers:
                self.phase = "countdown"
                self.countdown_left = self.countdown_ticks
            elif self.play_tick >= self.round_ticks:
                self._end_round(result, "round tick limit")
        elif self.phase == "countdown":
            self.countdown_left -= 1
            if self.countdown_left <= 0:
                self._end_round(result, "time's up")

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
        """Everything ``agent`` can see at the table (see :mod:`envs.frying_master.view`)."""
        if self._views_version != self._version:
            self._views = {}
            self._views_version = self._version
        v = self._views.get(agent)
        if v is None:
            if agent not in self.agents:
                raise KeyError(f"no such agent {agent!r}; agents are {list(self.agents)}")
            other = next(iter(self._views.values()), None)
            v = self._build_view(agent) if other is None else other.seen_by(agent)
            self._views[agent] = v
        return v

    def _build_view(self, agent: str) -> PublicView:
        piles = self.piles
        a_cards, b_cards = piles[0].cards, piles[1].cards
        tops = (a_cards[-1] if a_cards else None, b_cards[-1] if b_cards else None)
        if (tops, self.mode) != self._tops:  # the piles' top plates (or the mode) changed
            plates = self.cat.plates
            preorder = self.cat.modes[self.mode].kind == "preorder"
            self._tops = (tops, self.mode)
            self._top_faces = (tuple([None if t is None else plates[t].hint for t in tops]),
                               tops if preorder else (None, None))
        hints, fronts = self._top_faces
        seat_view = self._seat_view
        phase = self.phase
        return view_of(PublicView, {
            "me": agent,
            "agents": self.agents,
            "phase": phase,
            "chooser": self.choose_queue[0] if phase == "choose" else None,
            "round_no": self.round_no,
            "mode": self.mode,
            "play_tick": self.play_tick,
            "round_ticks": self.round_ticks,
            "countdown_left": self.countdown_left,
            "countdown_ticks": self.countdown_ticks,
            "orders_to_end": self.orders_to_end,
            "table_up": tuple(self.table.up),
            "table_down": tuple(map(len, self.table.down)),
            "pile_sizes": (len(a_cards), len(b_cards)),
            "pile_hints": hints,
            "pile_fronts": fronts,
            "discarded": tuple(self.discard),
            "seats": tuple([seat_view(i, a) for i, a in enumerate(self.agents)]),
        })

    def _seat_view(self, i: int, a: str) -> SeatView:
        """Seat ``i`` (chef ``a``) as everyone sees it.

        Rebuilt only when the seat's revision moved (:meth:`_touch`); and if
        its values came out the same as before (a flip or stir leaves the
        chef's seat as it was once the tick ends) the old view object is kept,
        which the encoder skips at once.
        """
        hit = self._seat_views[i]
        rev = self._seat_rev[i]
        if hit is not None and hit[0] == rev:
            return hit[2]
        last = self.history[-1]["total"] if self.history else {}
        values = (self.plates[a], tuple(self.plate_cards[a]), tuple([tuple(load) for load in self.loads[a]]),
                  tuple(self.busy[a]), self.spatulas, tuple([(p, tuple(c)) for p, c in self.completed[a]]),
                  self.gold[a], a in self.finishers, int(last.get(a, 0)))
        if hit is not None and hit[1] == values:
            seat = hit[2]
        else:
            plate, cards, loads, busy, sp, completed, gold, finished, last_total = values
            seat = view_of(SeatView, {"agent": a, "plate": plate, "plate_cards": cards, "loads": loads, "busy": busy,
                                      "spatulas": sp, "completed": completed, "gold": gold, "finished": finished,
                                      "last_round_total": last_total})
        self._seat_views[i] = (rev, values, seat)
        return seat

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
