"""Setup (rulebook steps 1-16, Two Players, optional-rule setup) and the team's setup decisions."""

from __future__ import annotations

import pytest

from envs.wok_star.cards import is_event_card
from envs.wok_star.rules import next_day_prep, setup
from tests.wok_star.helpers import DATA, a, config, engine, step
from envs.wok_star.engine import WokStarEngine


@pytest.mark.parametrize("players,prices", [(2, [11, 16]), (3, [11, 11, 16]), (4, [11, 11, 16, 16])])
def test_recipes_dealt_per_the_setup_table(players, prices):
    for seed in range(10):
        eng = engine(seed, players=players)
        dealt = [DATA.recipes[r].price for s in range(players) for r, h in enumerate(eng.recipe_holder) if h == s]
        assert dealt == prices


def test_setup_components_per_player():
    eng = engine(3, players=4)
    in_play = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    needed = {i for r, h in enumerate(eng.recipe_holder) if h >= 0 for i in DATA.recipes[r].ingredients}
    assert set(in_play) == needed
    # tokens on row 1, two Hustle tokens covering the two rightmost methods of every card
    assert all(eng.ing_level[i] == 1 and eng.ing_unlocked[i] == 2 for i in in_play)
    assert eng.covering == 2 * len(in_play) and eng.hustle == 0
    assert eng.hustle_supply == 25 - 2 * len(in_play)
    assert eng.pool == [2, 2, 2, 2] and eng.cubes == [2, 2, 2, 2] and eng.goal_cubes == [True] * 4
    assert all(sum(1 for h in eng.ing_holder if h == s) >= 1 for s in range(4))
    # Customer decks from the recipes in play: Regular in the deck (one revealed), Coupons aside
    in_play_r = [r for r, h in enumerate(eng.recipe_holder) if h >= 0]
    regular = sorted(eng.deck + [eng.current])
    assert regular == sorted(5 * r + k for r in in_play_r for k in range(3))
    assert sorted(eng.coupons) == sorted(5 * r + k for r in in_play_r for k in (3, 4))
    assert eng.phase == "open" and eng.day == 1 and eng.timers == [eng.T, 0]
    assert all(p > 0 for p in eng.die_pip if p >= 0)  # every die rolled


def test_two_player_setup_removes_31_recipes_and_gives_one_player_3_dice():
    for seed in range(10):
        eng = engine(seed, players=2)
        assert all(eng.recipe_holder[r.id] == -2 for r in DATA.recipes if r.price == 31)
        assert sorted(eng.pool) == [2, 3]
        assert sum(1 for p in eng.die_pip if p >= 0) == 5


def test_two_player_offers_never_include_31_recipes():
    eng = engine(1, players=2)
    eng.income = 40
    next_day_prep.start_prep(eng)
    assert eng.offers and all(DATA.recipes[r].price != 31 for r in eng.offers)


def test_team_setup_is_a_sequence_of_decisions_with_pro_tip_default():
    eng = engine(5, players=3, setup="team", powers=True)
    assert eng.phase == "choose_character" and eng.turn == 0
    step(eng, {0: ("choose_character", {"character": "grandpa"})})
    assert eng.character[0] == DATA.character_id("grandpa") and eng.turn == 1
    assert not eng.action_mask("chef_1")[a(eng, "choose_character", character="grandpa")]
    step(eng)  # chef_1 waits: first free character
    assert eng.character[1] == DATA.character_id("chris")
    step(eng, {2: ("choose_character", {"character": "lily"})})
    assert eng.phase == "distribute"
    cards_in_play = list(eng.pending)
    k = 0
    while eng.phase == "distribute":
        assert eng.turn == k % 3
        step(eng)  # waiting takes the Pro Tip choice
        k += 1
    assert k == len(cards_in_play)
    for i in cards_in_play:
        holder = eng.ing_holder[i]
        # Pro Tip: nobody who needs the card gets it unless everyone needs it
        needers = {h for r, h in enumerate(eng.recipe_holder) if h >= 0 and i in DATA.recipes[r].ingredients}
        assert holder not in needers or needers == {0, 1, 2}
    assert eng.phase == "open" and eng.day == 1


def test_distribution_keeps_one_card_for_every_chef():
    eng = engine(2, players=3, setup="team")
    assert eng.phase == "distribute"
    # chef_0, chef_1, ... give every card but the last ones to chef_0
    while len(eng.pending) > 2:
        seat = eng.turn
        step(eng, {seat: ("give_ingredient", {"chef": (0 - seat) % 3})})
    # two cards left, chef_1 and chef_2 have none: only they may get them
    seat = eng.turn
    assert not eng.action_mask(eng.agents[seat])[a(eng, "give_ingredient", chef=(0 - seat) % 3)]
    assert "at least one Ingredient card" in eng.why_illegal(eng.agents[seat], a(eng, "give_ingredient", chef=(0 - seat) % 3))
    while eng.phase == "distribute":
        step(eng)
    assert all(sum(1 for h in eng.ing_holder if h == s) >= 1 for s in range(3))


def test_two_player_team_chooses_who_starts_with_three_dice():
    eng = engine(0, players=2, setup="team")
    while eng.phase == "distribute":
        step(eng)
    assert eng.phase == "third_die" and eng.turn == 0
    step(eng, {0: ("give_third_die", {"chef": 1})})
    assert eng.pool == [2, 3] and eng.phase == "open"


def test_events_setup_shuffles_two_events_into_the_regular_deck():
    eng = engine(4, players=3, events=True)
    cards = eng.deck + [eng.current]
    assert sum(is_event_card(c) for c in cards) == 2
    assert len(eng.event_pile) == 13


def test_powers_auto_setup_deals_distinct_characters():
    eng = engine(4, players=4, powers=True)
    assert len(set(eng.character)) == 4 and min(eng.character) >= 0


def test_same_seed_same_deal_and_different_seeds_differ():
    c = config(players=3, events=True)
    a1, a2 = WokStarEngine.new(c, 11), WokStarEngine.new(c, 11)
    assert a1.to_dict() == a2.to_dict()
    deals = {tuple(WokStarEngine.new(c, s).deck) for s in range(5)}
    assert len(deals) > 1


def test_pro_tip_gives_a_card_to_a_chef_who_does_not_need_it_with_fewest_cards():
    from tests.wok_star.helpers import give_recipe, ing
    eng = engine(0, players=3)
    eng.recipe_holder = [-1] * 12
    eng.ing_holder = [-1] * 10
    give_recipe(eng, "fried_rice", 0)  # rice, egg -> chef_0 for now
    eng.recipe_holder[DATA.recipe_id("egg_drop_soup")] = 1  # egg, chicken
    eng.ing_holder[ing("chicken")] = 2
    eng.ing_holder[ing("rice")] = -1
    eng.pending = [ing("rice")]
    # rice: chef_0 needs it; chef_1 (1 card? no: 0 cards) and chef_2 (1 card) do not -> chef_1
    assert setup.pro_tip_holder(eng, ing("rice"), setup=False) == 1
    eng.ing_holder[ing("bok_choy")] = 1
    eng.ing_holder[ing("beef")] = 1
    assert setup.pro_tip_holder(eng, ing("rice"), setup=False) == 2


def test_auto_third_die_goes_to_the_chef_with_more_ingredient_cards():
    for seed in range(6):
        eng = engine(seed, players=2)
        cards = [sum(1 for h in eng.ing_holder if h == s) for s in (0, 1)]
        expect = 0 if cards[0] >= cards[1] else 1
        assert eng.pool[expect] == 3


def test_the_default_truncation_is_the_documented_bound():
    from envs import wok_star_v1
    for kw in ({"players": 2}, {"players": 4, "events": True, "timer_seconds": 20.0, "seconds_per_tick": 0.5}):
        env = wok_star_v1.parallel_env(**kw)
        assert env.max_ticks == wok_star_v1.max_episode_steps(**kw)
    assert wok_star_v1.max_episode_steps(players=4, events=True) > wok_star_v1.max_episode_steps(players=4)


@pytest.mark.parametrize("key, value", [("goal_cubes", 3), ("two_player_third_die_pool", 4),
                                        ("ingredient_start_row", 2), ("open_methods", 3)])
def test_setup_constants_are_read_from_the_data(monkeypatch, key, value):
    """v1: the rulebook's setup constants (4 goal cubes, 3 dice for one of 2 players, tokens on row 1,
    2 open methods) are data: changing the value in the data changes the rule."""
    from tests.wok_star.helpers import engine_with_data, patched_data

    eng = engine_with_data(monkeypatch, patched_data(components={key: value}), players=2)
    live = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    if key == "goal_cubes":
        assert eng.goal_cubes == [True] * 3
    elif key == "two_player_third_die_pool":
        assert sorted(eng.pool) == [2, 4] and sum(1 for p in eng.die_pip if p > 0) == 6
    elif key == "ingredient_start_row":
        assert all(eng.ing_level[i] == 2 for i in live)
    else:
        assert all(eng.ing_unlocked[i] == 3 for i in live)
