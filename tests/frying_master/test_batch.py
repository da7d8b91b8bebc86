"""The batch observer (``observation.BatchObserver``, masks by ``legality.batch_masks``) writes
exactly what the per-game path writes.

Every configuration of the env (players, modes, the Teppanyaki preset, both serve rules), a
few games each played with seeded random legal moves through choice, play, countdown, round
ends and the match's end: at every tick the batch's observation and mask of every seat equal
``encoder.observe`` and ``engine.action_mask`` of that seat, float32 bytes and int8 entries.
Also rows given in another order and a subset, games that change engines between calls
(the completed orders' memo is checked by identity), and states set outside ``step``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs.frying_master.encoding import FryingMasterEncoder
from envs.frying_master.engine import FryingMasterEngine
from envs.frying_master.heuristic import decide
from envs.frying_master.options import MODE_CHOICES, PLAYER_COUNTS, SERVE_RULES
from tests.core.batch_checks import batch_arrays, check_batch, reference_arrays
from tests.frying_master.helpers import F, counts, engine_config

ALL_CONFIGS = [dict(players=p, mode=m, teppanyaki=t, serve_rule=s, round_ticks=20)
               for p, m, t, s in itertools.product(PLAYER_COUNTS, MODE_CHOICES, (False, True), SERVE_RULES)]


def _games(games, rng_seed, seeds=None, **kw):
    """``(encoder, its batch observer for games, the engines, a generator)`` of one configuration."""
    config = engine_config(**kw)
    encoder = FryingMasterEncoder(config)
    engines = [FryingMasterEngine.new(config, seed=s) for s in (seeds or range(games))]
    return encoder, encoder.batch_observer(games), engines, np.random.default_rng(rng_seed)


def _step_random(engines, rng, chefs=False):
    """One tick of every game not over: random legal moves, or with ``chefs`` the heuristic's
    (which completes orders: countdowns and Gold Spatulas) with a random move now and then."""
    for e in engines:
        if not e.done:
            e.step({a: decide(e.public_view(a)) if chefs and rng.random() < 0.9
                    else int(rng.choice(np.flatnonzero(e.action_mask(a)))) for a in e.agents})


@pytest.mark.parametrize("kw", ALL_CONFIGS, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_the_batch_writes_every_seats_observation_and_mask_of_every_configuration(kw):
    encoder, observer, engines, rng = _games(3, len(str(kw)), seeds=(11, 12, 13), **kw)
    phases = set()
    for _ in range(120):
        phases.update(e.phase for e in engines)
        check_batch(observer, encoder, engines)
        _step_random(engines, rng)
    assert {"choose", "play"} <= phases


def test_the_batch_follows_rounds_countdowns_and_the_end_of_the_match():
    """Whole matches played by heuristic chefs (every phase, several rounds, until the match is over)."""
    encoder, observer, engines, rng = _games(4, 5, players=3, mode="drawn")
    phases, rounds = set(), set()
    while not all(e.done for e in engines):
        phases.update(e.phase for e in engines)
        rounds.update(e.round_no for e in engines)
        check_batch(observer, encoder, engines)
        _step_random(engines, rng, chefs=True)
    phases.update(e.phase for e in engines)
    obs, masks = check_batch(observer, encoder, engines)  # every game over: only noop
    assert (masks[:, :, 0] == 1).all() and masks[:, :, 1:].sum() == 0
    assert {"choose", "play", "countdown", "over"} <= phases and max(rounds) >= 2


def test_rows_in_any_order_a_subset_and_engines_that_change_rows():
    encoder, observer, engines, rng = _games(5, 3, players=2, mode="drawn")
    for t in range(150):
        _step_random(engines, rng)
        order = list(rng.permutation(5))[: 1 + t % 5]  # a subset, shuffled: the other rows stay untouched
        obs, masks = batch_arrays(observer, encoder, [engines[k] for k in order], rows=order if t % 2 else None, size=5)
        ref_obs, ref_masks = reference_arrays(encoder, [engines[k] for k in order])
        at = order if t % 2 else list(range(len(order)))
        np.testing.assert_array_equal(obs[at], ref_obs)
        np.testing.assert_array_equal(masks[at], ref_masks)
        untouched = [r for r in range(5) if r not in at]
        assert (obs[untouched] == -7).all() and (masks[untouched] == -7).all()


def test_a_state_set_outside_step_is_read_as_it_is():
    """Completed orders added, replaced (the last or an earlier one) or edited in place, then
    ``invalidate_masks()``; a restored snapshot in the same row; the table set for a scenario: each
    is seen (the completed orders' memo also keys on the engine's count of outside changes)."""
    encoder, observer, (eng,), rng = _games(1, 0, seeds=(1,), players=2, mode="mixed")
    while eng.phase != "play":
        _step_random([eng], rng)
    snap = eng.to_dict()

    def check(e):
        return check_batch(observer, encoder, [e])[0]

    before = check(eng)
    a = eng.agents[0]
    plates = eng.cat.plates
    eng.completed[a].append((plates[0].idx, counts("rice", "rice", "rice")))
    eng.invalidate_masks()
    added = check(eng)
    assert not np.array_equal(added, before)
    eng.completed[a][-1] = (plates[1].idx, counts("rice"))  # same length, another entry
    eng.invalidate_masks()
    replaced = check(eng)
    assert not np.array_equal(replaced, added)
    eng.completed[a][-1][1][F("beef")] += 2  # the last entry's food counts, in place
    eng.invalidate_masks()
    edited = check(eng)
    assert not np.array_equal(edited, replaced)
    eng.completed[a].append((plates[2].idx, counts("pork")))
    eng.completed[a][0] = (plates[3].idx, counts("chicken"))  # an earlier entry
    eng.invalidate_masks()
    appended = check(eng)
    eng.completed[a][0] = (plates[4].idx, counts("shrimp"))
    eng.invalidate_masks()
    assert not np.array_equal(check(eng), appended)
    check(FryingMasterEngine.from_dict(snap))
    eng.table.place({F("rice"): 2})
    eng.invalidate_masks()
    check(eng)


def test_a_value_outside_a_byte_is_converted_as_int64():
    """The records go through ``bytes`` when every value fits in one; a play tick of 300 and a
    negative last-round total (states set outside ``step``) take the int64 conversion, beside a
    game whose values all fit, and the batch still equals the per-game path."""
    encoder, observer, engines, rng = _games(2, 4, seeds=(3, 4), players=2, mode="drawn")
    while any(e.phase != "play" for e in engines):
        _step_random(engines, rng)
    eng = engines[0]
    eng.play_tick = 300
    eng.history.append({"total": {eng.agents[0]: -3, eng.agents[1]: 2}})
    eng.invalidate_masks()
    obs, _ = check_batch(observer, encoder, engines)
    at = encoder.layout.slices
    assert obs[0, 0, at["play_tick"].start] == 300.0
    assert sorted(obs[0, :, at["last_round_total"].start].tolist()) == [-3.0, 2.0]


def test_a_value_that_is_no_integer_is_refused_before_anything_is_written():
    """A play tick set by hand to 3.5: refused with a ValueError naming it (an int64 conversion
    would have truncated it to 3), the output arrays untouched."""
    encoder, observer, engines, rng = _games(2, 4, seeds=(3, 4), players=2, mode="drawn")
    while any(e.phase != "play" for e in engines):
        _step_random(engines, rng)
    engines[1].play_tick = 3.5
    engines[1].invalidate_masks()
    with pytest.raises(ValueError, match=r"holds 3\.5 where the observation reads .*; allowed: integers"):
        batch_arrays(observer, encoder, engines)
    obs = np.full((2, 2, encoder.layout.size), -7, np.float32)
    masks = np.full((2, 2, observer.mask_plan.A), -7, np.int8)
    with pytest.raises(ValueError):
        observer.observe([0, 1], engines, obs, masks)
    assert (obs == -7).all() and (masks == -7).all()


def test_an_integer_outside_int64_is_refused_naming_it():
    """A play tick set by hand to 2**70 (numpy would hold it as an object): the refusal names the
    value and the range allowed (it named ``None``), the output arrays untouched."""
    encoder, observer, engines, rng = _games(2, 4, seeds=(3, 4), players=2, mode="drawn")
    while any(e.phase != "play" for e in engines):
        _step_random(engines, rng)
    engines[1].play_tick = 2 ** 70
    engines[1].invalidate_masks()
    obs = np.full((2, 2, encoder.layout.size), -7, np.float32)
    masks = np.full((2, 2, observer.mask_plan.A), -7, np.int8)
    with pytest.raises(ValueError, match=rf"holds {2 ** 70} where .*; allowed: integers from -9223372036854775808 to "
                                         r"9223372036854775807"):
        observer.observe([0, 1], engines, obs, masks)
    assert (obs == -7).all() and (masks == -7).all()


@pytest.mark.parametrize("table_up, table_down", [({}, ("rice",)), ({"beef": 1}, ()), ({}, ())])
def test_the_batch_masks_at_sparse_tables_equal_each_games(table_up, table_down):
    """Stir needs any card, either side up, in the batch path too: a batch mask that read the face-up
    side only had passed every test (random play never leaves face-down cards alone on the table)."""
    from tests.frying_master.helpers import in_play

    for kw in (dict(players=2, mode="mixed"), dict(players=3, mode="teppanyaki")):
        eng = in_play(table_up=table_up, table_down=table_down, plates={"chef_0": "Fried Rice"}, **kw)
        encoder = FryingMasterEncoder(eng.config)
        _, masks = check_batch(encoder.batch_observer(1), encoder, [eng])
        rows = masks.reshape(-1, masks.shape[-1])
        assert all(bool(r[eng.ix.stir[0]]) == bool(table_up or table_down) for r in rows[:len(eng.agents)])
