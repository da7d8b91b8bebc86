"""Snapshots are validated (envs/frying_master/snapshot.py): a damaged snapshot raises
SnapshotError naming the field and what is allowed, and leaves the game exactly as it was;
every state reached in play is accepted."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

from envs import frying_master_v1
from envs.core.errors import SnapshotError
from envs.frying_master.engine import FryingMasterEngine
from envs.frying_master.rules.how_to_play import Table
from tests.conformance.snapshot_fuzz import mutants, try_restore
from tests.frying_master.helpers import CAT, F

BEEF = F("beef")


def _copy(snap: dict) -> dict:
    return json.loads(json.dumps(snap))


def _play(env, seed: int, until, heuristic: bool = False, limit: int = 3000):
    """Seeded play (random, or every chef the heuristic) until ``until(engine)``; the env's snapshot."""
    rng = np.random.default_rng(seed)
    pol = frying_master_v1.HeuristicPolicy()
    obs, _ = env.reset(seed=seed)
    for _ in range(limit):
        eng = env.unwrapped.engine
        if until(eng):
            return _copy(env.snapshot())
        assert env.agents, "the match ended before the wanted state"
        obs, *_ = env.step({a: pol.act(obs[a], a, env) if heuristic else
                            int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    raise AssertionError("state not reached")


def _env(**kw):
    kw.setdefault("players", 3)
    kw.setdefault("mode", "drawn")
    return frying_master_v1.parallel_env(**kw)


def _refused(env, bad: dict, *patterns: str) -> str:
    """``bad`` is refused by ``reset(options={"snapshot": bad})`` with a message naming
    ``patterns``, and the env is exactly as it was (game, agents, observations)."""
    before = env.snapshot()
    agents = list(env.agents)
    obs = {a: env.observe(a)["observation"].copy() for a in env.agents}
    with pytest.raises(SnapshotError) as err:
        env.reset(options={"snapshot": bad})
    msg = str(err.value)
    for p in patterns:
        assert re.search(p, msg), f"{p!r} not in {msg!r}"
    assert env.snapshot() == before and env.agents == agents
    for a in agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], obs[a])
    # ... and the engine alone refuses it too, changing nothing when loaded in place
    eng = env.unwrapped.engine
    with pytest.raises(SnapshotError):
        FryingMasterEngine.from_dict(bad)
    if bad["state"] != before["state"]:  # (a bad tick or config is the wrapper's: the state alone fits)
        with pytest.raises(SnapshotError):
            eng.load_state_dict(copy.deepcopy(bad["state"]))
    assert eng.to_dict() == before
    return msg


def in_play(env, seed=0):
    return _play(env, seed, lambda e: e.phase == "play" and e.play_tick >= 10)


# ---------------------------------------------------------------------- scenarios


def test_five_extra_beef_cards_are_refused_by_the_component_totals():
    env = _env()
    snap = in_play(env)
    bad = _copy(snap)
    bad["state"]["table"]["down"][CAT.foods[BEEF].category] += [BEEF] * 5  # face-down, so only the totals tell
    msg = _refused(env, bad, re.escape("state.table, loads, plate_cards, completed"), "Food Cards and Spice Tiles",
                   r"beef: 9 \(expected 4\)")
    assert "do not add up" in msg
    bad = _copy(snap)
    bad["state"]["table"]["up"][BEEF] += 5  # image-up: more than the game's beef cards in one place
    _refused(env, bad, "state.table")


def test_a_card_missing_from_every_zone_is_refused():
    env = _env(players=2)
    snap = in_play(env, seed=1)
    bad = _copy(snap)
    up = bad["state"]["table"]["up"]
    f = next(i for i, k in enumerate(up) if k)
    up[f] -= 1
    _refused(env, bad, re.escape(f"{CAT.foods[f].id}: {CAT.foods[f].count - 1} (expected {CAT.foods[f].count})"))


def test_a_spatula_holding_a_card_that_is_also_on_the_table_is_refused():
    env = _env(players=2)
    snap = in_play(env, seed=2)
    bad = _copy(snap)
    st = bad["state"]
    f = next(i for i, k in enumerate(st["table"]["up"]) if k)
    chef = next(a for a in st["loads"] if len(st["loads"][a][0]) < CAT.spatula_capacity)
    st["loads"][chef][0].append(f)  # lifted, but still counted on the table
    _refused(env, bad, "Food Cards and Spice Tiles", rf"{CAT.foods[f].id}: {CAT.foods[f].count + 1} \(expected")


def test_a_duplicate_plate_id_is_refused_naming_both_places():
    env = _env()
    snap = in_play(env, seed=3)
    bad = _copy(snap)
    st = bad["state"]
    pile = 0 if st["piles"][0] else 1
    chef = next(a for a in st["plates"] if st["plates"][a] is not None)
    st["plates"][chef] = st["piles"][pile][-1]  # the top plate of a pile, held as well
    _refused(env, bad, re.escape(f"state.plates.{chef}"), re.escape(f"already at state.piles[{pile}]"),
             "one place only")


def test_a_plate_that_lies_nowhere_is_refused():
    env = _env()
    snap = in_play(env, seed=4)
    bad = _copy(snap)
    lost = bad["state"]["piles"][0].pop()
    _refused(env, bad, "Order Plates do not add up", rf"{lost} \(")


def test_plate_index_out_of_range_is_refused():
    env = _env()
    snap = in_play(env, seed=5)
    bad = _copy(snap)
    bad["state"]["piles"][1][0] = 24
    _refused(env, bad, re.escape("state.piles[1][0]"), "plate index 24", r"0\.\.23")


def test_work_at_play_tick_0_and_a_finisher_holding_a_plate_are_refused():
    """Accepted before 2026-12-07 (a fuzz of one-field mutants), though no legal play reaches them: at play
    tick 0 (nobody has acted since "Wok on Fire!") a card already lifted or on a plate, a plate already given
    up; and a finisher (it served its orders, its plate went, it only waits) holding a plate with food on it."""
    env = _env(players=2)
    start = _play(env, 0, lambda e: e.phase == "play" and e.play_tick == 0)
    chef = sorted(start["state"]["loads"])[0]

    def moved_card(where):
        bad = _copy(start)
        st = bad["state"]
        f = next(i for i, k in enumerate(st["table"]["up"]) if k)
        st["table"]["up"][f] -= 1
        if where == "load":
            st["loads"][chef][0].append(f)
        else:
            st["plate_cards"][chef][f] += 1
        return bad

    _refused(env, moved_card("load"), rf"state\.loads\.{chef}: must be empty at play tick 0")
    _refused(env, moved_card("plate"), rf"state\.plate_cards\.{chef}: must be empty at play tick 0")
    bad = _copy(start)
    bad["state"]["discard"].append(bad["state"]["plates"][chef])
    bad["state"]["plates"][chef] = None
    _refused(env, bad, rf"state\.plates\.{chef}: must be a plate at play tick 0")

    env = _env(players=3)
    snap = _play(env, 0, lambda e: e.phase == "countdown", heuristic=True)
    st = snap["state"]
    (finisher, *_) = st["finishers"]
    bad = _copy(snap)
    pile = next(i for i in (0, 1) if bad["state"]["piles"][i])
    bad["state"]["plates"][finisher] = bad["state"]["piles"][pile].pop()
    _refused(env, bad, rf"state\.plates\.{finisher}: must be null: {finisher} is a finisher")


def test_a_wrong_chooser_is_refused():
    env = _env(players=3)
    snap = _play(env, 6, lambda e: e.phase == "choose" and len(e.choose_queue) == 3)
    bad = _copy(snap)
    q = bad["state"]["choose_queue"]
    q[1], q[2] = q[2], q[1]  # not clockwise
    _refused(env, bad, re.escape("state.choose_queue[1]"), "clockwise")
    bad = _copy(snap)
    bad["state"]["choose_queue"] = bad["state"]["choose_queue"][1:]  # the first chooser skipped, without a plate
    _refused(env, bad, r"state\.plates\.chef_\d", "has chosen")


def test_a_wrong_phase_is_refused():
    env = _env()
    snap = _play(env, 7, lambda e: e.phase == "choose" and len(e.choose_queue) == 2)
    bad = _copy(snap)
    bad["state"]["phase"] = "play"  # setup is not over
    _refused(env, bad, re.escape("state.choose_queue"), "empty once setup is over")
    snap = in_play(env, seed=7)
    bad = _copy(snap)
    bad["state"]["phase"] = "countdown"  # nobody served the round's orders
    _refused(env, bad, re.escape("state.countdown_left"), "during the countdown")
    bad["state"]["countdown_left"] = 2
    _refused(env, bad, re.escape("state.finishers"), "served the round's orders")
    bad = _copy(snap)
    bad["state"]["phase"] = "bogus"
    _refused(env, bad, re.escape("state.phase"), "must be one of")


def test_a_float_or_a_bool_where_an_int_is_is_refused():
    env = _env()
    snap = in_play(env, seed=8)
    for path, value, field in [(("round_no",), 1.0, "state.round_no"), (("play_tick",), 10.5, "state.play_tick"),
                               (("table", "up", 0), True, "state.table.up[0]"),
                               (("busy", "chef_1", 0), 0.0, "state.busy.chef_1[0]"),
                               (("gold", "chef_2"), False, "state.gold.chef_2")]:
        bad = _copy(snap)
        node = bad["state"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        _refused(env, bad, re.escape(field), "must be an integer")


def test_a_missing_or_unknown_key_is_refused():
    env = _env()
    snap = in_play(env, seed=9)
    bad = _copy(snap)
    del bad["state"]["busy"]
    _refused(env, bad, re.escape("state"), re.escape("missing ['busy']"))
    bad = _copy(snap)
    bad["state"]["plates"]["chef_9"] = None
    _refused(env, bad, re.escape("state.plates"), re.escape("unknown ['chef_9']"))
    bad = _copy(snap)
    bad["state"]["table"]["extra"] = []
    _refused(env, bad, re.escape("state.table"), re.escape("unknown ['extra']"))


def test_wrong_lengths_and_spatulas_not_in_use_are_refused():
    env = _env(players=2, mode="casual")  # one spatula each
    snap = in_play(env, seed=10)
    bad = _copy(snap)
    bad["state"]["plate_cards"]["chef_0"].append(0)
    _refused(env, bad, re.escape("state.plate_cards.chef_0"), "list of 18 items")
    bad = _copy(snap)
    bad["state"]["spatulas"] = 2
    _refused(env, bad, re.escape("state.spatulas"), "must be 1")
    env = _env(players=2, mode="drawn")  # two spatulas in the table, one in use unless Teppanyaki
    snap = _play(env, 11, lambda e: e.phase == "play" and e.spatulas == 1 and e.play_tick > 3)
    bad = _copy(snap)
    st = bad["state"]
    f = next(i for i, k in enumerate(st["table"]["up"]) if k)
    st["table"]["up"][f] -= 1
    st["loads"]["chef_0"][1] = [f]
    _refused(env, bad, re.escape("state.loads.chef_0[1]"), "not in use this round")


def test_derived_fields_must_agree():
    env = _env(players=2)
    snap = _play(env, 12, lambda e: e.round_no == 2 and e.phase == "play", heuristic=True)
    st = snap["state"]
    bad = _copy(snap)
    bad["state"]["mode"] = (st["mode"] + 1) % len(CAT.modes)
    _refused(env, bad, re.escape("state.mode"), "round's mode")
    bad = _copy(snap)
    bad["state"]["gold"] = {a: 0 for a in st["gold"]}
    _refused(env, bad, r"state\.gold\.chef_\d", "Gold Spatulas")
    bad = _copy(snap)
    a = st["history"][0]["gold"][0]
    bad["state"]["history"][0]["total"][a] += 1
    _refused(env, bad, re.escape(f"state.history[0].total.{a}"), "as the round's orders give")
    bad = _copy(snap)
    bad["state"]["set_aside"].reverse()
    _refused(env, bad, re.escape("state.set_aside[0]"), "mode card")
    bad = _copy(snap)
    bad["tick"] = st["round_no"]  # round 2 cannot start before round 1 had its ticks
    _refused(env, bad, re.escape("snapshot field tick"), "finished round")


def test_after_the_match_the_last_round_is_scored_again():
    env = _env(players=2)
    snap = _play(env, 13, lambda e: e.done, heuristic=True)
    env.restore(snap)  # an ended match restores, with nobody left to act
    assert env.agents == [] and env.unwrapped.engine.winners
    st = snap["state"]
    last = st["history"][-1]
    a = next(a for a in st["completed"] if st["completed"][a])
    bad = _copy(snap)
    bad["state"]["history"][-1]["orders"][a][0]["valid"] = not last["orders"][a][0]["valid"]
    _refused(env, bad, re.escape(f"state.history[{len(st['history']) - 1}].orders.{a}"))
    bad = _copy(snap)
    bad["state"]["winners"] = []
    _refused(env, bad, re.escape("state.winners"))


def test_a_served_order_short_of_the_orders_number_of_cards_is_refused_by_default():
    """serve_rule='order_size': a completed order holds exactly its order's number of cards;
    with serve_rule='any_food' (v0) one card is a valid served order."""
    for rule in ("order_size", "any_food"):
        env = _env(players=2, mode="mixed", serve_rule=rule)
        snap = _play(env, 23, lambda e: any(e.completed[a] for a in e.agents), heuristic=True)
        a = next(a for a in snap["state"]["completed"] if snap["state"]["completed"][a])
        bad = _copy(snap)
        counts = bad["state"]["completed"][a][0][1]
        f = next(f for f, k in enumerate(counts) if k)
        counts[f] -= 1  # one card fewer on the order, and that card back on the table
        bad["state"]["table"]["up"][f] += 1
        bad["state"]["history"] = snap["state"]["history"]
        if rule == "order_size":
            _refused(env, bad, re.escape(f"state.completed.{a}[0][1]"), "order's number of food cards")
        else:
            env.restore(bad)
            assert env.unwrapped.engine.completed[a][0][1][f] == counts[f]


def test_the_engine_config_is_checked():
    env = _env()
    snap = in_play(env, seed=14)
    for key, value, field in [("mode", "bogus", "config.mode"), ("teppanyaki", 1, "config.teppanyaki"),
                              ("serve_rule", "junk", "config.serve_rule"),
                              ("round_ticks", 5, "config.round_ticks"), ("extra", 1, "config")]:
        bad = _copy(snap)
        bad["config"][key] = value
        with pytest.raises(SnapshotError, match=re.escape(field)):
            FryingMasterEngine.from_dict(bad)
    bad = _copy(snap)
    bad["config"]["seconds_per_tick"] = 0
    with pytest.raises(SnapshotError):
        FryingMasterEngine.from_dict(bad)


def test_the_table_checks_its_own_state():
    t = Table([f.category for f in CAT.foods], len(CAT.categories))
    good = t.state_dict()
    with pytest.raises(SnapshotError, match=re.escape("table.up")):
        t.load_state_dict({"up": [0] * 17, "down": good["down"]})
    with pytest.raises(SnapshotError, match="another category"):
        t.load_state_dict({"up": good["up"], "down": [[F("chili")], [], [], []]})
    assert t.state_dict() == good


def test_a_snapshot_shares_nothing_with_the_engine():
    env = _env(players=2)
    _play(env, 15, lambda e: e.round_no == 2, heuristic=True)
    eng = env.unwrapped.engine
    keep = _copy(eng.to_dict())
    snap = eng.to_dict()
    snap["state"]["history"][0]["total"]["chef_0"] = 99  # editing the snapshot ...
    snap["state"]["history"][0]["orders"]["chef_0"].clear()
    assert eng.to_dict() == keep  # ... leaves the engine alone
    _refused(env, snap, re.escape("state.history[0]"))


def test_loading_keeps_no_reference_to_the_snapshot():
    """The engine's state is built from fresh containers: scribbling over the loaded
    snapshot afterwards changes nothing (so the core need not copy it first)."""
    env = _env(players=2)
    for snap in (_play(env, 16, lambda e: e.done, heuristic=True), in_play(env, seed=16)):
        fresh = FryingMasterEngine.__new__(FryingMasterEngine)
        fresh._init_common(dict(snap["config"]), env.unwrapped.engine.rng, snap["tick"])
        given = copy.deepcopy(snap["state"])
        fresh.load_state_dict(given)
        keep = _copy(fresh.state_dict())

        def scribble(node):
            if isinstance(node, dict):
                for k in node:
                    node[k] = scribble(node[k])
            elif isinstance(node, list):
                for i, x in enumerate(node):
                    node[i] = scribble(x)
                node.append(-7)
            return "scribbled" if not isinstance(node, (dict, list)) else node

        scribble(given)
        assert _copy(fresh.state_dict()) == keep


# ---------------------------------------------------------------------- every reachable state is accepted


@pytest.mark.parametrize("kw", [dict(players=2, mode="drawn"), dict(players=3, mode="meat"),
                                dict(players=4, mode="drawn", teppanyaki=True), dict(players=3, mode="mixed"),
                                dict(players=2, mode="drawn", serve_rule="any_food")])
def test_every_state_of_a_played_match_is_accepted_and_round_trips(kw):
    env = _env(**kw)
    for seed, heuristic in ((21, True), (22, False)):
        rng = np.random.default_rng(seed)
        pol = frying_master_v1.HeuristicPolicy()
        obs, _ = env.reset(seed=seed)
        while True:
            eng = env.unwrapped.engine
            snap = _copy(eng.to_dict())
            assert FryingMasterEngine.from_dict(snap).to_dict() == snap
            if not env.agents:
                break
            obs, *_ = env.step({a: pol.act(obs[a], a, env) if heuristic else
                                int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
        assert eng.done and eng.history


# ---------------------------------------------------------------------- seeded mutations


def test_seeded_mutants_are_refused_or_legal_never_accepted_broken():
    """A few hundred one-change mutants of states in every phase (setup, play, countdown,
    over; random and heuristic play): each is refused with the game unchanged, or is a legal
    state that round-trips and plays on (tests/conformance/snapshot_fuzz.py's oracle)."""
    counts = {"refused": 0, "accepted": 0}
    rng = np.random.default_rng(12)
    cases = [
        (dict(players=2, mode="drawn"), 31, lambda e: e.phase == "choose" and e.round_no == 2, True),
        (dict(players=3, mode="spicy"), 32, lambda e: e.phase == "play" and e.play_tick > 20, False),
        (dict(players=4, mode="drawn", teppanyaki=True), 33, lambda e: e.phase == "countdown", True),
        (dict(players=2, mode="mixed"), 34, lambda e: e.round_no == 2 and e.phase == "play" and e.play_tick > 5, True),
        (dict(players=3, mode="drawn"), 35, lambda e: e.done, True),
    ]
    for kw, seed, until, heuristic in cases:
        env = _env(**kw)
        base = _play(env, seed, until, heuristic)
        env.restore(base)
        for what, snap in mutants(base, rng, 120):
            counts[try_restore(env, snap, f"{kw} {what}", rng)] += 1  # AssertionError: a bad one accepted
            env.restore(base)
    assert counts["refused"] + counts["accepted"] == 600
    assert counts["refused"] > 500
