"""Agent-steps/s of the batched vector env (``envs.vector``).

``BatchedEnv(env_id, num_games=N, env_kwargs=...)`` at each N, and
``ProcessBatchedEnv(env_id, N, workers=W, env_kwargs=...)`` at the largest N,
measured side by side with the ``BatchedEnv`` of that N (:func:`measure_vectors`).
Each measurement resets with ``seed`` (untimed), plays a few untimed warm-up
steps, then times ``steps`` batched steps: random legal actions for the whole
batch drawn from the stacked masks, one ``step`` call (auto-reset inside).
Agent-steps per batched step = ``venv.alive.sum()`` before the step.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np

from envs.bench.stats import summarize
from envs.core.seeding import make_rng
from envs.vector import random_legal_actions

WARMUP_STEPS = 3


def steps_for(num_games: int, game_steps: int, floor: int = 8) -> int:
    """Batched steps so that every N plays about ``game_steps`` game-steps, and at least ``floor``
    (``python -m envs.bench`` asks :data:`envs.bench.cli.MIN_TIMED_STEPS` outside ``--quick``: a run of
    32 batched steps of 64 games lasts 50-90 ms, and the two forms' ratio then read anywhere from
    1.0x to 2.0x from one run of the benchmark to the next)."""
    return max(floor, math.ceil(game_steps / num_games))


def time_vector(venv, steps: int, seed: int, clock=time.perf_counter) -> tuple[int, float]:
    """(agent-steps, seconds) of ``steps`` timed batched steps."""
    rng = make_rng(seed)
    _, masks, _ = venv.reset(seed=seed)
    for _ in range(WARMUP_STEPS):
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
    agent_steps = 0
    t0 = clock()
    for _ in range(steps):
        agent_steps += np.count_nonzero(venv.alive)  # (a quarter of the cost of .sum(), which a game of one batch felt)
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
    return agent_steps, clock() - t0


def measure_vector(factory: Callable[..., Any], env_id: str, env_kwargs: dict, num_games: int, steps: int,
                   repeats: int, seed: int = 0, form: str = "BatchedEnv", **factory_kwargs) -> dict:
    return measure_vectors([(factory, form, factory_kwargs)], env_id, env_kwargs, num_games, steps, repeats, seed)[0]


def measure_vectors(forms: list[tuple[Callable[..., Any], str, dict]], env_id: str, env_kwargs: dict, num_games: int,
                    steps: int, repeats: int, seed: int = 0, loop: Callable[[], Any] | None = None) -> list[dict]:
    """One row per ``(factory, form name, factory kwargs)`` of ``forms``, measured side
    by side: every form is built first, then each repeat times every form in turn,
    so that a ratio between two of them compares the same minutes of this machine
    (whose speed drifts by 15% and more from minute to minute). With ``loop`` (a function
    that makes one env), each repeat also times :func:`time_loop` over ``num_games`` such
    envs after the forms, and a last row (form ``"loop"``) holds its figures."""
    venvs = []
    runs: list[list[tuple[int, float]]] = [[] for _ in forms]
    loop_runs: list[tuple[int, float]] = []
    try:
        for factory, _, kwargs in forms:
            venvs.append(factory(env_id, num_games=num_games, env_kwargs=dict(env_kwargs), **kwargs))
        env_list = [loop() for _ in range(num_games)] if loop is not None else None
        for _ in range(repeats):
            for k, venv in enumerate(venvs):
                runs[k].append(time_vector(venv, steps, seed))
            if env_list is not None:
                loop_runs.append(time_loop(env_list, steps, seed))
    finally:
        for venv in venvs:
            close = getattr(venv, "close", None)
            if close is not None:
                close()
    return [{
        "env_id": env_id,
        "kwargs": dict(env_kwargs),
        "form": form,
        "num_games": num_games,
        "workers": kwargs.get("workers"),
        "batched_steps": steps,
        "agent_steps_per_run": r[0][0],
        "agent_steps_per_s": summarize([n / t for n, t in r]),
    } for (_, form, kwargs), r in zip(forms + [(None, "loop", {})], runs + ([loop_runs] if loop is not None else []))]


def time_loop(env_list: list, steps: int, seed: int, clock=time.perf_counter) -> tuple[int, float]:
    """(agent-steps, seconds) of ``steps`` joint steps of a Python loop over
    separate envs (the batch's games, each reset with ``seed + i``; a finished
    game is reset at once): per env and step, each live agent's action drawn
    from its mask (``np.flatnonzero``, as the single-env harness draws)."""
    from envs.bench.harness import random_legal

    rng = make_rng(seed)
    obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(env_list)]

    def one_step() -> int:
        n = 0
        for i, env in enumerate(env_list):
            o = obs[i]
            acts = {a: random_legal(o[a]["action_mask"], rng) for a in env.agents}
            n += len(acts)
            obs[i] = env.step(acts)[0]
            if not env.agents:
                obs[i] = env.reset()[0]
        return n

    for _ in range(WARMUP_STEPS):
        one_step()
    agent_steps = 0
    t0 = clock()
    for _ in range(steps):
        agent_steps += one_step()
    return agent_steps, clock() - t0
