"""The policy protocol shared by baselines, heuristics and trained agents.

A policy chooses one agent's action from that agent's observation (the
``{"observation", "action_mask"}`` dict). Scripted policies may also read the
env to plan, but only through information that agent could see at the table
(each game's ``public_view``); they never read hidden cards or deck order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from envs.core.seeding import make_rng


class Policy(ABC):
    """Chooses actions for any seat of one game."""

    name: str = "policy"

    #: True when, for an agent with exactly one legal action, :meth:`act` returns it and changes
    #: nothing (remembers nothing, draws no random number): a caller may then play the move
    #: without building the observation or asking (the search player's rollouts do).
    forced_moves_free: bool = False

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of each episode."""

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray], agent: str, env: Any = None) -> int:
        """One legal action index for ``agent``."""

    def overruled(self, agent: str, chosen: int, played: int) -> None:
        """Told after :meth:`act` that ``played``, not the ``chosen`` action it returned, was
        played for ``agent`` (a behaviour-cloning teacher that only labels a student's DAgger
        games). A policy that remembers its own actions corrects that memory; by default nothing."""

    def overruled_by_search(self, agent: str, chosen: int, played: int) -> None:
        """Told after :meth:`act` that the search player whose table policy it is (``planner``)
        played ``played`` over the ``chosen`` action it returned for ``agent``. A policy that
        remembers its own actions corrects that memory; by default nothing. (Apart from
        :meth:`overruled`, so that a DAgger teacher's labels stay those its shipped runs were made with.)"""


class RandomLegalPolicy(Policy):
    """Uniformly random among the legal actions (the mask)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: dict[str, np.ndarray], agent: str, env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action")
        return int(legal[self.rng.integers(legal.size)])


def table_engine(env: Any, engine_name: str, who: str = "HeuristicPolicy") -> Any:
    """The rules engine whose public view a game's scripted policy reads, checked: the env is
    given, has a game (``reset`` was called), and plays that policy's game (another game's env
    failed deep inside, e.g. ``'PublicView' object has no attribute 'my_seat'``)."""
    who = f"{engine_name}'s {who}"
    if env is None:
        raise ValueError(f"{who} needs the env: it reads engine.public_view(agent)")
    engine = getattr(getattr(env, "unwrapped", env), "engine", None)
    if engine is None:
        raise RuntimeError(f"{who}: the env has no game yet; call env.reset() first")
    name = getattr(engine, "ENGINE_NAME", type(engine).__name__)
    if name != engine_name:
        raise ValueError(f"{who} plays {engine_name}; the env given plays {name}: make the policy for that env")
    return engine


def random_legal_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])
