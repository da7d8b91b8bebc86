"""The fast paths equal their readable definitions, and their caches follow the state.

* :class:`envs.waroong_wars.observation.ObservationBuilder` (what ``observe`` uses) must give the
  same bytes as ``encode_view(public.build(...))`` (``reference_observe``) in every configuration,
  also in states its byte encoding cannot hold (a negative score, a count above 255);
* its source vector is cached on the engine: a step or a change made through the engine followed
  by ``invalidate_masks()`` must show in the next observation;
* a seat's gather index reads no other seat's own block or score (no leak by construction);
* every observation is a fresh array (callers keep them in buffers);
* ``compute_masks`` (every seat in one pass, filling the core's mask cache) equals ``compute_mask``;
* :func:`legality.fill_cook_mask` must equal the mask built slot by slot from
  :func:`cooking.payment_options`; the fast scores must equal :func:`scoring.breakdown`.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import waroong_wars_v1
from envs.core.seeding import make_rng
from envs.waroong_wars import legality
from envs.waroong_wars.rules import characters, cooking, scoring, variants
from envs.waroong_wars.observation import OWN_FIELDS, source_offsets
from tests.waroong_wars.helpers import CAT, cooking_engine, counts, customer_counts, set_display

CONFIGS = waroong_wars_v1.TEST_CONFIGURATIONS


def _random_play(env, seed: int):
    """Yield the env at every step of one seeded random legal game."""
    rng = make_rng(seed)
    obs, _ = env.reset(seed=seed)
    while env.agents:
        yield env
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(acts)
    yield env


def _assert_same_as_reference(env) -> None:
    eng, enc = env.engine, env.encoder
    for agent in eng.agents:
        fast = enc.observe(eng, agent)
        ref = enc.reference_observe(eng, agent)
        assert fast.dtype == np.float32 and fast.shape == ref.shape
        if fast.tobytes() != ref.tobytes():
            lay = enc.layout
            bad = [f.name for f in lay.fields if not np.array_equal(lay.get(fast, f.name), lay.get(ref, f.name))]
            raise AssertionError(f"{agent} phase={eng.phase} tick={eng.tick}: fields differ: {bad}")


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_fast_observation_equals_the_reference_at_every_step(kwargs):
    env = waroong_wars_v1.parallel_env(**kwargs)
    steps = 0
    for env in _random_play(env, seed=kwargs["players"] + 7):
        _assert_same_as_reference(env)
        steps += 1
    assert steps > 50


def test_observation_follows_changes_made_through_the_engine():
    env = waroong_wars_v1.parallel_env(players=4, character_mode=True)
    env.reset(seed=3)
    eng = cooking_engine(4, character_mode=True)
    env.engine = eng
    lay = env.encoder.layout
    before = {a: env.observe(a)["observation"] for a in eng.agents}
    assert eng.obs_cache is not None  # the source vector is now cached on the engine
    # Public changes: tokens, a cooked menu, the display, the supplies.
    eng.tokens[1] = 4
    eng.piles[1].append(eng.display[5])
    set_display(eng, [CAT.dishes[0].name, None, None, None, None, None])  # calls invalidate_masks()
    eng.token_supply -= 4
    eng.invalidate_masks()
    assert eng.obs_cache is None
    for agent in eng.agents:
        after = env.observe(agent)["observation"]
        assert not np.array_equal(before[agent], after)
    _assert_same_as_reference(env)
    seen_by_0 = env.observe("player_0")["observation"]
    assert lay.get(seen_by_0, "tokens")[1] == 4 and lay.get(seen_by_0, "menus")[1] == 1
    assert lay.get(seen_by_0, "display_present")[0] == 1 and not lay.get(seen_by_0, "display_present")[1:].any()
    # A private change shows to its owner only (the cached public block is reused for the others).
    others = {a: env.observe(a)["observation"] for a in eng.agents[1:]}
    eng.customers[0] = customer_counts(foodies=2)
    eng.invalidate_masks()
    assert lay.get(env.observe("player_0")["observation"], "customers")[CAT.customer("foodies").index] == 2
    for agent in eng.agents[1:]:
        after = env.observe(agent)["observation"]
        assert lay.get(after, "customer_counts")[(0 - int(agent[-1])) % 4] == 2
        assert not np.array_equal(others[agent], after)
    _assert_same_as_reference(env)


def test_observation_follows_every_step():
    env = waroong_wars_v1.parallel_env(players=3)
    obs, _ = env.reset(seed=5)
    rng = make_rng(1)
    for _ in range(40):
        if not env.agents:
            break
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(acts)
        for a in obs:
            np.testing.assert_array_equal(obs[a]["observation"], env.encoder.reference_observe(env.engine, a))


def test_observations_are_fresh_arrays():
    env = waroong_wars_v1.parallel_env(players=3)
    obs, _ = env.reset(seed=0)
    again = env.observe("player_0")["observation"]
    first = obs["player_0"]["observation"]
    assert first is not again and not np.shares_memory(first, again)
    assert not np.shares_memory(first, obs["player_1"]["observation"])
    keep = first.copy()
    again[:] = -1  # a caller scribbling on its copy changes nothing for anyone
    np.testing.assert_array_equal(env.observe("player_0")["observation"], keep)
    acts = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    env.step(acts)
    np.testing.assert_array_equal(first, keep)  # the env never writes into an observation it returned


def test_clones_and_snapshots_do_not_carry_the_cache():
    env = waroong_wars_v1.parallel_env(players=3)
    env.reset(seed=0)
    env.observe("player_0")
    assert env.engine.obs_cache is not None
    assert env.engine.clone().obs_cache is None
    assert "obs_cache" not in env.engine.state_dict()


def _reference_cook_mask(eng, seat: int) -> np.ndarray:
    m = np.zeros(eng.n_actions, dtype=np.int8)
    for slot in variants.cookable_slots(eng):
        menu = eng.display[slot]
        if menu == cooking.EMPTY:
            continue
        pay, sup = cooking.payment_options(eng, seat, menu)
        for g, ok in enumerate(pay):
            for s, sok in enumerate(sup):
                if ok and sok:
                    m[eng.ix.cook(slot, g, s)] = 1
    return m


@pytest.mark.parametrize("opts", [{}, {"constraint_mode": True}, {"character_mode": True}])
def test_fast_cook_mask_equals_payment_options_on_random_hands(opts):
    rng = make_rng(11)
    eng = cooking_engine(3, **opts)
    tukang = [k.key for k in CAT.customers if k.substitutes is not None]
    for trial in range(400):
        hand = [int(x) for x in rng.integers(0, 3, size=5)] + [int(x) for x in rng.integers(0, 2, size=4)]
        eng.hands[0] = hand
        eng.customers[0] = customer_counts(**{k: int(rng.integers(0, 2)) for k in tukang})
        eng.go_boy[0] = bool(rng.integers(2))
        eng.token_supply = int(rng.integers(0, 3))
        eng.characters[0] = int(rng.integers(-1, len(CAT.characters))) if opts.get("character_mode") else -1
        if trial % 50 == 0:
            eng.display = [eng.display[i] for i in rng.permutation(6)]
            eng.display[int(rng.integers(6))] = cooking.EMPTY
        eng.invalidate_masks()
        fast = np.zeros(eng.n_actions, dtype=np.int8)
        any_cook = legality.fill_cook_mask(eng, 0, fast)
        ref = _reference_cook_mask(eng, 0)
        np.testing.assert_array_equal(fast, ref, err_msg=f"hand={hand} go_boy={eng.go_boy[0]}")
        assert any_cook == cooking.can_cook(eng, 0)


def test_fast_scores_equal_the_breakdown():
    env = waroong_wars_v1.parallel_env(players=5, character_mode=True)
    for env in _random_play(env, seed=2):
        eng = env.engine
        for s in range(eng.n):
            b = scoring.breakdown(eng, s)
            assert scoring.score(eng, s) == b["menus"] + b["customers"] + b["tokens"] + b["pairs"]
            assert scoring.public_score(eng, s) == b["menus"] + b["tokens"] + b["pairs"]


def test_geng_bajoel_pairs_use_the_dish_not_the_copy():
    eng = cooking_engine(3, character_mode=True)
    eng.characters[0] = next(c.index for c in CAT.characters if c.power == characters.PAIR_POWER)
    same = [m.id for m in CAT.menus if m.dish.index == 0][:2]
    other = next(m.id for m in CAT.menus if m.dish.index == 1)
    eng.piles[0] = same + [other]
    assert characters.pair_count(eng, 0) == 1
    assert scoring.score(eng, 0) == sum(CAT.menus[m].dish.vp for m in eng.piles[0]) + CAT.components["pair_bonus_vp"]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_seat_gathers_only_its_own_private_entries(players):
    env = waroong_wars_v1.parallel_env(players=players)
    fast = env.encoder.fast
    lay = env.encoder.layout
    public, own_start, _, own_width = source_offsets(lay.slices, players)
    own_end = own_start + players * own_width
    for seat, perm in enumerate(fast.perms):
        own = perm[(perm >= own_start) & (perm < own_end)]
        assert ((own - own_start) // own_width == seat).all()
        private = np.zeros(lay.size, dtype=bool)
        for name in (*OWN_FIELDS, "score"):
            private[lay.slices[name]] = True
        assert ((perm >= own_start) & (perm < own_end))[~private].sum() == 0  # public entries read public data
        scores = perm[perm >= public["score"]]
        assert list(scores) == [public["score"] + seat]


def test_states_outside_the_byte_encoding_still_match_the_reference():
    env = waroong_wars_v1.parallel_env(players=4, character_mode=True)
    env.reset(seed=1)
    eng = cooking_engine(4, character_mode=True)
    env.engine = eng
    # A negative score: Preman cards only (the fast path converts the scores as floats).
    eng.customers[2] = customer_counts(preman=3)
    eng.invalidate_masks()
    assert scoring.score(eng, 2) < 0
    _assert_same_as_reference(env)
    assert env.observe("player_2")["observation"][env.encoder.layout.slices["score"]][0] == scoring.score(eng, 2)
    # A count no real game reaches (bytes() refuses it): the definition is used for this state.
    eng.hands[1] = counts(rice=300)
    eng.round = 256
    eng.invalidate_masks()
    _assert_same_as_reference(env)
    assert env.observe("player_1")["observation"][env.encoder.layout.slices["hand"]][0] == 300
    eng.hands[1] = counts(rice=1)
    eng.round = 3
    eng.invalidate_masks()
    _assert_same_as_reference(env)


@pytest.mark.parametrize("kwargs", [{"players": 3}, {"players": 5, "character_mode": True, "no_memory_chef": True},
                                    {"players": 4, "plain_mode": True, "constraint_mode": True}])
def test_all_masks_in_one_pass_equal_the_per_seat_masks(kwargs):
    env = waroong_wars_v1.parallel_env(**kwargs)
    for env in _random_play(env, seed=4):
        eng = env.engine
        if eng.done:
            break
        masks = legality.compute_masks(eng)
        for seat, agent in enumerate(eng.agents):
            np.testing.assert_array_equal(masks[seat], legality.compute_mask(eng, seat))
            assert masks[seat].dtype == np.int8
        # The core's cache holds every seat's mask once any one was asked for.
        eng.invalidate_masks()
        eng.action_mask(eng.agents[-1])
        assert set(eng._mask_cache) == set(eng.agents)
        for seat, agent in enumerate(eng.agents):
            np.testing.assert_array_equal(eng.action_mask(agent), masks[seat])


def _batch_matches_each_game(env0, engines, rows=None, size=None):
    """The batch observer's arrays of ``engines`` against ``observe`` and ``action_mask`` of each."""
    enc = env0.encoder
    rows = list(range(len(engines))) if rows is None else rows
    size = len(engines) if size is None else size
    n = enc.n
    obs = np.full((size, n, enc.layout.size), -7, dtype=np.float32)
    masks = np.full((size, n, engines[0].n_actions), -7, dtype=np.int8)
    enc.batch_observer(size).observe(rows, engines, obs, masks)
    for row, eng in zip(rows, engines):
        for k, a in enumerate(eng.agents):
            assert obs[row, k].tobytes() == enc.reference_observe(eng, a).tobytes()
            np.testing.assert_array_equal(masks[row, k], eng.action_mask(a))
    untouched = [r for r in range(size) if r not in rows]
    assert (obs[untouched] == -7).all() and (masks[untouched] == -7).all()


@pytest.mark.parametrize("kwargs", CONFIGS + [{"players": 3, "own_picks": True}, {"players": 5, "own_picks": True,
                                                                                  "no_memory_chef": True}],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_the_batch_observer_writes_every_seats_observation_and_mask_of_every_game(kwargs):
    """Three games at once, every step of seeded random play to the end (each game's last state too)."""
    envs_ = [waroong_wars_v1.parallel_env(**kwargs) for _ in range(3)]
    games = [_random_play(env, seed=kwargs["players"] + 11 * k) for k, env in enumerate(envs_)]
    live = [next(g) for g in games]
    steps = 0
    while live:
        _batch_matches_each_game(envs_[0], [e.engine for e in live])
        steps += 1
        live = [e for g in games for e in [next(g, None)] if e is not None]
    assert steps > 50


def test_the_batch_observer_takes_rows_in_any_order_and_states_outside_the_byte_encoding():
    env = waroong_wars_v1.parallel_env(players=4, character_mode=True)
    env.reset(seed=1)
    engines = [cooking_engine(4, character_mode=True) for _ in range(3)]
    engines[1].customers[2] = customer_counts(preman=3)  # a negative score: this game goes the per-game way
    engines[1].invalidate_masks()
    assert scoring.score(engines[1], 2) < 0
    _batch_matches_each_game(env, engines, rows=[4, 0, 2], size=5)
    engines[2].hands[1] = counts(rice=300)  # a count bytes() refuses
    engines[2].invalidate_masks()
    _batch_matches_each_game(env, engines, rows=[1, 3, 0], size=4)
