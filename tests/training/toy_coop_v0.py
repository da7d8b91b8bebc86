"""A cooperative variant of the core's toy game (tests only).

The team must empty the pile within ``deadline`` ticks. Every token grabbed
rewards every player (a team reward); the outcome's extras give the share of
the deadline used and whether the pile was cleared.
"""

from __future__ import annotations

from envs.core import ConfigSpec, Option
from envs.core.api import make_entry_points
from tests.core.toy_game import ToyEngine, ToyEnv
from tests.training.toy_v0 import HeuristicPolicy  # noqa: F401  (same greedy rule)


class ToyCoopEngine(ToyEngine):
    ENGINE_NAME = "toy_coop"

    def apply(self, agent, action, result):
        n = 1 if action == 1 else 2
        self.pile -= n
        self.held[agent] += n
        result.reward_all(n / len(self.agents))

    @property
    def done(self):
        return self.pile == 0 or self.tick >= self.config["deadline"]

    def outcome(self):
        won = self.pile == 0
        total = float(sum(self.held.values()))
        return {"winners": list(self.agents) if won else [], "scores": {a: total for a in self.agents},
                "cleared": won, "time_used": self.tick / self.config["deadline"],
                "tokens_per_player": {a: float(h) for a, h in self.held.items()}}


class ToyCoopEnv(ToyEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "toy_coop_v0", "is_parallelizable": True}
    engine_cls = ToyCoopEngine
    game_options = ConfigSpec("toy_coop_v0", [
        Option("players", 2, "number of players", choices=(2, 3)),
        Option("tokens", 8, "tokens on the pile at the start (plus 0-2 at random)", kind="int", low=1, high=16),
        Option("deadline", 4, "ticks the team has to empty the pile", kind="int", low=1, high=20),
    ])


raw_env = ToyCoopEnv
env, parallel_env = make_entry_points(raw_env)

TEST_CONFIGURATIONS = [{"players": 2}, {"players": 3}]
FUZZ_GAMES = 2
SUMMARY = {"game": "Toy co-op", "players": "2-3", "kind": "cooperative", "timing": "real-time"}
DOC_CONFIGURATION = {"players": 2}


def max_episode_steps(**kwargs) -> int:
    return 20
