"""Observations show what a chef sees at the table, and nothing hidden."""

from __future__ import annotations

import numpy as np

from envs import frying_master_v1
from envs.frying_master.heuristic import decide
from tests.frying_master.helpers import C, CAT, F, P, act, counts, step


def _env(seed=0, **kw):
    env = frying_master_v1.parallel_env(**kw)
    env.reset(seed=seed)
    return env


def _advance(env, ticks, seed=0):
    """Play some random legal ticks so the table is in a mid-round state."""
    rng = np.random.default_rng(seed)
    for _ in range(ticks):
        obs = {a: env.observe(a) for a in env.agents}
        env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})


def _back(p):
    """What the back of plate ``p`` shows: its printed Stir-Fry Mode and the ingredient hint."""
    return CAT.plates[p].mode, CAT.plates[p].hint


def _hide_differently(eng, rng):
    """Change only hidden information: which face-down card is which (per
    category), the piles below their tops, and the generator."""
    for c, d in enumerate(eng.table.down):
        eng.table.down[c] = [d[i] for i in rng.permutation(len(d))]
    preorder = CAT.modes[eng.mode].kind == "preorder"
    for pile in eng.piles:
        if len(pile) > 2:
            below = pile.cards[:-1]
            pile.cards = [below[i] for i in rng.permutation(len(below))] + [pile.cards[-1]]
    if not preorder:  # the top's order side is not shown: swap it for a plate with the same back
        for k, pile in enumerate(eng.piles):  # (mode and hint; in the data no two plates share one)
            if not pile:
                continue
            top = pile.cards[-1]
            for other in eng.piles:
                for i, p in enumerate(other.cards[:-1]):
                    if p != top and _back(p) == _back(top):
                        other.cards[i], pile.cards[-1] = top, p
                        break
    eng.rng.random(17)
    eng.invalidate_masks()


def test_observations_do_not_change_when_only_hidden_information_changes():
    checked = 0
    for seed, kw in enumerate([dict(players=2, mode="drawn"), dict(players=3, mode="mixed"),
                               dict(players=4, mode="teppanyaki"), dict(players=3, mode="casual")]):
        env = _env(seed, **kw)
        _advance(env, 25, seed)
        eng = env.unwrapped.engine
        before = {a: env.observe(a) for a in env.agents}
        state_before = env.state()
        decisions = {a: decide(eng.public_view(a)) for a in env.agents}
        _hide_differently(eng, np.random.default_rng(seed + 100))
        assert not np.array_equal(state_before, env.state()), "the hidden change must be real"
        for a in env.agents:
            after = env.observe(a)
            np.testing.assert_array_equal(before[a]["observation"], after["observation"])
            np.testing.assert_array_equal(before[a]["action_mask"], after["action_mask"])
            assert decide(eng.public_view(a)) == decisions[a]
            checked += 1
    assert checked == 12


def test_observations_do_change_when_visible_information_changes():
    env = _env(1, players=2, mode="mixed")
    _advance(env, 5)
    eng = env.unwrapped.engine
    before = env.observe("chef_0")["observation"]
    down_meat = eng.table.down[C("meat")]
    assert down_meat
    eng.table.flip(C("meat"))
    eng.invalidate_masks()
    after = env.observe("chef_0")["observation"]
    lay = env.encoder.layout
    assert lay.get(after, "table_face_down")[C("meat")] == lay.get(before, "table_face_down")[C("meat")] - 1
    assert lay.get(after, "table_face_up").sum() == lay.get(before, "table_face_up").sum() + 1


def test_face_down_cards_appear_only_as_counts_per_category():
    env = _env(2, players=3)
    lay = env.encoder.layout
    eng = env.unwrapped.engine
    obs = env.observe("chef_1")["observation"]
    np.testing.assert_array_equal(lay.get(obs, "table_face_down"), [len(d) for d in eng.table.down])
    np.testing.assert_array_equal(lay.get(obs, "table_face_up"), eng.table.up)
    assert "table_face_down_by_food" not in lay.slices and "table_face_down_by_food" in env.encoder.state_layout.slices


def test_every_plate_and_spatula_is_visible_with_the_observer_first():
    env = _env(0, players=3, mode="mixed")
    eng = env.unwrapped.engine
    eng.phase, eng.choose_queue = "play", []
    eng.plates["chef_2"] = P("Fried Rice")
    eng.plate_cards["chef_2"] = counts("rice", "beef")
    eng.loads["chef_2"][0] = [F("carrot")]
    eng.invalidate_masks()
    lay = env.encoder.layout
    for viewer, seat in (("chef_2", 0), ("chef_0", 2), ("chef_1", 1)):
        o = env.observe(viewer)["observation"]
        assert lay.get(o, "plate_cards")[seat][F("beef")] == 1
        assert lay.get(o, "spatula_load")[seat][0][F("carrot")] == 1
        assert lay.get(o, "plate_fixable")[seat] == 1 and lay.get(o, "plate_missing")[seat] == 1
        front = lay.get(o, "plate_front")[seat]
        assert front[-1] == CAT.plates[P("Fried Rice")].flavour


def test_pile_backs_are_visible_and_fronts_only_in_pre_order_fry():
    for mode, fronts in (("mixed", False), ("preorder", True)):
        env = _env(3, players=2, mode=mode)
        eng = env.unwrapped.engine
        lay = env.encoder.layout
        o = env.observe("chef_0")["observation"]
        top = eng.piles[0].peek()
        np.testing.assert_array_equal(lay.get(o, "pile_top_hint")[0], CAT.plates[top].hint)
        assert (lay.get(o, "pile_top_front")[0].sum() > 0) == fronts
        if fronts:
            assert lay.get(o, "pile_top_front")[0][-1] == CAT.plates[top].flavour


def test_the_top_plates_printed_mode_is_observed_with_its_hint():
    """The back of each pile's top plate shows its Stir-Fry Mode as well as the hint."""
    env = _env(3, players=2, mode="mixed")
    eng = env.unwrapped.engine
    lay = env.encoder.layout
    eng.piles[0].cards[-1], eng.piles[1].cards[-1] = P("Kung Pao Chicken"), P("Fried Rice")
    eng.invalidate_masks()
    for a in env.agents:
        o = env.observe(a)["observation"]
        modes = lay.get(o, "pile_top_mode")
        np.testing.assert_array_equal(modes[0], np.eye(len(CAT.modes))[CAT.mode("casual").idx])
        np.testing.assert_array_equal(modes[1], np.eye(len(CAT.modes))[CAT.plates[P("Fried Rice")].mode])
        np.testing.assert_array_equal(lay.get(o, "pile_top_hint")[0], CAT.plates[P("Kung Pao Chicken")].hint)
    eng.piles[1].cards = []
    eng.invalidate_masks()
    assert lay.get(env.observe("chef_0")["observation"], "pile_top_mode")[1].sum() == 0  # an empty pile shows none
    assert "back Casual Fry" in env.unwrapped.render_text()


def test_every_plate_back_identifies_its_plate():
    """Why a hidden swap of a top plate finds no partner: in the data (mode, hint) is unique."""
    assert len({_back(p.idx) for p in CAT.plates}) == len(CAT.plates)


def test_completed_orders_foods_are_seen_by_every_player_and_nothing_hidden_is():
    """Completed orders lie face up: the food on them, right or wrong, is in every chef's
    observation (at that chef's seat); a hidden change leaves every observation as it was."""
    env = _env(0, players=3, mode="mixed")
    eng = env.unwrapped.engine
    eng.phase, eng.choose_queue = "play", []
    done = [(P("Sweet and Sour Pork"), counts("pork", "pork", "bell_pepper")), (P("Kung Pao Chicken"), counts("beef", "rice", "carrot"))]
    eng.completed["chef_1"] = done
    for p, c in done:
        for f, k in enumerate(c):  # the served cards leave the table
            for _ in range(k):
                if eng.table.up[f]:
                    eng.table.up[f] -= 1
                else:
                    eng.table.down[CAT.foods[f].category].remove(f)
        for pile in eng.piles:
            if p in pile.cards:
                pile.remove(p)
    eng.invalidate_masks()
    lay = env.encoder.layout
    expected = np.array(counts("pork", "pork", "bell_pepper", "beef", "rice", "carrot"), dtype=np.float32)
    before = {}
    for viewer, seat in (("chef_0", 1), ("chef_1", 0), ("chef_2", 2)):
        o = env.observe(viewer)["observation"]
        np.testing.assert_array_equal(lay.get(o, "completed_foods")[seat], expected)
        assert lay.get(o, "completed_foods").sum() == expected.sum()  # nobody else has served
        before[viewer] = o
    state_before = env.state()
    _hide_differently(eng, np.random.default_rng(7))
    assert not np.array_equal(state_before, env.state())
    for a in env.agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], before[a])


def test_completed_orders_score_and_bonus_categories_are_public():
    env = _env(0, players=2, mode="meat")
    eng = env.unwrapped.engine
    eng.phase, eng.choose_queue = "play", []
    eng.completed["chef_1"] = [(P("Sweet and Sour Pork"), counts("pork", "pork", "bell_pepper")),
                               (P("Mixed Grill"), counts("beef"))]
    eng.invalidate_masks()
    lay = env.encoder.layout
    o = env.observe("chef_0")["observation"]
    assert lay.get(o, "completed_orders")[1] == 2 and lay.get(o, "completed_score")[1] == 4
    assert lay.get(o, "completed_cards")[1][C("meat")] == 2  # the wrong order's beef does not count
    assert lay.get(o, "completed_types")[1][0] == 1


def test_my_choice_turn_is_set_for_the_chooser_only():
    env = _env(4, players=3)
    eng = env.unwrapped.engine
    lay = env.encoder.layout
    for a in env.agents:
        assert lay.get(env.observe(a)["observation"], "my_choice_turn") == (1 if a == eng.choose_queue[0] else 0)


def test_state_holds_the_hidden_information():
    env = _env(5, players=2)
    eng = env.unwrapped.engine
    s = env.state()
    sl = env.encoder.state_layout
    np.testing.assert_array_equal(sl.get(s, "table_face_down_by_food"), eng.table.down_by_food())
    top = eng.piles[1].peek()
    assert sl.get(s, "plate_location")[top][1] == 1 and sl.get(s, "pile_depth")[top] == 0
    step(eng, **{eng.choose_queue[0]: act(eng, "draw", pile="B")})
    assert env.state_space.contains(env.state())
