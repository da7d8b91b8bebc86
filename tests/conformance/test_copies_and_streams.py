"""What a copy of an env or engine shares with its original, and what a new game shares with the
last one: nothing that one of them can change under the other (every game, through the registry)."""

from __future__ import annotations

import copy
import gc
import pickle

import numpy as np
import pytest

import envs


def _env(env_id: str, **kw):
    mod = envs.get_env_module(env_id)
    return mod, mod.parallel_env(**{**mod.TEST_CONFIGURATIONS[0], **kw})


def _play(env, obs, steps: int, rng):
    for _ in range(steps):
        if not env.agents:
            break
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    return obs


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_copies_of_the_parallel_form_carry_its_seeded_spaces_on(env_id):
    """``__setstate__`` built new spaces: a copy drew its samples from fresh OS entropy, where the
    AEC form's copies carried on the original's stream."""
    _, env = _env(env_id)
    env.reset(seed=1)
    a = env.possible_agents[0]
    env.action_space(a).seed(123)
    env.observation_space(a).seed(7)
    pickled, deep = pickle.loads(pickle.dumps(env)), copy.deepcopy(env)
    draws = [env.action_space(a).sample() for _ in range(8)]
    assert [pickled.action_space(a).sample() for _ in range(8)] == draws
    assert [deep.action_space(a).sample() for _ in range(8)] == draws
    twin_a, twin_b = copy.deepcopy(env), copy.deepcopy(env)
    assert [twin_a.action_space(a).sample() for _ in range(8)] == [twin_b.action_space(a).sample() for _ in range(8)]
    np.testing.assert_array_equal(twin_a.observation_space(a).sample()["observation"],
                                  twin_b.observation_space(a).sample()["observation"])
    aec = envs.get_env_module(env_id).env(**envs.get_env_module(env_id).TEST_CONFIGURATIONS[0])
    aec.reset(seed=1)
    dup = copy.deepcopy(aec)
    assert all(dup.action_space(x) is dup.unwrapped.par.action_space(x) for x in dup.possible_agents)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_new_game_without_a_seed_does_not_share_the_last_games_generator(env_id):
    """``reset()`` without a seed handed the new game the last game's Generator object: a user who
    kept the last game's engine and stepped it changed the new game's draws."""
    _, env = _env(env_id)
    obs, _ = env.reset(seed=3)
    obs = _play(env, obs, 5, np.random.default_rng(0))
    state = env.unwrapped.engine.rng.bit_generator.state
    old = env.unwrapped.engine
    env.reset()
    assert env.unwrapped.engine.rng is not old.rng
    assert old.rng.bit_generator.state == state  # the new deal drew from a copy of the stream
    before = env.snapshot()
    old.rng.random(1000)  # the kept game draws
    assert env.snapshot() == before


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_finished_game_restored_shows_noop_legal_as_after_its_last_step(env_id):
    """After a truncation every mask shows noop legal; the same game restored from its snapshot
    showed the masks of its state instead."""
    mod, env = _env(env_id, max_cycles=9)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(2)
    while env.agents:
        obs = _play(env, obs, 1, rng)
    twin = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0], max_cycles=9)
    twin.reset(seed=5)
    twin.restore(env.snapshot())
    assert twin.agents == []
    for a in env.possible_agents:
        assert obs[a]["action_mask"][0] == 1
        np.testing.assert_array_equal(twin.observe(a)["action_mask"], env.observe(a)["action_mask"])
        np.testing.assert_array_equal(twin.observe(a)["observation"], env.observe(a)["observation"])


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_verbose_infos_are_the_callers_own(env_id):
    """A game's own info entries (Frying Master's ``round_result``) were the env's record itself:
    clearing one in the returned infos cleared it in ``last_step_details()``."""
    _, env = _env(env_id, infos="verbose")
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(2000):
        if not env.agents:
            obs, _ = env.reset()
        joint = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, _, _, _, infos = env.step(joint)
        for a, info in infos.items():
            for k, v in info.items():
                if isinstance(v, (dict, list)):
                    seen += 1
                    kept = copy.deepcopy(env.unwrapped.last_step_details()[a][k])
                    v.clear()
                    assert env.unwrapped.last_step_details()[a][k] == kept
        if seen >= 3:
            break
    assert seen >= 3, "no nested info value was checked"


def test_a_deep_copied_frying_master_engine_is_never_served_a_freed_engines_observation():
    """The encoder keeps its buffer under (id, uid, version); a deep copy kept the uid and the
    version, and CPython often places it at a freed copy's address: the encoder then served the
    freed copy's observation for a different state."""
    mod, env = _env("frying_master_v1")
    obs, _ = env.reset(seed=0)
    obs = _play(env, obs, 10, np.random.default_rng(0))
    raw = env.unwrapped
    saved = raw.engine
    fresh = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0]).unwrapped.encoder
    agents = saved.live_agents()
    legal = np.flatnonzero(saved.action_mask(agents[0]))

    def one(action: int):
        sim = copy.deepcopy(saved)
        assert sim._uid != saved._uid
        sim.step({a: (int(action) if a == agents[0] else 0) for a in agents})
        np.testing.assert_array_equal(raw.encoder.observe(sim, agents[0]), fresh.observe(sim, agents[0]))
        dup = pickle.loads(pickle.dumps(sim))
        assert dup._uid not in (sim._uid, saved._uid)

    for action in legal[:6]:
        one(action)
        gc.collect()
