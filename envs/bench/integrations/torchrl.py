"""Throughput of a Kitchen Arena env through TorchRL's ``PettingZooWrapper``.

:func:`measure` wraps ``parallel_env(...)`` (or, with ``form="aec"``, the AEC
``env(...)``) in ``torchrl.envs.libs.pettingzoo.PettingZooWrapper(use_mask=True,
categorical_actions=True)`` and times ``env.rollout(steps, break_when_any_done=False)``
without a policy: TorchRL then draws every action with ``env.rand_action``, which
samples uniformly among the legal actions of the ``action_mask`` the wrapper
keeps in its action spec, and resets the game itself whenever one ends. An
agent-step is one agent acting once: the ``mask`` entry TorchRL writes per group
marks the acting agents (every live agent in the parallel form, the agent to
move in the AEC form).

``raw_agent_steps_per_s`` is our ``parallel_env`` stepped directly in the same
process for as many joint steps, with uniformly random legal actions drawn from
the masks with numpy, reset when a game ends.

    python -m envs.bench.integrations --library torchrl
"""

from __future__ import annotations

import time
import warnings


import envs
from envs.bench.integrations import raw_rate


def small_kwargs(env_id: str) -> dict:
    """The smallest table of the game: its minimum player count among the test configurations."""
    mod = envs.get_env_module(env_id)
    return {"players": min(int(c["players"]) for c in mod.TEST_CONFIGURATIONS if "players" in c)}


def _wrapped(env_id: str, form: str, seed: int, kwargs: dict):
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    mod = envs.get_env_module(env_id)
    pz = mod.parallel_env(**kwargs) if form == "parallel" else mod.env(**kwargs)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested", category=UserWarning)
        return PettingZooWrapper(env=pz, use_mask=True, categorical_actions=True, seed=seed)


def measure(env_id: str, steps: int = 2000, seed: int = 0, form: str = "parallel", **kwargs) -> dict:
    """``steps`` TorchRL env steps of ``env_id`` (smallest table unless ``kwargs`` say otherwise)
    through ``PettingZooWrapper``, random legal actions; agent-steps per second, and our raw
    ``parallel_env`` for comparison (as many joint steps as the wrapped run made ticks)."""
    import torch

    if form not in ("parallel", "aec"):
        raise ValueError(f"form must be 'parallel' or 'aec', got {form!r}")
    cfg = {**small_kwargs(env_id), **kwargs}
    torch.manual_seed(seed)
    env = _wrapped(env_id, form, seed, cfg)
    env.rollout(min(20, steps), break_when_any_done=False)  # warm-up: caches, first reset
    t0 = time.perf_counter()
    td = env.rollout(steps, break_when_any_done=False)
    seconds = time.perf_counter() - t0
    agent_steps = int(sum(td[g, "mask"].sum().item() for g in env.group_map))
    env.close()
    n_agents = len(env.possible_agents)
    ticks = steps if form == "parallel" else max(1, steps // n_agents)
    raw = raw_rate(env_id, cfg, ticks * n_agents, seed)
    return {
        "library": "torchrl",
        "wrapper": f"torchrl.envs.libs.pettingzoo.PettingZooWrapper({'parallel_env' if form == 'parallel' else 'env'}"
                   f"({', '.join(f'{k}={v!r}' for k, v in cfg.items())}), use_mask=True), env.rollout",
        "env_id": env_id,
        "agent_steps_per_s": agent_steps / seconds,
        "steps": int(steps),
        "agent_steps": agent_steps,
        "raw_agent_steps_per_s": raw,
    }
