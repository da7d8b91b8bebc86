"""The Wok Star PettingZoo ``ParallelEnv`` (a thin adapter over the engine)."""

from __future__ import annotations


from envs.core.config import ConfigSpec, Option
from envs.core.aec_env import TickAECEnv
from envs.core.tick_env import TickParallelEnv
from envs.wok_star.bounds import max_episode_steps
from envs.wok_star.encoding import WokStarEncoder
from envs.wok_star.engine import WokStarEngine
from envs.wok_star.render import render_table

GAME_OPTIONS = ConfigSpec(
    "wok_star_v0",
    [
        Option("players", 3, "number of chefs (agents chef_0 ... chef_{n-1})", choices=(2, 3, 4)),
        Option("difficulty", "mild", "Income Goal table row: 'mild', 'medium' or 'extra_spicy' "
                                     "(Medium 3-4 players and Extra Spicy are reconstructed)",
               choices=("mild", "medium", "extra_spicy")),
        Option("events", False, "optional rule: Events (2 Event cards shuffled into the Regular deck each day)", kind="bool"),
        Option("powers", False, "optional rule: Player Powers (one Wang Family character per chef)", kind="bool"),
        Option("setup", "team", "'team': the chefs take the setup decisions (characters, who holds which Ingredient card, "
                                "who starts with 3 dice in a 2-player game); 'auto': characters dealt at random, cards by "
                                "the rulebook's Pro Tip, the 3rd die to the chef with more Ingredient cards",
               choices=("team", "auto")),
        Option("timer_seconds", 30.0, "seconds of sand in each timer; a timer holds ceil(timer_seconds / seconds_per_tick) ticks",
               kind="float", low=5.0, high=120.0),
        Option("patience_seconds", 30.0, "after both timers run out, the current customer waits this long before walking "
                                         "out (the day then closes); the bound that keeps a day finite",
               kind="float", low=1.0, high=120.0),
        Option("reward", "income", "'income': every chef gets reward_scale x each dollar the team earns, when earned "
                                   "(late serves net of the $1, end-of-round events at accounting); 'win_loss': +1 "
                                   "to every chef on winning, -1 on losing, else 0; 'income+win_loss': both",
               choices=("income", "win_loss", "income+win_loss")),
        Option("reward_scale", 0.1, "reward per dollar of income (reward='income' or 'income+win_loss')",
               kind="float", low=0.0, high=10.0),
    ],
)


class WokStarEnv(TickParallelEnv):
    """Wok Star (3rd Edition): a cooperative real-time dice game, 2-4 chefs.

    One step is one tick (``seconds_per_tick`` seconds of table time). See
    ``docs/wok_star.md`` for the rules table, observation and actions.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "wok_star_v0", "is_parallelizable": True}
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
    """The native AEC form of :class:`WokStarEnv` (``wok_star_v0.env()``); see :mod:`envs.core.aec_env`."""

    parallel_cls = WokStarEnv
    metadata = WokStarEnv.metadata
