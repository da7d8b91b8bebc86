"""The Frying Master PettingZoo ParallelEnv (a thin adapter over the engine)."""

from __future__ import annotations

from envs.core.aec_env import TickAECEnv
from envs.core.tick_env import TickParallelEnv
from envs.frying_master.encoding import FryingMasterEncoder
from envs.frying_master.engine import FryingMasterEngine
from envs.frying_master.options import GAME_OPTIONS
from envs.frying_master.render import render_engine
from envs.frying_master.rules.end_of_round import match_tick_bound


class FryingMasterEnv(TickParallelEnv):
    """Frying Master for 2-4 chefs; one step is one tick of table time."""

    metadata = {"render_modes": ["ansi", "human"], "name": "frying_master_v1", "is_parallelizable": True,
                "render_fps": 1}
    engine_cls = FryingMasterEngine
    encoder_cls = FryingMasterEncoder
    game_options = GAME_OPTIONS
    realtime = True
    default_max_ticks = 20_000

    def default_tick_bound(self) -> int:
        return match_tick_bound(self.engine_config)

    def render_text(self) -> str:
        return render_engine(self.engine)


class FryingMasterAECEnv(TickAECEnv):
    """The native AEC form of :class:`FryingMasterEnv` (``frying_master_v1.env()``); see :mod:`envs.core.aec_env`."""

    parallel_cls = FryingMasterEnv
    metadata = FryingMasterEnv.metadata
