"""SB3 callbacks of a training run (added next to SB3's own ProgressBarCallback).

* :class:`EpisodeStatsCallback`: reads the end-of-game infos of the bridge
  and logs, through SB3's logger (TensorBoard), ``rollout/win_rate`` and
  ``rollout/score`` over the last 100 games (one record per game, also when
  the learner holds several seats) and, in self-play,
  ``opponents/win_rate_vs_<who>``; keeps every finished game for the
  learning curve.
* :class:`SelfPlayCallback`: adds a frozen snapshot of the learner to the
  bridge's pool at the start and every ``snapshot_every`` timesteps, and
  keeps the pool on disk so ``--resume`` restores it: one plain ``.npz`` per
  snapshot (:meth:`~training.actor.NumpyActor.save_npz`, read back with
  ``allow_pickle=False`` and its shape chain checked) listed with its SHA-256
  in ``pool.json``. Nothing is unpickled; old ``snapshot_*.pkl`` files are
  never read (a warning names them).
* :class:`PeriodicSaveCallback`: calls a save function every N timesteps.
* :class:`InterruptCallback` with :class:`SigintGuard`: the first Ctrl-C
  stops learning cleanly at the next step (the trainer then saves a
  checkpoint); a second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import warnings
from collections import defaultdict, deque
from pathlib import Path
from typing import Callable

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from training.actor import NumpyActor


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


POOL_INDEX = "pool.json"
POOL_FORMAT = "kitchen-arena-self-play-pool"
_SNAPSHOT = re.compile(r"snapshot_(0|[1-9][0-9]*)\.npz")


class SelfPlayCallback(BaseCallback):
    """Feeds the bridge's self-play pool with frozen learner snapshots."""

    def __init__(self, vec_env, snapshot_every: int, pool_dir: Path | None, pool_size: int):
        super().__init__()
        self.vec_env = vec_env
        self.every = snapshot_every
        self.pool_dir = Path(pool_dir) if pool_dir else None
        self.pool_size = pool_size
        self.next_at = 0
        self.pool: list[str] = []
        self._saved: list[dict] = []  # pool.json entries: file, timesteps, sha256

    # ------------------------------------------------------------------ on disk
    def _read_index(self) -> list[dict]:
        """The validated entries of ``pool.json`` (CheckpointError if it is malformed)."""
        from training.checkpoints import CheckpointError

        path = self.pool_dir / POOL_INDEX
        allowed = (f'allowed: {{"format": "{POOL_FORMAT}", "format_version": 1, "snapshots": [{{"file": '
                   f'"snapshot_<timesteps>.npz", "timesteps": <timesteps>, "sha256": <64 hex digits>}}, ...]}}')
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(f"self-play pool {str(path)!r} is not valid JSON ({e}); {allowed}") from e
        entries = data.get("snapshots") if isinstance(data, dict) and data.get("format") == POOL_FORMAT \
            and data.get("format_version") == 1 else None
        if not isinstance(entries, list):
            raise CheckpointError(f"self-play pool {str(path)!r} is not a {POOL_FORMAT} index; {allowed}")
        for e in entries:
            name = e.get("file") if isinstance(e, dict) else None
            m = _SNAPSHOT.fullmatch(name) if isinstance(name, str) else None
            if (m is None or set(e) != {"file", "timesteps", "sha256"} or e["timesteps"] != int(m.group(1))
                    or not isinstance(e["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", e["sha256"])):
                raise CheckpointError(f"self-play pool {str(path)!r}: entry {e!r} is not allowed; {allowed}")
        return entries

    def _load_snapshot(self, entry: dict) -> NumpyActor:
        from training.checkpoints import CheckpointError, contained_file, sha256_of

        path = contained_file(self.pool_dir, entry["file"], "self-play snapshot")
        where = f"self-play snapshot {str(path)!r}"
        if not path.is_file():
            raise CheckpointError(f"{where} is listed in {POOL_INDEX} but missing")
        digest = sha256_of(path)
        if digest != entry["sha256"]:
            raise CheckpointError(f"{where} is corrupt or was modified: its SHA-256 is {digest[:16]}..., "
                                  f"{POOL_INDEX} records {entry['sha256'][:16]}...; refusing to load it")
        try:
            actor = NumpyActor.load_npz(path)
            actor.expect(int(self.vec_env.observation_space.shape[0]), int(self.vec_env.action_space.n))
        except Exception as e:  # noqa: BLE001 - numpy's refusals and the shape chain
            raise CheckpointError(f"{where} does not load: {type(e).__name__}: {e}") from e
        return actor

    def restore(self) -> int:
        """Reload the snapshots saved by an earlier session (verified against
        ``pool.json``); returns how many."""
        from training.checkpoints import CheckpointError

        if not self.pool_dir or not self.pool_dir.is_dir():
            return 0
        legacy = sorted(p.name for p in self.pool_dir.glob("snapshot_*.pkl"))
        if legacy:
            warnings.warn(f"self-play pool {str(self.pool_dir)!r}: {len(legacy)} pickled snapshot(s) of an older "
                          f"version ({', '.join(legacy[:3])}{', ...' if len(legacy) > 3 else ''}) are never "
                          f"unpickled and are ignored; delete them", UserWarning, stacklevel=2)
        if not (self.pool_dir / POOL_INDEX).is_file():
            stray = sorted(p.name for p in self.pool_dir.glob("snapshot_*.npz"))
            if stray:
                raise CheckpointError(f"self-play pool {str(self.pool_dir)!r} holds {stray[:3]} but no {POOL_INDEX} "
                                      f"with their SHA-256; refusing unverified snapshots (delete the directory to "
                                      f"restart the pool from the checkpoint's weights)")
            return 0
        entries = sorted(self._read_index(), key=lambda e: e["timesteps"])[-self.pool_size:]
        actors = [(e, self._load_snapshot(e)) for e in entries]  # all verified before any is used
        for e, actor in actors:
            self.pool = self.vec_env.add_snapshot(f"snapshot@{e['timesteps']}", actor.state())
        self._saved = list(entries)
        return len(entries)

    def prime(self, model) -> None:
        """Fill the pool before learning starts (SB3 resets the env before
        ``on_training_start``): the saved snapshots on resume, else the
        learner's initial weights."""
        if not self.restore():
            self.add_now(int(model.num_timesteps), model.policy)
        self.next_at = int(model.num_timesteps) + self.every

    def add_now(self, timesteps: int, policy=None) -> None:
        actor = NumpyActor.from_sb3_policy(policy if policy is not None else self.model.policy)
        self.pool = self.vec_env.add_snapshot(f"snapshot@{timesteps}", actor.state())
        if self.pool_dir:
            from training.checkpoints import sha256_of

            self.pool_dir.mkdir(parents=True, exist_ok=True)
            name = f"snapshot_{int(timesteps)}.npz"
            tmp = self.pool_dir / (name + ".tmp")
            actor.save_npz(tmp)
            os.replace(tmp, self.pool_dir / name)
            self._saved = [e for e in self._saved if e["file"] != name]
            self._saved.append({"file": name, "timesteps": int(timesteps), "sha256": sha256_of(self.pool_dir / name)})
            dropped, self._saved = self._saved[:-self.pool_size], self._saved[-self.pool_size:]
            index = {"format": POOL_FORMAT, "format_version": 1, "snapshots": self._saved}
            tmp_index = self.pool_dir / (POOL_INDEX + ".tmp")
            tmp_index.write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp_index, self.pool_dir / POOL_INDEX)
            for old in dropped:
                (self.pool_dir / old["file"]).unlink(missing_ok=True)
        self.next_at = timesteps + self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.add_now(int(self.num_timesteps))
        return True

    def _on_rollout_end(self) -> None:
        self.logger.record("self_play/pool_size", len(self.pool))


class PeriodicSaveCallback(BaseCallback):
    def __init__(self, every: int, save: Callable[[], None]):
        super().__init__()
        self.every = every
        self.save = save
        self.next_at = every

    def _on_training_start(self) -> None:
        self.next_at = (int(self.model.num_timesteps) // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.save()
            self.next_at += self.every
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
