"""Observations hold exactly what a player may know."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from envs import waroong_wars_v1
from envs.core.seeding import make_rng
from tests.waroong_wars.helpers import CAT, act, cooking_engine, counts, customer_counts, ix


def _random_counts(rng, total: int, width: int, caps: list[int]) -> list[int]:
    out = [0] * width
    for _ in range(total):
        free = [i for i in range(width) if out[i] < caps[i]]
        out[free[int(rng.integers(len(free)))]] += 1
    return out


def _scramble_hidden(eng, viewer: int, rng) -> None:
    """Change everything ``viewer`` cannot see, keeping what it can (sizes, counts)."""
    caps_t = [7] * 5 + [1] * 4
    caps_k = [k.count for k in CAT.customers]
    for s in range(eng.n):
        own = s == viewer
        if not own:
            eng.hands[s] = _random_counts(rng, sum(eng.hands[s]), 9, caps_t)
            eng.customers[s] = _random_counts(rng, sum(eng.customers[s]), len(caps_k), caps_k)
            eng.packs[s] = _random_counts(rng, sum(eng.packs[s]), 9, caps_t)
        elif eng.phase == "draft" and not eng.no_memory:
            eng.hands[s] = _random_counts(rng, sum(eng.hands[s]), 9, caps_t)  # own face-down picks
    eng.menu_deck = [eng.menu_deck[i] for i in rng.permutation(len(eng.menu_deck))]
    eng.customer_deck = [eng.customer_deck[i] for i in rng.permutation(len(eng.customer_deck))]
    eng.ingredient_deck = [int(x) for x in rng.integers(0, 5, size=len(eng.ingredient_deck))]
    eng.invalidate_masks()


def _states(players: int, seed: int | None = None, **opts):
    env = waroong_wars_v1.parallel_env(players=players, **opts)
    obs, _ = env.reset(seed=players if seed is None else seed)
    rng = make_rng(99)
    step = 0
    while env.agents:
        e = env.engine
        if (step % 7 == 0 or e.pending is not None or any(e.mbok_exchanges) or any(e.cooked_supplements)
                or any(map(any, e.thefts))):
            yield env
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(acts)
        step += 1


@pytest.mark.parametrize("players, opts", [(3, {}), (4, {"character_mode": True}), (5, {"no_memory_chef": True}),
                                           (3, {"plain_mode": True, "constraint_mode": True})])
def test_observation_unchanged_when_only_hidden_cards_change(players, opts):
    rng = make_rng(5)
    seen_phases = set()
    for env in _states(players, **opts):
        eng = env.engine
        seen_phases.add(eng.phase if eng.pending is None else "pending")
        for viewer, agent in enumerate(env.possible_agents):
            before = env.observe(agent)
            snap = eng.to_dict()
            _scramble_hidden(eng, viewer, rng)
            after = env.observe(agent)
            np.testing.assert_array_equal(before["observation"], after["observation"], err_msg=f"{agent} {eng.phase}")
            np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
            env.engine = type(eng).from_dict(snap)
            eng = env.engine
    assert {"draft", "cook"} <= seen_phases


def test_no_leak_in_played_states_with_this_turns_public_events():
    """v1: states of play right after a Mbok Bakul exchange, a supplement or a theft's outcome (seeded
    games until all three happen): scrambling what a viewer cannot see (which cards the exchange or the
    theft moved included) changes neither its observation nor its mask."""
    rng = make_rng(11)
    seen = set()
    for seed in range(30):
        for env in _states(4, seed=seed):
            eng = env.engine
            events = {"mbok_bakul"} if any(eng.mbok_exchanges) else set()
            events |= {"supplement"} if any(eng.cooked_supplements) else set()
            events |= {"theft"} if any(map(any, eng.thefts)) else set()
            if not events:
                continue
            seen |= events
            for viewer, agent in enumerate(env.possible_agents):
                before = env.observe(agent)
                snap = eng.to_dict()
                _scramble_hidden(eng, viewer, rng)
                after = env.observe(agent)
                np.testing.assert_array_equal(before["observation"], after["observation"], err_msg=agent)
                np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
                env.engine = eng = type(eng).from_dict(snap)
        if seen == {"mbok_bakul", "supplement", "theft"}:
            break
    assert seen == {"mbok_bakul", "supplement", "theft"}


def test_the_check_is_not_vacuous_own_cards_do_show():
    env = waroong_wars_v1.parallel_env(players=3)
    env.reset(seed=1)
    eng = cooking_engine(3)
    env.engine = eng
    before = env.observe("player_0")["observation"]
    eng.hands[0] = counts(rice=2)
    eng.customers[0] = customer_counts(foodies=1)
    eng.invalidate_masks()
    after = env.observe("player_0")["observation"]
    lay = env.encoder.layout
    assert list(lay.get(after, "hand")) == counts(rice=2) and not np.array_equal(before, after)
    assert lay.get(after, "customers")[CAT.customer("foodies").index] == 1
    # ... and another player sees only the sizes.
    other = env.observe("player_1")["observation"]
    assert not lay.get(other, "hand").any()
    assert lay.get(other, "hand_sizes")[2] == 2  # player_0 is 2 seats to player_1's left
    assert lay.get(other, "customer_counts")[2] == 1


def test_global_state_does_hold_hidden_information():
    env = waroong_wars_v1.parallel_env(players=3)
    env.reset(seed=2)
    before = env.state()
    env.engine.hands[1] = counts(meat=3)
    env.engine.invalidate_masks()
    assert not np.array_equal(before, env.state())
    assert env.state_space.contains(env.state())


def test_per_player_fields_are_in_relative_seat_order():
    env = waroong_wars_v1.parallel_env(players=4)
    env.reset(seed=0)
    eng = cooking_engine(4, turn=3)
    env.engine = eng
    eng.tokens = [0, 1, 2, 3]
    lay = env.encoder.layout
    obs = env.observe("player_2")["observation"]
    assert list(lay.get(obs, "tokens")) == [2, 3, 0, 1]
    assert list(lay.get(obs, "active")) == [0, 1, 0, 0]


def test_pending_theft_is_public_and_the_target_is_told_to_answer():
    env = waroong_wars_v1.parallel_env(players=3)
    env.reset(seed=0)
    eng = cooking_engine(3)
    env.engine = eng
    eng.customers[0] = customer_counts(maling=1)
    eng.hands[2] = counts(rice=1)
    eng.invalidate_masks()
    act(eng, 0, ix(eng).maling0 + 1)
    lay = env.encoder.layout
    target = env.observe("player_2")
    assert list(lay.get(target["observation"], "pending_target")) == [1, 0, 0]
    assert list(lay.get(target["observation"], "pending_attacker")) == [0, 1, 0]
    assert list(lay.get(target["observation"], "pending_theft")) == [1, 0]
    assert target["action_mask"][ix(eng).respond0] == 1
    assert list(lay.get(env.observe("player_1")["observation"], "pending_target")) == [0, 1, 0]


def test_no_leak_while_a_theft_awaits_its_answer():
    env = waroong_wars_v1.parallel_env(players=4, character_mode=True)
    env.reset(seed=0)
    eng = cooking_engine(4, character_mode=True)
    env.engine = eng
    eng.customers = [customer_counts(perayu=1, foodies=1), customer_counts(hansip=1, biduanita=1),
                     customer_counts(preman=2), customer_counts()]
    eng.hands = [counts(rice=2), counts(meat=1, spice=2), counts(unique=3), counts(kerupuk=1)]
    eng.invalidate_masks()
    act(eng, 0, ix(eng).perayu0)  # on player_1
    rng = make_rng(3)
    for viewer, agent in enumerate(env.possible_agents):
        before = env.observe(agent)
        saved = copy.deepcopy(eng)  # a hand-made state the snapshot checks rightly refuse
        _scramble_hidden(eng, viewer, rng)
        after = env.observe(agent)
        np.testing.assert_array_equal(before["observation"], after["observation"])
        np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
        env.engine = eng = saved
