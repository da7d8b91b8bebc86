"""Checkpoints: ``checkpoints/<game>/<name>/`` = ``metadata.json`` + ``model.zip`` + ``actor.npz``.

``metadata.json`` says what the model is for and how it was made (env id and
version, env options, seats, observation and action shapes, algorithm,
hyperparameters and network, counters, seed, package versions, evaluation
summary) and holds the SHA-256 of ``model.zip`` and ``actor.npz``.

**Nothing from a checkpoint is ever unpickled or executed.** ``model.zip`` is
written by SB3 (``model.save``), but never read back with ``MaskablePPO.load``
(which unpickles its ``data`` entry with cloudpickle): :func:`load_checkpoint`
rebuilds the MaskablePPO from the JSON metadata (hyperparameters, network,
spaces from the env) and loads only its tensors, with SB3's ``set_parameters``
path (``load_from_zip_file(load_data=False)``: the ``data`` entry is never
decoded, every ``.pth`` goes through ``torch.load(..., weights_only=True)``);
the counters (``num_timesteps``, updates, episodes) come from the metadata.
Acting (:func:`load_actor`, every ``checkpoint:`` spec) reads only
``actor.npz`` (numpy, ``allow_pickle=False``, the whole layer-shape chain
checked against the metadata); a checkpoint without it is refused, there is no
fallback to ``model.zip``.

Loading checks, before any file is used:

* the metadata's structure, and that every file it names is a plain name
  inside the checkpoint directory (no ``/``, ``..``, absolute path, or symlink
  leading out of it);
* each file's hash (a changed or truncated file is a :class:`CheckpointError`);
* the env: same env id, same seats, same observation size and bounds, same
  number of actions (otherwise :class:`CheckpointError`, naming what differs);
* game options that differ but keep the shapes (e.g. another difficulty) and
  a different package version give a :class:`CheckpointWarning` (an error with
  ``strict=True``): evaluating a policy out of its training distribution is a
  legitimate experiment, but never a silent one.

The checkpoints shipped with the project are listed, with the SHA-256 of their
files, in ``checkpoints/MANIFEST.json`` (:func:`shipped_checkpoints`); other
directories under ``checkpoints/`` are a user's own runs.

Files are written to a temporary name and renamed, so an interrupted save
never leaves a half-written checkpoint behind.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import time
import warnings
from pathlib import Path
from typing import Any

import envs
from envs.core.config import differing_options
from envs.core.errors import KitchenArenaError
from envs.core.inputs import MAX_ARCHIVE_BYTES, check_archive, first_line, loads_json, read_text_file
from envs.core.inputs import atomic_write_text as _atomic_write_text

from training.envspec import EnvSpec
from training.obs import SeatEncoder

FORMAT = "kitchen-arena-checkpoint"
FORMAT_VERSION = 1
MODEL_FILE = "model.zip"
ACTOR_FILE = "actor.npz"
METADATA_FILE = "metadata.json"
MANIFEST_FILE = "MANIFEST.json"
#: the largest seed a checkpoint records (numpy's legacy seeding, which SB3's ``set_random_seed`` uses)
MAX_SEED = 2 ** 32 - 1
MANIFEST_FORMAT = "kitchen-arena-shipped-checkpoints"
REQUIRED_FIELDS = ("format", "format_version", "env_id", "env_config", "agents", "observation", "action_space",
                   "algorithm", "hyperparameters", "timesteps", "seed", "package_version", "model_file", "model_sha256")
#: The torch state dicts a MaskablePPO ``model.zip`` holds (``.pth`` entries); nothing else is loaded from it.
MODEL_PARAMS = ("policy", "policy.optimizer")
ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU"}  # config name -> torch.nn class name
_SHA256 = re.compile(r"[0-9a-f]{64}")
PLAIN_NAME = ("a plain file name inside the checkpoint directory (no '/', '\\', ':', '..', absolute path, or "
              "symlink leading out of it)")


class CheckpointError(KitchenArenaError):
    """A checkpoint that is missing, corrupt, unsafe, or made for another env."""


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


def atomic_write_text(path: Path, text: str) -> None:
    """``path`` written whole under a temporary name and renamed over the old file (a link in its
    place is replaced, never written through: nothing of a checkpoint is written outside it); a
    process killed while writing it leaves the previous one
    (:func:`envs.core.inputs.atomic_write_text`)."""
    _atomic_write_text(path, text, follow_symlink=False)


#: The journal of a save in progress: the new metadata, written once the save's new files are
#: complete (under their temporary names) and before any of them replaces an old one.
SAVING_FILE = METADATA_FILE + ".saving"
_TMP_MODEL = MODEL_FILE + ".tmp.zip"
_TMP_ACTOR = ACTOR_FILE + ".tmp"


def settle_save(d: Path, writer: bool = False) -> None:
    """Finish or undo a save that was interrupted (a kill, a second Ctrl-C), so that a checkpoint
    is always one whole save, the new or the old: with the journal (:data:`SAVING_FILE`) present
    the new files are complete, so they replace the old ones and the journal becomes the
    metadata (roll forward); without it the save stopped while writing them, so its temporaries
    go and the old files and metadata stand. A save swapped its files one by one: a kill between
    the swaps left a new ``model.zip`` beside the old metadata, which refused it, and the run's
    last good checkpoint was lost. Only the ``writer`` (a save starting) removes temporaries
    without a journal: a reader could be looking at a save in progress."""
    journal = d / SAVING_FILE
    try:
        if not journal.is_file():
            if writer:
                for tmp in (_TMP_MODEL, _TMP_ACTOR):
                    (d / tmp).unlink(missing_ok=True)
            return
        for tmp in (SAVING_FILE, _TMP_MODEL, _TMP_ACTOR):  # before anything moves: no journal file leads out
            contained_file(d, tmp, "interrupted save's file")  # (a symlinked journal had been renamed in first)
        _check_journal(d)  # (a stray or damaged file of that name had been moved over the metadata)
        for tmp, final in ((_TMP_MODEL, MODEL_FILE), (_TMP_ACTOR, ACTOR_FILE), (SAVING_FILE, METADATA_FILE)):
            try:
                os.replace(d / tmp, d / final)
            except FileNotFoundError:
                pass  # swapped already (by this save before it stopped, or by a reader finishing it)
    except OSError as e:
        raise CheckpointError(f"{_where(d)}: an interrupted save could not be finished: {e.strerror or e}") from e


def _where(d: Path) -> str:
    return f"checkpoint {str(d)!r}"


def _check_journal(d: Path) -> None:
    """CheckpointError, nothing moved, unless :data:`SAVING_FILE` is the journal of a save whose
    files are complete: this format's metadata, whose recorded hashes the new model and actor files
    (under their temporary names, or already swapped in) have. Any other file of that name (a
    stray copy, an empty or cut file) had been moved over the metadata by any command that read the
    checkpoint, ``list`` included, and the checkpoint was lost."""
    where = f"{_where(d)}: {SAVING_FILE} (an interrupted save's journal)"
    try:
        meta = loads_json(read_text_file(d / SAVING_FILE, where, CheckpointError), where, CheckpointError)
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise CheckpointError(f"{where} is not a {FORMAT} metadata file")
        for tmp, final, key in ((_TMP_MODEL, MODEL_FILE, "model_sha256"), (_TMP_ACTOR, ACTOR_FILE, "actor_sha256")):
            path = d / tmp if (d / tmp).is_file() else d / final
            recorded = meta.get(key)
            if not isinstance(recorded, str) or not path.is_file() or sha256_of(path) != recorded:
                raise CheckpointError(f"{where} does not describe the save's {final}: its {key} is not that file's")
    except CheckpointError as e:
        raise CheckpointError(f"{e}; the checkpoint was left as it is: if that file is not an interrupted save's, "
                              f"remove it") from None


# ---------------------------------------------------------------------- file names
def contained_file(directory: str | Path, name: Any, what: str = "file") -> Path:
    """``directory / name`` if ``name`` is a plain file name whose path (symlinks
    followed) stays inside ``directory``; otherwise a CheckpointError."""
    d = Path(directory)
    ok = (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name
          and "\x00" not in name and not os.path.isabs(name) and Path(name).name == name and ":" not in name)
    if not ok:
        raise CheckpointError(f"{_where(d)}: {what} {name!r} is not allowed; allowed: {PLAIN_NAME}")
    path = d / name
    if path.is_symlink() or path.exists():
        try:
            inside = path.resolve(strict=False).parent == d.resolve(strict=False)
        except (OSError, RuntimeError):  # a symlink loop
            inside = False
        if not inside:
            raise CheckpointError(f"{_where(d)}: {what} {name!r} is a symlink leading out of the checkpoint "
                                  f"directory; allowed: {PLAIN_NAME}")
    return path


# ---------------------------------------------------------------------- describing and saving
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


def model_architecture(model: Any) -> dict:
    """``{"net_arch": [...], "activation": "tanh" | "relu"}`` read from the model itself
    (what :func:`load_checkpoint` rebuilds it from)."""
    pk = dict(getattr(model, "policy_kwargs", None) or {})
    net_arch = pk.get("net_arch")
    if not isinstance(net_arch, (list, tuple)) or not net_arch or not all(isinstance(h, int) for h in net_arch):
        raise ValueError(f"only MLP policies with net_arch = a list of layer sizes can be checkpointed, "
                         f"not {net_arch!r}")
    fn = pk.get("activation_fn")
    cls_name = fn.__name__ if isinstance(fn, type) else "Tanh" if fn is None else repr(fn)
    names = {v: k for k, v in ACTIVATIONS.items()}
    if cls_name not in names:
        raise ValueError(f"activation {cls_name} cannot be checkpointed; allowed: {sorted(names)}")
    return {"net_arch": [int(h) for h in net_arch], "activation": names[cls_name]}


def save_checkpoint(directory: str | Path, model: Any, env_spec: EnvSpec, *, normalize: bool,
                    hyperparameters: dict, policy_kwargs: dict, seed: int, complete: bool,
                    training_config: dict | None = None, evaluation: dict | None = None,
                    extra: dict | None = None) -> dict:
    """Save ``model`` (a MaskablePPO) and its metadata; returns the metadata.

    ``policy_kwargs`` must describe the model's network (it is read back from the
    model and a disagreement is a ValueError, since loading rebuilds the
    network from the metadata)."""
    arch = model_architecture(model)
    given = {"net_arch": list((policy_kwargs or {}).get("net_arch", arch["net_arch"])),
             "activation": (policy_kwargs or {}).get("activation", arch["activation"])}
    if given != arch:
        raise ValueError(f"save_checkpoint: policy_kwargs {policy_kwargs} do not describe the model's network {arch}")
    _check_describes(model, hyperparameters, arch)  # before any file is written
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    settle_save(d, writer=True)  # an earlier save that was interrupted, finished or undone first
    # The new files under temporary names, then the journal, then the swaps (settle_save): a save
    # interrupted anywhere leaves the old checkpoint or the new one, never a mix.
    tmp_model = d / _TMP_MODEL
    model.save(tmp_model)
    from training.actor import NumpyActor

    tmp_actor = d / _TMP_ACTOR
    NumpyActor.from_sb3_policy(model.policy).save_npz(tmp_actor)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION}
    meta.update(env_description(env_spec, normalize))
    meta.update({
        "algorithm": type(model).__name__,
        "hyperparameters": hyperparameters,
        "policy_kwargs": arch,
        "timesteps": int(model.num_timesteps),
        "counters": {"num_timesteps": int(model.num_timesteps), "n_updates": int(getattr(model, "_n_updates", 0)),
                     "episode_num": int(getattr(model, "_episode_num", 0))},
        "seed": seed,
        "complete": bool(complete),
        "versions": library_versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "training_config": training_config,
        "evaluation": evaluation,
        "model_file": MODEL_FILE,
        "model_sha256": sha256_of(tmp_model),
        "actor_file": ACTOR_FILE,
        "actor_sha256": sha256_of(tmp_actor),
    })
    if extra:
        meta.update(extra)
    atomic_write_text(d / SAVING_FILE, json.dumps(meta, indent=2, sort_keys=False) + "\n")
    settle_save(d, writer=True)
    return meta


def _check_describes(model: Any, hyperparameters: dict, arch: dict) -> None:
    """ValueError unless ``hyperparameters`` (validated like a config's ``algorithm``
    section, defaults filled in) are the model's own: loading rebuilds the model from them."""
    from envs.core.errors import ConfigError

    from training.config import SCHEMA

    try:
        hyper = SCHEMA.keys["algorithm"].kind.resolve(hyperparameters, "algorithm")
    except ConfigError as e:
        raise ValueError(f"save_checkpoint: hyperparameters: {e}") from e
    lr = model.learning_rate
    have = {k: getattr(model, k, None) for k in ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
                                                 "ent_coef", "vf_coef", "max_grad_norm", "target_kl",
                                                 "normalize_advantage")}
    have["clip_range"] = model.clip_range(1.0) if callable(model.clip_range) else model.clip_range
    have["learning_rate"] = lr(1.0) if callable(lr) else lr
    have["lr_schedule"] = "constant" if not callable(lr) or lr(0.5) == lr(1.0) else \
        "linear" if lr(0.5) == have["learning_rate"] * 0.5 else "another schedule"
    have.update(net_arch=arch["net_arch"], activation=arch["activation"])
    diff = [f"{k}={hyper[k]!r} (given) vs {v!r} (the model)" for k, v in have.items() if hyper[k] != v]
    if diff:
        raise ValueError("save_checkpoint: the hyperparameters do not describe the model (loading rebuilds it "
                         "from them; keys not given take the config defaults): " + "; ".join(diff))


def update_metadata(directory: str | Path, **fields: Any) -> dict:
    """Change metadata fields (not the model) of an existing checkpoint."""
    d = Path(directory)
    meta = read_metadata(d)
    meta.update(fields)
    _check_structure(d, meta)
    atomic_write_text(d / METADATA_FILE, json.dumps(meta, indent=2) + "\n")
    return meta


# ---------------------------------------------------------------------- reading and verifying
def is_checkpoint(directory: str | Path) -> bool:
    """Whether ``directory`` holds a checkpoint: its metadata, or the journal of a save interrupted after
    its files were complete (which a read rolls forward: a first save stopped there had been invisible to
    ``train --resume``, ``training list`` and a bare directory spec)."""
    d = Path(directory)
    return (d / METADATA_FILE).is_file() or (d / SAVING_FILE).is_file()


def _is_int(x: Any, low: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def _check_structure(d: Path, meta: dict) -> None:
    """The types of the fields loading relies on (a tampered or hand-edited
    metadata file is refused with the field named, not a KeyError later)."""
    problems = []

    def need(ok: bool, field: str, allowed: str) -> None:
        if not ok:
            problems.append(f"{field} = {_short(meta, field)} (allowed: {allowed})")

    need(_label(meta.get("env_id")), "env_id", "an env id")
    need(_label(meta.get("package_version")), "package_version",
         "the version of the package that wrote it, printable text of at most 100 characters")
    need(isinstance(meta.get("env_config"), dict), "env_config", "a mapping of env options")
    env_id = meta.get("env_id")
    if isinstance(env_id, str) and "env_version" in meta:
        need(meta["env_version"] == env_id.rpartition("_")[2], "env_version",
             f"{env_id.rpartition('_')[2]!r}, the version of env_id {env_id!r}")
    need(isinstance(meta.get("complete", False), bool), "complete", "true or false")
    agents = meta.get("agents")
    need(isinstance(agents, list) and bool(agents) and all(isinstance(a, str) for a in agents), "agents",
         "a list of agent names")
    obs = meta.get("observation")
    if isinstance(obs, dict):
        for k in ("raw_shape", "policy_shape"):
            v = obs.get(k)
            need(isinstance(v, list) and len(v) == 1 and _is_int(v[0], 1), f"observation.{k}", "[an integer >= 1]")
        need(isinstance(obs.get("normalized", True), bool), "observation.normalized", "true or false")
        need(isinstance(obs.get("bounds_sha256"), str), "observation.bounds_sha256", "a SHA-256 hex digest")
    else:
        need(False, "observation", "a mapping")
    act = meta.get("action_space")
    need(isinstance(act, dict) and _is_int(act.get("n"), 1), "action_space", '{"n": an integer >= 1}')
    need(isinstance(meta.get("algorithm"), str), "algorithm", "'MaskablePPO'")
    need(isinstance(meta.get("hyperparameters"), dict), "hyperparameters", "a mapping")
    need(isinstance(meta.get("policy_kwargs", {}), dict), "policy_kwargs", "a mapping")
    need(_is_int(meta.get("timesteps")), "timesteps", "an integer >= 0")
    need((_is_int(meta.get("seed")) and meta["seed"] <= MAX_SEED) or meta.get("seed") is None, "seed",
         f"an integer 0..{MAX_SEED} (what SB3 seeds with)")
    need(isinstance(meta.get("model_file"), str), "model_file", PLAIN_NAME)
    need(isinstance(meta.get("model_sha256"), str) and bool(_SHA256.fullmatch(meta["model_sha256"])),
         "model_sha256", "64 lower-case hex digits")
    if meta.get("actor_file") is not None:
        need(isinstance(meta.get("actor_file"), str), "actor_file", PLAIN_NAME)
        need(isinstance(meta.get("actor_sha256"), str) and bool(_SHA256.fullmatch(meta.get("actor_sha256") or "")),
             "actor_sha256", "64 lower-case hex digits")
    if problems:
        raise CheckpointError(f"{_where(d)}: {METADATA_FILE} is malformed: " + "; ".join(problems))


def _label(x: Any) -> bool:
    """A name a message shows: a non-empty printable string of at most 100 characters (an escape
    sequence in a checkpoint's package_version had reached the terminal through a warning)."""
    return isinstance(x, str) and 0 < len(x) <= 100 and x.isprintable()


def _short(meta: dict, field: str) -> str:
    v: Any = meta
    for part in field.split("."):
        v = v.get(part) if isinstance(v, dict) else None
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def read_metadata(directory: str | Path) -> dict:
    """The metadata, with its format and structure checked (no hash or env check)."""
    d = Path(directory)
    if not d.is_dir():
        what = "is a file, not a directory" if d.exists() else "does not exist"
        raise CheckpointError(f"checkpoint {str(d)!r} {what} (expected a directory with {METADATA_FILE}, "
                              f"{ACTOR_FILE} and {MODEL_FILE})")
    path = contained_file(d, METADATA_FILE, "metadata file")
    if (d / SAVING_FILE).is_file():
        settle_save(d)  # a save that was interrupted after its files were complete: finished before reading
    if not path.is_file():
        if path.exists():  # (a directory or a pipe of that name had been "no metadata.json")
            raise CheckpointError(f"checkpoint {str(d)!r}: its {METADATA_FILE} is not a regular file")
        raise CheckpointError(f"checkpoint {str(d)!r} has no {METADATA_FILE}")
    where = f"checkpoint {str(d)!r}: {METADATA_FILE}"
    meta = loads_json(read_text_file(path, where, CheckpointError), where, CheckpointError)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {str(d)!r}: {METADATA_FILE} is not a {FORMAT} metadata file")
    if type(meta.get("format_version")) is not int or meta["format_version"] != FORMAT_VERSION:  # (true, 1.0 had passed)
        raise CheckpointError(f"checkpoint {str(d)!r}: metadata format version {meta.get('format_version')!r}, "
                              f"this code reads version {FORMAT_VERSION}")
    missing = [k for k in REQUIRED_FIELDS if k not in meta]
    if missing:
        raise CheckpointError(f"checkpoint {str(d)!r}: metadata lacks {missing}")
    check_env_version(meta, f"checkpoint {str(d)!r}")
    _check_structure(d, meta)
    if meta["env_id"] in envs.available_env_ids():
        from envs.core.errors import ConfigError

        try:
            trained_env_spec(meta)
        except ConfigError as e:  # the options it records are not the env's: name where they came from
            raise CheckpointError(f"checkpoint {str(d)!r}: {METADATA_FILE} env_config: {e}") from e
    return meta


def check_env_version(meta: dict, where: str) -> None:
    """CheckpointError if ``meta`` was trained for a version of an env that this release replaced
    (``wok_star_v0`` when the registry has ``wok_star_v1``): behaviour or spaces changed, so the
    policy is refused with the version it was trained for and the one to retrain on."""
    env_id = meta.get("env_id")
    if not isinstance(env_id, str) or env_id in envs.ENV_IDS:
        return
    game, _, version = env_id.rpartition("_v")
    now = [e for e in envs.ENV_IDS if e.rpartition("_v")[0] == game] if game and version.isdecimal() else []
    if now and int(version) > int(now[0].rpartition("_v")[2]):  # (a newer version was told to retrain on this one)
        raise CheckpointError(
            f"{where} was trained for {env_id}, a newer version than this release has ({now[0]}): use the "
            f"release it was trained with, or retrain it on {now[0]}")
    if now:
        raise CheckpointError(
            f"{where} was trained for {env_id}, a version this release no longer has: it has {now[0]} "
            f"(the rules, observation or actions changed; see docs/{game}.md, 'Changes in v{now[0].rpartition('_v')[2]}'); "
            f"retrain it on {now[0]}, e.g. python -m training train --config configs/{game}_full.yaml "
            f"--set name=mine (a new run name: the shipped run's is never written)")


def _verify_one(d: Path, what: str, name: str, recorded: str) -> Path:
    path = contained_file(d, name, f"{what} file")
    if not path.is_file():
        what_is = "is not a regular file" if path.exists() else "is missing"  # (a directory had been "missing")
        raise CheckpointError(f"{_where(d)}: {what} file {name!r} {what_is}")
    size = path.stat().st_size
    if size > MAX_ARCHIVE_BYTES:  # (a 2 GiB file had been read whole, 10 s, before the archive check refused it)
        raise CheckpointError(f"{_where(d)}: {what} file {name!r} is {size:,} bytes, more than a checkpoint's file "
                              f"may be ({MAX_ARCHIVE_BYTES:,}); refusing to read it")
    digest = sha256_of(path)
    if digest != recorded:
        raise CheckpointError(
            f"{_where(d)}: {name} is corrupt or was modified: its SHA-256 is {digest[:16]}..., "
            f"metadata.json records {str(recorded)[:16]}...; refusing to load it"
        )
    return path


def verify_file(directory: str | Path, meta: dict | None = None) -> dict:
    """Check the model file (and the actor export, if recorded): plain names
    inside the directory, present, and matching their SHA-256."""
    d = Path(directory)
    meta = meta or read_metadata(d)
    _verify_one(d, "model", meta["model_file"], meta["model_sha256"])
    if meta.get("actor_file"):
        _verify_one(d, "actor", meta["actor_file"], meta["actor_sha256"])
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
    elif list(meta["observation"]["policy_shape"]) != have["observation"]["policy_shape"]:
        hard.append(f"policy input size {meta['observation']['policy_shape']} vs {have['observation']['policy_shape']}")
    if int(meta["action_space"]["n"]) != have["action_space"]["n"]:
        hard.append(f"number of actions {meta['action_space']['n']} vs {have['action_space']['n']}")
    now = have["env_config"]
    # An option the env gained after the checkpoint was trained played at its default then (new
    # options default to the old behaviour, e.g. Waroong Wars' own_picks): not a difference.
    defaults = env_spec.raw_cls().config_spec().defaults()
    trained = {**{k: defaults[k] for k in now if k in defaults}, **(meta.get("env_config") or {})}
    diff = [k for k in differing_options(trained, now) if k != "illegal_action"]
    diff_text = ", ".join(f"{k}={trained.get(k)!r} (trained) vs {now.get(k)!r}" for k in diff)
    if hard:
        fits = shipped_fitting(env_spec)
        raise CheckpointError(
            f"{where} does not fit {env_spec.label()}: " + "; ".join(hard)
            + (f" (option differences: {diff_text})" if diff else "")
            + "; use a checkpoint trained with these options"
            + (f" (shipped: {', '.join(f'checkpoint:{d}' for d in fits)})" if fits else "")
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


# ---------------------------------------------------------------------- rebuilding the model
def model_settings(meta: dict, where: str = "checkpoint") -> tuple[dict, dict]:
    """``(hyperparameters, architecture)`` of the metadata, validated: the
    hyperparameters by the config schema's ``algorithm`` section, the network
    as ``{"net_arch": [...], "activation": "tanh" | "relu"}``."""
    from envs.core.errors import ConfigError

    from training.config import SCHEMA

    try:
        hyper = SCHEMA.keys["algorithm"].kind.resolve(meta["hyperparameters"], "algorithm")
    except ConfigError as e:
        raise CheckpointError(f"{where}: metadata hyperparameters: {e}") from e
    pk = meta.get("policy_kwargs") or {"net_arch": hyper["net_arch"], "activation": hyper["activation"]}
    net_arch, activation = pk.get("net_arch"), pk.get("activation")
    if (not isinstance(net_arch, list) or not net_arch or not all(_is_int(h, 1) for h in net_arch)
            or not isinstance(activation, str) or activation not in ACTIVATIONS or set(pk) - {"net_arch", "activation"}):
        raise CheckpointError(f"{where}: metadata policy_kwargs {pk!r} is not allowed; allowed: "
                              f'{{"net_arch": a list of integers >= 1, "activation": one of {sorted(ACTIVATIONS)}}}')
    if [int(h) for h in hyper["net_arch"]] != net_arch or hyper["activation"] != activation:
        raise CheckpointError(f"{where}: metadata hyperparameters (net_arch {hyper['net_arch']}, activation "
                              f"{hyper['activation']!r}) disagree with policy_kwargs {pk}")
    return hyper, {"net_arch": list(net_arch), "activation": activation}


def _counters(meta: dict, where: str) -> dict[str, int]:
    c = meta.get("counters")
    if c is None:  # written before counters were recorded
        return {"num_timesteps": int(meta["timesteps"]), "n_updates": 0, "episode_num": 0}
    keys = ("num_timesteps", "n_updates", "episode_num")
    if not isinstance(c, dict) or set(c) != set(keys) or not all(_is_int(c[k]) for k in keys) \
            or c["num_timesteps"] != meta["timesteps"]:
        raise CheckpointError(f"{where}: metadata counters {c!r} are not allowed; allowed: {{num_timesteps: the "
                              f"metadata's timesteps, n_updates: an integer >= 0, episode_num: an integer >= 0}}")
    return {k: int(c[k]) for k in keys}


def read_model_params(path: str | Path, device: str = "cpu", where: str = "checkpoint") -> dict:
    """The torch state dicts of a MaskablePPO ``model.zip``, tensors only: SB3's
    ``load_from_zip_file(load_data=False)`` (the pickled ``data`` entry is never
    decoded; each ``.pth`` is read with ``torch.load(weights_only=True)``), and
    exactly :data:`MODEL_PARAMS` are allowed."""
    from stable_baselines3.common.save_util import load_from_zip_file

    name = Path(path).name
    check_archive(path, f"{where}: {name}", CheckpointError)
    try:
        with warnings.catch_warnings():  # (torch's multi-line warning about the pickle protocol)
            warnings.simplefilter("ignore")
            _, params, _ = load_from_zip_file(path, device=device, load_data=False)
    except Exception as e:  # noqa: BLE001 - torch's weights-only refusal, a bad zip: all a bad file
        first = first_line(e)
        if "weights_only" in str(e) or "Weights only load failed" in first:  # (torch's advice, to load it unsafely, is not ours)
            first = "it holds Python objects besides tensors, and nothing in a checkpoint is unpickled"
        raise CheckpointError(f"{where}: {name} does not load (tensors only): {type(e).__name__}: {first}") from e
    if sorted(params) != sorted(MODEL_PARAMS):
        raise CheckpointError(f"{where}: {name} holds the state dicts {sorted(params)}; allowed: exactly "
                              f"{list(MODEL_PARAMS)}")
    import torch

    stack = [(group, tensors, 0) for group, tensors in params.items()]
    while stack:  # (NaN weights had loaded, and training then failed in torch); the optimizer's state too
        path, value, depth = stack.pop()
        if isinstance(value, torch.Tensor):
            if value.dtype not in (torch.float32, torch.float64):  # (int and bool weights had been cast silently)
                raise CheckpointError(f"{where}: {name}: {path} holds {value.dtype} values; a checkpoint's "
                                      f"weights and optimizer state are float32 (or float64) numbers")
            if not bool(torch.isfinite(value).all()):
                raise CheckpointError(f"{where}: {name}: {path} holds non-finite values (NaN or infinity); a "
                                      f"checkpoint's weights are finite numbers")
        elif isinstance(value, (dict, list, tuple)) and depth < 6:
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((f"{path}[{k!r}]", v, depth + 1) for k, v in items)
    return params


def _check_optimizer(saved: Any, model: Any, where: str, name: str) -> None:
    """The optimizer state of ``model.zip`` fits the optimizer the metadata rebuilds (``model``'s, still
    fresh): the same settings but the learning rate (its schedule sets it each update), the same
    parameters, and per parameter Adam's ``step`` (a count >= 0), ``exp_avg`` and ``exp_avg_sq`` (>= 0)
    of that parameter's shape. The file's settings had replaced the metadata's (``maximize``: gradient
    ascent), and states of another shape or sign had loaded, then failed or turned the weights to NaN
    at the first update."""
    import torch

    def refuse(what: str) -> CheckpointError:
        return CheckpointError(f"{where}: {name}: the optimizer state {what}")

    ref = model.policy.optimizer.state_dict()
    if not isinstance(saved, dict) or set(saved) != {"state", "param_groups"}:
        raise refuse("is not {'state': ..., 'param_groups': [...]}")
    groups, state = saved["param_groups"], saved["state"]
    if not isinstance(groups, list) or len(groups) != len(ref["param_groups"]):
        raise refuse(f"has {len(groups) if isinstance(groups, list) else '?'} parameter groups; the optimizer the "
                     f"metadata describes has {len(ref['param_groups'])}")
    shapes = [tuple(p.shape) for p in model.policy.parameters()]
    for g, r in zip(groups, ref["param_groups"]):
        if not isinstance(g, dict) or set(g) - set(r):
            raise refuse(f"has settings {sorted(set(g) - set(r)) if isinstance(g, dict) else g!r} that "
                         f"{type(model.policy.optimizer).__name__} does not have")
        for k in set(g) & set(r) - {"lr", "initial_lr"}:
            if g[k] != r[k]:
                raise refuse(f"sets {k}={g[k]!r} where the metadata's hyperparameters give {r[k]!r}")
        if not (isinstance(g.get("lr"), (int, float)) and not isinstance(g["lr"], bool) and math.isfinite(g["lr"])):
            raise refuse(f"sets lr={g.get('lr')!r}; allowed: a finite number (the schedule sets it each update; a "
                         f"linear one ends a hair below 0)")
    if not isinstance(state, dict) or not set(state) <= set(range(len(shapes))):
        raise refuse(f"is kept for parameters {sorted(state, key=str) if isinstance(state, dict) else state!r}; "
                     f"allowed: indices 0..{len(shapes) - 1}")
    for i, st in state.items():
        if not isinstance(st, dict) or set(st) != {"step", "exp_avg", "exp_avg_sq"}:
            raise refuse(f"of parameter {i} holds {sorted(st) if isinstance(st, dict) else st!r}; allowed: "
                         f"exactly step, exp_avg, exp_avg_sq (Adam's)")
        step = st["step"]
        if not isinstance(step, torch.Tensor) or step.shape != () or float(step) < 0 or float(step) != int(step):
            raise refuse(f"of parameter {i}: step {step!r}; allowed: a count of updates >= 0")
        for k in ("exp_avg", "exp_avg_sq"):
            if not isinstance(st[k], torch.Tensor) or tuple(st[k].shape) != shapes[i]:
                raise refuse(f"of parameter {i}: {k} of shape {tuple(getattr(st[k], 'shape', ()))}; allowed: the "
                             f"parameter's shape {shapes[i]}")
        if bool((st["exp_avg_sq"] < 0).any()):
            raise refuse(f"of parameter {i}: exp_avg_sq holds negative values; a mean of squares is >= 0")


def _check_widths(params: dict, arch: dict, where: str, name: str) -> None:
    """The hidden widths of the tensors' policy network are the metadata's ``net_arch``, checked before the
    network is built (a tampered ``net_arch`` of 4,096 had built the whole network, 15.7 s, before the
    refusal; the schema allows 65,536 a layer)."""
    policy = params.get("policy")
    if not isinstance(policy, dict):
        return
    widths = []
    while f"mlp_extractor.policy_net.{2 * len(widths)}.weight" in policy:
        widths.append(int(policy[f"mlp_extractor.policy_net.{2 * len(widths)}.weight"].shape[0]))
    if widths != list(arch["net_arch"]):
        raise CheckpointError(f"{where}: {name} holds a policy network of hidden widths {widths}, where the metadata "
                              f"says net_arch {list(arch['net_arch'])}")


def load_checkpoint(directory: str | Path, env_spec: EnvSpec | None = None, strict: bool = False,
                    device: str = "cpu", env: Any = None):
    """Verified ``(model, metadata)``; ``env_spec`` defaults to the one recorded.

    The MaskablePPO is rebuilt from the metadata (hyperparameters, network, the
    spaces of ``env_spec``'s encoder) and only tensors are loaded into it (see
    :func:`read_model_params`); ``num_timesteps`` and the update and episode
    counters come from the metadata. ``env`` (a VecEnv, possibly with another
    number of slots) is attached to the model, as ``MaskablePPO.load(...,
    env=env)`` does; its spaces must be the checkpoint's."""
    d = Path(directory)
    where = _where(d)
    meta = verify_file(d)
    if meta["algorithm"] != "MaskablePPO":
        hint = " (an RLlib checkpoint: train or resume it with --backend rllib)" if meta["algorithm"] == "rllib-ppo" else ""
        raise CheckpointError(f"{where}: algorithm {meta['algorithm']!r} is not supported; allowed: 'MaskablePPO'{hint}")
    if env_spec is None:
        env_spec = _trained_spec(meta, where)
    check_env(meta, env_spec, where, strict)
    hyper, arch = model_settings(meta, where)
    counters = _counters(meta, where)
    if meta.get("actor_file"):  # the network the export was written from is the one the metadata describes
        try:  # (an activation edited in metadata.json had rebuilt tanh weights as relu, and trained them)
            actor = _read_actor(d, meta, arch, where)
        except CheckpointError:
            actor = None  # a damaged export: acting refuses it; resuming reads the tensors, and saves a new one
        if actor is not None:
            _expect_actor(actor, meta, arch, where)
    params = read_model_params(d / meta["model_file"], device, where)
    _check_widths(params, arch, where, meta["model_file"])
    model = build_model(hyper, arch, env_spec, bool(meta["observation"].get("normalized", True)),
                        seed=meta.get("seed"), device=device, env=env, where=where)
    _check_optimizer(params["policy.optimizer"], model, where, meta["model_file"])
    try:
        model.set_parameters(params, exact_match=True, device=device)
    except Exception as e:  # noqa: BLE001 - shapes or names that do not fit the network
        said = " ".join(str(e).split())  # (the names that differ are on the message's later lines)
        raise CheckpointError(f"{where}: {meta['model_file']} does not fit the network the metadata describes "
                              f"({arch}): {type(e).__name__}: {said[:600]}") from e
    model.num_timesteps = counters["num_timesteps"]
    model._n_updates = counters["n_updates"]
    model._episode_num = counters["episode_num"]
    return model, meta


def build_model(hyper: dict, arch: dict, env_spec: EnvSpec, normalize: bool, *, seed: int | None = None,
                device: str = "cpu", env: Any = None, where: str = "checkpoint"):
    """A fresh MaskablePPO with these (validated) hyperparameters and network, for
    ``env_spec``'s observation encoding; attached to ``env`` if given."""
    import torch.nn as nn
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import check_for_correct_spaces

    from training.sampling import MaskablePolicy

    encoder = SeatEncoder.for_env(env_spec.make(), normalize)
    obs_space, act_space = encoder.space, spaces.Discrete(encoder.n_actions)
    lr = hyper["learning_rate"]
    schedule: Any = lr if hyper["lr_schedule"] == "constant" else (lambda progress, lr=lr: lr * progress)
    kwargs = {k: hyper[k] for k in ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
                                    "ent_coef", "vf_coef", "max_grad_norm", "target_kl", "normalize_advantage")}
    policy_kwargs = {"net_arch": list(arch["net_arch"]), "activation_fn": getattr(nn, ACTIVATIONS[arch["activation"]])}
    model = MaskablePPO(MaskablePolicy, env, learning_rate=schedule, policy_kwargs=policy_kwargs, seed=seed,
                        device=device, verbose=0, _init_setup_model=False, **kwargs)
    if env is None:
        model.observation_space, model.action_space, model.n_envs = obs_space, act_space, 1
    else:
        try:
            check_for_correct_spaces(model.env, obs_space, act_space)
        except ValueError as e:
            raise CheckpointError(f"{where}: the env given does not fit the checkpoint: {e}") from e
    model._setup_model()
    return model


def load_actor(directory: str | Path, env_spec: EnvSpec | None = None, strict: bool = False):
    """Verified ``(NumpyActor, metadata)`` for acting, from ``actor.npz`` only
    (no torch, nothing unpickled); a checkpoint without it is refused."""
    from training.actor import NumpyActor

    d = Path(directory)
    where = _where(d)
    meta = read_metadata(d)
    if not meta.get("actor_file"):
        raise CheckpointError(
            f"{where} has no actor export (its metadata names no actor_file): acting reads only {ACTOR_FILE}, "
            f"never {meta['model_file']}; write one with training.checkpoints.export_actor({str(d)!r})")
    verify_file(d, meta)
    if env_spec is None:
        env_spec = _trained_spec(meta, where)
    check_env(meta, env_spec, where, strict)
    _, arch = model_settings(meta, where)
    actor = _read_actor(d, meta, arch, where)
    _expect_actor(actor, meta, arch, where)
    return actor, meta


def _trained_spec(meta: dict, where: str) -> EnvSpec:
    """:func:`trained_env_spec`, an env id or options this checkout does not have named as the checkpoint's."""
    from envs.core.errors import ConfigError

    try:
        return trained_env_spec(meta)
    except ConfigError as e:
        raise CheckpointError(f"{where}: {METADATA_FILE} env_id/env_config: {e}") from e


def _read_actor(d: Path, meta: dict, arch: dict, where: str):
    """The actor export (its hash verified by the caller). Its archive may hold no more than the arrays
    of the network the metadata describes, in float64: a small file that inflated to 1 GiB of declared
    arrays had been read whole before the refusal."""
    from training.actor import NumpyActor

    path = d / meta["actor_file"]
    sizes = [meta["observation"]["policy_shape"][0], *arch["net_arch"], meta["action_space"]["n"]]
    floats = sum(a * b + b for a, b in zip(sizes, sizes[1:]))
    check_archive(path, f"{where}: {meta['actor_file']}", CheckpointError,
                  max_bytes=8 * floats + 1024 * (2 * len(sizes) + 2), max_members=2 * len(sizes) + 1)
    try:
        actor = NumpyActor.load_npz(path)
    except Exception as e:  # noqa: BLE001
        raise CheckpointError(f"{where}: {meta['actor_file']} does not load: {type(e).__name__}: {e}") from e
    return actor


def _expect_actor(actor: Any, meta: dict, arch: dict, where: str) -> None:
    """The actor is the network the metadata describes: input and action sizes, widths, activation."""
    try:
        actor.expect(meta["observation"]["policy_shape"][0], meta["action_space"]["n"], arch["net_arch"],
                     ACTIVATIONS[arch["activation"]])
    except ValueError as e:
        raise CheckpointError(f"{where}: {meta['actor_file']}: {e} (from metadata.json)") from e


def export_actor(directory: str | Path, device: str = "cpu") -> dict:
    """Write ``actor.npz`` for a checkpoint that lacks it (from its tensors,
    loaded as :func:`load_checkpoint` does) and record it in the metadata."""
    from training.actor import NumpyActor

    d = Path(directory)
    model, meta = load_checkpoint(d, device=device)
    path = contained_file(d, ACTOR_FILE, "actor file")
    tmp = d / (ACTOR_FILE + ".tmp")
    NumpyActor.from_sb3_policy(model.policy).save_npz(tmp)
    os.replace(tmp, path)
    return update_metadata(d, actor_file=ACTOR_FILE, actor_sha256=sha256_of(path))


def _trained_options(meta: dict) -> dict:
    """The env options a checkpoint was trained with (render_mode excluded)."""
    return {k: v for k, v in (meta.get("env_config") or {}).items() if k not in ("render_mode",)}


def trained_env_spec(meta: dict) -> EnvSpec:
    return EnvSpec.resolve(meta["env_id"], _trained_options(meta)).compact()


# ---------------------------------------------------------------------- shipped checkpoints
def read_manifest(root: str | Path = "checkpoints") -> dict[str, dict[str, str]]:
    """``{"<game>/<name>": {file name: SHA-256}}`` from ``root/MANIFEST.json``:
    the checkpoints shipped with the project (other directories are users' runs)."""
    r = Path(root)
    path = r / MANIFEST_FILE
    try:
        data = loads_json(read_text_file(path, str(path), CheckpointError), str(path), CheckpointError)
    except FileNotFoundError as e:
        raise CheckpointError(f"{path} is missing (it lists the shipped checkpoints)") from e
    entries = data.get("checkpoints") if isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT else None
    if not isinstance(entries, dict):
        raise CheckpointError(f"{path} is not a {MANIFEST_FORMAT} file with a 'checkpoints' mapping")
    for name, files in entries.items():
        parts = name.split("/") if isinstance(name, str) else []
        if len(parts) != 2 or any(p in ("", ".", "..") or "\\" in p for p in parts):
            raise CheckpointError(f"{path}: entry {name!r} is not allowed; allowed: '<game>/<name>' under {r}")
        if not isinstance(files, dict) or METADATA_FILE not in files or not all(
                isinstance(f, str) and isinstance(h, str) and _SHA256.fullmatch(h) for f, h in files.items()):
            raise CheckpointError(f"{path}: entry {name!r} must map file names (metadata.json included) to "
                                  f"SHA-256 digests")
    return entries


#: The project's own checkpoints directory (its MANIFEST.json lists the shipped ones).
REPO_CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"


def shipped_fitting(env_spec: EnvSpec) -> list[str]:
    """The shipped checkpoints (``checkpoints/<game>/<name>``, as the project names them) whose
    seats, observation and actions fit ``env_spec``: the hint when another one does not fit
    (a 4-player game needs a 4-player policy). Empty when the manifest cannot be read."""
    try:
        names = sorted(read_manifest(REPO_CHECKPOINTS))
    except CheckpointError:
        return []
    out = []
    for name in names:
        try:
            meta = read_metadata(REPO_CHECKPOINTS / name)
            have = env_description(env_spec, bool(meta["observation"].get("normalized", True)))
        except (CheckpointError, KeyError, TypeError, AttributeError):
            continue
        if (meta.get("env_id") == have["env_id"] and list(meta["agents"]) == have["agents"]
                and list(meta["observation"]["raw_shape"]) == have["observation"]["raw_shape"]
                and meta["observation"].get("bounds_sha256") == have["observation"]["bounds_sha256"]
                and int(meta["action_space"]["n"]) == have["action_space"]["n"]):
            out.append(_from_here(REPO_CHECKPOINTS / name))
    return out


def _from_here(path: Path) -> str:
    """``path`` as a command run from this working directory names it: relative where it lies below
    it (``checkpoints/<game>/<name>`` from the project), else absolute (the hint had named the
    project's relative path wherever the command ran, and that path did not exist there)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def shipped_checkpoints(root: str | Path = "checkpoints") -> list[Path]:
    """The shipped checkpoint directories listed in ``root/MANIFEST.json``, in order."""
    r = Path(root)
    return [r / name for name in sorted(read_manifest(r))]


def verify_shipped(root: str | Path, name: str) -> Path:
    """Raise CheckpointError unless every file the manifest lists for ``name`` matches its SHA-256."""
    r = Path(root)
    files = read_manifest(r)[name]
    d = r / name
    for f, digest in files.items():
        _verify_one(d, "shipped", f, digest)
    return d


def pending_checkpoints(root: str | Path = "checkpoints") -> dict[str, str]:
    """``{"<game>/<name>": why}``: shipped checkpoints the manifest says are not there yet (being
    retrained after an env version change); never a shipped one too."""
    r = Path(root)
    path = r / MANIFEST_FILE
    shipped = read_manifest(r)  # a missing or malformed manifest is refused there, with what is allowed
    data = loads_json(read_text_file(path, str(path), CheckpointError), str(path), CheckpointError)
    pending = data.get("pending", {})
    if not isinstance(pending, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in pending.items()):
        raise CheckpointError(f"{path}: 'pending' must map '<game>/<name>' to a reason (a string); got {pending!r:.200}")
    both = sorted(set(pending) & set(shipped))
    if both:
        raise CheckpointError(f"{path}: {both} are both shipped and pending")
    return pending


def write_manifest(root: str | Path, names: list[str], pending: dict[str, str] | None = None) -> dict:
    """(Re)write ``root/MANIFEST.json`` for the checkpoints ``names`` (``<game>/<name>``):
    the SHA-256 of their metadata, actor and model files; ``pending``: the shipped checkpoints
    still being retrained, with why."""
    r = Path(root)
    entries = {}
    for name in sorted(names):
        d = r / name
        meta = verify_file(d)
        files = [METADATA_FILE, meta["model_file"]] + ([meta["actor_file"]] if meta.get("actor_file") else [])
        entries[name] = {f: sha256_of(contained_file(d, f)) for f in files}
    data = {"format": MANIFEST_FORMAT, "format_version": 1,
            "about": "The checkpoints shipped with Kitchen Arena and the SHA-256 of their files; other directories "
                     "here are users' own runs. Regenerate: python -c \"from training.checkpoints import "
                     "write_manifest; write_manifest('checkpoints', [...])\"",
            "checkpoints": entries}
    if pending:
        data["pending"] = {k: pending[k] for k in sorted(pending) if k not in entries}
    atomic_write_text(r / MANIFEST_FILE, json.dumps(data, indent=2) + "\n")
    return data
