"""Refused resets and refused actions leave the env as it was, and say what was wrong in a short
message, whatever the caller passed (every game, through the registry)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envs
from envs.core.errors import ConfigError, IllegalActionError


def _played(env_id: str, steps: int = 4):
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    return mod, env, obs


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_reset_refused_by_a_warning_as_error_changes_nothing(env_id):
    """Under warnings-as-errors (``pytest -W error``) a reset with an unknown option key, or with
    a seed beside a snapshot, raised its warning after the new game was dealt (or the snapshot
    installed): the env was then at tick 0 of a game nobody asked for."""
    mod, env, _ = _played(env_id)
    before, agents, engine = env.snapshot(), list(env.agents), env.unwrapped.engine
    other = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    other.reset(seed=99)
    for kwargs in ({"seed": 7, "options": {"snapshot_path": "x"}},
                   {"seed": 3, "options": {"snapshot": other.snapshot()}}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning):
                env.reset(**kwargs)
        assert env.unwrapped.engine is engine and env.snapshot() == before and env.agents == agents


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_unknown_reset_option_keys_of_any_type_are_named_in_a_warning(env_id):
    """Keys of mixed types had failed in ``sorted`` with a bare TypeError, after the game had
    changed; a thousand keys are cut short."""
    _, env, _ = _played(env_id)
    with pytest.warns(UserWarning, match=r"ignoring unknown options 'snapshot_note', 0; known: \['snapshot'\]"):
        env.reset(seed=9, options={"snapshot_note": 1, 0: "x"})
    with pytest.warns(UserWarning, match=r"and 990 more") as record:
        env.reset(seed=9, options={f"k{i}": i for i in range(1000)})
    assert all(len(str(w.message)) < 500 for w in record)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_any_action_a_caller_passes_is_refused_with_a_short_message_or_replaced(env_id):
    """An integer of 5,000 digits failed while its message was built (a bare ValueError of
    Python's integer-to-text limit, in "noop" mode too, where it should have been replaced), a
    list nested 100,000 deep was a RecursionError, and a string of a million characters made a
    message of a million characters."""
    mod, env, obs = _played(env_id)
    agent = env.agents[0]
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    before = env.snapshot()
    for bad in (10**5000, -10**5000, nested, "x" * 1_000_000, list(range(1_000_000)), "0"):
        joint = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
        joint[agent] = bad
        with pytest.raises(IllegalActionError) as err:
            env.step(joint)
        assert len(str(err.value)) < 2_000 and env.snapshot() == before
    assert "'0'" in str(err.value)  # a string is shown as one
    noop = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0], illegal_action="noop", infos="verbose")
    obs, _ = noop.reset(seed=5)
    for bad in (10**5000, nested, "x" * 1_000_000):
        joint = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in noop.agents}
        joint[noop.agents[0]] = bad
        obs, _, _, _, infos = noop.step(joint)
        info = infos[noop.possible_agents[0]]
        assert info["illegal_replaced"] and len(info["illegal_reason"]) < 500


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_an_unknown_agent_key_of_any_size_is_named_short(env_id):
    _, env, obs = _played(env_id)
    joint = {a: 0 for a in env.agents}
    for key in (10**5000, "y" * 1_000_000):
        with pytest.raises(IllegalActionError, match="no such agent") as err:
            env.step({**joint, key: 0})
        assert len(str(err.value)) < 2_000


def test_a_seed_too_big_to_print_is_refused_in_a_short_message():
    mod = envs.get_env_module(envs.ENV_IDS[0])
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got <an integer of"):
        env.reset(seed=-10**5000)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_max_episode_steps_refuses_what_the_env_refuses(env_id):
    """Waroong Wars' bound had dropped unknown options and never checked the variants, so a
    misspelt ``round_limt=5`` returned the default game's bound."""
    mod = envs.get_env_module(env_id)
    base = dict(mod.TEST_CONFIGURATIONS[0])
    assert mod.max_episode_steps(**base) > 0
    for bad in ({"playrs": 2}, {"render_mode": "xx"}):
        with pytest.raises(ConfigError):
            mod.max_episode_steps(**base, **bad)
        with pytest.raises(ConfigError):
            mod.parallel_env(**base, **bad)


def test_waroong_wars_bound_refuses_a_variant_combination_the_env_refuses():
    mod = envs.get_env_module("waroong_wars_v1")
    with pytest.raises(ConfigError, match="plain_mode"):
        mod.parallel_env(plain_mode=True, character_mode=True)
    with pytest.raises(ConfigError, match="plain_mode"):
        mod.max_episode_steps(plain_mode=True, character_mode=True)
    assert mod.max_episode_steps(round_limit=5) < mod.max_episode_steps()


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_missing_agent_is_told_what_it_may_play(env_id):
    """The message said "use 0 (noop) to wait" also where noop was illegal (a Waroong Wars draft
    pick): it now names the legal actions, and noop only where noop is legal."""
    mod = envs.get_env_module(env_id)
    for cfg in mod.TEST_CONFIGURATIONS[:2]:
        env = mod.parallel_env(**cfg)
        obs, _ = env.reset(seed=11)
        rng = np.random.default_rng(1)
        for _ in range(12):
            if not env.agents:
                break
            agent = env.agents[0]
            mask = obs[agent]["action_mask"]
            joint = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            with pytest.raises(IllegalActionError, match="every live agent must submit") as err:
                env.step({a: v for a, v in joint.items() if a != agent})
            text = str(err.value)
            assert ("use 0 (noop) to wait" in text) == bool(mask[0]) and "Legal now: [" in text
            assert err.value.legal == env.unwrapped.engine.actions.names(np.flatnonzero(mask).tolist())
            obs, *_ = env.step(joint)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_the_parallel_form_has_pettingzoos_space_dicts(env_id):
    mod = envs.get_env_module(env_id)
    par, aec = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0]), mod.env(**mod.TEST_CONFIGURATIONS[0])
    for form in (par, aec):
        assert list(form.observation_spaces) == list(form.possible_agents) == list(form.action_spaces)
        for a in form.possible_agents:
            assert form.observation_spaces[a] is form.observation_space(a)
            assert form.action_spaces[a] is form.action_space(a)
    par.observation_spaces.clear()  # a copy: the env's own stay
    assert list(par.observation_spaces) == list(par.possible_agents)
