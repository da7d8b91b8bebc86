"""Optional rule: Player Powers (the Wang Family), each once per day."""

from __future__ import annotations

import pytest

from tests.wok_star.helpers import DATA, a, engine, legal, open_table, regular, step


def _with(chars: list[str], **kw):
    eng = engine(0, players=3, powers=True)
    eng.character = [DATA.character_id(c) for c in chars]
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    kw.setdefault("deck", [regular(DATA.recipes[r].key, 1), regular(DATA.recipes[r].key, 2)])
    return open_table(eng, **kw)


def _serveable(eng):
    cu = eng.current_customer()
    for i in DATA.recipes[cu.recipe].ingredients:
        eng.ing_level[i] = max(eng.ing_level[i], 2)
    eng.invalidate_masks()
    return eng.recipe_holder[cu.recipe], cu


def test_chris_earns_a_tip_the_first_time_he_serves_a_dish_twice():
    eng = _with(["chris", "lily", "mama"])
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    eng.recipe_holder[r] = 0
    key = DATA.recipes[r].key
    eng.current = regular(key, 0)
    eng.deck = [regular(key, 2), regular(key, 1)]
    for i in DATA.recipes[r].ingredients:
        eng.ing_level[i] = 5
    eng.invalidate_masks()
    step(eng, {0: ("serve", {"flip": "low"})})
    first = eng.income
    step(eng, {0: ("serve", {"flip": "low"})})
    assert eng.income == first + DATA.customers[regular(key, 1)].income + 2 and eng.power_used[0]
    before = eng.income
    step(eng, {0: ("serve", {"flip": "low"})})
    assert eng.income == before + DATA.customers[regular(key, 2)].income  # once per day


def test_lily_restarts_a_timer_with_full_sand():
    eng = _with(["lily", "chris", "mama"], timers=(0, 4))
    assert legal(eng, 0, "lily_restart", timer="low")
    step(eng, {0: ("lily_restart", {"timer": "low"})})
    assert eng.timers == [eng.T, 3] and eng.power_used[0]  # full sand, running from the next tick
    assert not legal(eng, 0, "lily_restart", timer="low")
    assert "already used" in eng.why_illegal("chef_0", a(eng, "lily_restart", timer="low"))


def test_grandpa_substitutes_one_ingredient_for_another():
    eng = _with(["chris", "grandpa", "mama"])
    live = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    x, y = live[0], live[1]
    eng.ing_level[x], eng.ing_level[y] = 3, 0
    eng.invalidate_masks()
    swap = f"{DATA.ingredients[x].key}>{DATA.ingredients[y].key}"
    back = f"{DATA.ingredients[y].key}>{DATA.ingredients[x].key}"
    assert not legal(eng, 1, "grandpa_substitute", swap=back)  # nothing on the row to give
    step(eng, {1: ("grandpa_substitute", {"swap": swap})})
    assert (eng.ing_level[x], eng.ing_level[y]) == (2, 1) and eng.power_used[1]


def test_mama_rerolls_her_unused_dice():
    eng = _with(["chris", "lily", "mama"], dice={2: [1, 1], 0: [1]})
    eng.rng = __import__("numpy").random.default_rng(7)
    step(eng, {2: ("mama_reroll", {})})
    assert eng.die_pip[0] == 1 and eng.power_used[2]
    assert eng.die_pip[10:12] != [1, 1] and all(p >= 1 for p in eng.die_pip[10:12])


def test_uncle_delivers_a_row_of_an_ingredient():
    eng = _with(["uncle", "lily", "mama"])
    i = next(i for i, h in enumerate(eng.ing_holder) if h >= 0)
    eng.ing_level[i] = 0
    eng.invalidate_masks()
    step(eng, {0: ("uncle_deliver", {"ingredient": DATA.ingredients[i].key})})
    assert eng.ing_level[i] == 1 and eng.power_used[0]


def test_auntie_seats_the_customer_again_later():
    eng = _with(["auntie", "lily", "mama"])
    old = eng.current
    nxt = eng.deck[-1]
    step(eng, {0: ("auntie_reseat", {})})
    assert eng.current == nxt and old in eng.deck and eng.power_used[0]


def test_auntie_shuffles_the_customer_back_rather_than_putting_it_next():
    """"shuffle this customer back into the Regular deck": over twelve generators the customer lands
    at many depths, not always on top."""
    import numpy as np

    depths = set()
    eng0 = engine(0, players=3, powers=True)
    key = DATA.recipes[next(r for r, h in enumerate(eng0.recipe_holder) if h >= 0)].key
    for s in range(12):
        eng = _with(["auntie", "lily", "mama"], deck=[regular(key, 1 + k % 3) for k in range(8)])
        eng.rng = np.random.default_rng(s)
        old = eng.current
        step(eng, {0: ("auntie_reseat", {})})
        depths.add(len(eng.deck) - 1 - eng.deck.index(old))
    assert len(depths) > 3 and max(depths) >= 3


def test_powers_are_masked_without_the_optional_rule_or_for_other_characters():
    eng = engine(0, players=3, powers=False)
    assert "not in play" in eng.why_illegal("chef_0", a(eng, "mama_reroll"))
    eng2 = _with(["chris", "lily", "mama"], dice={0: [2, 2]})
    assert not legal(eng2, 0, "mama_reroll")
    assert "only the owner" in eng2.why_illegal("chef_0", a(eng2, "mama_reroll"))


@pytest.mark.parametrize("name,params", [("lily_restart", {"timer": "low"}), ("auntie_reseat", {})])
def test_timer_powers_only_while_the_timers_run(name, params):
    key = name.split("_")[0]
    eng = _with([key, "chris", "mama"])
    eng.phase = "wash"
    eng.invalidate_masks()
    assert not legal(eng, 0, name, **params)
    assert "only in phase open" in eng.why_illegal("chef_0", a(eng, name, **params))


def test_grandpa_substitutes_as_many_rows_as_his_card_says(monkeypatch):
    """v1: Grandpa's ``amount`` comes from the data (v0 moved 1 row whatever the card said)."""
    from tests.wok_star.helpers import engine_with_data, patched_data

    eng = engine_with_data(monkeypatch, patched_data(characters={"grandpa": 2}), players=3, powers=True)
    eng.character = [DATA.character_id(c) for c in ("chris", "grandpa", "mama")]
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    open_table(eng, deck=[regular(DATA.recipes[r].key, 1)])
    live = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    x, y, z = live[0], live[1], live[2]
    eng.ing_level[x], eng.ing_level[y], eng.ing_level[z] = 3, 0, 1
    eng.invalidate_masks()
    key = DATA.ingredients
    assert not legal(eng, 1, "grandpa_substitute", swap=f"{key[z].key}>{key[y].key}")  # row 1 cannot give 2
    assert "substitutes 2 rows" in eng.why_illegal("chef_1", a(eng, "grandpa_substitute",
                                                                swap=f"{key[z].key}>{key[y].key}"))
    step(eng, {1: ("grandpa_substitute", {"swap": f"{key[x].key}>{key[y].key}"})})
    assert (eng.ing_level[x], eng.ing_level[y]) == (1, 2) and eng.power_used[1]
