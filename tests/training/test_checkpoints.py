"""Checkpoints: metadata, hash, env checks, reload; the numpy actor matches SB3."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

import envs
from training.actor import NumpyActor
from training.checkpoints import (CheckpointError, CheckpointWarning, load_checkpoint, read_metadata, sha256_of)
from training.envspec import EnvSpec
from training.policies import make_policy, parse_spec


def copy_ckpt(src, tmp_path):
    dst = tmp_path / "ck"
    shutil.copytree(src, dst)
    return dst


def test_metadata_records_what_the_issue_asks(toy_checkpoint, toy_registry):
    meta = read_metadata(toy_checkpoint)
    assert meta["env_id"] == "toy_v0" and meta["env_version"] == "v0"
    assert meta["env_config"]["players"] == 2 and meta["env_config"]["tokens"] == 6
    assert meta["observation"]["raw_shape"] == [2] and meta["observation"]["policy_shape"] == [4]
    assert meta["action_space"] == {"n": 3}
    assert meta["algorithm"] == "MaskablePPO" and meta["hyperparameters"]["n_steps"] == 32
    assert meta["timesteps"] >= 1024 and meta["seed"] == 3 and meta["complete"] is True
    assert meta["package_version"] == envs.__version__
    assert meta["model_sha256"] == sha256_of(toy_checkpoint / "model.zip")
    assert meta["actor_sha256"] == sha256_of(toy_checkpoint / "actor.npz")
    assert meta["evaluation"]["rows"] and meta["evaluation"]["rows"][0]["games"] == 12
    assert meta["versions"]["stable_baselines3"] and meta["training_config"]["name"] == "tiny"


def test_reloads_and_plays_as_the_saved_model(toy_checkpoint, toy_registry):
    model, meta = load_checkpoint(toy_checkpoint)
    pol = make_policy(f"checkpoint:{toy_checkpoint}", EnvSpec.resolve("toy_v0", {"players": 2}))
    env = EnvSpec.resolve("toy_v0", {"players": 2}).make()
    obs, _ = env.reset(seed=5)
    for agent in env.agents:
        a = pol.act(obs[agent], agent, env)
        x = pol.encoder.encode_agent(obs[agent], agent)
        want, _ = model.predict(x, deterministic=True, action_masks=obs[agent]["action_mask"].astype(bool))
        assert a == int(want) and obs[agent]["action_mask"][a]


def test_corrupted_model_file_is_refused(toy_checkpoint, toy_registry, tmp_path):
    ck = copy_ckpt(toy_checkpoint, tmp_path)
    data = bytearray((ck / "model.zip").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (ck / "model.zip").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt or was modified"):
        load_checkpoint(ck)
    with pytest.raises(CheckpointError, match="corrupt or was modified"):
        make_policy(f"checkpoint:{ck}", EnvSpec.resolve("toy_v0", {"players": 2}))


def test_corrupted_actor_export_is_refused(toy_checkpoint, toy_registry, tmp_path):
    ck = copy_ckpt(toy_checkpoint, tmp_path)
    with open(ck / "actor.npz", "r+b") as f:
        f.seek(100)
        f.write(b"\x00\x01\x02")
    with pytest.raises(CheckpointError, match="actor.npz is corrupt or was modified"):
        make_policy(f"checkpoint:{ck}", EnvSpec.resolve("toy_v0", {"players": 2}))


def test_a_model_that_does_not_load_is_refused_even_with_a_matching_hash(toy_checkpoint, toy_registry, tmp_path):
    ck = copy_ckpt(toy_checkpoint, tmp_path)
    (ck / "model.zip").write_bytes(b"not a zip file")
    meta = json.loads((ck / "metadata.json").read_text())
    meta["model_sha256"] = sha256_of(ck / "model.zip")
    (ck / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="does not load"):
        load_checkpoint(ck)


def test_missing_or_broken_metadata(toy_checkpoint, toy_registry, tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "nothing")
    ck = copy_ckpt(toy_checkpoint, tmp_path)
    (ck / "metadata.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_checkpoint(ck)
    (ck / "metadata.json").write_text(json.dumps({"format": "kitchen-arena-checkpoint", "format_version": 1}))
    with pytest.raises(CheckpointError, match="metadata lacks"):
        load_checkpoint(ck)
    (ck / "model.zip").unlink()
    shutil.copy(toy_checkpoint / "metadata.json", ck / "metadata.json")
    with pytest.raises(CheckpointError, match="model file 'model.zip' is missing"):
        load_checkpoint(ck)


def test_mismatched_env_is_a_clear_error(toy_checkpoint, toy_registry):
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(toy_checkpoint, EnvSpec.resolve("toy_v0", {"players": 3}))
    msg = str(e.value)
    assert "does not fit toy_v0[players=3]" in msg and "seats ['p0', 'p1'] vs ['p0', 'p1', 'p2']" in msg
    assert "players=2 (trained) vs 3" in msg
    with pytest.raises(CheckpointError, match="was trained on 'toy_v0', not 'toy_coop_v0'"):
        load_checkpoint(toy_checkpoint, EnvSpec.resolve("toy_coop_v0", {"players": 2}))


def test_changed_observation_layout_is_a_clear_error(toy_checkpoint, toy_registry, tmp_path):
    ck = copy_ckpt(toy_checkpoint, tmp_path)
    meta = json.loads((ck / "metadata.json").read_text())
    meta["observation"]["bounds_sha256"] = "0" * 64
    (ck / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="observation layout"):
        load_checkpoint(ck)


def test_option_differences_warn_and_strict_refuses(toy_checkpoint, toy_registry):
    spec = EnvSpec.resolve("toy_v0", {"players": 2, "tokens": 9})
    with pytest.warns(CheckpointWarning, match=r"tokens=6 \(trained\) vs 9"):
        load_checkpoint(toy_checkpoint, spec)
    with pytest.raises(CheckpointError, match="strict loading"):
        make_policy(f"checkpoint:{toy_checkpoint}?strict=true", spec)


def test_spec_parsing():
    assert parse_spec("random").kind == "random" and parse_spec("noop").kind == "noop"
    ps = parse_spec("checkpoint:checkpoints/wok_star/main?deterministic=false")
    assert (ps.kind, ps.path, ps.options) == ("checkpoint", "checkpoints/wok_star/main", {"deterministic": False})
    assert ps.label == "checkpoint:wok_star/main (sampled)"
    for bad, why in [("greedy", "unknown policy spec"), ("checkpoint:", "names no checkpoint"),
                     ("checkpoint:x?temperature=2", "unknown option 'temperature'"),
                     ("checkpoint:x?strict=yes", "allowed: true or false")]:
        with pytest.raises(ValueError, match=why):
            parse_spec(bad)


def test_bare_directory_is_a_checkpoint_spec(toy_checkpoint):
    assert parse_spec(str(toy_checkpoint)).kind == "checkpoint"


@pytest.mark.parametrize("activation", [torch.nn.Tanh, torch.nn.ReLU])
def test_numpy_actor_matches_sb3_logits_and_masked_choice(activation):
    torch.manual_seed(0)
    pol = MaskableActorCriticPolicy(spaces.Box(0, 1, (7,), np.float32), spaces.Discrete(5), lambda _: 1e-3,
                                    net_arch=[16, 12], activation_fn=activation)
    actor = NumpyActor.from_state(NumpyActor.from_sb3_policy(pol).state())  # through the picklable form
    x = np.random.default_rng(0).random((64, 7)).astype(np.float32)
    with torch.no_grad():
        latent = pol.mlp_extractor.forward_actor(pol.extract_features(torch.as_tensor(x), pol.pi_features_extractor))
        want = pol.action_net(latent).numpy()
    np.testing.assert_allclose(actor.logits(x), want, rtol=1e-5, atol=1e-5)
    masks = np.random.default_rng(1).random((64, 5)) < 0.5
    masks[:, 0] = True
    det = actor.act(x, masks)
    assert all(masks[i, a] for i, a in enumerate(det))
    np.testing.assert_array_equal(det, np.argmax(np.where(masks, want, -np.inf), axis=1))
    s1 = actor.act(x, masks, deterministic=False, rng=np.random.default_rng(3))
    s2 = actor.act(x, masks, deterministic=False, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(s1, s2)
    assert all(masks[i, a] for i, a in enumerate(s1))
