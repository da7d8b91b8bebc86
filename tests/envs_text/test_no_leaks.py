"""A player's text view never shows what that player could not see at the table.

The games' own hidden-information tests (tests/<game>/) change only hidden
information and assert the observation is unchanged; here the same changes
(their helpers) must leave every player's text view unchanged, and a change of
what a player does see must change that player's view. The view after a change
is built from a fresh engine (``from_dict`` of the changed state) where the
changed state is a valid snapshot, so no cache can make the comparison pass
(Waroong Wars builds its public view anew on every call).
"""

from __future__ import annotations

import numpy as np

import envs
from envs.core.seeding import make_rng
from envs.core.text import text_module
from tests.envs_text.helpers import sampled_states


def _env_id(game: str) -> str:
    return next(e for e in envs.available_env_ids() if e.rsplit("_v", 1)[0] == game)


def _configs(game: str):
    return envs.test_configurations(_env_id(game))


def _fresh(eng):
    return type(eng).from_dict(eng.to_dict())


# --------------------------------------------------------------------------- Wok Star
def test_wok_star_views_ignore_deck_order_and_face_down_cards():
    from envs.wok_star.cards import is_event_card
    from tests.wok_star.helpers import DATA
    from tests.wok_star.test_env import _hidden_variants

    view = text_module(_env_id("wok_star")).view
    rng = np.random.default_rng(0)
    checked = changed = 0
    for k, cfg in enumerate(_configs("wok_star")):
        for env in sampled_states(cfg.parallel_env(), seed=k, ticks=(0, 5, 20, 60)):
            eng = env.unwrapped.engine
            if eng.coupons and not any(not is_event_card(c) and DATA.customers[c].coupon for c in eng.deck):
                eng.coupons = list(eng.coupons)
                eng.deck.insert(0, eng.coupons.pop())  # an advertised coupon, face down in the deck
                eng.invalidate_masks()
            twin = _fresh(_hidden_variants(eng, rng))
            changed += twin.to_dict() != eng.to_dict()
            for agent in env.possible_agents:
                assert view(twin, agent) == view(eng, agent), (cfg.name, agent)
                checked += 1
    assert checked > 300 and changed > 50, (checked, changed)


def test_wok_star_view_changes_with_what_the_chef_sees():
    from tests.wok_star.helpers import open_table

    env_id = _env_id("wok_star")
    view = text_module(env_id).view
    env = envs.get_env_module(env_id).parallel_env(players=3)
    env.reset(seed=0)
    eng = env.unwrapped.engine
    open_table(eng, dice={0: [1, 2]})
    eng.invalidate_masks()  # drops the public-table cache (an open table on day 0 is no valid snapshot)
    before = {a: view(eng, a) for a in env.possible_agents}
    open_table(eng, dice={0: [6, 6]})
    eng.invalidate_masks()
    after = {a: view(eng, a) for a in env.possible_agents}
    assert all(before[a] != after[a] for a in env.possible_agents)  # the table is public: everyone sees it
    assert "Your unused dice: 6 6" in after["chef_0"] and "Your unused dice: 6 6" not in after["chef_1"]
    assert len(set(after.values())) == 3  # each view names its own seat


# --------------------------------------------------------------------------- Frying Master
def test_frying_master_views_ignore_face_down_foods_pile_order_and_the_generator():
    from tests.frying_master.test_observation import _hide_differently

    view = text_module(_env_id("frying_master")).view
    checked = changed = 0
    for k, cfg in enumerate(_configs("frying_master")):
        for env in sampled_states(cfg.parallel_env(), seed=k, ticks=(0, 8, 30, 90)):
            eng = env.unwrapped.engine
            before = {a: view(_fresh(eng), a) for a in env.possible_agents}
            snap = eng.to_dict()
            _hide_differently(eng, np.random.default_rng(k))
            changed += eng.to_dict() != snap
            scrambled = _fresh(eng)
            for agent in env.possible_agents:
                assert view(scrambled, agent) == before[agent], (cfg.name, agent)
                checked += 1
    assert checked > 300 and changed > 50, (checked, changed)


def test_frying_master_view_changes_when_a_card_turns_image_up():
    from tests.frying_master.helpers import C

    env_id = _env_id("frying_master")
    view = text_module(env_id).view
    env = envs.get_env_module(env_id).parallel_env(players=2, mode="mixed")
    env.reset(seed=1)
    eng = env.unwrapped.engine
    before = view(_fresh(eng), "chef_0")
    eng.table.flip(C("meat"))
    eng.invalidate_masks()
    assert view(_fresh(eng), "chef_0") != before


# --------------------------------------------------------------------------- Waroong Wars
def test_waroong_wars_views_ignore_other_hands_face_down_picks_and_decks():
    from tests.waroong_wars.test_observation import _scramble_hidden

    view = text_module(_env_id("waroong_wars")).view
    rng = make_rng(5)
    checked = changed = 0
    phases = set()
    for k, cfg in enumerate(_configs("waroong_wars")):
        for env in sampled_states(cfg.parallel_env(), seed=k, ticks=(0, 2, 6, 12, 25, 50)):
            eng = env.unwrapped.engine
            phases.add(eng.phase)
            snap = eng.to_dict()
            for viewer, agent in enumerate(env.possible_agents):
                before = view(eng, agent)
                _scramble_hidden(eng, viewer, rng)  # (its counts need not add up: no from_dict; the
                changed += eng.to_dict() != snap    # Waroong view is built anew on every call, no cache)
                assert view(eng, agent) == before, (cfg.name, agent, eng.phase)
                env.unwrapped.engine = eng = type(eng).from_dict(snap)
                checked += 1
    assert {"draft", "cook"} <= phases
    assert checked > 500 and changed > 200, (checked, changed)


def test_waroong_wars_view_shows_own_cards_and_only_sizes_of_others():
    from tests.waroong_wars.helpers import cooking_engine, counts, customer_counts

    view = text_module(_env_id("waroong_wars")).view
    a = cooking_engine(3)
    a.hands[0] = counts(rice=2)
    a.customers[0] = customer_counts(foodies=1)
    b = cooking_engine(3)
    b.hands[0] = counts(meat=2)
    b.customers[0] = customer_counts(foodies=1)
    a.invalidate_masks()
    b.invalidate_masks()
    assert view(a, "player_0") != view(b, "player_0")  # your own hand: you see it
    assert "Your hand: Rice x2" in view(a, "player_0") and "Your hand: Meat x2" in view(b, "player_0")
    for other in ("player_1", "player_2"):  # the others see two cards, not which
        assert view(a, other) == view(b, other)
        assert "player_0: no character; 2 ingredient card(s)" in view(a, other)
