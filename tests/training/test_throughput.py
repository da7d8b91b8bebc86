"""training.throughput: the figures are computed as documented (no timing asserted)."""

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
