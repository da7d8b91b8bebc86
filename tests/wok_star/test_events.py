"""Optional rule: Events. Every card's effect, when it resolves, and the card flow."""

from __future__ import annotations

from envs.wok_star.rules import daily_accounting, open_for_business
from tests.wok_star.helpers import DATA, engine, event_card, open_table, regular, step


def _table(**kw):
    eng = engine(0, players=3, events=True)
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    kw.setdefault("deck", [regular(DATA.recipes[r].key, 1)])
    return open_table(eng, **kw)


def _reveal(eng, key):
    eng.deck.append(event_card(key))
    open_for_business.reveal_next(eng)
    eng.invalidate_masks()
    assert eng.current == event_card(key) and DATA.event_id(key) in eng.events_today


def _live(eng):
    return [i for i, h in enumerate(eng.ing_holder) if h >= 0]


def test_event_card_waits_for_an_empty_timer_then_the_next_customer_comes():
    eng = _table(timers=(3, 5), dice={0: [1, 2]})
    nxt = eng.deck[0]
    _reveal(eng, "lucky_cat")
    step(eng)
    step(eng)
    assert eng.current == event_card("lucky_cat") and eng.timers == [1, 3]
    step(eng)  # the low timer empties: flipped, next card revealed
    assert eng.current == nxt and eng.timers == [eng.T, 2]


def test_health_inspector_drops_every_token_one_row():
    eng = _table()
    live = _live(eng)
    for k, i in enumerate(live):
        eng.ing_level[i] = k % 3
    before = list(eng.ing_level)
    _reveal(eng, "health_inspector")
    assert all(eng.ing_level[i] == max(0, before[i] - 1) for i in live)


def test_dropped_tray_hits_the_highest_token():
    eng = _table()
    live = _live(eng)
    for i in live:
        eng.ing_level[i] = 1
    eng.ing_level[live[-1]] = 5
    _reveal(eng, "dropped_tray")
    assert eng.ing_level[live[-1]] == 3 and all(eng.ing_level[i] == 1 for i in live[:-1])


def test_power_flicker_rerolls_unused_dice_and_sends_the_low_ones_to_the_dishes():
    """v1: the re-rolled dice showing 1 or 2 go to the Dirty Dishes (v0 only re-rolled: neutral on average)."""
    eng = _table(dice={0: [1, 1], 1: [1]})
    eng.rng = __import__("numpy").random.default_rng(3)  # rolls 5, 1, 2 for dice 0, 1, 5
    _reveal(eng, "power_flicker")
    assert eng.die_pip[6] == 0  # dirty die untouched
    assert [eng.die_pip[d] for d in (0, 1, 5)] == [5, 0, 0]
    assert eng.die_holder[5] == 1


def test_staff_meeting_sends_each_chefs_lowest_die_to_the_dishes():
    eng = _table(dice={0: [5, 2], 1: [6]})
    _reveal(eng, "staff_meeting")
    assert sorted(eng.die_pip[0:2]) == [0, 5] and eng.die_pip[5] == 0


def test_broken_dishwasher_costs_a_wash():
    eng = _table()
    _reveal(eng, "broken_dishwasher")
    assert eng.washes == 1
    eng.washes = 2
    _reveal(eng, "broken_dishwasher")
    assert eng.washes == 2


def test_spilled_sauce_returns_hustle_to_the_supply():
    eng = _table()
    eng.hustle = 3
    _reveal(eng, "spilled_sauce")
    assert eng.hustle == 1
    _reveal(eng, "spilled_sauce")
    assert eng.hustle == 0


def test_walk_ins_shuffle_two_coupons_into_the_regular_deck():
    eng = _table()
    pile = len(eng.coupons)
    deck = len(eng.deck)
    _reveal(eng, "walk_ins")
    assert len(eng.coupons) == pile - 2 and len(eng.deck) == deck + 2
    assert sum(DATA.customers[c].coupon for c in eng.deck if c < 60) == 2


def test_walk_ins_shuffle_the_coupons_in_rather_than_put_them_on_top():
    """"Shuffle 2 random Coupon customers ... into the Regular deck": over twelve generators the
    Coupons land at many depths, not always the next two cards."""
    import numpy as np

    depths = set()
    eng0 = engine(0, players=3, events=True)
    key = DATA.recipes[next(r for r, h in enumerate(eng0.recipe_holder) if h >= 0)].key
    for s in range(12):
        eng = _table(deck=[regular(key, 1 + k % 3) for k in range(8)])
        eng.rng = np.random.default_rng(s)
        _reveal(eng, "walk_ins")
        assert len(eng.deck) == 10
        depths |= {len(eng.deck) - 1 - k for k, c in enumerate(eng.deck) if c < 60 and DATA.customers[c].coupon}
    assert len(depths) > 5 and max(depths) >= 5


def test_impatient_crowd_takes_ten_seconds_of_sand_from_the_next_customer_too():
    """v1: the timer flipped when the card leaves loses the crowd's 10 s as well (v0 refilled it: no cost)."""
    eng = _table(timers=(25, 4))
    nxt = eng.deck[-1]
    _reveal(eng, "impatient_crowd")
    assert eng.timers == [15, 0]
    step(eng)  # a timer is empty: the card leaves, the empty timer is flipped for the next customer
    assert eng.current == nxt and eng.timers == [14, eng.T - 10]


def test_supply_delivery_refills_empty_tokens():
    eng = _table()
    live = _live(eng)
    eng.ing_level[live[0]] = 0
    eng.ing_level[live[1]] = 4
    _reveal(eng, "supply_delivery")
    assert eng.ing_level[live[0]] == 1 and eng.ing_level[live[1]] == 4


def test_lucky_cat_brings_two_hustle_tokens():
    eng = _table()
    _reveal(eng, "lucky_cat")
    assert eng.hustle == 2


def _eor(key, income=20, late=0):
    eng = _table()
    eng.phase = "closed"
    eng.income = income
    r = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    eng.served[0] = [[5 * r, 1]] * late + [[5 * r + 1, 0]]
    eng.events_today = [DATA.event_id(key)]
    daily_accounting.accounting(eng)
    return eng.history[-1][1], eng


def test_end_of_round_events_resolve_at_accounting():
    assert _eor("rent_increase")[0] == 17
    assert _eor("bad_review", late=2)[0] == 18
    assert _eor("food_critic", late=0)[0] == 23
    assert _eor("food_critic", late=1)[0] == 17
    assert _eor("tax_collector", income=25)[0] == 23
    assert _eor("generous_tipper")[0] == 22


def test_end_of_round_event_changes_the_income_reward():
    eng = _table()
    eng.phase = "closed"
    eng.income = 50
    eng.events_today = [DATA.event_id("rent_increase")]
    eng.invalidate_masks()
    res = step(eng)
    assert eng.history[-1][1] == 47 and abs(res.rewards["chef_0"] - (-0.3)) < 1e-9


def test_events_revealed_today_are_discarded_and_undrawn_ones_stay():
    eng = _table()
    seen = DATA.event_id("lucky_cat")
    eng.deck = [event_card("rent_increase"), regular(DATA.recipes[next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)].key)]
    eng.events_today = [seen]
    eng.phase = "closed"
    eng.income = 100
    daily_accounting.accounting(eng)
    assert seen in eng.events_gone and event_card("lucky_cat") not in eng.deck
    assert event_card("rent_increase") in eng.deck


def test_drawn_events_are_not_resolved_again_at_accounting():
    eng = _table()
    eng.ing_level = [1 if h >= 0 else 0 for h in eng.ing_holder]
    eng.events_today = [DATA.event_id("health_inspector")]
    eng.phase = "closed"
    eng.income = 100
    daily_accounting.accounting(eng)
    assert eng.ing_level == [1 if h >= 0 else 0 for h in eng.ing_holder]


def test_event_cost_measurement_runs_and_forces_only_the_named_card():
    from envs.wok_star.rules import events

    rows = events.measure(games=2, keys=["rent_increase"])
    assert [r["event"] for r in rows] == ["none", "rent_increase"] and all(r["games"] == 2 for r in rows)
    assert "Rent Increase" in events.table(rows)
    out = events.play_forced("rent_increase", 0)
    assert out["days_completed"] >= 1 and set(out["events_seen"]) == {"rent_increase"}
    assert events.play_forced(None, 0)["events_seen"] == []
