"""A checkpoint folder cannot run code (issue 12, item 1).

Payloads are planted wherever a loader reads a file: a pickle whose
``__reduce__`` creates a marker file, in ``model.zip``'s ``data`` entry (what
``MaskablePPO.load`` unpickles with cloudpickle), in its ``policy.pth``, in
``actor.npz`` (an object array), in the self-play pool (a legacy
``snapshot_*.pkl`` and an ``.npz`` with an object array). Each hash in the
metadata (or ``pool.json``) is rewritten to match, since it sits in the same
folder. Every loading path then runs: the Python API, ``evaluate`` (worker
processes included), ``watch``, ``tournament``, ``train --resume``, policy
specs inside a training config; each must refuse or succeed, and the marker
must never appear. Controls show that every payload is live: unpickled the
ordinary way (SB3's own ``MaskablePPO.load`` for ``data``), it creates the
marker.

Also: file names in the metadata are plain names inside the folder, the whole
layer-shape chain of ``actor.npz`` is checked, counters come from the
metadata, acting never falls back to ``model.zip``.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from tests.training.conftest import toy_config
from training import checkpoints as ckmod
from training.checkpoints import (CheckpointError, export_actor, load_actor, load_checkpoint, read_metadata,
                                  sha256_of)
from training.cli import main
from training.config import load_config
from training.envspec import EnvSpec
from training.policies import load_policy, make_policy
from training.trainer import train

torch.set_num_threads(1)
QUIET = {"log": lambda s: None}


class Payload:
    """Unpickling this creates ``marker``: proof that a loader executed pickled code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


# ---------------------------------------------------------------------- planting
def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _rewrite_meta(ck: Path, **fields) -> dict:
    meta = json.loads((ck / "metadata.json").read_text())
    meta.update(fields)
    (ck / "metadata.json").write_text(json.dumps(meta, indent=2))
    return meta


def _rehash(ck: Path) -> None:
    meta = json.loads((ck / "metadata.json").read_text())
    fields = {"model_sha256": sha256_of(ck / meta["model_file"])}
    if meta.get("actor_file"):
        fields["actor_sha256"] = sha256_of(ck / meta["actor_file"])
    _rewrite_meta(ck, **fields)


def _rewrite_zip(path: Path, change) -> None:
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    change(entries)
    with zipfile.ZipFile(path, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)


def _put_pth(ck: Path, name: str, state: dict) -> None:
    """``model.zip`` with ``name`` set to ``torch.save(state)`` (added or replaced), hashes updated."""
    def change(entries):
        buf = io.BytesIO()
        torch.save(state, buf)
        entries[name] = buf.getvalue()

    _rewrite_zip(ck / "model.zip", change)
    _rehash(ck)


def plant_in_model_data(ck: Path, marker: Path) -> None:
    """A cloudpickle-serialized value in model.zip's ``data`` JSON (SB3's ':serialized:' form)."""
    def change(entries):
        data = json.loads(entries["data"])
        data["kitchen_arena_payload"] = {":type:": "<class 'object'>",
                                         ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}
        entries["data"] = json.dumps(data).encode()

    _rewrite_zip(ck / "model.zip", change)
    _rehash(ck)


def plant_in_policy_pth(ck: Path, marker: Path) -> None:
    def change(entries):
        buf = io.BytesIO()
        torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buf)
        entries["policy.pth"] = buf.getvalue()

    _rewrite_zip(ck / "model.zip", change)
    _rehash(ck)


def plant_in_actor(ck: Path, marker: Path) -> None:
    with np.load(ck / "actor.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["activation"] = np.array([Payload(marker)], dtype=object)
    with open(ck / "actor.npz", "wb") as f:
        np.savez(f, **arrays)
    _rehash(ck)


def drop_actor_file(ck: Path) -> None:
    meta = json.loads((ck / "metadata.json").read_text())
    meta.pop("actor_file")
    meta.pop("actor_sha256")
    (ck / "metadata.json").write_text(json.dumps(meta))


@pytest.fixture
def marker(tmp_path):
    m = tmp_path / "PAYLOAD_RAN"
    yield m
    assert not m.exists(), "a planted payload ran"


# ---------------------------------------------------------------------- the payloads are live
def test_controls_every_planted_payload_runs_when_unpickled_the_ordinary_way(toy_checkpoint, toy_registry, tmp_path):
    from sb3_contrib import MaskablePPO

    m = tmp_path / "control"
    ck = _copy(toy_checkpoint, tmp_path / "data")
    plant_in_model_data(ck, m)
    MaskablePPO.load(ck / "model.zip")  # SB3's own loader: what load_checkpoint called before
    assert m.exists()
    m.unlink()
    ck = _copy(toy_checkpoint, tmp_path / "pth")
    plant_in_policy_pth(ck, m)
    with zipfile.ZipFile(ck / "model.zip") as z:
        torch.load(io.BytesIO(z.read("policy.pth")), weights_only=False)
    assert m.exists()
    m.unlink()
    ck = _copy(toy_checkpoint, tmp_path / "actor")
    plant_in_actor(ck, m)
    with np.load(ck / "actor.npz", allow_pickle=True) as z:
        z["activation"]
    assert m.exists()
    m.unlink()
    pickle.loads(pickle.dumps(Payload(m)))  # the pool's old snapshot_*.pkl format
    assert m.exists()


# ---------------------------------------------------------------------- the Python loading API
def test_python_api_never_unpickles_model_data(toy_checkpoint, toy_registry, tmp_path, marker):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_model_data(ck, marker)
    model, meta = load_checkpoint(ck)  # succeeds: only tensors are read
    ref, _ = load_checkpoint(toy_checkpoint)
    for a, b in zip(model.policy.state_dict().values(), ref.policy.state_dict().values()):
        assert torch.equal(a, b)
    assert not hasattr(model, "kitchen_arena_payload")
    load_actor(ck)
    spec = EnvSpec.resolve("toy_v0", {"players": 2})
    for s in (f"checkpoint:{ck}", str(ck), f"checkpoint:{ck}?deterministic=false&strict=true"):
        make_policy(s, spec)
    load_policy(ck)
    assert not marker.exists()


def test_python_api_refuses_a_pickle_in_policy_pth(toy_checkpoint, toy_registry, tmp_path, marker):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_policy_pth(ck, marker)
    with pytest.raises(CheckpointError, match="model.zip does not load \\(tensors only\\)"):
        load_checkpoint(ck)
    load_actor(ck)  # acting never opens model.zip beyond its hash
    assert not marker.exists()


def test_model_zip_holds_only_the_policy_and_optimizer_state_dicts(toy_checkpoint, toy_registry, tmp_path):
    ck = _copy(toy_checkpoint, tmp_path / "ck")

    _put_pth(ck, "lr_schedule.pth", {"x": torch.zeros(1)})
    with pytest.raises(CheckpointError, match=r"holds the state dicts .*lr_schedule.*allowed: exactly \['policy', "
                                              r"'policy.optimizer'\]"):
        load_checkpoint(ck)


def test_python_api_refuses_an_object_array_in_actor_npz(toy_checkpoint, toy_registry, tmp_path, marker):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_actor(ck, marker)
    with pytest.raises(CheckpointError, match="actor.npz does not load: ValueError: Object arrays cannot be loaded"):
        load_actor(ck)
    with pytest.raises(CheckpointError, match="actor.npz does not load"):
        load_policy(ck)
    load_checkpoint(ck)  # the model's own tensors are intact
    assert not marker.exists()


def test_acting_without_actor_npz_is_refused_never_a_fallback_to_model_zip(toy_checkpoint, toy_registry, tmp_path,
                                                                             marker):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_model_data(ck, marker)
    drop_actor_file(ck)
    (ck / "actor.npz").unlink()
    spec = EnvSpec.resolve("toy_v0", {"players": 2})
    for attempt in (lambda: load_actor(ck), lambda: make_policy(f"checkpoint:{ck}", spec), lambda: load_policy(ck)):
        with pytest.raises(CheckpointError, match="has no actor export .*acting reads only actor.npz, never model.zip"):
            attempt()
    assert not marker.exists()
    meta = export_actor(ck)  # the remedy the message names: from the tensors, nothing unpickled
    assert meta["actor_file"] == "actor.npz" and meta["actor_sha256"] == sha256_of(ck / "actor.npz")
    with np.load(ck / "actor.npz") as new, np.load(toy_checkpoint / "actor.npz") as old:
        assert new.files == old.files and all(np.array_equal(new[k], old[k]) for k in old.files)
    make_policy(f"checkpoint:{ck}", spec)


# ---------------------------------------------------------------------- the command line
def _run(args, capsys) -> tuple[int, str]:
    try:
        rc = main(args)
    except SystemExit as e:  # argparse
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out + out.err


def test_evaluate_watch_tournament_never_run_a_payload(toy_checkpoint, toy_registry, tmp_path, marker, capsys):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_model_data(ck, marker)
    commands = [["evaluate", f"checkpoint:{ck}", "--against", "random", "--games", "40", "--workers", "2"],
                ["watch", f"checkpoint:{ck}", "--max-steps", "3", "--no-clear"],
                ["tournament", f"checkpoint:{ck}", "random", "--games", "4", "--workers", "1"]]
    for args in commands:  # with actor.npz: they play, reading only actor.npz
        rc, out = _run(args, capsys)
        assert rc == 0, out
        assert not marker.exists(), args[0]
    drop_actor_file(ck)  # what used to fall back to MaskablePPO.load(model.zip), in the workers too
    for args in commands:
        rc, out = _run(args, capsys)
        assert "acting reads only actor.npz" in out, out
        assert rc != 0 or "n/a" in out, out
        assert not marker.exists(), args[0]


def test_an_evaluation_worker_process_never_runs_a_payload(toy_checkpoint, toy_registry, tmp_path, marker):
    """The worker's own loading (``evaluate`` checks in the parent first; this
    goes straight to what a spawned worker does)."""
    import multiprocessing as mp

    from training.evaluation import _chunk_worker

    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_model_data(ck, marker)
    spec = EnvSpec.resolve("toy_v0", {"players": 2})
    jobs = [(spec, f"checkpoint:{ck}", "random", [0, 1], True, False)]  # ..., deterministic, record
    with mp.get_context("spawn").Pool(1) as pool:
        games = pool.map(_chunk_worker, jobs)[0]
        assert len(games) == 2 and not marker.exists()
        drop_actor_file(ck)
        with pytest.raises(CheckpointError, match="acting reads only actor.npz"):
            pool.map(_chunk_worker, jobs)
    assert not marker.exists()


@pytest.fixture(scope="module")
def resumable_run(tmp_path_factory):
    """A finished tiny run (512 steps, self-play pool on disk) to copy and resume."""
    from tests.training.conftest import registered_toys

    tmp = tmp_path_factory.mktemp("resumable")
    with registered_toys():
        train(load_config(raw=toy_config(tmp, training={"total_timesteps": 512}, evaluation={"games": 2})), **QUIET)
    return tmp


def _resume_copy(resumable_run, tmp_path) -> tuple[Path, Path, Path]:
    root = tmp_path / "run"
    shutil.copytree(resumable_run, root)
    cfg = root / "config.yaml"
    cfg.write_text(yaml.safe_dump(toy_config(root, training={"total_timesteps": 768, "progress_bar": False},
                                             evaluation={"games": 2})))
    return cfg, root / "checkpoints" / "toy" / "tiny", root / "runs" / "toy" / "tiny" / "pool"


def test_train_resume_reads_only_tensors_and_never_unpickles_the_pool(resumable_run, toy_registry, tmp_path,
                                                                       marker, capsys):
    cfg, ck, pool = _resume_copy(resumable_run, tmp_path)
    plant_in_model_data(ck, marker)
    (pool / "snapshot_999.pkl").write_bytes(pickle.dumps(Payload(marker)))  # the old pool format
    with pytest.warns(UserWarning, match="pickled snapshot.*snapshot_999.pkl.*never unpickled"):
        rc, out = _run(["train", "--config", str(cfg), "--resume", "--quiet"], capsys)
    assert not marker.exists()
    assert rc == 0, out
    assert read_metadata(ck)["timesteps"] >= 768 and read_metadata(ck)["counters"]["n_updates"] > 0
    index = json.loads((pool / "pool.json").read_text())  # the pool on disk: hashed .npz files only
    assert sorted(p.name for p in pool.glob("snapshot_*.npz")) == sorted(e["file"] for e in index["snapshots"])
    assert all(sha256_of(pool / e["file"]) == e["sha256"] for e in index["snapshots"])
    assert [p.name for p in pool.glob("*.pkl")] == ["snapshot_999.pkl"]  # left alone, never read


def test_train_resume_refuses_a_pickle_in_an_npz_pool_snapshot(resumable_run, toy_registry, tmp_path, marker,
                                                                capsys):
    cfg, ck, pool = _resume_copy(resumable_run, tmp_path)
    index = json.loads((pool / "pool.json").read_text())
    last = pool / index["snapshots"][-1]["file"]
    with np.load(last) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["w0"] = np.array([Payload(marker)], dtype=object)
    with open(last, "wb") as f:
        np.savez(f, **arrays)
    index["snapshots"][-1]["sha256"] = sha256_of(last)
    (pool / "pool.json").write_text(json.dumps(index))
    before = (ck / "metadata.json").read_bytes()
    rc, out = _run(["train", "--config", str(cfg), "--resume", "--quiet"], capsys)
    assert rc == 2 and "self-play snapshot" in out and "Object arrays cannot be loaded" in out, out
    assert (ck / "metadata.json").read_bytes() == before  # nothing saved
    assert not marker.exists()


def test_train_resume_refuses_a_pickle_in_policy_pth(resumable_run, toy_registry, tmp_path, marker, capsys):
    cfg, ck, _ = _resume_copy(resumable_run, tmp_path)
    plant_in_policy_pth(ck, marker)
    rc, out = _run(["train", "--config", str(cfg), "--resume", "--quiet"], capsys)
    assert rc == 2 and "does not load (tensors only)" in out, out
    assert not marker.exists()


def test_a_resumed_run_records_the_hyperparameters_its_model_was_rebuilt_with(resumable_run, toy_registry,
                                                                             tmp_path):
    root = tmp_path / "run"
    shutil.copytree(resumable_run, root)
    ck = root / "checkpoints" / "toy" / "tiny"
    before = read_metadata(ck)["hyperparameters"]
    cfg = load_config(raw=toy_config(root, algorithm={"n_steps": 64, "batch_size": 64, "n_epochs": 2,
                                                      "net_arch": [16, 16], "ent_coef": 0.05},
                                     training={"total_timesteps": 768}, evaluation={"games": 2}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the saved model's hyperparameters are kept"
        res = train(cfg, resume=True, **QUIET)
    meta = read_metadata(ck)
    assert res.metadata["timesteps"] >= 768 and meta["hyperparameters"] == before  # n_steps 32, ent_coef 0.01
    model, _ = load_checkpoint(ck)
    assert (model.n_steps, model.ent_coef) == (before["n_steps"], before["ent_coef"])


def test_a_pool_snapshot_saved_after_the_checkpoint_is_left_out_on_resume(resumable_run, toy_registry, tmp_path,
                                                                         capsys):
    """A session that stopped between a pool snapshot and its next checkpoint leaves a snapshot from
    the resumed run's future: it is left out (with a warning naming it), never played against."""
    from training.pool import SnapshotStore

    cfg, ck, pool = _resume_copy(resumable_run, tmp_path)
    at = read_metadata(ck)["timesteps"]
    index = json.loads((pool / "pool.json").read_text())
    newest = index["snapshots"][-1]
    later = f"snapshot_{10 ** 6}.npz"
    shutil.copy(pool / newest["file"], pool / later)
    index["snapshots"].append({"file": later, "timesteps": 10 ** 6, "sha256": newest["sha256"]})
    (pool / "pool.json").write_text(json.dumps(index))
    store = SnapshotStore(pool, 10, 0, 0)
    store._load = lambda entry: entry["file"]  # the selection alone
    assert [n for n, _ in store.restore()][-1] == 10 ** 6
    with pytest.warns(UserWarning, match=rf"{later} were saved after the checkpoint this run resumes from "
                                         rf"\({at:,} timesteps\)"):
        assert max(n for n, _ in store.restore(at)) <= at
    with pytest.warns(UserWarning, match=rf"{later} were saved after the checkpoint"):
        rc, out = _run(["train", "--config", str(cfg), "--resume", "--quiet"], capsys)
    assert rc == 0, out
    assert later not in [e["file"] for e in json.loads((pool / "pool.json").read_text())["snapshots"]]


@pytest.mark.parametrize("change, message", [
    (lambda e: e.__setitem__("sha256", "0" * 64), "corrupt or was modified"),
    (lambda e: e.__setitem__("file", "../snapshot_512.npz"), "is not allowed"),
    (lambda e: e.__setitem__("timesteps", e["timesteps"] + 1), "is not allowed"),
], ids=["hash", "path", "name"])
def test_pool_snapshots_are_checked_against_pool_json(resumable_run, toy_registry, tmp_path, change, message,
                                                      capsys):
    cfg, ck, pool = _resume_copy(resumable_run, tmp_path)
    index = json.loads((pool / "pool.json").read_text())
    change(index["snapshots"][0])
    (pool / "pool.json").write_text(json.dumps(index))
    rc, out = _run(["train", "--config", str(cfg), "--resume", "--quiet"], capsys)
    assert rc == 2 and message in out, out


def test_checkpoint_specs_inside_a_training_config_never_run_a_payload(toy_checkpoint, toy_registry, tmp_path,
                                                                        marker):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    plant_in_model_data(ck, marker)
    spec = f"checkpoint:{ck}"
    cfg = load_config(raw=toy_config(tmp_path / "out", training={"total_timesteps": 128, "workers": 2},
                                     seats={"others": {spec: 1.0}},
                                     evaluation={"games": 4, "against": [spec], "baselines": False}))
    res = train(cfg, **QUIET)  # the bridge's seats (in its worker process) and the evaluation rows
    assert res.rows and all(not r.note for r in res.rows)
    assert not marker.exists()
    drop_actor_file(ck)
    cfg = load_config(raw=toy_config(tmp_path / "out2", training={"total_timesteps": 128, "workers": 2},
                                     seats={"others": {spec: 1.0}}))
    with pytest.raises(Exception, match="acting reads only actor.npz"):
        train(cfg, **QUIET)
    assert not marker.exists()


# ---------------------------------------------------------------------- file names stay inside the folder
@pytest.mark.parametrize("field, name", [
    ("model_file", "../../etc/hostname"), ("model_file", "/etc/hostname"), ("actor_file", "sub/actor.npz"),
    ("actor_file", ".."), ("model_file", ""), ("actor_file", "a\\b.npz"), ("model_file", 7),
])
def test_metadata_file_names_are_plain_names_inside_the_folder(toy_checkpoint, toy_registry, tmp_path, field, name,
                                                               monkeypatch):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"not for you")
    hashed = []
    real = ckmod.sha256_of
    monkeypatch.setattr(ckmod, "sha256_of", lambda p: hashed.append(Path(p)) or real(p))
    sha_field = field.replace("_file", "_sha256")
    _rewrite_meta(ck, **{field: name, sha_field: real(outside)})
    for load in (load_checkpoint, load_actor):
        with pytest.raises(CheckpointError, match="allowed: a plain file name inside the checkpoint directory"):
            load(ck)
    assert all(p.resolve().parent == ck.resolve() for p in hashed), hashed  # nothing outside was read


def test_a_symlink_leading_out_of_the_folder_is_refused(toy_checkpoint, toy_registry, tmp_path):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    outside = tmp_path / "elsewhere.npz"
    shutil.move(ck / "actor.npz", outside)
    os.symlink(outside, ck / "actor.npz")  # a valid export, same hash: only its place is wrong
    with pytest.raises(CheckpointError, match="'actor.npz' is a symlink leading out of the checkpoint directory"):
        load_actor(ck)
    (ck / "actor.npz").unlink()
    shutil.move(outside, ck / "actor_real.npz")
    os.symlink("actor_real.npz", ck / "actor.npz")  # a symlink inside the folder is fine
    load_actor(ck)


# ---------------------------------------------------------------------- the actor's layer-shape chain
def _edit_actor(ck: Path, edit) -> None:
    with np.load(ck / "actor.npz") as z:
        arrays = {k: z[k] for k in z.files}
    edit(arrays)
    with open(ck / "actor.npz", "wb") as f:
        np.savez(f, **arrays)
    _rehash(ck)


def _set(**changes):
    def edit(a):
        for k, v in changes.items():
            if v is None:
                a.pop(k)
            else:
                a[k] = v(a) if callable(v) else v
    return edit


F = np.float32
CHAIN_CASES = {  # toy: 4 inputs -> 16 -> 16 -> 3 actions, tanh
    "first layer reads 3 inputs": (_set(w0=lambda a: a["w0"][:, :3]), "input size 3, expected 4"),
    "layer 1 does not follow layer 0": (_set(w1=lambda a: a["w1"][:, :15]),
                                        "layer 1: takes 15 inputs but the previous layer gives 16"),
    "head gives 2 actions": (_set(head_w=lambda a: a["head_w"][:2], head_b=lambda a: a["head_b"][:2]),
                             "output size 2, expected 3"),
    "bias of the wrong size": (_set(b0=lambda a: a["b0"][:15]), "bias shape \\(15,\\) does not match"),
    "head reads the wrong size": (_set(head_w=lambda a: a["head_w"][:, :8]),
                                  "head: takes 8 inputs but the previous layer gives 16"),
    "hidden sizes differ from the metadata": (_set(w0=np.zeros((8, 4), F), b0=np.zeros(8, F),
                                                   w1=np.zeros((16, 8), F)),
                                              "hidden sizes \\[8, 16\\], expected \\[16, 16\\]"),
    "unknown activation": (_set(activation=np.array("Sigmoid")), "unsupported activation 'Sigmoid'"),
    "activation differs from the metadata": (_set(activation=np.array("ReLU")), "activation 'ReLU', expected 'Tanh'"),
    "extra array": (_set(extra=np.zeros(1, F)), "unexpected \\['extra'\\]"),
    "missing head bias": (_set(head_b=None), "missing \\['head_b'\\]"),
    "a gap in the layers": (_set(w2=lambda a: a["w1"], b2=lambda a: a["b1"], w1=None, b1=None),
                            "missing \\['b1', 'w1'\\]"),
    "NaN weights": (_set(w1=lambda a: np.full_like(a["w1"], np.nan)), "'w1' holds non-finite values"),
    "integer weights": (_set(b1=lambda a: a["b1"].astype(np.int64)), "'b1' has dtype int64"),
    "3-D weight": (_set(w0=lambda a: a["w0"][None]), "weight shape \\(1, 16, 4\\)"),
    "activation not a string": (_set(activation=np.zeros(2, F)), "'activation' must be one string"),
}


@pytest.mark.parametrize("case", list(CHAIN_CASES))
def test_the_whole_layer_shape_chain_of_actor_npz_is_checked(toy_checkpoint, toy_registry, tmp_path, case):
    edit, message = CHAIN_CASES[case]
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    _edit_actor(ck, edit)
    with pytest.raises(CheckpointError, match=message):
        load_actor(ck)


# ---------------------------------------------------------------------- metadata: structure and counters
def test_counters_come_from_the_metadata(toy_checkpoint, toy_registry, tmp_path):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    meta = read_metadata(ck)
    assert meta["counters"]["num_timesteps"] == meta["timesteps"] and meta["counters"]["n_updates"] > 0
    _rewrite_meta(ck, counters={**meta["counters"], "n_updates": 7, "episode_num": 3})
    model, _ = load_checkpoint(ck)
    assert (model.num_timesteps, model._n_updates, model._episode_num) == (meta["timesteps"], 7, 3)
    _rewrite_meta(ck, counters={**meta["counters"], "num_timesteps": meta["timesteps"] + 1})
    with pytest.raises(CheckpointError, match="counters .* are not allowed"):
        load_checkpoint(ck)


@pytest.mark.parametrize("fields, message", [
    ({"action_space": {"n": "3"}}, "action_space"),
    ({"model_sha256": "abc"}, "model_sha256"),
    ({"observation": {"raw_shape": [2], "policy_shape": "4", "bounds_sha256": "x"}}, "observation.policy_shape"),
    ({"hyperparameters": {"n_steps": 0}}, "algorithm.n_steps"),
    ({"policy_kwargs": {"net_arch": [16, 16], "activation": "gelu"}}, "policy_kwargs"),
    ({"policy_kwargs": {"net_arch": [32, 32], "activation": "tanh"}}, "disagree with policy_kwargs"),
])
def test_malformed_metadata_is_refused_naming_the_field(toy_checkpoint, toy_registry, tmp_path, fields, message):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    meta = read_metadata(ck)
    for k, v in fields.items():
        if k == "hyperparameters":
            v = {**meta["hyperparameters"], **v}
        _rewrite_meta(ck, **{k: v})
    for load in (load_checkpoint, load_actor):
        with pytest.raises(CheckpointError, match=message), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load(ck)



# ---------------------------------------------------------------------- the readers' limits (envs/core/inputs.py)
@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "metadata.json: arrays or objects nested too deeply are not allowed"),
    ('{"format": "kitchen-arena-checkpoint", "timesteps": ' + "9" * 5000 + "}",
     "metadata.json: an integer of more than 4,300 digits is not allowed"),
    ('{"format": "kitchen-arena-checkpoint", "format": "x"}', "metadata.json: the key 'format' appears twice"),
])
def test_metadata_past_the_json_readers_limits_is_a_checkpoint_error_and_a_one_line_refusal(
        toy_checkpoint, toy_registry, tmp_path, capsys, text, message):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    (ck / "metadata.json").write_text(text)
    for load in (load_checkpoint, load_actor, read_metadata):
        with pytest.raises(CheckpointError, match=message):
            load(ck)
    rc, out = _run(["evaluate", f"checkpoint:{ck}", "--against", "random", "--games", "2"], capsys)
    assert rc == 2 and message.split(": ", 1)[1] in out and "Traceback" not in out, out


def test_metadata_larger_than_the_limit_is_refused_before_it_is_read(toy_checkpoint, toy_registry, tmp_path,
                                                                      monkeypatch):
    from envs.core import inputs

    ck = _copy(toy_checkpoint, tmp_path / "ck")
    size = (ck / "metadata.json").stat().st_size
    monkeypatch.setattr(inputs, "MAX_TEXT_BYTES", size - 1)
    with pytest.raises(CheckpointError, match=f"metadata.json: {size:,} bytes is not allowed; allowed: at most"):
        load_actor(ck)
    monkeypatch.setattr(inputs, "MAX_TEXT_BYTES", size)
    load_actor(ck)


def test_archives_that_decompress_past_the_limit_are_refused_before_they_are_read(toy_checkpoint, toy_registry,
                                                                                   tmp_path, monkeypatch):
    """A small file that inflates to more than ``MAX_ARCHIVE_BYTES`` (here lowered to 1 MiB, against
    the toy checkpoint's few kilobytes): ``actor.npz`` with a 2 MiB array of zeros, ``model.zip``
    with a 2 MiB tensor in ``policy.pth``."""
    from envs.core import inputs

    monkeypatch.setattr(inputs, "MAX_ARCHIVE_BYTES", 1024 * 1024)
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    load_actor(ck), load_checkpoint(ck)  # the real files are far below the limit
    with np.load(ck / "actor.npz") as z:
        arrays = {k: z[k] for k in z.files}
    with open(ck / "actor.npz", "wb") as f:
        np.savez_compressed(f, **arrays, pad=np.zeros(2 ** 19, np.float32))
    assert (ck / "actor.npz").stat().st_size < 64 * 1024

    _put_pth(ck, "policy.pth", {"w": torch.zeros(2 ** 19)})
    with pytest.raises(CheckpointError, match=r"actor.npz: members that decompress to more than [\d,]+ bytes "
                                              r"\(member 'pad.npy'"):  # (the network's own arrays: far below 1 MiB)
        load_actor(ck)
    with pytest.raises(CheckpointError, match=r"model.zip: members that decompress to more than 1 MiB"):
        load_checkpoint(ck)


def test_a_pool_index_past_the_json_readers_limits_is_refused_on_resume(resumable_run, toy_registry, tmp_path,
                                                                         capsys):
    cfg, ck, pool = _resume_copy(resumable_run, tmp_path)
    (pool / "pool.json").write_text("[" * 100_000 + "]" * 100_000)
    before = (ck / "metadata.json").read_bytes()
    rc, out = _run(["train", "--config", str(cfg), "--resume", "--quiet"], capsys)
    assert rc == 2 and "self-play pool" in out and "nested too deeply are not allowed" in out, out
    assert "Traceback" not in out and (ck / "metadata.json").read_bytes() == before


# ---------------------------------------------------------------------- the metadata's env facts
@pytest.mark.parametrize("fields, message", [
    ({"env_config": {"players": 9}}, r"metadata\.json env_config: toy_v0: option players=9 is not allowed"),
    ({"env_config": {"bogus": 1}}, r"metadata\.json env_config: toy_v0: unknown option"),
    ({"env_version": "v7"}, r"env_version = 'v7' \(allowed: 'v0', the version of env_id 'toy_v0'\)"),
    ({"complete": "yes"}, r"complete = 'yes' \(allowed: true or false\)"),
])
def test_metadata_env_facts_are_checked_and_the_checkpoint_named(toy_checkpoint, toy_registry, tmp_path, fields,
                                                                 message, capsys):
    """A checkpoint whose metadata recorded ``players: 9`` was refused with the env's own
    "option players=9 is not allowed", naming neither the checkpoint nor its metadata (the user
    typed no such option); ``env_version: "v7"`` and ``complete: "yes"`` were taken."""
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    _rewrite_meta(ck, **fields)
    with pytest.raises(CheckpointError, match=message):
        read_metadata(ck)
    assert main(["evaluate", f"checkpoint:{ck}", "--games", "1", "--workers", "1"]) == 2
    assert re.search(message, capsys.readouterr().err)


def _policy_state(ck: Path) -> dict:
    with zipfile.ZipFile(ck / "model.zip") as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)


def test_weights_that_are_not_finite_or_wider_than_the_metadata_says_are_refused_before_a_network_is_built(
        toy_checkpoint, toy_registry, tmp_path):
    """NaN weights in ``model.zip`` had loaded (``init_from``, ``--resume``) and training then failed in torch
    with a traceback; a ``net_arch`` raised in the metadata built the whole network (15.7 s at 4,096) before
    the refusal; float64 actor weights past float32's range acted as infinities; a seed past 2**32 - 1 failed
    in numpy."""
    ck = _copy(toy_checkpoint, tmp_path / "nan")
    state = _policy_state(ck)
    key = next(k for k in state if k.endswith("weight"))
    state[key] = torch.full_like(state[key], float("nan"))
    _put_pth(ck, "policy.pth", state)
    with pytest.raises(CheckpointError, match=rf"policy\['{re.escape(key)}'\] holds non-finite values"):
        load_checkpoint(ck)
    wide = _copy(toy_checkpoint, tmp_path / "wide")
    meta = json.loads((wide / "metadata.json").read_text())
    arch = [4096] * len(meta["policy_kwargs"]["net_arch"])
    _rewrite_meta(wide, policy_kwargs={**meta["policy_kwargs"], "net_arch": arch},
                  hyperparameters={**meta["hyperparameters"], "net_arch": arch})
    with pytest.raises(CheckpointError, match=r"actor.npz: the actor network does not fit: hidden sizes \[.*\], "
                                              r"expected \[4096"):  # the export says so first
        load_checkpoint(wide)
    drop_actor_file(wide)  # and without an export, model.zip's own tensors
    with pytest.raises(CheckpointError, match=r"holds a policy network of hidden widths \[.*\], where the metadata "
                                              r"says net_arch \[4096"):
        load_checkpoint(wide)
    big = _copy(toy_checkpoint, tmp_path / "f64")
    with np.load(big / "actor.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["w0"] = arrays["w0"].astype(np.float64)
    arrays["w0"].flat[0] = 1e300
    np.savez(big / "actor.npz", **arrays)
    _rehash(big)
    with pytest.raises(CheckpointError, match="past float32's range"):
        load_actor(big)
    seed = _copy(toy_checkpoint, tmp_path / "seed")
    _rewrite_meta(seed, seed=10 ** 40)
    with pytest.raises(CheckpointError, match=r"seed.*an integer 0\.\.4294967295"):
        read_metadata(seed)


def test_a_run_never_writes_into_a_shipped_checkpoint_through_its_tensorboard_folder(tmp_path):
    """``output.runs`` pointed at ``checkpoints/`` wrote TensorBoard files into a shipped folder, and
    ``--overwrite`` emptied it (model.zip, actor.npz and metadata.json gone, exit 0); ``output.checkpoints``
    inside a shipped folder was accepted too."""
    from envs.core.errors import ConfigError
    from training.trainer import check_run

    root = Path(__file__).resolve().parents[2]
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for overrides, key in ((["name=main", f"output.checkpoints={tmp_path}", "output.runs=checkpoints"], "output.runs"),
                               (["output.checkpoints=checkpoints/wok_star/main"], "output.checkpoints")):
            cfg = load_config("configs/wok_star_quick.yaml", overrides)
            for overwrite in (False, True):
                with pytest.raises(ConfigError, match=rf"{key}: .* would be written in the shipped checkpoint "
                                                      r".*wok_star/main"):
                    check_run(cfg, overwrite=overwrite)
    finally:
        os.chdir(cwd)
    assert (root / "checkpoints" / "wok_star" / "main" / "model.zip").is_file()


def test_what_a_resumed_run_reads_beside_the_model_is_checked_first_and_a_newer_env_is_named(toy_checkpoint, tmp_path):
    """A ``training_config`` that was no mapping, a ``training_seconds`` of words or a ``curve.csv`` row of
    words ended a resumed run in a traceback after it had started; a checkpoint of a newer env version was
    told to retrain on this release's older one."""
    from envs.core.errors import ConfigError
    from training.trainer import _check_resumed_fields

    ck = _copy(toy_checkpoint, tmp_path / "r")
    meta = json.loads((ck / "metadata.json").read_text())
    _check_resumed_fields(meta, ck)
    for field, value, says in (("training_config", [1], "training_config is [1]; allowed: a mapping"),
                               ("training_seconds", "abc", "training_seconds is 'abc'; allowed: a number")):
        with pytest.raises(ConfigError, match=re.escape(says)):
            _check_resumed_fields({**meta, field: value}, ck)
    (ck / "curve.csv").write_text("timesteps,episode_return,win,score,length\nabc,1,1,1,1\n")
    with pytest.raises(ConfigError, match=r"curve.csv does not read: .*line 2: .* is not a row of"):
        _check_resumed_fields(meta, ck)
    with pytest.raises(CheckpointError, match=r"trained for wok_star_v9, a newer version than this release has "
                                              r"\(wok_star_v1\)"):
        ckmod.check_env_version({"env_id": "wok_star_v9"}, "checkpoint x")


def test_an_interrupted_saves_journal_leading_out_of_the_directory_is_refused_before_anything_moves(
        toy_checkpoint, toy_registry, tmp_path):
    """A ``metadata.json.saving`` symlinked to a file outside was renamed into ``metadata.json`` (a failed
    read had changed the directory), and the Python API then read metadata from outside it."""
    ck = _copy(toy_checkpoint, tmp_path / "x")
    outside = tmp_path / "outside.json"
    (ck / "metadata.json").rename(outside)
    (ck / "metadata.json.saving").symlink_to(outside)
    before = sorted(p.name for p in ck.iterdir())
    for read in (lambda: load_policy(ck), lambda: read_metadata(ck)):
        with pytest.raises(CheckpointError, match="is a symlink leading out of the checkpoint directory"):
            read()
    assert sorted(p.name for p in ck.iterdir()) == before and (ck / "metadata.json.saving").is_symlink()


@pytest.mark.parametrize("text, says", [
    ("timesteps,episode_return,win,score,length\n1,2,3\n", "line 2: .* is not a row of"),
    ("timesteps,episode_return,win,score,length\n1,2,3,4,5,6\n", "line 2: .* is not a row of"),
    ("timesteps,episode_return,win,score,length\n1,nan,0,0,5\n", "line 2: .*five finite numbers"),
    ("1,2.0,1.0,3.0,5\n", "line 1: .* is not the header"),
    ("", "line 1: None is not the header"),
])
def test_a_learning_curve_is_header_and_rows_of_five_finite_numbers_or_refused(tmp_path, text, says):
    """``read_curve`` dropped rows of another length without a word (a resumed run then rewrote the curve
    without them), took NaN and infinities, and read a headless file's first row as the header."""
    from training.plotting import read_curve, write_curve

    p = tmp_path / "curve.csv"
    p.write_text(text)
    with pytest.raises(ValueError, match=says):
        read_curve(p)
    rows = [(128, 1.5, 1.0, 3.0, 40), (256, -0.5, 0.0, 1.0, 41)]
    write_curve(p, rows)
    assert read_curve(p) == rows


def test_a_checkpoints_files_are_written_over_a_link_never_through_it(tmp_path):
    """The checkpoint writer and the benchmark's JSON writer are one function
    (``envs.core.inputs.atomic_write_text``): the benchmark writes through a link to its target, a
    checkpoint replaces the link (nothing of a checkpoint is written outside it). Neither leaves its
    temporary file when the write fails."""
    from envs.core.inputs import atomic_write_text as core_write

    outside = tmp_path / "outside.json"
    outside.write_text("theirs")
    (tmp_path / "ck").mkdir()
    link = tmp_path / "ck" / "metadata.json"
    link.symlink_to(outside)
    ckmod.atomic_write_text(link, "ours")
    assert outside.read_text() == "theirs" and not link.is_symlink() and link.read_text() == "ours"
    bench = tmp_path / "bench.json"
    bench.symlink_to(outside)
    core_write(bench, "results")
    assert bench.is_symlink() and outside.read_text() == "results"
    with pytest.raises(TypeError):
        ckmod.atomic_write_text(link, None)  # a write that fails: the file and the folder as they were
    assert link.read_text() == "ours" and sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["metadata.json"]


@pytest.mark.parametrize("name", ["actor.npz", "model.zip"])
def test_a_huge_or_not_regular_checkpoint_file_is_refused_without_reading_it(toy_checkpoint, toy_registry, tmp_path,
                                                                            name):
    """A 2 GiB sparse ``actor.npz`` or ``model.zip`` was read and hashed whole (about 10 s) before it was
    refused; a directory of that name was called "missing"."""
    ck = _copy(toy_checkpoint, tmp_path / "h")
    (ck / name).unlink()
    with open(ck / name, "wb") as f:
        f.truncate(2 * 1024 ** 3)  # sparse: no disk used
    with pytest.raises(CheckpointError, match=rf"{re.escape(name)}' is 2,147,483,648 bytes, more than a "
                                              r"checkpoint's file may be"):  # (refused by its size: nothing read)
        load_policy(ck)
    (ck / name).unlink()
    (ck / name).mkdir()
    with pytest.raises(CheckpointError, match=rf"file '{re.escape(name)}' is not a regular file"):
        load_policy(ck)


@pytest.mark.parametrize("journal", [b"not a journal", b"", b"{}", "describes other files"])
def test_a_stray_journal_is_refused_and_no_read_moves_it_over_the_metadata(toy_checkpoint, toy_registry, tmp_path,
                                                                          journal):
    """A ``metadata.json.saving`` that was no save's journal (a stray copy, an empty or cut file) was moved over
    ``metadata.json`` by any command that read the checkpoint, ``training list`` included: the checkpoint was
    lost. Now it is refused, naming the file, and nothing moves; a real interrupted save still rolls forward."""
    ck = _copy(toy_checkpoint, tmp_path / "s")
    if journal == "describes other files":
        meta = json.loads((ck / "metadata.json").read_text())
        journal = json.dumps({**meta, "model_sha256": "0" * 64}).encode()
    (ck / "metadata.json.saving").write_bytes(journal)
    before = {p.name: p.read_bytes() for p in ck.iterdir()}
    for read in (lambda: read_metadata(ck), lambda: load_policy(ck)):
        with pytest.raises(CheckpointError, match=r"metadata.json.saving \(an interrupted save's journal\).*left as it "
                                                  r"is: if that file is not an interrupted save's, remove it"):
            read()
    assert {p.name: p.read_bytes() for p in ck.iterdir()} == before
    (ck / "metadata.json.saving").unlink()
    assert read_metadata(ck)["format"] == ckmod.FORMAT


def test_a_first_save_stopped_after_its_journal_is_a_checkpoint_and_format_version_is_an_integer(
        toy_checkpoint, toy_registry, tmp_path):
    """A first save interrupted after its journal was written (only ``metadata.json.saving`` and the
    temporaries) was invisible to ``train --resume``, ``training list`` and a bare directory spec;
    ``format_version: true`` (or 1.0) passed as 1."""
    ck = _copy(toy_checkpoint, tmp_path / "j")
    (ck / "metadata.json").rename(ck / "metadata.json.saving")
    (ck / "model.zip").rename(ck / ckmod._TMP_MODEL)
    (ck / "actor.npz").rename(ck / ckmod._TMP_ACTOR)
    assert ckmod.is_checkpoint(ck)
    assert read_metadata(ck)["format_version"] == ckmod.FORMAT_VERSION  # rolled forward
    assert (ck / "metadata.json").is_file() and (ck / "model.zip").is_file()
    for bad in (True, 1.0):
        other = _copy(toy_checkpoint, tmp_path / f"v{bad}")
        _rewrite_meta(other, format_version=bad)
        with pytest.raises(CheckpointError, match="metadata format version"):
            read_metadata(other)


def test_a_pickle_in_a_pth_is_refused_in_our_words_without_torchs_warning(toy_checkpoint, toy_registry, tmp_path,
                                                                           marker, recwarn):
    """Torch's multi-line warning preceded the refusal, whose message relayed torch's advice to load
    the file with ``weights_only=False``."""
    ck = _copy(toy_checkpoint, tmp_path / "p")
    plant_in_policy_pth(ck, marker)
    with pytest.raises(CheckpointError, match="holds Python objects besides tensors, and nothing in a checkpoint "
                                              "is unpickled") as e:
        load_checkpoint(ck)
    assert "weights_only" not in str(e.value) and not marker.exists()
    assert not [w for w in recwarn if "pickle" in str(w.message).lower()]


def test_a_place_the_run_may_not_write_is_refused_before_it_starts(toy_registry, tmp_path, monkeypatch):
    """A read-only ``output.checkpoints`` or ``output.runs`` passed ``--dry-run`` (SB3's and RLlib's)."""
    import errno
    import tempfile

    from envs.core.errors import ConfigError
    from training.trainer import check_run

    cfg = load_config(raw=toy_config(tmp_path))

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(ConfigError, match=r"output.checkpoints: .*: Read-only file system"):
        check_run(cfg)
