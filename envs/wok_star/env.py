"""The Wok Star PettingZoo ``ParallelEnv`` (a thin adapter over the engine)."""

from __future__ import annotations

from envs.core.aec_env import TickAECEnv
from envs.core.tick_env import TickParallelEnv
from envs.wok_star.encoding import WokStarEncoder
from envs.wok_star.engine import WokStarEngine, max_episode_steps
from envs.wok_star.options import GAME_OPTIONS
from envs.wok_star.render import render_table

class WokStarEnv(TickParallelEnv):
    """Wok Star (3rd Edition): a cooperative real-time dice game, 2-4 chefs.

    One step is one tick (``seconds_per_tick`` seconds of table time). See
    ``docs/wok_star.md`` for the rules table, observation and actions.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "wok_star_v1", "is_parallelizable": True,
                "render_fps": 1}
    engine_cls = WokStarEngine
    encoder_cls = WokStarEncoder
    game_options = GAME_OPTIONS
    realtime = True
    default_max_ticks = max_episode_steps()

    def default_tick_bound(self) -> int:
        # The documented bound of this configuration: a legal game always ends before it.
        return max_episode_steps(**{k: v for k, v in self.engine_config.items()})

    def render_text(self) -> str:
        return render_table(self.engine)


class WokStarAECEnv(TickAECEnv):
    """The native AEC form of :class:`WokStarEnv` (``wok_star_v1.env()``); see :mod:`envs.core.aec_env`."""

    parallel_cls = WokStarEnv
    metadata = WokStarEnv.metadata
