"""Throughput of the bridge, per number of worker processes.

``python -m training bench --config configs/frying_master_full.yaml --workers 1,2 --repeat 3``
measures, for each number of processes stepping copies (main included), with
the config's env, seats and copies:

* ``bridge``: learner steps/s with uniformly random legal learner actions
  (the bridge alone: env copies, other seats' policies, pipes);
* ``train``: learner steps/s of MaskablePPO learning (rollouts + updates), the
  figure that decides how long a run takes;
* ``learner alone``: the same learner learning from a recorded trajectory of the
  config's bridge replayed at no cost (:func:`training.throughput.record_trajectory`,
  :func:`~training.throughput.replay_env`): what training would reach if the env
  cost nothing, so ``1 - train / learner alone`` is the env's share of training.
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
            venv.add_snapshot("snapshot@0", _pool_snapshot(cfg, venv))
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


def _learner(cfg: dict, venv):
    """The measured learner: MaskablePPO with :class:`training.sampling.MaskablePolicy`, the
    config's algorithm settings, seed and draw, on the CPU."""
    from sb3_contrib import MaskablePPO

    from training.sampling import MaskablePolicy, use_sampler

    kwargs, pk = _ppo_kwargs(cfg)
    model = MaskablePPO(MaskablePolicy, venv, seed=cfg["training"]["seed"], device="cpu", policy_kwargs=pk, **kwargs)
    use_sampler(model, cfg["training"]["action_sampler"])
    return model


def _pool_snapshot(cfg: dict, venv) -> dict:
    """What the pool's seats play in every measurement: the state of :func:`_learner`'s
    initial network on ``venv`` (seeded by the config, so the same in every measurement)."""
    from training.actor import NumpyActor

    return NumpyActor.from_sb3_policy(_learner(cfg, venv).policy).state()


def _timed_learn(model, steps: int) -> float:
    """Learner steps/s of ``model.learn(steps)``."""
    from training.throughput import quiet_logger

    quiet_logger(model)
    t = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t)


def bench_learner_alone(cfg: dict, steps: int) -> float:
    """Learner steps/s of :func:`bench_train`'s learner (the config's MaskablePPO settings,
    torch threads and draw) learning from ``algorithm.n_steps`` recorded steps of the config's
    bridge, replayed at no cost (random legal learner actions, one process)."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from training.throughput import record_trajectory, replay_env

    plan = plan_run(cfg)
    snapshot = (lambda venv: _pool_snapshot(cfg, venv)) if plan.uses_pool else None
    rec, observation_space, action_space = record_trajectory(
        plan.settings, cfg["training"]["env_copies"], cfg["algorithm"]["n_steps"], cfg["training"]["seed"], snapshot)
    torch.set_num_threads(cfg["training"]["torch_threads"])
    return _timed_learn(_learner(cfg, VecMonitor(replay_env(rec, observation_space, action_space))), steps)


def bench_train(cfg: dict, workers: int, steps: int) -> float:
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from training.actor import NumpyActor
    from training.vec_env import MultiAgentVecEnv

    plan = plan_run(cfg)
    torch.set_num_threads(cfg["training"]["torch_threads"])
    venv = VecMonitor(MultiAgentVecEnv(plan.settings, cfg["training"]["env_copies"], workers))
    try:
        model = _learner(cfg, venv)
        if plan.uses_pool:
            venv.venv.add_snapshot("snapshot@0", NumpyActor.from_sb3_policy(model.policy).state())
        return _timed_learn(model, steps)
    finally:
        venv.close()


def run_bench(cfg: dict, worker_counts: list[int], steps: int, repeat: int = 1,
              log: Callable[[str], None] = print) -> list[dict]:
    """Each worker count ``repeat`` times, interleaved (so a noisy machine hits
    every count alike); reports the median and the best run."""
    bridge: dict[int, list[float]] = {w: [] for w in worker_counts}
    train: dict[int, list[float]] = {w: [] for w in worker_counts}
    alone: list[float] = []
    for _ in range(repeat):
        for w in worker_counts:
            bridge[w].append(bench_bridge(cfg, w, steps))
            train[w].append(bench_train(cfg, w, steps))
        alone.append(bench_learner_alone(cfg, steps))
    learner = float(np.median(alone))
    rows = []
    log("| processes | bridge steps/s, random learner (median / best) | training steps/s, MaskablePPO (median / best) "
        "| the env's share of training |")
    log("|---|---|---|---|")
    for w in worker_counts:
        b, t = np.asarray(bridge[w]), np.asarray(train[w])
        share = max(0.0, 1.0 - float(np.median(t)) / learner)
        rows.append({"workers": w, "bridge_steps_per_s": bridge[w], "train_steps_per_s": train[w],
                     "learner_alone_steps_per_s": alone, "env_share": share})
        log(f"| {w} | {np.median(b):,.0f} / {b.max():,.0f} | {np.median(t):,.0f} / {t.max():,.0f} | {share:.0%} |")
    log("")
    log(f"The learner alone (the same MaskablePPO learning from {cfg['algorithm']['n_steps']} recorded steps of this "
        f"bridge, replayed at no cost): {learner:,.0f} / {max(alone):,.0f} steps/s (median / best). "
        "The env's share: 1 - training / learner alone.")
    return rows
