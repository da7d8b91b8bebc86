"""Setting up and the Shopping phase (draft)."""

from __future__ import annotations

import numpy as np
import pytest

from envs import waroong_wars_v1
from envs.core.errors import ConfigError, IllegalActionError
from envs.waroong_wars.encoding import WaroongEncoder
from tests.waroong_wars.helpers import CAT, TYPES, act, counts, ix, new_engine


@pytest.mark.parametrize("players, deck", [(3, 18), (4, 24), (5, 30)])
def test_menu_deck_sizes_per_player_count(players, deck):
    eng = new_engine(players, seed=7)
    assert len(eng.display) == 6 and -1 not in eng.display
    assert len(eng.menu_deck) + len(eng.display) == deck
    assert len(set(eng.menu_deck) | set(eng.display)) == deck  # distinct cards; the rest stay in the box


def test_setup_shuffles_customers_and_picks_a_random_first_cook():
    firsts = {new_engine(4, seed=s).first for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    eng = new_engine(4, seed=1)
    assert sorted(eng.customer_deck) == sorted(CAT.customer_deck)
    assert eng.customer_deck != list(CAT.customer_deck)
    assert eng.token_supply == 18 and eng.go_boy_supply == 5 and eng.round == 1
    assert eng.characters == [-1] * 4


def test_character_mode_deals_distinct_characters_and_plain_mode_has_no_customers():
    eng = new_engine(5, seed=3, character_mode=True)
    assert sorted(eng.characters) == [0, 1, 2, 3, 4]
    plain = new_engine(3, seed=3, plain_mode=True)
    assert plain.customer_deck == [] and plain.characters == [-1] * 3


def test_plain_mode_excludes_character_mode():
    with pytest.raises(ConfigError, match="plain_mode=True .* cannot be combined with character_mode=True"):
        waroong_wars_v1.parallel_env(plain_mode=True, character_mode=True)
    with pytest.raises(ConfigError, match="render_viewer='player_4' is not at this table"):
        waroong_wars_v1.parallel_env(players=3, render_viewer="player_4")
    with pytest.raises(ConfigError, match="players=6"):
        waroong_wars_v1.parallel_env(players=6)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_each_round_deals_six_cards_to_each_player_from_all_39(players):
    eng = new_engine(players, seed=11)
    assert [sum(p) for p in eng.packs] == [6] * players
    dealt = np.sum(eng.packs, axis=0) + np.bincount(eng.ingredient_deck, minlength=len(TYPES))
    assert list(dealt) == [7, 7, 7, 7, 7, 1, 1, 1, 1]
    assert len(eng.ingredient_deck) == 39 - 6 * players


def test_draft_passes_left_and_picks_stay_hidden():
    eng = new_engine(3, seed=2)
    a = ix(eng)
    eng.packs = [counts(rice=6), counts(meat=6), counts(spice=6)]
    eng.invalidate_masks()
    enc = WaroongEncoder({**eng.config})
    obs_before = enc.observe(eng, "player_0")
    eng.step({"player_0": a.pick0 + 0, "player_1": a.pick0 + 2, "player_2": a.pick0 + 4})
    # Seat i passes to seat i + 1 (its left) and receives from seat i - 1 (its right).
    assert eng.packs == [counts(spice=5), counts(rice=5), counts(meat=5)]
    assert eng.hands == [counts(rice=1), counts(meat=1), counts(spice=1)]
    # The pick is face down: not in the owner's observation (hand zeros, not visible), only its size.
    obs = enc.observe(eng, "player_0")
    lay = enc.layout
    assert lay.get(obs, "hand_visible") == 0 and not lay.get(obs, "hand").any()
    assert lay.get(obs, "hand_sizes")[0] == 1
    assert list(lay.get(obs, "pack")) == counts(spice=5)
    assert list(lay.get(obs_before, "pack")) == counts(rice=6)


def test_no_memory_chef_shows_own_picks_during_the_draft():
    eng = new_engine(3, seed=2, no_memory_chef=True)
    a = ix(eng)
    eng.packs = [counts(rice=6), counts(meat=6), counts(spice=6)]
    eng.invalidate_masks()
    eng.step({"player_0": a.pick0 + 0, "player_1": a.pick0 + 2, "player_2": a.pick0 + 4})
    enc = WaroongEncoder({**eng.config})
    obs = enc.observe(eng, "player_0")
    assert enc.layout.get(obs, "hand_visible") == 1
    assert list(enc.layout.get(obs, "hand")) == counts(rice=1)
    assert eng.public_view("player_1").hand == tuple(counts(meat=1))


def test_a_player_who_picked_waits_for_the_others_and_a_drafter_must_pick():
    from envs.waroong_wars.rules import shopping

    eng = new_engine(3, seed=4)
    a = ix(eng)
    t0 = next(t for t, c in enumerate(eng.packs[0]) if c)
    t1 = next(t for t, c in enumerate(eng.packs[1]) if c)
    # Two players have picked, the third not yet (an explicit state: with legal actions every
    # drafter picks in the same tick, since a drafter's noop is not legal)
    shopping.pick(eng, 0, t0)
    shopping.pick(eng, 1, t1)
    eng.invalidate_masks()
    assert eng.picked == [True, True, False] and eng.pick_no == 0
    assert eng.legal_actions("player_0") == [0]
    assert "already picked" in eng.why_illegal("player_0", a.pick0 + t0)
    assert [sum(p) for p in eng.packs] == [5, 5, 6]  # nothing passed yet
    t2 = next(t for t, c in enumerate(eng.packs[2]) if c)
    assert eng.action_mask("player_2")[0] == 0  # a drafter who has not picked must pick: noop is refused
    with pytest.raises(IllegalActionError, match="must pick"):
        eng.step({"player_0": 0, "player_1": 0, "player_2": 0})
    assert eng.validate({"player_0": 0, "player_1": 0, "player_2": 0}, "noop")[0]["player_2"] == a.pick0 + t2
    eng.step({"player_0": 0, "player_1": 0, "player_2": a.pick0 + t2})
    assert eng.pick_no == 1 and eng.picked == [False] * 3


def test_only_cards_in_the_pack_can_be_picked():
    eng = new_engine(3, seed=5)
    a = ix(eng)
    eng.packs[0] = counts(rice=3, kerupuk=1, spice=2)
    eng.invalidate_masks()
    legal = eng.legal_actions("player_0")
    assert legal == [a.pick0 + TYPES.index(t) for t in ("rice", "spice", "kerupuk")]
    assert "holds no meat card" in eng.why_illegal("player_0", a.pick0 + TYPES.index("meat"))


def test_six_picks_end_the_draft_with_six_cards_each_the_last_one_automatic():
    eng = new_engine(4, seed=6)
    steps = 0
    while eng.phase == "draft":
        joint = {ag: eng.legal_actions(ag)[0] for ag in eng.agents}
        eng.step(joint)
        steps += 1
    assert steps == 5
    assert [sum(h) for h in eng.hands] == [6] * 4 and eng.pick_no == 6
    assert eng.phase == "cook" and eng.turn == eng.first
    assert all(sum(p) == 0 for p in eng.packs)
    total = np.sum(eng.hands, axis=0) + np.bincount(eng.ingredient_deck, minlength=len(TYPES))
    assert list(total) == [7, 7, 7, 7, 7, 1, 1, 1, 1]


def test_cleanup_collects_every_ingredient_and_passes_the_marker_left():
    eng = new_engine(3, seed=8)
    while eng.phase == "draft":
        eng.step({ag: eng.legal_actions(ag)[0] for ag in eng.agents})
    first = eng.first
    # Everyone ends the turn at once: the next round deals from all 39 cards again.
    for k in range(3):
        act(eng, (first + k) % 3, ix(eng).end_turn)
    assert eng.round == 2 and eng.phase == "draft"
    assert eng.first == (first + 1) % 3
    assert all(sum(h) == 0 for h in eng.hands) and [sum(p) for p in eng.packs] == [6] * 3
    assert len(eng.ingredient_deck) == 39 - 18
