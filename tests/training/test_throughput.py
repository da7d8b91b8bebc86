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
