"""The speed mechanisms give exactly what the plain definitions give.

* the template-built mask equals the rule-by-rule reference mask, and
  :func:`legality.is_legal` (one action, used to re-check actions during a
  tick) agrees with the mask entry of every non-noop action;
* the incrementally updated observation equals the reference built from
  scratch field by field (``reference.py``), also after state changes made
  outside ``step`` and when the encoder switches between engines;
* observations and masks handed out are fresh arrays the env never mutates;
* the fast view constructors build views equal to the dataclass ones;
* seat views are reused only while a seat is unchanged (per-seat revisions),
  and rebuilt after ``invalidate_masks()``;
* one mask request fills every chef's mask, all read-only and equal to the reference.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from envs import frying_master_v1
from envs.frying_master.encoding import FryingMasterEncoder
from envs.frying_master.legality import compute_mask, is_legal
from envs.frying_master.public import PublicView, SeatView
from tests.frying_master.helpers import C, F, P, counts, in_play
from tests.frying_master.reference import reference_mask, reference_observation

CONFIGS = [dict(players=2, mode="drawn"), dict(players=4, mode="casual"), dict(players=3, mode="preorder"),
           dict(players=4, mode="drawn", teppanyaki=True), dict(players=2, mode="teppanyaki", round_ticks=40)]


def _random_play(kw, seed, ticks):
    """Yield (env, engine) after every tick of seeded random legal play."""
    env = frying_master_v1.parallel_env(**kw)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(ticks):
        if not env.agents:
            obs, _ = env.reset()
        yield env, env.unwrapped.engine
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})


@pytest.mark.parametrize("kw", CONFIGS)
def test_masks_equal_the_reference_and_is_legal_agrees(kw):
    phases = set()
    for env, eng in _random_play(kw, seed=7, ticks=250):
        phases.add(eng.phase)
        for agent in eng.agents:
            mask = compute_mask(eng, agent)
            np.testing.assert_array_equal(mask, reference_mask(eng, agent))
            np.testing.assert_array_equal(env.observe(agent)["action_mask"], mask)
            for action in range(1, eng.n_actions):
                kind, s, p = eng.ix.decoded[action]
                assert is_legal(eng, agent, kind, s, p) == bool(mask[action]), (eng.phase, agent, eng.actions.name(action))
    assert {"choose", "play"} <= phases


@pytest.mark.parametrize("kw", CONFIGS)
def test_incremental_observation_equals_the_reference(kw):
    enc = None
    for env, eng in _random_play(kw, seed=3, ticks=300):
        enc = env.unwrapped.encoder
        for agent in eng.agents:
            np.testing.assert_array_equal(env.observe(agent)["observation"], reference_observation(enc, eng, agent))
        fresh = FryingMasterEncoder(env.unwrapped.engine_config)  # a new buffer writes every block at once
        np.testing.assert_array_equal(env.state(), fresh.global_state(eng))


def test_observation_follows_changes_made_outside_step():
    env = frying_master_v1.parallel_env(players=3, mode="mixed")
    env.reset(seed=2)
    for _ in range(6):  # past the setup choices
        env.step({a: int(np.flatnonzero(env.observe(a)["action_mask"])[-1]) for a in env.agents})
    eng = env.unwrapped.engine
    lay = env.unwrapped.encoder.layout
    before = env.observe("chef_0")["observation"]
    eng.plates["chef_2"] = P("Fried Rice")
    eng.plate_cards["chef_2"] = counts("rice", "beef")
    eng.loads["chef_2"][0] = [F("carrot")]
    eng.table.up[F("rice")] += 1
    eng.invalidate_masks()
    after = env.observe("chef_0")["observation"]
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(after, reference_observation(env.unwrapped.encoder, eng, "chef_0"))
    seat2 = 2  # chef_0 sees chef_2 in the third seat block
    assert lay.get(after, "plate_cards")[seat2][F("beef")] == 1
    assert lay.get(after, "spatula_load")[seat2][0][F("carrot")] == 1
    assert lay.get(after, "table_face_up")[F("rice")] == lay.get(before, "table_face_up")[F("rice")] + 1
    # ... and the masks too: the table templates are keyed by what the table shows.
    flip_meat = eng.ix.flip[0][C("meat")]
    can_flip = [a for a in eng.agents if env.observe(a)["action_mask"][flip_meat]]
    assert can_flip and eng.table.down[C("meat")]
    eng.table.down[C("meat")].clear()
    eng.invalidate_masks()
    assert not any(env.observe(a)["action_mask"][flip_meat] for a in can_flip)


def test_observation_follows_a_switch_of_engine():
    env = frying_master_v1.parallel_env(players=2, mode="drawn")
    env.reset(seed=0)
    first = env.observe("chef_1")["observation"]
    snap = env.snapshot()
    env.reset(seed=1)
    other = env.observe("chef_1")["observation"]
    env.restore(snap)
    np.testing.assert_array_equal(env.observe("chef_1")["observation"], first)
    assert not np.array_equal(first, other)
    enc = env.unwrapped.encoder
    clone = env.unwrapped.engine.clone()
    rng = np.random.default_rng(1)
    for _ in range(30):  # one encoder, two engines observed in turn
        clone.step({a: int(rng.choice(clone.legal_actions(a))) for a in clone.agents})
        for eng in (env.unwrapped.engine, clone):
            for a in eng.agents:
                np.testing.assert_array_equal(enc.observe(eng, a), reference_observation(enc, eng, a))


def test_observations_and_masks_are_fresh_arrays():
    env = frying_master_v1.parallel_env(players=3, mode="drawn")
    obs, _ = env.reset(seed=4)
    kept = {a: {k: v.copy() for k, v in o.items()} for a, o in obs.items()}
    again = {a: env.observe(a) for a in env.agents}
    for a in env.agents:
        obs[a]["observation"][:] = -7  # a user scribbling on what it was given
        obs[a]["action_mask"][:] = 0
    for a in env.agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], kept[a]["observation"])
        np.testing.assert_array_equal(env.observe(a)["action_mask"], kept[a]["action_mask"])
        np.testing.assert_array_equal(again[a]["observation"], kept[a]["observation"])
    rng = np.random.default_rng(0)
    for _ in range(5):
        env.step({a: int(rng.choice(np.flatnonzero(env.observe(a)["action_mask"]))) for a in env.agents})
    for a in env.agents:  # stepping never writes into arrays handed out earlier
        np.testing.assert_array_equal(again[a]["observation"], kept[a]["observation"])
        np.testing.assert_array_equal(again[a]["action_mask"], kept[a]["action_mask"])


def test_fast_view_constructors_equal_the_dataclass_ones():
    env = frying_master_v1.parallel_env(players=4, mode="preorder")
    env.reset(seed=5)
    view = env.unwrapped.engine.public_view("chef_0")
    for seat in view.seats:
        values = {f.name: getattr(seat, f.name) for f in dataclasses.fields(SeatView)}
        assert SeatView(**values) == SeatView.of(**values) == seat
        assert repr(SeatView(**values)) == repr(seat)
    values = {f.name: getattr(view, f.name) for f in dataclasses.fields(PublicView)}
    assert PublicView(**values) == view
    other = view.seen_by("chef_2")
    assert other == dataclasses.replace(view, me="chef_2") == env.unwrapped.engine.public_view("chef_2")
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.me = "chef_1"


@pytest.mark.parametrize("table_up, table_down", [({}, ("rice",)), ({"beef": 1}, ()), ({}, ())])
def test_masks_at_sparse_tables(table_up, table_down):
    """Stir needs any card (either side up); flips and lifts need their own kind."""
    for kw in (dict(players=2, mode="mixed"), dict(players=3, mode="teppanyaki")):
        eng = in_play(table_up=table_up, table_down=table_down, plates={"chef_0": "Fried Rice"}, **kw)
        eng.loads["chef_1"][0] = [F("carrot")]
        eng.invalidate_masks()
        for agent in eng.agents:
            mask = eng.action_mask(agent)
            np.testing.assert_array_equal(mask, reference_mask(eng, agent))
            assert bool(mask[eng.ix.stir[0]]) == bool(table_up or table_down)


@pytest.mark.parametrize("kw", CONFIGS[:4])
def test_seat_views_are_reused_only_while_the_seat_is_unchanged(kw):
    """Per-seat revisions: a seat's view object is kept while its values stay
    the same, and every view equals the one a fresh engine (no caches) builds."""
    reused = 0
    last = None
    for env, eng in _random_play(kw, seed=11, ticks=200):
        view = eng.public_view(eng.agents[0])
        assert view == eng.clone().public_view(eng.agents[0])
        if last is not None and last.agents == view.agents:
            for old, new in zip(last.seats, view.seats):
                if old is new:
                    reused += 1
                else:
                    assert old != new  # a new object only for new values
        last = view
    assert reused > 0


def test_a_seat_changed_outside_step_is_rebuilt_after_invalidate_masks():
    env = frying_master_v1.parallel_env(players=2, mode="mixed")
    env.reset(seed=1)
    eng = env.unwrapped.engine
    before = eng.public_view("chef_0")
    eng.gold["chef_1"] = 1
    eng.invalidate_masks()
    after = eng.public_view("chef_0")
    assert after.seats[1].gold == 1 and before.seats[1].gold == 0
    assert env.unwrapped.encoder.layout.get(env.observe("chef_0")["observation"], "gold")[1] == 1


@pytest.mark.parametrize("kw", CONFIGS)
def test_one_mask_request_fills_every_chefs_mask_and_masks_are_read_only(kw):
    for env, eng in _random_play(kw, seed=5, ticks=150):
        eng.invalidate_masks()
        first = eng.agents[-1]
        eng.action_mask(first)
        assert set(eng._mask_cache) == set(eng.agents)  # built in the same pass
        for agent in eng.agents:
            mask = eng._mask_cache[agent]
            np.testing.assert_array_equal(mask, reference_mask(eng, agent))
            assert not mask.flags.writeable
            with pytest.raises(ValueError):
                mask[0] = 0


def test_the_spatulas_in_play_follow_a_round_that_has_fewer():
    """Teppanyaki gives each chef a second spatula and the next round's mode takes it away: the
    incremental observation must clear the field, not keep the old round's 1s (a mutant that left it
    stale was caught only by a golden digest)."""
    from envs.frying_master.heuristic import decide

    for seed in range(200):
        env = frying_master_v1.parallel_env(players=2, mode="drawn")
        obs, _ = env.reset(seed=seed)
        eng = env.unwrapped.engine
        if eng.cat.modes[eng.mode].id == "teppanyaki":
            break
    else:
        raise AssertionError("no seed deals Teppanyaki first")
    enc = env.unwrapped.encoder
    rounds = set()
    while env.agents and eng.round_no < 3:
        obs, *_ = env.step({a: decide(eng.public_view(a)) for a in env.agents})
        rounds.add((eng.round_no, eng.cat.modes[eng.mode].id))
        for agent in eng.agents:
            np.testing.assert_array_equal(env.observe(agent)["observation"], reference_observation(enc, eng, agent))
    assert (1, "teppanyaki") in rounds and any(r == 2 and m != "teppanyaki" for r, m in rounds), rounds
