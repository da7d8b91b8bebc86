"""Waroong Wars (Second Edition) as a PettingZoo environment.

    from envs import waroong_wars_v1
    env = waroong_wars_v1.parallel_env(players=4, character_mode=True)

Competitive card drafting and set collection for 3-5 players, turn-based:
each step is one simultaneous draft pick or one decision of the player whose
turn it is. See docs/waroong_wars.md.
"""

from __future__ import annotations

from typing import Any

from envs.core.api import make_entry_points
from envs.waroong_wars.cards import load_catalog
from envs.waroong_wars.env import WaroongWarsAECEnv, WaroongWarsEnv, max_steps_bound
from envs.waroong_wars.heuristic import HeuristicPolicy
from envs.waroong_wars.options import PLAYER_COUNTS, check_variants, valid_variant_combinations

raw_env = WaroongWarsEnv
env, parallel_env = make_entry_points(raw_env, WaroongWarsAECEnv)

#: Every player count x every valid combination of the four variants (36 configurations).
TEST_CONFIGURATIONS = [{"players": p, **v} for p in PLAYER_COUNTS for v in valid_variant_combinations()]
FUZZ_GAMES = 3
SUMMARY = {"game": "Waroong Wars", "players": "3-5", "kind": "competitive", "timing": "turn-based"}
DOC_CONFIGURATION = {"players": 4}


def max_episode_steps(**kwargs: Any) -> int:
    """Upper bound on the steps of a game played with legal actions (see ``max_steps_bound``), for
    the env these options make (options the env refuses, a misspelt one or a variant combination it
    does not allow, are refused here with the same ``ConfigError``)."""
    cfg = raw_env.config_spec().resolve(kwargs)
    check_variants(cfg)
    players = int(cfg["players"])
    return max_steps_bound(players, int(cfg["round_limit"]), load_catalog().components["menu_deck_size"][players])


__all__ = ["raw_env", "env", "parallel_env", "TEST_CONFIGURATIONS", "FUZZ_GAMES", "SUMMARY", "DOC_CONFIGURATION",
           "max_episode_steps", "HeuristicPolicy"]
