"""Checkpoints: ``checkpoints/<game>/<name>/`` = ``model.zip`` + ``metadata.json``.

``metadata.json`` says what the model is for and how it was made (env id and
version, env options, seats, observation and action shapes, algorithm and
hyperparameters, timesteps, seed, package versions, evaluation summary) and
holds the SHA-256 of ``model.zip``. Loading checks, before anything is
unpickled:

* the model file's hash (a changed or truncated file is a :class:`CheckpointError`);
* the env: same env id, same seats, same observation size and bounds, same
  number of actions (otherwise :class:`CheckpointError`, naming what differs);
* game options that differ but keep the shapes (e.g. another difficulty) and
  a different package version give a :class:`CheckpointWarning` (an error with
  ``strict=True``): evaluating a policy out of its training distribution is a
  legitimate experiment, but never a silent one.

``actor.npz`` is the policy network's actor exported to plain numpy arrays
(also hashed): acting and evaluation use it, so worker processes need no
torch; training and ``--resume`` use ``model.zip``.

Files are written to a temporary name and renamed, so an interrupted save
never leaves a half-written checkpoint behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
import warnings
from pathlib import Path
from typing import Any

import envs
from envs.core.errors import KitchenArenaError

from training.envspec import EnvSpec
from training.obs import SeatEncoder

FORMAT = "kitchen-arena-checkpoint"
FORMAT_VERSION = 1
MODEL_FILE = "model.zip"
ACTOR_FILE = "actor.npz"
METADATA_FILE = "metadata.json"
REQUIRED_FIELDS = ("format", "format_version", "env_id", "env_config", "agents", "observation", "action_space",
                   "algorithm", "hyperparameters", "timesteps", "seed", "package_version", "model_file", "model_sha256")


class CheckpointError(KitchenArenaError):
    """A checkpoint that is missing, corrupt, or made for another env."""


class CheckpointWarning(UserWarning):
    """A checkpoint used with env options or a package version it was not trained with."""


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def library_versions() -> dict[str, str]:
    import gymnasium
    import numpy
    import pettingzoo
    import sb3_contrib
    import stable_baselines3
    import torch

    return {"python": platform.python_version(), "numpy": numpy.__version__, "gymnasium": gymnasium.__version__,
            "pettingzoo": pettingzoo.__version__, "torch": torch.__version__,
            "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__}


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def env_description(env_spec: EnvSpec, normalize: bool) -> dict[str, Any]:
    """The env facts a checkpoint is checked against."""
    env = env_spec.make()
    enc = SeatEncoder.for_env(env, normalize)
    version = env_spec.env_id.rpartition("_")[2]
    return {
        "env_id": env_spec.env_id,
        "env_version": version,
        "env_config": env_spec.resolved_options(),
        "agents": list(env.possible_agents),
        "observation": {"raw_shape": [enc.obs_dim], "policy_shape": [enc.size], "normalized": enc.normalize,
                        "seat_encoding": "one-hot over agents", "bounds_sha256": enc.bounds_sha256()},
        "action_space": {"n": enc.n_actions},
        "package_version": envs.__version__,
    }


def save_checkpoint(directory: str | Path, model: Any, env_spec: EnvSpec, *, normalize: bool,
                    hyperparameters: dict, policy_kwargs: dict, seed: int, complete: bool,
                    training_config: dict | None = None, evaluation: dict | None = None,
                    extra: dict | None = None) -> dict:
    """Save ``model`` (a MaskablePPO) and its metadata; returns the metadata."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    tmp_model = d / (MODEL_FILE + ".tmp.zip")
    model.save(tmp_model)
    os.replace(tmp_model, d / MODEL_FILE)
    from training.actor import NumpyActor

    tmp_actor = d / (ACTOR_FILE + ".tmp")
    NumpyActor.from_sb3_policy(model.policy).save_npz(tmp_actor)
    os.replace(tmp_actor, d / ACTOR_FILE)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION}
    meta.update(env_description(env_spec, normalize))
    meta.update({
        "algorithm": type(model).__name__,
        "hyperparameters": hyperparameters,
        "policy_kwargs": policy_kwargs,
        "timesteps": int(model.num_timesteps),
        "seed": seed,
        "complete": bool(complete),
        "versions": library_versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "training_config": training_config,
        "evaluation": evaluation,
        "model_file": MODEL_FILE,
        "model_sha256": sha256_of(d / MODEL_FILE),
        "actor_file": ACTOR_FILE,
        "actor_sha256": sha256_of(d / ACTOR_FILE),
    })
    if extra:
        meta.update(extra)
    _atomic_write_text(d / METADATA_FILE, json.dumps(meta, indent=2, sort_keys=False) + "\n")
    return meta


def update_metadata(directory: str | Path, **fields: Any) -> dict:
    """Change metadata fields (not the model) of an existing checkpoint."""
    d = Path(directory)
    meta = read_metadata(d)
    meta.update(fields)
    _atomic_write_text(d / METADATA_FILE, json.dumps(meta, indent=2) + "\n")
    return meta


def is_checkpoint(directory: str | Path) -> bool:
    return (Path(directory) / METADATA_FILE).is_file()


def read_metadata(directory: str | Path) -> dict:
    """The metadata, with its format checked (no hash or env check)."""
    d = Path(directory)
    if not d.is_dir():
        raise CheckpointError(f"checkpoint {str(d)!r} does not exist (expected a directory with {MODEL_FILE} and {METADATA_FILE})")
    path = d / METADATA_FILE
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(d)!r} has no {METADATA_FILE}")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"checkpoint {str(d)!r}: {METADATA_FILE} is not valid JSON ({e})") from e
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {str(d)!r}: {METADATA_FILE} is not a {FORMAT} metadata file")
    if meta.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"checkpoint {str(d)!r}: metadata format version {meta.get('format_version')!r}, "
                              f"this code reads version {FORMAT_VERSION}")
    missing = [k for k in REQUIRED_FIELDS if k not in meta]
    if missing:
        raise CheckpointError(f"checkpoint {str(d)!r}: metadata lacks {missing}")
    return meta


def verify_file(directory: str | Path, meta: dict | None = None) -> dict:
    """Check the model file (and the actor export, if recorded) against their SHA-256."""
    d = Path(directory)
    meta = meta or read_metadata(d)
    files = [("model", meta["model_file"], meta["model_sha256"])]
    if meta.get("actor_file"):
        files.append(("actor", meta["actor_file"], meta.get("actor_sha256")))
    for what, name, recorded in files:
        path = d / name
        if not path.is_file():
            raise CheckpointError(f"checkpoint {str(d)!r}: {what} file {name!r} is missing")
        digest = sha256_of(path)
        if digest != recorded:
            raise CheckpointError(
                f"checkpoint {str(d)!r}: {name} is corrupt or was modified: its SHA-256 is {digest[:16]}..., "
                f"metadata.json records {str(recorded)[:16]}...; refusing to load it"
            )
    return meta


def check_env(meta: dict, env_spec: EnvSpec, where: str = "", strict: bool = False) -> list[str]:
    """Raise CheckpointError if ``meta`` cannot drive ``env_spec``; return the
    soft differences (options, package version), warned about or (strict) raised."""
    where = where or "checkpoint"
    have = env_description(env_spec, bool(meta["observation"].get("normalized", True)))
    if meta["env_id"] != have["env_id"]:
        raise CheckpointError(f"{where} was trained on {meta['env_id']!r}, not {have['env_id']!r}")
    hard = []
    if list(meta["agents"]) != have["agents"]:
        hard.append(f"seats {meta['agents']} vs {have['agents']}")
    if list(meta["observation"]["raw_shape"]) != have["observation"]["raw_shape"]:
        hard.append(f"observation size {meta['observation']['raw_shape']} vs {have['observation']['raw_shape']}")
    elif meta["observation"].get("bounds_sha256") != have["observation"]["bounds_sha256"]:
        hard.append("observation layout (declared bounds differ: the env's encoding changed)")
    if int(meta["action_space"]["n"]) != have["action_space"]["n"]:
        hard.append(f"number of actions {meta['action_space']['n']} vs {have['action_space']['n']}")
    trained = meta.get("env_config") or {}
    now = have["env_config"]
    diff = sorted(k for k in set(trained) | set(now) if trained.get(k) != now.get(k) and k != "illegal_action")
    diff_text = ", ".join(f"{k}={trained.get(k)!r} (trained) vs {now.get(k)!r}" for k in diff)
    if hard:
        raise CheckpointError(
            f"{where} does not fit {env_spec.label()}: " + "; ".join(hard)
            + (f" (option differences: {diff_text})" if diff else "")
            + "; use a checkpoint trained with these options"
        )
    soft = []
    if diff:
        soft.append(f"env options differ from training: {diff_text}")
    if meta.get("package_version") != envs.__version__:
        soft.append(f"trained with envs {meta.get('package_version')}, this is envs {envs.__version__}")
    for s in soft:
        if strict:
            raise CheckpointError(f"{where}: {s} (strict loading)")
        warnings.warn(f"{where}: {s}", CheckpointWarning, stacklevel=3)
    return soft


def load_checkpoint(directory: str | Path, env_spec: EnvSpec | None = None, strict: bool = False,
                    device: str = "cpu", env: Any = None):
    """Verified ``(model, metadata)``; ``env_spec`` defaults to the one recorded.
    ``env`` (a VecEnv, possibly with another number of slots) is attached to
    the model, as ``MaskablePPO.load(..., env=env)`` does."""
    from sb3_contrib import MaskablePPO

    d = Path(directory)
    meta = verify_file(d)
    if meta["algorithm"] != "MaskablePPO":
        raise CheckpointError(f"checkpoint {str(d)!r}: algorithm {meta['algorithm']!r} is not supported (MaskablePPO)")
    if env_spec is None:
        env_spec = EnvSpec.resolve(meta["env_id"], _trained_options(meta))
    check_env(meta, env_spec, f"checkpoint {str(d)!r}", strict)
    try:
        model = MaskablePPO.load(d / meta["model_file"], env=env, device=device)
    except Exception as e:  # noqa: BLE001 - any failure to unpickle is a corrupt checkpoint
        raise CheckpointError(f"checkpoint {str(d)!r}: {meta['model_file']} does not load: {type(e).__name__}: {e}") from e
    want = tuple(meta["observation"]["policy_shape"])
    if tuple(model.observation_space.shape) != want or int(model.action_space.n) != int(meta["action_space"]["n"]):
        raise CheckpointError(
            f"checkpoint {str(d)!r}: the model's spaces {model.observation_space.shape}/{model.action_space} "
            f"disagree with its metadata {want}/{meta['action_space']['n']}"
        )
    return model, meta


def load_actor(directory: str | Path, env_spec: EnvSpec | None = None, strict: bool = False):
    """Verified ``(NumpyActor, metadata)`` for acting, without torch when the
    checkpoint holds its numpy export (``actor.npz``, written with the model)."""
    from training.actor import NumpyActor

    d = Path(directory)
    meta = verify_file(d)
    if not meta.get("actor_file"):
        model, meta = load_checkpoint(d, env_spec, strict)
        return NumpyActor.from_sb3_policy(model.policy), meta
    if env_spec is None:
        env_spec = trained_env_spec(meta)
    check_env(meta, env_spec, f"checkpoint {str(d)!r}", strict)
    try:
        actor = NumpyActor.load_npz(d / meta["actor_file"])
    except Exception as e:  # noqa: BLE001
        raise CheckpointError(f"checkpoint {str(d)!r}: {meta['actor_file']} does not load: {type(e).__name__}: {e}") from e
    n_in = actor.layers[0][0].shape[0] if actor.layers else actor.head[0].shape[0]
    if n_in != meta["observation"]["policy_shape"][0] or actor.head[0].shape[1] != int(meta["action_space"]["n"]):
        raise CheckpointError(f"checkpoint {str(d)!r}: {meta['actor_file']} has shape {n_in} -> "
                              f"{actor.head[0].shape[1]}, metadata says {meta['observation']['policy_shape']} -> "
                              f"{meta['action_space']['n']}")
    return actor, meta


def _trained_options(meta: dict) -> dict:
    """The env options a checkpoint was trained with (render_mode excluded)."""
    return {k: v for k, v in (meta.get("env_config") or {}).items() if k not in ("render_mode",)}


def trained_env_spec(meta: dict) -> EnvSpec:
    return EnvSpec.resolve(meta["env_id"], _trained_options(meta)).compact()
