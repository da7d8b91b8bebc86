"""PettingZoo's own test suite plus a random-legal-play fuzz, over every
registered environment and every configuration it lists
(``envs.test_configurations()``)."""

from __future__ import annotations

import os

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import envs
from tests.conformance.fuzz import fuzz

CONFIGS = envs.test_configurations()
IDS = [c.name for c in CONFIGS]
SCALE = float(os.environ.get("KA_FUZZ_SCALE", "1"))


def test_all_three_games_are_registered_and_present():
    assert envs.available_env_ids() == list(envs.ENV_IDS)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_parallel_api(cfg):
    parallel_api_test(cfg.parallel_env(), num_cycles=400)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_aec_api(cfg):
    api_test(cfg.aec_env(), num_cycles=400)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_seeding(cfg):
    seed_test(lambda: cfg.aec_env(), num_cycles=200)
    # parallel_seed_test samples without masks; the "noop" policy exists for that.
    parallel_seed_test(lambda: cfg.parallel_env(illegal_action="noop"), num_cycles=200)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_render(cfg):
    render_test(lambda render_mode=None: cfg.aec_env(render_mode=render_mode))
    env = cfg.parallel_env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 3


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_random_legal_fuzz(cfg):
    module = cfg.module()
    games = max(1, int(round(getattr(module, "FUZZ_GAMES", 5) * SCALE)))
    stats = fuzz(cfg, games=games, seed0=1000)
    assert stats["max_steps"] <= stats["bound"]


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_module_exposes_the_family_api(env_id):
    m = envs.get_env_module(env_id)
    for name in ("raw_env", "env", "parallel_env", "TEST_CONFIGURATIONS", "max_episode_steps", "HeuristicPolicy"):
        assert hasattr(m, name), f"{env_id} lacks {name}"
    assert m.raw_env.metadata["name"] == env_id
    par = m.parallel_env()
    assert isinstance(par, m.raw_env)
    aec = m.env()
    from pettingzoo import AECEnv

    from envs.core.aec_env import TickAECEnv

    # env() is a native AEC env over the engine, not PettingZoo's parallel_to_aec conversion
    assert isinstance(aec.unwrapped, TickAECEnv) and isinstance(aec.unwrapped, AECEnv)
    assert isinstance(aec.unwrapped.par, m.raw_env)
