"""A training run's life at its edges: stopped during its final evaluation, killed inside a
save, a second run of the same name at once, a dead run's leftovers, an output path that cannot
be made. Each was found by a probe of real runs (2026-12-07)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import training.checkpoints as ck
import training.trainer as trainer
from envs.core.errors import ConfigError
from tests.training.conftest import toy_config
from training.checkpoints import CheckpointError, load_checkpoint, read_metadata
from training.config import load_config
from training.trainer import train

QUIET = {"log": lambda s: None}


def _cfg(tmp_path, **sections):
    return load_config(raw=toy_config(tmp_path, **sections))


def test_ctrl_c_in_the_final_evaluation_is_one_line_and_resume_evaluates(toy_registry, tmp_path, monkeypatch):
    """Ctrl-C during the final evaluation printed a traceback and left a checkpoint marked
    complete without an evaluation, which ``--resume`` then called "nothing to do"."""
    real = trainer.run_evaluation

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(trainer, "run_evaluation", stopped)
    lines: list[str] = []
    res = train(_cfg(tmp_path, training={"total_timesteps": 256}), log=lines.append)
    assert res.interrupted and "interrupted during the final evaluation" in lines[-1]
    assert lines[-1].endswith("--resume")
    meta = read_metadata(res.checkpoint_dir)
    assert meta["complete"] is True and meta["evaluation"] is None
    assert not (res.checkpoint_dir / "evaluation.md").exists()
    monkeypatch.setattr(trainer, "run_evaluation", real)
    lines.clear()
    again = train(_cfg(tmp_path, training={"total_timesteps": 256}), resume=True, log=lines.append)
    assert not again.interrupted and again.rows and "no evaluation" in lines[0]
    assert read_metadata(res.checkpoint_dir)["evaluation"] is not None
    assert (res.checkpoint_dir / "evaluation.md").is_file()


class _Stop(BaseException):
    """A kill inside a save (a second Ctrl-C, a scheduler's SIGKILL)."""


@pytest.mark.parametrize("where", ["after the model's swap", "before the journal"])
def test_a_save_killed_midway_leaves_one_whole_checkpoint(toy_registry, tmp_path, monkeypatch, where):
    """A save replaced ``model.zip`` and then ``actor.npz`` and then the metadata: a kill between
    them left a new model beside the old metadata, refused by every later load, and the run's
    last good checkpoint was lost (found in 2 of 10 killed runs)."""
    res = train(_cfg(tmp_path, training={"total_timesteps": 256}), **QUIET)
    d = res.checkpoint_dir
    model, meta = load_checkpoint(d)
    old = read_metadata(d)
    model.num_timesteps += 1000  # the next save differs from the one on disk
    args = dict(normalize=True, hyperparameters=ck.model_settings(old)[0], policy_kwargs=old["policy_kwargs"],
                seed=3, complete=False)
    from training.envspec import EnvSpec

    spec = EnvSpec.resolve(old["env_id"], old["env_config"])
    if where == "after the model's swap":
        real, calls = os.replace, []

        def replace(src, dst):
            real(src, dst)
            calls.append(dst)
            if str(dst).endswith(ck.MODEL_FILE):
                raise _Stop

        monkeypatch.setattr(ck.os, "replace", replace)
    else:
        def no_journal(path, text):
            raise _Stop

        monkeypatch.setattr(ck, "atomic_write_text", no_journal)
    with pytest.raises(_Stop):
        ck.save_checkpoint(d, model, spec, **args)
    monkeypatch.undo()
    meta = read_metadata(d)  # finishes the save (or leaves the old one) and reads a whole checkpoint
    load_checkpoint(d)  # hashes agree: not refused
    expect = old["timesteps"] + 1000 if where == "after the model's swap" else old["timesteps"]
    assert meta["timesteps"] == expect
    assert not (d / ck.SAVING_FILE).exists()
    ck.save_checkpoint(d, model, spec, **args)  # the next save starts clean
    assert sorted(p.name for p in d.iterdir() if ".tmp" in p.name or p.name.endswith(".saving")) == []


def test_a_second_run_of_the_same_name_at_once_is_refused(toy_registry, tmp_path):
    """Two ``train`` commands of one run name at the same time both ran to the end, one's seed
    lost and their self-play pools mixed (``--resume`` then refused the pool)."""
    cfg = _cfg(tmp_path, training={"total_timesteps": 256})
    plan, _ = trainer.check_run(cfg)
    with trainer.run_lock(plan):  # another run holds it
        with pytest.raises(ConfigError, match=r"another train is writing .* now \(process \d+"):
            train(cfg, **QUIET)
    assert not ck.is_checkpoint(plan.checkpoint_dir)
    train(cfg, **QUIET)  # once it is free
    assert not plan.checkpoint_dir.with_name(f".{plan.checkpoint_dir.name}.lock").exists()


def test_a_dead_runs_pool_or_an_output_path_through_a_file_is_refused_before_training(toy_registry, tmp_path):
    """A new run played against the self-play pool a killed run of the same name had left (the
    same seed then gave other weights); an output path through a file was found only when the
    checkpoint was saved, after the whole run (and ``--dry-run`` called it valid)."""
    cfg = _cfg(tmp_path, training={"total_timesteps": 256})
    plan, _ = trainer.check_run(cfg)
    pool = plan.run_dir / "pool"
    pool.mkdir(parents=True)
    (pool / "snapshot_0.npz").write_bytes(b"left by a dead run")
    with pytest.raises(ConfigError, match=r"holds the self-play pool of an earlier run of this name"):
        train(cfg, dry_run=True, **QUIET)
    assert train(cfg, overwrite=True, **QUIET).checkpoint_dir == plan.checkpoint_dir  # the way out
    (tmp_path / "afile").write_text("x")
    blocked = load_config(raw=toy_config(tmp_path, output={"checkpoints": str(tmp_path / "afile" / "ck"),
                                                            "runs": str(tmp_path / "runs2")}))
    with pytest.raises(ConfigError, match=r"output\.checkpoints: .* cannot be made: .*afile is a file"):
        train(blocked, dry_run=True, **QUIET)
    assert not (tmp_path / "runs2").exists()


def test_an_interrupt_without_a_message_keeps_its_kind(toy_registry, tmp_path):
    """Ctrl-C during behaviour cloning with one process became ``IndexError`` (the interrupt's
    empty message had no first line), hiding the interrupt."""
    from training.trainer import check_run
    from training.vec_env import MultiAgentVecEnv

    plan, _ = check_run(_cfg(tmp_path, seats={"others": {"random": 1.0}}))
    venv = MultiAgentVecEnv(plan.settings, 2, 1)
    try:
        venv.reset()

        def interrupted(*a, **k):
            raise KeyboardInterrupt

        venv._backends[0].recv = interrupted
        with pytest.raises(KeyboardInterrupt):
            venv.step(np.zeros(venv.num_envs, dtype=np.int64))
        assert "KeyboardInterrupt: )" in venv._not_ready
    finally:
        venv.close()


class _Die(BaseException):
    """The process killed after a periodic save."""


def test_a_periodic_save_keeps_the_learning_curve_for_a_resume(toy_registry, tmp_path):
    """``checkpoint_every`` saves wrote no ``curve.csv``: a run killed after one and resumed
    started its curve again at the resumed step."""
    from stable_baselines3.common.callbacks import BaseCallback

    from training.plotting import read_curve

    class DieAt(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 700:
                raise _Die
            return True

    cfg = _cfg(tmp_path, training={"total_timesteps": 1024, "checkpoint_every": 256})
    with pytest.raises(_Die):
        train(cfg, extra_callbacks=[DieAt()], **QUIET)
    d = trainer.check_run(cfg, resume=True)[0].checkpoint_dir
    saved = read_curve(d / "curve.csv")
    assert saved and read_metadata(d)["timesteps"] >= 512
    train(cfg, resume=True, **QUIET)
    whole = read_curve(d / "curve.csv")
    assert whole[:len(saved)] == saved and len(whole) > len(saved)


def test_a_periodic_save_holds_the_model_after_the_steps_it_is_labelled_with(toy_registry, tmp_path):
    """A ``checkpoint_every`` save was made inside a rollout: it held the weights from before that
    rollout's update under the rollout's full step count, so a run killed after it and resumed never
    learned from that rollout (28 updates where an uninterrupted run made 32). Saved at the start of
    the next rollout, it is the model after those steps: equal to a run that stopped there."""
    from stable_baselines3.common.callbacks import BaseCallback

    class DieAfterASave(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 600:
                raise _Die
            return True

    cfg = _cfg(tmp_path, name="cut", training={"total_timesteps": 1024, "checkpoint_every": 256})
    with pytest.raises(_Die):
        train(cfg, extra_callbacks=[DieAfterASave()], **QUIET)
    d = trainer.check_run(cfg, resume=True)[0].checkpoint_dir
    meta = read_metadata(d)
    steps = meta["timesteps"]
    assert meta["sessions"][-1]["ended"] == "interrupted" and steps >= 256
    plain = train(_cfg(tmp_path, name="plain", training={"total_timesteps": steps}), **QUIET)
    a, b = np.load(d / "actor.npz"), np.load(plain.checkpoint_dir / "actor.npz")
    assert read_metadata(plain.checkpoint_dir)["timesteps"] == steps
    assert all(np.array_equal(a[k], b[k]) for k in a.files)
    model, _ = load_checkpoint(d)
    assert model.num_timesteps == steps and model._n_updates == load_checkpoint(plain.checkpoint_dir)[0]._n_updates


def test_the_reproduce_block_of_a_run_cut_short_says_it_is_not_this_run(toy_registry, tmp_path):
    """A run stopped by Ctrl-C and resumed listed its first session's command, which trains to the
    end: run as written, it reproduced the run without the stop, and said nothing."""
    from training.trainer import training_commands

    cfg = _cfg(tmp_path)
    sessions = [{"command": "python -m training train", "from": 0, "to": 3368, "ended": "interrupted"},
                {"command": "python -m training train --resume", "from": 3368, "to": 17704}]
    out = training_commands(cfg, sessions)
    assert out[0].startswith("# not this run exactly: session(s) stopped early (Ctrl-C or a kill) at 3,368 timesteps")
    assert out[1:] == [x["command"] + " --set name=retrained" for x in sessions]
    done = [{"command": "python -m training train", "from": 0, "to": 512},
            {"command": "python -m training train --resume", "from": 512, "to": 1024}]
    assert training_commands(cfg, done) == [x["command"] + " --set name=retrained" for x in done]


def test_a_resume_says_when_the_curve_is_behind_its_checkpoint(toy_registry, tmp_path, monkeypatch):
    """A kill between the checkpoint's save and the curve's write left the checkpoint without its
    curve; ``--resume`` started the curve again at the resumed step without a word."""
    cfg = _cfg(tmp_path, training={"total_timesteps": 512})
    res = train(cfg, **QUIET)
    rows = read_metadata(res.checkpoint_dir)["curve_rows"]
    assert rows > 0
    (res.checkpoint_dir / "curve.csv").unlink()
    lines: list[str] = []
    train(_cfg(tmp_path, training={"total_timesteps": 768}), resume=True, log=lines.append)
    assert any(f"holds 0 of the {rows:,} games the checkpoint was saved with" in x for x in lines)
