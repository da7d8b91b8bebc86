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


class Encoder(ABC):
    layout: ObservationLayout
    state_layout: ObservationLayout

    def __init__(self, config: Mapping[str, Any]):
        self.config = dict(config)

    @abstractmethod
    def observe(self, engine: GameEngine, agent: str) -> np.ndarray:
        """float32 vector of ``layout.size`` entries within the layout's bounds."""

    @abstractmethod
    def global_state(self, engine: GameEngine) -> np.ndarray:
        """float32 vector of ``state_layout.size`` entries."""
