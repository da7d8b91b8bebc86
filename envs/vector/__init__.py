"""Batched vector environments: many games of one env, stacked numpy arrays.

* :class:`BatchedEnv`: N games in this process (:mod:`envs.vector.batched`).
* :class:`ProcessBatchedEnv`: the same interface, the games split over worker
  processes so every core steps some (:mod:`envs.vector.process`).

Both return ``(N, P, ...)`` arrays over every seat of every game, auto-reset
finished games and take one seed per game. The SB3 training bridge
(:mod:`training.copies`) steps its env copies through :class:`BatchedEnv`.
"""

from envs.vector.batched import BatchedEnv, random_legal_actions, seeds_for
from envs.vector.process import ProcessBatchedEnv

__all__ = ["BatchedEnv", "ProcessBatchedEnv", "random_legal_actions", "seeds_for"]
