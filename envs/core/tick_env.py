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

``infos[agent]`` has a fixed schema (:data:`INFO_KEYS`): at ``reset`` and at
every ``step``, every agent's infos hold the same keys with numeric values of
fixed shape, so libraries that stack infos into arrays (TorchRL, Tianshou,
RLlib) can: ``tick`` (int), ``action`` (int: the action applied this tick,
0 at reset), ``blocked`` (bool: legal when submitted but pre-empted by an
agent earlier in the tick's resolution order), ``illegal_replaced`` (bool:
with ``illegal_action="noop"`` the submitted action was illegal and the
default action was applied instead); with ``mask_in_infos=True`` also
``action_mask`` (the same int8 array as in the observation).

The words behind those numbers (``action_name``, ``blocked_reason``,
``illegal_reason``), game-specific entries (Frying Master's
``round_result``) and, on the last step, ``outcome`` (``engine.outcome_seen_by(agent)``: the outcome, or before the game's end what the agent can know of it)
are always available from :meth:`TickParallelEnv.last_step_details` and
:meth:`TickParallelEnv.outcome`; ``infos="verbose"`` puts them in the infos
as well (then the schema is not fixed).
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, Mapping

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import ParallelEnv

from envs.core.config import REALTIME_OPTIONS, ConfigSpec, Option, differing_options
from envs.core.encoding import Encoder
from envs.core.engine import GameEngine
from envs.core.errors import ActionFormatError, ConfigError, SnapshotError
from envs.core.inputs import shown
from envs.core.seeding import copy_rng, make_rng

CORE_OPTIONS = ConfigSpec(
    "core",
    [
        Option("render_mode", None, "text rendering: None, 'ansi' (render() returns the text) or 'human' (render() prints it)",
               choices=(None, "ansi", "human")),
        Option("illegal_action", "raise",
               "'raise': an illegal action raises IllegalActionError (a ValueError) and nothing changes; "
               "'noop': it is replaced by the game's default legal action (noop wherever noop is legal) and flagged in "
               "infos (for training code that samples without masks)",
               choices=("raise", "noop")),
        Option("max_ticks", None, ("truncate the episode when the game's tick reaches this many: after this many "
                                   "steps of a game dealt by reset, after max_ticks - t of one restored from a "
                                   "snapshot at tick t (None: the game's documented default)"),
               kind="int", low=1, allow_none=True),
        Option("max_cycles", None, "PettingZoo's name for max_ticks (one AEC cycle is one tick); give either, or both equal",
               kind="int", low=1, allow_none=True),
        Option("infos", "compact",
               "'compact': every agent's infos hold the same numeric keys at every reset and step (INFO_KEYS); "
               "'verbose': also action_name, blocked_reason, illegal_reason, game entries and, at the end, outcome",
               choices=("compact", "verbose")),
        Option("mask_in_infos", False, "also put each agent's action_mask in its infos (AgileRL reads it there)",
               kind="bool"),
    ],
)

#: The keys of every agent's infos at every reset and step (``infos="compact"``, the default).
INFO_KEYS: tuple[str, ...] = ("tick", "action", "blocked", "illegal_replaced")

#: Options that change how the env talks, not the game (training leaves them out of a checkpoint's config).
INTERFACE_OPTIONS: tuple[str, ...] = ("render_mode", "infos", "mask_in_infos")


class TickParallelEnv(ParallelEnv):
    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human"], "name": "abstract", "is_parallelizable": True}
    engine_cls: ClassVar[type[GameEngine]]
    encoder_cls: ClassVar[type[Encoder]]
    game_options: ClassVar[ConfigSpec]
    realtime: ClassVar[bool] = True
    default_max_ticks: ClassVar[int] = 10_000
    #: Options that change only the observation, not the game (a checkpoint trained with one is played
    #: with it: ``python -m training`` evaluate/watch/tournament take them from the checkpoint).
    observation_options: ClassVar[tuple[str, ...]] = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def config_spec(cls) -> ConfigSpec:
        spec = CORE_OPTIONS + (REALTIME_OPTIONS if cls.realtime else ConfigSpec("core", [])) + cls.game_options
        spec.owner = cls.metadata["name"]
        return spec

    @classmethod
    def engine_config_of(cls, config: Mapping[str, Any]) -> dict:
        """The part of the env config the rules engine sees: the options its ``OPTIONS`` declares (an
        engine that declares none: the game's options, and ``seconds_per_tick`` in real time)."""
        declared = cls.engine_cls.OPTIONS
        keys = declared.names() if declared is not None else \
            list(cls.game_options.names()) + (["seconds_per_tick"] if cls.realtime else [])
        return {k: config[k] for k in keys}

    def __init__(self, **kwargs: Any):
        super().__init__()
        # Each env its own metadata: a wrapper that edits it (PettingZoo's CaptureStdoutWrapper adds a
        # render mode) must not change the class's, and with it every later env's.
        self.metadata = copy.deepcopy(type(self).metadata)
        self._init_kwargs = dict(kwargs)
        self.config = self.config_spec().resolve(kwargs)
        self.render_mode = self.config["render_mode"]
        self.illegal_action = self.config["illegal_action"]
        self.verbose_infos = self.config["infos"] == "verbose"
        self.mask_in_infos = bool(self.config["mask_in_infos"])
        self.engine_config = self.engine_config_of(self.config)
        mt, mc = self.config["max_ticks"], self.config["max_cycles"]
        if mt is not None and mc is not None and mt != mc:
            raise ConfigError(f"{self.metadata['name']}: max_ticks={mt} and max_cycles={mc} disagree; "
                              "max_cycles is PettingZoo's name for max_ticks: give one of them")
        self.max_ticks = mt or mc or self.default_tick_bound()
        self.seconds_per_tick = float(self.config.get("seconds_per_tick", 1.0))
        # one frame a tick when a human watches (PettingZoo's and gymnasium's render checks ask for it)
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / self.seconds_per_tick}
        self.possible_agents = list(self.engine_cls.agent_ids(self.engine_config))
        self.agents: list[str] = []
        self.encoder = self.make_encoder()
        self.action_table = self.engine_cls.action_table(self.engine_config)
        obs_box = _float_box(self.encoder.layout.low, self.encoder.layout.high)
        # One space object per agent, returned identically every call (each its own copy).
        self._obs_spaces = {a: spaces.Dict({"observation": obs_box if i == 0 else copy.deepcopy(obs_box),
                                            "action_mask": spaces.Box(0, 1, (self.action_table.n,), dtype=np.int8)})
                            for i, a in enumerate(self.possible_agents)}
        self._act_spaces = {a: spaces.Discrete(self.action_table.n) for a in self.possible_agents}
        self.state_space = _float_box(self.encoder.state_layout.low, self.encoder.state_layout.high)
        self.engine: GameEngine | None = None
        self._last_step: tuple | None = None  # (joint, replaced, result, over) of the last step

    @property
    def observation_spaces(self) -> dict[str, spaces.Dict]:
        """Every agent's observation space (PettingZoo's ``ParallelEnv`` attribute; a new dict
        of the same space objects that ``observation_space(agent)`` returns)."""
        return dict(self._obs_spaces)

    @property
    def action_spaces(self) -> dict[str, spaces.Discrete]:
        """Every agent's action space (PettingZoo's ``ParallelEnv`` attribute; a new dict of the
        same space objects that ``action_space(agent)`` returns)."""
        return dict(self._act_spaces)

    # ------------------------------------------------------------------ pickle / copy
    def __getstate__(self) -> dict:
        """An env pickles (and deep-copies) as its constructor options plus the engine's JSON
        snapshot: the copy continues exactly like the original, caches are rebuilt."""
        return {
            "kwargs": self._init_kwargs,
            "snapshot": None if self.engine is None else self.engine.to_dict(),
            "agents": list(self.agents),
            "last_step": self._last_step,
            # the spaces too: a space seeded by the user (``action_space(a).seed(s)``) carries on
            # drawing in the copy as in the original
            "spaces": (self._obs_spaces, self._act_spaces, self.state_space),
        }

    def __setstate__(self, state: dict) -> None:
        type(self).__init__(self, **state["kwargs"])
        if state["snapshot"] is not None:
            self.engine = self.engine_cls.from_dict(state["snapshot"])
        self.agents = list(state["agents"])
        self._last_step = state["last_step"]
        if "spaces" in state:
            self._obs_spaces, self._act_spaces, self.state_space = state["spaces"]

    @property
    def _last_result(self):
        """The engine's ``StepResult`` of the last step (``None`` after ``reset``)."""
        return None if self._last_step is None else self._last_step[2]

    def default_tick_bound(self) -> int:
        """The truncation limit when neither ``max_ticks`` nor ``max_cycles`` is given (games
        override it with their configuration's documented bound)."""
        return self.default_max_ticks

    def make_encoder(self) -> Encoder:
        """The observation encoder of this env (by default ``encoder_cls`` of the engine config; a game
        with observation-only options overrides this to pass them)."""
        return self.encoder_cls(self.engine_config)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[self.known_agent(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[self.known_agent(agent)]

    def known_agent(self, agent: str) -> str:
        """``agent`` if it is one of ``possible_agents``; else a ``KeyError`` that names them."""
        try:
            known = agent in self._act_spaces
        except TypeError:  # unhashable
            known = False
        if not known:
            what = shown(agent) if isinstance(agent, str) else f"{shown(agent)} (a {type(agent).__name__})"
            raise KeyError(f"{self.metadata['name']}: no such agent {what}; "
                           f"agents are {list(self.possible_agents)}")
        return agent

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new game. ``seed`` seeds the game's generator; without one
        the previous game's generator carries on (or OS entropy the first
        time). ``options={"snapshot": d}`` restores ``d`` (an engine
        snapshot) instead of dealing."""
        if options is not None and not isinstance(options, Mapping):
            raise ConfigError(f"{self.metadata['name']}.reset: options={shown(options)} is not allowed; allowed: None "
                              f"or a dict (known key: 'snapshot')")
        options = dict(options or {})
        if seed is not None:
            rng = make_rng(seed)
        elif self.engine is not None:  # the stream carries on, in a generator of the new game's own
            rng = copy_rng(self.engine.rng)
        else:
            rng = make_rng(None)
        # the warnings come before the game changes: under warnings-as-errors a refused reset
        # leaves the env as it was
        unknown = [k for k in options if k != "snapshot"]
        if unknown:
            keys = ", ".join(shown(k) for k in unknown[:10])
            if len(unknown) > 10:
                keys += f" and {len(unknown) - 10} more"
            logger.warn(f"{self.metadata['name']}.reset: ignoring unknown options {keys}; known: ['snapshot']")
        if "snapshot" in options and seed is not None:
            logger.warn(f"{self.metadata['name']}.reset: seed={shown(seed)} ignored: a snapshot carries its own "
                        "generator (give a seed or a snapshot)")
        if "snapshot" in options:
            self.restore(options["snapshot"], in_progress=True)
        else:
            self.engine = self.engine_cls(self.engine_config, rng)
        self._last_step = None
        self.agents = self.engine.live_agents()
        obs = {a: self._observe(a) for a in self.agents}
        infos = {a: self._reset_info(a) for a in self.agents}
        return obs, infos

    def _reset_info(self, agent: str) -> dict:
        info = {"tick": self.engine.tick, "action": 0, "blocked": False, "illegal_replaced": False}
        if self.verbose_infos:
            info.update(action_name=self.action_table.name(0), blocked_reason="", illegal_reason="")
        if self.mask_in_infos:
            info["action_mask"] = self.engine.action_mask(agent).copy()
        return info

    def _check_joint(self, actions: Any) -> None:
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before step()")
        if not self.agents:
            raise RuntimeError(f"{self.metadata['name']}: the episode is over; call reset()")
        if not isinstance(actions, Mapping):
            raise ActionFormatError(
                f"{self.metadata['name']}.step takes a dict {{agent: action index}} with one entry per live agent "
                f"({self.agents}); got {type(actions).__name__}"
            )

    def step(self, actions: Mapping[str, Any]):
        self._check_joint(actions)
        joint, replaced = self.engine.validate(actions, self.illegal_action)
        return self._step_validated(joint, replaced)

    def _step_validated(self, joint: dict[str, int], replaced: dict[str, str]):
        """One tick of an already validated joint action (the AEC form validates as agents submit)."""
        engine = self.engine
        acting = self.agents
        result = engine.step_validated(joint)
        terminated = engine.done
        truncated = (not terminated) and engine.tick >= self.max_ticks
        observe, mask = self.encoder.observe, engine.action_mask
        obs = {a: {"observation": observe(engine, a), "action_mask": mask(a).copy()} for a in acting}
        if truncated:  # the episode is over: noop is legal in the final masks, as after a game's end
            for o in obs.values():
                o["action_mask"][0] = 1
        rew = result.rewards
        rewards = {a: float(rew.get(a, 0.0)) for a in acting}
        terms = dict.fromkeys(acting, terminated)
        truncs = dict.fromkeys(acting, truncated)
        blocked = result.blocked
        tick = engine.tick
        over = terminated or truncated
        self._last_step = (joint, replaced, result, over)
        infos = {a: {"tick": tick, "action": joint[a], "blocked": a in blocked, "illegal_replaced": a in replaced}
                 for a in acting}
        if self.verbose_infos:
            details = self.last_step_details()
            for a in acting:
                infos[a].update(details[a])
        if self.mask_in_infos:
            for a in acting:
                infos[a]["action_mask"] = obs[a]["action_mask"].copy()
        self.agents = [] if (terminated or truncated) else engine.live_agents()
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def last_step_details(self) -> dict[str, dict]:
        """Per agent, the words behind the last step's compact infos (what ``infos="verbose"``
        adds): ``action_name``, ``blocked_reason``, ``illegal_reason``, the game's own entries
        (Frying Master: ``round_result`` at a round's end) and, once the episode is over,
        ``outcome``. After ``reset`` (before any step) every agent gets the noop entries."""
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before last_step_details()")
        names = self.action_table._names
        if self._last_step is None:
            return {a: {"action_name": names[0], "blocked_reason": "", "illegal_reason": ""}
                    for a in self.engine.live_agents()}
        joint, replaced, result, over = self._last_step
        out = {}
        for a, act in joint.items():
            d = {"action_name": names[act], "blocked_reason": result.blocked.get(a, ""),
                 "illegal_reason": replaced.get(a, "")}
            if a in result.info:  # (a copy: an info the caller edits must not edit the env's record)
                d.update(copy.deepcopy(result.info[a]))
            if over:  # (as this agent can know it: a truncation before the game's end shows no hidden card)
                d["outcome"] = self.engine.outcome_seen_by(a)
            out[a] = d
        return out

    def outcome(self) -> dict:
        """``engine.outcome()``: winners and scores (meaningful once the episode is over)."""
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before outcome()")
        return self.engine.outcome()

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = self.engine.action_mask(agent).copy()
        if not self.agents:
            mask[0] = 1  # after the episode's end (a truncation too, and a finished game restored) noop stays legal
        return {"observation": self.encoder.observe(self.engine, agent), "action_mask": mask}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The current observation of ``agent`` (as ``step`` would return it)."""
        if self.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before observe()")
        return self._observe(self.known_agent(agent))

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

    def restore(self, snapshot: Mapping[str, Any], in_progress: bool = False) -> None:
        """Continue from a snapshot of this env's engine and config.

        Raises SnapshotError (and keeps the current game exactly as it was)
        if the snapshot is of another game or config, or corrupt: the game's
        own checks run first (``load_state_dict``), then every live agent's
        observation and mask and the global state must lie in their declared
        spaces; only then is the new game installed. ``in_progress=True``
        (``reset(options={"snapshot": ...})``, which starts an episode) also
        refuses a game that is over."""
        engine = self.engine_cls.from_dict(snapshot)
        if in_progress and not engine.live_agents():
            raise SnapshotError(
                f"{self.metadata['name']}: reset(options={{'snapshot': ...}}) got a snapshot of a game that is over "
                f"(tick {engine.tick}, no agent left to act); reset starts an episode, so it takes a game in "
                f"progress (restore() shows a finished one)")
        if in_progress and engine.tick >= self.max_ticks:
            raise SnapshotError(
                f"{self.metadata['name']}: reset(options={{'snapshot': ...}}) got a snapshot at tick {engine.tick}, where "
                f"this env's episodes are cut (max_ticks={self.max_ticks}): its episode is over; reset starts an "
                f"episode, so it takes a game that can still step (restore() shows one that cannot)")
        if engine.config != self.engine_config:
            diff = differing_options(engine.config, self.engine_config)
            raise SnapshotError(
                f"{self.metadata['name']}: snapshot config differs from this env's in {diff}: "
                + ", ".join(f"{k}={engine.config.get(k)!r} vs {self.engine_config.get(k)!r}" for k in diff)
            )
        self._check_restored(engine)
        self.engine = engine
        # (a game at this env's tick bound is over, cut there: no seat acts, as after a truncated step)
        self.agents = engine.live_agents() if engine.tick < self.max_ticks else []
        self._last_step = None

    def _check_restored(self, engine: GameEngine) -> None:
        """A restored game must be playable: observations, masks and state inside their spaces."""
        layout = self.encoder.layout
        try:
            for a in engine.live_agents():
                obs = self.encoder.observe(engine, a)
                mask = engine.action_mask(a)
                space = self._obs_spaces[a]["observation"]
                if obs.shape != space.shape or not space.contains(obs.astype(np.float32, copy=False)):
                    raise SnapshotError(f"{self.metadata['name']}: the snapshot gives {a} an observation outside "
                                        f"its space (fields out of bounds: {layout.out_of_bounds(obs)})")
                if mask.shape != (self.action_table.n,) or not mask.any():
                    raise SnapshotError(f"{self.metadata['name']}: the snapshot leaves {a} without a legal action")
            state = self.encoder.global_state(engine)
            if state.shape != self.state_space.shape or not self.state_space.contains(state.astype(np.float32)):
                raise SnapshotError(f"{self.metadata['name']}: the snapshot gives a global state outside state_space")
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, ZeroDivisionError) as e:
            raise SnapshotError(f"{self.metadata['name']}: the snapshot does not make a playable game: "
                                f"{type(e).__name__}: {e}") from e

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


#: One float32 ``Box`` per distinct (low, high) built so far (a few per configuration), whose
#: deep copies the envs get: gymnasium's ``Box.__init__`` formats a bounds array that is not
#: uniform as text (for its ``repr``), which was 90% of building an env (2026-12-05).
_BOXES: dict[tuple, spaces.Box] = {}
_BOXES_MAX = 512


def _float_box(low: np.ndarray, high: np.ndarray) -> spaces.Box:
    """``spaces.Box(low, high, dtype=np.float32)``: a fresh object (its own arrays and generator),
    equal to one built so, deep-copied from the first one built for these bounds."""
    low, high = np.asarray(low), np.asarray(high)
    key = (low.dtype.str, low.shape, low.tobytes(), high.dtype.str, high.shape, high.tobytes())
    box = _BOXES.get(key)
    if box is None:
        if len(_BOXES) >= _BOXES_MAX:
            _BOXES.clear()
        box = _BOXES[key] = spaces.Box(low, high, dtype=np.float32)
    return copy.deepcopy(box)

