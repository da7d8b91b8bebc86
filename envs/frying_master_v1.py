"""Frying Master (competitive, real-time, 2-4 chefs) as a PettingZoo environment.

    from envs import frying_master_v1
    env = frying_master_v1.parallel_env(players=3, mode="drawn")

See docs/frying_master.md for the rules, the tick model and every option.
"""

from __future__ import annotations

from typing import Any

from envs.core.api import make_entry_points
from envs.frying_master.env import FryingMasterAECEnv, FryingMasterEnv
from envs.frying_master.heuristic import HeuristicPolicy
from envs.frying_master.options import MODE_CHOICES
from envs.frying_master.rules.end_of_round import match_tick_bound

raw_env = FryingMasterEnv
env, parallel_env = make_entry_points(raw_env, FryingMasterAECEnv)

#: Every player count x every mode setting (drawn, each fixed mode), plus the Teppanyaki preset
#: and the v0 serve rule.
TEST_CONFIGURATIONS: list[dict[str, Any]] = (
    [{"players": n, "mode": m} for n in (2, 3, 4) for m in MODE_CHOICES]
    + [{"players": n, "mode": "drawn", "teppanyaki": True} for n in (2, 3, 4)]
    + [{"players": n, "mode": "drawn", "serve_rule": "any_food"} for n in (2, 3, 4)]
)

#: Random-legal games per configuration in the conformance fuzz.
FUZZ_GAMES = 3

SUMMARY = {"game": "Frying Master", "players": "2-4", "kind": "competitive", "timing": "real-time"}

DOC_CONFIGURATION: dict[str, Any] = {"players": 3, "mode": "drawn"}


def max_episode_steps(**kwargs: Any) -> int:
    """The most steps a match played with legal actions can take:
    ``(players + 1) * (players + round_ticks + countdown ticks)``."""
    config = raw_env.config_spec().resolve(kwargs)
    return match_tick_bound(config)


__all__ = ["raw_env", "env", "parallel_env", "TEST_CONFIGURATIONS", "FUZZ_GAMES", "max_episode_steps",
           "HeuristicPolicy", "SUMMARY", "DOC_CONFIGURATION"]
