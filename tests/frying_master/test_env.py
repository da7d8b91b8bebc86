"""The PettingZoo adapter: options, errors, snapshots, rendering, the episode bound."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs import frying_master_v1
from envs.core.errors import ConfigError, IllegalActionError, SnapshotError
from envs.core.play import play_episode
from envs.frying_master.engine import FryingMasterEngine
from tests.frying_master.helpers import CAT, act


def test_agents_and_spaces_per_player_count_and_spatulas():
    sizes = {}
    for players in (2, 3, 4):
        for mode in ("mixed", "drawn"):
            env = frying_master_v1.parallel_env(players=players, mode=mode)
            assert env.possible_agents == [f"chef_{i}" for i in range(players)]
            sizes[(players, mode)] = (env.encoder.layout.size, env.action_space("chef_0").n)
    assert sizes[(2, "mixed")][1] == 30 and sizes[(2, "drawn")][1] == 55  # one vs two spatulas in the table
    assert sizes[(2, "mixed")][0] < sizes[(3, "mixed")][0] < sizes[(4, "mixed")][0]


def test_bad_options_say_what_is_allowed():
    with pytest.raises(ConfigError, match=r"players=5 .*one of 2, 3, 4"):
        frying_master_v1.parallel_env(players=5)
    with pytest.raises(ConfigError, match=r"mode='sweet' .*'drawn', 'casual'"):
        frying_master_v1.parallel_env(mode="sweet")
    with pytest.raises(ConfigError, match="round_ticks"):
        frying_master_v1.parallel_env(round_ticks=5)
    with pytest.raises(ConfigError, match="unknown option"):
        frying_master_v1.parallel_env(spatulas=2)


def test_illegal_action_error_names_the_reason_and_changes_nothing():
    env = frying_master_v1.parallel_env(players=2, mode="mixed")
    env.reset(seed=0)
    eng = env.unwrapped.engine
    chooser = eng.choose_queue[0]
    other = [a for a in env.agents if a != chooser][0]
    before = json.dumps(env.snapshot(), sort_keys=True)
    with pytest.raises(IllegalActionError) as err:
        env.step({chooser: act(eng, "draw", pile="A"), other: act(eng, "lift", spatula=0, food="beef")})
    assert other in str(err.value) and "turn to choose" in str(err.value) and "Legal now" in str(err.value)
    assert json.dumps(env.snapshot(), sort_keys=True) == before


def test_noop_mode_replaces_an_illegal_action_and_flags_it():
    env = frying_master_v1.parallel_env(players=2, mode="mixed", illegal_action="noop")
    env.reset(seed=0)
    eng = env.unwrapped.engine
    chooser = eng.choose_queue[0]
    other = [a for a in env.agents if a != chooser][0]
    _, _, _, _, infos = env.step({chooser: act(eng, "draw", pile="B"), other: act(eng, "serve")})
    assert infos[other]["illegal_replaced"] and "serve" in env.last_step_details()[other]["illegal_reason"]
    assert infos[other]["action"] == 0  # replaced by noop, legal for every chef in Frying Master


def test_snapshot_round_trip_continues_identically():
    env = frying_master_v1.parallel_env(players=3, mode="drawn")
    env.reset(seed=8)
    rng = np.random.default_rng(0)

    def joint(e):
        return {a: int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))) for a in e.agents}

    for _ in range(30):
        env.step(joint(env))
    snap = json.loads(json.dumps(env.snapshot()))
    twin = frying_master_v1.parallel_env(players=3, mode="drawn")
    twin.reset(options={"snapshot": snap})
    for _ in range(40):
        j = joint(env)
        a, b = env.step(j), twin.step(j)
        assert a[1] == b[1]
        for agent in a[0]:
            np.testing.assert_array_equal(a[0][agent]["observation"], b[0][agent]["observation"])
    assert env.snapshot() == twin.snapshot()


def test_corrupt_snapshot_raises_and_keeps_the_game():
    env = frying_master_v1.parallel_env(players=2, mode="mixed")
    env.reset(seed=1)
    good = env.snapshot()
    bad = json.loads(json.dumps(good))
    bad["state"]["plates"]["chef_0"] = 99
    with pytest.raises(SnapshotError, match="plate index 99"):
        env.restore(bad)
    bad = json.loads(json.dumps(good))
    bad["state"]["table"]["down"][0].append(17)  # a spice among the meats
    with pytest.raises(SnapshotError, match="another category"):
        env.restore(bad)
    assert env.snapshot() == good
    other = frying_master_v1.parallel_env(players=2, mode="casual")
    other.reset(seed=1)
    with pytest.raises(SnapshotError, match="mode"):
        env.restore(other.snapshot())


def test_render_shows_table_piles_plates_spatulas_and_scores():
    env = frying_master_v1.parallel_env(players=3, mode="mixed", render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    for word in ("Mixed Fry", "table", "face-down", "pile A", "pile B", "chef_0", "chef_2", "spatula", "gold"):
        assert word in text
    eng = env.unwrapped.engine
    while eng.phase == "choose":
        env.step({a: (act(eng, "draw", pile="A") if a == eng.choose_queue[0] else 0) for a in env.agents})
    text = env.render()
    for a in env.agents:
        assert CAT.plates[eng.plates[a]].name in text
    assert "flavour" in text and "needs" in text


def test_max_episode_steps_is_the_documented_formula():
    assert frying_master_v1.max_episode_steps(players=2) == 3 * (2 + 150 + 3)
    assert frying_master_v1.max_episode_steps(players=4, round_ticks=60, seconds_per_tick=0.5) == 5 * (4 + 60 + 6)
    env = frying_master_v1.parallel_env(players=4)
    assert env.max_ticks == frying_master_v1.max_episode_steps(players=4)


def test_heuristic_matches_end_within_the_bound_and_report_an_outcome():
    for players in (2, 3, 4):
        env = frying_master_v1.parallel_env(players=players, mode="drawn")
        pol = frying_master_v1.HeuristicPolicy()
        r = play_episode(env, {a: pol for a in env.possible_agents}, seed=players)
        assert r.terminated and not r.truncated
        assert r.steps <= frying_master_v1.max_episode_steps(players=players, mode="drawn")
        assert r.winners and set(r.outcome["scores"]) == set(env.possible_agents)
        assert all(r.outcome["scores"][w] == 2.0 for w in r.winners)
        assert r.outcome["rounds"] <= players + 1


def test_same_seed_same_actions_same_match():
    def run():
        env = frying_master_v1.parallel_env(players=3, mode="drawn")
        pol = frying_master_v1.HeuristicPolicy()
        r = play_episode(env, {a: pol for a in env.possible_agents}, seed=42)
        return r.steps, json.dumps(env.snapshot(), sort_keys=True)

    assert run() == run()


def test_engine_is_usable_without_pettingzoo():
    eng = FryingMasterEngine.new({"players": 2, "mode": "casual", "teppanyaki": False, "round_ticks": 30,
                                  "round_shaping": 0.0, "seconds_per_tick": 1.0}, seed=0)
    while not eng.done:
        eng.step({a: eng.legal_actions(a)[-1] for a in eng.live_agents()})
    assert eng.outcome()["winners"]
