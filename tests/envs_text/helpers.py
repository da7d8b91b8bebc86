"""Sampled states of seeded random legal play, shared by the text tests."""

from __future__ import annotations

import numpy as np

SAMPLE_TICKS = (0, 3, 10, 30, 80)


def sampled_states(env, seed: int, ticks=SAMPLE_TICKS):
    """Yield ``env`` at the sampled ticks of one seeded game of random legal play."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1000)
    tick = 0
    while env.agents and tick <= max(ticks):
        if tick in ticks:
            yield env
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
        tick += 1
