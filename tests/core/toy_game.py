"""A tiny tick game used only to test the shared core.

A pile of tokens sits on the table. Each tick every player may ``grab`` one
token or ``grab2`` two (if that many are left), or wait. When the pile is
empty the game ends; the player holding the most tokens wins.
"""

from __future__ import annotations

import numpy as np

from envs.core import ActionTable, ConfigSpec, Field, ObservationLayout, Option, StepResult, TickEngine
from envs.core.encoding import Encoder
from envs.core.tick_env import TickParallelEnv

_TABLE = ActionTable("wait")
_TABLE.add("grab", "take one token from the pile")
_TABLE.add("grab2", "take two tokens from the pile")


class ToyEngine(TickEngine):
    ENGINE_NAME = "toy"

    @classmethod
    def agent_ids(cls, config):
        return [f"p{i}" for i in range(config["players"])]

    @classmethod
    def action_table(cls, config):
        return _TABLE

    def _setup(self):
        self.pile = int(self.config["tokens"]) + int(self.rng.integers(0, 3))
        self.held = {a: 0 for a in self.agents}

    def _compute_mask(self, agent):
        m = self.actions.mask()
        m[0] = 1
        m[1] = self.pile >= 1
        m[2] = self.pile >= 2
        return m

    def _why_illegal(self, agent, action):
        need = {1: 1, 2: 2}.get(action, 0)
        return f"the pile holds {self.pile} token(s), {need} needed"

    def apply(self, agent, action, result):
        n = 1 if action == 1 else 2
        self.pile -= n
        self.held[agent] += n
        result.rewards[agent] += n
        result.events.append(f"{agent} grabs {n}")

    @property
    def done(self):
        return self.pile == 0

    def outcome(self):
        best = max(self.held.values())
        return {"winners": [a for a, h in self.held.items() if h == best], "scores": dict(self.held)}

    def state_dict(self):
        return {"pile": self.pile, "held": dict(self.held)}

    def load_state_dict(self, state):
        self.pile = int(state["pile"])
        self.held = {a: int(state["held"][a]) for a in self.agents}


class ToyEncoder(Encoder):
    def __init__(self, config):
        super().__init__(config)
        n = config["players"]
        self.layout = ObservationLayout([
            Field("pile", (), 0, 20, "tokens left on the table"),
            Field("mine", (), 0, 20, "tokens I hold"),
        ])
        self.state_layout = ObservationLayout([
            Field("pile", (), 0, 20, "tokens left"),
            Field("held", (n,), 0, 20, "tokens per player"),
        ])

    def observe(self, engine, agent):
        v = self.layout.zeros()
        self.layout.set(v, "pile", engine.pile)
        self.layout.set(v, "mine", engine.held[agent])
        return v

    def global_state(self, engine):
        v = self.state_layout.zeros()
        self.state_layout.set(v, "pile", engine.pile)
        self.state_layout.set(v, "held", [engine.held[a] for a in engine.agents])
        return v


class ToyEnv(TickParallelEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "toy_v0", "is_parallelizable": True}
    engine_cls = ToyEngine
    encoder_cls = ToyEncoder
    game_options = ConfigSpec("toy_v0", [
        Option("players", 2, "number of players", choices=(2, 3)),
        Option("tokens", 6, "tokens on the pile at the start (plus 0-2 at random)", kind="int", low=1, high=16),
    ])
    default_max_ticks = 200

    def render_text(self):
        e = self.engine
        return f"tick {e.tick}: pile {e.pile}; " + ", ".join(f"{a}={h}" for a, h in e.held.items())
