"""Env-stepping throughput through each library's standard wrapper.

One module per library (``torchrl``, ``tianshou``, ``sb3``, ``agilerl``,
``rllib``), each with ``measure(env_id, steps=2000, seed=0) -> dict``: random
legal actions stepped through the library's own PettingZoo wrapper, beside
our ``parallel_env`` stepped directly in the same process
(``raw_agent_steps_per_s``). ``python -m envs.bench.integrations`` runs every
library installed in this environment, side by side, in one run; the figures
are in ``docs/integrations.md``. Agent-steps: one agent acting once.
"""

from __future__ import annotations

import time
from typing import Any

import envs
from envs.bench.harness import random_legal
from envs.core.seeding import make_rng

LIBRARIES: tuple[str, ...] = ("torchrl", "tianshou", "sb3", "agilerl", "rllib")


def small_config(env_id: str) -> dict[str, Any]:
    """The smallest test configuration of ``env_id`` (fewest players, default options)."""
    return dict(envs.get_env_module(env_id).TEST_CONFIGURATIONS[0])


def timed_play(reset, step, steps: int, seed: int) -> float:
    """Agent-steps per second of random legal play through any wrapper: ``reset(seed) -> obs``
    deals a game; ``step(obs, rng) -> (obs, agent_steps, over)`` plays one step of uniformly
    random legal actions. Games are dealt with seeds ``seed``, ``seed + 1``, ... until
    ``steps`` agent-steps are done."""
    rng = make_rng(seed)
    episode = 0
    obs = reset(seed)
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        obs, n, over = step(obs, rng)
        done += n
        if over:
            episode += 1
            obs = reset(seed + episode)
    return done / (time.perf_counter() - t0)


def raw_rate(env_id: str, config: dict, steps: int, seed: int) -> float:
    """Agent-steps per second of our ``parallel_env`` stepped directly with random legal actions."""
    env = envs.get_env_module(env_id).parallel_env(**config)

    def step(obs, rng):
        actions = {a: random_legal(obs[a]["action_mask"], rng) for a in env.agents}
        obs, *_ = env.step(actions)
        return obs, len(actions), not env.agents

    return timed_play(lambda s: env.reset(seed=s)[0], step, steps, seed)
