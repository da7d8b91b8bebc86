"""The reconstructed data loads, matches the rulebook's counts and is validated."""

from __future__ import annotations

import copy

import pytest

from envs.core.errors import DataError
from envs.frying_master.cards import PLATE_TYPES, PRINTED_MODES, build_catalog, catalog, raw_documents


def _build(docs):
    return build_catalog(docs["components"], docs["foods"], docs["modes"], docs["plates"], docs["spatulas"])


def test_component_counts_match_the_rulebook():
    cat = catalog()
    assert len(cat.plates) == 24
    assert sum(f.count for f in cat.foods if cat.categories[f.category].component == "food_card") == 58
    assert sum(f.count for f in cat.foods if cat.categories[f.category].component == "spice_tile") == 15
    assert len(cat.spatula_colours) == 8 and cat.gold_tokens == 6
    assert cat.orders_to_end_round == {2: 6, 3: 5, 4: 4}
    assert cat.countdown_seconds == 3 and cat.gold_to_win == 2 and cat.mode_bonus == 3


def test_food_categories_are_the_rulebooks_plus_spice():
    cat = catalog()
    assert [c.id for c in cat.categories if c.component == "food_card"] == ["meat", "vegetable", "rice_noodles"]
    assert [c.id for c in cat.categories if c.component == "spice_tile"] == ["spice"]


def test_every_plate_back_carries_a_mode_and_a_hint_matching_its_front():
    cat = catalog()
    for p in cat.plates:
        assert 0 <= p.mode < len(cat.modes)
        per_cat = [p.any[c.idx] + sum(p.specific[f.idx] for f in cat.foods if f.category == c.idx) for c in cat.categories]
        assert list(p.hint) == per_cat and 2 <= p.n_ingredients <= 4
        assert p.flavour > sum(p.any)


def test_eight_modes_each_on_one_plate_of_each_type():
    cat = catalog()
    assert [m.id for m in cat.modes][:6] == list(PRINTED_MODES)
    assert {m.id for m in cat.modes} == set(PRINTED_MODES) | {"preorder", "teppanyaki"}
    for m in cat.modes:
        assert sorted(p.type for p in cat.plates if p.mode == m.idx) == [0, 1, 2]
        assert m.reconstructed == (m.id in ("preorder", "teppanyaki"))
    assert cat.mode("teppanyaki").spatulas == 2 and cat.mode("mixed").spatulas == 1
    assert [sum(p.type == t for p in cat.plates) for t in range(len(PLATE_TYPES))] == [8, 8, 8]


def test_every_data_file_is_marked_reconstructed():
    for name, doc in raw_documents().items():
        assert isinstance(doc["reconstructed"], str) and len(doc["reconstructed"]) > 40, name


def test_disliked_foods_only_where_an_any_slot_could_take_them():
    cat = catalog()
    for p in cat.plates:
        for f in p.disliked:
            assert p.specific[f] == 0 and p.any[cat.foods[f].category] > 0, p.name


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["foods"]["foods"][0].update(count=5), "Food Cards: found 59"),
    (lambda d: d["foods"]["foods"][-1].update(count=4), "Spice Tiles: found 14"),
    (lambda d: d["plates"]["plates"].pop(), "Order Plates: found 23"),
    (lambda d: d["plates"]["plates"][0]["back"].update(mode="meat"), "plates whose back shows 'casual': found 2"),
    (lambda d: d["plates"]["plates"][0]["back"]["hint"].update(meat=2), "does not match the order side"),
    (lambda d: d["plates"]["plates"][0]["back"].update(mode="sweet"), "not a known mode"),
    (lambda d: d["plates"]["plates"][1]["disliked"].append("onion"), "can never be on a correct plate"),
    (lambda d: d["plates"]["plates"][0]["disliked"].append("chicken"), "both required and disliked"),
    (lambda d: d["plates"]["plates"][9].update(flavour=3), "must exceed"),
    (lambda d: d["plates"]["plates"][0]["required"].append({"food": "tofu"}), "unknown food 'tofu'"),
    (lambda d: d["plates"]["plates"][0].update(type="dessert"), "type 'dessert'"),
    (lambda d: d["modes"]["modes"].pop(0), "'casual' is missing"),
    (lambda d: d["spatulas"]["spatula_cards"].pop(), "Spatula Cards: found 7"),
    (lambda d: d["components"]["counts"].update(order_plates=25), "order_plates: found 25"),
    (lambda d: d["components"].update(orders_to_end_round={"2": 5, "3": 5, "4": 4}), "orders to end a round"),
    (lambda d: d["components"]["model"]["action_ticks"].update(draw=2), "plate actions"),
    # the rulebook's other printed numbers (accepted silently before: a data file changed the game)
    (lambda d: d["components"].update(gold_spatulas_to_win=3), "gold_spatulas_to_win must be the rulebook's 2"),
    (lambda d: d["components"].update(gold_spatulas_to_win=0), "gold_spatulas_to_win must be the rulebook's 2"),
    (lambda d: d["components"].update(mode_bonus=-3), "mode_bonus must be the rulebook's 3"),
    (lambda d: d["components"].update(countdown_seconds=30), "countdown_seconds must be the rulebook's 3"),
    (lambda d: d["components"].update(countdown_seconds=True), "countdown_seconds must be the rulebook's 3"),
    (lambda d: d["components"].pop("mode_bonus"), "mode_bonus must be the rulebook's 3"),
    (lambda d: d["plates"].pop("reconstructed"), "'reconstructed' note"),
])
def test_bad_data_raises_a_clear_data_error(mutate, message):
    docs = copy.deepcopy(raw_documents())
    mutate(docs)
    with pytest.raises(DataError, match=message):
        _build(docs)


def test_shipped_data_builds_cleanly_from_a_fresh_copy():
    cat = _build(copy.deepcopy(raw_documents()))
    assert cat.plates == catalog().plates
