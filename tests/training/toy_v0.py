"""A registry-shaped module around the core's toy game (tests only).

The fixture in ``conftest.py`` installs it as ``envs.toy_v0`` and adds the id
to ``envs.ENV_IDS``; bridge workers import it under its real name.
"""

from __future__ import annotations

from envs.core.api import make_entry_points
from envs.core.policy import Policy
from tests.core.toy_game import ToyEnv

raw_env = ToyEnv
env, parallel_env = make_entry_points(raw_env)

TEST_CONFIGURATIONS = [{"players": 2}, {"players": 3}]
FUZZ_GAMES = 2
SUMMARY = {"game": "Toy", "players": "2-3", "kind": "competitive", "timing": "real-time"}
DOC_CONFIGURATION = {"players": 2}


def max_episode_steps(**kwargs) -> int:
    return 20


class HeuristicPolicy(Policy):
    """Grab two tokens when possible, else one (greedy)."""

    name = "heuristic"

    def act(self, observation, agent, env=None) -> int:
        mask = observation["action_mask"]
        return 2 if mask[2] else (1 if mask[1] else 0)
