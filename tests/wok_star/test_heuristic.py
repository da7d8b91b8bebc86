"""The scripted team: legal, public-information-only, and clearly better than random play."""

from __future__ import annotations

import numpy as np
import pytest

from envs import wok_star_v1
from envs.core.play import play_episode
from envs.core.policy import RandomLegalPolicy


@pytest.mark.parametrize("kw", [
    {"players": 2, "setup": "team", "powers": True, "events": True},
    {"players": 4, "difficulty": "medium"},
])
def test_heuristic_only_plays_legal_actions(kw):
    env = wok_star_v1.parallel_env(**kw)  # illegal actions would raise
    pol = wok_star_v1.HeuristicPolicy()
    for seed in range(3):
        res = play_episode(env, {a: pol for a in env.possible_agents}, seed=seed)
        assert res.terminated


def test_heuristic_ignores_hidden_information():
    """Changing the deck order (hidden) never changes what the heuristic does."""
    env = wok_star_v1.parallel_env(players=3, events=True, powers=True)
    pol = wok_star_v1.HeuristicPolicy()
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    compared = 0
    while env.agents:
        acts = {a: pol.act(obs[a], a, env) for a in env.agents}
        real = env.unwrapped.engine
        twin = real.clone()
        twin.deck = [twin.deck[i] for i in rng.permutation(len(twin.deck))]
        twin.event_pile = list(reversed(twin.event_pile))
        twin.invalidate_masks()
        env.unwrapped.engine = twin
        acts_twin = {a: pol.act(obs[a], a, env) for a in env.agents}
        env.unwrapped.engine = real
        assert acts == acts_twin
        compared += 1
        obs, *_ = env.step(acts)
    assert compared > 20


def test_heuristic_beats_random_play_by_a_clear_margin():
    env = wok_star_v1.parallel_env(players=3)
    heur, rand = wok_star_v1.HeuristicPolicy(), RandomLegalPolicy(0)
    h_income, r_income, h_days, r_days = 0.0, 0.0, 0, 0
    for seed in range(6):
        h = play_episode(env, {a: heur for a in env.possible_agents}, seed=seed)
        r = play_episode(env, {a: rand for a in env.possible_agents}, seed=seed)
        h_income += h.outcome["scores"]["chef_0"]
        r_income += r.outcome["scores"]["chef_0"]
        h_days += h.outcome["days_completed"]
        r_days += r.outcome["days_completed"]
    assert h_income > 3 * r_income and h_days > 2 * r_days


def test_heuristic_wins_some_mild_games():
    env = wok_star_v1.parallel_env(players=2)
    pol = wok_star_v1.HeuristicPolicy()
    wins = sum(bool(play_episode(env, {a: pol for a in env.possible_agents}, seed=s).winners) for s in range(8))
    assert wins >= 3


def test_the_hustler_is_the_default_chef_but_for_its_last_hustle_token():
    """``hustler`` is the default chef with no Hustle reserve: from the same observations it picks
    the default's action everywhere except where the team holds exactly the default's reserve of
    tokens, and there it spends one (a rotation) where the default keeps it."""
    from envs.wok_star.heuristic import HUSTLE_RESERVE, build_action_table
    rotate = {g.name: g for g in build_action_table(2).groups}["rotate"]
    env = wok_star_v1.parallel_env(players=2)
    default, hustler = wok_star_v1.HeuristicPolicy(), wok_star_v1.HeuristicPolicy("hustler")
    differed = 0
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            acts = {}
            for a in env.agents:
                d, h = default.act(obs[a], a, env), hustler.act(obs[a], a, env)
                if d != h:
                    view = env.unwrapped.engine.public_view(a)
                    assert view.table["hustle"] == HUSTLE_RESERVE, (seed, a, d, h)
                    assert obs[a]["action_mask"][h] and rotate.start <= h < rotate.start + rotate.size, h
                    differed += 1
                acts[a] = d
            obs, *_ = env.step(acts)
    assert differed > 0
