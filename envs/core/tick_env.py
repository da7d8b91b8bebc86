"""The base of every Kitchen Arena ``pettingzoo.ParallelEnv``.

One ``step`` is one tick of table time (``seconds_per_tick`` seconds in the
real-time games). Every live agent submits an action each tick; the rules
engine resolves them in a seeded random order and reports an action that
could not take effect in that agent's ``infos`` entry (``blocked``).

A game's adapter subclasses :class:`TickParallelEnv` and sets four class
attributes: ``metadata`` (with its ``name``), ``engine_cls``, ``encoder_cls``
and ``game_options`` (a :class:`~envs.core.config.ConfigSpec`), plus
``default_max_ticks`` and ``realtime``; it may override ``render_text``.

Observations follow PettingZoo's classic convention::

    Dict({"observation": Box(low, high, (n,), float32),
          "action_mask": Box(0, 1, (A,), int8)})

and actions are ``Discrete(A)``. The mask marks the legal actions; index 0 is
always ``noop`` (do nothing this tick).

``infos[agent]`` after each step holds: ``tick``; ``action`` and
``action_name`` (what was applied); ``blocked`` and ``blocked_reason`` (legal
when submitted but pre-empted by another agent earlier in the tick's
resolution order); ``illegal_replaced`` and ``illegal_reason`` (with
``illegal_action="noop"``: the submitted action was illegal and a noop was
applied instead); plus game-specific entries.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import ParallelEnv

from envs.core.config import ConfigSpec, Option
from envs.core.encoding import Encoder
from envs.core.engine import GameEngine
from envs.core.errors import SnapshotError
from envs.core.seeding import make_rng

CORE_OPTIONS = ConfigSpec(
    "core",
    [
        Option("render_mode", None, "text rendering: None, 'ansi' (render() returns the text) or 'human' (render() prints it)",
               choices=(None, "ansi", "human")),
        Option("illegal_action", "raise",
               "'raise': an illegal action raises IllegalActionError (a ValueError) and nothing changes; "
               "'noop': it is replaced by noop and flagged in infos (for training code that samples without masks)",
               choices=("raise", "noop")),
        Option("max_ticks", None, "truncate the episode after this many steps (None: the game's documented default)",
               kind="int", low=1, allow_none=True),
    ],
)

REALTIME_OPTIONS = ConfigSpec(
    "core",
    [Option("seconds_per_tick", 1.0, "seconds of table time one step stands for", kind="float", low=0.25, high=10.0)],
)


class TickParallelEnv(ParallelEnv):
    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human"], "name": "abstract", "is_parallelizable": True}
    engine_cls: ClassVar[type[GameEngine]]
    encoder_cls: ClassVar[type[Encoder]]
    game_options: ClassVar[ConfigSpec]
    realtime: ClassVar[bool] = True
    default_max_ticks: ClassVar[int] = 10_000

    # ------------------------------------------------------------------ construction
    @classmethod
    def config_spec(cls) -> ConfigSpec:
        spec = CORE_OPTIONS + (REALTIME_OPTIONS if cls.realtime else ConfigSpec("core", [])) + cls.game_options
        spec.owner = cls.metadata["name"]
        return spec

    @classmethod
    def engine_config_of(cls, config: Mapping[str, Any]) -> dict:
        """The part of the env config the rules engine sees."""
        keys = list(cls.game_options.names()) + (["seconds_per_tick"] if cls.realtime else [])
        return {k: config[k] for k in keys}

    def __init__(self, **kwargs: Any):
        super().__init__()
        self.config = self.config_spec().resolve(kwargs)
        self.render_mode = self.config["render_mode"]
        self.illegal_action = self.config["illegal_action"]
        self.engine_config = self.engine_config_of(self.config)
        self.max_ticks = self.config["max_ticks"] or self.default_max_ticks
        self.seconds_per_tick = float(self.config.get("seconds_per_tick", 1.0))
        self.possible_agents = list(self.engine_cls.agent_ids(self.engine_config))
        self.agents: list[str] = []
        self.encoder = self.encoder_cls(self.engine_config)
        self.action_table = self.engine_cls.action_table(self.engine_config)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.encoder.layout.low, self.encoder.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.action_table.n,), dtype=np.int8),
            }
        )
        # One space object per agent, returned identically every call.
        self._obs_spaces = {a: obs_space if i == 0 else _copy_dict_space(obs_space) for i, a in enumerate(self.possible_agents)}
        self._act_spaces = {a: spaces.Discrete(self.action_table.n) for a in self.possible_agents}
        self.state_space = spaces.Box(self.encoder.state_layout.low, self.encoder.state_layout.high, dtype=np.float32)
        self.engine: GameEngine | None = None
        self._last_result = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new game. ``seed`` seeds the game's generator; without one
        the previous game's generator carries on (or OS entropy the first
        time). ``options={"snapshot": d}`` restores ``d`` (an engine
        snapshot) instead of dealing."""
        options = dict(options or {})
        if seed is not None:
            rng = make_rng(seed)
        elif self.engine is not None:
            rng = self.engine.rng
        else:
            rng = make_rng(None)
        if "snapshot" in options:
            self.restore(options.pop("snapshot"))
        else:
            self.engine = self.engine_cls(self.engine_config, rng)
        if options:
            logger.warn(f"{self.metadata['name']}.reset: ignoring unknown options {sorted(options)}; known: ['snapshot']")
        self._last_result = None
        self.agents = self.engine.live_agents()
        obs = {a: self._observe(a) for a in self.agents}
        infos = {a: {"tick": self.engine.tick} for a in self.agents}
        return obs, infos

    def step(self, actions: Mapping[str, Any]):
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before step()")
        if not self.agents:
            raise RuntimeError(f"{self.metadata['name']}: the episode is over; call reset()")
        engine = self.engine
        acting = self.agents
        joint, replaced = engine.validate(actions, self.illegal_action)
        result = engine.step_validated(joint)
        self._last_result = result
        terminated = engine.done
        truncated = (not terminated) and engine.tick >= self.max_ticks
        observe, mask = self.encoder.observe, engine.action_mask
        obs = {a: {"observation": observe(engine, a), "action_mask": mask(a).copy()} for a in acting}
        rew = result.rewards
        rewards = {a: float(rew.get(a, 0.0)) for a in acting}
        terms = dict.fromkeys(acting, terminated)
        truncs = dict.fromkeys(acting, truncated)
        names = self.action_table._names
        blocked, extra = result.blocked, result.info
        tick = engine.tick
        over = terminated or truncated
        infos = {}
        for a in acting:
            act = joint[a]
            info = {
                "tick": tick,
                "action": act,
                "action_name": names[act],
                "blocked": a in blocked,
                "blocked_reason": blocked.get(a, ""),
                "illegal_replaced": a in replaced,
                "illegal_reason": replaced.get(a, ""),
            }
            if a in extra:
                info.update(extra[a])
            if over:
                info["outcome"] = engine.outcome()
            infos[a] = info
        self.agents = [] if (terminated or truncated) else engine.live_agents()
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        return {
            "observation": self.encoder.observe(self.engine, agent),
            "action_mask": self.engine.action_mask(agent).copy(),
        }

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The current observation of ``agent`` (as ``step`` would return it)."""
        return self._observe(agent)

    def state(self) -> np.ndarray:
        """The global state vector (all information; for centralised critics)."""
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before state()")
        return self.encoder.global_state(self.engine)

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> dict:
        """The engine's JSON-serialisable snapshot (rng included)."""
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before snapshot()")
        return self.engine.to_dict()

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        """Continue from a snapshot of this env's engine and config.

        Raises SnapshotError (and keeps the current game) if the snapshot is
        of another game or config, or corrupt."""
        engine = self.engine_cls.from_dict(snapshot)
        if engine.config != self.engine_config:
            diff = sorted(k for k in set(engine.config) | set(self.engine_config)
                          if engine.config.get(k) != self.engine_config.get(k))
            raise SnapshotError(
                f"{self.metadata['name']}: snapshot config differs from this env's in {diff}: "
                + ", ".join(f"{k}={engine.config.get(k)!r} vs {self.engine_config.get(k)!r}" for k in diff)
            )
        self.engine = engine
        self.agents = engine.live_agents()

    # ------------------------------------------------------------------ rendering
    def render_text(self) -> str:
        """The text picture of the table (override per game)."""
        return f"{self.metadata['name']} tick {self.engine.tick}"

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn(f"{self.metadata['name']}.render() called with render_mode=None; pass render_mode='ansi' or 'human'")
            return None
        if self.engine is None:
            text = f"{self.metadata['name']}: not started (call reset())"
        else:
            text = self.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]


def _copy_dict_space(space: spaces.Dict) -> spaces.Dict:
    return spaces.Dict({k: _copy_box(v) for k, v in space.spaces.items()})


def _copy_box(b: spaces.Box) -> spaces.Box:
    return spaces.Box(b.low.copy(), b.high.copy(), dtype=b.dtype)

