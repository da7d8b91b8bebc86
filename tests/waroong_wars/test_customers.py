"""Every customer card: end-of-game values and abilities, Hansip answers, the customer deck."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.waroong_wars.helpers import (CAT, KIND, act, cook_action, cooking_engine, counts, customer_counts, ix,
                                        set_display)

SIX = ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Semanggi", "Rujak Soto"]


@pytest.mark.parametrize("kind, vp", [("primadona", 4), ("biduanita", 3), ("foodies", 2), ("boyband", 1),
                                      ("preman", -1), ("perayu", 1), ("maling", 1), ("hansip", 1),
                                      ("mbok_bakul", 1), ("tukang_beras", 1), ("tukang_bumbu", 1)])
def test_unused_customers_score_at_the_end(kind, vp):
    eng = cooking_engine(3)
    eng.customers[0] = customer_counts(**{kind: 2})
    assert eng.score(0) == 2 * vp
    assert eng.outcome()["breakdown"]["player_0"]["customers"] == 2 * vp


def _theft_engine(ability: str, target_hansip: bool):
    eng = cooking_engine(3)
    eng.customers[0] = customer_counts(**{ability: 1})
    eng.customers[1] = customer_counts(foodies=1, hansip=1 if target_hansip else 0)
    eng.hands[1] = counts(rice=2)
    eng.invalidate_masks()
    return eng


def test_perayu_steals_a_random_customer_card_from_the_chosen_player():
    stolen = Counter()
    for seed in range(40):
        eng = cooking_engine(3, seed=seed)
        eng.customers[0] = customer_counts(perayu=1)
        eng.customers[1] = customer_counts(foodies=1, preman=1)
        eng.invalidate_masks()
        a = ix(eng)
        act(eng, 0, a.perayu0 + 0)  # target 1 seat to the left: player_1
        assert eng.pending == {"kind": "theft", "ability": "perayu", "attacker": 0, "target": 1}
        assert eng.legal_actions("player_0") == [0]
        assert eng.legal_actions("player_1") == [a.respond0]  # asked even without a Hansip; may only allow
        act(eng, 1, a.respond0)
        assert eng.pending is None and eng.customer_discard[KIND["perayu"]] == 1
        assert sum(eng.customers[0]) == 1 and sum(eng.customers[1]) == 1
        stolen[next(k for k, c in enumerate(eng.customers[0]) if c)] += 1
    assert set(stolen) == {KIND["foodies"], KIND["preman"]}


def test_maling_steals_a_random_ingredient_card():
    types = Counter()
    for seed in range(40):
        eng = cooking_engine(3, seed=seed)
        eng.customers[0] = customer_counts(maling=1)
        eng.hands[2] = counts(rice=1, spice=1)
        eng.invalidate_masks()
        a = ix(eng)
        assert a.maling0 + 0 not in eng.legal_actions("player_0")  # player_1 holds no ingredient card
        act(eng, 0, a.maling0 + 1)  # player_2
        act(eng, 2, a.respond0)
        assert sum(eng.hands[0]) == 1 and sum(eng.hands[2]) == 1
        types[eng.hands[0].index(1)] += 1
    assert set(types) == {0, 4}


@pytest.mark.parametrize("ability", ["perayu", "maling"])
def test_hansip_cancels_maling_and_perayu(ability):
    eng = _theft_engine(ability, target_hansip=True)
    a = ix(eng)
    start = a.perayu0 if ability == "perayu" else a.maling0
    act(eng, 0, start)
    assert sorted(eng.legal_actions("player_1")) == [a.respond0, a.respond0 + 1]
    act(eng, 1, a.respond0 + 1)
    assert eng.customers[1] == customer_counts(foodies=1) and eng.hands[1] == counts(rice=2)
    assert eng.customers[0] == customer_counts() and eng.hands[0] == counts()
    assert eng.customer_discard[KIND["hansip"]] == 1 and eng.customer_discard[KIND[ability]] == 1
    assert eng.pending is None and eng.turn == 0  # the attacker's turn goes on


@pytest.mark.parametrize("ability", ["perayu", "maling"])
def test_hansip_holder_may_let_it_happen(ability):
    eng = _theft_engine(ability, target_hansip=True)
    a = ix(eng)
    act(eng, 0, a.perayu0 if ability == "perayu" else a.maling0)
    act(eng, 1, a.respond0)
    if ability == "maling":
        assert eng.hands[0] == counts(rice=1) and eng.hands[1] == counts(rice=1)
    else:
        assert sum(eng.customers[0]) == 1 and sum(eng.customers[1]) == 1


def test_answering_without_a_hansip_is_refused_with_a_reason():
    eng = _theft_engine("maling", target_hansip=False)
    a = ix(eng)
    act(eng, 0, a.maling0)
    assert "hold no Hansip" in eng.why_illegal("player_1", a.respond0 + 1)
    assert "waiting for player_1" in eng.why_illegal("player_0", a.end_turn)


def test_mbok_bakul_exchanges_chosen_cards_for_random_ones():
    eng = cooking_engine(3)
    a = ix(eng)
    eng.customers[0] = customer_counts(mbok_bakul=1)
    eng.hands[0] = counts(rice=2, kerupuk=1)
    eng.hands[1] = counts(meat=3)
    eng.invalidate_masks()
    give = a.gives.index((0, 5))  # rice + kerupuk
    act(eng, 0, a.mbok(1, give))
    assert eng.hands[0] == counts(rice=1, meat=2)
    assert eng.hands[1] == counts(meat=1, rice=1, kerupuk=1)
    assert eng.customers[0] == customer_counts() and eng.customer_discard[KIND["mbok_bakul"]] == 1
    assert eng.pending is None  # no Hansip answer: Hansip only stops Maling and Perayu


def test_mbok_bakul_needs_the_cards_on_both_sides():
    eng = cooking_engine(3)
    a = ix(eng)
    eng.customers[0] = customer_counts(mbok_bakul=1)
    eng.hands[0] = counts(rice=1)
    eng.hands[1] = counts(meat=1)
    eng.invalidate_masks()
    assert "too few ['rice']" in eng.why_illegal("player_0", a.mbok(1, a.gives.index((0, 0))))
    eng.hands[0] = counts(rice=2)
    eng.invalidate_masks()
    assert "fewer than the 2" in eng.why_illegal("player_0", a.mbok(1, a.gives.index((0, 0))))
    assert a.mbok(1, a.gives.index((0,))) in eng.legal_actions("player_0")


def test_customers_are_used_only_in_ones_own_cooking_turn():
    eng = cooking_engine(3)
    eng.customers[1] = customer_counts(maling=1, perayu=1, mbok_bakul=1)
    eng.hands[0] = counts(rice=2)
    eng.customers[0] = customer_counts(foodies=1)
    eng.invalidate_masks()
    assert eng.legal_actions("player_1") == [0]
    assert "player_0's cooking turn" in eng.why_illegal("player_1", ix(eng).maling0)


def test_one_customer_per_cooked_menu_and_the_discards_are_reshuffled_when_the_deck_runs_out():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=2, vegetable=2, unique=1, spice=1)
    eng.customer_deck = []
    eng.customer_discard = customer_counts(boyband=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 0))
    assert eng.customers[0] == customer_counts(boyband=1) and sum(eng.customer_discard) == 0
    act(eng, 0, cook_action(eng, eng.display.index(next(m for m in eng.display if CAT.menus[m].name == "Tempe Penyet"))))
    assert eng.customers[0] == customer_counts(boyband=1)  # deck and discards empty: nothing to draw
    assert len(eng.piles[0]) == 2


def test_plain_mode_draws_no_customers_and_offers_no_abilities():
    eng = cooking_engine(3, plain_mode=True)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 0))
    assert sum(eng.customers[0]) == 0 and eng.customer_deck == []
    assert "Plain Mode" in eng.why_illegal("player_0", ix(eng).maling0)
