"""Throughput of the bridge, per number of worker processes.

``python -m training bench --config configs/frying_master_full.yaml --workers 1,2 --repeat 3``
measures, for each number of processes stepping copies (main included), with
the config's env, seats and copies:

* ``bridge``: learner steps/s with uniformly random legal learner actions
  (the bridge alone: env copies, other seats' policies, pipes);
* ``train``: learner steps/s of MaskablePPO learning (rollouts + updates), the
  figure that decides how long a run takes.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from training.trainer import _ppo_kwargs, plan_run


def bench_bridge(cfg: dict, workers: int, steps: int) -> float:
    import torch

    from training.vec_env import MultiAgentVecEnv

    plan = plan_run(cfg)
    torch.set_num_threads(cfg["training"]["torch_threads"])  # as training sets it (the bridge's polling counts them)
    venv = MultiAgentVecEnv(plan.settings, cfg["training"]["env_copies"], workers)
    try:
        if plan.uses_pool:  # a real network for the pool seats
            from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

            from training.actor import NumpyActor

            _, pk = _ppo_kwargs(cfg)
            pol = MaskableActorCriticPolicy(venv.observation_space, venv.action_space, lambda _: 0.0, **pk)
            venv.add_snapshot("snapshot@0", NumpyActor.from_sb3_policy(pol).state())
        venv.seed(cfg["training"]["seed"])
        venv.reset()
        rng = np.random.default_rng(0)
        n = 0
        t = time.perf_counter()
        while n < steps:
            masks = venv.action_masks()
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            venv.step(acts)
            n += venv.num_envs
        return n / (time.perf_counter() - t)
    finally:
        venv.close()


def bench_train(cfg: dict, workers: int, steps: int) -> float:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from training.actor import NumpyActor
    from training.sampling import MaskablePolicy, use_sampler
    from training.vec_env import MultiAgentVecEnv

    plan = plan_run(cfg)
    torch.set_num_threads(cfg["training"]["torch_threads"])
    venv = VecMonitor(MultiAgentVecEnv(plan.settings, cfg["training"]["env_copies"], workers))
    try:
        kwargs, pk = _ppo_kwargs(cfg)
        model = MaskablePPO(MaskablePolicy, venv, seed=cfg["training"]["seed"], device="cpu", policy_kwargs=pk, **kwargs)
        use_sampler(model, cfg["training"]["action_sampler"])
        if plan.uses_pool:
            venv.venv.add_snapshot("snapshot@0", NumpyActor.from_sb3_policy(model.policy).state())
        t = time.perf_counter()
        model.learn(steps)
        return model.num_timesteps / (time.perf_counter() - t)
    finally:
        venv.close()


def run_bench(cfg: dict, worker_counts: list[int], steps: int, repeat: int = 1,
              log: Callable[[str], None] = print) -> list[dict]:
    """Each worker count ``repeat`` times, interleaved (so a noisy machine hits
    every count alike); reports the median and the best run."""
    bridge: dict[int, list[float]] = {w: [] for w in worker_counts}
    train: dict[int, list[float]] = {w: [] for w in worker_counts}
    for _ in range(repeat):
        for w in worker_counts:
            bridge[w].append(bench_bridge(cfg, w, steps))
            train[w].append(bench_train(cfg, w, steps))
    rows = []
    log("| processes | bridge steps/s, random learner (median / best) | training steps/s, MaskablePPO (median / best) |")
    log("|---|---|---|")
    for w in worker_counts:
        b, t = np.asarray(bridge[w]), np.asarray(train[w])
        rows.append({"workers": w, "bridge_steps_per_s": bridge[w], "train_steps_per_s": train[w]})
        log(f"| {w} | {np.median(b):,.0f} / {b.max():,.0f} | {np.median(t):,.0f} / {t.max():,.0f} |")
    return rows
