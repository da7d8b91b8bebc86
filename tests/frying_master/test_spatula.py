"""What a spatula (and the plate hand) can do in a tick."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.engine import NOOP
from envs.core.errors import IllegalActionError
from tests.frying_master.helpers import C, CAT, F, P, act, counts, in_play, step, table_totals


def test_flip_turns_the_hidden_next_face_down_card_of_a_category_image_up():
    eng = in_play(table_down=("pork", "beef", "carrot"))
    step(eng, chef_0=act(eng, "flip", spatula=0, category="meat"))
    assert eng.table.up[F("beef")] == 1 and eng.table.down[C("meat")] == [F("pork")]
    assert eng.table.down[C("vegetable")] == [F("carrot")]


def test_flip_needs_a_face_down_card_of_that_category():
    eng = in_play(table_up={"rice": 1}, table_down=("beef",))
    assert not eng.action_mask("chef_0")[act(eng, "flip", spatula=0, category="rice_noodles")]
    with pytest.raises(IllegalActionError, match="no face-down rice_noodles card"):
        step(eng, chef_0=act(eng, "flip", spatula=0, category="rice_noodles"))


def test_stir_rerandomises_a_few_cards_and_keeps_every_card_on_the_table():
    changed = []
    for seed in range(20):
        eng = in_play(seed, table_up={"beef": 3, "rice": 3}, table_down=("pork",) * 3 + ("carrot",) * 3)
        before_up = list(eng.table.up)
        totals = table_totals(eng)
        step(eng, chef_0=act(eng, "stir", spatula=0))
        assert table_totals(eng) == totals
        moved = sum(abs(a - b) for a, b in zip(eng.table.up, before_up))
        assert moved <= CAT.stir_cards
        changed.append(moved)
    assert max(changed) > 0 and min(changed) < CAT.stir_cards


def test_lift_only_an_image_up_card_and_it_keeps_the_spatula_busy_for_two_ticks():
    eng = in_play(table_up={"beef": 2}, table_down=("pork",), plates={"chef_0": "Sweet and Sour Pork"})
    assert not eng.action_mask("chef_0")[act(eng, "lift", spatula=0, food="pork")]  # face-down: cannot be targeted
    step(eng, chef_0=act(eng, "lift", spatula=0, food="beef"))
    assert eng.loads["chef_0"][0] == [F("beef")] and eng.table.up[F("beef")] == 1
    assert eng.busy["chef_0"][0] == 1
    mask = eng.action_mask("chef_0")
    assert not mask[act(eng, "lift", spatula=0, food="beef")] and not mask[act(eng, "unload", spatula=0)]
    assert mask[act(eng, "give_up")]  # the plate hand is free
    with pytest.raises(IllegalActionError, match="busy"):
        step(eng, chef_0=act(eng, "lift", spatula=0, food="beef"))
    step(eng)
    assert eng.busy["chef_0"][0] == 0 and eng.action_mask("chef_0")[act(eng, "lift", spatula=0, food="beef")]


def test_spatula_capacity_is_three_cards():
    eng = in_play(table_up={"rice": 5})
    eng.loads["chef_0"][0] = [F("rice")] * CAT.spatula_capacity
    eng.invalidate_masks()
    with pytest.raises(IllegalActionError, match="spatula 0 is full"):
        step(eng, chef_0=act(eng, "lift", spatula=0, food="rice"))


def test_unload_sets_the_whole_load_on_ones_own_plate():
    eng = in_play(plates={"chef_0": "Kung Pao Chicken", "chef_1": "Fried Rice"})
    eng.loads["chef_0"][0] = [F("chicken"), F("carrot")]
    eng.invalidate_masks()
    step(eng, chef_0=act(eng, "unload", spatula=0))
    assert eng.plate_cards["chef_0"] == counts("chicken", "carrot") and eng.loads["chef_0"][0] == []
    assert eng.plate_cards["chef_1"] == counts()


def test_unload_needs_a_plate_and_tip_returns_the_load_to_the_table():
    eng = in_play(seed=3)
    eng.loads["chef_0"][0] = [F("chicken"), F("carrot")]
    eng.invalidate_masks()
    with pytest.raises(IllegalActionError, match="no order plate"):
        step(eng, chef_0=act(eng, "unload", spatula=0))
    step(eng, chef_0=act(eng, "tip", spatula=0))
    assert eng.loads["chef_0"][0] == [] and table_totals(eng) == counts("chicken", "carrot")


def test_serve_moves_plate_and_food_to_the_completed_orders():
    eng = in_play(plates={"chef_0": "Kung Pao Chicken"})
    eng.plate_cards["chef_0"] = counts("chicken", "carrot", "chili")
    eng.invalidate_masks()
    step(eng, chef_0=act(eng, "serve"))
    assert eng.completed["chef_0"] == [(P("Kung Pao Chicken"), counts("chicken", "carrot", "chili"))]
    assert eng.plates["chef_0"] is None and eng.plate_cards["chef_0"] == counts()


def test_an_empty_plate_cannot_be_served():
    eng = in_play(plates={"chef_0": "Kung Pao Chicken"})
    with pytest.raises(IllegalActionError, match="holds no food"):
        step(eng, chef_0=act(eng, "serve"))


def test_a_plate_short_of_the_orders_number_of_cards_cannot_be_served():
    """"Once complete, the player shouts 'Order's up!'": Kung Pao Chicken needs 3 food cards;
    with 2 (or 4) on the plate its serve action is masked and refused with a reason."""
    for held in (("chicken", "chili"), ("chicken", "chili", "carrot", "onion")):
        eng = in_play(plates={"chef_0": "Kung Pao Chicken"})
        eng.plate_cards["chef_0"] = counts(*held)
        eng.invalidate_masks()
        assert eng.action_mask("chef_0")[act(eng, "serve")] == 0
        assert eng.action_mask("chef_0")[act(eng, "give_up")] == 1
        why = eng.why_illegal("chef_0", act(eng, "serve"))
        assert f"holds {len(held)} food card(s)" in why and "needs 3" in why
        with pytest.raises(IllegalActionError, match="needs 3"):
            step(eng, chef_0=act(eng, "serve"))
        assert eng.completed["chef_0"] == [] and eng.plates["chef_0"] == P("Kung Pao Chicken")


def test_a_plate_with_the_orders_number_of_wrong_foods_is_served_and_scores_zero():
    """The foods may still be wrong, as at the table: the plate is served and scores 0."""
    eng = in_play(mode="mixed", plates={"chef_0": "Kung Pao Chicken"})
    eng.plate_cards["chef_0"] = counts("beef", "rice", "carrot")
    eng.invalidate_masks()
    assert eng.action_mask("chef_0")[act(eng, "serve")] == 1
    step(eng, chef_0=act(eng, "serve"))
    assert eng.completed["chef_0"] == [(P("Kung Pao Chicken"), counts("beef", "rice", "carrot"))]


def test_the_v0_serve_rule_option_serves_any_plate_with_food():
    """serve_rule='any_food' keeps the v0 rule: one card is enough for "Order's up!"."""
    eng = in_play(serve_rule="any_food", plates={"chef_0": "Kung Pao Chicken"})
    eng.plate_cards["chef_0"] = counts("chicken")
    eng.invalidate_masks()
    assert eng.action_mask("chef_0")[act(eng, "serve")] == 1
    step(eng, chef_0=act(eng, "serve"))
    assert eng.completed["chef_0"] == [(P("Kung Pao Chicken"), counts("chicken"))]
    eng.plates["chef_0"] = P("Fried Rice")
    eng.invalidate_masks()
    with pytest.raises(IllegalActionError, match="holds no food"):
        step(eng, chef_0=act(eng, "serve"))


def test_give_up_returns_the_food_to_the_table_and_discards_the_plate():
    eng = in_play(table_up={"rice": 1}, plates={"chef_0": "Kung Pao Chicken"})
    eng.plate_cards["chef_0"] = counts("chicken", "carrot")
    eng.invalidate_masks()
    step(eng, chef_0=act(eng, "give_up"))
    assert eng.plates["chef_0"] is None and eng.discard == [P("Kung Pao Chicken")]
    assert table_totals(eng) == counts("chicken", "carrot", "rice")
    mask = eng.action_mask("chef_0")
    assert mask[act(eng, "draw", pile="A")] and mask[act(eng, "draw", pile="B")]


def test_draw_the_next_plate_from_either_pile():
    eng = in_play()
    top_a, top_b = eng.piles[0].peek(), eng.piles[1].peek()
    step(eng, chef_0=act(eng, "draw", pile="B"), chef_1=act(eng, "draw", pile="A"))
    assert eng.plates["chef_0"] == top_b and eng.plates["chef_1"] == top_a
    with pytest.raises(IllegalActionError, match="already hold an order"):
        step(eng, chef_0=act(eng, "draw", pile="A"))


def test_empty_piles_are_refilled_from_the_given_up_plates():
    eng = in_play(plates={"chef_0": "Fried Rice"})
    eng.piles[0].cards, eng.piles[1].cards = [], [P("Chow Mein")]
    eng.invalidate_masks()
    assert not eng.action_mask("chef_1")[act(eng, "draw", pile="A")]
    step(eng, chef_1=act(eng, "draw", pile="B"))
    assert not eng.piles[0] and not eng.piles[1]
    step(eng, chef_0=act(eng, "give_up"))
    assert eng.piles[0].cards == [P("Fried Rice")] and eng.discard == []


def test_simultaneous_grab_of_one_card_goes_to_one_chef_by_the_seeded_order():
    got = set()
    for seed in range(30):
        eng = in_play(seed, table_up={"beef": 1})
        lift = act(eng, "lift", spatula=0, food="beef")
        res = step(eng, chef_0=lift, chef_1=lift)
        assert len(res.blocked) == 1
        loser = next(iter(res.blocked))
        winner = "chef_1" if loser == "chef_0" else "chef_0"
        assert "pre-empted" in res.blocked[loser] and "no image-up beef" in res.blocked[loser]
        assert eng.loads[winner][0] == [F("beef")] and eng.loads[loser][0] == []
        assert eng.busy[loser][0] == 0  # a blocked action costs no spatula time
        assert res.order.index(winner) < res.order.index(loser)
        got.add(winner)
    assert got == {"chef_0", "chef_1"}


def test_nobody_takes_food_from_another_players_plate_or_spatula():
    eng = in_play(plates={"chef_0": "Sweet and Sour Pork", "chef_1": "Garlic Shrimp"}, table_down=("garlic",))
    eng.plate_cards["chef_1"] = counts("shrimp", "shrimp")
    eng.loads["chef_1"][0] = [F("garlic")]
    eng.invalidate_masks()
    with pytest.raises(IllegalActionError, match="no image-up shrimp card on the table"):
        step(eng, chef_0=act(eng, "lift", spatula=0, food="shrimp"))
    # No action of chef_0, whatever it is, ever changes chef_1's plate or spatula.
    rng = np.random.default_rng(0)
    for _ in range(300):
        legal = eng.legal_actions("chef_0")
        step(eng, chef_0=int(rng.choice(legal)))
        if eng.phase != "play":
            break
        assert eng.plate_cards["chef_1"] == counts("shrimp", "shrimp") and eng.loads["chef_1"][0] == [F("garlic")]
        assert eng.plates["chef_1"] == P("Garlic Shrimp")


def test_no_action_refers_to_another_player():
    eng = in_play(players=4, mode="drawn")
    for i in range(eng.actions.n):
        _, params = eng.actions.decode(i)
        assert set(params) <= {"pile", "spatula", "category", "food"}


def test_two_spatula_teppanyaki_lifts_every_tick_by_alternating_hands():
    eng = in_play(table_up={"rice": 4}, mode="teppanyaki", plates={"chef_0": "Yangzhou Fried Rice"})
    assert eng.spatulas == 2
    step(eng, chef_0=act(eng, "lift", spatula=0, food="rice"))
    mask = eng.action_mask("chef_0")
    assert not mask[act(eng, "lift", spatula=0, food="rice")] and mask[act(eng, "lift", spatula=1, food="rice")]
    step(eng, chef_0=act(eng, "lift", spatula=1, food="rice"))
    step(eng, chef_0=act(eng, "lift", spatula=0, food="rice"))
    assert eng.loads["chef_0"] == [[F("rice"), F("rice")], [F("rice")]]
    assert eng.table.up[F("rice")] == 1
    step(eng, chef_0=act(eng, "unload", spatula=1))
    assert eng.plate_cards["chef_0"][F("rice")] == 1 and eng.loads["chef_0"][1] == []


def test_two_spatulas_carry_twice_the_capacity():
    eng = in_play(table_up={"rice": 5, "beef": 2}, mode="casual", teppanyaki=True)
    eng.loads["chef_0"] = [[F("rice")] * 3, [F("rice")] * 2]
    eng.invalidate_masks()
    assert eng.action_mask("chef_0")[act(eng, "lift", spatula=1, food="beef")]
    assert not eng.action_mask("chef_0")[act(eng, "lift", spatula=0, food="beef")]


def test_the_second_spatula_is_out_of_play_in_a_one_spatula_round():
    eng = in_play(table_up={"rice": 2}, mode="drawn")
    eng.spatulas = 1
    eng.mode = CAT.mode("mixed").idx
    eng.invalidate_masks()
    with pytest.raises(IllegalActionError, match="spatula 1 is not in use this round"):
        step(eng, chef_0=act(eng, "lift", spatula=1, food="rice"))


def test_any_chef_may_wait_in_any_state():
    eng = in_play(plates={"chef_0": "Fried Rice"})
    for _ in range(3):
        res = step(eng, chef_0=NOOP, chef_1=NOOP)
        assert not res.blocked
    assert eng.play_tick == 3
