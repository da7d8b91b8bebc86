"""The shared core of the Kitchen Arena environments.

Layers (see docs/ARCHITECTURE.md):

* pure Python, no PettingZoo: ``errors``, ``config``, ``tables``, ``seeding``,
  ``decks``, ``data``, ``render``, ``engine`` (the rules-engine protocol);
* ``encoding`` (observation/state encoder protocol);
* PettingZoo adapter: ``tick_env`` (the tick-based ParallelEnv base) and
  ``api`` (``env``/``parallel_env`` entry points);
* ``policy`` and ``play`` (policies and whole episodes).
"""

from envs.core.config import ConfigSpec, Option
from envs.core.engine import NOOP, GameEngine, StepResult, TickEngine
from envs.core.errors import ConfigError, DataError, IllegalActionError, KitchenArenaError, SnapshotError
from envs.core.tables import ActionTable, Field, ObservationLayout

__all__ = [
    "NOOP",
    "ActionTable",
    "ConfigError",
    "ConfigSpec",
    "DataError",
    "Field",
    "GameEngine",
    "IllegalActionError",
    "KitchenArenaError",
    "ObservationLayout",
    "Option",
    "SnapshotError",
    "StepResult",
    "TickEngine",
]
