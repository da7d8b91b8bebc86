"""The Cooking phase: paying, the display, supplements and tokens, Go Boy!, turns, Constraint Mode."""

from __future__ import annotations

import pytest

from envs.core.errors import IllegalActionError

from tests.waroong_wars.helpers import (CATS, KIND, act, cook_action, cooking_engine, counts, customer_counts, ix,
                                        legal_names, menu, set_display)

SIX = ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Semanggi", "Rujak Soto"]


def test_cooking_pays_with_matching_cards_takes_the_menu_and_draws_a_customer():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, meat=1)
    deck_before = len(eng.customer_deck)
    top = eng.customer_deck[-1]
    act(eng, 0, cook_action(eng, 2))
    assert eng.piles[0] == [menu("Lontong Balap")]
    assert eng.hands[0] == counts(meat=1)
    assert len(eng.customer_deck) == deck_before - 1 and eng.customers[0][top] == 1
    assert eng.score(0) == 3 + eng.cat.customers[top].end_vp
    assert eng.turn == 0  # still cooking: any number of menus per turn


def test_cannot_cook_without_the_required_cards():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1)
    assert cook_action(eng, 2) not in eng.legal_actions("player_0")
    assert "Unique missing 1 with 0 Tukang" in eng.why_illegal("player_0", cook_action(eng, 2))
    assert cook_action(eng, 0) in eng.legal_actions("player_0")  # Nasi Pecel: R1 V1


def test_display_slides_right_and_refills_the_leftmost_space():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    before = list(eng.display)
    top = eng.menu_deck[-1]
    eng.hands[0] = counts(vegetable=2, spice=1)
    act(eng, 0, cook_action(eng, 4))  # Semanggi in slot 4
    assert eng.display == [top] + before[:4] + before[5:]


def test_cooking_several_menus_in_one_turn():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, spice=1)
    act(eng, 0, cook_action(eng, 0))  # Nasi Pecel
    slot = eng.display.index(menu("Tempe Penyet"))
    act(eng, 0, cook_action(eng, slot))
    assert len(eng.piles[0]) == 2 and sum(eng.hands[0]) == 0 and sum(eng.customers[0]) == 2
    assert eng.cooked_this_turn == [menu("Nasi Pecel"), menu("Tempe Penyet")]


def test_turns_go_left_from_the_first_cooking_marker_and_others_only_wait():
    eng = cooking_engine(4, turn=2)
    assert eng.legal_actions("player_0") == [0] and eng.legal_actions("player_3") == [0]
    assert "player_2's cooking turn" in eng.why_illegal("player_0", ix(eng).end_turn)
    order = []
    for _ in range(3):
        order.append(eng.turn)
        act(eng, eng.turn, ix(eng).end_turn)
    assert order == [2, 3, 0] and eng.turn == 1


def test_the_cook_must_decide_noop_is_refused_and_changes_nothing():
    eng = cooking_engine(3)
    snap = eng.state_dict()
    cook = eng.agents[eng.turn]
    assert eng.action_mask(cook)[0] == 0  # the mask is the truth: noop is not legal for the cook
    with pytest.raises(IllegalActionError, match="your Cooking turn"):
        eng.step({a: 0 for a in eng.agents})
    assert eng.state_dict() == snap
    # unmasked training code (illegal_action="noop") cannot stall the game: the default is end_turn
    clean, replaced = eng.validate({a: 0 for a in eng.agents}, "noop")
    assert clean[cook] == eng.ix.end_turn and cook in replaced and len(replaced) == 1


def test_supplement_bonus_two_tokens_on_a_menu_with_its_icon():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, kerupuk=1, sambal=1)
    a = cook_action(eng, 2, supplement="kerupuk")
    assert a in eng.legal_actions("player_0")
    assert "shows no sambal icon" in eng.why_illegal("player_0", cook_action(eng, 2, supplement="sambal"))
    act(eng, 0, a)
    assert eng.tokens[0] == 2 and eng.token_supply == 16
    assert eng.hands[0] == counts(sambal=1)
    # Lontong Balap 3 + Kerupuk Puli 2 = 5 (the rulebook's example), plus the drawn customer.
    assert eng.score(0) - sum(c * eng.cat.customers[k].end_vp for k, c in enumerate(eng.customers[0])) == 5


def test_supplement_needs_an_icon_unless_jeng_sastro():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(meat=2, unique=1, kerupuk=1)
    slot = eng.display.index(menu("Sate Klopo"))  # no supplement icon
    assert "only Jeng Sastro" in eng.why_illegal("player_0", cook_action(eng, slot, supplement="kerupuk"))


def test_supplement_token_exhaustion():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, kerupuk=1)
    eng.token_supply = 1
    eng.tokens[1] = 17
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 2, supplement="kerupuk"))
    assert eng.tokens[0] == 1 and eng.token_supply == 0  # only what is left
    # With no token left a supplement would earn nothing: the option is not offered.
    eng.hands[0] = counts(vegetable=2, spice=1, kerupuk=1)
    eng.invalidate_masks()
    slot = eng.display.index(menu("Semanggi"))
    assert cook_action(eng, slot, supplement="kerupuk") not in eng.legal_actions("player_0")
    assert "tokens are exhausted" in eng.why_illegal("player_0", cook_action(eng, slot, supplement="kerupuk"))
    assert cook_action(eng, slot) in eng.legal_actions("player_0")


TUKANGS = ["tukang_beras", "tukang_sayur", "tukang_daging", "tukang_tahu", "tukang_bumbu"]


def _one_short_of_rujak_soto(category: int, tukang: str | None):
    """Rujak Soto needs every category once or twice; the hand lacks one card of ``category``."""
    eng = cooking_engine(3)
    set_display(eng, ["Rujak Soto", None, None, None, None, "Bebek Sinjay"])
    req = list(eng.cat.menus[eng.display[0]].dish.requires)
    req[category] -= 1
    eng.hands[0] = req + [0] * 4
    eng.customers[0] = customer_counts(**({tukang: 1} if tukang else {}))
    eng.customer_deck = [KIND["boyband"]]
    eng.invalidate_masks()
    return eng


@pytest.mark.parametrize("category", range(5), ids=CATS)
def test_each_tukang_substitutes_its_category(category):
    tukang = TUKANGS[category]
    assert cook_action(eng := _one_short_of_rujak_soto(category, None), 0) not in eng.legal_actions("player_0")
    wrong = _one_short_of_rujak_soto(category, TUKANGS[(category + 1) % 5])
    assert cook_action(wrong, 0) not in wrong.legal_actions("player_0")  # another category's Tukang does not help
    eng = _one_short_of_rujak_soto(category, tukang)
    assert cook_action(eng, 0) in eng.legal_actions("player_0")
    act(eng, 0, cook_action(eng, 0))
    assert eng.customers[0] == customer_counts(boyband=1) and eng.customer_discard[KIND[tukang]] == 1
    assert sum(eng.hands[0]) == 0 and len(eng.piles[0]) == 1


def test_real_cards_are_spent_before_a_tukang():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=2, vegetable=1)
    eng.customers[0] = customer_counts(tukang_beras=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 0))  # Nasi Pecel R1 V1
    assert eng.hands[0] == counts(rice=1) and eng.customers[0][KIND["tukang_beras"]] == 1


def test_go_boy_is_wild_for_one_missing_card_and_returns_to_the_supply():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1)
    eng.go_boy[0] = True
    eng.go_boy_supply = 4
    eng.invalidate_masks()
    assert cook_action(eng, 2) not in eng.legal_actions("player_0")  # must name the category covered
    assert "no Rice card is missing" in eng.why_illegal("player_0", cook_action(eng, 2, go_boy_for="rice"))
    act(eng, 0, cook_action(eng, 2, go_boy_for="unique"))
    assert eng.piles[0] == [menu("Lontong Balap")] and not eng.go_boy[0] and eng.go_boy_supply == 5


def test_go_boy_covers_only_one_card():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1)
    eng.go_boy[0] = True
    eng.invalidate_masks()
    names = legal_names(eng, 0)
    assert not any(n.startswith("cook(slot=2") for n in names)  # Lontong Balap lacks 2 cards
    assert "cook(slot=0, go_boy_for='vegetable', supplement='none')" in names  # Nasi Pecel lacks 1


def test_go_boy_or_tukang_is_a_real_choice():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1)
    eng.go_boy[0] = True
    eng.customers[0] = customer_counts(tukang_tahu=1)
    eng.invalidate_masks()
    legal = eng.legal_actions("player_0")
    assert cook_action(eng, 2) in legal and cook_action(eng, 2, go_boy_for="unique") in legal
    act(eng, 0, cook_action(eng, 2))  # pay with the Tukang, keep the Go Boy!
    assert eng.go_boy[0] and eng.customers[0][KIND["tukang_tahu"]] == 0


def test_go_boy_limits():
    eng = cooking_engine(3)
    set_display(eng, ["Rujak Soto"] * 2 + ["Bebek Sinjay"] * 2 + ["Sego Tempong"] * 2)
    a = ix(eng)
    eng.hands[0] = counts(rice=1)
    eng.invalidate_masks()
    # Cannot cook: may take one.
    assert a.take_go_boy in eng.legal_actions("player_0")
    act(eng, 0, a.take_go_boy)
    assert eng.go_boy[0] and eng.go_boy_supply == 4 and eng.turn == 1  # taking it ends the turn
    # Holding one already: no second one.
    eng.turn, eng.turns_taken = 0, 0
    eng.invalidate_masks()
    assert a.take_go_boy not in eng.legal_actions("player_0")
    assert "already hold a Go Boy" in eng.why_illegal("player_0", a.take_go_boy)
    # A player who can cook may not take one.
    set_display(eng, SIX)
    eng.hands[1] = counts(rice=1, vegetable=1)
    eng.turn = 1
    eng.invalidate_masks()
    assert "can still cook" in eng.why_illegal("player_1", a.take_go_boy)
    # Not in a turn in which one cooked, even once nothing more can be cooked.
    act(eng, 1, cook_action(eng, 0))
    assert "cooked this turn" in eng.why_illegal("player_1", a.take_go_boy)
    # The supply can run out.
    eng.turn, eng.go_boy_supply, eng.cooked_this_turn = 2, 0, []
    eng.hands[2] = counts()
    eng.invalidate_masks()
    assert "no Go Boy! card is left" in eng.why_illegal("player_2", a.take_go_boy)


def test_go_boy_is_kept_into_the_next_round_until_used():
    eng = cooking_engine(3)
    eng.go_boy[1] = True
    eng.invalidate_masks()
    for _ in range(3):
        act(eng, eng.turn, ix(eng).end_turn)
    assert eng.round == 2 and eng.go_boy[1]


def test_constraint_mode_only_the_three_rightmost_menus():
    eng = cooking_engine(3, constraint_mode=True)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=3, vegetable=3, meat=3, unique=3, spice=3)
    eng.invalidate_masks()
    slots = {eng.actions.decode(a)[1]["slot"] for a in eng.legal_actions("player_0") if eng.actions.decode(a)[0] == "cook"}
    assert slots == {3, 4, 5}
    assert "only the 3 right-most" in eng.why_illegal("player_0", cook_action(eng, 0))
    # After cooking slot 5, the menu from slot 2 has slid into the cookable zone.
    third = eng.display[2]
    act(eng, 0, cook_action(eng, 5))
    assert eng.display[3] == third


def test_last_menu_revealed_leaves_empty_slots_on_the_left_and_starts_the_last_round():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.menu_deck = [eng.menu_deck[0]]
    eng.hands[0] = counts(rice=2, vegetable=2, unique=1, spice=1)
    eng.invalidate_masks()
    assert not eng.last_round
    act(eng, 0, cook_action(eng, 0))  # reveals the last card
    assert eng.last_round and eng.menu_deck == []
    act(eng, 0, cook_action(eng, eng.display.index(menu("Tempe Penyet"))))
    assert eng.display[0] == -1 and -1 not in eng.display[1:]
    assert "slot 0 is empty" in eng.why_illegal("player_0", cook_action(eng, 0))


def test_one_supplement_per_menu_even_with_two_icons():
    eng = cooking_engine(3)
    set_display(eng, ["Tahu Tek", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Semanggi", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, unique=1, petis=1, kerupuk=1)
    eng.invalidate_masks()
    legal = eng.legal_actions("player_0")
    assert cook_action(eng, 0, supplement="petis") in legal and cook_action(eng, 0, supplement="kerupuk") in legal
    act(eng, 0, cook_action(eng, 0, supplement="petis"))
    assert eng.tokens[0] == 2 and eng.token_supply == 16 and eng.hands[0] == counts(kerupuk=1)
