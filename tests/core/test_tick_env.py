"""The shared core, exercised through the toy game."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import envs
from envs.core import ConfigError, IllegalActionError, SnapshotError
from envs.core.api import make_entry_points
from tests.core.toy_game import ToyEngine, ToyEnv

toy_env, toy_parallel_env = make_entry_points(ToyEnv)


def test_pettingzoo_parallel_api():
    parallel_api_test(toy_parallel_env(players=3), num_cycles=200)


def test_pettingzoo_aec_api():
    api_test(toy_env(players=3), num_cycles=200)


def test_pettingzoo_seed_tests():
    seed_test(lambda: toy_env(players=2), num_cycles=100)
    # parallel_seed_test samples actions without masks: the noop policy is for exactly that.
    parallel_seed_test(lambda: toy_parallel_env(players=2, illegal_action="noop"), num_cycles=100)


def test_pettingzoo_render():
    render_test(lambda render_mode=None: toy_env(players=2, render_mode=render_mode))


def _env_at(pile: int, **kw) -> ToyEnv:
    env = toy_parallel_env(**kw)
    env.reset(seed=0)
    env.engine.pile = pile
    env.engine.invalidate_masks()
    return env


def test_simultaneous_grab_of_last_token_goes_to_one_player_chosen_by_seed():
    winners = set()
    for seed in range(30):
        env = toy_parallel_env(players=2)
        env.reset(seed=seed)
        env.engine.pile = 1
        env.engine.invalidate_masks()
        obs, rew, term, trunc, infos = env.step({"p0": 1, "p1": 1})
        blocked = [a for a in ("p0", "p1") if infos[a]["blocked"]]
        assert len(blocked) == 1, infos
        got = "p1" if blocked == ["p0"] else "p0"
        assert rew[got] == 1 and rew[blocked[0]] == 0
        assert "pre-empted" in env.last_step_details()[blocked[0]]["blocked_reason"]
        assert env.engine.held[got] == 1 and env.engine.pile == 0
        winners.add(got)
    assert winners == {"p0", "p1"}, "the seeded order must favour each player sometimes"


def test_resolution_order_is_deterministic_for_a_seed():
    def run(seed):
        env = toy_parallel_env(players=3)
        env.reset(seed=seed)
        env.engine.pile = 2
        env.engine.invalidate_masks()
        _, _, _, _, infos = env.step({"p0": 1, "p1": 1, "p2": 1})
        return tuple(infos[a]["blocked"] for a in env.possible_agents)

    assert all(run(s) == run(s) for s in range(10))


def test_illegal_action_raises_names_agent_action_reason_and_changes_nothing():
    env = _env_at(1)
    before = json.dumps(env.snapshot(), sort_keys=True)
    with pytest.raises(IllegalActionError) as err:
        env.step({"p0": 1, "p1": 2})
    msg = str(err.value)
    assert "p1" in msg and "2 (grab2)" in msg and "pile holds 1" in msg and "Legal now" in msg
    assert isinstance(err.value, ValueError)
    assert json.dumps(env.snapshot(), sort_keys=True) == before
    assert env.agents == ["p0", "p1"]


@pytest.mark.parametrize("bad", [7, -1, 1.0, "grab", None, True])
def test_malformed_actions_raise_clear_errors(bad):
    env = _env_at(3)
    with pytest.raises(IllegalActionError, match="p0"):
        env.step({"p0": bad, "p1": 0})


def test_missing_and_unknown_agents_raise():
    env = _env_at(3)
    with pytest.raises(IllegalActionError, match="every live agent"):
        env.step({"p0": 1})
    with pytest.raises(IllegalActionError, match="no such agent"):
        env.step({"p0": 1, "p1": 0, "zz": 0})


def test_noop_policy_replaces_illegal_action_and_flags_it():
    env = _env_at(1, illegal_action="noop", infos="verbose")
    _, rew, _, _, infos = env.step({"p0": 2, "p1": 0})
    assert infos["p0"]["illegal_replaced"] and "grab2" in infos["p0"]["illegal_reason"]
    assert infos["p0"]["action"] == 0 and rew["p0"] == 0
    assert not infos["p1"]["illegal_replaced"]
    assert env.engine.pile == 1


def test_numpy_integer_actions_are_accepted():
    env = _env_at(3)
    env.step({"p0": np.int64(1), "p1": np.array(2)})
    assert env.engine.pile == 0


def test_unknown_config_key_and_bad_values_list_what_is_allowed():
    with pytest.raises(ConfigError) as e:
        toy_parallel_env(playerz=2)
    assert "'playerz'" in str(e.value) and "players" in str(e.value) and "illegal_action" in str(e.value)
    with pytest.raises(ConfigError, match=r"players=5 .*one of 2, 3"):
        toy_parallel_env(players=5)
    with pytest.raises(ConfigError, match="illegal_action"):
        toy_parallel_env(illegal_action="ignore")
    with pytest.raises(ConfigError, match=r"tokens=0 .*an integer in \[1, 16\]"):
        toy_parallel_env(tokens=0)
    with pytest.raises(ConfigError, match="seconds_per_tick"):
        toy_parallel_env(seconds_per_tick="fast")
    with pytest.raises(ConfigError, match="render_mode"):
        toy_parallel_env(render_mode="rgb_array")


def test_snapshot_round_trip_continues_identically():
    env = toy_parallel_env(players=3, tokens=12)
    env.reset(seed=5)
    env.step({"p0": 1, "p1": 0, "p2": 1})
    snap = json.loads(json.dumps(env.snapshot()))
    twin = toy_parallel_env(players=3, tokens=12)
    twin.reset(options={"snapshot": snap})
    for _ in range(3):
        joint = {"p0": 1, "p1": 1, "p2": 1}
        a = env.step(joint)
        b = twin.step(joint)
        assert a[1] == b[1] and a[4] == b[4]
        for agent in a[0]:
            np.testing.assert_array_equal(a[0][agent]["observation"], b[0][agent]["observation"])
        if not env.agents:
            break
    assert env.snapshot() == twin.snapshot()


def test_clone_is_independent():
    eng = ToyEngine.new({"players": 2, "tokens": 8, "seconds_per_tick": 1.0}, seed=1)
    snap = eng.to_dict()
    twin = eng.clone()
    eng.step({"p0": 1, "p1": 1})
    assert twin.to_dict() == snap
    assert eng.to_dict() != snap
    assert twin.rng is not eng.rng


def test_bad_snapshots_raise_and_keep_the_current_game():
    env = toy_parallel_env(players=2)
    env.reset(seed=3)
    good = env.snapshot()
    before = env.snapshot()
    with pytest.raises(SnapshotError, match="engine 'other'"):
        env.restore({**good, "engine": "other"})
    with pytest.raises(SnapshotError, match="version"):
        env.restore({**good, "version": 99})
    with pytest.raises(SnapshotError, match="corrupt"):
        env.restore({**good, "state": {"pile": 3}})
    with pytest.raises(SnapshotError, match="lacks"):
        env.restore({"engine": "toy"})
    other = toy_parallel_env(players=3)
    other.reset(seed=3)
    with pytest.raises(SnapshotError, match="players"):
        env.restore(other.snapshot())
    with pytest.raises(SnapshotError, match="not valid JSON"):
        ToyEngine.from_json("{nope")
    assert env.snapshot() == before


@pytest.mark.parametrize("options", ["snapshot", ["snapshot"], 3])
def test_reset_options_that_are_not_a_dict_are_refused_and_the_game_kept(options):
    env = toy_parallel_env()
    env.reset(seed=3)
    before = env.snapshot()
    with pytest.raises(ConfigError, match=r"reset: options=.* is not allowed; allowed: None or a dict"):
        env.reset(seed=4, options=options)
    assert env.snapshot() == before


def test_reset_without_seed_continues_the_same_generator():
    a = toy_parallel_env()
    b = toy_parallel_env()
    a.reset(seed=11)
    b.reset(seed=11)
    for _ in range(5):
        a.reset()
        b.reset()
        assert a.snapshot() == b.snapshot()


def test_no_global_random_state_is_touched():
    np_state = np.random.get_state()[1].copy()
    py_state = random.getstate()
    env = toy_parallel_env(players=3)
    for seed in range(5):
        env.reset(seed=seed)
        while env.agents:
            env.step({a: 1 if env.engine.pile else 0 for a in env.agents})
    np.testing.assert_array_equal(np.random.get_state()[1], np_state)
    assert random.getstate() == py_state


def test_game_end_terminates_everyone_and_reports_outcome():
    env = _env_at(2)
    _, _, term, trunc, infos = env.step({"p0": 1, "p1": 1})
    assert term == {"p0": True, "p1": True} and trunc == {"p0": False, "p1": False}
    assert env.agents == []
    assert set(env.last_step_details()["p0"]["outcome"]["winners"]) == {"p0", "p1"}
    assert set(env.outcome()["winners"]) == {"p0", "p1"} and "outcome" not in infos["p0"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"p0": 0, "p1": 0})


def test_max_ticks_truncates():
    env = toy_parallel_env(max_ticks=3)
    env.reset(seed=0)
    for i in range(3):
        _, _, term, trunc, _ = env.step({"p0": 0, "p1": 0})
    assert trunc["p0"] and not term["p0"] and env.agents == []


def test_render_modes():
    env = toy_parallel_env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("tick 0: pile")
    env = toy_parallel_env()
    env.reset(seed=0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert env.render() is None


def test_human_render_prints(capsys):
    env = toy_parallel_env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "pile" in capsys.readouterr().out


def test_spaces_are_stable_and_state_vector_matches_space():
    env = toy_parallel_env(players=3)
    env.reset(seed=0)
    assert env.observation_space("p0") is env.observation_space("p0")
    assert env.observation_space("p0") is not env.observation_space("p1")
    assert env.action_space("p1").n == 3
    assert env.state_space.contains(env.state())
    obs = env.observe("p2")
    assert env.observation_space("p2").contains(obs)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_every_env_and_seat_gets_its_own_spaces_equal_to_freshly_built_ones(env_id):
    """The float boxes are deep copies of one built per bounds (gymnasium's ``Box.__init__``
    formats the bounds as text, most of an env's construction): each is still a space of its
    own (own arrays, own generator: seeding one env's space leaves another's stream alone), equal
    to ``Box(low, high, dtype=float32)`` built directly, with the same text."""
    from gymnasium import spaces

    module = envs.get_env_module(env_id)
    a, b = module.parallel_env(), module.parallel_env()
    lay = a.encoder.layout
    fresh = spaces.Box(lay.low, lay.high, dtype=np.float32)
    seats = [a.observation_space(p)["observation"] for p in a.possible_agents]
    other = b.observation_space(b.possible_agents[0])["observation"]
    for box in seats + [other]:
        assert box == fresh and box.dtype == np.float32 and repr(box) == repr(fresh)
        assert np.array_equal(box.low, fresh.low) and np.array_equal(box.high, fresh.high)
    arrays = [box.low for box in seats + [other]] + [box.high for box in seats + [other]]
    assert len({id(x) for x in arrays}) == len(arrays)  # nothing shared between seats or envs
    state = spaces.Box(a.encoder.state_layout.low, a.encoder.state_layout.high, dtype=np.float32)
    assert a.state_space == state and a.state_space is not b.state_space
    seats[0].seed(7)
    draw = seats[0].sample()
    other.seed(7)
    assert np.array_equal(other.sample(), draw)  # the same seed, the same stream: independent generators
    seats[0].seed(7)
    other.sample()  # drawing from another env's space does not advance this one's
    assert np.array_equal(seats[0].sample(), draw)


# ---------------------------------------------------------------------------------------------- snapshots at the door
def test_restore_refuses_a_game_whose_observations_leave_their_space_and_changes_nothing():
    env = _env_at(3)
    before = env.snapshot()
    bad = json.loads(json.dumps(before))
    bad["state"]["pile"] = 500  # the toy engine takes any int; the observation bounds say 0..20
    with pytest.raises(SnapshotError, match="observation outside its space.*pile"):
        env.reset(options={"snapshot": bad})
    assert env.snapshot() == before and env.agents == ["p0", "p1"]
    env.step({"p0": 1, "p1": 0})  # the old game plays on
    assert env.engine.pile == 2


@pytest.mark.parametrize("field, value, match", [
    ("tick", -1, "tick"), ("tick", True, "tick"), ("tick", 1.5, "tick"),
    ("config", {"players": [2]}, "config"), ("config", "players=2", "config"),
    ("state", [], "state"),
])
def test_snapshot_wrapper_fields_are_checked(field, value, match):
    env = _env_at(3)
    bad = env.snapshot()
    bad[field] = value
    with pytest.raises(SnapshotError, match=match):
        ToyEngine.from_dict(bad)


@pytest.mark.parametrize("damage", [
    lambda r: r.update(bit_generator="MT19937"),
    lambda r: r["state"].update(inc=r["state"]["inc"] + 1),      # even increment
    lambda r: r["state"].update(state=-1),
    lambda r: r["state"].update(state=2 ** 128),
    lambda r: r["state"].update(inc=1.5),
    lambda r: r.update(has_uint32=2),
    lambda r: r.update(uinteger=-1),
    lambda r: r.update(extra=1),
    lambda r: r.pop("uinteger"),
])
def test_the_rng_state_of_a_snapshot_is_checked_field_by_field(damage):
    env = _env_at(3)
    bad = env.snapshot()
    damage(bad["rng"])
    with pytest.raises(SnapshotError, match="rng"):
        ToyEngine.from_dict(bad)


def test_aec_rewards_arrive_when_the_tick_resolves_and_accumulate_until_the_agent_acts_again():
    """The toy pays +1 per token grabbed, so rewards flow nearly every tick."""
    env = toy_env(players=3, tokens=16)
    env.reset(seed=0)
    u = env.unwrapped
    expected = dict.fromkeys(env.possible_agents, 0.0)
    resolved_with_reward = 0
    while not any(env.terminations.values()):
        agent = env.agent_selection
        last = u._pos == len(u._order) - 1
        env.step(1 if u.engine.action_mask(agent)[1] else 0)
        expected[agent] = 0.0  # an agent's accumulated reward restarts when it acts
        if last:  # the tick resolved: every agent's reward for it arrives at once
            for b in env.agents:
                expected[b] += u.rewards[b]
            resolved_with_reward += any(u.rewards.values())
        else:
            assert all(r == 0 for r in u.rewards.values()), "rewards arrive only when the tick resolves"
        assert u._cumulative_rewards == pytest.approx(expected)
    assert resolved_with_reward >= 3
    # each agent reads its last tick's reward in last() before stepping out with None
    for agent in env.agent_iter():
        _, r, term, _, _ = env.last()
        assert term and r == pytest.approx(expected[agent])
        env.step(None)
