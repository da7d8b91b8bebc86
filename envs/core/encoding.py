"""The observation/state encoder protocol.

Each game has one encoder that turns an engine's state into

* ``observe(engine, agent)``: what that agent can see at the table, as a flat
  float32 vector laid out by ``layout`` (an
  :class:`~envs.core.tables.ObservationLayout`). It must contain nothing the
  player could not see: no other hands, no deck order, no face-down cards;
* ``global_state(engine)``: the full state for centralised critics
  (``state()`` in PettingZoo), laid out by ``state_layout``. Hidden
  information may appear here: it is never given to an acting policy.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Mapping

import numpy as np

from envs.core.engine import GameEngine
from envs.core.tables import ObservationLayout


def check_batch_rows(rows, engines, num_games: int) -> None:
    """A batch observer's door: one distinct row in ``0..num_games-1`` per engine (ValueError naming
    what is allowed; nothing is written)."""
    if len(rows) != len(engines):
        raise ValueError(f"got {len(rows)} rows for {len(engines)} engines; give one output row per engine")
    if rows and (min(rows) < 0 or max(rows) >= num_games or len(set(rows)) != len(rows)):
        raise ValueError(f"rows {list(rows)[:20]} are not allowed: distinct rows in 0..{num_games - 1} "
                         f"(the observer was built for {num_games} games)")


class Encoder(ABC):
    layout: ObservationLayout
    state_layout: ObservationLayout

    def __init__(self, config: Mapping[str, Any]):
        self.config = dict(config)

    @abstractmethod
    def observe(self, engine: GameEngine, agent: str) -> np.ndarray:
        """float32 vector of ``layout.size`` entries within the layout's bounds."""

    def observe_seats(self, engine: GameEngine, out: np.ndarray) -> None:
        """Every seat's observation at once, in seat order (``engine.agents``), written
        into ``out`` (float32 ``(len(engine.agents), layout.size)``): row ``k`` equals
        ``observe(engine, engine.agents[k])``. The batched env's path when every seat
        acts; a game whose observations are gathers of one per-state vector overrides
        it with one gather for all seats (no per-seat array, no second copy)."""
        for k, agent in enumerate(engine.agents):
            out[k] = self.observe(engine, agent)

    def batch_observer(self, num_games: int):
        """An object whose ``observe(rows, engines, obs, masks)`` writes every seat's observation
        and mask of many engines of this configuration at once (``obs[rows[k]]`` float32
        ``(players, size)``, ``masks[rows[k]]`` int8 ``(players, A)``): exactly what
        :meth:`observe_seats` and the engine's ``masks_into`` write, one game at a time;
        and an int ``min_games``, the fewest games for which it is faster than going one by one.
        The batched env uses it where at least that many games have every seat acting.
        Default: None (the game has none; the batched env goes game by game)."""
        return None

    @abstractmethod
    def global_state(self, engine: GameEngine) -> np.ndarray:
        """float32 vector of ``state_layout.size`` entries."""
