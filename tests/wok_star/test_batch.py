"""The batch observer (``observation.BatchObserver``) writes exactly what the per-game path writes.

Every rule variant (players x difficulty x Events x Player Powers) and both setups, a few games
each played by heuristic chefs with a random legal move now and then, through setup, open days,
washes, Next Day Prep and the game's end: at every tick the batch's observation and mask of every
chef equal ``encoder.observe`` and ``engine.action_mask`` of that chef, float32 bytes and int8
entries. Also rows in another order and a subset, states set outside ``step`` (then
``invalidate_masks()``), values that do not fit a byte, and a game that is over.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import wok_star_v1
from envs.wok_star.cards import EVENT_CARD_BASE
from envs.wok_star.encoding import WokStarEncoder
from envs.wok_star.engine import WokStarEngine
from envs.wok_star.legality import KITCHEN_PHASES, batch_masks, compute_masks
from envs.wok_star.options import variant_combinations
from tests.core.batch_checks import batch_arrays, check_batch
from tests.wok_star.helpers import config, open_table

POLICY = wok_star_v1.HeuristicPolicy()


def _games(games, seed, **kw):
    cfg = config(**kw)
    encoder = WokStarEncoder(cfg)
    engines = [WokStarEngine.new(cfg, seed * 100 + k) for k in range(games)]
    return encoder, encoder.batch_observer(games), engines, np.random.default_rng(seed)


def _step(engines, rng, random_share=0.2):
    """One tick of every game not over: the heuristic's moves, a random legal one now and then."""
    for e in engines:
        if e.done:
            continue
        joint = {}
        for a in e.live_agents():
            mask = e.action_mask(a)
            if rng.random() < random_share:
                joint[a] = int(rng.choice(np.flatnonzero(mask)))
            else:
                joint[a] = int(POLICY.act({"observation": None, "action_mask": mask}, a, _EngineEnv(e)))
        e.step(joint)


class _EngineEnv:
    """What the heuristic policy reads of an env: its engine."""

    def __init__(self, engine):
        self.unwrapped = self
        self.engine = engine


@pytest.mark.parametrize("setup", ["auto", "team"])
@pytest.mark.parametrize("kw", variant_combinations(), ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_the_batch_writes_every_chefs_observation_and_mask_of_every_variant(kw, setup):
    encoder, observer, engines, rng = _games(3, len(str(kw)) + len(setup), setup=setup, **kw)
    phases, events_seen, customers = set(), False, 0
    for _ in range(160):
        phases.update(e.phase for e in engines)
        events_seen |= any(e.events_today for e in engines)
        customers += sum(0 <= e.current < EVENT_CARD_BASE for e in engines)
        check_batch(observer, encoder, engines)
        kitchen = [e for e in engines if e.phase in KITCHEN_PHASES]
        if kitchen:  # the masks of many games at once, each equal to its own
            batch = batch_masks(kitchen)
            for e, m in zip(kitchen, batch):
                assert m.tobytes() == compute_masks(e).tobytes()
        _step(engines, rng)
    assert {"open", "wash"} <= phases and customers > 0
    if kw["events"]:
        assert events_seen or any(e.events_gone for e in engines)


def test_whole_games_to_their_end_and_the_rows_in_any_order():
    encoder, observer, engines, rng = _games(5, 3, players=3, events=True, powers=True, setup="auto")
    phases = set()
    for t in range(3000):
        phases.update(e.phase for e in engines)
        obs, masks = check_batch(observer, encoder, engines)
        if t % 7 == 0:  # rows in another order, a subset, in a larger array
            rows = [4, 0, 3]
            sub_obs, sub_masks = batch_arrays(observer, encoder, [engines[4], engines[1], engines[2]], rows, size=6)
            for row, k in zip(rows, (4, 1, 2)):
                assert sub_obs[row].tobytes() == obs[k].tobytes()
                np.testing.assert_array_equal(sub_masks[row], masks[k])
            assert (sub_obs[[1, 2, 5]] == -7).all() and (sub_masks[[1, 2, 5]] == -7).all()
        if all(e.done for e in engines):
            break
        _step(engines, rng, random_share=0.05)
    assert all(e.done for e in engines)  # a finished game: noop only, its last observation
    assert {"prep", "open", "wash", "over"} <= phases


def test_states_set_outside_step_reach_the_batch():
    """The batch keeps nothing of a game between calls: every change made outside ``step`` then
    ``invalidate_masks()`` is in its next arrays."""
    env = wok_star_v1.parallel_env(players=3, events=True, powers=True, setup="auto")
    env.reset(seed=4)
    eng = env.unwrapped.engine
    observer = env.encoder.batch_observer(2)
    other = WokStarEngine.new(eng.config, 9)
    open_table(eng, dice={0: [3, 5], 2: [6]}, timers=(7, 12))
    held = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    free_recipe = next(r for r, h in enumerate(eng.recipe_holder) if h == -1)
    changes = [
        lambda: eng.die_pip.__setitem__(10, 2),
        lambda: eng.die_holder.__setitem__(10, 1),
        lambda: setattr(eng, "timers", [1, 2]),
        lambda: eng.cubes.__setitem__(2, eng.cubes[2] + 3),
        lambda: eng.served[0].append([5 * held, 1]),
        lambda: eng.served[1].append([5 * held + 3, 0]),  # a Coupon customer
        lambda: setattr(eng, "current", 5 * held + 1),
        lambda: setattr(eng, "current", EVENT_CARD_BASE + 3),
        lambda: eng.events_today.append(2),
        lambda: setattr(eng, "hustle", eng.hustle + 2),
        lambda: eng.power_used.__setitem__(0, not eng.power_used[0]),
        lambda: setattr(eng, "deck", eng.deck[:-4]),
        lambda: eng.deck.insert(0, EVENT_CARD_BASE + 5),
        lambda: setattr(eng, "income", eng.income + 9),
        lambda: eng.recipe_holder.__setitem__(free_recipe, 2),
        lambda: setattr(eng, "money", 300),  # above a byte: the general path
        lambda: setattr(eng, "hustle", 30),  # the supply below zero
        lambda: eng.served[2].append([5 * free_recipe, 0]),
        lambda: setattr(eng, "phase", "over"),  # between days every Regular customer counts as to come
    ]
    before = None
    for mutate in changes:
        mutate()
        eng.invalidate_masks()
        obs, _ = check_batch(observer, env.encoder, [other, eng])
        assert before is None or not np.array_equal(before, obs[1])
        before = obs[1]


def test_a_batch_observer_of_wok_star_refuses_engines_of_another_configuration():
    observer = wok_star_v1.parallel_env(players=2).encoder.batch_observer(2)
    other = WokStarEngine.new(config(players=2, difficulty="medium"), 0)
    obs = np.zeros((2, 2, observer.size), np.float32)
    masks = np.zeros((2, 2, observer.actions), np.int8)
    with pytest.raises(ValueError, match="an engine of configuration .* given to the batch observer of"):
        observer.observe([0], [other], obs, masks)
    assert not obs.any() and not masks.any()


def test_batch_masks_takes_kitchen_phases_only():
    eng = WokStarEngine.new(config(players=2, setup="team"), 0)
    assert eng.phase not in KITCHEN_PHASES
    with pytest.raises(ValueError, match=r"batch_masks takes engines in a kitchen phase .*; got phase"):
        batch_masks([eng])


def _stuck_by_the_masks(eng) -> bool:
    masks = compute_masks(eng)
    return bool(np.count_nonzero(masks) > np.count_nonzero(masks[:, eng._waiting_columns]))


@pytest.mark.parametrize("players", [2, 4])
def test_the_stuck_check_without_the_masks_agrees_with_the_masks(players):
    """``anyone_productive`` answers from wash, serve, rotate or hustle_gain alone when one is legal
    (the masks are then left to whoever reads them): the same answer as counting the masks, at
    every open tick of seeded games, and it leaves no masks computed behind when it answered so."""
    _, _, engines, rng = _games(8, players, players=players, powers=True)
    shortcuts = answers = 0
    for _ in range(400):
        for e in engines:
            if e.phase == "open" and not e.done:
                probe = e.clone()
                answer = probe.anyone_productive()
                assert answer == _stuck_by_the_masks(e)
                shortcuts += "masks" not in probe._cache
                answers += 1
        _step(engines, rng, random_share=0.5)
    assert answers > 200 and 0 < shortcuts < answers, (answers, shortcuts)


def test_the_first_action_of_a_tick_is_checked_against_every_chefs_cached_masks():
    """The batched env steps engines without ``validate`` (it checked the batch against its masks):
    ``conflict`` then reads the first action's entry from every chef's cached masks (``all_masks``)
    rather than checking the rules again; later actions of the tick are checked by the rules."""
    eng = WokStarEngine.new(config(players=3, setup="auto"), 0)
    open_table(eng, dice={0: [1, 2], 1: [3, 4], 2: [5]})
    eng.cubes = [1, 1, 1]
    eng.invalidate_masks()
    t = eng.actions
    joint = {"chef_0": t.index("take", chef=2, pip=5), "chef_1": t.index("take", chef=1, pip=5), "chef_2": 0}
    for k in range(6):
        e = eng.clone()
        e.rng = np.random.default_rng(k)
        e.all_masks()
        assert not e._mask_cache  # no row cache: the batched env's path
        checked = []
        real = e.check
        e.check = lambda seat, name, params: checked.append(seat) or real(seat, name, params)
        res = e.step_validated(joint)
        assert len(res.blocked) == 1 and "pre-empted" in next(iter(res.blocked.values()))
        assert checked == [e.seat[next(iter(res.blocked))]]  # the first action was read from the masks


@pytest.mark.parametrize("field,value", [("day", 5), ("day", 256), ("turn", 2), ("turn", 255), ("pending", [10]),
                                         ("pending", [-1]), ("current", EVENT_CARD_BASE + 15)])
def test_a_state_no_game_reaches_is_refused_before_anything_is_written(field, value):
    """A one-hot index outside its field, set by hand (no step and no snapshot makes one): the
    per-game path writes it into a neighbouring field or fails; the batch refuses it, naming what
    is allowed (its byte records would have read 255 as "none")."""
    _refused_with(field, value, r"engine 1 holds a state no game reaches .*; allowed: days 0\.\.4")


def _refused_with(field: str, value, message: str) -> None:
    """An open table with ``field`` set by hand to ``value``, observed in row 1 of a batch beside a
    fresh game: refused with ``message``, nothing written."""
    env = wok_star_v1.parallel_env(players=2, setup="auto")
    env.reset(seed=3)
    eng = env.unwrapped.engine
    open_table(eng, dice={0: [3, 5]})
    setattr(eng, field, value)
    eng.invalidate_masks()
    observer = env.encoder.batch_observer(2)
    obs = np.full((2, 2, observer.size), -7, np.float32)
    masks = np.full((2, 2, observer.actions), -7, np.int8)
    with pytest.raises(ValueError, match=message):
        observer.observe([0, 1], [WokStarEngine.new(eng.config, 1), eng], obs, masks)
    assert (obs == -7).all() and (masks == -7).all()


@pytest.mark.parametrize("hustle,has_dice,productive", [(0, True, False), (1, True, True), (0, False, False)])
def test_the_stuck_check_reads_rotate_and_hustle_gain_as_the_masks_do(hustle, has_dice, productive):
    """A table where only the dice actions could be left (no wash, nothing to serve, no method
    uncovered where the dice are, no Fortune cube): an unused die counts only with a Hustle token in
    the pool or the supply, as the masks' ``rotate`` and ``hustle_gain`` gates say. The supply is
    emptied by hand (every Ingredient card in play, chef 0's, with one method uncovered: they cover
    more tokens than there are); chef 1 holds the dice and no card."""
    eng = WokStarEngine.new(config(players=2, setup="auto"), 0)
    held = next(r for r, h in enumerate(eng.recipe_holder) if h >= 0)
    open_table(eng, current=5 * held, dice={1: [3, 5] if has_dice else []})
    for i in range(len(eng.ing_holder)):
        eng.ing_holder[i], eng.ing_level[i], eng.ing_unlocked[i] = 0, 0, 1
    eng.washes = eng.data.components["washes_per_day"]
    eng.cubes = [0, 0]
    eng.hustle = hustle
    eng.invalidate_masks()
    assert eng.hustle_supply <= 0
    assert _stuck_by_the_masks(eng.clone()) is productive
    assert bool(eng.anyone_productive()) is productive


def test_a_value_that_is_no_integer_is_refused_before_anything_is_written():
    """Money set by hand to 12.5: the records go through ``bytes`` or int64, so the batch refuses
    it with a ValueError naming the value (int64 would have truncated it to 12); nothing is written."""
    _refused_with("money", 12.5, r"holds 12\.5 where the observation reads .*; allowed: integers")


def test_lateness_is_read_against_the_patience_where_it_differs_from_the_timers():
    """``late`` is the ticks a customer has waited past both timers over the patience (``P``): with the
    default 30 s of both, a field divided by the timer's length (``T``) had passed every test. 12 s of
    patience against 30 s timers, played until a customer waits late, in both paths."""
    encoder, observer, engines, rng = _games(3, 5, players=2, patience_seconds=12.0)
    assert all(e.P != e.T for e in engines)
    late = 0
    for _ in range(400):
        check_batch(observer, encoder, engines)  # each game's own observation equals the batch's
        late += sum(e.late_ticks > 0 for e in engines)
        if late >= 3 or all(e.done for e in engines):
            break
        _step(engines, rng, random_share=0.6)
    assert late >= 3, "no customer waited past the timers"
