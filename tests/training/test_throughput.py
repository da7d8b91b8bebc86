"""training.throughput: the figures are computed as documented (no timing asserted)."""

import numpy as np
import pytest

from training.throughput import _fps, run_throughput


def test_fps_skips_the_warm_up_rollout_and_takes_the_median():
    assert _fps([10.0, 1.0, 2.0, 4.0], 100) == pytest.approx(100 / 2.0)
    assert _fps([0.5], 100) == pytest.approx(200.0)  # a single rollout is all there is


def test_quick_run_rows_are_consistent_with_the_table():
    lines = []
    rows = run_throughput(log=lines.append, quick=True, games=("frying_master_v1",), workers=(1,))
    game, cart = rows
    assert game["env"] == "frying_master_v1" and cart["env"] == "CartPole-v1"
    assert cart["rollout_fps"] == pytest.approx((cart["before"] + cart["after"]) / 2)
    assert game["ratio_to_cartpole"] == pytest.approx(game["rollout_fps"] / cart["rollout_fps"])
    assert game["target_met"] == (game["ratio_to_cartpole"] >= 0.6)
    assert game["n_envs"] == 4 and game["env_copies"] == 4  # 4 slots, one learner seat per copy
    row = next(line for line in lines if line.startswith("| frying_master_v1 "))
    assert f"{game['ratio_to_cartpole']:.2f}" in row and ("met" in row or "missed" in row)
    # where the rollout's step goes: every timed part inside the one that contains it
    b = game["breakdown_us"]
    assert b["engines"] > 0 and b["other_seats"] > 0 and b["observer"] >= 0  # (4 copies: below min_games)
    assert b["engines"] + b["observer"] <= b["batched_step"] <= b["env_step"] - b["other_seats"] <= b["rollout"]
    assert b["rest_of_batched_step"] == pytest.approx(b["batched_step"] - b["engines"] - b["observer"])
    assert b["bridge_own"] == pytest.approx(b["env_step"] - b["batched_step"] - b["other_seats"])
    assert b["learner_side"] == pytest.approx(b["rollout"] - b["env_step"])
    assert f"| the whole step | {b['rollout']:,.0f} |" in lines
    assert f"| · the engines' steps | {b['engines']:,.0f} |" in lines


def test_quick_run_reports_end_to_end_steps_next_to_cartpole():
    lines = []
    rows = run_throughput(log=lines.append, quick=True, games=("waroong_wars_v1",), workers=(1,))
    game, cart = rows
    assert game["train_fps"] > 0 and game["train_by_workers"] == {1: game["train_fps"]}
    assert cart["train_fps"] == pytest.approx((cart["train_before"] + cart["train_after"]) / 2)
    assert game["train_ratio_to_cartpole"] == pytest.approx(game["train_fps"] / cart["train_fps"])
    assert any(line.startswith("End to end") for line in lines)
    row = next(line for line in lines if line.startswith("| waroong_wars_v1 ") and line.count("|") == 4)
    assert f"{game['train_ratio_to_cartpole']:.2f}" in row


def test_full_config_table_is_built_from_the_measured_rows(monkeypatch):
    import training.throughput as tp

    monkeypatch.setattr(tp, "cartpole_like_full_config", lambda game, rollouts=2: 4000.0)
    monkeypatch.setattr(tp, "full_config_figures", lambda game, w, rollouts=2: {
        "game": game, "workers": w, "slots": 16, "train_fps": 1000.0 * w, "total_timesteps": 3_600_000,
        "ppo_hours": 3_600_000 / (1000.0 * w) / 3600})
    lines = []
    rows = tp.run_full_configs(log=lines.append, games=("frying_master_v1",), workers=(1, 2))
    assert rows[0]["cartpole_fps"] == 4000.0 and rows[0]["by_workers"][2]["train_fps"] == 2000.0
    row = next(line for line in lines if line.startswith("| frying_master_v1 "))
    assert "1,000 (0.25, 1.0 h)" in row and "2,000 (0.50, 0.5 h)" in row and "| 16 |" in row


def test_a_recorded_bridge_trajectory_is_seeded_and_replays_step_by_step_at_no_cost():
    from training.throughput import QUICK_SETTINGS, record_bridge, replay_env

    s = dict(QUICK_SETTINGS)
    rec, obs_space, act_space = record_bridge("wok_star_v1", s, steps=60, seed=3)
    again, _, _ = record_bridge("wok_star_v1", s, steps=60, seed=3)
    n = s["n_envs"]
    assert rec["obs"].shape == (61, n, *obs_space.shape) and rec["masks"].shape == (61, n, act_space.n)
    for key in ("obs", "masks", "rewards", "dones"):
        assert (rec[key] == again[key]).all(), key
    assert rec["masks"].any(axis=-1).all()  # every slot has a legal action at every step
    assert rec["dones"].any(), "60 ticks of the quick config end some episodes: the replay must carry them"
    for t, d in zip(*rec["dones"].nonzero()):  # an ended slot's info carries its last observation, as SB3 expects
        assert "terminal_observation" in rec["infos"][t][d]
    venv = replay_env(rec, obs_space, act_space)
    assert (venv.reset() == rec["obs"][0]).all() and (venv.action_masks() == rec["masks"][0]).all()
    for k in range(1, 70):  # wraps round after the last recorded step
        t = k % 61
        obs, rewards, dones, infos = venv.step(np.zeros(n, dtype=np.int64))
        assert (obs == rec["obs"][t]).all() and (rewards == rec["rewards"][t]).all() and (dones == rec["dones"][t]).all()
        assert (venv.action_masks() == rec["masks"][t]).all()
        assert (np.stack(venv.env_method("action_masks")) == rec["masks"][t]).all()
        assert (np.stack(venv.env_method("action_masks", indices=[n - 1, 0])) == rec["masks"][t][[n - 1, 0]]).all()
        assert infos == rec["infos"][t] and all(a is not b for a, b in zip(infos, rec["infos"][t]))
    obs[...] = -1.0  # what the learner is handed is its own copy
    assert (rec["obs"] != -1.0).any(axis=-1).all()
    with pytest.raises(AttributeError, match="action_masks"):
        venv.env_method("render")
    with pytest.raises(AttributeError, match="'action_masks' and 'render_mode'"):
        venv.get_attr("spec")
    assert venv.get_attr("render_mode") == [None] * n
    assert (np.stack([f() for f in venv.get_attr("action_masks")]) == rec["masks"][venv.t]).all()


def test_quick_run_reports_the_learner_alone_and_the_games_share():
    lines = []
    rows = run_throughput(log=lines.append, quick=True, games=("frying_master_v1",), workers=(1,))
    game, cart = rows
    assert game["learner_alone_fps"] > 0 and game["cdf_learner_alone_fps"] > 0
    assert game["learner_alone_ratio"] == pytest.approx(game["learner_alone_fps"] / cart["rollout_fps"])
    assert game["game_share"] == pytest.approx(max(0.0, 1 - game["rollout_fps"] / game["learner_alone_fps"]))
    row = next(line for line in lines if line.startswith("| frying_master_v1 ") and line.count("|") > 8)
    assert f"{game['learner_alone_fps']:,.0f}, {game['learner_alone_ratio']:.2f}" in row
    assert row.rstrip().endswith(f"{game['game_share']:.0%} |")


def test_the_breakdowns_timers_leave_every_method_as_it_was():
    """``_timing`` counts calls into the totals, and afterwards the class's own method is back and
    an inherited one is inherited again, also when the block raises."""
    from training.throughput import _timing

    class Base:
        def f(self, x):
            return x + 1

    class Child(Base):
        def g(self):
            return "g"

    own_g = Child.__dict__["g"]
    totals = {"f": 0.0, "g": 0.0}
    with pytest.raises(RuntimeError):
        with _timing([(Child, "f", "f"), (Child, "g", "g")], totals):
            c = Child()
            assert c.f(1) == 2 and c.g() == "g"
            raise RuntimeError("stop")
    assert totals["f"] > 0 and totals["g"] > 0
    assert "f" not in vars(Child) and Child.f is Base.f and vars(Child)["g"] is own_g
