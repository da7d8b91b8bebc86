"""Open for Business: serving, the sand timers, closing for business."""

from __future__ import annotations

from tests.wok_star.helpers import DATA, a, engine, event_card, ing, legal, open_table, regular, step


def _kitchen(seed=0, players=3, **kw):
    """An open day where chef_0 holds Fried Rice (rice, egg) and Egg Rolls (wrappers, pork)."""
    eng = engine(seed, players=players)
    eng.recipe_holder = [-1] * 12
    eng.ing_holder = [-1] * 10
    eng.ing_unlocked = [0] * 10
    from tests.wok_star.helpers import give_recipe
    give_recipe(eng, "fried_rice", 0)
    give_recipe(eng, "egg_rolls", 0)
    give_recipe(eng, "lo_mein", 1)
    return open_table(eng, **kw)


def test_serving_moves_every_ingredient_down_one_row_and_pays_on_time():
    eng = _kitchen(current=regular("fried_rice", 2), deck=[regular("lo_mein")], levels={"rice": 2, "egg": 1},
                   timers=(10, 3))
    res = step(eng, {0: ("serve", {"flip": "low"})})
    assert eng.ing_level[ing("rice")] == 1 and eng.ing_level[ing("egg")] == 0
    assert eng.served[0] == [[regular("fried_rice", 2), 0]]
    assert eng.income == 4 and res.rewards["chef_1"] == 0.4  # default reward: $ x 0.1, shared
    assert eng.current == regular("lo_mein")


def test_late_serve_is_worth_one_dollar_less():
    eng = _kitchen(current=regular("fried_rice", 2), deck=[regular("lo_mein")], levels={"rice": 1, "egg": 1},
                   timers=(0, 0))
    step(eng, {0: ("serve", {"flip": "low"})})
    assert eng.served[0] == [[regular("fried_rice", 2), 1]]
    assert eng.income == 4 - 1


def test_only_the_recipe_holder_serves_and_never_from_row_zero():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein")], levels={"rice": 1, "egg": 0})
    assert not legal(eng, 0, "serve", flip="low")
    assert "egg" in eng.why_illegal("chef_0", a(eng, "serve", flip="low"))
    eng.ing_level[ing("egg")] = 1
    eng.invalidate_masks()
    assert legal(eng, 0, "serve", flip="low")
    assert not legal(eng, 1, "serve", flip="low")
    assert "only the holder" in eng.why_illegal("chef_1", a(eng, "serve", flip="low"))


def test_timers_run_one_tick_per_step_and_flip_leaves_full_minus_remaining():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein"), regular("egg_rolls")],
                   levels={"rice": 3, "egg": 3}, timers=(12, 22))
    step(eng)
    assert eng.timers == [11, 21]
    step(eng, {0: ("serve", {"flip": "low"})})  # the 11 flips to 30 - 11 = 19 and starts to run next tick
    assert eng.timers == [eng.T - 11, 20]
    eng.current = regular("fried_rice", 1)
    eng.invalidate_masks()
    step(eng, {0: ("serve", {"flip": "high"})})  # (19, 20): the high one (20) flips to 10
    assert eng.timers == [18, eng.T - 20]


def test_first_serve_flips_the_second_empty_timer():
    eng = engine(0, players=2)
    cu = eng.current_customer()
    holder = eng.recipe_holder[cu.recipe]
    for i in DATA.recipes[cu.recipe].ingredients:
        eng.ing_level[i] = 2
    eng.invalidate_masks()
    assert eng.timers == [eng.T, 0] and not eng.first_served
    assert not legal(eng, holder, "serve", flip="high")
    assert "first serve" in eng.why_illegal(eng.agents[holder], a(eng, "serve", flip="high"))
    for _ in range(5):
        step(eng)
    step(eng, {holder: ("serve", {"flip": "low"})})
    assert eng.timers == [eng.T - 6, eng.T]


def test_a_customer_revealed_by_a_serve_gets_exactly_the_timers_full_sand():
    """v1: the flipped timer's sand starts to run in the tick after the serve, so the next customer
    is on time for exactly T ticks (v0 gave T - 1)."""
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("fried_rice", 2), regular("fried_rice", 1)],
                   levels={"rice": 5, "egg": 5}, timers=(1, 0))
    step(eng, {0: ("serve", {"flip": "low"})})  # the empty timer flips to T; the other runs out
    assert eng.current == regular("fried_rice", 1) and eng.timers == [0, eng.T]
    for _ in range(eng.T - 1):
        step(eng)
    assert eng.timers == [0, 1]  # T - 1 ticks waited: the T-th tick is still on time
    probe = eng.clone()
    step(probe, {0: ("serve", {"flip": "low"})})
    assert probe.served[0][-1] == [regular("fried_rice", 1), 0]
    step(eng)  # the T-th tick runs out
    assert eng.timers == [0, 0]
    step(eng, {0: ("serve", {"flip": "low"})})
    assert eng.served[0][-1] == [regular("fried_rice", 1), 1]  # after T ticks: late


def test_no_serving_while_the_timers_are_stopped_for_washing():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein")], levels={"rice": 1, "egg": 1},
                   timers=(9, 4))
    eng.die_pip[5] = 0  # a dirty die
    eng.invalidate_masks()
    step(eng, {1: ("wash", {})})
    assert eng.phase == "wash" and eng.timers == [9, 4]
    assert not legal(eng, 0, "serve", flip="low")
    assert "while the timers run" in eng.why_illegal("chef_0", a(eng, "serve", flip="low"))
    step(eng)  # nobody does anything: the wash ends, one timer flipped
    assert eng.phase == "open" and sorted(eng.timers) == sorted([eng.T - 4, 9])


def test_simultaneous_serve_and_auntie_reseat_one_is_blocked():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein"), regular("egg_rolls")],
                   levels={"rice": 1, "egg": 1})
    eng.config["powers"] = True
    eng.character = [0, DATA.character_id("auntie"), 2]
    eng.invalidate_masks()
    blocked = set()
    for seed in range(12):
        e = eng.clone()
        e.rng = __import__("numpy").random.default_rng(seed)
        res = step(e, {0: ("serve", {"flip": "low"}), 1: ("auntie_reseat", {})})
        assert len(res.blocked) == 1
        blocked |= set(res.blocked)
        assert "already left the counter" in next(iter(res.blocked.values()))
    assert blocked == {"chef_0", "chef_1"}


def test_closing_needs_every_chef_to_vote_in_the_same_tick():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein")], levels={"rice": 1, "egg": 1},
                   dice={0: [3, 4], 1: [2, 2], 2: [6]})
    step(eng, {0: ("close", {}), 1: ("close", {})})
    assert eng.phase == "open"
    step(eng, {0: ("close", {}), 1: ("close", {}), 2: ("close", {})})
    assert eng.phase == "closed" and "chose to close" in eng.close_reason


def test_serving_the_last_card_closes_the_restaurant():
    eng = _kitchen(current=regular("fried_rice"), deck=[], levels={"rice": 1, "egg": 1},
                   dice={1: [2, 3]})
    step(eng, {0: ("serve", {"flip": "low"})})
    assert eng.phase == "closed" and "served out" in eng.close_reason
    assert eng.current == -1


def test_a_customer_left_waiting_past_patience_walks_out():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein")], levels={"rice": 0, "egg": 1},
                   dice={1: [2, 3]}, timers=(1, 0))
    ticks = 0
    while eng.phase == "open":
        step(eng)
        ticks += 1
    # 1 tick of sand, then patience P ticks late, then it closes
    assert ticks == 1 + eng.P and "walked out" in eng.close_reason


def test_a_team_with_nothing_left_to_do_closes_at_once():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein")], levels={"rice": 0, "egg": 1})
    eng.washes = 2
    eng.invalidate_masks()
    step(eng)
    assert eng.phase != "open" and "stuck" in eng.close_reason


def test_an_event_at_the_counter_never_closes_a_team_with_nothing_to_do():
    """Closing rule (d) is "cannot serve the current customer": with an Event showing there is no
    customer yet, so the team waits for an empty timer and the next card, which may be servable."""
    eng = _kitchen(current=event_card("lucky_cat"), deck=[regular("fried_rice")], levels={"rice": 1, "egg": 1},
                   timers=(2, 5))
    eng.washes = 2  # no dice, no wash, no Hustle: nobody can do anything
    eng.invalidate_masks()
    step(eng)
    assert eng.phase == "open" and eng.current == event_card("lucky_cat") and eng.timers == [1, 4]
    step(eng)  # the low timer empties: it is flipped and the next customer comes
    assert eng.phase == "open" and eng.current == regular("fried_rice")
    step(eng, {0: ("serve", {"flip": "low"})})
    assert "served out" in eng.close_reason
    assert eng.service[-1] == [1, 1, 0, 0]  # day 1: one customer served on time, nobody left waiting


def test_after_closing_remaining_dice_may_still_be_spent_then_accounting():
    eng = _kitchen(current=regular("fried_rice"), deck=[regular("lo_mein")], levels={"rice": 0, "egg": 1, "noodles": 0},
                   dice={0: [1, 4], 1: [1, 5]})
    eng.income = 100
    step(eng, {0: ("close", {}), 1: ("close", {}), 2: ("close", {})})
    assert eng.phase == "closed"
    assert legal(eng, 0, "prepare", ingredient="rice", dice="1+4")
    assert not legal(eng, 0, "serve", flip="low") and not legal(eng, 0, "wash")
    step(eng, {0: ("prepare", {"ingredient": "rice", "dice": "1+4"})})
    assert eng.ing_level[ing("rice")] == 2 and eng.phase == "closed"
    step(eng)  # nobody acts: Daily Accounting
    assert eng.phase in ("goal_cubes", "prep") and eng.day == 1 and eng.history[-1][1] == 100
