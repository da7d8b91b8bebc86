"""The Waroong Wars PettingZoo ``ParallelEnv``.

Turn-based: one ``step`` is one simultaneous draft pick (Shopping) or one
decision of the player whose turn it is (Cooking); every other player's only
legal action is ``noop`` (index 0). Rewards: the final ranking, with
optional VP shaping (see ``vp_shaping`` and docs/waroong_wars.md).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from envs.core.aec_env import TickAECEnv
from envs.core.tick_env import TickParallelEnv
from envs.waroong_wars.encoding import WaroongEncoder
from envs.waroong_wars.engine import WaroongEngine
from envs.waroong_wars.options import GAME_OPTIONS, OBSERVATION_ONLY, check_variants
from envs.waroong_wars.render import render_table


def max_steps_bound(players: int, round_limit: int, menu_deck_size: int) -> int:
    """Most steps a game played with legal (masked) actions can take.

    Per round: 5 draft steps (the 6th pick is automatic) and one
    ``end_turn``/``take_go_boy`` per player. Over the game: at most one
    ``cook`` per menu card, one Bu Prasojo decision per cook, and customer
    abilities: every use spends a card that came from a draw (at most two per
    cook), and Maling/Perayu add the target's answer.
    """
    return round_limit * (5 + players) + menu_deck_size * (1 + 1 + 2 * 2)


class WaroongWarsEnv(TickParallelEnv):
    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human"], "name": "waroong_wars_v1", "is_parallelizable": True,
                                "render_fps": 1}
    engine_cls = WaroongEngine
    encoder_cls = WaroongEncoder
    game_options = GAME_OPTIONS
    realtime = False
    # The largest bound of any configuration (5 players, round_limit 40): a safety net only.
    default_max_ticks = max_steps_bound(5, 40, 30)
    observation_options = OBSERVATION_ONLY

    def make_encoder(self) -> WaroongEncoder:
        """The encoder of the engine config plus the observation-only options (``own_picks``)."""
        return WaroongEncoder({**self.engine_config, **{k: self.config[k] for k in OBSERVATION_ONLY}})

    def __init__(self, **kwargs: Any):
        check_variants(self.config_spec().resolve(kwargs))
        super().__init__(**kwargs)
        self.render_viewer = self.config["render_viewer"]

    def render_text(self, viewer: str | None = None) -> str:
        """The table as text, after what happened in the last step; ``viewer`` overrides ``render_viewer``."""
        events = self._last_result.events if self._last_result is not None else ()
        return render_table(self.engine, viewer or self.render_viewer, events)


class WaroongWarsAECEnv(TickAECEnv):
    """The native AEC form of :class:`WaroongWarsEnv` (``waroong_wars_v1.env()``); see :mod:`envs.core.aec_env`."""

    parallel_cls = WaroongWarsEnv
    metadata = WaroongWarsEnv.metadata
