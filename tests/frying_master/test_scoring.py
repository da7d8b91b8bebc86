"""Scoring as written: exact orders, disliked food, wrong food or amounts, the
Stir-Fry Modes' bonuses and ties, and the Gold Spatula award."""

from __future__ import annotations

import pytest

from envs.frying_master.rules.scoring import evaluate, gold_spatula_winners, missing, score_round
from tests.frying_master.helpers import CAT, P, counts

CAT_OF = [f.category for f in CAT.foods]
KUNG_PAO = CAT.plates[P("Kung Pao Chicken")]  # chicken + any vegetable + chili; dislikes onion; flavour 4


def _score(plate, foods, casual=False):
    return evaluate(plate, counts(*foods), CAT_OF, casual)


def test_exact_match_scores_the_flavour_value():
    s = _score(KUNG_PAO, ["chicken", "carrot", "chili"])
    assert s.valid and s.score == KUNG_PAO.flavour == 4 and s.disliked == 0


def test_disliked_ingredient_costs_one_point_each():
    s = _score(KUNG_PAO, ["chicken", "onion", "chili"])
    assert s.valid and s.disliked == 1 and s.score == 3
    fried_rice = CAT.plates[P("Fried Rice")]  # rice + any meat + any vegetable; dislikes fish, onion
    s = _score(fried_rice, ["rice", "fish", "onion"])
    assert s.valid and s.disliked == 2 and s.score == fried_rice.flavour - 2
    # each card: two onions on Buddha's Delight (three of any vegetable; dislikes onion) cost 2 points
    buddha = CAT.plates[P("Buddha's Delight")]
    s = _score(buddha, ["onion", "onion", "carrot"])
    assert s.valid and s.disliked == 2 and s.score == buddha.flavour - 2


def test_wrong_ingredient_scores_zero():
    s = _score(KUNG_PAO, ["chicken", "carrot", "garlic"])  # garlic where chili is required
    assert not s.valid and s.score == 0
    s = _score(KUNG_PAO, ["pork", "carrot", "chili"])  # pork where chicken is required
    assert not s.valid and s.score == 0
    s = _score(KUNG_PAO, ["chicken", "beef", "chili"])  # a meat in the "any vegetable" slot
    assert not s.valid and s.score == 0
    s = _score(KUNG_PAO, ["carrot", "chili"])  # the chicken missing, the rest right
    assert not s.valid and s.score == 0


def test_wrong_amount_scores_zero():
    assert _score(KUNG_PAO, ["chicken", "carrot", "chili", "beef"]).score == 0  # one too many
    assert _score(KUNG_PAO, ["chicken", "carrot", "chili", "carrot"]).score == 0  # two vegetables for one slot
    assert _score(KUNG_PAO, ["chicken", "chili"]).score == 0  # one missing
    sweet_sour = CAT.plates[P("Sweet and Sour Pork")]  # pork x2 + bell pepper
    assert _score(sweet_sour, ["pork", "pork", "bell_pepper"]).score == 4
    assert _score(sweet_sour, ["pork", "bell_pepper", "bell_pepper"]).score == 0


def test_casual_fry_ignores_specific_and_disliked_but_not_categories():
    s = _score(KUNG_PAO, ["pork", "onion", "garlic"], casual=True)
    assert s.valid and s.score == 4 and s.disliked == 0
    assert _score(KUNG_PAO, ["pork", "beef", "chili"], casual=True).score == 0  # two meats, no vegetable
    assert _score(KUNG_PAO, ["pork", "onion"], casual=True).score == 0


def test_missing_tells_what_is_left_or_that_the_plate_is_spoilt():
    spec, anyc = missing(KUNG_PAO, counts("chicken"), CAT_OF, False)
    assert sum(spec) == 1 and spec[CAT.food("chili").idx] == 1 and anyc[CAT.category("vegetable").idx] == 1
    assert missing(KUNG_PAO, counts("chicken", "beef"), CAT_OF, False) is None
    spec, anyc = missing(KUNG_PAO, counts("beef"), CAT_OF, True)
    assert sum(spec) == 0 and anyc == [0, 1, 0, 1]


def _completed(*orders):
    return [(P(name), counts(*foods)) for name, foods in orders]


STEAMED_FISH = ("Steamed Ginger Fish", ["fish", "ginger"])                      # meat type, 1 meat 1 spice, 3
SWEET_SOUR = ("Sweet and Sour Pork", ["pork", "pork", "bell_pepper"])         # meat type, 2 meat 1 veg, 4
CARROT_ONION = ("Carrot and Onion Stir-Fry", ["carrot", "onion"])             # vegetable type, 2 veg, 3
SOUP = ("Beef Vermicelli Soup", ["vermicelli", "beef"])                        # rice & noodles type, 3
SPICY_NOODLES = ("Spicy Noodles", ["noodles", "chili", "garlic"])             # rice & noodles, 2 spice, 4
WRONG_GRILL = ("Mixed Grill", ["beef", "pork", "chicken", "fish"])            # 4 meats on a 3-meat order: wrong


@pytest.mark.parametrize("mode, a_orders, b_orders, a_bonus, b_bonus", [
    ("meat", [SWEET_SOUR], [STEAMED_FISH], 3, 0),                 # 2 meat vs 1
    ("meat", [STEAMED_FISH], [SOUP], 3, 3),                       # tie 1-1: both
    ("meat", [WRONG_GRILL], [STEAMED_FISH], 0, 3),                # a wrong order's food does not count
    ("veggie", [CARROT_ONION], [SWEET_SOUR], 3, 0),               # 2 vegetables vs 1
    ("veggie", [SWEET_SOUR], [SWEET_SOUR], 3, 3),                 # tie
    ("veggie", [SOUP], [STEAMED_FISH], 0, 0),                     # nobody has any: no bonus
    ("rice_noodles", [SOUP, SPICY_NOODLES], [SOUP], 3, 0),
    ("rice_noodles", [SOUP], [SPICY_NOODLES], 3, 3),
    ("spicy", [SPICY_NOODLES], [STEAMED_FISH], 3, 0),              # 2 spice tiles vs 1
    ("spicy", [STEAMED_FISH], [STEAMED_FISH], 3, 3),
    ("mixed", [SWEET_SOUR, CARROT_ONION, SOUP], [SWEET_SOUR, CARROT_ONION], 3, 0),
    ("mixed", [STEAMED_FISH, CARROT_ONION, SPICY_NOODLES], [SOUP, CARROT_ONION, SWEET_SOUR], 3, 3),
    ("mixed", [WRONG_GRILL, CARROT_ONION, SOUP], [], 0, 0),       # the meat plate is wrong: no full set
    ("casual", [SWEET_SOUR], [SOUP], 0, 0),
    ("preorder", [SWEET_SOUR], [SOUP], 0, 0),
    ("teppanyaki", [SWEET_SOUR], [SOUP], 0, 0),
])
def test_every_mode_bonus_and_its_ties(mode, a_orders, b_orders, a_bonus, b_bonus):
    res = score_round(CAT, CAT.mode(mode), {"a": _completed(*a_orders), "b": _completed(*b_orders)})
    assert res["bonus"] == {"a": a_bonus, "b": b_bonus}
    assert res["total"]["a"] == res["base"]["a"] + a_bonus
    assert res["base"]["a"] == sum(r["score"] for r in res["orders"]["a"])


def test_round_scoring_lists_each_order_with_validity_and_disliked():
    res = score_round(CAT, CAT.mode("meat"), {
        "a": _completed(("Kung Pao Chicken", ["chicken", "onion", "chili"]), WRONG_GRILL),
        "b": []})
    assert res["orders"]["a"] == [
        {"plate": P("Kung Pao Chicken"), "valid": True, "score": 3, "disliked": 1},
        {"plate": P("Mixed Grill"), "valid": False, "score": 0, "disliked": 0}]
    assert res["base"] == {"a": 3, "b": 0} and res["completed"] == {"a": 2, "b": 0}


def test_gold_spatula_goes_to_the_top_scorer():
    assert gold_spatula_winners({"a": 10, "b": 7, "c": 9}, {"a": 3, "b": 5, "c": 6}) == ["a"]


def test_gold_spatula_tie_goes_to_more_completed_orders():
    assert gold_spatula_winners({"a": 10, "b": 10, "c": 9}, {"a": 3, "b": 4, "c": 6}) == ["b"]


def test_gold_spatula_tie_on_score_and_orders_gives_every_tied_player_one():
    assert gold_spatula_winners({"a": 10, "b": 10, "c": 10}, {"a": 4, "b": 4, "c": 3}) == ["a", "b"]


def test_wrong_orders_still_count_as_completed_for_the_gold_tie_break():
    res = score_round(CAT, CAT.mode("casual"), {
        "a": _completed(SOUP, WRONG_GRILL),   # 3 + 0 points, 2 orders
        "b": _completed(SOUP)})               # 3 points, 1 order
    assert res["total"] == {"a": 3, "b": 3} and res["gold"] == ["a"]
