"""``python -m envs.bench``: counting, time accounting, JSON keys, ratios, and
the messages of missing optional parts. No assertion depends on wall-clock speed."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys

import numpy as np
import pytest

import envs
from envs.bench import cli
from envs.bench.batched import measure_vector, steps_for
from envs.bench.harness import Driver, Measurement, Run, measure, parallel_driver, play_parallel_episode
from envs.bench.ratios import drift, met_counts, peer_rate, ratio_rows
from envs.bench.scaling import cost_by_players
from envs.bench.stats import median, spread, summarize
from envs.bench.training_fps import explain
from envs.core.seeding import make_rng


def _small_config() -> envs.EnvConfiguration:
    return envs.test_configurations("wok_star_v1")[0]


def _manual_play(cfg, games: int, seed: int) -> tuple[int, int]:
    """(agent-steps, joint steps) of the documented play, counted by hand."""
    env = cfg.parallel_env()
    rng = make_rng(seed)
    agent_steps = joint_steps = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(legal[rng.integers(legal.size)])
            obs, _, _, _, infos = env.step(actions)
            agent_steps += len(infos)  # one info per agent that acted
            joint_steps += 1
    return agent_steps, joint_steps


# ------------------------------------------------------------------ harness
def test_harness_counts_agent_steps_like_manual_seeded_play():
    cfg = _small_config()
    m = measure(parallel_driver(cfg), games=2, repeats=2, seed=3, memory=False)
    agent_steps, joint_steps = _manual_play(cfg, games=2, seed=3)
    assert joint_steps > 0 and agent_steps >= joint_steps
    for run in m.runs:  # every repeat replays the same games
        assert (run.agent_steps, run.joint_steps, run.episodes) == (agent_steps, joint_steps, 2)
    j = m.to_json()
    assert j["agent_steps_per_run"] == agent_steps and j["steps_per_episode"] == joint_steps / 2
    assert j["players"] == cfg.kwargs["players"] and m.peak_mib is None


def test_reset_time_is_kept_apart_from_step_time():
    ticks = itertools.count()
    clock = lambda: float(next(ticks))  # every reading one "second" later
    cfg = _small_config()
    m = measure(parallel_driver(cfg), games=3, repeats=1, seed=0, memory=False, clock=clock)
    run = m.runs[0]
    # each episode reads the clock before reset, after reset, after its last step
    assert run.reset_s == 3.0 and run.step_s == 3.0
    assert run.agent_steps_per_s == run.agent_steps / 3.0
    assert run.reset_ms == 1000.0 and run.episodes_per_s == 0.5


def test_run_rates():
    r = Run(agent_steps=10, joint_steps=5, episodes=2, reset_s=1.0, step_s=4.0)
    assert (r.agent_steps_per_s, r.joint_steps_per_s, r.episodes_per_s, r.reset_ms) == (2.5, 1.25, 0.4, 500.0)


def test_peak_memory_is_measured_and_positive():
    m = measure(parallel_driver(_small_config()), games=1, repeats=1, seed=0, memory=True)
    # one reset + episode allocates tens of KiB (observations, masks, infos): in MiB, not bytes or KiB
    assert m.peak_mib is not None and 0.005 < m.peak_mib < 5


def test_episode_cap_for_warmup():
    env = _small_config().parallel_env()
    ep = play_parallel_episode(env, make_rng(0), 0, max_joint_steps=3)
    assert ep.joint_steps == 3


# -------------------------------------------------------------------- stats
def test_median_and_spread_helpers():
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert spread([3.0, 1.0, 2.0]) == (1.0, 3.0)
    assert summarize([2.0, 6.0, 4.0]) == {"median": 4.0, "min": 2.0, "max": 6.0, "values": [2.0, 6.0, 4.0]}
    with pytest.raises(ValueError):
        median([])
    with pytest.raises(ValueError):
        spread([])


# ------------------------------------------------------------------- ratios
def test_ratio_and_met_logic_on_given_numbers():
    peers = [{"name": "c4", "target": 3.0, "before": 9000.0, "after": 10000.0},
             {"name": "kaz", "target": 5.0, "before": 5000.0, "after": None}]
    rows = ratio_rows([("a", 30000.0), ("b", 20000.0)], peers)
    a, b = rows
    assert a["vs"]["c4"] == {"peer_agent_steps_per_s": 10000.0, "ratio": 3.0, "target": 3.0, "met": True}  # >= is met
    assert b["vs"]["c4"]["ratio"] == 2.0 and not b["vs"]["c4"]["met"]
    assert a["vs"]["kaz"]["ratio"] == 6.0 and a["vs"]["kaz"]["met"]
    assert b["vs"]["kaz"]["ratio"] == 4.0 and not b["vs"]["kaz"]["met"]
    assert met_counts(rows) == {"c4": (1, 2), "kaz": (1, 2)}


def test_peer_rate_is_the_faster_measurement_and_drift_is_relative():
    assert peer_rate(9000.0, 10000.0) == 10000.0 and peer_rate(None, 7.0) == 7.0
    with pytest.raises(ValueError):
        peer_rate(None, None)
    assert drift(10000.0, 11000.0) == pytest.approx(0.1)
    assert drift(None, 1.0) is None


# ------------------------------------------------------------------ scaling
def _fake_measurement(env_id: str, players: int, aps: float, jps: float) -> Measurement:
    d = Driver(name=f"{env_id}[{players}]", make=lambda: None, episode=lambda *a, **k: None, players=players, env_id=env_id)
    return Measurement(d, [Run(agent_steps=int(aps), joint_steps=int(jps), episodes=1, reset_s=0.0, step_s=1.0)])


def test_cost_by_players_groups_and_takes_medians():
    ms = [_fake_measurement("x_v0", 2, 10000, 5000), _fake_measurement("x_v0", 2, 20000, 10000),
          _fake_measurement("x_v0", 4, 5000, 1250)]
    rows = cost_by_players(ms)
    assert [(r["players"], r["configurations"]) for r in rows] == [(2, 2), (4, 1)]
    assert rows[0]["us_per_agent_step"] == pytest.approx(75.0) and rows[0]["relative"] == 1.0
    assert rows[1]["us_per_agent_step"] == pytest.approx(200.0) and rows[1]["us_per_joint_step"] == pytest.approx(800.0)
    assert rows[1]["relative"] == pytest.approx(200.0 / 75.0)


# ------------------------------------------------------------------- vector
class _FakeVenv:
    """Two seats per game; seat 1 of odd games sits out."""

    def __init__(self, env_id, num_games, env_kwargs=None):
        self.num_games, self.num_seats = num_games, 2
        self.alive = np.ones((num_games, 2), dtype=bool)
        self.alive[1::2, 1] = False
        self.closed = False
        self.masks = np.ones((num_games, 2, 3), dtype=np.int8)

    def reset(self, seed=None):
        return np.zeros((self.num_games, 2, 1), np.float32), self.masks, [{}] * self.num_games

    def step(self, actions):
        assert actions.shape == (self.num_games, 2)
        z = np.zeros((self.num_games, 2))
        return z[..., None], self.masks, z, z.astype(bool), z.astype(bool), [{}] * self.num_games

    def close(self):
        self.closed = True


def test_vector_harness_counts_alive_seats():
    made = []
    factory = lambda *a, **k: made.append(_FakeVenv(*a, **k)) or made[-1]
    r = measure_vector(factory, "x_v0", {"players": 2}, num_games=4, steps=10, repeats=2)
    assert r["agent_steps_per_run"] == 10 * 6  # 4 games x 2 seats, 2 sitting out
    assert len(r["agent_steps_per_s"]["values"]) == 2 and made[0].closed
    assert steps_for(64, 2048) == 32 and steps_for(1, 2048) == 2048 and steps_for(1024, 2048) == 8
    assert steps_for(64, 2048, floor=200) == 200 and steps_for(1, 2048, floor=200) == 2048


def test_side_by_side_vector_harness_times_the_forms_in_turn():
    from envs.bench.batched import measure_vectors

    order = []

    class Logged(_FakeVenv):
        def step(self, actions):
            order.append(self.tag)
            return super().step(actions)

    def factory(tag):
        def make(*a, workers=None, **k):
            v = Logged(*a, **k)
            v.tag = tag
            return v
        return make

    rows = measure_vectors([(factory("a"), "A", {}), (factory("b"), "B", {"workers": 3})], "x_v0", {"players": 2},
                           num_games=4, steps=5, repeats=3)
    assert [r["form"] for r in rows] == ["A", "B"] and rows[1]["workers"] == 3 and rows[0]["workers"] is None
    assert all(len(r["agent_steps_per_s"]["values"]) == 3 for r in rows)
    runs = [order[i] for i in range(0, len(order), 5 + 3)]  # each run: 3 warm-up + 5 timed steps of one form
    assert runs == ["a", "b"] * 3  # every repeat times each form in turn


def test_side_by_side_vector_harness_times_the_loop_in_turn_with_the_forms():
    from envs.bench import batched

    order = []

    class Logged(_FakeVenv):
        def step(self, actions):
            order.append("batch")
            return super().step(actions)

    real_time_loop = batched.time_loop

    def logged_loop(env_list, steps, seed, clock=None):
        order.append(f"loop of {len(env_list)}")
        return real_time_loop(env_list, steps, seed)

    cfg = _small_config()
    module = envs.get_env_module(cfg.env_id)
    batched.time_loop = logged_loop
    try:
        rows = batched.measure_vectors([(lambda *a, **k: Logged(*a, **k), "A", {})], "x_v0", {"players": 2},
                                       num_games=3, steps=4, repeats=2, loop=lambda: module.parallel_env(**cfg.kwargs))
    finally:
        batched.time_loop = real_time_loop
    assert [r["form"] for r in rows] == ["A", "loop"] and rows[1]["num_games"] == 3
    assert len(rows[1]["agent_steps_per_s"]["values"]) == 2 and rows[1]["batched_steps"] == 4
    runs = [x for i, x in enumerate(order) if x != "batch" or (i == 0 or order[i - 1] != "batch")]
    assert runs == ["batch", "loop of 3"] * 2  # every repeat times the batch, then the loop of 3 envs


def test_vector_harness_runs_the_real_batched_env():
    from envs.vector import BatchedEnv

    cfg = _small_config()
    r = measure_vector(BatchedEnv, cfg.env_id, cfg.kwargs, num_games=2, steps=8, repeats=1)
    assert 0 < r["agent_steps_per_run"] <= 8 * 2 * cfg.kwargs["players"]


def test_loop_baseline_plays_the_same_games_and_steps_as_the_batch():
    from envs.bench.batched import time_loop
    from envs.vector import BatchedEnv

    cfg = _small_config()
    module = envs.get_env_module(cfg.env_id)
    envs_ = [module.parallel_env(**cfg.kwargs) for _ in range(3)]
    n, seconds = time_loop(envs_, 5, seed=0)
    venv = BatchedEnv(cfg.env_id, 3, cfg.kwargs)
    venv.reset(seed=0)
    assert seconds > 0 and n == 5 * int(venv.alive.sum())  # every live seat of every game, every step


# ---------------------------------------------------------------------- CLI
JSON_KEYS = {"schema", "command", "machine", "settings", "configurations", "peers", "ratios", "vector", "training", "scaling"}
CONFIG_KEYS = {"name", "env_id", "kwargs", "players", "episodes_per_run", "agent_steps_per_run", "joint_steps_per_run",
               "steps_per_episode", "agent_steps_per_s", "joint_steps_per_s", "episodes_per_s", "reset_ms", "peak_memory_mib"}
MACHINE_KEYS = {"cpu", "cores", "usable_cores", "platform", "python", "implementation", "numpy", "pettingzoo",
                "kitchen_arena", "load_average", "started_at"}


def test_json_of_a_tiny_run_has_the_documented_keys(tmp_path):
    import shlex

    path = tmp_path / "my bench.json"  # (the recorded command had lost the quoting of such a name)
    lines: list[str] = []
    argv = ["--env", "wok_star_v1", "--first", "1", "--games", "1", "--repeats", "1", "--json", str(path)]
    assert cli.main(argv, out=lines.append) == 0
    doc = json.loads(path.read_text())
    assert shlex.split(doc["command"]) == ["python", "-m", "envs.bench", *argv]
    assert set(doc) == JSON_KEYS and doc["schema"] == "kitchen-arena-bench/1"
    assert set(doc["machine"]) == MACHINE_KEYS
    assert doc["settings"]["games"] == 1 and doc["settings"]["repeats"] == 1 and doc["settings"]["spread"] == "min-max"
    (c,) = doc["configurations"]
    assert set(c) == CONFIG_KEYS and c["name"] == _small_config().name
    for k in ("agent_steps_per_s", "joint_steps_per_s", "episodes_per_s", "reset_ms"):
        assert set(c[k]) == {"median", "min", "max", "values"} and len(c[k]["values"]) == 1
    assert c["peak_memory_mib"] > 0
    assert all(doc[k] is None for k in ("peers", "ratios", "vector", "training", "scaling"))
    text = "\n".join(lines)
    assert "| configuration | agent-steps/s |" in text and _small_config().name in text and "Machine:" in text


def _hide_pygame(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # `import pygame` now fails as if absent
    for name in list(sys.modules):
        if name.startswith(("pettingzoo.classic.connect_four", "pettingzoo.butterfly.knights_archers_zombies")):
            monkeypatch.delitem(sys.modules, name)


def test_peers_without_pygame_fail_first_with_the_install_hint(monkeypatch, capsys):
    _hide_pygame(monkeypatch)
    lines: list[str] = []
    assert cli.main(["--peers", "--env", "wok_star_v1", "--first", "1", "--games", "1", "--repeats", "1"],
                    out=lines.append) == 2
    err = capsys.readouterr().err
    assert 'pip install -e ".[bench]"' in err and "pygame is not installed" in err
    assert lines == []  # nothing measured before failing


@pytest.mark.skipif(importlib.util.find_spec("pygame") is None, reason="pygame (bench extra) not installed")
def test_peer_drivers_count_steps():
    from envs.bench.peers import load_peers

    c4, kaz = load_peers()
    m = measure(c4.driver, games=2, repeats=1, seed=0, memory=False)
    run = m.runs[0]
    # each env.step is one agent-step; a game takes 7 to 42 moves plus one closing step per player
    assert run.agent_steps == run.joint_steps and 2 * 9 <= run.agent_steps <= 2 * 44
    ep = kaz.driver.episode(kaz.driver.make(), make_rng(0), 0, max_joint_steps=5)
    assert ep.joint_steps == 5 and ep.agent_steps == 5 * 4  # 2 archers + 2 knights, all alive at the start


def test_training_messages(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "training.throughput", None)
    assert cli.main(["--training", "--env", "wok_star_v1", "--first", "1"], out=lambda s="": None) == 2
    assert "training/throughput.py" in capsys.readouterr().err
    assert 'pip install -e ".[train]"' in explain(ModuleNotFoundError("No module named 'torch'", name="torch"))


@pytest.mark.parametrize("argv, says", [
    (["--games", "0"], "argument --games: 0 is not allowed; allowed: an integer >= 1"),
    (["--workers", "0", "--vector"], "argument --workers: 0 is not allowed; allowed: an integer >= 1"),
    # a negative seed was a ValueError traceback from the first reset
    (["--seed", "-1"], "argument --seed: -1 is not allowed; allowed: an integer >= 0"),
])
def test_bad_counts_are_refused(argv, says, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(argv, out=lambda s="": None)
    assert e.value.code == 2 and says in capsys.readouterr().err


def test_the_baselines_commands_of_its_docstring_run_as_written(capsys):
    """``envs.baselines``' docstring showed ``--players 2``, an option it never had ("unrecognized
    arguments"). Each documented command runs here (one game per configuration)."""
    import shlex

    from envs import baselines

    lines = [ln.strip() for ln in baselines.__doc__.splitlines() if ln.strip().startswith("python -m envs.baselines")]
    assert len(lines) >= 2
    for line in lines:
        argv = shlex.split(line)[3:]
        argv[argv.index("--games") + 1] = "1"
        assert baselines.main(argv) == 0, line
        assert "| configuration |" in capsys.readouterr().out


def test_quick_alone_is_refused_for_it_would_change_nothing(capsys):
    """``--quick`` without ``--vector`` or ``--training`` was accepted and did nothing (its siblings
    ``--vector-steps``, ``--workers``, ``--peer-games``, ``--mem-games`` are refused so)."""
    from envs.bench.cli import main

    with pytest.raises(SystemExit) as e:
        main(["--quick"])
    assert e.value.code == 2 and "--quick shortens the --vector and --training measurements" in capsys.readouterr().err


def test_training_rows_outside_a_checkout_are_refused_before_any_work(monkeypatch, tmp_path):
    """Installed from a wheel there is no configs/ beside the package: ``--training`` ran CartPole
    for 45 s and then failed with a traceback."""
    pytest.importorskip("stable_baselines3")
    import training.throughput as throughput
    from envs.bench.training_fps import TrainingUnavailable, load_training

    monkeypatch.setattr(throughput, "CONFIG_DIR", tmp_path / "configs")
    with pytest.raises(TrainingUnavailable, match="read the games' configs in .*, which is not there: run it from a "
                                                  "checkout"):
        load_training()


def test_the_golden_check_outside_a_checkout_says_where_the_digests_are(monkeypatch, tmp_path, capsys):
    """A missing golden file printed DIFF for every configuration (0/105 match) and ``--update``
    failed with a traceback."""
    import envs.trajectory as trajectory

    monkeypatch.setattr(trajectory, "GOLDEN_PATH", tmp_path / "tests" / "golden_trajectories.json")
    assert trajectory.main(["--env", "frying_master_v1"]) == 2
    assert "is not there: run this from a checkout" in capsys.readouterr().err
    (tmp_path / "tests").mkdir()
    assert trajectory.main(["--env", "frying_master_v1"]) == 2
    assert "golden digests not found at" in capsys.readouterr().err
