"""The checkpoint door, from a mutation fuzz (the fourth audit round): what a checkpoint's files say
must agree with each other before anything is built or trained from them. Each case was accepted
(or failed with a bare error) before its mend."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.training.test_checkpoint_safety import (_copy, _put_pth, _rehash, _resume_copy, _rewrite_meta, _run,
                                                   resumable_run)  # noqa: F401 - a fixture
from training.checkpoints import CheckpointError, load_actor, load_checkpoint, read_metadata
from training.pool import SnapshotStore


def _optimizer_state(ck: Path) -> dict:
    with zipfile.ZipFile(ck / "model.zip") as z:
        return torch.load(io.BytesIO(z.read("policy.optimizer.pth")), weights_only=True)


def test_an_activation_edited_in_the_metadata_is_refused_on_resume(toy_checkpoint, toy_registry, tmp_path):
    """The resume loader had rebuilt the tanh-trained weights as a relu network, and trained it on."""
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    meta = json.loads((ck / "metadata.json").read_text())
    was = meta["policy_kwargs"]["activation"]
    other = "relu" if was == "tanh" else "tanh"
    _rewrite_meta(ck, policy_kwargs={**meta["policy_kwargs"], "activation": other},
                  hyperparameters={**meta["hyperparameters"], "activation": other})
    with pytest.raises(CheckpointError, match=r"actor.npz: the actor network does not fit: activation"):
        load_checkpoint(ck)
    with pytest.raises(CheckpointError, match=r"actor.npz: the actor network does not fit: activation"):
        load_actor(ck)


@pytest.mark.parametrize("mutate, said", [
    (lambda o: o["param_groups"][0].update(maximize=True), "sets maximize=True where the metadata's hyperparameters"),
    (lambda o: o["param_groups"][0].update(amsgrad=True), "sets amsgrad=True"),
    (lambda o: o["param_groups"][0].update(betas=(2.0, 0.999)), "sets betas=(2.0, 0.999)"),
    (lambda o: o["param_groups"][0].update(nosuch=1), "has settings ['nosuch']"),
    (lambda o: o["state"][0].update(exp_avg=torch.zeros(3)), "of parameter 0: exp_avg of shape (3,)"),
    (lambda o: o["state"][0].update(exp_avg_sq=-o["state"][0]["exp_avg_sq"] - 1), "exp_avg_sq holds negative"),
    (lambda o: o["state"][0].update(step=torch.tensor(-1.0)), "step tensor(-1.); allowed: a count"),
    (lambda o: o["state"][0].update(max_exp_avg_sq=o["state"][0]["exp_avg_sq"]), "holds ['exp_avg', 'exp_avg_sq', 'max"),
    (lambda o: o["state"].update({999: o["state"][0]}), "is kept for parameters"),
])
def test_an_optimizer_state_that_does_not_fit_the_metadatas_optimizer_is_refused(toy_checkpoint, toy_registry,
                                                                                 tmp_path, mutate, said):
    """The file's settings had replaced the metadata's (``maximize``: the first update climbed the loss),
    and states of another shape or sign had loaded, then failed or made NaN weights at the first update."""
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    state = _optimizer_state(ck)
    assert state["state"], "the toy checkpoint has trained: its optimizer holds a state"
    mutate(state)
    _put_pth(ck, "policy.optimizer.pth", state)
    with pytest.raises(CheckpointError, match=r"model.zip: the optimizer state .*?" + re.escape(said)):
        load_checkpoint(ck)


def test_integer_weights_and_a_missing_weights_name_are_refused_by_name(toy_checkpoint, toy_registry, tmp_path):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    with zipfile.ZipFile(ck / "model.zip") as z:
        policy = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    key = next(k for k in policy if k.endswith("bias"))
    _put_pth(ck, "policy.pth", {**policy, key: policy[key].to(torch.int64)})
    with pytest.raises(CheckpointError, match=rf"policy\['{re.escape(key)}'\] holds torch.int64 values"):
        load_checkpoint(ck)
    gone = {k: v for k, v in policy.items() if k != "value_net.bias"}
    _put_pth(ck, "policy.pth", gone)
    with pytest.raises(CheckpointError, match=r'Missing key\(s\) in state_dict: "value_net.bias"'):
        load_checkpoint(ck)  # (the message had stopped at its first line, before the name)


@pytest.mark.parametrize("field, value, said", [
    ("package_version", "1.0\x1b]0;T\x07", "package_version"),
    ("package_version", "x" * 101, "package_version"),
    ("package_version", 3, "package_version"),
    ("env_id", "toy\x1b[2J_v0", "env_id"),
])
def test_names_a_message_shows_must_be_printable_and_short(toy_checkpoint, toy_registry, tmp_path, capsys, field,
                                                           value, said):
    """An escape sequence in package_version had reached the terminal through the "trained with envs ..."
    warning, and one in env_id through ``training list``."""
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    _rewrite_meta(ck, **{field: value})
    with pytest.raises(CheckpointError, match=rf"metadata.json is malformed: {said} = "):
        read_metadata(ck)
    rc, out = _run(["evaluate", f"checkpoint:{ck}", "--games", "1", "--workers", "1"], capsys)
    assert rc == 2 and "\x1b" not in out and "Traceback" not in out


def test_a_list_for_an_activation_is_refused_in_one_line(toy_checkpoint, toy_registry, tmp_path, capsys):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    meta = json.loads((ck / "metadata.json").read_text())
    _rewrite_meta(ck, policy_kwargs={**meta["policy_kwargs"], "activation": ["tanh"]})
    rc, out = _run(["evaluate", f"checkpoint:{ck}", "--games", "1", "--workers", "1"], capsys)
    assert rc == 2 and "metadata policy_kwargs" in out and "Traceback" not in out  # (a bare TypeError)


def _rewrite_actor(ck: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(ck / "actor.npz") as z:
        entries = {n: z.read(n) for n in z.namelist()}
    with zipfile.ZipFile(ck / "actor.npz", "w") as z:
        for n, data in {**entries, **members}.items():
            z.writestr(n, data)
    _rehash(ck)


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def test_actor_archives_hold_only_the_networks_arrays(toy_checkpoint, toy_registry, tmp_path):
    """A member without the .npy suffix had skipped the header check (numpy reads it all the same), raw
    bytes had failed as "'bytes' object has no attribute 'dtype'", and a small file declaring 1 GiB of
    arrays had been read whole (7.7 s, 2.3 GiB) before the refusal."""
    big = _npy(np.zeros(1, np.float32)).replace(b"(1,)", b"(999999999,)")
    cases = [({"pad": big}, r"member 'pad' declares an array of [\d,]+ bytes"),
             ({"pad": b"raw bytes"}, r"actor archive member 'pad' is not an .npy array"),
             ({"pad.npy": _npy(np.zeros(2 ** 18, np.float32))}, r"members that decompress to more than"),
             ]
    for i, (members, said) in enumerate(cases):
        ck = _copy(toy_checkpoint, tmp_path / f"ck{i}")
        _rewrite_actor(ck, members)
        with pytest.raises(CheckpointError, match=said):
            load_actor(ck)
    ck = _copy(toy_checkpoint, tmp_path / "twice")
    with zipfile.ZipFile(ck / "actor.npz") as z:
        first = z.namelist()[0]
        data = z.read(first)
    with zipfile.ZipFile(ck / "actor.npz", "a") as z, pytest.warns(UserWarning, match="Duplicate name"):
        z.writestr(first, data)
    _rehash(ck)
    with pytest.raises(CheckpointError, match=rf"member '{re.escape(first)}' is in the archive twice"):
        load_actor(ck)


def test_an_unknown_env_is_named_as_the_checkpoints(toy_checkpoint, toy_registry, tmp_path):
    ck = _copy(toy_checkpoint, tmp_path / "ck")
    _rewrite_meta(ck, env_id="nonexistent_v1", env_version="v1")
    with pytest.raises(CheckpointError, match=r"checkpoint '.*ck': metadata.json env_id/env_config: unknown environment"):
        load_actor(ck)


def test_a_curve_that_is_not_a_file_is_refused_before_a_resume_trains(resumable_run, toy_registry, tmp_path, capsys):
    """A directory in curve.csv's place had read as "no curve"; the resume then trained and saved, and
    only then failed."""
    cfg, ck, _ = _resume_copy(resumable_run, tmp_path)
    (ck / "curve.csv").unlink()
    (ck / "curve.csv").mkdir()
    rc, out = _run(["train", "--config", str(cfg), "--resume", "--dry-run"], capsys)
    assert rc == 2 and "curve.csv does not read" in out and "not a regular file" in out


def test_a_pool_index_takes_integers_and_each_snapshot_once(resumable_run, toy_registry, tmp_path):
    _, _, pool = _resume_copy(resumable_run, tmp_path)
    index = json.loads((pool / "pool.json").read_text())
    assert index["snapshots"]
    reader = SnapshotStore(pool, 4, 1, 1)
    for bad, said in (({**index, "format_version": True}, "is not a"), ({**index, "format_version": 1.0}, "is not a"),
                      ({**index, "snapshots": [{**index["snapshots"][0],
                                                "timesteps": float(index["snapshots"][0]["timesteps"])}]},
                       "is not allowed"),
                      ({**index, "snapshots": index["snapshots"][:1] * 2}, "is listed twice")):
        (pool / "pool.json").write_text(json.dumps(bad))
        with pytest.raises(CheckpointError, match=said):
            reader._read_index()


@pytest.mark.parametrize("bad, said", [(np.float64, "holds float64 values; allowed: float32"),
                                       (np.int64, "holds int64 values"), (None, "holds non-finite values")])
def test_an_rllib_module_archive_holds_finite_weights_of_the_modules_type(tmp_path, bad, said):
    """NaN, float64 values past float32's range, integer and complex arrays had reached the module."""
    from training import checkpoints as ck
    from training.rllib_backend import load_module_state

    module = torch.nn.Linear(3, 2)
    arrays = {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}
    arrays["weight"] = np.full_like(arrays["weight"], np.nan) if bad is None else arrays["weight"].astype(bad)
    np.savez(tmp_path / "rllib_module.npz", **arrays)
    meta = {"model_file": "rllib_module.npz", "model_sha256": ck.sha256_of(tmp_path / "rllib_module.npz")}
    with pytest.raises(CheckpointError, match=rf"rllib_module.npz: 'weight' {said}"):
        load_module_state(tmp_path, meta, module)
    np.savez(tmp_path / "rllib_module.npz", **{k: v.detach().numpy() for k, v in module.state_dict().items()})
    meta["model_sha256"] = ck.sha256_of(tmp_path / "rllib_module.npz")
    assert set(load_module_state(tmp_path, meta, module)) == {"weight", "bias"}
