"""Next Day Prep: the team purchase protocol, recipes, upgrades, advertising, Hustle."""

from __future__ import annotations

from envs.wok_star.rules import daily_accounting, next_day_prep
from tests.wok_star.helpers import DATA, a, engine, legal, step


def _prep(money=40, players=3, seed=0, **kw):
    eng = engine(seed, players=players, **kw)
    eng.income = money
    next_day_prep.start_prep(eng)
    eng.invalidate_masks()
    return eng


def test_prep_offers_three_recipes_not_in_the_game_and_the_lead_chef_starts():
    eng = _prep()
    assert eng.phase == "prep" and len(eng.offers) == 3 and eng.turn == 0 and eng.money == 40
    assert all(eng.recipe_holder[r] == -1 for r in eng.offers)
    for s in (1, 2):
        assert eng.legal_actions(eng.agents[s]) == [0]


def test_buying_a_recipe_gives_its_new_cards_tokens_hustle_covers_and_customers():
    eng = _prep(money=40)
    k = min(range(3), key=lambda k: DATA.recipes[eng.offers[k]].price)
    r = eng.offers[k]
    recipe = DATA.recipes[r]
    new = [i for i in recipe.ingredients if eng.ing_holder[i] < 0]
    deck, coupons, covering = len(eng.deck), len(eng.coupons), eng.covering
    step(eng, {0: ("buy_recipe", {"offer": k, "chef": 2})})
    assert eng.recipe_holder[r] == 2 and eng.money == 40 - recipe.price
    assert len(eng.deck) == deck + 3 and len(eng.coupons) == coupons + 2
    assert eng.covering == covering + 2 * len(new)
    assert eng.pending == new
    if new:
        assert eng.turn == 0 and legal(eng, 0, "give_ingredient", chef=1)
        assert not legal(eng, 0, "upgrade", ingredient=DATA.ingredients[new[0]].key)
        for j, i in enumerate(new):
            step(eng, {0: ("give_ingredient", {"chef": 1})})
            assert eng.ing_holder[i] == 1 and eng.ing_level[i] == 1 and eng.ing_unlocked[i] == 2
    assert eng.turn == 1 and not eng.pending


def test_upgrades_in_order_left_to_right_for_six_dollars_token_to_the_pool():
    eng = _prep(money=12, players=2)
    i = next(i for i, h in enumerate(eng.ing_holder) if h >= 0)
    key = DATA.ingredients[i].key
    assert eng.ing_unlocked[i] == 2
    step(eng, {0: ("upgrade", {"ingredient": key})})
    assert eng.ing_unlocked[i] == 3 and eng.money == 6 and eng.hustle == 1
    step(eng, {1: ("upgrade", {"ingredient": key})})
    assert eng.ing_unlocked[i] == 4 and eng.money == 0 and eng.hustle == 2
    eng.money = 6
    eng.turn = 0
    eng.invalidate_masks()
    assert not legal(eng, 0, "upgrade", ingredient=key)
    assert "already uncovered" in eng.why_illegal("chef_0", a(eng, "upgrade", ingredient=key))


def test_purchases_need_the_money():
    eng = _prep(money=5)
    assert not any(legal(eng, 0, "buy_recipe", offer=k, chef=0) for k in range(3))
    i = next(i for i, h in enumerate(eng.ing_holder) if h >= 0)
    assert "costs $6" in eng.why_illegal("chef_0", a(eng, "upgrade", ingredient=DATA.ingredients[i].key))
    assert legal(eng, 0, "buy_hustle")
    step(eng, {0: ("buy_hustle", {})})
    assert eng.money == 3 and eng.hustle == 1


def test_advertising_is_free_and_hides_which_coupon_went_in():
    eng = _prep(money=0)
    pile, deck = len(eng.coupons), len(eng.deck)
    step(eng, {0: ("advertise", {})})
    assert len(eng.coupons) == pile - 1 and len(eng.deck) == deck + 1 and eng.money == 0
    view = eng.public_view("chef_1").table
    assert view["coupons_in_deck"] == 1 and view["coupon_pile"] == pile - 1


def test_turns_rotate_until_every_chef_passes_in_a_row_and_money_is_lost():
    eng = _prep(money=10)
    step(eng, {0: ("buy_hustle", {})})
    assert eng.turn == 1
    step(eng)  # chef_1 passes
    step(eng)  # chef_2 passes
    assert eng.phase == "prep" and eng.turn == 0
    step(eng, {0: ("buy_hustle", {})})  # a purchase resets the passes
    assert eng.passes == 0
    for _ in range(3):
        step(eng)
    assert eng.phase == "open" and eng.day == 2 and eng.money == 0 and eng.income == 0


def test_prep_ends_at_once_when_nothing_can_be_bought():
    eng = _prep(money=1)
    eng.coupons = []
    eng.invalidate_masks()
    next_day_prep.end_prep_if_nothing_to_buy(eng)
    assert eng.phase == "open" and eng.day == 2


def test_powers_flip_back_at_next_day_prep():
    eng = engine(0, players=3, powers=True)
    eng.power_used = [True, True, False]
    eng.income = 20
    next_day_prep.start_prep(eng)
    assert eng.power_used == [False, False, False]


def test_new_day_adds_two_new_events_to_the_undrawn_ones():
    eng = engine(3, players=3, events=True)
    eng.phase = "closed"
    eng.income = 999
    daily_accounting.accounting(eng)
    undrawn = sum(1 for c in eng.deck if c >= 60)
    pile = len(eng.event_pile)
    assert eng.phase == "goal_cubes"
    step(eng)
    next_day_prep.end_prep(eng)
    assert eng.day == 2 and len(eng.event_pile) == pile - 2
    assert sum(1 for c in eng.deck + [eng.current] if c >= 60) == undrawn + 2
