"""Observation and global-state vectors of Frying Master.

Observations are built only from :meth:`FryingMasterEngine.public_view`.
Per-player fields have a leading axis of ``players`` entries in seat order
starting with the observing player (then clockwise: chef_{i+1}, ...).

A plate's order side ("front") is encoded as: plate type one-hot (3), the
specific foods required (a count per food), the "any" icons (a count per
category), the disliked foods (a 0/1 per food) and the flavour value.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from envs.core.encoding import Encoder
from envs.core.tables import Field, ObservationLayout
from envs.frying_master.cards import PLATE_TYPES, Catalog, catalog
from envs.frying_master.actions import table_spatulas
from envs.frying_master.engine import PHASES, FryingMasterEngine
from envs.frying_master.observation import BatchObserver, PublicObservationBuffer
from envs.frying_master.rules.end_of_round import countdown_ticks

#: Where a plate can be, for the global state.
PLATE_LOCATIONS = ("pile_A", "pile_B", "set_aside", "given_up", "held", "completed")


def plate_front_size(cat: Catalog) -> int:
    return len(PLATE_TYPES) + 2 * len(cat.foods) + len(cat.categories) + 1


def plate_fronts(cat: Catalog) -> np.ndarray:
    """``(plates, front size)``: every plate's order side as a vector."""
    F, C, T = len(cat.foods), len(cat.categories), len(PLATE_TYPES)
    out = np.zeros((len(cat.plates), plate_front_size(cat)), dtype=np.float32)
    for p in cat.plates:
        row = out[p.idx]
        row[p.type] = 1
        row[T:T + F] = p.specific
        row[T + F:T + F + C] = p.any
        for f in p.disliked:
            row[T + F + C + f] = 1
        row[-1] = p.flavour
    return out


def _public_fields(n: int, S: int, cat: Catalog, round_ticks: int, cd: int) -> list[Field]:
    F, C, T, M = len(cat.foods), len(cat.categories), len(PLATE_TYPES), len(cat.modes)
    P = plate_front_size(cat)
    max_food = max(f.count for f in cat.foods)
    max_cat = max(sum(f.count for f in cat.foods if f.category == c.idx) for c in cat.categories)
    max_orders = max(cat.orders_to_end_round.values())
    max_flavour = max(p.flavour for p in cat.plates)
    front = ("order side: type one-hot (meat, vegetable, rice_noodles), specific foods (count per food), "
             "'any' icons (count per category), disliked foods (0/1 per food), flavour value")
    return [
        Field("phase", (len(PHASES),), 0, 1, "one-hot: choose (setup plate choice), play, countdown, over"),
        Field("my_choice_turn", (), 0, 1, "1 if it is my turn to take a plate at setup"),
        Field("mode", (M,), 0, 1, "the round's Stir-Fry Mode, one-hot in order " + ", ".join(m.id for m in cat.modes)),
        Field("round_no", (), 1, n + 1, "the round being played (a match has at most players + 1 rounds)"),
        Field("play_tick", (), 0, round_ticks, "play ticks elapsed this round (the round ends at round_ticks)"),
        Field("countdown_left", (), 0, cd, "ticks left of the \"3... 2... 1...\" countdown (0: not running)"),
        Field("orders_to_end", (), 0, max_orders, "completed orders that end the round (2 players 6, 3: 5, 4: 4)"),
        Field("table_face_up", (F,), 0, max_food, "image-up cards on the table per food (" + ", ".join(cat.food_ids) + ")"),
        Field("table_face_down", (C,), 0, max_cat, "face-down cards on the table per category (their food is hidden)"),
        Field("pile_size", (2,), 0, len(cat.plates), "plates left in pile A and pile B"),
        Field("pile_top_hint", (2, C), 0, 4, "back of each pile's top plate: required ingredients per category"),
        Field("pile_top_mode", (2, M), 0, 1,
              "back of each pile's top plate: its printed Stir-Fry Mode, one-hot (0 if the pile is empty)"),
        Field("pile_top_front", (2, P), 0, max_flavour,
              "Pre-order Fry only (else 0): each pile's top plate, " + front),
        Field("has_plate", (n,), 0, 1, "per player (me first): holds a current order"),
        Field("plate_front", (n, P), 0, max_flavour, "per player: the current order, " + front),
        Field("plate_cards", (n, F), 0, max_food, "per player: food on the current plate (count per food)"),
        Field("plate_value", (n,), 0, max_flavour, "per player: points the plate would score if served now (0 unless correct)"),
        Field("plate_fixable", (n,), 0, 1, "per player: the plate can still become correct (no wrong or surplus food)"),
        Field("plate_missing", (n,), 0, 4, "per player: required ingredients not yet on a fixable plate"),
        Field("spatula_load", (n, S, F), 0, cat.spatula_capacity, "per player and spatula: cards on it per food"),
        Field("spatula_busy", (n, S), 0, max(cat.action_ticks.values()), "per player and spatula: ticks it is still busy"),
        Field("spatula_in_play", (n, S), 0, 1, "per player and spatula: usable this round (spatula 1: Teppanyaki only)"),
        Field("completed_orders", (n,), 0, max_orders, "per player: orders completed this round"),
        Field("completed_score", (n,), 0, max_orders * max_flavour, "per player: points of the completed orders so far (before the mode bonus)"),
        Field("completed_cards", (n, C), 0, max_orders * 4, "per player: cards per category on correct completed orders"),
        Field("completed_types", (n, T), 0, max_orders, "per player: correct completed orders per plate type"),
        Field("completed_foods", (n, F), 0, max_food,
              "per player: food on the completed orders this round, right or wrong (count per food; they lie face up)"),
        Field("finished", (n,), 0, 1, "per player: completed the round's orders (counting down)"),
        Field("gold", (n,), 0, cat.gold_to_win, "per player: Gold Spatula tokens"),
        Field("last_round_total", (n,), 0, max_orders * max_flavour + cat.mode_bonus, "per player: total score of the last round scored (the previous round; at the match's end, the final one)"),
    ]


class FryingMasterEncoder(Encoder):
    PER_SEAT = ("has_plate", "plate_front", "plate_cards", "plate_value", "plate_fixable", "plate_missing",
                "spatula_load", "spatula_busy", "spatula_in_play", "completed_orders", "completed_score",
                "completed_cards", "completed_types", "completed_foods", "finished", "gold", "last_round_total")

    def __init__(self, config: Mapping[str, Any]):
        super().__init__(config)
        cat = self.cat = catalog()
        self.n = n = int(config["players"])
        self.S = S = table_spatulas(config)
        self.round_ticks = int(config.get("round_ticks") or cat.default_round_ticks)
        cd = countdown_ticks(config.get("seconds_per_tick", 1.0))
        fields = _public_fields(n, S, cat, self.round_ticks, cd)
        self.layout = ObservationLayout(fields)
        n_pl = len(cat.plates)
        self.state_layout = ObservationLayout(fields + [
            Field("chooser", (n,), 0, 1, "whose setup choice it is (one-hot by seat, chef_0 first)"),
            Field("table_face_down_by_food", (len(cat.foods),), 0, max(f.count for f in cat.foods),
                  "HIDDEN: face-down cards per food"),
            Field("plate_location", (n_pl, len(PLATE_LOCATIONS)), 0, 1,
                  "HIDDEN in part: where each plate is, one-hot " + ", ".join(PLATE_LOCATIONS)),
            Field("pile_depth", (n_pl,), 0, n_pl, "HIDDEN: a plate's position in its pile (0 = top; 0 elsewhere)"),
        ])
        self.fronts = plate_fronts(cat)
        self.cat_of = [f.category for f in cat.foods]
        # Per agent i: an index permutation putting seat i first in every per-seat field.
        self.perm = []
        for i in range(n):
            idx = np.arange(self.layout.size)
            for name in self.PER_SEAT:
                s = self.layout.slices[name]
                block = idx[s].reshape(n, -1)
                idx[s] = np.roll(block, -i, axis=0).reshape(-1)
            self.perm.append(idx)
        self._all_perms = np.stack(self.perm)  # (n, size): every seat's gather, for observe_seats
        self._seat_of = {a: i for i, a in enumerate(FryingMasterEngine.agent_ids(config))}
        self._choice_at = self.layout.slices["my_choice_turn"].start
        self._public = PublicObservationBuffer(self.layout, cat, n, S, self.fronts, PHASES)
        self._cache_key = None   # (id, uid, version) of the engine state the buffer shows
        self._engine_key = None  # (id, uid) of the engine the buffer was last written for
        self._chooser = None

    # ------------------------------------------------------------------ public part
    def _absolute(self, engine: FryingMasterEngine) -> np.ndarray:
        """The observation from chef_0's seat (before per-agent rotation).

        Computed once per engine state (keyed on the engine's identity and
        state version) from ``engine.public_view``, by updating the blocks
        of :class:`PublicObservationBuffer` that changed. The returned array
        is the buffer's own: read it, never return or mutate it.
        """
        key = (id(engine), engine._uid, engine._version)
        if key != self._cache_key:
            view = engine.public_view(engine.agents[0])
            if key[:2] != self._engine_key:
                self._public.reset()
                self._engine_key = key[:2]
            self._public.update(view)
            self._chooser = view.chooser
            self._cache_key = key
        return self._public.vec

    def observe(self, engine: FryingMasterEngine, agent: str) -> np.ndarray:
        i = self._seat_of.get(agent)
        if i is None:
            engine.public_view(agent)  # raises KeyError naming the agents
            raise KeyError(agent)
        base = self._absolute(engine)
        out = base.copy() if i == 0 else base[self.perm[i]]
        out[self._choice_at] = 1.0 if self._chooser == agent else 0.0
        return out

    def observe_seats(self, engine: FryingMasterEngine, out: np.ndarray) -> None:
        """Every chef's observation into ``out`` ``(n, size)``: one gather of the public part, then
        each row's ``my_choice_turn``."""
        self._absolute(engine).take(self._all_perms, out=out, mode="clip")  # (the method: numpy.take adds a Python call)
        at, chooser = self._choice_at, self._chooser
        for i, agent in enumerate(engine.agents):
            out[i, at] = 1.0 if chooser == agent else 0.0

    def batch_observer(self, num_games: int):
        """Every seat's observation and mask of many games at once
        (:class:`~envs.frying_master.observation.BatchObserver`)."""
        return BatchObserver(self, num_games)

    # ------------------------------------------------------------------ global state
    def global_state(self, engine: FryingMasterEngine) -> np.ndarray:
        view = engine.public_view(engine.agents[0])
        base = self._absolute(engine)
        lay = self.state_layout
        v = lay.zeros()
        v[: base.size] = base
        v[self.layout.slices["my_choice_turn"]] = 1.0 if view.chooser == engine.agents[0] else 0.0
        chooser = np.zeros(self.n, dtype=np.float32)
        if view.chooser is not None:
            chooser[engine.agents.index(view.chooser)] = 1
        lay.set(v, "chooser", chooser)
        lay.set(v, "table_face_down_by_food", engine.table.down_by_food())
        loc = np.zeros((len(self.cat.plates), len(PLATE_LOCATIONS)), dtype=np.float32)
        depth = np.zeros(len(self.cat.plates), dtype=np.float32)
        for k, pile in enumerate(engine.piles):
            cards = pile.to_list()
            for pos, p in enumerate(cards):
                loc[p, k] = 1
                depth[p] = len(cards) - 1 - pos
        for p in engine.set_aside:
            loc[p, 2] = 1
        for p in engine.discard:
            loc[p, 3] = 1
        for a in engine.agents:
            if engine.plates[a] is not None:
                loc[engine.plates[a], 4] = 1
            for p, _ in engine.completed[a]:
                loc[p, 5] = 1
        lay.set(v, "plate_location", loc)
        lay.set(v, "pile_depth", depth)
        return v
