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

from envs.core.errors import KitchenArenaError  # noqa: E402
import envs  # noqa: E402
from training import checkpoints as ck  # noqa: E402
from training.config import load_config  # noqa: E402
from training.trainer import plan_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RAY_STARTED = "Started a local Ray instance"


def _env_id(game: str) -> str:
    """The registry's id of ``game`` (whatever its version)."""
    return next(e for e in envs.ENV_IDS if e.rsplit("_v", 1)[0] == game)


WOK, FRY = _env_id("wok_star"), _env_id("frying_master")


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


def _cli(*args: str, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=None if env is None else {**os.environ, **env})


CASES = {
    "wok_star_team": (WOK, "{players: 2, difficulty: mild}", ""),
    "frying_master_vs_frozen": (FRY, "{players: 2}", "seats:\n  others: {heuristic: 0.5, random: 0.5}\n"),
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
    # its reproduce block names the backend (it had retrained with SB3)
    assert "--backend rllib" in (d / "evaluation.md").read_text(encoding="utf-8")
    # the SB3 backend's refusal says which backend resumes it
    r = _cli("train", "--config", str(config), "--resume", "--set", f"training.total_timesteps={again['timesteps'] + 500}",
             timeout=60)
    assert r.returncode == 2 and "with --backend rllib" in r.stderr, r.stderr
    # stopped during its final evaluation (complete, evaluation null): --resume evaluates it alone,
    # before Ray starts (it had said "nothing to do" and never evaluated)
    import json
    m = json.loads((d / "metadata.json").read_text(encoding="utf-8"))
    m["evaluation"] = None
    (d / "metadata.json").write_text(json.dumps(m), encoding="utf-8")
    (d / "evaluation.md").unlink()
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume", *more, timeout=120)
    assert r.returncode == 0 and "complete with no evaluation" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    assert RAY_STARTED not in r.stderr + r.stdout and (d / "evaluation.md").is_file()
    again = ck.verify_file(d)
    with open(d / "rllib_module.npz", "ab") as f:  # a changed file is refused before Ray starts
        f.write(b"x")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume",
             "--set", f"training.total_timesteps={again['timesteps'] + 100}", timeout=60)
    assert r.returncode == 2 and "corrupt or was modified" in r.stderr and RAY_STARTED not in r.stderr


@pytest.mark.parametrize("item, key", [
    ("algorithm.target_kl=0.02", "algorithm.target_kl"),
    ("algorithm.normalize_advantage=false", "algorithm.normalize_advantage"),
    ("training.device=auto", "training.device"),
    ("training.action_sampler=cdf", "training.action_sampler"),
    ("training.worker_timeout_s=60", "training.worker_timeout_s"),
])
def test_a_key_without_rllib_meaning_is_refused_before_ray_starts(item, key, tmp_path):
    config = _yaml(tmp_path, FRY, "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--set", item, timeout=60)
    assert r.returncode == 2, r.stderr
    err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and key in err[0] and "not supported by the RLlib backend" in err[0], r.stderr
    assert RAY_STARTED not in r.stderr + r.stdout
    assert not (tmp_path / "ck").exists()


def test_a_seed_past_what_rllib_can_give_each_runner_is_refused_before_ray_starts(tmp_path):
    """RLlib seeds runner w with seed + w (and its copies on from there): 2**32 - 1 passed --dry-run
    and then died inside Ray with a multi-screen traceback."""
    config = _yaml(tmp_path, FRY, "{players: 2}", "seats:\n  others: {random: 1}\n")
    for dry in ([], ["--dry-run"]):
        r = _cli("train", "--config", str(config), "--backend", "rllib", "--set", "training.seed=4294967295", *dry,
                 timeout=60)
        err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
        assert r.returncode == 2 and len(err) == 1 and "training.seed" in err[0] and "allowed: 0..4294967293" in err[0]
        assert RAY_STARTED not in r.stderr + r.stdout


def test_init_from_is_refused_by_the_rllib_backend_before_ray_starts(tmp_path):
    config = _yaml(tmp_path, FRY, "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--set", "algorithm.net_arch=[256, 256]",
             "--set", f"training.init_from={ROOT / 'checkpoints' / 'frying_master' / 'main'}", timeout=60)
    assert r.returncode == 2, r.stderr
    err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "training.init_from" in err[0] and "not supported by the RLlib backend" in err[0], r.stderr
    assert RAY_STARTED not in r.stderr + r.stdout


def test_address_needs_the_rllib_backend_and_resume_needs_a_checkpoint(tmp_path):
    config = _yaml(tmp_path, FRY, "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--address", "127.0.0.1:6379", timeout=60)
    assert r.returncode == 2 and "--address is only for --backend rllib" in r.stderr
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume", timeout=60)
    assert r.returncode == 2 and "no checkpoint at" in r.stderr and RAY_STARTED not in r.stderr


def test_dry_run_describes_the_rllib_layout(tmp_path):
    config = _yaml(tmp_path, FRY, "{players: 2}", "seats:\n  others: {random: 1}\n")
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

    cfg = load_config(raw={"env": {"id": FRY, "options": {"players": 2}},
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


def test_self_play_pool_pretrain_and_optimizer_state_on_rllib(tmp_path):
    """The SB3 configs' self-play pool and behaviour cloning mean the same on RLlib: the pool on
    disk (hashed .npz snapshots) is fed every ``snapshot_every`` agent steps and restored by
    ``--resume`` with the module weights and Adam's state; TensorBoard gets the SB3 tags and the
    checkpoint a learning curve."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    extra = ("seats:\n  others: {pool: 0.5, random: 0.5}\nself_play:\n  snapshot_every: 200\n  pool_size: 2\n"
             "pretrain:\n  steps: 300\n  epochs: 1\n")
    config = _yaml(tmp_path, FRY, "{players: 2}", extra)
    more = ("--set", "training.total_timesteps=1300")
    r = _cli("train", "--config", str(config), "--backend", "rllib", *more, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "behaviour-cloned weights loaded into the RLlib module" in r.stdout
    d, run = tmp_path / "ck" / "frying_master" / "rl_test", tmp_path / "runs" / "frying_master" / "rl_test"
    meta = ck.verify_file(d)
    assert meta["pretrain"]["samples"] >= 300 and meta["pretrain"]["teacher"] == "heuristic"
    assert meta["optimizer_file"] == "rllib_optimizer.npz" and ck.sha256_of(d / meta["optimizer_file"]) == meta["optimizer_sha256"]
    index = __import__("json").loads((run / "pool" / "pool.json").read_text())
    stamps = [e["timesteps"] for e in index["snapshots"]]
    assert len(stamps) == 2 and stamps == sorted(stamps) and stamps[-1] >= 1000  # fed as training went, capped at 2
    tags = set()
    for f in run.glob("events.out.tfevents.*"):
        acc = EventAccumulator(str(f))
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    assert {"rollout/win_rate", "train/value_loss", "self_play/pool_size", "pretrain/accuracy"} <= tags, tags
    rows = (d / "curve.csv").read_text().splitlines()
    assert rows[0] == "timesteps,episode_return,win,score,length" and len(rows) > 1
    assert (d / "learning_curve.png").is_file()
    # --resume: weights, Adam's state and the pool come back from our own hashed files
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume",
             "--set", "training.total_timesteps=1700", timeout=180)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "the optimizer state from rllib_optimizer.npz; 2 self-play snapshot(s)" in r.stdout
    assert "behaviour cloning" not in r.stdout.split("resuming", 1)[1]
    again = ck.verify_file(d)
    assert again["timesteps"] >= 1700 and again["pretrain"] == meta["pretrain"]
    assert len((d / "curve.csv").read_text().splitlines()) >= len(rows)
    # a modified pool snapshot or optimizer file is refused before Ray starts
    snap = run / "pool" / __import__("json").loads((run / "pool" / "pool.json").read_text())["snapshots"][-1]["file"]
    original = snap.read_bytes()
    snap.write_bytes(original + b"x")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume",
             "--set", "training.total_timesteps=2500", timeout=60)
    assert r.returncode == 2 and "corrupt or was modified" in r.stderr and RAY_STARTED not in r.stderr
    snap.write_bytes(original)
    with open(d / "rllib_optimizer.npz", "ab") as f:
        f.write(b"x")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--resume",
             "--set", "training.total_timesteps=2500", timeout=120)
    assert r.returncode == 2 and "rllib_optimizer.npz is corrupt or was modified" in r.stderr, r.stderr[-2000:]


def test_sb3_weights_map_onto_the_rllib_module():
    """Behaviour cloning fits an SB3 policy; its weights, mapped layer by layer, give the RLlib
    module the same logits and values."""
    import gymnasium as gym
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from sb3_contrib.ppo_mask.policies import MaskableActorCriticPolicy

    from envs.integrations.rllib import MaskedPPOTorchRLModule, module_spec
    from training.rllib_backend import actor_of, sb3_policy_to_module_state

    box = gym.spaces.Box(0, 1, (7,), np.float32)
    policy = MaskableActorCriticPolicy(box, gym.spaces.Discrete(5), lambda _: 1e-3, net_arch=[16, 8],
                                       activation_fn=torch.nn.Tanh)
    space = gym.spaces.Dict({"observation": box, "action_mask": gym.spaces.Box(0, 1, (5,), np.int8)})
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=space,
                          action_space=gym.spaces.Discrete(5), model_config=module_spec([16, 8], "tanh").model_config).build()
    module.load_state_dict(sb3_policy_to_module_state(policy, module))
    x = torch.as_tensor(np.random.default_rng(1).random((4, 7)).astype(np.float32))
    with torch.no_grad():
        sb3_logits = policy.action_net(policy.mlp_extractor.forward_actor(x)).numpy()
        sb3_values = policy.predict_values(x).numpy().ravel()
        batch = {Columns.OBS: {"observation": x, "action_mask": torch.ones((4, 5), dtype=torch.int8)}}
        out = module.forward_inference(batch)
        values = module.compute_values(batch).numpy().ravel()
    np.testing.assert_allclose(out[Columns.ACTION_DIST_INPUTS].numpy(), sb3_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(actor_of(module).logits(x.numpy()), sb3_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values, sb3_values, rtol=1e-5, atol=1e-5)
    wrong = MaskableActorCriticPolicy(box, gym.spaces.Discrete(5), lambda _: 1e-3, net_arch=[16])
    with pytest.raises(ValueError, match="linear layers"):
        sb3_policy_to_module_state(wrong, module)


def test_the_optimizer_state_round_trips_through_its_file(tmp_path):
    """Adam's moments and step counts, saved as plain arrays, come back exactly."""
    import ray

    from training.rllib_backend import (OPTIMIZER_FILE, POLICY_ID, build_config, load_optimizer_state,
                                        save_optimizer_state)

    cfg = load_config(raw={"env": {"id": FRY, "options": {"players": 2}}, "seats": {"others": {"random": 1}},
                           "algorithm": {"n_steps": 16, "batch_size": 16, "n_epochs": 1, "net_arch": [8]},
                           "training": {"workers": 1, "env_copies": 1}})
    plan = plan_run(cfg)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(cfg, plan).build_algo()
        algo.train()
        name, sha = save_optimizer_state(tmp_path, algo.learner_group)
        saved = algo.learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
        algo.train()  # the moments move on
        moved = algo.learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
        opt = next(iter(saved))
        assert not np.array_equal(saved[opt]["state"]["state"][0]["exp_avg"], moved[opt]["state"]["state"][0]["exp_avg"])
        meta = {"optimizer_file": name, "optimizer_sha256": sha}
        state = load_optimizer_state(tmp_path, meta, algo.learner_group, algo.get_module(POLICY_ID))
        algo.learner_group.set_state({"learner": {"optimizer": state}})
        back = algo.learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
        for i, entry in saved[opt]["state"]["state"].items():
            for k, v in entry.items():
                np.testing.assert_array_equal(np.asarray(back[opt]["state"]["state"][i][k]), np.asarray(v))
        assert back[opt]["state"]["param_groups"] == saved[opt]["state"]["param_groups"]
        with pytest.raises(ck.CheckpointError, match="corrupt or was modified"):
            load_optimizer_state(tmp_path, {**meta, "optimizer_sha256": "0" * 64}, algo.learner_group,
                                 algo.get_module(POLICY_ID))
        assert name == OPTIMIZER_FILE
        algo.stop()
    finally:
        ray.shutdown()


def test_sb3s_linear_learning_rate_schedule_maps_to_rllibs_in_env_steps_and_continues_on_resume():
    from training.rllib_backend import learning_rate

    raw = {"env": {"id": WOK, "options": {"players": 2}}, "training": {"total_timesteps": 1000},
           "algorithm": {"learning_rate": 0.001}}
    cfg = load_config(raw=raw)
    plan = plan_run(cfg)  # a team of two: one env step is two agent steps
    assert learning_rate(cfg, plan) == 0.001
    cfg = load_config(raw={**raw, "algorithm": {"learning_rate": 0.001, "lr_schedule": "linear"}})
    assert plan.learners == 2
    assert learning_rate(cfg, plan) == [[0, 0.001], [500, 0.0]]
    lr = learning_rate(cfg, plan, done=600)  # resumed: SB3's lr x (1 - 600/1000) falling to 0 at 1000
    assert lr[0] == [0, pytest.approx(0.0004)] and lr[1] == [200, 0.0]


def test_the_rllib_backend_checks_the_destination_the_address_and_the_lock_before_ray(tmp_path):
    """Its ``--dry-run`` called every destination valid (an existing checkpoint, a shipped one,
    ``--resume --overwrite``, a path through a file) where the SB3 backend's refused; an
    ``--address`` of no cluster waited for ever (``ray.init`` retries), ``''`` started a local
    instance unannounced; and it ignored the lock of a run of the same name."""
    from training.rllib_backend import check_address, probe_address
    from training.trainer import run_lock, check_run

    config = _yaml(tmp_path, FRY, "{players: 2}", "seats:\n  others: {random: 1}\n")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--dry-run", "--resume", "--overwrite",
             timeout=60)
    assert r.returncode == 2 and "--resume and --overwrite contradict each other" in r.stderr
    (tmp_path / "afile").write_text("x")
    r = _cli("train", "--config", str(config), "--backend", "rllib", "--dry-run",
             "--set", f"output.checkpoints={tmp_path / 'afile' / 'ck'}", timeout=60)
    assert r.returncode == 2 and "is a file, not a directory" in r.stderr
    for bad in ("", "notanaddress!!", "host:99999"):
        r = _cli("train", "--config", str(config), "--backend", "rllib", "--dry-run", "--address", bad, timeout=60)
        assert r.returncode == 2 and f"--address {bad!r} is not allowed" in r.stderr, r.stderr
    check_address("10.0.0.5:6379")
    check_address("ray://10.0.0.5:10001")
    import socket

    with socket.socket() as s:  # a port nothing listens on: refused at once, not retried for ever
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(KitchenArenaError, match=rf"--address '127.0.0.1:{port}': could not connect"):
        probe_address(f"127.0.0.1:{port}", timeout_s=2)
    cfg = load_config(str(config))
    plan, _ = check_run(cfg)
    with run_lock(plan):
        r = _cli("train", "--config", str(config), "--backend", "rllib", timeout=120)
    assert r.returncode == 2 and "another train is writing" in r.stderr and RAY_STARTED not in r.stderr


def test_a_cooperative_minibatch_is_bounded_by_the_train_batch_rllib_compares_it_with():
    """With two learner seats, ``batch_size`` above ``n_steps x env copies`` passed ``--dry-run``
    and then ``build_algo`` failed with RLlib's "minibatch_size (128) must be <=
    train_batch_size_per_learner (64)" traceback."""
    from training.rllib_backend import build_config, minibatch

    assert minibatch(512, 64) == 64 and minibatch(64, 4096) == 64
    cfg = load_config(str(ROOT / "configs" / "wok_star_rllib.yaml"),
                      ["training.workers=1", "training.env_copies=1", "pretrain.steps=0"])
    plan = plan_run(cfg)
    assert plan.learners == 2 and cfg["algorithm"]["batch_size"] > cfg["algorithm"]["n_steps"]
    built = build_config(cfg, plan, [], 0)
    assert built.minibatch_size == cfg["algorithm"]["n_steps"] == built.train_batch_size_per_learner
    built.validate()  # RLlib's own check, which build_algo failed on


def test_a_bad_address_is_named_as_the_commands_not_the_configs(capsys):
    """``--address foo`` was reported as ``error: configs/...yaml: --address 'foo' is not allowed``."""
    from pathlib import Path

    from training.cli import main

    config = Path(__file__).resolve().parents[2] / "configs" / "frying_master_rllib.yaml"
    assert main(["train", "--backend", "rllib", "--dry-run", "--config", str(config), "--address", "foo"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --address 'foo' is not allowed; allowed:"), err
