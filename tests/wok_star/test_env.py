"""The PettingZoo environment: options, observations (no leaks), rewards, rendering, actions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs import wok_star_v1
from envs.core.errors import ConfigError, IllegalActionError
from envs.wok_star.cards import is_event_card
from envs.wok_star.engine import WokStarEngine
from envs.wok_star.rules import next_day_prep
from tests.wok_star.helpers import DATA, engine, open_table, step


def test_agents_and_spaces():
    env = wok_star_v1.parallel_env(players=4)
    assert env.possible_agents == ["chef_0", "chef_1", "chef_2", "chef_3"]
    assert env.action_space("chef_0").n == env.action_table.n < 1500
    assert env.action_table.name(0) == "noop"
    obs, _ = env.reset(seed=0)
    assert env.observation_space("chef_1").contains(obs["chef_1"])


@pytest.mark.parametrize("kw,match", [
    ({"players": 5}, "players=5"),
    ({"difficulty": "hot"}, "difficulty"),
    ({"timer_seconds": 1.0}, "timer_seconds"),
    ({"reward": "dollars"}, "reward"),
    ({"events": "yes"}, "events"),
    ({"chefs": 2}, "unknown option"),
])
def test_bad_options_say_what_is_allowed(kw, match):
    with pytest.raises(ConfigError, match=match):
        wok_star_v1.parallel_env(**kw)


def test_timer_length_in_ticks_follows_seconds_per_tick():
    assert engine(0, timer_seconds=30.0, seconds_per_tick=1.0).T == 30
    assert engine(0, timer_seconds=30.0, seconds_per_tick=0.5).T == 60
    assert engine(0, timer_seconds=30.0, seconds_per_tick=4.0).T == 8  # ceil(7.5)
    assert engine(0, timer_seconds=20.0).timers == [20, 0]


def _hidden_variants(eng: WokStarEngine, rng: np.random.Generator) -> WokStarEngine:
    """Same table, different hidden information: deck order, which coupons went into the Regular deck,
    which events lie in the Regular deck and in the pile."""
    twin = eng.clone()
    twin.deck = [twin.deck[i] for i in rng.permutation(len(twin.deck))]
    # swap coupon identities between the Regular deck and the face-down Coupon deck
    deck_coupons = [k for k, c in enumerate(twin.deck) if not is_event_card(c) and DATA.customers[c].coupon]
    if deck_coupons and twin.coupons:
        k = deck_coupons[0]
        twin.deck[k], twin.coupons[0] = twin.coupons[0], twin.deck[k]
    # swap an event in the deck with one in the pile
    deck_events = [k for k, c in enumerate(twin.deck) if is_event_card(c)]
    if deck_events and twin.event_pile:
        k = deck_events[0]
        old = twin.deck[k] - 60
        twin.deck[k], twin.event_pile[0] = 60 + twin.event_pile[0], old
    twin.event_pile = [twin.event_pile[i] for i in rng.permutation(len(twin.event_pile))]
    twin.invalidate_masks()
    return twin


def test_no_leak_hidden_information_never_reaches_observations():
    rng = np.random.default_rng(0)
    env = wok_star_v1.parallel_env(players=3, events=True, powers=True)
    pol = wok_star_v1.HeuristicPolicy()
    checked = 0
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            eng = env.unwrapped.engine
            if eng.tick % 5 == 0:
                eng.coupons = list(eng.coupons)
                if eng.coupons and not any(not is_event_card(c) and DATA.customers[c].coupon for c in eng.deck):
                    eng.deck.insert(0, eng.coupons.pop())  # an advertised coupon, hidden in the deck
                    eng.invalidate_masks()
                twin = _hidden_variants(eng, rng)
                assert twin.to_dict() != eng.to_dict() or len(eng.deck) < 2
                for agent in env.agents:
                    a = env.encoder.observe(eng, agent)
                    b = env.encoder.observe(twin, agent)
                    np.testing.assert_array_equal(a, b)
                    np.testing.assert_array_equal(eng.action_mask(agent), twin.action_mask(agent))
                    assert _same_table(eng.public_view(agent).table, twin.public_view(agent).table)
                checked += 1
            obs, *_ = env.step({a: pol.act(obs[a], a, env) for a in env.agents})
    assert checked > 10


def _same_table(t1, t2) -> bool:
    for k in t1:
        v1, v2 = t1[k], t2[k]
        if isinstance(v1, np.ndarray):
            if not np.array_equal(v1, v2):
                return False
        elif v1 != v2:
            return False
    return True


def test_deck_order_is_in_the_global_state_only():
    eng = engine(1, players=3)
    twin = eng.clone()
    twin.deck = list(reversed(twin.deck))
    twin.invalidate_masks()
    env = wok_star_v1.parallel_env(players=3)
    assert not np.array_equal(env.encoder.global_state(eng), env.encoder.global_state(twin))
    np.testing.assert_array_equal(env.encoder.observe(eng, "chef_0"), env.encoder.observe(twin, "chef_0"))


def test_observation_is_relative_to_the_observer():
    env = wok_star_v1.parallel_env(players=3)
    env.reset(seed=0)
    eng = env.unwrapped.engine
    open_table(eng, dice={1: [6, 6]})
    lay = env.encoder.layout
    own0 = lay.get(env.observe("chef_0")["observation"], "dice_own")
    own1 = lay.get(env.observe("chef_1")["observation"], "dice_own")
    assert own0[1, 5] == pytest.approx(2 / 5) and own1[0, 5] == pytest.approx(2 / 5)
    assert lay.get(env.observe("chef_2")["observation"], "seat")[2] == 1


def test_income_reward_is_shared_and_scaled():
    eng = engine(0, players=3, reward="income", reward_scale=0.5)
    cu = eng.current_customer()
    holder = eng.recipe_holder[cu.recipe]
    for i in DATA.recipes[cu.recipe].ingredients:
        eng.ing_level[i] = 2
    eng.invalidate_masks()
    res = step(eng, {holder: ("serve", {"flip": "low"})})
    assert res.rewards == {a: 0.5 * cu.income for a in eng.agents}


def test_win_loss_reward_is_sparse():
    eng = engine(0, players=3, reward="win_loss")
    cu = eng.current_customer()
    holder = eng.recipe_holder[cu.recipe]
    for i in DATA.recipes[cu.recipe].ingredients:
        eng.ing_level[i] = 2
    eng.invalidate_masks()
    res = step(eng, {holder: ("serve", {"flip": "low"})})
    assert res.rewards == {a: 0.0 for a in eng.agents}
    eng.phase, eng.income = "closed", 0
    eng.invalidate_masks()
    res = step(eng)
    assert eng.done and res.rewards == {a: -1.0 for a in eng.agents}
    won = engine(0, players=2, reward="income+win_loss")
    won.phase, won.day, won.income = "closed", 4, 100
    won.invalidate_masks()
    res = step(won)
    assert won.won == 1 and res.rewards["chef_0"] == pytest.approx(1.0)


def test_render_shows_what_a_person_needs_to_follow_the_day():
    env = wok_star_v1.parallel_env(players=3, render_mode="ansi", events=True, powers=True, setup="auto")
    env.reset(seed=2)
    text = env.render()
    for words in ("timers:", "customer:", "income today", "goals:", "Hustle pool", "unused dice", "dirty", "cubes",
                  "ingredient", "track", "Regular deck"):
        assert words in text, words
    eng = env.unwrapped.engine
    eng.income = 30
    next_day_prep.start_prep(eng)
    eng.invalidate_masks()
    assert "money to spend $30" in env.render() and "offers:" in env.render()


def test_illegal_action_raises_and_leaves_the_state_alone():
    env = wok_star_v1.parallel_env(players=3)
    env.reset(seed=0)
    before = json.dumps(env.snapshot(), sort_keys=True)
    act = env.action_table.index("upgrade", ingredient="pork")
    with pytest.raises(IllegalActionError, match="prep"):
        env.step({"chef_0": act, "chef_1": 0, "chef_2": 0})
    assert json.dumps(env.snapshot(), sort_keys=True) == before


def test_mask_agrees_with_why_illegal_on_many_states():
    """For every action: legal in the mask <=> the slow rule check finds no reason."""
    rng = np.random.default_rng(1)
    pol = wok_star_v1.HeuristicPolicy()
    for kw in ({"players": 2, "powers": True, "setup": "team"}, {"players": 4, "events": True, "powers": True}):
        env = wok_star_v1.parallel_env(**kw)
        obs, _ = env.reset(seed=3)
        eng = env.unwrapped.engine
        states = 0
        while env.agents and states < 60:
            if eng.tick % 3 == 0:
                for agent in env.agents:
                    mask = eng.action_mask(agent)
                    seat = eng.seat[agent]
                    for i in range(1, eng.actions.n):
                        name, params = eng.actions.decode(i)
                        assert bool(mask[i]) == (eng.check(seat, name, params) is None), (agent, eng.actions.name(i), eng.phase)
                states += 1
            acts = {}
            for a in env.agents:
                if rng.random() < 0.3:
                    legal = np.flatnonzero(obs[a]["action_mask"])
                    acts[a] = int(legal[rng.integers(legal.size)])
                else:
                    acts[a] = pol.act(obs[a], a, env)
            obs, *_ = env.step(acts)
