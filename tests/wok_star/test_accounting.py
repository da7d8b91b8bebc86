"""Daily Accounting, Income Goals, winning and losing."""

from __future__ import annotations

from envs.wok_star.rules import daily_accounting
from tests.wok_star.helpers import DATA, coupon, engine, open_table, regular, step


def _closing_day(players=3, seed=0, **kw):
    eng = engine(seed, players=players, **kw)
    open_table(eng)
    eng.phase = "closed"
    eng.invalidate_masks()
    return eng


def _account(eng):
    daily_accounting.accounting(eng)
    eng.invalidate_masks()


def test_dice_pool_grows_to_on_time_serves_caps_at_5_and_never_shrinks():
    eng = _closing_day()
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    eng.pool = [2, 4, 2]
    for d in range(5, 9):
        eng.die_pip[d] = 0
    eng.served = [[[5 * r, 0]] * 3 + [[5 * r, 1]] * 3,   # 3 on time (+3 late): grows to 3
                  [[5 * r, 0]] * 2,                      # 2 on time but 4 dice: keeps 4
                  [[5 * r, 0]] * 7]                      # 7 on time: capped at 5
    eng.income = 999
    _account(eng)
    assert eng.pool == [3, 4, 5]
    assert sum(1 for d in range(0, 5) if eng.die_pip[d] >= 0) == 3
    assert sum(1 for d in range(10, 15) if eng.die_pip[d] >= 0) == 5


def test_income_is_summed_with_a_dollar_off_per_late_customer():
    eng = _closing_day(players=3)
    eng.phase = "open"
    eng.income = 0
    eng.timers = [0, 0]
    cu = eng.current_customer()
    holder = eng.recipe_holder[cu.recipe]
    for i in DATA.recipes[cu.recipe].ingredients:
        eng.ing_level[i] = 2
    eng.invalidate_masks()
    step(eng, {holder: ("serve", {"flip": "low"})})
    assert eng.income == cu.income - 1 and eng.served[holder][-1][1] == 1


def test_coupon_customers_are_removed_from_the_regular_deck():
    eng = _closing_day()
    in_play = [r for r, h in enumerate(eng.recipe_holder) if h >= 0]
    eng.deck = [coupon(DATA.recipes[in_play[0]].key), 5 * in_play[0] + 1]
    eng.coupons = [coupon(DATA.recipes[in_play[1]].key)]
    eng.served[0] = [[coupon(DATA.recipes[in_play[0]].key, 1), 0]]
    eng.income = 999
    _account(eng)
    assert all(not DATA.customers[c].coupon for c in eng.deck)
    assert sorted(eng.deck) == sorted(5 * r + k for r in in_play for k in range(3))
    assert sorted(eng.coupons) == sorted(5 * r + k for r in in_play for k in (3, 4))


def test_dishwasher_resets_and_dice_return_to_owners():
    eng = _closing_day()
    eng.washes = 2
    eng.die_holder[5] = 0
    eng.die_pip[5] = 4
    eng.income = 999
    _account(eng)
    assert eng.washes == 0 and all(eng.die_holder[d] == d // 5 for d in range(15))


def test_missed_goal_ends_the_game_for_everyone():
    eng = _closing_day(players=3)
    goal = eng.goals[0]
    eng.income = goal - 1
    _account(eng)
    assert eng.done and eng.won == 0
    out = eng.outcome()
    assert out["winners"] == [] and out["result"] == "loss" and "below the goal" in out["end_reason"]
    assert out["scores"] == {a: float(goal - 1) for a in eng.agents}


def test_meeting_the_goal_exactly_continues_to_next_day_prep():
    eng = _closing_day(players=3)
    eng.income = eng.goals[0]
    _account(eng)
    assert eng.phase in ("goal_cubes", "prep") and not eng.done


def test_goal_cubes_passed_go_to_the_player_the_team_chooses():
    eng = _closing_day(players=3)
    eng.income = eng.goals[1]  # passes the day-1 and day-2 cubes
    _account(eng)
    assert eng.phase == "goal_cubes" and eng.cubes_passed == 2 and eng.goal_cubes == [False, False, True, True]
    lead = eng.turn
    assert lead == 0  # day 1: chef_0 decides
    step(eng, {lead: ("give_goal_cubes", {"chef": 2})})
    assert eng.cubes == [2, 2, 4] and eng.phase == "prep"


def test_goal_cube_default_recipient_is_the_chef_with_fewest_cubes():
    eng = _closing_day(players=3)
    eng.cubes = [3, 1, 2]
    eng.income = eng.goals[0]
    _account(eng)
    step(eng)  # the lead chef waits
    assert eng.cubes == [3, 2, 2]


def test_winning_after_the_fourth_goal_and_prep_is_skipped():
    eng = _closing_day(players=2)
    eng.day = 4
    eng.income = eng.goals[3]
    _account(eng)
    assert eng.done and eng.won == 1 and eng.phase == "over"
    assert eng.outcome()["winners"] == list(eng.agents)


def test_end_of_round_income_never_goes_below_zero():
    eng = _closing_day(players=3, events=True)
    eng.income = 1
    eng.events_today = [DATA.event_id("rent_increase")]
    _account(eng)
    assert eng.history[-1][1] == 0 and eng.done


def test_late_coupon_is_worth_nothing():
    eng = engine(0, players=3)
    r = eng.current_customer().recipe
    holder = eng.recipe_holder[r]
    open_table(eng, current=coupon(DATA.recipes[r].key), deck=[regular(DATA.recipes[r].key)], timers=(0, 0))
    for i in DATA.recipes[r].ingredients:
        eng.ing_level[i] = 1
    eng.income = 0
    eng.invalidate_masks()
    step(eng, {holder: ("serve", {"flip": "low"})})
    assert eng.income == 0 and eng.served[holder] == [[coupon(DATA.recipes[r].key), 1]]


def test_outcome_reports_service_statistics_over_the_days():
    eng = _closing_day(players=3)
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    waiting = eng.current_customer() is not None
    eng.served = [[[5 * r, 0]] * 2 + [[5 * r, 1]], [[5 * r, 0]], []]   # 3 on time, 1 late
    eng.income = 999
    _account(eng)
    out = eng.outcome()
    assert out["served_on_time"] == 3 and out["served_late"] == 1
    assert out["customers"] == 4 + int(waiting)
    assert out["on_time_share"] == 3 / (4 + int(waiting))
    assert out["income_per_day"] == 999.0 and out["incomes"] == [999]
