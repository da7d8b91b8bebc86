"""SB3 callbacks of a training run (added next to SB3's own ProgressBarCallback).

* :class:`EpisodeStatsCallback`: reads the end-of-game infos of the bridge
  and logs, through SB3's logger (TensorBoard), ``rollout/win_rate`` and
  ``rollout/score`` over the last 100 games (one record per game, also when
  the learner holds several seats) and, in self-play,
  ``opponents/win_rate_vs_<who>``; keeps every finished game for the
  learning curve.
* :class:`SelfPlayCallback`: adds a frozen snapshot of the learner to the
  bridge's pool at the start and every ``snapshot_every`` timesteps, and
  keeps the pool on disk (:mod:`training.pool`) so ``--resume`` restores it.
* :class:`PeriodicSaveCallback`: calls a save function every N timesteps.
* :class:`InterruptCallback` with :class:`SigintGuard`: the first Ctrl-C
  stops learning cleanly at the next step (the trainer then saves a
  checkpoint); a second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import signal
from collections import defaultdict, deque
from pathlib import Path
from typing import Callable

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from training.actor import NumpyActor
from training.pool import SnapshotStore


class EpisodeStatsCallback(BaseCallback):
    def __init__(self, window: int = 100):
        super().__init__()
        self.window = window
        self.wins: deque = deque(maxlen=window)
        self.scores: deque = deque(maxlen=window)
        self.by_other: dict[str, deque] = defaultdict(lambda: deque(maxlen=window))
        self.history: list[tuple[int, float, float, float, int]] = []  # timesteps, return, win, score, length

    def _on_step(self) -> bool:
        infos = self.locals.get("infos", [])
        dones = self.locals.get("dones", [])
        for done, info in zip(dones, infos):
            # one record per game: a team's slots all end together, count its first seat only
            if not done or "win" not in info or info.get("learner_index", 0) != 0:
                continue
            win = float(info["win"])
            self.wins.append(win)
            self.scores.append(float(info.get("score", 0.0)))
            for other in info.get("others", []):
                self.by_other[other.split("@")[0]].append(win)
            ep = info.get("episode", {})
            self.history.append((int(self.num_timesteps), float(ep.get("r", np.nan)), win,
                                 float(info.get("score", 0.0)), int(ep.get("l", 0))))
        return True

    def _on_rollout_end(self) -> None:
        if self.wins:
            self.logger.record("rollout/win_rate", float(np.mean(self.wins)))
            self.logger.record("rollout/score", float(np.mean(self.scores)))
        for other, vals in self.by_other.items():
            if vals:
                self.logger.record(f"opponents/win_rate_vs_{other}", float(np.mean(vals)))


class SelfPlayCallback(BaseCallback):
    """Feeds the bridge's self-play pool with frozen learner snapshots (kept on disk by
    :class:`training.pool.SnapshotStore`)."""

    def __init__(self, vec_env, snapshot_every: int, pool_dir: Path | None, pool_size: int):
        super().__init__()
        self.vec_env = vec_env
        self.every = snapshot_every
        self.store = SnapshotStore(pool_dir, pool_size, int(vec_env.observation_space.shape[0]),
                                   int(vec_env.action_space.n))
        self.next_at = 0
        self.pool: list[str] = []

    def restore(self, up_to: int | None = None) -> int:
        """Reload the snapshots saved by an earlier session (none saved after ``up_to`` timesteps, the
        checkpoint resumed from); returns how many."""
        for timesteps, actor in self.store.restore(up_to):
            self.pool = self.vec_env.add_snapshot(f"snapshot@{timesteps}", actor.state())
        return len(self.store.saved)

    def prime(self, model) -> None:
        """Fill the pool before learning starts (SB3 resets the env before
        ``on_training_start``): the saved snapshots on resume, else the
        learner's initial weights."""
        if not self.restore(int(model.num_timesteps)):
            self.add_now(int(model.num_timesteps), model.policy)
        self.next_at = int(model.num_timesteps) + self.every

    def add_now(self, timesteps: int, policy=None) -> None:
        actor = NumpyActor.from_sb3_policy(policy if policy is not None else self.model.policy)
        self.pool = self.vec_env.add_snapshot(f"snapshot@{timesteps}", actor.state())
        self.store.save(timesteps, actor)
        self.next_at = timesteps + self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.add_now(int(self.num_timesteps))
        return True

    def _on_rollout_end(self) -> None:
        self.logger.record("self_play/pool_size", len(self.pool))


class PeriodicSaveCallback(BaseCallback):
    """Saves once every ``every`` timesteps, at the start of the first rollout past each multiple:
    there the last rollout has been learned from, so the saved weights are the model after the
    step count the checkpoint is labelled with. (Saved from ``_on_step``, inside a rollout, the
    weights were those before that rollout's update under the rollout's full count, and a run
    resumed from it never learned from that rollout.)"""

    def __init__(self, every: int, save: Callable[[], None]):
        super().__init__()
        self.every = every
        self.save = save
        self.next_at = every

    def _on_training_start(self) -> None:
        self.next_at = (int(self.model.num_timesteps) // self.every + 1) * self.every

    def _on_rollout_start(self) -> None:
        steps = int(self.model.num_timesteps)
        if steps >= self.next_at:
            self.save()
            self.next_at = (steps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        return True


class SigintGuard:
    """While active, the first SIGINT only sets ``requested``; the second raises."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handler(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nCtrl-C: stopping after this step and saving a checkpoint (press again to abort)", flush=True)

    def __enter__(self) -> "SigintGuard":
        try:
            self._previous = signal.signal(signal.SIGINT, self._handler)
        except ValueError:  # not the main thread: no signal handling
            self._previous = None
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


class InterruptCallback(BaseCallback):
    def __init__(self, guard: SigintGuard):
        super().__init__()
        self.guard = guard

    def _on_step(self) -> bool:
        return not self.guard.requested
