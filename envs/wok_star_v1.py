"""Wok Star (3rd Edition): cooperative, real-time, 2-4 chefs.

    from envs import wok_star_v1
    env = wok_star_v1.parallel_env(players=3, difficulty="medium", events=True, powers=True)

Agents ``chef_0`` ... ``chef_{n-1}``. See docs/wok_star.md.
"""

from __future__ import annotations

from envs.core.api import make_entry_points
from envs.wok_star.engine import max_episode_steps as _bound
from envs.wok_star.env import WokStarAECEnv, WokStarEnv
from envs.wok_star.heuristic import HeuristicPolicy
from envs.wok_star.options import variant_combinations

raw_env = WokStarEnv
env, parallel_env = make_entry_points(raw_env, WokStarAECEnv)

#: Every player count x difficulty x (Events, Player Powers): 36 configurations.
TEST_CONFIGURATIONS = variant_combinations()
FUZZ_GAMES = 4
SUMMARY = {"game": "Wok Star (3rd Edition)", "players": "2-4", "kind": "cooperative", "timing": "real-time"}
DOC_CONFIGURATION = {"players": 3}


def max_episode_steps(**kwargs) -> int:
    """Upper bound on the steps of any game of this configuration played with legal actions
    (derivation: ``envs.wok_star.engine.max_episode_steps`` and docs/wok_star.md)."""
    cfg = raw_env.config_spec().resolve(kwargs)
    return _bound(**{k: cfg[k] for k in ("players", "timer_seconds", "patience_seconds", "seconds_per_tick", "events")})


__all__ = ["raw_env", "env", "parallel_env", "TEST_CONFIGURATIONS", "FUZZ_GAMES", "max_episode_steps",
           "HeuristicPolicy", "SUMMARY", "DOC_CONFIGURATION"]
