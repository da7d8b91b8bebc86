"""``python -m training train --backend rllib``: the same configs trained on Ray RLlib.

End to end through the command line (each run starts and stops its own local Ray instance, with
2 env runners), on one cooperative game (Wok Star, a team of 2) and one competitive game (Frying
Master, 2 players, against heuristic and random opponents): exit 0, a checkpoint in the project's
format whose hashes verify, and ``evaluate checkpoint:DIR`` on it. Keys with no RLlib meaning are
refused (exit 2) before Ray starts. The export of the module's actor to ``actor.npz`` gives
RLlib's own logits (no Ray needed for that).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")
torch = pytest.importorskip("torch")

import envs  # noqa: E402
from training import checkpoints as ck  # noqa: E402
from training.config import load_config  # noqa: E402
from training.trainer import plan_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RAY_STARTED = "Started a local Ray instance"


def _yaml(tmp_path: Path, env_id: str, options: str, extra: str = "") -> Path:
    text = f"""name: rl_test
env:
  id: {env_id}
  options: {options}
algorithm:
  n_steps: 32
  batch_size: 64
  n_epochs: 1
  net_arch: [16, 16]
training:
  total_timesteps: 200
  env_copies: 2
  workers: 2
  progress_bar: false
evaluation:
  games: 2
  workers: 1
  against: [heuristic]
output:
  checkpoints: {tmp_path / 'ck'}
  runs: {tmp_path / 'runs'}
{extra}"""
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _cli(*args: str, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=None if env is None else {**os.environ, **env})


CASES = {
    "wok_star_team": ("wok_star_v0", "{players: 2, difficulty: mild}", ""),
    "frying_master_vs_frozen": ("frying_master_v0", "{players: 2}", "seats:\n  others: {heuristic: 0.5, random: 0.5}\n"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_trains_end_to_end_on_rllib_and_evaluates_unchanged(case, tmp_path):
    env_id, options, extra = CASES[case]
    if env_id not in envs.available_env_ids():
        pytest.skip(f"{env_id} not present")
    config = _yaml(tmp_path, env_id, options, extra)
    # without --address the command starts a Ray instance of its own, whatever cluster the
    # environment names (RAY_ADDRESS here; a `ray start` leaves /tmp/ray/ray_current_cluster)
    r = _cli("train", "--config", str(config), "--backend", "rllib", env={"RAY_ADDRESS": "127.0.0.1:9"})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "2 env runner(s)" in r.stdout
    assert "| policy |" in r.stdout and "checkpoint:" in r.stdout  # the evaluation table, as for SB3
    game = env_id.rsplit("_v", 1)[0]
    d = tmp_path / "ck" / game / "rl_test"
    meta = ck.verify_file(d)  # structure, model file and actor hashes
    assert meta["algorithm"] == "rllib-ppo" and meta["backend"] == "rllib" and meta["complete"]
    assert meta["model_file"] == "rllib_module.npz" and meta["timesteps"] >= 200
    assert meta["observation"]["normalized"] is True
    assert meta["rllib"]["num_env_runners"] == 2
    assert meta["evaluation"]  # the evaluation summary was recorded
    actor, _ = ck.load_actor(d)
    assert actor.hidden_sizes == [16, 16]
    with np.load(d / meta["model_file"], allow_pickle=False) as z:  # plain arrays
        assert len(z.files) > 0
    e = _cli("evaluate", f"checkpoint:{d}", "--games", "2", "--workers", "1")
    assert e.returncode == 0, e.stderr[-3000:]
    assert "checkpoint:" in e.stdout
    if case != "frying_master_vs_frozen":
        return
    # --resume reads only the files this project wrote: the module weights and the counters
    more = ("--set", f"training.total_timesteps={meta['timesteps'] + 100}")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume", *more)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert f"resuming from {d} at {meta['timesteps']:,} agent steps" in r.stdout
    again = ck.verify_file(d)
    assert again["timesteps"] >= meta["timesteps"] + 100
    assert again["counters"]["n_updates"] > meta["counters"]["n_updates"]
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume", *more, timeout=60)
    assert r.returncode == 0 and "nothing to do" in r.stdout
    with open(d / "rllib_module.npz", "ab") as f:  # a changed file is refused before Ray starts
        f.write(b"x")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume",
             "--set", f"training.total_timesteps={again['timesteps'] + 100}", timeout=60)
    assert r.returncode == 2 and "corrupt or was modified" in r.stderr and RAY_STARTED not in r.stderr


@pytest.mark.parametrize("item, key", [
    ("pretrain.steps=1000", "pretrain.steps"),
    ("seats.others={pool: 1}", "seats.others.pool"),
    ("algorithm.lr_schedule=linear", "algorithm.lr_schedule"),
    ("algorithm.target_kl=0.02", "algorithm.target_kl"),
    ("self_play.pool_size=3", "self_play.pool_size"),
])
def test_a_key_without_rllib_meaning_is_refused_before_ray_starts(item, key, tmp_path):
    config = _yaml(tmp_path, "frying_master_v0", "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--set", item, timeout=60)
    assert r.returncode == 2, r.stderr
    err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and key in err[0] and "not supported by the RLlib backend" in err[0], r.stderr
    assert RAY_STARTED not in r.stderr + r.stdout
    assert not (tmp_path / "ck").exists()


def test_address_needs_the_rllib_backend_and_resume_needs_a_checkpoint(tmp_path):
    config = _yaml(tmp_path, "frying_master_v0", "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--address", "127.0.0.1:6379", timeout=60)
    assert r.returncode == 2 and "--address is only for --backend rllib" in r.stderr
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume", timeout=60)
    assert r.returncode == 2 and "no checkpoint at" in r.stderr and RAY_STARTED not in r.stderr


def test_dry_run_describes_the_rllib_layout(tmp_path):
    config = _yaml(tmp_path, "frying_master_v0", "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--dry-run", timeout=60)
    assert r.returncode == 0, r.stderr
    assert "RLlib PPO" in r.stdout and "2 env runner(s) x 1 env copies x 1 learner slot(s)" in r.stdout
    assert not (tmp_path / "ck").exists()


RLLIB_CONFIGS = sorted((ROOT / "configs").glob("*_rllib.yaml"))


def test_every_game_has_an_rllib_config_the_backend_accepts():
    from training.rllib_backend import check_supported

    names = {p.name for p in RLLIB_CONFIGS}
    for env_id in envs.ENV_IDS:
        assert f"{env_id.rsplit('_v', 1)[0]}_rllib.yaml" in names
    for path in RLLIB_CONFIGS:
        cfg = load_config(path)
        if cfg["env"]["id"] in envs.available_env_ids():
            check_supported(cfg, plan_run(cfg))


def test_the_bridge_env_exposes_only_learner_slots_with_the_encoded_observation():
    from training.obs import SeatEncoder
    from training.rllib_backend import _make_env

    cfg = load_config(raw={"env": {"id": "frying_master_v0", "options": {"players": 2}},
                           "seats": {"others": {"random": 1}}, "training": {"win_bonus": 1.0}})
    plan = plan_run(cfg)
    env = _make_env({"settings": plan.settings})
    obs, _ = env.reset(seed=3)
    assert list(obs) == ["learner_0"]
    enc = SeatEncoder.for_env(plan.env_spec.make())
    assert obs["learner_0"]["observation"].shape == (enc.size,)
    assert env.observation_spaces["learner_0"]["observation"].contains(obs["learner_0"]["observation"])
    rng = np.random.default_rng(0)
    seats = set()
    for _ in range(3):  # three games: the learner's seat rotates (cycle)
        seats.add(int(np.argmax(obs["learner_0"]["observation"][-2:])))
        while True:
            mask = obs["learner_0"]["action_mask"]
            obs, rew, term, trunc, info = env.step({"learner_0": int(rng.choice(np.flatnonzero(mask)))})
            if term["__all__"] or trunc["__all__"]:
                assert "win" in info["learner_0"]
                break
        obs, _ = env.reset()
    assert seats == {0, 1}


def test_the_exported_actor_gives_the_modules_logits():
    import gymnasium as gym
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from envs.integrations.rllib import MaskedPPOTorchRLModule, module_spec
    from training.rllib_backend import actor_of

    base = module_spec([16, 8], "relu")
    space = gym.spaces.Dict({"observation": gym.spaces.Box(0, 1, (7,), np.float32),
                             "action_mask": gym.spaces.Box(0, 1, (5,), np.int8)})
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=space,
                          action_space=gym.spaces.Discrete(5), model_config=base.model_config).build()
    actor = actor_of(module)
    assert actor.hidden_sizes == [16, 8] and actor.activation == "ReLU"
    x = np.random.default_rng(0).random((4, 7)).astype(np.float32)
    with torch.no_grad():
        out = module.forward_inference({Columns.OBS: {"observation": torch.as_tensor(x),
                                                      "action_mask": torch.ones((4, 5), dtype=torch.int8)}})
    np.testing.assert_allclose(actor.logits(x), out[Columns.ACTION_DIST_INPUTS].numpy(), rtol=1e-5, atol=1e-5)


def test_the_docs_dry_run_command_runs_as_written():
    """The `--dry-run` line of docs/training.md's RLlib section, as a user types it."""
    import re
    import shlex

    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8").split("## Training on Ray RLlib", 1)[1]
    line = next(m.group(1) for m in re.finditer(r"^python -m training (train .*--backend rllib --dry-run)\s*$", text, re.M))
    r = _cli(*shlex.split(line), timeout=90)
    assert r.returncode == 0, r.stderr
    assert "RLlib PPO" in r.stdout
