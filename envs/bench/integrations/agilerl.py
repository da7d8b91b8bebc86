"""Throughput of a Kitchen Arena env through AgileRL's PettingZoo vector env.

``measure(env_id)`` steps

    agilerl.vector.pz_async_vec_env.AsyncPettingZooVecEnv(
        [lambda: envs.integrations.agilerl.parallel_env(env_id, **config)] * num_envs)

(what AgileRL's ``IPPO`` and ``train_multi_agent_on_policy`` step, see
``docs/integrations.md``) with uniformly random legal actions drawn from each
agent's ``info["action_mask"]``, then the same through ``MaskedIPPO.get_action``
(a small untrained MLP choosing masked actions: what a rollout pays per
transition, policy included), and our ``parallel_env`` stepped directly in the
same process (``raw``). An agent-step is one agent acting once: one entry of
one joint action of one worker's game. Every worker is a separate process, so
on a machine with fewer free cores than workers the vec-env figure is bound by
the pipe round trip and the scheduler, not by the game.

Needs AgileRL's venv (it pins tensordict==0.13.0):

    /path/to/agilerl-venv/bin/python -m envs.bench.integrations --library agilerl
"""

from __future__ import annotations

import time

import numpy as np

from envs.bench.integrations import raw_rate, small_config
from envs.bench.harness import random_legal
from envs.core.seeding import make_rng



def make_vec_env(env_id: str, config: dict, num_envs: int = 2):
    """The vector env a user builds for AgileRL (see ``docs/integrations.md``)."""
    from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv

    from envs.integrations.agilerl import parallel_env

    return AsyncPettingZooVecEnv([lambda: parallel_env(env_id, **config) for _ in range(num_envs)])


def _vec_rate(env_id: str, config: dict, steps: int, seed: int, num_envs: int, policy: bool) -> float:
    vec = make_vec_env(env_id, config, num_envs)
    try:
        agents = list(vec.agents)
        rng = make_rng(seed)
        agent = None
        if policy:
            import torch

            from envs.integrations.agilerl import MaskedIPPO

            torch.manual_seed(seed)
            agent = MaskedIPPO([vec.single_observation_space(a) for a in agents],
                               [vec.single_action_space(a) for a in agents], agent_ids=agents,
                               net_config={"encoder_config": {"hidden_size": [64]},
                                           "head_config": {"hidden_size": [64]}})
        obs, info = vec.reset(seed=seed)
        per_step = num_envs * len(agents)  # every agent acts every tick; workers auto-reset
        done = 0
        t0 = time.perf_counter()
        while done < steps:
            if agent is None:
                actions = {a: np.fromiter((random_legal(m, rng) for m in info[a]["action_mask"]),
                                          dtype=np.int64, count=num_envs) for a in agents}
            else:
                actions, *_ = agent.get_action(obs=obs, infos=info)
            obs, _rew, _term, _trunc, info = vec.step(actions)
            done += per_step
        dt = time.perf_counter() - t0
    finally:
        vec.close()
    return done / dt



def measure(env_id: str, steps: int = 2000, seed: int = 0, config: dict | None = None,
            num_envs: int = 2) -> dict:
    """Agent-steps per second of ``env_id`` through AgileRL's ``AsyncPettingZooVecEnv``
    (``num_envs`` workers, random legal actions from the infos' masks), through the same
    with ``MaskedIPPO`` choosing the actions, and of our ``parallel_env`` stepped directly."""
    config = small_config(env_id) if config is None else dict(config)
    return {
        "library": "agilerl",
        "wrapper": f"agilerl.vector.AsyncPettingZooVecEnv({num_envs} x envs.integrations.agilerl.parallel_env())",
        "env_id": env_id,
        "config": config,
        "num_envs": int(num_envs),
        "steps": int(steps),
        "agent_steps_per_s": _vec_rate(env_id, config, steps, seed, num_envs, policy=False),
        "ippo_agent_steps_per_s": _vec_rate(env_id, config, steps, seed, num_envs, policy=True),
        "raw_agent_steps_per_s": raw_rate(env_id, config, steps, seed),
    }
