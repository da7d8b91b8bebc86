"""Timing one configuration: seeded random legal play, counted and timed.

A :class:`Driver` says how to build an env and play one episode of it; the
harness runs ``repeats`` timed runs of ``games`` episodes each and keeps the
raw counts and seconds of every run. Every run replays the same games (a
fresh generator from ``seed`` for the actions, episode ``g`` reset with
``seed + g``), so repeats differ only by machine noise, not by the work.

Per episode the clock is read three times: before ``reset``, after it, and
after the last step; reset seconds and step seconds are kept apart. Step
seconds include drawing the random legal actions from the masks, as a
training loop must.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from envs.bench.stats import summarize
from envs.core.seeding import make_rng

Clock = Callable[[], float]

#: Joint steps of the untimed warm-up before the timed runs (fills caches).
WARMUP_STEPS = 20


@dataclass
class Episode:
    """Counts and seconds of one played episode."""

    agent_steps: int
    joint_steps: int
    reset_s: float
    step_s: float


@dataclass
class Driver:
    """How to build one env and play one episode of it with random legal actions.

    ``episode(env, rng, seed, clock, max_joint_steps)`` resets ``env`` with
    ``seed``, plays (at most ``max_joint_steps`` joint steps when given) and
    returns an :class:`Episode`."""

    name: str
    make: Callable[[], Any]
    episode: Callable[..., Episode]
    players: int | None = None
    env_id: str | None = None
    kwargs: dict = field(default_factory=dict)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """One action drawn uniformly from the legal ones of ``mask``."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def play_parallel_episode(env, rng: np.random.Generator, seed: int, clock: Clock = time.perf_counter,
                          max_joint_steps: int | None = None) -> Episode:
    """A Kitchen Arena ParallelEnv: every acting agent (``env.agents``) acts
    each step, its action drawn from the mask ``env.step`` (or ``reset``)
    returned for it; agent-steps = acting agents summed over steps."""
    t0 = clock()
    obs, _ = env.reset(seed=seed)
    t1 = clock()
    agent_steps = joint_steps = 0
    while env.agents:
        if max_joint_steps is not None and joint_steps >= max_joint_steps:
            break
        actions = {a: random_legal(obs[a]["action_mask"], rng) for a in env.agents}
        agent_steps += len(actions)
        obs, _, _, _, _ = env.step(actions)
        joint_steps += 1
    t2 = clock()
    return Episode(agent_steps, joint_steps, t1 - t0, t2 - t1)


def parallel_driver(cfg) -> Driver:
    """The driver of one of our configurations (an ``envs.EnvConfiguration``)."""
    return Driver(name=cfg.name, make=cfg.parallel_env, episode=play_parallel_episode,
                  players=cfg.kwargs.get("players"), env_id=cfg.env_id, kwargs=dict(cfg.kwargs))


@dataclass
class Run:
    """One timed run: ``episodes`` games played back to back."""

    agent_steps: int
    joint_steps: int
    episodes: int
    reset_s: float
    step_s: float

    @property
    def agent_steps_per_s(self) -> float:
        return self.agent_steps / self.step_s

    @property
    def joint_steps_per_s(self) -> float:
        return self.joint_steps / self.step_s

    @property
    def episodes_per_s(self) -> float:
        return self.episodes / (self.reset_s + self.step_s)

    @property
    def reset_ms(self) -> float:
        return 1000.0 * self.reset_s / self.episodes


def time_run(driver: Driver, env, games: int, seed: int, clock: Clock = time.perf_counter) -> Run:
    rng = make_rng(seed)
    eps = [driver.episode(env, rng, seed + g, clock) for g in range(games)]
    return Run(agent_steps=sum(e.agent_steps for e in eps), joint_steps=sum(e.joint_steps for e in eps),
               episodes=games, reset_s=sum(e.reset_s for e in eps), step_s=sum(e.step_s for e in eps))


@dataclass
class Measurement:
    """Every timed run of one driver, plus its peak memory (MiB) if measured."""

    driver: Driver
    runs: list[Run]
    peak_mib: float | None = None

    @property
    def name(self) -> str:
        return self.driver.name

    def figure(self, attr: str) -> dict:
        return summarize([getattr(r, attr) for r in self.runs])

    def median(self, attr: str) -> float:
        return self.figure(attr)["median"]

    def to_json(self) -> dict:
        first = self.runs[0]
        return {
            "name": self.driver.name,
            "env_id": self.driver.env_id,
            "kwargs": dict(self.driver.kwargs),
            "players": self.driver.players,
            "episodes_per_run": first.episodes,
            "agent_steps_per_run": first.agent_steps,
            "joint_steps_per_run": first.joint_steps,
            "steps_per_episode": first.joint_steps / first.episodes,
            "agent_steps_per_s": self.figure("agent_steps_per_s"),
            "joint_steps_per_s": self.figure("joint_steps_per_s"),
            "episodes_per_s": self.figure("episodes_per_s"),
            "reset_ms": self.figure("reset_ms"),
            "peak_memory_mib": self.peak_mib,
        }


def measure(driver: Driver, games: int, repeats: int, seed: int = 0, memory: bool = True,
            clock: Clock = time.perf_counter) -> Measurement:
    """Warm up, time ``repeats`` runs of ``games`` episodes, then (untimed,
    under tracemalloc) the peak memory of one reset + one episode."""
    if games < 1 or repeats < 1:
        raise ValueError("games and repeats must be at least 1")
    env = driver.make()
    driver.episode(env, make_rng(seed), seed, clock, WARMUP_STEPS)
    runs = [time_run(driver, env, games, seed, clock) for _ in range(repeats)]
    peak = None
    if memory:
        from envs.bench.memory import episode_peak_mib

        peak = episode_peak_mib(driver, seed)
    return Measurement(driver, runs, peak)
