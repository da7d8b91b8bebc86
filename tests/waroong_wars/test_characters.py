"""The five characters of Character Mode, each as printed."""

from __future__ import annotations

from tests.waroong_wars.helpers import (CHAR, KIND, act, cook_action, cooking_engine, counts, customer_counts, ix,
                                        menu, new_engine, set_display)


def _with_character(key: str, seat: int = 0, players: int = 3, **opts):
    eng = cooking_engine(players, character_mode=True, **opts)
    others = [c for c in range(5) if c != CHAR[key]]
    eng.characters = [others.pop() if s != seat else CHAR[key] for s in range(players)]
    eng.invalidate_masks()
    return eng


def test_bu_prasojo_may_take_an_extra_customer_after_a_menu_of_5_or_6_ingredients():
    eng = _with_character("bu_prasojo")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Sego Tempong", "Rujak Soto"])
    a = ix(eng)
    eng.hands[0] = counts(rice=2, vegetable=3, unique=1, spice=1)
    eng.customer_deck = [KIND["foodies"], KIND["boyband"], KIND["primadona"]]
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 4))  # Sego Tempong: 5 ingredients
    assert eng.customers[0] == customer_counts(primadona=1)
    assert eng.pending == {"kind": "extra", "seat": 0}
    assert sorted(eng.legal_actions("player_0")) == [a.extra0, a.extra0 + 1]
    act(eng, 0, a.extra0 + 1)
    assert eng.customers[0] == customer_counts(primadona=1, boyband=1) and eng.pending is None
    # A 2-ingredient menu gives no extra card; declining is possible too.
    act(eng, 0, cook_action(eng, eng.display.index(menu("Nasi Pecel"))))
    assert eng.pending is None and eng.customers[0] == customer_counts(primadona=1, boyband=1, foodies=1)


def test_bu_prasojo_gets_no_extra_customer_after_a_menu_of_4_ingredients():
    """"when you cook a Menu with 5 or 6 Ingredients": not 4 (the tests had tried 5, 6 and 2)."""
    eng = _with_character("bu_prasojo")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Nasi Rawon", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, meat=2, spice=1)
    eng.customer_deck = [KIND["foodies"], KIND["boyband"]]
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 4))  # Nasi Rawon: 4 ingredients
    assert eng.pending is None and eng.customers[0] == customer_counts(boyband=1)
    assert eng.customer_deck == [KIND["foodies"]]


def test_bu_prasojo_may_decline():
    eng = _with_character("bu_prasojo")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Sego Tempong", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, vegetable=2, meat=1, unique=1, spice=1)
    eng.customer_deck = [KIND["preman"], KIND["boyband"]]
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 5))  # Rujak Soto: 6 ingredients
    act(eng, 0, ix(eng).extra0)
    assert eng.customers[0] == customer_counts(boyband=1) and eng.customer_deck == [KIND["preman"]]


def test_other_characters_get_no_extra_customer():
    eng = _with_character("pak_bas")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Sego Tempong", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, vegetable=2, unique=1, spice=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 4))
    assert eng.pending is None and sum(eng.customers[0]) == 1


def test_cak_londho_takes_one_extra_ingredient_after_shopping():
    eng = new_engine(5, seed=3, character_mode=True)
    londho = eng.characters.index(CHAR["cak_londho"])
    top = eng.ingredient_deck[-1]
    assert len(eng.ingredient_deck) == 39 - 30
    while eng.phase == "draft":
        eng.step({a: eng.legal_actions(a)[0] for a in eng.agents})
    sizes = [sum(h) for h in eng.hands]
    assert sizes[londho] == 7 and sizes.count(6) == 4
    assert len(eng.ingredient_deck) == 39 - 31
    assert eng.hands[londho][top] >= 1


def test_geng_bajoel_scores_five_per_pair_of_same_named_menus():
    eng = _with_character("geng_bajoel")
    eng.piles[0] = [menu("Nasi Pecel", 0), menu("Nasi Pecel", 1), menu("Semanggi", 0)]
    assert eng.score(0) == 2 + 2 + 3 + 5
    eng.piles[1] = [menu("Nasi Pecel", 0), menu("Nasi Pecel", 1)]
    assert eng.score(1) == 4  # not Geng Bajoel
    eng.piles[0] = [menu("Semanggi", 0), menu("Semanggi", 1), menu("Sate Klopo", 0), menu("Sate Klopo", 1)]
    assert eng.score(0) == 12 + 10


def test_pak_bas_takes_a_go_boy_after_cooking_exactly_one_small_menu():
    eng = _with_character("pak_bas")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Sego Tempong", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, spice=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 2))  # Lontong Balap: 3 ingredients
    assert not eng.go_boy[0]
    act(eng, 0, ix(eng).end_turn)
    assert eng.go_boy[0] and eng.go_boy_supply == 4


def test_pak_bas_gets_nothing_after_two_menus_or_a_big_one_or_when_holding_one():
    eng = _with_character("pak_bas")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Sego Tempong", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, spice=1)
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 0))  # Nasi Pecel
    act(eng, 0, cook_action(eng, eng.display.index(menu("Tempe Penyet"))))
    act(eng, 0, ix(eng).end_turn)
    assert not eng.go_boy[0]
    eng2 = _with_character("pak_bas")
    set_display(eng2, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Nasi Rawon", "Rujak Soto"])
    eng2.hands[0] = counts(rice=1, meat=2, spice=1)
    eng2.invalidate_masks()
    act(eng2, 0, cook_action(eng2, 4))  # Nasi Rawon: 4 ingredients
    act(eng2, 0, ix(eng2).end_turn)
    assert not eng2.go_boy[0]
    eng3 = _with_character("pak_bas")
    set_display(eng3, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Nasi Rawon", "Rujak Soto"])
    eng3.hands[0] = counts(rice=1, vegetable=1)
    eng3.go_boy[0] = True
    eng3.go_boy_supply = 4
    eng3.invalidate_masks()
    act(eng3, 0, cook_action(eng3, 0))  # keeps the Go Boy!: "if able" fails, no second one
    act(eng3, 0, ix(eng3).end_turn)
    assert eng3.go_boy[0] and eng3.go_boy_supply == 4


def test_pak_bas_who_used_his_go_boy_gets_a_new_one():
    eng = _with_character("pak_bas")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Nasi Rawon", "Rujak Soto"])
    eng.hands[0] = counts(rice=1)
    eng.go_boy[0] = True
    eng.go_boy_supply = 4
    eng.invalidate_masks()
    act(eng, 0, cook_action(eng, 0, go_boy_for="vegetable"))
    assert not eng.go_boy[0]
    act(eng, 0, ix(eng).end_turn)
    assert eng.go_boy[0] and eng.go_boy_supply == 4


def test_jeng_sastro_may_add_a_supplement_to_a_menu_without_an_icon():
    eng = _with_character("jeng_sastro")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Nasi Rawon", "Rujak Soto"])
    eng.hands[0] = counts(meat=2, unique=1, petis=1, kerupuk=1)
    eng.invalidate_masks()
    legal = eng.legal_actions("player_0")
    assert cook_action(eng, 3, supplement="petis") in legal and cook_action(eng, 3, supplement="kerupuk") in legal
    act(eng, 0, cook_action(eng, 3, supplement="petis"))  # Sate Klopo shows no icon
    assert eng.tokens[0] == 2 and eng.hands[0] == counts(kerupuk=1)


def test_jeng_sastro_still_needs_the_matching_icon_on_a_menu_that_shows_icons():
    eng = _with_character("jeng_sastro")
    set_display(eng, ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Nasi Rawon", "Rujak Soto"])
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, petis=1)
    eng.invalidate_masks()
    assert "shows no petis icon" in eng.why_illegal("player_0", cook_action(eng, 2, supplement="petis"))
