"""Throughput of a Kitchen Arena env through SuperSuit's SB3 vec-env chain plus our mask wrapper.

``measure(env_id)`` steps

    ActionMaskVecEnv(supersuit.concat_vec_envs_v1(
        supersuit.pettingzoo_env_to_vec_env_v1(<game>.parallel_env(**config)),
        num_vec_envs, num_cpus=0, base_class="stable_baselines3"))

(what ``MaskablePPO`` steps, see ``envs.integrations.sb3``) with uniformly random legal
actions drawn from ``venv.action_masks()``, and our ``parallel_env`` stepped directly in the
same process (``raw``). An agent-step is one agent acting once: one slot of one
``VecEnv.step`` (SuperSuit gives every seat of every game a slot), or one entry of a
parallel joint action. No policy runs: this is what the env side of a training loop costs.

    python -m envs.bench.integrations --library sb3
"""

from __future__ import annotations

import time

import numpy as np

import envs
from envs.bench.integrations import raw_rate, small_config
from envs.bench.harness import random_legal
from envs.core.seeding import make_rng



def make_venv(env_id: str, config: dict, num_vec_envs: int = 4, num_cpus: int = 0):
    """The chain a user builds for MaskablePPO (see ``docs/integrations.md``)."""
    import supersuit as ss

    from envs.integrations.sb3 import ActionMaskVecEnv

    par = envs.get_env_module(env_id).parallel_env(**config)
    venv = ss.pettingzoo_env_to_vec_env_v1(par)
    venv = ss.concat_vec_envs_v1(venv, num_vec_envs, num_cpus=num_cpus, base_class="stable_baselines3")
    return ActionMaskVecEnv(venv)


def _chain_rate(env_id: str, config: dict, steps: int, seed: int, num_vec_envs: int) -> tuple[float, int]:
    venv = make_venv(env_id, config, num_vec_envs)
    rng = make_rng(seed)
    venv.seed(seed)
    venv.reset()
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        masks = venv.action_masks()
        actions = np.fromiter((random_legal(m, rng) for m in masks), dtype=np.int64, count=len(masks))
        venv.step(actions)  # auto-resets finished games
        done += venv.num_envs
    dt = time.perf_counter() - t0
    venv.close()
    return done / dt, done



def measure(env_id: str, steps: int = 2000, seed: int = 0, config: dict | None = None,
            num_vec_envs: int = 4) -> dict:
    """Agent-steps per second of ``env_id`` through SuperSuit's SB3 chain + ``ActionMaskVecEnv``
    (random legal actions from ``action_masks()``, ``num_vec_envs`` games in one process), and of
    our ``parallel_env`` stepped directly. ``steps`` is rounded up to whole vec steps."""
    config = small_config(env_id) if config is None else dict(config)
    rate, taken = _chain_rate(env_id, config, steps, seed, num_vec_envs)
    return {
        "library": "stable-baselines3 + sb3-contrib via supersuit",
        "wrapper": "envs.integrations.sb3.ActionMaskVecEnv(supersuit.concat_vec_envs_v1("
                   f"pettingzoo_env_to_vec_env_v1(parallel_env()), {num_vec_envs}, base_class='stable_baselines3'))",
        "env_id": env_id,
        "config": config,
        "num_vec_envs": int(num_vec_envs),
        "steps": int(taken),
        "agent_steps_per_s": rate,
        "raw_agent_steps_per_s": raw_rate(env_id, config, taken, seed),
    }
