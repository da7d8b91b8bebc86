"""Agent-steps/s of the batched vector env (``envs.vector``).

``BatchedEnv(env_id, num_games=N, env_kwargs=...)`` at each N, and
``ProcessBatchedEnv(env_id, N, workers=W, env_kwargs=...)`` at the largest N.
Each measurement resets with ``seed`` (untimed), plays a few untimed warm-up
steps, then times ``steps`` batched steps: random legal actions for the whole
batch drawn from the stacked masks, one ``step`` call (auto-reset inside).
Agent-steps per batched step = ``venv.alive.sum()`` before the step.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

from envs.bench.stats import summarize
from envs.core.seeding import make_rng
from envs.vector import random_legal_actions

WARMUP_STEPS = 3


def steps_for(num_games: int, game_steps: int) -> int:
    """Batched steps so that every N plays about ``game_steps`` game-steps."""
    return max(8, math.ceil(game_steps / num_games))


def time_vector(venv, steps: int, seed: int, clock=time.perf_counter) -> tuple[int, float]:
    """(agent-steps, seconds) of ``steps`` timed batched steps."""
    rng = make_rng(seed)
    _, masks, _ = venv.reset(seed=seed)
    for _ in range(WARMUP_STEPS):
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
    agent_steps = 0
    t0 = clock()
    for _ in range(steps):
        agent_steps += int(venv.alive.sum())
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
    return agent_steps, clock() - t0


def measure_vector(factory: Callable[..., Any], env_id: str, env_kwargs: dict, num_games: int, steps: int,
                   repeats: int, seed: int = 0, form: str = "BatchedEnv", **factory_kwargs) -> dict:
    venv = factory(env_id, num_games=num_games, env_kwargs=dict(env_kwargs), **factory_kwargs)
    try:
        runs = [time_vector(venv, steps, seed) for _ in range(repeats)]
    finally:
        close = getattr(venv, "close", None)
        if close is not None:
            close()
    return {
        "env_id": env_id,
        "kwargs": dict(env_kwargs),
        "form": form,
        "num_games": num_games,
        "workers": factory_kwargs.get("workers"),
        "batched_steps": steps,
        "agent_steps_per_run": runs[0][0],
        "agent_steps_per_s": summarize([n / s for n, s in runs]),
    }
