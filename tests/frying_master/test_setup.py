"""Setup: scatter, the Stir-Fry Mode card, the two piles, the plate choice."""

from __future__ import annotations

import pytest

from envs.core.engine import NOOP
from envs.core.errors import IllegalActionError
from tests.frying_master.helpers import CAT, act, new_engine, step, table_totals


def test_all_food_cards_and_spice_tiles_are_scattered_with_random_sides():
    ups = []
    for seed in range(5):
        eng = new_engine(seed, players=3, mode="drawn")
        assert table_totals(eng) == [f.count for f in CAT.foods]
        assert eng.table.total() == 58 + 15
        ups.append(eng.table.n_up())
    assert len(set(ups)) > 1 and all(15 < u < 58 for u in ups)


def test_drawn_mode_card_is_set_aside_and_the_rest_split_into_two_piles():
    for seed in range(10):
        eng = new_engine(seed, players=2, mode="drawn")
        assert len(eng.set_aside) == 1
        mode_plate = eng.set_aside[0]
        assert eng.mode == CAT.plates[mode_plate].mode
        piled = eng.piles[0].cards + eng.piles[1].cards
        assert mode_plate not in piled and sorted(piled + [mode_plate]) == list(range(24))
        assert (len(eng.piles[0]), len(eng.piles[1])) == (12, 11)


def test_drawn_modes_vary_with_the_seed():
    assert len({new_engine(s, mode="drawn").mode for s in range(40)}) == len(CAT.modes)


def test_fixed_mode_uses_every_plate_in_two_equal_piles():
    eng = new_engine(3, players=4, mode="casual")
    assert eng.mode == CAT.mode("casual").idx and eng.set_aside == []
    assert (len(eng.piles[0]), len(eng.piles[1])) == (12, 12)


def test_plate_choice_runs_clockwise_from_a_random_first_player_one_tick_each():
    firsts = set()
    for seed in range(20):
        eng = new_engine(seed, players=4, mode="mixed")
        queue = list(eng.choose_queue)
        i = eng.agents.index(queue[0])
        assert queue == [eng.agents[(i + k) % 4] for k in range(4)]
        firsts.add(queue[0])
    assert firsts == {"chef_0", "chef_1", "chef_2", "chef_3"}


def test_only_the_chooser_acts_and_may_take_either_pile():
    eng = new_engine(1, players=3, mode="mixed")
    chooser = eng.choose_queue[0]
    others = [a for a in eng.agents if a != chooser]
    # noop is legal for the chooser too (the mask is the truth: step accepts it, and it takes pile A)
    assert eng.legal_actions(chooser) == [NOOP, act(eng, "draw", pile="A"), act(eng, "draw", pile="B")]
    for a in others:
        assert eng.legal_actions(a) == [NOOP]
    with pytest.raises(IllegalActionError, match=f"it is {chooser}'s turn"):
        step(eng, **{others[0]: act(eng, "draw", pile="A")})
    top_b = eng.piles[1].peek()
    step(eng, **{chooser: act(eng, "draw", pile="B")})
    assert eng.plates[chooser] == top_b
    nxt = eng.choose_queue[0]
    assert nxt == eng.agents[(eng.agents.index(chooser) + 1) % 3] and eng.phase == "choose"


def test_the_chooser_sees_the_backs_hints_before_choosing():
    from envs.frying_master.public import PublicView
    eng = new_engine(2, players=2, mode="mixed")
    view: PublicView = eng.public_view(eng.choose_queue[0])
    assert view.pile_hints == (CAT.plates[eng.piles[0].peek()].hint, CAT.plates[eng.piles[1].peek()].hint)
    assert view.pile_fronts == (None, None)  # the order side stays hidden outside Pre-order Fry


def test_a_hesitating_chooser_takes_pile_a_and_play_starts_after_everyone_chose():
    eng = new_engine(4, players=2, mode="mixed")
    first, second = eng.choose_queue
    top_a = eng.piles[0].peek()
    step(eng)  # the chooser does nothing
    assert eng.plates[first] == top_a
    step(eng, **{second: act(eng, "draw", pile="A")})
    assert eng.phase == "play" and all(eng.plates[a] is not None for a in eng.agents)
    assert eng.play_tick == 0 and eng.tick == 2


def test_each_player_holds_one_spatula_outside_teppanyaki():
    eng = new_engine(0, players=3, mode="drawn")
    if CAT.modes[eng.mode].kind == "teppanyaki":
        assert eng.spatulas == 2
    else:
        assert eng.spatulas == 1
    assert new_engine(0, players=3, mode="casual").spatulas == 1
    assert new_engine(0, players=3, mode="teppanyaki").spatulas == 2
    assert new_engine(0, players=3, mode="casual", teppanyaki=True).spatulas == 2
