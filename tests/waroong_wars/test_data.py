"""The reconstructed card data agrees with the rulebook, and bad data is refused."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from envs.core.errors import DataError
from envs.waroong_wars.cards import build_catalog, load_catalog, load_raw


@pytest.fixture(scope="module")
def raw():
    return load_raw()


def test_component_counts_match_the_rulebook():
    cat = load_catalog()
    assert len(cat.ingredient_deck) == 39
    assert sum(cat.main_cards) == 35 and len(cat.supplements) == 4
    assert Counter(cat.ingredient_deck[:35]) == {0: 7, 1: 7, 2: 7, 3: 7, 4: 7}
    assert len(cat.menus) == 32 and len(cat.customer_deck) == 32 and len(cat.characters) == 5
    assert cat.components["go_boy_cards"] == 5 and cat.components["extra_vp_tokens"] == 18
    assert cat.components["first_cooking_marker"] == 1
    assert cat.components["menu_deck_size"] == {3: 18, 4: 24, 5: 30}
    assert cat.category_names == ("Rice", "Vegetable", "Meat", "Unique", "Spice")


def test_rulebook_example_lontong_balap_with_kerupuk_puli_is_worth_five():
    cat = load_catalog()
    lb = next(d for d in cat.dishes if d.name == "Lontong Balap")
    kp = next(s for s in cat.supplements if s.name == "Kerupuk Puli")
    assert lb.size == 3 and lb.vp == 3
    assert kp.index in lb.icons and lb.vp + kp.vp == 5


def test_menus_cover_the_character_conditions_and_pairs():
    cat = load_catalog()
    sizes = Counter(m.dish.size for m in cat.menus)
    assert sizes[2] + sizes[3] > 0 and sizes[5] + sizes[6] > 0
    names = Counter(m.name for m in cat.menus)
    assert all(c == 2 for c in names.values()) and len(names) == 16
    assert any(not d.icons for d in cat.dishes)


def test_customer_kinds_are_the_rulebook_list_with_printed_values():
    cat = load_catalog()
    vp = {k.name: k.end_vp for k in cat.customers}
    assert vp["Primadona"] == 4 and vp["Biduanita"] == 3 and vp["Foodies"] == 2
    assert vp["Boyband"] == 1 and vp["Preman"] == -1
    assert all(vp[k] == 1 for k in ("Perayu", "Maling", "Hansip", "Mbok Bakul", "Tukang Beras"))
    assert {cat.customers[cat.tukang_for(c)].name for c in range(5)} == {
        "Tukang Beras", "Tukang Sayur", "Tukang Daging", "Tukang Tahu", "Tukang Bumbu"}
    assert sum(k.count for k in cat.customers) == 32


def test_characters_are_printed_exactly():
    cat = load_catalog()
    assert [c.name for c in cat.characters] == ["Bu Prasojo", "Cak Londho", "Geng Bajoel", "Pak Bas", "Jeng Sastro"]
    assert cat.character("cak_londho").text == "After Shopping phase, take 1 extra Ingredient card from the deck."
    assert cat.character("geng_bajoel").title == "The Genius Duo"


def test_every_data_file_says_what_is_reconstructed(raw):
    for name, data in raw.items():
        assert data["reconstructed"].strip(), name


def _corrupt(raw, path, value):
    bad = copy.deepcopy(raw)
    node = bad
    for k in path[:-1]:
        node = node[k]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return bad


_DELETE = object()


@pytest.mark.parametrize("path, value, message", [
    (("components", "extra_vp_tokens"), 20, "extra_vp_tokens: found 20, the rulebook says 18"),
    (("components", "menu_deck_size", "5"), 28, "menu deck for 5 players: found 28"),
    (("ingredients", "categories", 0, "cards"), 8, "main ingredient cards: found 36"),
    (("ingredients", "supplements", 0, "vp"), 3, "Kerupuk Puli"),
    (("menus", "dishes", 4, "vp"), 4, "Lontong Balap must need 3 ingredients and be worth 3 VP"),
    (("menus", "dishes", 0, "copies"), 3, "menu cards: found 33"),
    (("menus", "dishes", 0, "requires"), {"fish": 2}, "requirements must name categories"),
    (("customers", "kinds", 0, "end_vp"), 5, "Primadona: found 5"),
    (("customers", "kinds", 1, "count"), 3, "customer cards: found 33"),
    (("customers", "kinds", 9, "substitutes"), "meat", "Tukang Beras substitutes Rice"),
    (("characters", "characters", 0, "name"), "Bu Prasojo Jr", "characters must be the rulebook's"),
    (("menus", "reconstructed"), _DELETE, "must say what is reconstructed"),
])
def test_bad_data_raises_a_precise_data_error(raw, path, value, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(")):
        build_catalog(_corrupt(raw, path, value))


def test_the_shipped_data_builds(raw):
    assert build_catalog(raw).menus == load_catalog().menus
