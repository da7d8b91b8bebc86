"""Wok Star snapshots are validated (issue 12, item 2): a damaged snapshot raises SnapshotError
naming the field and what is allowed, the env or engine it was given to stays exactly as it was,
and every state reached in play still loads (``envs/wok_star/snapshot.py``)."""

from __future__ import annotations

import copy
import functools
import json

import numpy as np
import pytest

from envs import wok_star_v1
from envs.core.errors import SnapshotError
from envs.wok_star.cards import load_data
from envs.wok_star.engine import WokStarEngine
from tests.conformance.snapshot_fuzz import mutants, try_restore

DATA = load_data()
KW = {"players": 3, "events": True, "powers": True}


@functools.lru_cache(maxsize=None)
def _snapshots() -> dict:
    """Phase -> the JSON snapshot at the first tick of that phase (and a few more) in a heuristic game
    that reaches every phase; read-only (copy before damaging)."""
    env = wok_star_v1.parallel_env(**KW)
    pol = wok_star_v1.HeuristicPolicy()
    obs, _ = env.reset(seed=0)
    out: dict = {}
    while True:
        eng = env.unwrapped.engine
        snap = json.loads(json.dumps(env.snapshot()))
        out.setdefault(eng.phase, snap)
        if eng.phase == "open" and eng.served[0] and eng.served[1]:
            out.setdefault("open_served", snap)  # both chefs have served a customer today
        if eng.phase == "prep" and eng.pending:
            out.setdefault("prep_giving", snap)  # a bought recipe's new Ingredient cards are given out
        if eng.phase == "open" and eng.current >= 60:
            out.setdefault("open_event", snap)   # an Event card at the counter
        if not env.agents:
            return out
        obs, *_ = env.step({a: pol.act(obs[a], a, env) for a in env.agents})


def _env_at(phase: str):
    """An env restored to the snapshot of ``phase`` (and a JSON copy of that snapshot to damage)."""
    snap = _snapshots()[phase]
    env = wok_star_v1.parallel_env(**KW)
    env.reset(options={"snapshot": snap})
    return env, copy.deepcopy(snap)


def _refused(env, bad: dict, match: str) -> SnapshotError:
    """``bad`` is refused by ``reset(options={"snapshot": ...})`` naming ``match``, and the env is unchanged."""
    before, agents = env.snapshot(), list(env.agents)
    obs_before = {a: env.observe(a)["observation"].copy() for a in agents}
    with pytest.raises(SnapshotError, match=match) as info:
        env.reset(options={"snapshot": bad})
    assert env.snapshot() == before and env.agents == agents
    for a in agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], obs_before[a])
    return info.value


# ---------------------------------------------------------------------------- the examples
def test_negative_money_is_refused():
    env, snap = _env_at("prep")
    snap["state"]["money"] = -5
    err = _refused(env, snap, r"state\.money")
    assert "must be an integer in 0.." in str(err) and "-5" in str(err)


def test_money_outside_next_day_prep_is_refused():
    env, snap = _env_at("open")
    snap["state"]["money"] = 5
    _refused(env, snap, r"state\.money: must be 0 outside Next Day Prep")


def test_seven_dice_for_one_chef_are_refused():
    env, snap = _env_at("open")
    snap["state"]["pool"][0] = 7
    _refused(env, snap, r"state\.pool\[0\]: must be an integer in 2\.\.5")
    env, snap = _env_at("open")  # an extra die for a chef, past its pool
    d = snap["state"]["pool"][1] + 5
    snap["state"]["die_pip"][d] = 4
    _refused(env, snap, rf"state\.die_pip\[{d}\]: must be -1")
    env, snap = _env_at("open")  # two extra dice in the list
    snap["state"]["die_pip"] += [3, 3]
    _refused(env, snap, r"state\.die_pip: must be a list of 15 items")


def test_a_duplicate_or_foreign_card_id_is_refused():
    env, snap = _env_at("open")
    deck = snap["state"]["deck"]
    deck[1] = deck[0]
    _refused(env, snap, r"state\.deck\[1\]: must not repeat")
    env, snap = _env_at("open")
    snap["state"]["deck"][0] = 99
    _refused(env, snap, r"state\.deck\[0\]: must be an integer in 0\.\.74")
    env, snap = _env_at("open")  # a card of a recipe not in play
    out = next(r for r, h in enumerate(snap["state"]["recipe_holder"]) if h == -1)
    snap["state"]["deck"].append(5 * out)
    _refused(env, snap, r"Customer cards of the recipes in play do not add up.*expected 0")
    env, snap = _env_at("open_served")  # a customer both served and still in the deck
    served = next(c for row in snap["state"]["served"] for c, _ in row)
    snap["state"]["deck"].append(served)
    _refused(env, snap, r"Customer cards .*expected 1")
    env, snap = _env_at("open")  # a Regular customer in the Coupon deck
    snap["state"]["coupons"][0] = snap["state"]["coupons"][0] - 3
    _refused(env, snap, r"state\.coupons\[0\]")


def test_an_event_card_twice_or_missing_is_refused():
    env, snap = _env_at("open")
    s = snap["state"]
    s["event_pile"][0] = s["events_today"][0] if s["events_today"] else s["events_gone"][0] if s["events_gone"] else \
        next(c - 60 for c in s["deck"] if c >= 60)
    _refused(env, snap, r"Event cards do not add up|event_pile")
    env, snap = _env_at("open")
    snap["state"]["event_pile"].pop()
    _refused(env, snap, r"Event cards do not add up")


def test_a_wrong_phase_or_turn_is_refused():
    env, snap = _env_at("open")
    snap["state"]["phase"] = "lunch"
    _refused(env, snap, r"state\.phase: must be one of")
    env, snap = _env_at("open")
    snap["state"]["phase"] = "distribute"  # a setup phase on day 1
    _refused(env, snap, r"state\.day: must be 0 in the setup phases")
    env, snap = _env_at("open")
    snap["state"]["turn"] = 1  # nobody's turn while the restaurant is open
    _refused(env, snap, r"state\.turn: must be -1")
    env, snap = _env_at("goal_cubes")
    snap["state"]["turn"] = (snap["state"]["turn"] + 1) % 3
    _refused(env, snap, r"state\.turn: must be \d: the day's lead chef")
    env, snap = _env_at("distribute")
    snap["state"]["turn"] = (snap["state"]["turn"] + 1) % 3
    _refused(env, snap, r"state\.turn: must be \d: Ingredient card k is given by chef k mod 3")
    env, snap = _env_at("open")
    snap["state"]["day"] = 3  # day 3 with one completed day on record
    _refused(env, snap, r"state\.history: must hold 2 completed days")
    env, snap = _env_at("prep")
    snap["state"]["phase"], snap["state"]["turn"] = "over", -1  # over, but the game has not been won or lost
    _refused(env, snap, r"state\.won: must be 0 or 1 once the game is over")


def test_a_float_bool_or_string_where_an_int_is_is_refused():
    for field, value in (("hustle", 1.0), ("washes", 0.5), ("serial", "3"), ("current", True)):
        env, snap = _env_at("open")
        snap["state"][field] = value
        _refused(env, snap, rf"state\.{field}: must be an integer")
    env, snap = _env_at("open")
    snap["state"]["ing_level"][3] = 1.5
    _refused(env, snap, r"state\.ing_level\[3\]: must be an integer in 0\.\.8, got 1\.5")
    env, snap = _env_at("open_served")
    row = next(s for s, r in enumerate(snap["state"]["served"]) if r)
    snap["state"]["served"][row][0][1] = False  # late must be 0 or 1, not a bool
    _refused(env, snap, rf"state\.served\[{row}\]\[0\]\[1\]: must be an integer in 0\.\.1, got False")
    env, snap = _env_at("open")
    snap["state"]["first_served"] = 0
    _refused(env, snap, r"state\.first_served: must be true or false")


def test_a_missing_or_unknown_key_is_refused():
    env, snap = _env_at("open")
    del snap["state"]["washes"]
    _refused(env, snap, r"snapshot field state: keys must be .*missing \['washes'\]")
    env, snap = _env_at("open")
    snap["state"]["hustle_pool"] = 3
    _refused(env, snap, r"unknown \['hustle_pool'\]")
    env, snap = _env_at("open")
    snap["state"]["served"] = {"0": snap["state"]["served"]}
    _refused(env, snap, r"state\.served: must be a list")


# ---------------------------------------------------------------------------- component totals
def test_fortune_cubes_and_hustle_tokens_add_up():
    env, snap = _env_at("open")
    snap["state"]["cubes"][0] += 1
    _refused(env, snap, r"state\.cubes: the Fortune cubes .* do not add up .*11 \(expected 10\)")
    env, snap = _env_at("open")
    snap["state"]["goal_cubes"][3] = False  # a goal cube taken off the Income Tracker without a day's income
    snap["state"]["cubes"][1] += 1
    _refused(env, snap, r"state\.goal_cubes: must be \[.*\]: a cube leaves the Income Tracker")
    env, snap = _env_at("open")
    snap["state"]["hustle"] = 25  # the covering tokens are not in the pool
    _refused(env, snap, r"state\.hustle: must be at most \d+: 25 tokens in all")


def test_derived_fields_must_agree_with_what_they_derive_from():
    env, snap = _env_at("open_served")
    snap["state"]["income"] += 5
    _refused(env, snap, r"state\.income: must be \d+: the day's serves")
    env, snap = _env_at("prep")
    snap["state"]["total_income"] += 1
    _refused(env, snap, r"state\.total_income: must be \d+: the sum of the days' incomes")
    env, snap = _env_at("prep")
    snap["state"]["decision_k"] += 1
    _refused(env, snap, r"state\.decision_k: must be \d+: the Ingredient cards given out so far")
    env, snap = _env_at("goal_cubes")
    cubes = snap["state"]["cubes"]
    cubes[cubes.index(max(cubes))] -= 1  # the cube total still adds up
    snap["state"]["cubes_passed"] += 1
    _refused(env, snap, r"state\.cubes_passed: must be")
    env, snap = _env_at("open")
    snap["state"]["first_served"] = not snap["state"]["first_served"]
    _refused(env, snap, r"state\.first_served: must say whether a customer was served today")


def test_cards_in_play_are_consistent():
    env, snap = _env_at("open")
    held = next(i for i, h in enumerate(snap["state"]["ing_holder"]) if h >= 0)
    snap["state"]["ing_holder"][held] = -1  # a needed Ingredient card nobody holds
    _refused(env, snap, rf"state\.ing_holder\[{held}\]: a card is held or pending exactly when")
    env, snap = _env_at("open")
    snap["state"]["character"][1] = snap["state"]["character"][0]  # one Character card for two chefs
    _refused(env, snap, r"state\.character\[1\]: must not repeat")
    env, snap = _env_at("prep")
    snap["state"]["offers"][0] = next(r for r, h in enumerate(snap["state"]["recipe_holder"]) if h >= 0)
    _refused(env, snap, r"state\.offers\[0\]: must be a recipe not in the game")
    env, snap = _env_at("prep_giving")
    snap["state"]["pending_by"] = -1
    _refused(env, snap, r"state\.pending_by: must be the buyer's seat")


def test_a_config_that_the_env_would_refuse_is_refused_by_the_engine_too():
    snap = copy.deepcopy(_snapshots()["open"])
    snap["config"]["events"] = 1
    with pytest.raises(SnapshotError, match=r"config\.events: must be true or false"):
        WokStarEngine.from_dict(snap)
    snap = copy.deepcopy(_snapshots()["open"])
    snap["config"]["difficulty"] = "hot"
    with pytest.raises(SnapshotError, match=r"config\.difficulty: must be one of"):
        WokStarEngine.from_dict(snap)


# ---------------------------------------------------------------------------- atomic, and legal states load
def test_a_refused_state_leaves_a_live_engine_exactly_as_it_was():
    env, snap = _env_at("open_served")
    eng = env.unwrapped.engine
    before = eng.to_dict()
    masks = {a: eng.action_mask(a).copy() for a in eng.agents}
    bad = copy.deepcopy(snap["state"])
    bad["total_income"] += 1  # checked last, after every other field was read and checked
    bad["log"] = []
    with pytest.raises(SnapshotError, match=r"state\.total_income"):
        eng.load_state_dict(bad)
    assert eng.to_dict() == before
    for a in eng.agents:
        np.testing.assert_array_equal(eng.action_mask(a), masks[a])
    good = copy.deepcopy(_snapshots()["prep"]["state"])
    eng.load_state_dict(good)
    assert eng.state_dict() == good and eng.phase == "prep"
    good["hustle"] = 99  # the loaded state shares nothing with its source
    assert eng.hustle != 99


@pytest.mark.parametrize("kw", [{"players": 2, "setup": "team", "powers": True},
                                {"players": 4, "events": True, "setup": "auto", "seconds_per_tick": 3.0}],
                         ids=["2p-team-powers", "4p-auto-events"])
def test_every_state_of_whole_games_loads(kw):
    pol = wok_star_v1.HeuristicPolicy()
    for seed, slip in ((0, 0.0), (1, 0.1), (2, 1.0)):
        env = wok_star_v1.parallel_env(**kw)
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        while True:
            snap = json.loads(json.dumps(env.snapshot()))
            assert WokStarEngine.from_dict(snap).to_dict() == snap
            if not env.agents:
                break
            joint = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if rng.random() < slip
                     else pol.act(obs[a], a, env) for a in env.agents}
            obs, *_ = env.step(joint)


def test_clone_copies_a_live_engine_without_the_snapshot_checks():
    """``clone()`` of a live engine is ``from_dict(to_dict())`` without checks: the same state, independent."""
    env, snap = _env_at("open_served")
    eng = env.unwrapped.engine
    twin = eng.clone()
    assert twin.to_dict() == eng.to_dict() == WokStarEngine.from_dict(eng.to_dict()).to_dict()
    twin.served[0].append([0, 0])
    twin.die_pip[0] = 6
    assert eng.to_dict() == snap
    joint = {a: 0 for a in eng.agents}
    assert twin.clone().step(joint).rewards == eng.clone().step(joint).rewards


# ---------------------------------------------------------------------------- seeded mutations
def test_damaged_snapshots_are_refused_or_play_on_soundly():
    """A few hundred single-field mutations of states of every phase: none is accepted and then breaks."""
    rng = np.random.default_rng(12)
    counts = {"refused": 0, "accepted": 0}
    env = wok_star_v1.parallel_env(**KW)
    for phase, base in sorted(_snapshots().items()):
        env.restore(base)
        for what, snap in mutants(base, rng, 60):
            counts[try_restore(env, snap, f"{phase}: {what}", rng)] += 1  # AssertionError = a bad one accepted
            env.restore(base)
    assert counts["refused"] + counts["accepted"] >= 500 and counts["refused"] > 0.8 * sum(counts.values())


def test_a_tick_that_no_game_reaches_is_refused():
    """Wok Star's rules never read the tick, so any ``tick`` below 10**9 loaded: 999,999,999
    (past the longest legal game: the env truncated at once) and 0 in the middle of a day
    whose log reads ``d1 t...``. Frying Master and Waroong Wars refused both."""
    from envs.wok_star.engine import max_episode_steps

    env, snap = _env_at("open_served")
    last = int(snap["state"]["log"][-1].split(" ", 2)[1][1:].rstrip(":"))
    bound = max_episode_steps(**snap["config"])
    for tick, match in ((bound + 1, rf"snapshot field tick: must be at most {bound}, the longest game"),
                        (999_999_999, rf"must be at most {bound}"),
                        (last - 1, rf"snapshot field tick: must be at least {last}, the tick of the last log entry")):
        _refused(env, {**snap, "tick": tick}, match)
    for tick in (last, bound):
        assert WokStarEngine.from_dict({**snap, "tick": tick}).tick == tick


def test_a_state_restored_with_the_largest_serial_can_still_be_snapshotted_after_its_next_reveal():
    """``serial`` = 10**9 was accepted, and the next card revealed took it past the range the checks allow:
    the env's own snapshot, ``deepcopy`` and pickle were refused from then on. The serial (which only tells
    whether a card was revealed within one tick) now counts modulo the range."""
    import pickle

    from envs.wok_star.rules.open_for_business import SERIALS

    env, snap = _env_at("open")
    snap["state"]["serial"] = SERIALS - 1
    env.reset(options={"snapshot": snap})
    obs = {a: env.observe(a) for a in env.agents}
    pol = wok_star_v1.HeuristicPolicy()
    while env.agents and env.unwrapped.engine.serial == SERIALS - 1:
        obs, *_ = env.step({a: pol.act(obs[a], a, env) for a in env.agents})
    assert env.unwrapped.engine.serial == 0  # one card revealed since
    WokStarEngine.from_dict(env.snapshot())
    copy.deepcopy(env)
    pickle.loads(pickle.dumps(env))
