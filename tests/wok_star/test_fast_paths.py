"""The fast paths (frame encoder, memoised mask tables) against the reference and their caches."""

from __future__ import annotations

import numpy as np
import pytest

from envs import wok_star_v1
from envs.wok_star.cards import EVENT_CARD_BASE
from envs.wok_star.legality import (area_positive, blank_masks, combos_feasible, cube_moves_all, cube_moves_legal,
                                      dice_gather, dice_gathers, method_fits, prepare_legal, prepare_row,
                                      substitutions_legal)
from envs.wok_star.rules import next_day_prep
from tests.wok_star.helpers import DATA, open_table
from tests.wok_star.reference_encoding import ReferenceEncoder


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _assert_matches_reference(env, ref: ReferenceEncoder) -> None:
    eng = env.unwrapped.engine
    for agent in eng.agents:
        fast = env.encoder.observe(eng, agent)
        assert _same_bits(fast, ref.observe(eng, agent)), (agent, eng.phase, eng.tick)
    assert _same_bits(env.encoder.global_state(eng), ref.global_state(eng))


@pytest.mark.parametrize("kw", [
    {"players": 2, "powers": True},
    {"players": 3, "events": True, "difficulty": "medium"},
    {"players": 4, "events": True, "powers": True, "setup": "auto", "difficulty": "extra_spicy"},
])
def test_frame_encoder_matches_the_reference_bit_for_bit(kw):
    env = wok_star_v1.parallel_env(**kw)
    ref = ReferenceEncoder(env.encoder)
    pol = wok_star_v1.HeuristicPolicy()
    rng = np.random.default_rng(7)
    steps = 0
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        _assert_matches_reference(env, ref)
        while env.agents:
            acts = {}
            for a in env.agents:
                if rng.random() < 0.5:
                    legal = np.flatnonzero(obs[a]["action_mask"])
                    acts[a] = int(legal[rng.integers(legal.size)])
                else:
                    acts[a] = pol.act(obs[a], a, env)
            obs, *_ = env.step(acts)
            for a in obs:
                assert _same_bits(obs[a]["observation"], ref.observe(env.unwrapped.engine, a))
            _assert_matches_reference(env, ref)
            steps += 1
    assert steps > 30


def test_frame_cache_follows_state_changes_made_through_the_engine():
    """Every change made outside ``step`` then ``invalidate_masks()`` reaches the next observation."""
    env = wok_star_v1.parallel_env(players=3, events=True, powers=True, setup="auto")
    env.reset(seed=4)
    eng = env.unwrapped.engine
    ref = ReferenceEncoder(env.encoder)
    lay = env.encoder.layout

    def change(mutate, field: str) -> None:
        before = env.observe("chef_1")["observation"]
        mutate()
        eng.invalidate_masks()
        after = env.observe("chef_1")["observation"]
        assert not np.array_equal(lay.get(before, field), lay.get(after, field)), field
        _assert_matches_reference(env, ref)

    open_table(eng, dice={0: [3, 5], 2: [6]}, timers=(7, 12))
    _assert_matches_reference(env, ref)
    change(lambda: eng.ing_level.__setitem__(next(i for i, h in enumerate(eng.ing_holder) if h >= 0), 3), "ing_level")
    change(lambda: eng.die_pip.__setitem__(2 * 5, 2), "dice_own")
    change(lambda: eng.die_holder.__setitem__(2 * 5, 1), "dice_taken")
    change(lambda: setattr(eng, "timers", [1, 2]), "timers")
    change(lambda: eng.cubes.__setitem__(2, eng.cubes[2] + 3), "cubes")
    held = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    change(lambda: eng.served[0].append([5 * held, 1]), "late_served")
    change(lambda: setattr(eng, "current", EVENT_CARD_BASE + 3), "current_event")
    change(lambda: eng.events_gone.append(5), "events_gone")
    change(lambda: setattr(eng, "hustle", eng.hustle + 2), "hustle")
    change(lambda: eng.power_used.__setitem__(0, not eng.power_used[0]), "power_used")
    change(lambda: setattr(eng, "deck", eng.deck[:-4]), "deck")
    change(lambda: setattr(eng, "income", eng.income + 9), "income")
    eng.income = 40
    next_day_prep.start_prep(eng)
    eng.invalidate_masks()
    _assert_matches_reference(env, ref)
    change(lambda: setattr(eng, "passes", eng.passes + 1), "passes")
    change(lambda: setattr(eng, "turn", (eng.turn + 1) % eng.n), "decider")


def test_observations_are_fresh_arrays_that_the_env_never_mutates():
    env = wok_star_v1.parallel_env(players=4, events=True)
    obs, _ = env.reset(seed=1)
    kept = {a: (o["observation"], o["observation"].copy()) for a, o in obs.items()}
    arrays = [o["observation"] for o in obs.values()]
    assert len({id(x) for x in arrays}) == len(arrays)
    assert all(x.flags.writeable and x.base is None for x in arrays)
    rng = np.random.default_rng(0)
    for _ in range(10):
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(acts)
    for a, (returned, copy) in kept.items():
        np.testing.assert_array_equal(returned, copy)
    # writing into a returned observation does not reach the next one
    first = env.observe("chef_0")["observation"]
    first[:] = 7
    assert not np.array_equal(env.observe("chef_0")["observation"], first)


def test_memoised_mask_blocks_are_read_only():
    have = (1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    unlocked = (2,) + (0,) * (len(DATA.ingredients) - 1)
    for arr in (prepare_legal(have, 0, 2), cube_moves_legal((1, 0, 2)), dice_gather(3, 1, 7),
                substitutions_legal((True,) * len(DATA.ingredients), (1,) * len(DATA.ingredients), DATA.track_top),
                prepare_row(have, unlocked), combos_feasible(have), method_fits(0, 2), dice_gathers(3, (7, 1, 0)),
                cube_moves_all((1, 0, 2)), blank_masks(3, 10), area_positive((have, have))):
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[0] = 0


def test_dice_gather_points_gated_blocks_at_false():
    env = wok_star_v1.parallel_env(players=3)
    env.reset(seed=0)
    eng = env.unwrapped.engine
    open_table(eng, dice={0: [1, 2], 1: [3, 4], 2: [5, 6]})
    eng.hustle, eng.cubes = 0, [0, 0, 0]
    eng.invalidate_masks()
    t = eng.actions
    m = eng.action_mask("chef_0")
    assert not m[t.group("take").start: t.group("take").stop].any()
    assert not m[t.group("rotate").start: t.group("rotate").stop].any()
    assert m[t.index("hustle_gain", pip=1, die="own")] == 1
    eng.hustle, eng.cubes = 1, [1, 0, 0]
    eng.invalidate_masks()
    m = eng.action_mask("chef_0")
    assert m[t.index("take", chef=1, pip=3)] == 1 and m[t.index("take", chef=2, pip=6)] == 1
    assert m[t.index("rotate", chef=2, pip=5, die="own", direction="down")] == 1
    assert m[t.index("take", chef=1, pip=5)] == 0


def _assert_masks_agree_with_the_rules(eng) -> None:
    """Every chef's mask (one batched computation) against the slow rule check, action by action."""
    for agent in eng.agents:
        mask, seat = eng.action_mask(agent), eng.seat[agent]
        for i in range(1, eng.actions.n):
            name, params = eng.actions.decode(i)
            assert bool(mask[i]) == (eng.check(seat, name, params) is None), (agent, eng.actions.name(i), eng.phase)


def test_one_mask_computation_fills_every_chef_and_stays_read_only():
    env = wok_star_v1.parallel_env(players=3, powers=True, setup="auto")
    env.reset(seed=2)
    eng = env.unwrapped.engine
    open_table(eng, dice={0: [1, 4], 1: [2, 2], 2: [6]})
    assert eng._mask_cache == {}
    first = eng.action_mask("chef_1")
    assert set(eng._mask_cache) == set(eng.agents)  # the other chefs' masks came with it
    batch = eng.all_masks()
    for seat, agent in enumerate(eng.agents):
        assert np.shares_memory(eng.action_mask(agent), batch) and np.array_equal(eng.action_mask(agent), batch[seat])
    assert first.dtype == np.int8 and not first.flags.writeable and not batch.flags.writeable
    _assert_masks_agree_with_the_rules(eng)
    # env.step hands out copies, never the cached rows
    obs, *_ = env.step({a: 0 for a in env.agents})
    m = obs["chef_0"]["action_mask"]
    assert m.flags.writeable and not np.shares_memory(m, eng.all_masks())


def test_keyed_caches_follow_decision_time_state_changed_outside_step():
    """The base frame and the per-chef ``prepare`` keys live across ticks (``_keyed_cache``); every change
    of what they derive from, made outside ``step`` then ``invalidate_masks()``, reaches the next
    observation and masks."""
    env = wok_star_v1.parallel_env(players=3, events=True, powers=True, setup="auto")
    env.reset(seed=5)
    eng = env.unwrapped.engine
    ref = ReferenceEncoder(env.encoder)
    open_table(eng, dice={0: [2, 4], 1: [3, 3], 2: [1, 6]})
    env.observe("chef_0")
    assert {"frame_base", "seat_unlocked"} <= set(eng._keyed_cache)
    held = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    free = next(i for i, h in enumerate(eng.ing_holder) if h < 0)
    free_recipe = next(r for r, h in enumerate(eng.recipe_holder) if h == -1)

    def offer():
        eng.offers = [free_recipe, -1, -1]

    def upgrade():
        eng.ing_unlocked[held[0]] += 1

    def new_card():
        eng.ing_holder[free], eng.ing_level[free], eng.ing_unlocked[free] = 2, 1, 2

    def new_recipe():
        eng.recipe_holder[free_recipe] = 1

    changes = [
        lambda: eng.ing_holder.__setitem__(held[0], (eng.ing_holder[held[0]] + 1) % 3),  # a card changes hands
        upgrade, new_card, new_recipe, offer,
        lambda: eng.character.__setitem__(0, next(c for c in range(6) if c not in eng.character)),
        lambda: eng.goal_cubes.__setitem__(1, False),
        lambda: eng.events_gone.append(3),
        lambda: setattr(eng, "offers", []),
    ]
    for mutate in changes:
        before = env.observe("chef_2")["observation"]
        mutate()
        eng.invalidate_masks()
        assert not np.array_equal(before, env.observe("chef_2")["observation"])
        _assert_matches_reference(env, ref)
        _assert_masks_agree_with_the_rules(eng)


def test_first_action_of_a_tick_is_checked_against_the_masks_later_ones_against_the_rules():
    """``conflict`` uses the cached mask while no action has changed the state this tick, then the rule
    check: a die taken by the first chef is gone for the second (see also test_kitchen's blocked tests)."""
    env = wok_star_v1.parallel_env(players=3, setup="auto")
    env.reset(seed=0)
    eng = env.unwrapped.engine
    open_table(eng, dice={0: [1, 2], 1: [3, 4], 2: [5]})
    t = eng.actions
    take_5_from_2 = t.index("take", chef=2, pip=5)      # chef_0: chef_2 is 2 seats on
    take_5_from_2_by_1 = t.index("take", chef=1, pip=5)  # chef_1: chef_2 is the next seat
    blocked = set()
    for k in range(8):
        e = eng.clone()
        e.rng = np.random.default_rng(k)  # the resolution order
        e.cubes = [1, 1, 1]
        e.invalidate_masks()
        assert e.action_mask("chef_0")[take_5_from_2] and e.action_mask("chef_1")[take_5_from_2_by_1]
        res = e.step({"chef_0": take_5_from_2, "chef_1": take_5_from_2_by_1, "chef_2": 0})
        assert len(res.blocked) == 1 and "pre-empted" in next(iter(res.blocked.values()))
        blocked |= set(res.blocked)
        assert sum(e.cubes) == 3 and e.cubes[2] == 2
    assert blocked == {"chef_0", "chef_1"}  # the seeded order decides who comes second
