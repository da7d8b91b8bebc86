"""Behaviour-cloning warm start (training.pretrain): data, fit, determinism, config and the trainer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from envs.core.errors import ConfigError
from tests.training.conftest import toy_config
from training.config import load_config
from training.copies import BridgeSettings, RewardRule
from training.envspec import EnvSpec
from training.pretrain import agreement, collect, collection_settings, fit, split_games
from training.seating import SeatingRule
from training.trainer import plan_run, train

QUIET = {"log": lambda s: None}


@pytest.fixture(autouse=True)
def one_torch_thread():
    """As the trainer does (training.torch_threads): no thread spinning on shared cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def toy_rule(mask: np.ndarray) -> int:
    """The toy games' HeuristicPolicy: grab two tokens when possible, else one, else wait."""
    return 2 if mask[2] else (1 if mask[1] else 0)


def settings(env_id="toy_v0", others=None, seed=0, learners=1) -> BridgeSettings:
    spec = EnvSpec.resolve(env_id, {"players": 2})
    coop = spec.kind == "cooperative"
    return BridgeSettings(spec, SeatingRule(2 if coop else learners, "cycle", others or {"random": 1.0}),
                          RewardRule("team" if coop else "own"), coop, True, seed)


def new_model(env_id, tmp_path, seed=3, **pretrain):
    """A MaskablePPO on the toy env as the trainer builds it (nothing learned yet)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from training.vec_env import MultiAgentVecEnv

    cfg = load_config(raw=toy_config(tmp_path, env_id, pretrain={"steps": 2000, **pretrain}))
    plan = plan_run(cfg)
    venv = MultiAgentVecEnv(plan.settings, 2, 1)
    model = MaskablePPO("MlpPolicy", venv, seed=seed, n_steps=16, batch_size=32,
                        policy_kwargs={"net_arch": [16, 16]})
    model.set_logger(configure(None, [""]))
    return model, venv, plan, cfg


def test_collected_samples_are_what_the_bridge_presents(toy_registry):
    demos = collect(settings(others={"random": 1.0}), "heuristic", 600, n_copies=3, workers=1, seed=5, gamma=0.9)
    assert len(demos) == 600 and demos.obs.shape == (600, 2 + 2)
    masks = demos.mask_rows(np.arange(len(demos)))
    # the teacher's action, given the mask the learner seat had
    assert [toy_rule(m) for m in masks] == demos.actions.tolist()
    # the seat one-hot is at the end, and the learner's seat rotates over both seats
    seats = demos.obs[:, -2:]
    assert np.all(seats.sum(axis=1) == 1) and set(seats.argmax(axis=1)) == {0, 1}
    # observations are the bridge's: rescaled to [0, 1]
    assert demos.obs.min() >= 0 and demos.obs.max() <= 1
    assert demos.games > 50 and 0 < demos.teacher_win_rate <= 1 and demos.outside_mask == 0


def test_returns_are_discounted_to_the_end_of_each_game(toy_registry):
    gamma = 0.9
    d = collect(settings(), "heuristic", 300, n_copies=2, workers=1, seed=1, gamma=gamma)
    n_slots = 2
    R = d.rewards.reshape(-1, n_slots)
    D = d.dones.reshape(-1, n_slots)
    G = d.returns.reshape(-1, n_slots)
    K = d.has_return.reshape(-1, n_slots)
    for s in range(n_slots):
        last_done = int(np.flatnonzero(D[:, s]).max())
        assert K[: last_done + 1, s].all() and not K[last_done + 1:, s].any()  # unfinished tail: no target
        for t in range(last_done + 1):
            want = R[t, s] + (0.0 if D[t, s] else gamma * G[t + 1, s])
            assert G[t, s] == pytest.approx(want, rel=1e-5, abs=1e-5)
    assert (d.rewards > 0).any()


def test_dagger_round_plays_the_student_and_keeps_the_teachers_labels(toy_registry):
    from training.actor import NumpyActor

    waiter = NumpyActor([], "Tanh", (np.zeros((3, 4), np.float32), np.array([5.0, 0.0, 0.0], np.float32))).state()
    d = collect(settings(), "heuristic", 400, 2, 1, seed=3, gamma=0.99, student=waiter, teacher_share=0.0)
    masks = d.mask_rows(np.arange(len(d)))
    assert (d.played == 0).all()  # the student (always wait) played ...
    assert [toy_rule(m) for m in masks] == d.actions.tolist() and (d.actions > 0).any()  # ... the teacher labelled
    assert d.teacher_win_rate < 0.5  # waiting loses against random grabbing
    mixed = collect(settings(), "heuristic", 400, 2, 1, seed=3, gamma=0.99, student=waiter, teacher_share=0.5)
    share = np.mean(mixed.played == mixed.actions)
    assert 0.3 < share < 0.8
    full = collect(settings(), "heuristic", 400, 2, 1, seed=3, gamma=0.99, student=waiter, teacher_share=1.0)
    assert np.array_equal(full.played, full.actions)


def test_a_dagger_teacher_is_told_when_its_label_was_not_played(toy_registry, monkeypatch):
    """``Policy.overruled``: a teacher that remembers its own actions (the planner; Waroong Wars'
    heuristic?recall=world needs no memory) learns what the student played instead, once per
    learner step whose label was not played, and never when the teacher's own action was."""
    from training.actor import NumpyActor

    told = []
    cls = EnvSpec.resolve("toy_v0").module().HeuristicPolicy
    monkeypatch.setattr(cls, "overruled", lambda self, agent, chosen, played: told.append((chosen, played)),
                        raising=False)
    waiter = NumpyActor([], "Tanh", (np.zeros((3, 4), np.float32), np.array([5.0, 0.0, 0.0], np.float32))).state()
    d = collect(settings(), "heuristic", 400, 2, 1, seed=3, gamma=0.99, student=waiter, teacher_share=0.5)
    wrong = [(int(a), int(p)) for a, p in zip(d.actions, d.played) if a != p]
    assert told == wrong and len(told) > 20 and all(p == 0 for _, p in told)
    told.clear()
    collect(settings(), "heuristic", 400, 2, 1, seed=3, gamma=0.99)  # the teacher plays: nothing to tell
    collect(settings(), "heuristic", 400, 2, 1, seed=3, gamma=0.99, student=waiter, teacher_share=1.0)
    assert told == []


def test_the_planner_remembers_the_action_played_when_overruled():
    from envs import waroong_wars_v1
    from training.policies import make_policy

    spec = EnvSpec.resolve("waroong_wars_v1")
    env = waroong_wars_v1.parallel_env(players=3)
    obs, _ = env.reset(seed=4)
    pol = make_policy("planner?sims=2&samples=1&horizon=1", spec, seed=0)
    a = env.agents[0]
    chosen = pol.act(obs[a], a, env)
    other = int(next(x for x in np.flatnonzero(obs[a]["action_mask"]) if x != chosen))
    with pytest.raises(ValueError, match="is not the last action"):
        pol.overruled(a, other, chosen)
    assert pol.own_actions[a] == [chosen]  # a refused call changes nothing
    pol.overruled(a, chosen, other)
    assert pol.own_actions[a] == [other]


def test_pool_seats_are_played_by_the_teacher_during_collection(toy_registry):
    s = settings(others={"pool": 0.5, "random": 0.25, "heuristic": 0.25})
    got = collection_settings(s, "heuristic").seating.others
    assert got == {"random": 0.25, "heuristic": 0.75}
    assert collection_settings(settings(others={"random": 1.0}), "heuristic").seating.others == {"random": 1.0}


def test_same_data_with_one_or_two_processes(toy_registry):
    a = collect(settings(others={"heuristic": 1, "random": 1}), "heuristic", 400, 4, 1, seed=9, gamma=0.99)
    b = collect(settings(others={"heuristic": 1, "random": 1}), "heuristic", 400, 4, 2, seed=9, gamma=0.99)
    c = collect(settings(others={"heuristic": 1, "random": 1}), "heuristic", 400, 4, 1, seed=10, gamma=0.99)
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.actions, b.actions) and np.array_equal(a.masks, b.masks)
    assert not np.array_equal(a.obs, c.obs)


def test_holdout_is_made_of_whole_games(toy_registry):
    d = collect(settings(), "heuristic", 800, 4, 1, seed=2, gamma=0.99)
    train_idx, hold_idx = split_games(d, 0.2, seed=0)
    assert len(hold_idx) > 0 and len(train_idx) + len(hold_idx) == len(d)
    assert not set(d.game_id[train_idx]) & set(d.game_id[hold_idx])


@pytest.mark.parametrize("env_id", ["toy_v0", "toy_coop_v0"])
def test_cloning_reaches_high_agreement_with_the_scripted_policy(toy_registry, tmp_path, env_id):
    model, venv, plan, cfg = new_model(env_id, tmp_path)
    try:
        d = collect(plan.settings, "heuristic", 3000, 4, 1, seed=4, gamma=0.99)
        everything = np.arange(len(d))
        _, nll_before = agreement(model.policy, d, everything)
        stats = fit(model, d, epochs=15, batch_size=128, learning_rate=3e-3, value=True, holdout=0.1, seed=0, **QUIET)
        acc, nll_after = agreement(model.policy, d, everything)
    finally:
        venv.close()
    assert acc >= 0.99 and stats["holdout_accuracy"] >= 0.99
    assert nll_after < nll_before / 10, (nll_before, nll_after)
    # both branches of the rule, from states built by hand: pile of 1 -> grab; pile of 5 -> grab2
    enc = plan.settings
    from training.obs import SeatEncoder

    encoder = SeatEncoder.for_env(enc.env_spec.make())
    for pile, mask, want in ((1, [1, 1, 0], 1), (5, [1, 1, 1], 2)):
        x = encoder.encode(np.array([pile, 0], dtype=np.float32), 0)[None]
        dist = model.policy.get_distribution(torch.as_tensor(x), action_masks=np.array([mask], dtype=bool))
        assert int(dist.distribution.probs.argmax()) == want
    # the value head learned the teacher's returns (they are not all equal)
    assert stats["value_loss"] is not None and stats["value_loss"] < np.var(d.returns[d.has_return])


def test_cloning_is_deterministic_for_a_seed(toy_registry, tmp_path):
    weights = []
    for _ in range(2):
        model, venv, plan, _ = new_model("toy_v0", tmp_path)
        try:
            d = collect(plan.settings, "heuristic", 500, 2, 1, seed=4, gamma=0.99)
            fit(model, d, epochs=2, batch_size=64, learning_rate=1e-3, value=True, holdout=0.1, seed=0, **QUIET)
        finally:
            venv.close()
        weights.append({k: v.clone() for k, v in model.policy.state_dict().items()})
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_pretrain_config_is_validated(tmp_path):
    cfg = load_config(raw={"pretrain": {"steps": 5000}})
    assert cfg["pretrain"]["teacher"] == "heuristic" and cfg["pretrain"]["value"] is True
    with pytest.raises(ConfigError, match=r"unknown key 'pretrain.epoch' \(did you mean 'pretrain.epochs'\?\)"):
        load_config(raw={"pretrain": {"epoch": 3}})
    with pytest.raises(ConfigError, match=r"pretrain.steps: -1 is not allowed"):
        load_config(raw={"pretrain": {"steps": -1}})
    with pytest.raises(ConfigError, match=r"pretrain.holdout"):
        load_config(raw={"pretrain": {"holdout": 0.9}})
    with pytest.raises(ConfigError, match=r"pretrain.teacher.*unknown policy spec 'expert'"):
        load_config(raw={"pretrain": {"teacher": "expert"}})


def test_trainer_clones_then_trains_logs_and_records_it(toy_registry, tmp_path):
    raw = toy_config(tmp_path, pretrain={"steps": 1500, "epochs": 3, "batch_size": 128, "dagger_rounds": 2,
                                         "dagger_steps": 400, "dagger_epochs": 1},
                     training={"total_timesteps": 256}, evaluation={"games": 4})
    res = train(load_config(raw=raw), **QUIET)
    pre = res.metadata["pretrain"]
    assert pre["samples"] >= 1500 and pre["teacher"] == "heuristic" and pre["epochs"] == 3
    assert len(pre["history"]) == 3 + 2 and 0 <= pre["holdout_accuracy"] <= 1 and pre["games"] > 0
    rounds = pre["dagger"]["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]
    assert rounds[1]["aggregate_samples"] == pre["samples"] + rounds[0]["samples"] + rounds[1]["samples"]
    assert all(0 <= r["clone_on_policy_accuracy"] <= 1 for r in rounds)
    assert res.metadata["timesteps"] >= 256  # PPO ran after the warm start
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(Path(tmp_path) / "runs" / "toy" / "tiny"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {"pretrain/loss", "pretrain/accuracy", "pretrain/holdout_accuracy", "pretrain/value_loss",
            "train/loss"} <= tags
    assert [e.step for e in acc.Scalars("pretrain/accuracy")] == [1, 2, 3, 4, 5]
    assert [e.step for e in acc.Scalars("pretrain/dagger_win_rate")] == [4, 5]
    # --resume continues PPO and keeps the record, without cloning again
    raw["training"]["total_timesteps"] = 512
    again = train(load_config(raw=raw), resume=True, **QUIET)
    assert again.metadata["pretrain"] == pre and again.metadata["timesteps"] >= 512
