"""Preparing ingredients, using other chefs' dice, Hustle, Fortune cubes, washing the dishes."""

from __future__ import annotations

import numpy as np

from envs.wok_star.rules import daily_accounting
from tests.wok_star.helpers import a, engine, give_recipe, ing, legal, open_table, regular, step


def _table(players=3, **kw):
    """chef_0 holds the Pork card (and Fried Rice); chef_1 Lo Mein's cards; chef_2 Egg Rolls' wrappers."""
    eng = engine(0, players=players)
    eng.recipe_holder = [-1] * 12
    eng.ing_holder = [-1] * 10
    eng.ing_unlocked = [0] * 10
    give_recipe(eng, "egg_rolls", 0)  # wrappers, pork -> chef_0
    give_recipe(eng, "lo_mein", 1)
    eng.ing_holder[ing("wrappers")] = 2
    give_recipe(eng, "fried_rice", 2)
    kw.setdefault("current", regular("lo_mein"))
    kw.setdefault("deck", [regular("lo_mein", 1)])
    return open_table(eng, **kw)


def test_prepare_uses_two_unused_dice_and_raises_the_token_by_the_best_method():
    eng = _table(dice={0: [3, 5, 6]}, levels={"pork": 1})
    step(eng, {0: ("prepare", {"ingredient": "pork", "dice": "3+5"})})  # difference 2: +2
    assert eng.ing_level[ing("pork")] == 3
    assert eng.die_pip[0:3].count(0) == 2 and 6 in eng.die_pip[0:3]  # the 3 and 5 are in the Dirty Dishes
    assert eng.dirty_dice() >= 2


def test_prepare_is_capped_by_the_track_and_only_by_the_card_holder():
    eng = _table(dice={0: [2, 4], 1: [2, 4]}, levels={"pork": eng_top() - 1})
    assert not legal(eng, 1, "prepare", ingredient="pork", dice="2+4")
    assert "only the holder" in eng.why_illegal("chef_1", a(eng, "prepare", ingredient="pork", dice="2+4"))
    step(eng, {0: ("prepare", {"ingredient": "pork", "dice": "2+4"})})
    assert eng.ing_level[ing("pork")] == eng.top


def eng_top():
    return engine(0).top


def test_dice_must_fit_an_unlocked_method():
    eng = _table(dice={0: [4, 4]}, levels={"pork": 0})
    # the pair method (+3) is covered: the pair only fits 'any two' (+1)
    step(eng, {0: ("prepare", {"ingredient": "pork", "dice": "4+4"})})
    assert eng.ing_level[ing("pork")] == 1
    eng2 = _table(dice={0: [4, 4]}, levels={"pork": 0})
    eng2.ing_unlocked[ing("pork")] = 3
    eng2.invalidate_masks()
    step(eng2, {0: ("prepare", {"ingredient": "pork", "dice": "4+4"})})
    assert eng2.ing_level[ing("pork")] == 3


def test_taking_another_chefs_die_hands_them_a_fortune_cube():
    eng = _table(dice={0: [2], 1: [5, 5]}, levels={"pork": 1})
    step(eng, {0: ("take", {"chef": 1, "pip": 5})})
    assert eng.cubes[:2] == [1, 3]
    assert eng.area_counts()[0, 6 + 4] == 1 and eng.area_counts()[1, 4] == 1
    step(eng, {0: ("prepare", {"ingredient": "pork", "dice": "2+5*"})})
    assert eng.ing_level[ing("pork")] == 1 + 1


def test_borrowing_without_a_cube_is_masked():
    eng = _table(dice={0: [2], 1: [5, 5]})
    eng.cubes[0] = 0
    eng.invalidate_masks()
    assert not legal(eng, 0, "take", chef=1, pip=5)
    assert "no Fortune cube" in eng.why_illegal("chef_0", a(eng, "take", chef=1, pip=5))
    eng.cubes[0] = 1
    eng.invalidate_masks()
    assert legal(eng, 0, "take", chef=1, pip=5) and not legal(eng, 0, "take", chef=1, pip=4)


def test_rightmost_method_needs_one_die_of_another_player():
    eng = _table(dice={0: [1, 6], 1: [6]})
    eng.ing_unlocked[ing("pork")] = 4  # rightmost: any two, one of another chef: +3
    eng.ing_level[ing("pork")] = 0
    eng.invalidate_masks()
    step(eng, {0: ("prepare", {"ingredient": "pork", "dice": "1+6"})})  # own dice only: +1
    assert eng.ing_level[ing("pork")] == 1
    set_two = _table(dice={0: [1], 1: [6]})
    set_two.ing_unlocked[ing("pork")] = 4
    set_two.ing_level[ing("pork")] = 0
    set_two.invalidate_masks()
    step(set_two, {0: ("take", {"chef": 1, "pip": 6})})
    step(set_two, {0: ("prepare", {"ingredient": "pork", "dice": "1+6*"})})
    assert set_two.ing_level[ing("pork")] == 3


def test_hustle_gain_converts_an_unused_die_into_a_pool_token():
    eng = _table(dice={1: [3, 4]})
    supply = eng.hustle_supply
    step(eng, {1: ("hustle_gain", {"pip": 3, "die": "own"})})
    assert eng.hustle == 1 and eng.hustle_supply == supply - 1
    assert eng.area_counts()[1, 2] == 0 and eng.dirty_dice() >= 1


def test_hustle_supply_empty_masks_gaining():
    eng = _table(dice={1: [3, 4]})
    eng.hustle = eng.hustle_supply + eng.hustle  # pool takes every free token
    eng.invalidate_masks()
    assert eng.hustle_supply == 0
    assert not legal(eng, 1, "hustle_gain", pip=3, die="own")
    assert "supply is empty" in eng.why_illegal("chef_1", a(eng, "hustle_gain", pip=3, die="own"))


def test_tokens_covering_methods_are_not_in_the_pool():
    eng = _table(dice={1: [3, 4]})
    assert eng.hustle == 0 and eng.covering > 0
    assert not legal(eng, 1, "rotate", chef=0, pip=3, die="own", direction="up")
    assert "pool is empty" in eng.why_illegal("chef_1", a(eng, "rotate", chef=0, pip=3, die="own", direction="up"))


def test_rotation_wraps_6_to_1_and_1_to_6():
    eng = _table(dice={0: [6, 1]})
    eng.hustle = 2
    eng.invalidate_masks()
    step(eng, {1: ("rotate", {"chef": 2, "pip": 6, "die": "own", "direction": "up"})})  # chef_1 turns chef_0's die
    assert sorted(eng.die_pip[0:2]) == [1, 1] and eng.hustle == 1
    step(eng, {0: ("rotate", {"chef": 0, "pip": 1, "die": "own", "direction": "down"})})
    assert sorted(eng.die_pip[0:2]) == [1, 6] and eng.hustle == 0


def test_hustle_moves_two_fortune_cubes():
    eng = _table()
    eng.hustle = 1
    eng.cubes = [2, 2, 2]
    eng.invalidate_masks()
    step(eng, {0: ("move_cubes", {"move": "1>0,2>0"})})
    assert eng.cubes == [4, 1, 1] and eng.hustle == 0
    eng.hustle = 1
    eng.cubes = [0, 1, 5]
    eng.invalidate_masks()
    assert not legal(eng, 0, "move_cubes", move="1>0,1>2")
    assert legal(eng, 0, "move_cubes", move="2>0,2>1")


def test_two_chefs_taking_the_same_last_die_one_is_blocked():
    eng = _table(dice={0: [2], 1: [5], 2: [1]})
    outcomes = set()
    for seed in range(10):
        e = eng.clone()
        e.rng = np.random.default_rng(seed)
        res = step(e, {0: ("take", {"chef": 1, "pip": 5}), 2: ("take", {"chef": 2, "pip": 5})})
        assert len(res.blocked) == 1 and "pre-empted" in next(iter(res.blocked.values()))
        outcomes |= set(res.blocked)
        assert sum(e.cubes) == 6
    assert outcomes == {"chef_0", "chef_2"}


def test_two_chefs_spending_the_last_hustle_token_one_is_blocked():
    eng = _table(dice={0: [2], 1: [5]})
    eng.hustle = 1
    eng.invalidate_masks()
    res = step(eng, {0: ("rotate", {"chef": 0, "pip": 2, "die": "own", "direction": "up"}),
                     1: ("rotate", {"chef": 0, "pip": 5, "die": "own", "direction": "up"})})
    assert len(res.blocked) == 1 and eng.hustle == 0


def test_wash_lets_unused_dice_be_spent_then_rerolls_every_dirty_die():
    eng = _table(dice={0: [2, 4], 1: [6]}, timers=(7, 2))
    step(eng, {2: ("wash", {})})
    assert eng.phase == "wash" and eng.washes == 1
    step(eng, {0: ("prepare", {"ingredient": "pork", "dice": "2+4"}), 1: ("hustle_gain", {"pip": 6, "die": "own"})})
    assert eng.phase == "wash" and eng.timers == [7, 2]
    step(eng, {0: ("finish_wash", {"flip": "high"})})
    assert eng.phase == "open" and eng.timers == [eng.T - 7, 2]
    assert all(p > 0 for p in eng.die_pip if p >= 0)  # every die re-rolled and back with its owner
    assert all(eng.die_holder[d] == d // 5 for d in range(len(eng.die_pip)) if eng.die_pip[d] >= 0)


def test_unused_dice_keep_their_values_through_a_wash():
    eng = _table(dice={0: [3, 3], 1: [6]})
    step(eng, {1: ("wash", {})})
    step(eng)
    assert eng.die_pip[0:2] == [3, 3] and eng.die_pip[5] == 6


def test_third_wash_refused():
    eng = _table(dice={0: [2]})
    eng.washes = 2
    eng.invalidate_masks()
    assert not legal(eng, 0, "wash")
    assert "used up" in eng.why_illegal("chef_0", a(eng, "wash"))
    eng.washes = 1
    eng.invalidate_masks()
    assert legal(eng, 0, "wash")


def test_taken_dice_stay_with_the_taker_and_return_to_owners_at_accounting():
    eng = _table(dice={0: [2], 1: [5, 3]})
    step(eng, {0: ("take", {"chef": 1, "pip": 5})})
    step(eng, {1: ("wash", {})})
    step(eng)
    assert eng.area_counts()[0, 6 + 4] == 1  # the taken 5 stays unused in chef_0's area
    daily_accounting.gather_dice(eng)
    assert all(eng.die_holder[d] == d // 5 for d in range(15))


def test_washing_needs_dirty_dishes_and_an_open_restaurant():
    eng = _table(dice={0: [1, 2], 1: [3, 4], 2: [5, 6]})
    assert not legal(eng, 0, "wash")
    assert "Dirty Dishes are empty" in eng.why_illegal("chef_0", a(eng, "wash"))
    eng.phase = "closed"
    eng.invalidate_masks()
    assert "only be washed while open" in eng.why_illegal("chef_0", a(eng, "wash"))


def test_a_die_prepared_and_rotated_in_the_same_tick_is_used_once():
    eng = _table(dice={0: [2, 4]}, levels={"pork": 1})
    eng.hustle = 1
    eng.invalidate_masks()
    seen = set()
    for seed in range(12):
        e = eng.clone()
        e.rng = np.random.default_rng(seed)
        res = step(e, {0: ("prepare", {"ingredient": "pork", "dice": "2+4"}),
                       1: ("rotate", {"chef": 2, "pip": 4, "die": "own", "direction": "up"})})
        assert len(res.blocked) == 1
        loser = next(iter(res.blocked))
        seen.add(loser)
        if loser == "chef_1":  # prepared first: the 4 was already in the Dirty Dishes
            assert e.ing_level[ing("pork")] == 3 and e.hustle == 1
        else:  # turned first: the 2+4 no longer exists
            assert e.ing_level[ing("pork")] == 1 and sorted(e.die_pip[0:2]) == [2, 5] and e.hustle == 0
    assert seen == {"chef_0", "chef_1"}


def test_washes_per_day_are_read_from_the_data(monkeypatch):
    """v1: "2 washes a day" is the data's ``washes_per_day``; with 3 a third wash is allowed."""
    from tests.wok_star.helpers import engine_with_data, open_table, patched_data

    eng = engine_with_data(monkeypatch, patched_data(components={"washes_per_day": 3}), players=3)
    open_table(eng, dice={0: [1]})
    eng.die_pip[1] = 0  # a dirty die
    eng.washes = 2
    eng.invalidate_masks()
    assert eng.action_mask("chef_0")[eng.actions.index("wash")]
    eng.washes = 3
    eng.invalidate_masks()
    assert not eng.action_mask("chef_0")[eng.actions.index("wash")]
    assert "3 washes" in eng.why_illegal("chef_0", eng.actions.index("wash"))
