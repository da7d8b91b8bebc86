"""Doors of the policies a user drives from their own loop: ``load_policy``'s switches, what an
``ActorPolicy`` reads, and the heuristics given a mask narrower than the env's."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from training.policies import load_policy

CHECKPOINT = "checkpoints/frying_master/main"


def _obs():
    mod = envs.get_env_module("frying_master_v1")
    env = mod.parallel_env(players=2)
    obs, _ = env.reset(seed=0)
    return env, obs


@pytest.mark.parametrize("bad", ["false", "False", "0", None, 0, 1.0])
def test_load_policy_takes_only_booleans_for_its_switches(bad):
    """``bool("false")`` is True: a string from a user's config made the policy greedy, or loading
    strict."""
    for name in ("deterministic", "strict"):
        with pytest.raises(TypeError, match=f"load_policy: {name}=.* is not allowed; allowed: True or False"):
            load_policy(CHECKPOINT, **{name: bad})
    assert load_policy(CHECKPOINT, deterministic=np.bool_(False), seed=1).deterministic is False


def test_an_actor_policy_refuses_a_mask_that_is_not_zeros_and_ones_and_an_observation_that_is_not_finite():
    """A mask of 2 / -1 (or 0.5 everywhere) counted every entry as legal and the policy played an
    action the env's mask forbids; an all-NaN observation gave action 0 without a word."""
    env, obs = _obs()
    pol = load_policy(CHECKPOINT)
    a = env.agents[0]
    good = pol.act(obs[a], a)
    assert obs[a]["action_mask"][good]
    m = obs[a]["action_mask"]
    for bad_mask in (np.where(m > 0, 2, -1), np.full(m.shape, 0.5), m.astype(str)):
        with pytest.raises(ValueError, match="action_mask holds .*; allowed: 0 and 1"):
            pol.act({"observation": obs[a]["observation"], "action_mask": bad_mask}, a)
    assert pol.act({"observation": obs[a]["observation"], "action_mask": m.astype(bool)}, a) == good
    assert pol.act({"observation": obs[a]["observation"], "action_mask": m.astype(np.float32)}, a) == good
    for bad_value in (np.nan, np.inf, 1e39):
        x = obs[a]["observation"].astype(np.float64)
        x[3] = bad_value
        with pytest.raises(ValueError, match="not a finite number"):
            pol.act({"observation": x, "action_mask": m}, a)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_heuristic_given_a_narrower_mask_keeps_to_it_and_an_empty_one_is_named(env_id):
    """Wok Star's heuristic fell back to noop without looking at the mask (78 of 104 narrowed masks
    got an action they forbid); Frying Master's failed on an empty mask with an IndexError."""
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    obs, _ = env.reset(seed=3)
    pol = mod.HeuristicPolicy()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        if not env.agents:
            break
        for a in env.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            if legal.size > 1:
                keep = int(rng.choice(legal[legal != 0])) if (legal != 0).any() else int(legal[0])
                narrow = np.zeros_like(obs[a]["action_mask"])
                narrow[keep] = 1
                assert mod.HeuristicPolicy().act({**obs[a], "action_mask": narrow}, a, env) == keep
                checked += 1
        a = env.agents[0]
        with pytest.raises(ValueError, match="has no legal action"):
            mod.HeuristicPolicy().act({**obs[a], "action_mask": np.zeros_like(obs[a]["action_mask"])}, a, env)
        obs, *_ = env.step({a: pol.act(obs[a], a, env) for a in env.agents})
    assert checked > 10
