"""Training end to end: outputs, resume, Ctrl-C, reproducibility, the quick configs of the games."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest
import torch
from stable_baselines3.common.callbacks import BaseCallback

import envs
from envs.core.errors import ConfigError
from tests.training.conftest import toy_config
from training.checkpoints import load_checkpoint, read_metadata
from training.config import load_config
from training.evaluation import evaluate
from training.trainer import train

ROOT = Path(__file__).resolve().parents[2]
QUIET = {"log": lambda s: None}


def test_trained_run_writes_every_output(toy_checkpoint):
    ck = Path(toy_checkpoint)
    for f in ("model.zip", "metadata.json", "config.yaml", "curve.csv", "learning_curve.png", "evaluation.md",
              "evaluation.json"):
        assert (ck / f).is_file(), f
    assert (ck / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    runs = ck.parents[2] / "runs" / "toy" / "tiny"
    assert list(runs.glob("events.out.tfevents.*")), "TensorBoard events under runs/<game>/<name>/"
    assert list((runs / "pool").glob("snapshot_*.npz")), "self-play pool kept for --resume"
    table = (ck / "evaluation.md").read_text()
    assert "| checkpoint:toy/tiny | vs random | 12 |" in table and "| heuristic | vs random | 12 |" in table
    curve = (ck / "curve.csv").read_text().splitlines()
    assert curve[0] == "timesteps,episode_return,win,score,length" and len(curve) > 20


def test_tensorboard_has_sb3_and_win_rate_scalars(toy_checkpoint):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    runs = Path(toy_checkpoint).parents[2] / "runs" / "toy" / "tiny"
    acc = EventAccumulator(str(runs))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {"rollout/ep_rew_mean", "rollout/win_rate", "train/loss", "self_play/pool_size"} <= tags
    assert any(t.startswith("opponents/win_rate_vs_") for t in tags)


def test_cooperative_run_evaluates_team_cross_play_and_extras(coop_checkpoint):
    rows = json.loads((Path(coop_checkpoint) / "evaluation.json").read_text())["rows"]
    lineups = [(r["policy"], r["lineup"]) for r in rows]
    assert lineups == [("checkpoint:toy_coop/tiny", "whole team"), ("checkpoint:toy_coop/tiny", "with random"),
                       ("checkpoint:toy_coop/tiny", "with heuristic"), ("heuristic", "whole team"),
                       ("random", "whole team")]
    extras = rows[0]["extras"]
    assert extras["cleared"]["kind"] == "share" and 0 <= extras["cleared"]["mean"] <= 1
    assert "time_used" in extras and "tokens_per_player" in extras
    assert read_metadata(coop_checkpoint)["learner_seats"] == 2


def test_existing_checkpoint_needs_resume_or_overwrite(toy_registry, tmp_path):
    cfg = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 256}, evaluation={"games": 2}))
    train(cfg, **QUIET)
    with pytest.raises(ConfigError, match="already exists; pass --resume"):
        train(cfg, **QUIET)
    res = train(cfg, overwrite=True, **QUIET)
    assert res.metadata["timesteps"] >= 256


def test_resume_continues_to_the_new_total(toy_registry, tmp_path):
    cfg = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 512}, evaluation={"games": 2}))
    first = train(cfg, **QUIET)
    n1 = first.metadata["timesteps"]
    curve1 = len((first.checkpoint_dir / "curve.csv").read_text().splitlines())
    cfg2 = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 1024, "env_copies": 2},
                                      evaluation={"games": 2}))  # another number of copies is fine
    second = train(cfg2, resume=True, **QUIET)
    assert n1 >= 512 and second.metadata["timesteps"] >= 1024 > n1
    assert len((second.checkpoint_dir / "curve.csv").read_text().splitlines()) > curve1
    with pytest.raises(ConfigError, match="no checkpoint at"):
        train(load_config(raw=toy_config(tmp_path, name="other")), resume=True, **QUIET)
    # another normalisation is named before anything runs (it had built the workers, then failed naming no key)
    cfg3 = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 2048, "normalize_observations": False},
                                      evaluation={"games": 2}))
    with pytest.raises(ConfigError, match=r"training.normalize_observations is False where the checkpoint was "
                                          r"trained with True"):
        train(cfg3, resume=True, **QUIET)


class _WeightsAtStart(BaseCallback):
    """The policy's tensors when PPO starts (before its first update)."""

    def _on_training_start(self) -> None:
        self.weights = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}

    def _on_step(self) -> bool:
        return True


def test_init_from_starts_ppo_from_a_checkpoints_weights(toy_registry, tmp_path, toy_checkpoint):
    source, _ = load_checkpoint(toy_checkpoint)
    cfg = load_config(raw=toy_config(tmp_path, name="tuned", training={"total_timesteps": 256,
                                                                      "init_from": str(toy_checkpoint)},
                                     evaluation={"games": 2}))
    seen, lines = _WeightsAtStart(), []
    res = train(cfg, extra_callbacks=[seen], log=lines.append)
    want = source.policy.state_dict()
    assert seen.weights.keys() == want.keys()
    assert all(bool((seen.weights[k] == want[k]).all()) for k in want)  # every tensor, before the first update
    recorded = res.metadata["init_from"]
    assert recorded["path"] == str(toy_checkpoint) and recorded["model_sha256"] == read_metadata(toy_checkpoint)["model_sha256"]
    assert any(line.startswith(f"starting from the weights of {toy_checkpoint}") for line in lines)
    # a fresh run starts elsewhere: the check above is not satisfied by chance
    fresh = _WeightsAtStart()
    train(load_config(raw=toy_config(tmp_path, name="fresh", training={"total_timesteps": 256}),
                      overrides=["evaluation.games=2"]), extra_callbacks=[fresh], **QUIET)
    assert not all(bool((fresh.weights[k] == want[k]).all()) for k in want)
    # resuming the tuned run keeps what it started from
    more = load_config(raw=toy_config(tmp_path, name="tuned", training={"total_timesteps": 512,
                                                                       "init_from": str(toy_checkpoint)},
                                      evaluation={"games": 2}))
    assert train(more, resume=True, **QUIET).metadata["init_from"] == recorded


def test_init_from_with_cloning_clones_from_the_checkpoints_weights(toy_registry, tmp_path, toy_checkpoint):
    """``training.init_from`` and ``pretrain.steps > 0``: the weights are loaded first and the
    cloning fits from them (expert iteration: a trained policy pulled toward a teacher). With a
    vanishing cloning step size PPO starts where the checkpoint is; a fresh run cloned the same
    way starts elsewhere, and a real step size moves the weights."""
    source, _ = load_checkpoint(toy_checkpoint)
    want = source.policy.state_dict()
    tiny = {"steps": 300, "epochs": 1, "batch_size": 64, "learning_rate": 1e-12, "dagger_rounds": 1, "dagger_steps": 100}

    def start(name, pretrain, init=True):
        seen = _WeightsAtStart()
        cfg = load_config(raw=toy_config(tmp_path, name=name, pretrain=pretrain,
                                         training={"total_timesteps": 256, "init_from": str(toy_checkpoint) if init else None},
                                         evaluation={"games": 2}))
        res = train(cfg, extra_callbacks=[seen], **QUIET)
        return seen.weights, res.metadata

    kept, meta = start("kept", tiny)
    assert all(torch.allclose(kept[k], want[k], atol=1e-6) for k in want)
    assert meta["init_from"]["path"] == str(toy_checkpoint) and meta["pretrain"]["samples"] >= 300
    assert len(meta["pretrain"]["dagger"]["rounds"]) == 1
    fresh, _ = start("fresh", tiny, init=False)
    assert not all(torch.allclose(fresh[k], want[k], atol=1e-6) for k in want)
    moved, _ = start("moved", {**tiny, "learning_rate": 1e-2})
    assert not all(torch.allclose(moved[k], want[k], atol=1e-6) for k in want)


@pytest.mark.parametrize("change,error", [
    ({"training": {"init_from": "no/such/dir"}}, r"training.init_from: no checkpoint at no/such/dir .*allowed: a checkpoint directory"),
    ({"algorithm": {"net_arch": [8]}}, r"training.init_from: .* network is \{'net_arch': \[16, 16\], 'activation': 'tanh'\}, this config's is \{'net_arch': \[8\]"),
    ({"training": {"normalize_observations": False}}, r"trained with normalize_observations=True, this config has False"),
    ({"env": {"id": "toy_coop_v0", "options": {"players": 2}}}, r"was trained on 'toy_v0', not 'toy_coop_v0'"),
])
def test_init_from_refuses_what_does_not_fit_before_writing_anything(toy_registry, tmp_path, toy_checkpoint, change, error):
    raw = toy_config(tmp_path, name="tuned", training={"total_timesteps": 256, "init_from": str(toy_checkpoint)})
    for section, values in change.items():
        raw[section] = {**raw.get(section, {}), **values}
    with pytest.raises(ConfigError, match=error):
        train(load_config(raw=raw), **QUIET)
    assert not (tmp_path / "checkpoints").exists() and not (tmp_path / "runs").exists()


def test_dry_run_loads_the_init_from_model_as_the_run_does(toy_registry, tmp_path, toy_checkpoint):
    """A model file that is not a model, with metadata made to agree with it: --dry-run refuses it (it had
    said the config was valid), and so does the run before it writes anything (it had left its
    checkpoints directory behind); a good checkpoint still passes."""
    import shutil

    from training import checkpoints as ck

    raw = toy_config(tmp_path, name="tuned", training={"total_timesteps": 256, "init_from": str(toy_checkpoint)})
    assert train(load_config(raw=raw), dry_run=True, **QUIET) is not None
    bad = tmp_path / "bad"
    shutil.copytree(toy_checkpoint, bad)
    meta = read_metadata(bad)
    (bad / meta["model_file"]).write_bytes(b"PK\x03\x04 not a model")
    ck.update_metadata(bad, model_sha256=ck.sha256_of(bad / meta["model_file"]))
    raw = toy_config(tmp_path, name="tuned", training={"total_timesteps": 256, "init_from": str(bad)})
    for dry in (True, False):
        with pytest.raises(ConfigError, match=r"training.init_from: checkpoint .*bad.* model.zip does not load"):
            train(load_config(raw=raw), dry_run=dry, **QUIET)
        assert not (tmp_path / "checkpoints").exists() and not (tmp_path / "runs").exists()


class _SendSigint(BaseCallback):
    def __init__(self, at: int):
        super().__init__()
        self.at = at

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.at:
            os.kill(os.getpid(), signal.SIGINT)
            self.at = 10**12
        return True


def test_ctrl_c_saves_a_resumable_checkpoint(toy_registry, tmp_path, capsys):
    cfg = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 50_000}), overrides=["training.seed=4"])
    before = signal.getsignal(signal.SIGINT)
    lines = []
    res = train(cfg, extra_callbacks=[_SendSigint(300)], log=lines.append)
    assert res.interrupted
    meta = read_metadata(res.checkpoint_dir)
    assert meta["complete"] is False and 300 <= meta["timesteps"] < 50_000
    assert "saving a checkpoint" in capsys.readouterr().out
    assert lines[-1].endswith("continue with: python -m training train --set training.seed=4 --resume")
    load_checkpoint(res.checkpoint_dir)  # a valid checkpoint
    assert signal.getsignal(signal.SIGINT) is before  # handler restored


def test_same_seed_same_weights(toy_registry, tmp_path):
    weights = []
    for i in range(2):
        cfg = load_config(raw=toy_config(tmp_path / str(i), training={"total_timesteps": 512, "seed": 5},
                                         evaluation={"games": 2}))
        res = train(cfg, **QUIET)
        model, _ = load_checkpoint(res.checkpoint_dir)
        weights.append([p.detach().numpy().copy() for p in model.policy.parameters()])
    for a, b in zip(*weights):
        np.testing.assert_array_equal(a, b)


QUICK = sorted((ROOT / "configs").glob("*_quick.yaml"))


@pytest.mark.parametrize("path", QUICK, ids=[p.stem for p in QUICK])
def test_quick_config_trains_reloads_and_evaluates(path, tmp_path):
    cfg = load_config(path, [f"output.checkpoints={tmp_path / 'ck'}", f"output.runs={tmp_path / 'runs'}",
                             "training.progress_bar=false"])
    if cfg["env"]["id"] not in envs.available_env_ids():
        pytest.skip(f"{cfg['env']['id']} is not present in this checkout")
    res = train(cfg, **QUIET)
    assert res.metadata["complete"] and res.metadata["timesteps"] >= cfg["training"]["total_timesteps"]
    assert all(not r.note for r in res.rows), res.table
    if cfg["pretrain"]["steps"]:  # the warm start ran on the real game, DAgger rounds included
        pre = res.metadata["pretrain"]
        assert pre["samples"] >= cfg["pretrain"]["steps"] and pre["teacher_actions_outside_mask"] == 0
        assert len(pre.get("dagger", {}).get("rounds", [])) == cfg["pretrain"]["dagger_rounds"]
    from training.envspec import EnvSpec

    spec = EnvSpec.resolve(cfg["env"]["id"], cfg["env"]["options"])
    row = evaluate(spec, f"checkpoint:{res.checkpoint_dir}", "random" if spec.kind == "competitive" else None,
                   games=3, seed=7)
    assert row.games == 3 and 0.0 <= row.win_rate <= 1.0


@pytest.mark.parametrize("fixture", ["toy_checkpoint", "coop_checkpoint"])
def test_evaluation_md_gives_the_commands_that_reproduce_every_row(fixture, request, toy_registry, tmp_path, capsys):
    """The Reproduce block of evaluation.md: the training command, then evaluate commands whose
    rows, in order, are exactly the table's (issue 16: every figure with the command and seed)."""
    import shlex

    from training.cli import main

    ck = Path(request.getfixturevalue(fixture))
    text = (ck / "evaluation.md").read_text()
    block = text.split("Reproduce (training, then each row):", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line) for line in block.strip().splitlines()]
    assert commands[0][:4] == ["python", "-m", "training", "train"] and "name=retrained" in commands[0]
    assert commands[1][:4] == ["python", "-m", "training", "evaluate"]  # one training session: one train line
    want = json.loads((ck / "evaluation.json").read_text())["rows"]
    got = []
    for i, words in enumerate(commands[1:]):
        assert words[:4] == ["python", "-m", "training", "evaluate"]
        out = tmp_path / f"row{i}.json"
        assert main(words[3:] + ["--workers", "1", "--json", str(out)]) == 0
        got += json.loads(out.read_text())["rows"]
    capsys.readouterr()
    assert [(r["policy"], r["lineup"], r["games"]) for r in got] == [(r["policy"], r["lineup"], r["games"]) for r in want]
    assert [r["win_rate"] for r in got] == [r["win_rate"] for r in want]


def test_a_resumed_runs_reproduce_block_replays_every_session_to_the_same_weights(toy_registry, tmp_path, capsys):
    """A checkpoint trained in two sessions (the second a --resume with its own override) lists both
    train commands; run as written they give the same network."""
    import shlex

    import yaml

    from training.cli import main

    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(toy_config(tmp_path, training={"total_timesteps": 256}, evaluation={"games": 2})))
    first = train(load_config(path), **QUIET)
    second = train(load_config(path, overrides=["training.total_timesteps=512"]), resume=True, **QUIET)
    sessions = second.metadata["sessions"]
    assert [(x["from"], x["to"] >= 512) for x in sessions] == [(0, False), (first.metadata["timesteps"], True)]
    text = (second.checkpoint_dir / "evaluation.md").read_text()
    block = text.split("Reproduce (training, then each row):", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [shlex.split(line) for line in block.strip().splitlines()]
    trains = [w for w in lines if w[3] == "train"]
    assert len(trains) == 2 and "--resume" not in trains[0] and "--resume" in trains[1]
    assert "training.total_timesteps=512" in trains[1] and all("name=retrained" in w for w in trains)
    for words in trains:
        assert main(words[3:] + ["--quiet"]) == 0
    capsys.readouterr()
    again = tmp_path / "checkpoints" / "toy" / "retrained"
    a, b = np.load(second.checkpoint_dir / "actor.npz"), np.load(again / "actor.npz")
    assert sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)


def test_a_malformed_sessions_record_falls_back_to_the_configs_command():
    from training.trainer import training_commands, valid_sessions

    cfg = {"_path": "configs/x.yaml", "_overrides": []}
    good = [{"command": "python -m training train --config configs/x.yaml", "from": 0, "to": 5}]
    assert valid_sessions(good) and training_commands(cfg, good) == [good[0]["command"] + " --set name=retrained"]
    for bad in (None, [], "x", [1], [{"command": 3, "from": 0, "to": 1}], [{"command": "c", "from": "0", "to": 1}],
                [{"command": None, "from": 0, "to": 1}]):  # the last: valid but incomplete
        assert training_commands(cfg, bad) == ["python -m training train --config configs/x.yaml --set name=retrained"]
    assert not valid_sessions([{"command": "c", "from": True, "to": 1}])

