"""The self-play pool on disk, shared by both training backends.

One plain ``.npz`` per frozen learner snapshot (:meth:`training.actor.NumpyActor.save_npz`, read
back with ``allow_pickle=False`` and its shape chain checked), listed with its SHA-256 in
``pool.json``; the newest ``pool_size`` are kept. ``--resume`` reloads them, all verified before
any is used. Nothing is unpickled; old ``snapshot_*.pkl`` files are never read (a warning names
them). The SB3 backend feeds it from :class:`training.callbacks.SelfPlayCallback`, the RLlib
backend from :func:`training.rllib_backend.train_rllib`.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

from envs.core.inputs import first_repeated, loads_json, read_text_file

from training.actor import NumpyActor

POOL_INDEX = "pool.json"
POOL_FORMAT = "kitchen-arena-self-play-pool"
_SNAPSHOT = re.compile(r"snapshot_(0|[1-9][0-9]*)\.npz")


class SnapshotStore:
    """The pool directory of one run: ``restore()`` the saved snapshots, ``save()`` a new one."""

    def __init__(self, pool_dir: Path | None, pool_size: int, obs_dim: int, n_actions: int):
        self.pool_dir = Path(pool_dir) if pool_dir else None
        self.pool_size = int(pool_size)
        self.obs_dim, self.n_actions = int(obs_dim), int(n_actions)
        self.saved: list[dict] = []  # pool.json entries: file, timesteps, sha256

    def _read_index(self) -> list[dict]:
        """The validated entries of ``pool.json`` (CheckpointError if it is malformed)."""
        from training.checkpoints import CheckpointError

        path = self.pool_dir / POOL_INDEX
        allowed = (f'allowed: {{"format": "{POOL_FORMAT}", "format_version": 1, "snapshots": [{{"file": '
                   f'"snapshot_<timesteps>.npz", "timesteps": <timesteps>, "sha256": <64 hex digits>}}, ...]}}')
        where, refuse = f"self-play pool {str(path)!r}", lambda m: CheckpointError(f"{m}; {allowed}")
        data = loads_json(read_text_file(path, where, refuse), where, refuse)
        entries = data.get("snapshots") if isinstance(data, dict) and data.get("format") == POOL_FORMAT \
            and type(data.get("format_version")) is int and data["format_version"] == 1 else None  # (true, 1.0 had passed)
        if not isinstance(entries, list):
            raise CheckpointError(f"self-play pool {str(path)!r} is not a {POOL_FORMAT} index; {allowed}")
        for e in entries:
            name = e.get("file") if isinstance(e, dict) else None
            m = _SNAPSHOT.fullmatch(name) if isinstance(name, str) else None
            if (m is None or set(e) != {"file", "timesteps", "sha256"} or type(e["timesteps"]) is not int
                    or e["timesteps"] != int(m.group(1))
                    or not isinstance(e["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", e["sha256"])):
                raise CheckpointError(f"self-play pool {str(path)!r}: entry {e!r} is not allowed; {allowed}")
        twice = first_repeated(e["file"] for e in entries)
        if twice is not None:  # (one snapshot had been loaded into the pool twice)
            raise CheckpointError(f"self-play pool {str(path)!r}: {twice!r} is listed twice; {allowed}")
        return entries

    def _load(self, entry: dict) -> NumpyActor:
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
            actor.expect(self.obs_dim, self.n_actions)
        except Exception as e:  # noqa: BLE001 - numpy's refusals and the shape chain
            raise CheckpointError(f"{where} does not load: {type(e).__name__}: {e}") from e
        return actor

    def restore(self, up_to: int | None = None) -> list[tuple[int, NumpyActor]]:
        """The snapshots saved by an earlier session, oldest first (verified against ``pool.json``;
        every one before any is returned). ``up_to``: the timesteps of the checkpoint the run resumes
        from; a snapshot saved after it (by a session that stopped before its next checkpoint) is
        left out with a warning, so the resumed run never plays against a policy from its own future
        (its file stays on disk; the index the run writes next leaves it out)."""
        from training.checkpoints import CheckpointError

        if not self.pool_dir or not self.pool_dir.is_dir():
            return []
        legacy = sorted(p.name for p in self.pool_dir.glob("snapshot_*.pkl"))
        if legacy:
            warnings.warn(f"self-play pool {str(self.pool_dir)!r}: {len(legacy)} pickled snapshot(s) of an older "
                          f"version ({', '.join(legacy[:3])}{', ...' if len(legacy) > 3 else ''}) are never "
                          f"unpickled and are ignored; delete them", UserWarning, stacklevel=3)
        if not (self.pool_dir / POOL_INDEX).is_file():
            stray = sorted(p.name for p in self.pool_dir.glob("snapshot_*.npz"))
            if stray:
                raise CheckpointError(f"self-play pool {str(self.pool_dir)!r} holds {stray[:3]} but no {POOL_INDEX} "
                                      f"with their SHA-256; refusing unverified snapshots (delete the directory to "
                                      f"restart the pool from the checkpoint's weights)")
            return []
        entries = sorted(self._read_index(), key=lambda e: e["timesteps"])
        if up_to is not None:
            later = [e["file"] for e in entries if e["timesteps"] > up_to]
            if later:
                warnings.warn(f"self-play pool {str(self.pool_dir)!r}: {', '.join(later)} were saved after the "
                              f"checkpoint this run resumes from ({up_to:,} timesteps), by a session that stopped "
                              f"before its next checkpoint; they are left out of the pool", UserWarning, stacklevel=3)
            entries = [e for e in entries if e["timesteps"] <= up_to]
        entries = entries[-self.pool_size:]
        actors = [(int(e["timesteps"]), self._load(e)) for e in entries]
        self.saved = list(entries)
        return actors

    def save(self, timesteps: int, actor: NumpyActor) -> None:
        """Write ``snapshot_<timesteps>.npz`` and the index; drop the snapshots past ``pool_size``."""
        if not self.pool_dir:
            return
        from training.checkpoints import sha256_of

        self.pool_dir.mkdir(parents=True, exist_ok=True)
        name = f"snapshot_{int(timesteps)}.npz"
        tmp = self.pool_dir / (name + ".tmp")
        actor.save_npz(tmp)
        os.replace(tmp, self.pool_dir / name)
        self.saved = [e for e in self.saved if e["file"] != name]
        self.saved.append({"file": name, "timesteps": int(timesteps), "sha256": sha256_of(self.pool_dir / name)})
        dropped, self.saved = self.saved[:-self.pool_size], self.saved[-self.pool_size:]
        index = {"format": POOL_FORMAT, "format_version": 1, "snapshots": self.saved}
        tmp_index = self.pool_dir / (POOL_INDEX + ".tmp")
        tmp_index.write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp_index, self.pool_dir / POOL_INDEX)
        for old in dropped:
            (self.pool_dir / old["file"]).unlink(missing_ok=True)
