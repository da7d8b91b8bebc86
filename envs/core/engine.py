"""The rules-engine protocol every game implements, without PettingZoo.

A rules engine is a plain Python object holding the whole game state and one
``numpy.random.Generator``. It answers which actions are legal for each agent
(a flat index into the game's :class:`~envs.core.tables.ActionTable`), applies
a *joint* action (one action per live agent: one tick of table time), and can
be cloned and snapshotted to JSON and back, so planners, replays and tests can
use it directly::

    eng = WokStarEngine.new(config, seed=3)
    while not eng.done:
        joint = {a: policy(eng, a) for a in eng.live_agents()}
        result = eng.step(joint)
    snap = eng.to_dict()               # JSON-serialisable
    same = WokStarEngine.from_dict(snap)

Simultaneous actions are resolved by :class:`TickEngine` in a seeded random
order; an action that no longer fits the state when its turn comes (another
agent took the last card, say) is *blocked* and reported in
``StepResult.blocked`` with the reason.
"""

from __future__ import annotations

import copy
import json
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

import numpy as np

from envs.core.config import ConfigSpec
from envs.core.errors import ActionFormatError, ConfigError, IllegalActionError, SnapshotError
from envs.core.inputs import loads_json, shown
from envs.core.seeding import make_rng, rng_from_dict, rng_to_dict
from envs.core.tables import ActionTable

NOOP = ActionTable.NOOP
_SNAPSHOT_KEYS = ("engine", "version", "config", "tick", "rng", "state")  # exactly the keys of to_dict()


@dataclass
class StepResult:
    """What one tick did.

    ``rewards``: per agent, this tick. ``blocked``: agent -> why its (legal at
    submission) action could not take effect after earlier agents' actions in
    the resolution order. ``order``: the seeded order actions were applied in.
    ``events``: readable log lines. ``info``: extra per-agent data (JSON-able)
    that the adapter merges into ``infos``.
    """

    rewards: dict[str, float]
    blocked: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    info: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def empty(cls, agents) -> "StepResult":
        return cls(rewards={a: 0.0 for a in agents})

    def reward_all(self, amount: float) -> None:
        for a in self.rewards:
            self.rewards[a] += amount


class GameEngine(ABC):
    """Base of every rules engine.

    Subclasses set ``ENGINE_NAME`` and implement the classmethods
    ``agent_ids`` and ``action_table``, and ``_setup`` (a new game),
    ``_compute_mask``, ``why_illegal``, ``_resolve`` (apply a validated joint
    action), ``done``, ``state_dict`` and ``load_state_dict``; optionally
    ``outcome``. The snapshot wraps ``state_dict()`` with the engine name,
    version, config, tick and rng state. ``config`` is the engine's part of
    the env config (plain JSON-able values).
    """

    ENGINE_NAME: ClassVar[str] = "abstract"
    SNAPSHOT_VERSION: ClassVar[int] = 1
    #: True when ``load_state_dict`` keeps no reference into the dict it is given (it builds every
    #: container afresh): ``from_dict`` then skips its defensive deep copy (faster ``clone()``).
    LOAD_BUILDS_FRESH_STATE: ClassVar[bool] = False
    #: The options an engine's config holds, with their defaults and allowed values
    #: (:func:`envs.core.config.engine_options`); None: the config is taken as given.
    OPTIONS: ClassVar[ConfigSpec | None] = None

    # ------------------------------------------------------------------ construction
    def __init__(self, config: Mapping[str, Any], rng: np.random.Generator):
        """A fresh game of a complete, checked ``config`` (what an env gives its engine; see :meth:`new`)
        dealt with ``rng``, a PCG64 generator (the one kind a snapshot holds)."""
        if not isinstance(rng, np.random.Generator) or type(rng.bit_generator) is not np.random.PCG64:
            raise TypeError(f"{type(self).__name__}: rng must be a numpy Generator over PCG64 (as "
                            f"numpy.random.default_rng(seed) makes; snapshots hold only that kind), got "
                            + (f"a Generator over {type(rng.bit_generator).__name__}"
                               if isinstance(rng, np.random.Generator) else type(rng).__name__))
        self._init_common(dict(config), rng, 0)
        self._setup()

    @classmethod
    def new(cls, config: Mapping[str, Any] | None = None, seed: int | None = None) -> "GameEngine":
        """A fresh game with a generator seeded by ``seed``, of ``config`` completed and checked by
        :meth:`resolve_config` (an option left out takes its default)."""
        return cls(cls.resolve_config(config), make_rng(seed))

    @classmethod
    def resolve_config(cls, config: Mapping[str, Any] | None = None) -> dict:
        """``config`` with every option of :attr:`OPTIONS`, a left-out one at its default; an unknown
        option, a value not allowed or a combination the rules exclude is a ``ConfigError`` naming it
        and what is allowed (before anything is built)."""
        if config is not None and not isinstance(config, Mapping):
            raise ConfigError(f"{cls.__name__}: a config must be a dict of options, got {type(config).__name__}")
        if cls.OPTIONS is None:
            return dict(config or {})
        full = dict(cls.OPTIONS.resolve(config))
        try:
            cls.check_config(full)
        except SnapshotError as e:  # the snapshot check's words, said of a config
            raise ConfigError(f"{cls.__name__}: {str(e).removeprefix('snapshot field ')}") from None
        return full

    def _init_common(self, config: dict, rng: np.random.Generator, tick: int) -> None:
        self.config = config
        self.rng = rng
        self.tick = tick
        self._mask_cache: dict[str, np.ndarray] = {}
        self.agents: tuple[str, ...] = tuple(type(self).agent_ids(config))
        self.actions = type(self).action_table(config)

    @classmethod
    @abstractmethod
    def agent_ids(cls, config: Mapping[str, Any]) -> list[str]:
        """Agent names for a config (known before any game is dealt)."""

    @classmethod
    @abstractmethod
    def action_table(cls, config: Mapping[str, Any]) -> ActionTable:
        """The flat action table for a config (cache it: it is called per engine)."""

    @abstractmethod
    def _setup(self) -> None:
        """Deal a new game from ``self.config`` using ``self.rng``."""

    # ------------------------------------------------------------------ legality
    @abstractmethod
    def _compute_mask(self, agent: str) -> np.ndarray:
        """int8 mask over ``self.actions`` for ``agent`` in the current state."""

    @abstractmethod
    def _why_illegal(self, agent: str, action: int) -> str:
        """A short reason why ``action`` (an index in range) is not legal for ``agent`` (one of
        ``agents``) now, in a game not over."""

    def why_illegal(self, agent: str, action: int) -> str:
        """A short reason why ``action`` is not legal for ``agent`` now ("legal now" where it is);
        an unknown agent, an action that is not an index in range or a finished game is said so."""
        try:
            self.check_agent(agent)
            a = self.check_action_type(agent, action)
        except KeyError as e:
            return e.args[0]
        except IllegalActionError as e:
            return e.reason
        if self.done:
            return "the game is over"
        return self._why_illegal(agent, a)

    def check_agent(self, agent: str) -> None:
        """A ``KeyError`` naming the agents where ``agent`` is not one of them."""
        if not (isinstance(agent, str) and agent in self.agents):
            raise KeyError(f"no such agent {shown(agent)}; agents are {list(self.agents)}")

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal-action mask (cached until the state changes): a read-only array."""
        m = self._mask_cache.get(agent) if isinstance(agent, str) else None
        if m is None:
            self.check_agent(agent)
            if self.done:
                m = self._noop_only_mask()
            else:
                m = np.asarray(self._compute_mask(agent), dtype=np.int8)
            self._mask_cache[agent] = m
        return m

    def masks_into(self, out: np.ndarray) -> None:
        """Every seat's legal-action mask, in seat order (``self.agents``), written into
        ``out`` (int8 ``(len(agents), A)``): row ``k`` equals ``action_mask(agents[k])``.
        The batched env's path when every seat acts; an engine that builds every seat's
        mask in one array overrides it with one copy."""
        for k, agent in enumerate(self.agents):
            out[k] = self.action_mask(agent)

    def _noop_only_mask(self) -> np.ndarray:
        """After the game only ``noop`` is legal: a wrapper that
        auto-resets, or an AEC agent stepping out with ``None``, still finds a legal action."""
        m = self.actions.mask()
        m[NOOP] = 1
        m.flags.writeable = False
        return m

    def default_action(self, agent: str) -> int:
        """The legal action that ``illegal_action="noop"`` puts in place of an illegal one:
        ``noop`` where it is legal (nearly always), else the game's documented default
        (base rule: the lowest legal index). Never stalls a game whose mask hides ``noop``."""
        m = self.action_mask(agent)
        if m[NOOP]:
            return NOOP
        legal = np.flatnonzero(m)
        return int(legal[0]) if legal.size else NOOP

    #: How many times :meth:`invalidate_masks` was called: the state changed outside ``step`` (the
    #: batched env re-checks a game that changed between its steps; a batch observer re-reads it).
    _edits: int = 0

    def invalidate_masks(self) -> None:
        """Call after any state change made outside ``step``."""
        self._mask_cache.clear()
        self._edits += 1

    def legal_actions(self, agent: str) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.action_mask(agent))]

    def live_agents(self) -> list[str]:
        return [] if self.done else list(self.agents)

    @property
    @abstractmethod
    def done(self) -> bool:
        """True once the game is over (terminal state)."""

    # ------------------------------------------------------------------ stepping
    def check_action_type(self, agent: str, action: Any) -> int:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (numbers.Integral, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
                action = int(action)
            else:
                raise IllegalActionError(
                    agent, action, "?", f"an action must be an integer index in 0..{self.actions.n - 1}, got {type(action).__name__}"
                )
        a = int(action)
        if not 0 <= a < self.actions.n:
            raise IllegalActionError(agent, a, "?", f"index out of range: valid indices are 0..{self.actions.n - 1}")
        return a

    def validate(self, joint: Mapping[str, Any], illegal_action: str = "raise") -> tuple[dict[str, int], dict[str, str]]:
        """Check a joint action against the current masks.

        Returns ``(clean_joint, replaced)``: with ``illegal_action="noop"``,
        illegal actions are replaced by ``noop`` and ``replaced[agent]`` says
        why. With ``"raise"`` the first illegal action raises
        :class:`IllegalActionError`. Nothing is applied either way.
        """
        if not isinstance(joint, Mapping):
            raise ActionFormatError(f"{self.ENGINE_NAME}: a joint action is a dict {{agent: action index}} with one "
                                    f"entry per live agent ({self.live_agents()}); got {type(joint).__name__}")
        if illegal_action not in ("raise", "noop"):
            raise ValueError(f"{self.ENGINE_NAME}: illegal_action must be 'raise' or 'noop', got {shown(illegal_action)}")
        if self.done:
            raise IllegalActionError(
                f"{self.ENGINE_NAME}: the game is over (tick {self.tick}): a finished game takes no more steps, "
                f"whatever the actions (its masks show noop only, for wrappers and AEC agents stepping out); "
                f"start a new one (new() or from_dict())")
        live = self.live_agents()
        if len(joint) != len(live) or not all(a in joint for a in live):  # else: exactly the live agents
            unknown = [a for a in joint if a not in self.agents]
            if unknown:
                raise IllegalActionError(unknown[0], joint[unknown[0]], "?",
                                         f"no such agent; agents are {list(self.agents)}")
            missing = [a for a in live if a not in joint]
            if missing:
                wait = self.default_action(missing[0])  # noop, or where noop is illegal the game's default
                raise IllegalActionError(
                    missing[0], None, "-",
                    f"every live agent must submit an action each tick (missing: {missing}); "
                    + (f"use {NOOP} (noop) to wait" if wait == NOOP else f"noop is not legal now (its default: {wait}, "
                                                                          f"{self.actions.name(wait)})"),
                    self.actions.names(self.legal_actions(missing[0])))
        clean: dict[str, int] = {}
        replaced: dict[str, str] = {}
        for agent in live:
            a, why = self.check_one(agent, joint[agent], illegal_action)
            if why is not None:
                replaced[agent] = why
            clean[agent] = a
        return clean, replaced

    def check_one(self, agent: str, raw: Any, illegal_action: str = "raise") -> tuple[int, str | None]:
        """Check one agent's action against its mask (the mask is the truth: an action is
        accepted if and only if the mask allows it, ``noop`` included).

        Returns ``(action, None)`` for a legal action. An illegal one raises
        :class:`IllegalActionError` (``"raise"``) or, with ``"noop"``, returns
        ``(default_action(agent), reason)``. Changes nothing."""
        n = self.actions.n
        if type(raw) is int and 0 <= raw < n:  # the common case, without the checks' overhead
            a = raw
        else:
            try:
                a = self.check_action_type(agent, raw)
            except IllegalActionError:
                if illegal_action == "noop":
                    return self.default_action(agent), f"action {shown(raw)} is not an integer in 0..{n - 1}"
                raise
        if not self.action_mask(agent)[a]:
            reason = self.why_illegal(agent, a)
            if illegal_action == "noop":
                return self.default_action(agent), f"{self.actions.name(a)}: {reason}"
            raise IllegalActionError(agent, a, self.actions.name(a), reason, self.actions.names(self.legal_actions(agent)))
        return a, None

    def step(self, joint: Mapping[str, Any]) -> StepResult:
        """Apply one joint action (one tick). Raises before changing anything
        if an action is illegal. ``noop`` (index 0) is what a player does by
        doing nothing; it is legal wherever the mask says so (in every game
        except for a player who must decide now, as a Waroong Wars drafter)."""
        clean, _ = self.validate(joint, "raise")
        return self.step_validated(clean)

    def step_validated(self, joint: dict[str, int]) -> StepResult:
        self._mask_cache.clear()
        result = self._resolve(joint)
        self._mask_cache.clear()
        return result

    @abstractmethod
    def _resolve(self, joint: dict[str, int]) -> StepResult:
        """Apply a validated joint action and advance one tick."""

    def outcome(self) -> dict:
        """The result so far, by convention::

            {"winners": [agent, ...],      # cooperative: every agent, or none
             "scores": {agent: float},     # the game's own score (VP, $, ...)
             ...}                          # game-specific extras (JSON-able)

        Meaningful once ``done``; training and evaluation read it. It is the referee's record: before
        the game's end it may count what some seats cannot see (:meth:`outcome_seen_by`)."""
        return {"winners": [], "scores": {a: 0.0 for a in self.agents}}

    def outcome_seen_by(self, agent: str) -> dict:
        """:meth:`outcome` as ``agent`` can know it, for what a player is shown (its infos at an episode's
        end). Once the game is over its scoring is shown to every player, so this is the outcome. A game
        whose result so far counts hidden cards (Waroong Wars' face-down customers) overrides it for
        an episode cut before the end (a truncation). Default: the outcome."""
        self.check_agent(agent)
        return self.outcome()

    # ------------------------------------------------------------------ snapshots
    @abstractmethod
    def state_dict(self) -> dict:
        """The game-specific state as JSON-able data (no numpy types)."""

    @abstractmethod
    def load_state_dict(self, state: dict) -> None:
        """Restore the game-specific state (inverse of ``state_dict``)."""

    def to_dict(self) -> dict:
        """A JSON-serialisable snapshot of the whole engine, rng included."""
        return {
            "engine": self.ENGINE_NAME,
            "version": self.SNAPSHOT_VERSION,
            "config": copy.deepcopy(self.config),
            "tick": self.tick,
            "rng": rng_to_dict(self.rng),
            "state": self.state_dict(),
        }

    @classmethod
    def from_dict(cls, snapshot: Mapping[str, Any]) -> "GameEngine":
        """Rebuild an engine from :meth:`to_dict` output.

        Raises :class:`SnapshotError` for a snapshot of another engine or
        version, or one whose content does not load.
        """
        if not isinstance(snapshot, Mapping):
            raise SnapshotError(f"a snapshot must be a dict, got {type(snapshot).__name__}")
        missing = [k for k in _SNAPSHOT_KEYS if k not in snapshot]
        if missing:
            raise SnapshotError(f"snapshot lacks {missing}")
        extra = [k for k in snapshot if k not in _SNAPSHOT_KEYS]
        if extra:
            raise SnapshotError(f"snapshot has unknown keys {shown(sorted(map(str, extra)), 120)}; a snapshot has "
                                f"exactly {list(_SNAPSHOT_KEYS)}")
        if snapshot["engine"] != cls.ENGINE_NAME:
            raise SnapshotError(f"snapshot is of engine {shown(snapshot['engine'], 60)}, expected {cls.ENGINE_NAME!r}")
        if type(snapshot["version"]) is not int or snapshot["version"] != cls.SNAPSHOT_VERSION:
            raise SnapshotError(
                f"snapshot version {shown(snapshot['version'], 60)} does not match engine version {cls.SNAPSHOT_VERSION} "
                f"(an integer)"
            )
        tick = snapshot["tick"]
        if isinstance(tick, bool) or not isinstance(tick, numbers.Integral) or not 0 <= tick < 10 ** 9:
            raise SnapshotError(f"snapshot field tick: must be an integer >= 0, got {shown(tick, 40)}")
        config = snapshot["config"]
        if not isinstance(config, Mapping) or not all(isinstance(k, str) for k in config) or not all(
                v is None or isinstance(v, (bool, int, float, str)) for v in config.values()):
            raise SnapshotError(f"snapshot field config: must be an object of plain option values, got {shown(config, 80)}")
        if not isinstance(snapshot["state"], Mapping):
            raise SnapshotError(f"snapshot field state: must be an object, got {type(snapshot['state']).__name__}")
        obj = cls.__new__(cls)
        try:
            rng = rng_from_dict(snapshot["rng"])
        except SnapshotError as e:  # (its own message named the field already: it had read twice)
            said = str(e)
            raise SnapshotError(said if said.startswith("snapshot field rng")
                                else f"snapshot field rng: {said}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError) as e:
            raise SnapshotError(f"snapshot field rng: not a generator state this engine can load "
                                f"({type(e).__name__}: {shown(str(e), 120)})") from e
        try:
            cls.check_config(config)
            obj._init_common(copy.deepcopy(dict(config)), rng, int(tick))
            state = dict(snapshot["state"]) if cls.LOAD_BUILDS_FRESH_STATE else copy.deepcopy(dict(snapshot["state"]))
            obj.load_state_dict(state)
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError,
                ZeroDivisionError) as e:
            raise SnapshotError(f"corrupt {cls.ENGINE_NAME} snapshot: {type(e).__name__}: {shown(str(e), 300)}") from e
        return obj

    @classmethod
    def check_config(cls, config: Mapping[str, Any]) -> None:
        """Hook: refuse a snapshot's engine config (``SnapshotError`` naming the option) before
        anything is built from it. Default: nothing beyond the plain-values check."""

    def clone(self) -> "GameEngine":
        """An independent deep copy (its own rng in the same state)."""
        return type(self).from_dict(self.to_dict())

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "GameEngine":
        return cls.from_dict(loads_json(text, "snapshot", SnapshotError))


class TickEngine(GameEngine):
    """A game played in ticks where all agents act at once.

    ``_resolve`` runs, in order: ``begin_tick``; each non-noop action in a
    seeded random order, skipping (blocking) any that ``conflict`` says can no
    longer take effect; ``end_tick`` (timers, triggers, end checks). The tick
    counter then advances.
    """

    def _resolve(self, joint: dict[str, int]) -> StepResult:
        result = StepResult.empty(self.agents)
        self.begin_tick(joint, result)
        acting = [a for a in self.agents if joint.get(a, NOOP) != NOOP]
        if len(acting) > 1:
            acting = [acting[i] for i in self.rng.permutation(len(acting))]
        result.order = list(acting)
        for agent in acting:
            action = joint[agent]
            reason = self.conflict(agent, action)
            if reason is not None:
                result.blocked[agent] = reason
                continue
            self.apply(agent, action, result)
            self._mask_cache.clear()
        self.end_tick(joint, result)
        self.tick += 1
        return result

    def begin_tick(self, joint: dict[str, int], result: StepResult) -> None:
        """Hook before actions resolve (default: nothing)."""

    def conflict(self, agent: str, action: int) -> str | None:
        """None if ``action`` can still take effect now, else why not.

        Default: re-check the mask against the state left by the actions
        resolved earlier this tick.
        """
        if self.action_mask(agent)[action]:
            return None
        return "pre-empted by another player this tick: " + self.why_illegal(agent, action)

    @abstractmethod
    def apply(self, agent: str, action: int, result: StepResult) -> None:
        """Apply one legal, non-noop action."""

    def end_tick(self, joint: dict[str, int], result: StepResult) -> None:
        """Hook after actions resolve: run clocks, check the end (default: nothing)."""
