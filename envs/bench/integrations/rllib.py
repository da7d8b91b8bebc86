"""Throughput of a Kitchen Arena env through Ray RLlib's standard PettingZoo wrappers.

``measure(env_id)`` steps ``ray.rllib.env.wrappers.pettingzoo_env.ParallelPettingZooEnv(
<game>.parallel_env(**config))`` (RLlib's wrapper of a ParallelEnv: a dict of actions for every
agent in the last observation dict) with uniformly random legal actions drawn from each agent's
``action_mask``; the same through ``PettingZooEnv(<game>.env(**config))`` (RLlib's AEC wrapper:
one agent per ``step``; ``aec_agent_steps_per_s``); and our ``parallel_env`` stepped directly in
the same process (``raw``). No Ray runtime is started: the wrappers are plain Python objects.

``env_runner_agent_steps_per_s`` is what RLlib's sampler pays per agent-step: a local
``MultiAgentEnvRunner`` built from :func:`envs.integrations.rllib.masked_ppo_config` (parallel
form) sampling with the untrained masked PPO module (legal actions from its masked
distribution, not uniform: connectors, a torch forward pass per step and episode bookkeeping
included; torch on one thread). Skip it with ``env_runner=False``.

An agent-step is one agent acting once: one entry of a joint action dict (parallel) or one
``PettingZooEnv.step`` call (AEC).

    python -m envs.bench.integrations --library rllib
"""

from __future__ import annotations

import time

import envs
from envs.bench.integrations import raw_rate, small_config, timed_play
from envs.bench.harness import random_legal



def _parallel_wrapper_rate(env_id: str, config: dict, steps: int, seed: int) -> float:
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    env = ParallelPettingZooEnv(envs.get_env_module(env_id).parallel_env(**config))

    def step(obs, rng):
        actions = {a: random_legal(o["action_mask"], rng) for a, o in obs.items()}
        obs, _rew, term, trunc, _info = env.step(actions)
        return obs, len(actions), term["__all__"] or trunc["__all__"]

    rate = timed_play(lambda s: env.reset(seed=s)[0], step, steps, seed)
    env.close()
    return rate


def _aec_wrapper_rate(env_id: str, config: dict, steps: int, seed: int) -> float:
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(envs.get_env_module(env_id).env(**config))

    def step(obs, rng):
        # The wrapper returns the observation of the agent to act next (plus, at the end, the
        # final observations of every agent; then the episode is over).
        actions = {a: random_legal(o["action_mask"], rng) for a, o in obs.items()}
        obs, _rew, term, trunc, _info = env.step(actions)
        return obs, 1, term["__all__"] or trunc["__all__"]

    rate = timed_play(lambda s: env.reset(seed=s)[0], step, steps, seed)
    env.close()
    return rate


def _env_runner_rate(env_id: str, config: dict, steps: int, seed: int) -> float:
    import torch
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from envs.integrations.rllib import masked_ppo_config

    players = len(envs.get_env_module(env_id).parallel_env(**config).possible_agents)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one sampler core, as an EnvRunner actor has (and no spin-waiting threads)
    runner = MultiAgentEnvRunner(config=masked_ppo_config(env_id, config, form="parallel", seed=seed))
    try:
        runner.sample(num_timesteps=min(steps, 100))  # warm-up: first reset, module, connectors
        t0 = time.perf_counter()
        # ``num_timesteps`` counts env steps; every agent acts in each (parallel form).
        episodes = runner.sample(num_timesteps=max(1, steps // players))
        dt = time.perf_counter() - t0
        done = sum(ep.agent_steps() for ep in episodes)
    finally:
        runner.stop()
        torch.set_num_threads(threads)
    return done / dt


def measure(env_id: str, steps: int = 2000, seed: int = 0, config: dict | None = None,
            env_runner: bool = True) -> dict:
    """Agent-steps per second of ``env_id`` through ``ParallelPettingZooEnv`` and ``PettingZooEnv``
    (random legal actions), and of our ``parallel_env`` stepped directly (each the best of two runs of
    ``steps`` agent-steps)."""
    config = small_config(env_id) if config is None else dict(config)

    def best(rate) -> float:  # best of two runs: the first also warms caches up on a shared machine
        return max(rate(env_id, config, steps, seed) for _ in range(2))

    out = {
        "library": "rllib",
        "wrapper": "ray.rllib.env.wrappers.pettingzoo_env.ParallelPettingZooEnv(parallel_env())",
        "env_id": env_id,
        "config": config,
        "steps": int(steps),
        "agent_steps_per_s": best(_parallel_wrapper_rate),
        "aec_wrapper": "ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv(env())",
        "aec_agent_steps_per_s": best(_aec_wrapper_rate),
        "raw_agent_steps_per_s": best(raw_rate),
    }
    if env_runner:
        out["env_runner"] = "ray.rllib.env.multi_agent_env_runner.MultiAgentEnvRunner(masked_ppo_config(...)).sample"
        out["env_runner_agent_steps_per_s"] = _env_runner_rate(env_id, config, steps, seed)
    return out
