"""v1: this turn's public events are in every player's observation (issue 14).

A player at the table sees which menus the player on turn cooks, which supplement goes onto which
menu, with whom and how many cards a Mbok Bakul exchange swaps (not which cards: they pass from
hand to hand unseen), and whom a Maling / Perayu robbed or whose Hansip cancelled it (not which
card was stolen). Each test builds an explicit state, acts, and reads the named slices of
every player's observation; the events stay visible for the rest of the turn and are cleared when
the turn ends.
"""

from __future__ import annotations

import copy

import numpy as np

from envs import waroong_wars_v1
from envs.core.seeding import make_rng
from tests.waroong_wars.helpers import (CAT, SUPS, act, cook_action, cooking_engine, counts, customer_counts, ix,
                                        menu, set_display)
from tests.waroong_wars.test_observation import _scramble_hidden

SIX = ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Semanggi", "Rujak Soto"]
ND = len(CAT.dishes)


def _table(players: int, **opts):
    """An env whose engine is a fresh Cooking phase (seat 0 on turn) with the display ``SIX``."""
    env = waroong_wars_v1.parallel_env(players=players, **opts)
    env.reset(seed=0)
    eng = cooking_engine(players, **opts)
    set_display(eng, SIX)
    env.engine = eng
    return env, eng


def _field(env, agent: str, name: str) -> np.ndarray:
    return env.encoder.layout.get(env.observe(agent)["observation"], name)


def _dish(name: str) -> int:
    return CAT.menus[menu(name)].dish.index


def _supplement_grid(env, agent: str) -> np.ndarray:
    return _field(env, agent, "cooked_supplements").reshape(len(SUPS), ND)


def test_mbok_bakul_exchange_shows_its_target_and_size_to_every_player():
    env, eng = _table(4)
    a = ix(eng)
    eng.customers[0] = customer_counts(mbok_bakul=1)
    eng.hands[0] = counts(rice=2, kerupuk=1)
    eng.hands[2] = counts(meat=3)
    eng.invalidate_masks()
    for agent in env.possible_agents:
        assert not _field(env, agent, "mbok_exchanged").any()
    act(eng, 0, a.mbok(2, a.gives.index((0, 5))))  # rice + kerupuk to player_2 (2 seats to the left)
    assert eng.mbok_exchanges == [0, 0, 2, 0]
    # Relative seats: row k is the player k seats to the viewer's left; player_2 holds 2 in every view.
    expected = {"player_0": [0, 0, 2, 0], "player_1": [0, 2, 0, 0], "player_2": [2, 0, 0, 0],
                "player_3": [0, 0, 0, 2]}
    for agent, row in expected.items():
        assert list(_field(env, agent, "mbok_exchanged")) == row, agent
    assert env.state_space.contains(env.state())
    assert list(env.encoder.state_layout.get(env.state(), "mbok_exchanged")) == [0, 0, 2, 0]


def test_mbok_bakul_exchanges_add_up_over_the_turn_and_clear_when_it_ends():
    env, eng = _table(3)
    a = ix(eng)
    eng.customers[0] = customer_counts(mbok_bakul=2)
    eng.hands[0] = counts(rice=2, meat=1)
    eng.hands[1] = counts(spice=2)
    eng.hands[2] = counts(unique=2)
    eng.invalidate_masks()
    act(eng, 0, a.mbok(1, a.gives.index((0,))))  # 1 card with player_1
    act(eng, 0, a.mbok(2, a.gives.index((0, 2))))  # 2 cards with player_2
    assert list(_field(env, "player_1", "mbok_exchanged")) == [1, 2, 0]
    assert list(_field(env, "player_0", "mbok_exchanged")) == [0, 1, 2]
    act(eng, 0, a.end_turn)
    for agent in env.possible_agents:
        assert not _field(env, agent, "mbok_exchanged").any(), agent
    assert eng.mbok_exchanges == [0, 0, 0]


def test_mbok_bakul_never_shows_which_cards_moved():
    """Two exchanges of one size with one target, differing only in the cards given and taken, look the
    same to a third player; and scrambling every card a viewer cannot see changes nothing."""
    views = []
    for give in ((0,), (2,)):  # give a rice or a meat card
        env, eng = _table(3)
        a = ix(eng)
        eng.customers[0] = customer_counts(mbok_bakul=1)
        eng.hands[0] = counts(rice=1, meat=1)
        eng.hands[1] = counts(spice=1, unique=1)
        eng.invalidate_masks()
        act(eng, 0, a.mbok(1, a.gives.index(give)))
        views.append(env.observe("player_2")["observation"])
        rng = make_rng(7)
        for viewer, agent in enumerate(env.possible_agents):
            before = env.observe(agent)
            saved = copy.deepcopy(eng)
            _scramble_hidden(eng, viewer, rng)
            after = env.observe(agent)
            np.testing.assert_array_equal(before["observation"], after["observation"], err_msg=agent)
            np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
            env.engine = eng = saved
        assert list(_field(env, "player_2", "mbok_exchanged")) == [0, 0, 1]  # not vacuous
    np.testing.assert_array_equal(views[0], views[1])


def test_supplement_added_shows_which_one_and_to_which_menu_for_every_player():
    env, eng = _table(3)
    eng.hands[0] = counts(rice=2, vegetable=2, unique=1, kerupuk=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 2, supplement="kerupuk"))  # Lontong Balap + Kerupuk Puli
    act(eng, 0, cook_action(eng, eng.display.index(menu("Nasi Pecel"))))  # no supplement
    for agent in env.possible_agents:
        grid = _supplement_grid(env, agent)
        assert grid.sum() == 1 and grid[SUPS.index("kerupuk"), _dish("Lontong Balap")] == 1, agent
    assert eng.cooked_supplements == [1 + SUPS.index("kerupuk"), 0]


def test_menus_cooked_this_turn_are_shown_to_every_player_and_clear_when_the_turn_ends():
    env, eng = _table(3)
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, spice=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 0))  # Nasi Pecel
    act(eng, 0, cook_action(eng, eng.display.index(menu("Tempe Penyet"))))
    want = np.zeros(ND)
    want[_dish("Nasi Pecel")] = want[_dish("Tempe Penyet")] = 1
    for agent in env.possible_agents:
        np.testing.assert_array_equal(_field(env, agent, "cooked_dishes"), want, err_msg=agent)
        assert _field(env, agent, "cooked_this_turn") == 2
    act(eng, 0, ix(eng).end_turn)
    for agent in env.possible_agents:
        assert not _field(env, agent, "cooked_dishes").any() and not _field(env, agent, "cooked_supplements").any()


def test_two_copies_of_one_dish_count_two():
    env, eng = _table(3)
    set_display(eng, ["Nasi Pecel", "Nasi Pecel", "Lontong Balap", "Sate Klopo", "Semanggi", "Rujak Soto"])
    eng.hands[0] = counts(rice=2, vegetable=2)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 1))
    act(eng, 0, cook_action(eng, eng.display.index(menu("Nasi Pecel"))))
    assert _field(env, "player_2", "cooked_dishes")[_dish("Nasi Pecel")] == 2


def test_turn_events_clear_at_the_end_of_the_round_and_of_the_game():
    env, eng = _table(3)
    eng.first, eng.turns_taken, eng.turn = 1, 2, 0  # seat 0 cooks last this round
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, kerupuk=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 2, supplement="kerupuk"))
    assert _supplement_grid(env, "player_1").any()
    act(eng, 0, ix(eng).end_turn)  # Cleanup: the next round's Shopping phase
    assert eng.phase == "draft"
    for agent in env.possible_agents:
        assert not (_field(env, agent, "cooked_dishes").any() or _field(env, agent, "cooked_supplements").any()
                    or _field(env, agent, "mbok_exchanged").any() or _field(env, agent, "theft_results").any())
    assert env.engine.state_dict()["cooked_supplements"] == [] and eng.mbok_exchanges == [0, 0, 0]


def _played_until(players: int, wanted, seed: int = 0, **opts):
    """A seeded random legal game, stepped until ``wanted(engine)`` (None if it never happens)."""
    env = waroong_wars_v1.parallel_env(players=players, **opts)
    obs, _ = env.reset(seed=seed)
    rng = make_rng(seed)
    while env.agents:
        if wanted(env.engine):
            return env
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    return None


def test_turn_events_survive_a_snapshot_round_trip_in_play():
    for want in (lambda e: any(e.mbok_exchanges), lambda e: any(e.cooked_supplements),
                 lambda e: any(map(any, e.thefts))):
        env = next(e for e in (_played_until(4, want, seed) for seed in range(40)) if e is not None)
        eng = env.engine
        snap = env.snapshot()
        views = {a: env.observe(a)["observation"] for a in env.possible_agents}
        other = waroong_wars_v1.parallel_env(players=4)
        other.reset(seed=123)
        other.restore(snap)
        assert other.engine.state_dict() == eng.state_dict()
        for agent, obs in views.items():
            np.testing.assert_array_equal(other.observe(agent)["observation"], obs)


def _theft_table(ability: str, hansip: bool, target_hand=None):
    env, eng = _table(3)
    eng.customers[0] = customer_counts(**{ability: 1})
    eng.customers[2] = customer_counts(hansip=1, foodies=1) if hansip else customer_counts(foodies=1)
    eng.hands[2] = target_hand or counts(rice=1)
    eng.invalidate_masks()
    a = ix(eng)
    act(eng, 0, (a.maling0 if ability == "maling" else a.perayu0) + 1)  # on player_2
    return env, eng, a


def _theft_rows(env, agent: str) -> list[list[int]]:
    return _field(env, agent, "theft_results").reshape(3, 3).astype(int).tolist()


def test_a_theft_outcome_is_shown_to_every_player_and_clears_when_the_turn_ends():
    env, eng, a = _theft_table("maling", hansip=False)
    act(eng, 2, a.respond0)  # let it happen
    # player_2 is 2 seats left of player_0, 1 of player_1, 0 of itself: its row holds [1 ingredient, 0, 0].
    assert _theft_rows(env, "player_0") == [[0, 0, 0], [0, 0, 0], [1, 0, 0]]
    assert _theft_rows(env, "player_1") == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    assert _theft_rows(env, "player_2") == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    act(eng, 0, a.end_turn)
    for agent in env.possible_agents:
        assert not _field(env, agent, "theft_results").any(), agent


def test_perayu_stolen_and_hansip_cancellations_are_told_apart():
    env, eng, a = _theft_table("perayu", hansip=False)
    act(eng, 2, a.respond0)
    assert _theft_rows(env, "player_1")[1] == [0, 1, 0]  # a customer card stolen from player_2
    env, eng, a = _theft_table("perayu", hansip=True)
    act(eng, 2, a.respond0 + 1)  # Hansip
    assert _theft_rows(env, "player_1")[1] == [0, 0, 1]
    assert eng.thefts == [[0, 0, 0], [0, 0, 0], [0, 0, 1]]


def test_a_theft_never_shows_which_card_was_stolen():
    """Two Malings that steal different cards look the same to the third player."""
    views = []
    for hand in (counts(rice=1), counts(meat=1)):
        env, eng, a = _theft_table("maling", hansip=False, target_hand=hand)
        act(eng, 2, a.respond0)
        views.append(env.observe("player_1")["observation"])
    np.testing.assert_array_equal(views[0], views[1])
