"""The reconstructed data files load, match the rulebook's counts, and bad data is rejected."""

from __future__ import annotations

import copy
import math

import pytest

from envs.core.errors import DataError
from envs.wok_star import cards
from envs.wok_star.cards import RULEBOOK_GOALS, load_data
from envs.wok_star.actions import COMBOS, N_COMBOS
from envs.wok_star.rules.prepare_ingredients import amount_table
from envs.wok_star.rules.events import DRAWN, END_OF_ROUND, check_events


def test_component_counts_match_the_rulebook():
    d = load_data()
    assert len(d.recipes) == 12 and len(d.ingredients) == 10 and len(d.customers) == 60
    assert len(d.events) == 15 and len(d.characters) == 6
    assert sorted({r.price for r in d.recipes}) == [11, 16, 31]
    for r in d.recipes:
        assert 2 <= len(r.ingredients) <= 4
        mine = [c for c in d.customers if c.recipe == r.id]
        assert sum(not c.coupon for c in mine) == 3 and sum(c.coupon for c in mine) == 2
        assert all(c.income == 1 for c in mine if c.coupon)
    for i in d.ingredients:
        assert len(i.methods) == 4
        assert (i.methods[0].pattern, i.methods[0].amount, i.methods[0].foreign) == ("any", 1, False)
        assert i.methods[3].foreign and not any(m.foreign for m in i.methods[:3])
    assert d.components["fortune_cubes"] == 15 and d.components["hustle_tokens"] == 25


def test_review_facts_are_kept():
    d = load_data()
    names = {r.name: r for r in d.recipes}
    # v1: the first day's menu fits the 3-player deal $11/$11/$16 (v0 had all three at $11)
    assert sorted(names[x].price for x in ("Egg Rolls", "Fried Rice", "Lo Mein")) == [11, 11, 16]
    keys = {d.ingredients[i].key for i in names["Egg Rolls"].ingredients}
    assert keys <= {"pork", "wrappers", "bok_choy", "bamboo"} and len(keys) == 3  # the earlier edition's, less one
    assert names["Kung Pao Chicken"].price > 11
    assert {"chris", "lily", "grandpa"} <= {c.key for c in d.characters}
    pork = d.ingredients[d.ingredient_id("pork")]
    assert any(m.pattern == "diff_eq" and m.value == 2 and m.amount == 2 for m in pork.methods)


def test_income_goal_table_keeps_the_given_rows_and_the_documented_extrapolation():
    d = load_data()
    for key, row in RULEBOOK_GOALS.items():
        assert d.goals[key] == row
    r = 1272 / 1142
    assert d.goals[("medium", 3)] == tuple(math.floor(g * r + 0.5) for g in RULEBOOK_GOALS[("mild", 3)])
    assert d.goals[("extra_spicy", 4)] == tuple(math.floor(g * r * r + 0.5) for g in RULEBOOK_GOALS[("mild", 4)])
    assert d.goals[("medium", 4)][0] == 15  # the review override
    for p in (2, 3, 4):
        mild, medium, spicy = (d.goals[(x, p)] for x in ("mild", "medium", "extra_spicy"))
        assert all(a <= b <= c for a, b, c in zip(mild, medium, spicy))


def test_every_setup_deal_gives_each_player_an_ingredient_card():
    d = load_data()
    import itertools
    for n, prices in d.components["setup_recipe_prices"].items():
        piles = [[r for r in d.recipes if r.price == p] for p in prices]
        for deal in itertools.product(*piles):
            if len({r.id for r in deal}) < len(deal):
                continue
            assert len({i for r in deal for i in r.ingredients}) >= int(n)


def test_every_event_has_one_implementation_at_its_time():
    d = load_data()
    check_events(d)
    assert {e.key for e in d.events if e.when == "drawn"} == set(DRAWN)
    assert {e.key for e in d.events if e.when == "end_of_round"} == set(END_OF_ROUND)


def test_amount_table_applies_the_best_unlocked_method():
    pork = load_data().ingredient_id("pork")
    c_pair = COMBOS.index((4, 4, 0))
    c_diff2 = COMBOS.index((2, 4, 0))
    c_foreign = COMBOS.index((1, 6, 2))
    assert N_COMBOS == 78
    table = amount_table(pork)
    assert table[2][c_pair] == 1 and table[3][c_pair] == 3  # pair needs the 3rd method
    assert table[2][c_diff2] == 2
    assert table[3][c_foreign] == 1 and table[4][c_foreign] == 3  # rightmost needs a taken die


def _patched(monkeypatch, name: str, mutate):
    original = cards.load_json

    def fake(pkg, fname):
        data = copy.deepcopy(original(pkg, fname))
        if fname == name:
            mutate(data)
        return data

    monkeypatch.setattr(cards, "load_json", fake)
    cards.load_data.cache_clear()


@pytest.mark.parametrize("name,mutate,message", [
    ("recipes.json", lambda d: d["recipes"].pop(), "Recipe cards"),
    ("recipes.json", lambda d: d["recipes"][0].update(ingredients=["pork"]), "2 to 4 ingredients"),
    ("recipes.json", lambda d: d["recipes"][0].update(regular_incomes=[3, 3]), "Regular customers"),
    ("ingredients.json", lambda d: d["ingredients"][0]["methods"].pop(), "methods"),
    ("ingredients.json", lambda d: d["ingredients"][1]["methods"][0].update(amount=2), "leftmost"),
    ("ingredients.json", lambda d: d["ingredients"][1]["methods"][3].pop("foreign"), "rightmost"),
    ("events.json", lambda d: d["events"].pop(), "Event cards"),
    ("characters.json", lambda d: d["characters"].pop(), "Character cards"),
    ("income_goals.json", lambda d: d["goals"]["mild"].update({"2": [7, 12, 18, 26]}), "rulebook prints"),
    ("income_goals.json", lambda d: d["goals"]["extra_spicy"].update({"3": [12, 21, 33, 48]}), "extrapolation"),
    ("components.json", lambda d: d.update(fortune_cubes=14), "fortune_cubes"),
    # v1: the first day's menu (reviews) fits the 3-player deal; Egg Rolls keep the earlier edition's ingredients
    ("recipes.json", lambda d: d["recipes"][0].update(price=11), "3-player deal"),
    ("recipes.json", lambda d: d["recipes"][0].update(ingredients=["wrappers", "pork", "rice"]), "earlier edition"),
])
def test_bad_data_is_rejected_with_a_clear_message(monkeypatch, name, mutate, message):
    _patched(monkeypatch, name, mutate)
    try:
        with pytest.raises(DataError, match=message):
            load_data()
    finally:
        monkeypatch.undo()
        cards.load_data.cache_clear()
        load_data()


def test_every_test_named_in_the_rules_table_exists():
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "wok_star.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_\w+)`", doc))
    source = "".join(p.read_text(encoding="utf-8") for p in (root / "tests" / "wok_star").glob("test_*.py"))
    defined = set(re.findall(r"^def (test_\w+)", source, re.M))
    assert named and named <= defined, sorted(named - defined)


def test_rules_are_one_module_per_rulebook_section_in_rulebook_order():
    import importlib

    from envs.wok_star import rules

    assert [name for name, _ in rules.SECTIONS][0] == "setup"
    for name, heading in rules.SECTIONS:
        module = importlib.import_module(f"envs.wok_star.rules.{name}")
        first = heading.split(" (")[0]
        assert module.__doc__.startswith(f'Rulebook section "{first}'), name
    assert set(rules.ACTIONS) == {g.name for g in rules_table().groups} - {"noop"}


def rules_table():
    from envs.wok_star.actions import build_action_table

    return build_action_table(2)


def _doc_table(header: str) -> list[list[str]]:
    """The rows of the docs/wok_star.md table under ``header`` (its cells, stripped)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "wok_star.md").read_text(encoding="utf-8")
    rows = []
    for line in text.split(header + "\n", 1)[1].splitlines()[1:]:  # (after the |---| line)
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def test_the_reconstructed_recipes_and_ingredients_are_the_docs_tables():
    """The reconstructed card values as docs/wok_star.md prints them, every one: a changed income or
    method amount in the data had been caught only by the golden digests."""
    data = load_data()
    recipes = _doc_table("| recipe | price | ingredients | Regular customers pay |")
    assert [r[0] for r in recipes] == [x.name for x in data.recipes]
    for row, rec in zip(recipes, data.recipes):
        assert row[1:] == [f"${rec.price}", ", ".join(data.ingredients[i].name for i in rec.ingredients),
                           ", ".join(f"${v}" for v in rec.regular_incomes)], rec.key
    methods = _doc_table("| ingredient | 1 (open) | 2 (open) | 3 (1st upgrade) | 4 (2nd upgrade, needs another "
                         "chef's die) |")
    assert [r[0] for r in methods] == [x.name for x in data.ingredients]
    for row, ing in zip(methods, data.ingredients):
        assert [m.foreign for m in ing.methods] == [False, False, False, True], ing.key
        assert row[1:] == [m.text().replace(" +other chef", "") for m in ing.methods], ing.key
