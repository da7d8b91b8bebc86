"""Throughput of a Kitchen Arena env through Tianshou's standard PettingZoo wrapper.

``measure(env_id)`` steps ``tianshou.env.PettingZooEnv(<game>.env(**config))``
(the AEC form, Tianshou's documented wrapper) with uniformly random legal
actions drawn from the ``mask`` the wrapper returns, then the same number of
agent-steps through a ``Collector`` over a one-env ``DummyVectorEnv`` with
Tianshou's masked random policy in a ``MultiAgentOffPolicyAlgorithm`` (what a
training loop pays per transition, buffer writes included), and our
``parallel_env`` stepped directly in the same process (``raw``).

An agent-step is one agent acting once: one ``PettingZooEnv.step`` call, one
Tianshou transition, or one entry of a parallel joint action.

    python -m envs.bench.integrations --library tianshou
"""

from __future__ import annotations

import time

import numpy as np

import envs
from envs.bench.integrations import raw_rate, small_config, timed_play
from envs.bench.harness import random_legal



def _wrapper_rate(env_id: str, config: dict, steps: int, seed: int) -> float:
    from tianshou.env.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(envs.get_env_module(env_id).env(**config))

    def step(obs, rng):
        obs, _rew, term, trunc, _info = env.step(random_legal(np.asarray(obs["mask"]), rng))
        return obs, 1, term or trunc

    rate = timed_play(lambda s: env.reset(seed=s)[0], step, steps, seed)
    env.close()
    return rate


def _collector_rate(env_id: str, config: dict, steps: int, seed: int) -> float:
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv

    mod = envs.get_env_module(env_id)

    def make():
        return PettingZooEnv(mod.env(**config))

    probe = make()
    algo = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=probe.action_space)
                    for _ in probe.agents],
        env=probe,
    )
    venv = DummyVectorEnv([make])
    venv.seed(seed)
    collector = Collector[CollectStats](algo, venv, VectorReplayBuffer(max(steps, 1), 1))
    state = np.random.get_state()  # Tianshou's random policy draws from numpy's global generator
    np.random.seed(seed)
    try:
        collector.reset()
        t0 = time.perf_counter()
        stats = collector.collect(n_step=steps)
        dt = time.perf_counter() - t0
    finally:
        np.random.set_state(state)
        venv.close()
    return stats.n_collected_steps / dt



def measure(env_id: str, steps: int = 2000, seed: int = 0, config: dict | None = None) -> dict:
    """Agent-steps per second of ``env_id`` through ``PettingZooEnv`` (random legal actions),
    through a Tianshou ``Collector``, and of our ``parallel_env`` stepped directly."""
    config = small_config(env_id) if config is None else dict(config)
    return {
        "library": "tianshou",
        "wrapper": "tianshou.env.PettingZooEnv(env())",
        "env_id": env_id,
        "config": config,
        "steps": int(steps),
        "agent_steps_per_s": _wrapper_rate(env_id, config, steps, seed),
        "collector_agent_steps_per_s": _collector_rate(env_id, config, steps, seed),
        "raw_agent_steps_per_s": raw_rate(env_id, config, steps, seed),
    }
