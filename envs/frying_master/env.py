"""The Frying Master PettingZoo ParallelEnv (a thin adapter over the engine)."""

from __future__ import annotations

from typing import Any, Mapping

from envs.core.config import ConfigSpec, Option
from envs.core.aec_env import TickAECEnv
from envs.core.tick_env import TickParallelEnv
from envs.frying_master.cards import catalog
from envs.frying_master.encoding import FryingMasterEncoder
from envs.frying_master.engine import FryingMasterEngine, countdown_ticks
from envs.frying_master.render import render_engine

MODE_CHOICES: tuple[str, ...] = ("drawn",) + catalog().mode_ids

GAME_OPTIONS = ConfigSpec("frying_master_v0", [
    Option("players", 3, "number of chefs (agents chef_0 .. chef_{n-1}, clockwise)", choices=(2, 3, 4)),
    Option("mode", "drawn",
           "'drawn': each round's Stir-Fry Mode is drawn from the plate backs (a mode not yet played this match); "
           "or a fixed mode for every round (Beginner's Mode: 'mixed' or 'casual'; 'teppanyaki' gives two spatulas)",
           choices=MODE_CHOICES),
    Option("teppanyaki", False,
           "Beginner's preset for young players: two spatulas per player in every round, whatever the mode",
           kind="bool"),
    Option("round_ticks", catalog().default_round_ticks,
           "play ticks after which a round ends and is scored if nobody has completed the round's orders "
           "(anti-stalling rule; the countdown may run past it)", kind="int", low=20, high=2000),
    Option("round_shaping", 0.0,
           "per-round reward shaping: at each round's end every chef also gets round_shaping x (own round score - "
           "mean round score); 0 = match outcome only", kind="float", low=0.0, high=1.0),
])


def match_tick_bound(config: Mapping[str, Any]) -> int:
    """Most ticks a match can last: at most players + 1 rounds (every round
    awards a Gold Spatula), each at most players choice ticks + round_ticks
    play ticks + the countdown."""
    n = int(config["players"])
    per_round = n + int(config["round_ticks"]) + countdown_ticks(config.get("seconds_per_tick", 1.0))
    return (n + 1) * per_round


class FryingMasterEnv(TickParallelEnv):
    """Frying Master for 2-4 chefs; one step is one tick of table time."""

    metadata = {"render_modes": ["ansi", "human"], "name": "frying_master_v0", "is_parallelizable": True}
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
    """The native AEC form of :class:`FryingMasterEnv` (``frying_master_v0.env()``); see :mod:`envs.core.aec_env`."""

    parallel_cls = FryingMasterEnv
    metadata = FryingMasterEnv.metadata
