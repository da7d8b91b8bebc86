"""Who sits where in each training episode, and who plays the other seats.

The learner occupies ``learners`` seats of every env copy (all seats in
cooperative training: the team is one shared policy). The remaining seats
are played inside the adapter by other policies, drawn afresh at every
episode start, independently per seat, from the weighted mix ``others``
(keys are policy specs or ``pool``):

* ``pool``: a frozen snapshot of the learner from the self-play pool. With
  probability ``latest_weight`` the most recent snapshot, otherwise one of
  the older snapshots uniformly (the most recent if it is alone). The pool
  keeps the ``pool_size`` most recent snapshots (first in, first out).
* ``random``, ``heuristic``, ``noop``, ``checkpoint:DIR``: that policy.

Seat rotation (when the learner has fewer seats than the game):
``cycle`` puts copy ``c``'s learner at seats ``(c + e) mod P`` onward in its
``e``-th episode, so every copy visits every seat in turn and copies are
staggered; ``random`` draws the first learner seat uniformly per episode.
Every draw uses the copy's own generator (seeded from the run's seed), so a
run is reproducible and does not depend on how copies are split over
worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envs.core.inputs import checked_int, checked_number, shown

ROTATIONS = ("cycle", "random")


@dataclass(frozen=True)
class SeatingRule:
    learners: int                      # learner seats per copy (1..P)
    rotation: str = "cycle"            # cycle | random
    others: dict = field(default_factory=dict)  # spec or "pool" -> weight
    pool_size: int = 8
    latest_weight: float = 0.5

    def __post_init__(self) -> None:
        """The rule checked as the config's ``seats`` and ``self_play`` keys are (a rule built in Python,
        as docs/training.md shows, had let ``learners=0`` fail inside SB3 with an ``IndexError``,
        ``rotation='nosuch'`` play as ``random`` and weights of 0 end in numpy's NaN message)."""
        checked_int(self.learners, "SeatingRule.learners", 1)
        if self.rotation not in ROTATIONS:
            raise ValueError(f"SeatingRule.rotation={shown(self.rotation)} is not allowed; allowed: one of {ROTATIONS}")
        if not isinstance(self.others, dict):
            raise ValueError(f"SeatingRule.others must be a dict of policy spec (or 'pool') -> weight, got a "
                             f"{type(self.others).__name__}")
        for key, weight in self.others.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"SeatingRule.others key {shown(key)} is not allowed; allowed: 'pool' or a policy spec")
            checked_number(weight, f"SeatingRule.others[{key!r}]", 0)
        if self.others and not sum(self.others.values()) > 0:
            raise ValueError(f"SeatingRule.others={shown(self.others)} is not allowed: every weight is 0; give one "
                             f"weight > 0")
        checked_int(self.pool_size, "SeatingRule.pool_size", 1)
        checked_number(self.latest_weight, "SeatingRule.latest_weight", 0, 1)

    def learner_seats(self, agents: list[str], copy_index: int, episode: int, rng: np.random.Generator) -> list[str]:
        n = len(agents)
        if self.learners >= n:
            return list(agents)
        if self.rotation == "cycle":
            start = (copy_index + episode) % n
        else:
            start = int(rng.integers(n))
        return [agents[(start + j) % n] for j in range(self.learners)]

    def draw_other(self, rng: np.random.Generator) -> str:
        """The spec (or ``pool``) for one non-learner seat."""
        keys = list(self.others)
        if not keys:
            raise ValueError("seats.others is empty: nobody to play the seats the learner does not occupy")
        w = np.asarray([self.others[k] for k in keys], dtype=np.float64)
        if len(keys) == 1:
            return keys[0]
        return keys[int(rng.choice(len(keys), p=w / w.sum()))]

    def draw_snapshot(self, pool_len: int, rng: np.random.Generator) -> int:
        """Index into the pool (oldest first) of the snapshot to play."""
        if pool_len <= 0:
            raise ValueError("the self-play pool is empty: add a snapshot of the learner before playing 'pool' seats")
        if pool_len == 1 or rng.random() < self.latest_weight:
            return pool_len - 1
        return int(rng.integers(pool_len - 1))
