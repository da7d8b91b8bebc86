"""envs.vector: stacked arrays that replay exactly what separate envs play."""

import re

import numpy as np
import pytest

import envs
from envs.core.errors import IllegalActionError
from envs.vector import BatchedEnv, ProcessBatchedEnv, batched, process, random_legal_actions, seeds_for

CASES = [("wok_star_v1", {"players": 3}), ("frying_master_v1", {"players": 2}), ("waroong_wars_v1", {"players": 4})]


def _separate(env_id, kwargs, n, seed):
    out = []
    for i in range(n):
        env = envs.get_env_module(env_id).parallel_env(**kwargs)
        obs, _ = env.reset(seed=seed + i)
        out.append([env, obs])
    return out


@pytest.mark.parametrize("env_id,kwargs", CASES)
def test_batch_replays_separate_envs_step_for_step_including_auto_reset(env_id, kwargs):
    kwargs = {**kwargs, "max_ticks": 7}  # short episodes: several auto-resets
    n, seed = 3, 40
    venv = BatchedEnv(env_id, n, kwargs)
    obs, masks, _ = venv.reset(seed=seed)
    ref = _separate(env_id, kwargs, n, seed)
    agents = venv.possible_agents
    rng = np.random.default_rng(1)
    resets = 0
    for _ in range(20):
        for i, (env, o) in enumerate(ref):
            for p, a in enumerate(agents):
                assert venv.alive[i, p] == (a in env.agents)
                if a in env.agents:
                    np.testing.assert_array_equal(obs[i, p], o[a]["observation"])
                    np.testing.assert_array_equal(masks[i, p], o[a]["action_mask"])
        actions = random_legal_actions(rng, masks)
        obs, masks, rew, term, trunc, infos = venv.step(actions)
        for i, pair in enumerate(ref):
            env, _ = pair
            o, r, te, tr, _ = env.step({a: int(actions[i, agents.index(a)]) for a in env.agents})
            for a in r:
                p = agents.index(a)
                assert rew[i, p] == r[a] and term[i, p] == te[a] and trunc[i, p] == tr[a]
            if not env.agents:
                resets += 1
                final = infos[i]["final_observation"]
                for a in o:
                    np.testing.assert_array_equal(final[agents.index(a)], o[a]["observation"])
                assert infos[i]["episode_length"] == env.engine.tick
                assert infos[i]["outcome"] == env.engine.outcome()
                o, _ = env.reset()  # auto-reset continues the game's generator
            else:
                assert "final_observation" not in infos[i]
            pair[1] = o
    assert resets >= n  # the auto-reset path was exercised


def test_returned_arrays_are_fresh():
    venv = BatchedEnv("frying_master_v1", 2)
    obs, masks, _ = venv.reset(seed=0)
    keep = obs.copy()
    obs2, masks2, *_ = venv.step(random_legal_actions(np.random.default_rng(0), masks))
    assert not np.shares_memory(obs, obs2) and not np.shares_memory(masks, masks2)
    np.testing.assert_array_equal(obs, keep)


def test_process_form_matches_in_process_form():
    kwargs = {"players": 3, "max_ticks": 6}
    local = BatchedEnv("waroong_wars_v1", 5, kwargs)
    with ProcessBatchedEnv("waroong_wars_v1", 5, workers=2, env_kwargs=kwargs) as remote:
        assert remote.workers == 2
        a = local.reset(seed=9)
        b = remote.reset(seed=9)
        rng = np.random.default_rng(3)
        for _ in range(12):
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_array_equal(a[1], b[1])
            np.testing.assert_array_equal(local.alive, remote.alive)
            actions = random_legal_actions(rng, a[1])
            a = local.step(actions)
            b = remote.step(actions)
            for k in range(2, 5):
                np.testing.assert_array_equal(a[k], b[k])
            assert [("final_observation" in x) for x in a[5]] == [("final_observation" in x) for x in b[5]]


def test_bad_input_is_a_clear_error():
    venv = BatchedEnv("wok_star_v1", 2, {"players": 2})
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros((2, 2), dtype=int))
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(num_games, num_seats\) = \(2, 2\)"):
        venv.step(np.zeros((2, 3), dtype=int))
    with pytest.raises(ValueError, match="integers"):
        venv.step(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="2 seeds for 3 games"):
        seeds_for([1, 2], 3)
    with pytest.raises(ValueError, match="num_games"):
        BatchedEnv("wok_star_v1", 0)
    with pytest.raises(ValueError, match="players"):
        ProcessBatchedEnv("wok_star_v1", 2, workers=2, env_kwargs={"players": 9})
    # an illegal action is refused by the env and names the agent; the batch is unchanged
    obs, masks, _ = venv.reset(seed=1)
    before = [e.snapshot() for e in venv.envs]
    acts = random_legal_actions(np.random.default_rng(0), masks)
    acts[1, 1] = np.flatnonzero(masks[1, 1] == 0)[0]  # illegal in the second game only
    with pytest.raises(ValueError, match="chef_1"):
        venv.step(acts)
    acts[1, 1] = 10_000
    with pytest.raises(ValueError, match=r"chef_1.*out of range: valid indices are 0\.\."):
        venv.step(acts)
    assert [e.snapshot() for e in venv.envs] == before  # no game stepped
    np.testing.assert_array_equal(venv.reset(seed=1)[0], obs)


def test_random_legal_actions_only_pick_legal_ones_and_cover_them():
    masks = np.zeros((2000, 5), dtype=np.int8)
    masks[:, [0, 2, 4]] = 1
    picks = random_legal_actions(np.random.default_rng(0), masks)
    assert set(picks.tolist()) == {0, 2, 4}
    counts = np.bincount(picks, minlength=5)[[0, 2, 4]]
    assert counts.min() > 550  # roughly uniform (expected 667 each)


@pytest.mark.parametrize("width", [991, 404, 131])  # wide masks: read a word at a time (131 * 23 * 4 % 8 != 0: not)
@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.int64])
def test_random_legal_actions_on_wide_masks_pick_each_rows_own_legal_ones_uniformly(width, dtype):
    rng = np.random.default_rng(width)
    masks = np.zeros((3, 4, width), dtype=dtype)  # one row per legal-set shape, one with no legal action
    masks = np.concatenate([masks] * 8)[:24 if width != 131 else 23]  # enough entries to be read word-wise
    assert masks.size >= batched._WORDWISE_FROM
    masks[0, 0, [0]] = 1
    masks[0, 1, [7, 8, width - 1]] = 1
    masks[1, 0, rng.choice(width, 40, replace=False)] = 1
    masks[2, 3, :] = 1
    masks[1, 2, [1, 63, 64, 65]] = 1
    draw = np.random.default_rng(0)
    hits = np.zeros(masks.shape, dtype=np.int64)
    for _ in range(3000):
        picks = random_legal_actions(draw, masks)
        assert picks.shape == masks.shape[:2]
        np.add.at(hits, (*np.indices(picks.shape), picks), 1)
    empty = masks.sum(-1) == 0
    assert (hits[empty][:, 0] == 3000).all()  # no legal action: 0
    assert (hits[~empty][masks[~empty] == 0] == 0).all()  # never an illegal one
    for i, p in zip(*np.nonzero(~empty)):
        legal = hits[i, p][masks[i, p] == 1]
        expected = 3000 / legal.size
        assert np.abs(legal - expected).max() < 5 * np.sqrt(expected) + 1, (i, p, legal)  # about uniform
        assert (legal > 0).mean() > 0.9  # and spread over the row (all-legal row: 1 - e^-3 expected)



@pytest.mark.parametrize("form", ["in-process", "process"])
def test_a_count_options_or_seed_of_the_wrong_kind_is_refused_with_what_is_allowed(form):
    """``num_games=2.5`` was taken as 2 and ``"4"`` as 4 by the in-process form; a list for
    ``env_kwargs`` was a bare TypeError; ``reset(seed="a")`` said "got 1 seeds for 2 games"."""
    make = (lambda n=2, kw=None: BatchedEnv("wok_star_v1", n, kw)) if form == "in-process" else \
        (lambda n=2, kw=None: ProcessBatchedEnv("wok_star_v1", n, workers=1, env_kwargs=kw))
    for bad in (0, -1, 2.5, "4", True, None, 10 ** 12):
        says = "num_games=" + re.escape(repr(bad)) + r" is not allowed; allowed: an integer >= 1 and <= 100,000"
        with pytest.raises(ValueError, match=says):
            make(bad)  # 10**12: refused before anything is allocated (it asked for 21.8 TiB)
    with pytest.raises(ValueError, match="env_kwargs must be a dict of the env's options, got a list"):
        make(2, [("players", 2)])
    venv = make(2, {"players": 2})
    try:
        venv.reset(seed=np.int64(3))
        for bad, what in (("a", "seed='a' (a str)"), (1.5, "seed=1.5 (a float)"), ([1, "2"], "seed '2' (a str) for game 1"),
                          ([1, True], "seed True (a bool) for game 1"), ([1], "got 1 seeds for 2 games"),
                          (-2, "seed=-2 is not allowed: seeds are non-negative integers"),
                          ([4, np.int64(-1)], "seed -1 for game 1 is not allowed: seeds are non-negative integers")):
            with pytest.raises(ValueError, match=re.escape(what) + ".*give None, one int, or a sequence of exactly 2 ints"):
                venv.reset(seed=bad)
        assert seeds_for(np.array([4, 5]), 2) == [4, 5] and seeds_for([None, 7], 2) == [None, 7]
        assert seeds_for(np.array(5), 2) == [5, 6]  # a 0-d array is its value (it was "iteration over a 0-d array")
        with pytest.raises(ValueError, match=re.escape("seed=1.5 (a float)")):
            seeds_for(np.array(1.5), 2)
    finally:
        venv.close()


@pytest.mark.parametrize("form", ["BatchedEnv", "ProcessBatchedEnv"])
def test_a_bad_seed_or_ragged_actions_are_refused_before_any_game_changes(form):
    """``BatchedEnv.reset(seed=[7, -1, 2])`` dealt game 0 again and then failed in game 1 with
    ``make_rng``'s message, naming no game; ``step`` of ragged rows gave numpy's own error. The
    batch then plays on exactly as an untouched twin does."""
    venv = BatchedEnv("frying_master_v1", 3, {"players": 2}) if form == "BatchedEnv" else \
        ProcessBatchedEnv("frying_master_v1", 3, workers=2, env_kwargs={"players": 2})
    twin = BatchedEnv("frying_master_v1", 3, {"players": 2})
    try:
        venv.reset(seed=0)
        _, twin_masks, _ = twin.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(5):
            acts = twin.random_actions(rng)
            venv.step(acts)
            twin_obs, twin_masks, *_ = twin.step(acts)
        with pytest.raises(ValueError, match=r"seed -1 for game 1 is not allowed: seeds are non-negative integers"):
            venv.reset(seed=[7, -1, 2])
        with pytest.raises(ValueError, match=re.escape("actions must be an array of integers of shape "
                                                       "(num_games, num_seats) = (3, 2); got [[0, 0], [0], [0, 0]]")):
            venv.step([[0, 0], [0], [0, 0]])
        if form == "BatchedEnv":
            assert [e.snapshot() for e in venv.envs] == [e.snapshot() for e in twin.envs]
        acts = twin.random_actions(rng)
        obs, masks, *_ = venv.step(acts)
        twin_obs, twin_masks, *_ = twin.step(acts)
        assert np.array_equal(obs, twin_obs) and np.array_equal(masks, twin_masks)
    finally:
        venv.close()
        twin.close()


@pytest.mark.parametrize("form", ["BatchedEnv", "ProcessBatchedEnv"])
def test_a_closed_batch_refuses_reset_and_step(form):
    """The in-process form stepped on after ``close()`` where the process form refused."""
    venv = BatchedEnv("wok_star_v1", 2, {"players": 2}) if form == "BatchedEnv" else \
        ProcessBatchedEnv("wok_star_v1", 2, workers=1, env_kwargs={"players": 2})
    _, masks, _ = venv.reset(seed=0)
    venv.step(random_legal_actions(np.random.default_rng(0), masks))
    venv.close()
    venv.close()  # twice is harmless
    for call in (lambda: venv.step(np.zeros((2, 2), dtype=int)), lambda: venv.reset(seed=0)):
        with pytest.raises(RuntimeError, match=f"this {form} is closed; build a new one"):
            call()

def test_process_form_refuses_a_bad_batch_before_any_game_steps():
    kwargs = {"players": 2}
    local = BatchedEnv("frying_master_v1", 4, kwargs)
    with ProcessBatchedEnv("frying_master_v1", 4, workers=2, env_kwargs=kwargs) as remote:
        with pytest.raises(RuntimeError, match="reset"):
            remote.step(np.zeros((4, 2), dtype=int))
        a = local.reset(seed=5)
        b = remote.reset(seed=5)
        rng = np.random.default_rng(0)
        acts = random_legal_actions(rng, b[1])
        bad = acts.copy()
        bad[3, 1] = np.flatnonzero(b[1][3, 1] == 0)[0]  # illegal in game 3: the remote worker's shard
        with pytest.raises(IllegalActionError, match=r"game 3, chef_1: action \d+ \(.*\) is not legal now; legal: \[.*no game was stepped"):
            remote.step(bad)
        bad[3, 1] = 999
        with pytest.raises(IllegalActionError, match="out of range"):
            remote.step(bad)
        # nothing stepped: both forms continue identically
        a, b = local.step(acts), remote.step(acts)
        for k in range(5):
            np.testing.assert_array_equal(a[k], b[k])


def test_process_form_with_one_worker_runs_in_this_process():
    with ProcessBatchedEnv("wok_star_v1", 3, workers=1, env_kwargs={"players": 2}) as venv:
        assert venv.workers == 1 and not venv._procs
        obs, masks, _ = venv.reset(seed=0)
        assert obs.shape[:2] == (3, 2) and masks.dtype == np.int8


FAST_CASES = [("wok_star_v1", {"players": 2}), ("wok_star_v1", {"players": 4}), ("frying_master_v1", {"players": 2}),
              ("frying_master_v1", {"players": 4}), ("waroong_wars_v1", {"players": 3}), ("waroong_wars_v1", {"players": 5})]


def _side_by_side(fast, ref, seed, steps, tweak=None, infos=True):
    """Reset two batches with ``seed`` and step them with the same seeded random legal actions
    (``tweak(t, actions, masks)`` may change them), checking that they show the same observations,
    masks and live seats before each step and return the same step (``infos``: infos too).
    Returns ``(alive before the step, the first batch's step)`` per step."""
    a, b = fast.reset(seed=seed), ref.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for t in range(steps):
        for k in range(2):
            np.testing.assert_array_equal(a[k], b[k])
        np.testing.assert_array_equal(fast.alive, ref.alive)
        acts = random_legal_actions(rng, a[1])
        if tweak is not None:
            tweak(t, acts, a[1])
        alive = fast.alive.copy()
        a, b = fast.step(acts), ref.step(acts)
        if infos:
            _assert_same_step(a, b)
        else:
            for k in range(5):
                np.testing.assert_array_equal(a[k], b[k])
        out.append((alive, a))
    return out


def _assert_same_step(a, b):
    for k in range(5):
        np.testing.assert_array_equal(a[k], b[k])
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape
    for x, y in zip(a[5], b[5]):
        assert sorted(x) == sorted(y)
        assert dict(x["agents"]) == dict(y["agents"])
        for key in ("final_observation", "final_action_mask", "episode_return"):
            if key in x:
                np.testing.assert_array_equal(x[key], y[key])
        assert x.get("outcome") == y.get("outcome") and x.get("episode_length") == y.get("episode_length")


@pytest.mark.parametrize("illegal", ["raise", "noop"])
@pytest.mark.parametrize("env_id,kwargs", FAST_CASES)
def test_fast_path_gives_exactly_the_reference_paths_arrays(env_id, kwargs, illegal):
    """The engine-direct step (the default) against the per-game PettingZoo
    step (``_step_reference``): every array, info and end-of-game entry, over
    several seeds and auto-resets (short episodes), and the same games after."""
    for seed, max_ticks in ((0, 9), (17, 23), (123, None)):
        kw = {**kwargs, "illegal_action": illegal, **({"max_ticks": max_ticks} if max_ticks else {})}
        fast, ref = BatchedEnv(env_id, 3, kw), BatchedEnv(env_id, 3, kw)
        assert fast._fast
        ref._fast = False
        a, b = fast.reset(seed=seed), ref.reset(seed=seed)
        rng = np.random.default_rng(seed)
        ends = 0
        for t in range(60 if max_ticks else 150):
            for k in range(2):
                np.testing.assert_array_equal(a[k], b[k])
            np.testing.assert_array_equal(fast.alive, ref.alive)
            acts = random_legal_actions(rng, a[1])
            if illegal == "noop" and t % 5 == 0:
                acts[0, 0] = np.flatnonzero(a[1][0, 0] == 0)[0] if (a[1][0, 0] == 0).any() else 0
            a, b = fast.step(acts), ref.step(acts)
            _assert_same_step(a, b)
            ends += sum("final_observation" in x for x in a[5])
        assert [e.snapshot() for e in fast.envs] == [e.snapshot() for e in ref.envs]
        assert [e.last_step_details() for e in fast.envs] == [e.last_step_details() for e in ref.envs]
        if max_ticks:
            assert ends >= 3  # auto-reset exercised


OBSERVED_CASES = [("frying_master_v1", {"players": 2}), ("frying_master_v1", {"players": 3, "mode": "preorder"}),
                  ("frying_master_v1", {"players": 4, "teppanyaki": True, "serve_rule": "any_food"}),
                  ("waroong_wars_v1", {"players": 3, "own_picks": True}),
                  ("waroong_wars_v1", {"players": 5, "character_mode": True, "constraint_mode": True}),
                  ("wok_star_v1", {"players": 2}),
                  ("wok_star_v1", {"players": 4, "events": True, "powers": True, "difficulty": "extra_spicy"})]


@pytest.mark.parametrize("illegal", ["raise", "noop"])
@pytest.mark.parametrize("env_id,kwargs", OBSERVED_CASES)
def test_a_batch_large_enough_for_the_observer_gives_exactly_the_reference_paths_arrays(env_id, kwargs, illegal,
                                                                                       monkeypatch):
    """From its ``min_games`` games the game's batch observer writes the observations and masks
    of every game where all seats act (games that end go one by one, for their final
    observation): the same arrays, infos and games as the reference path, through auto-resets."""
    kw = {**kwargs, "illegal_action": illegal, "max_ticks": 25}
    n = BatchedEnv(env_id, 1, kw)._observer.min_games + 2
    calls = []
    fast, ref = BatchedEnv(env_id, n, kw), BatchedEnv(env_id, n, kw)
    observer = fast._observer
    assert observer is not None and fast._fast
    real = observer.observe
    monkeypatch.setattr(observer, "observe", lambda rows, *a: calls.append(len(rows)) or real(rows, *a))
    ref._fast = False

    def illegal_now_and_then(t, acts, masks):
        if illegal == "noop" and t % 4 == 0:
            acts[t % n, 0] = np.flatnonzero(masks[t % n, 0] == 0)[0]

    steps = _side_by_side(fast, ref, 5, 80, illegal_now_and_then)
    ends = sum("final_observation" in x for _, out in steps for x in out[5])
    assert [e.snapshot() for e in fast.envs] == [e.snapshot() for e in ref.envs]
    assert ends >= n and len(calls) >= 70 and min(calls) >= observer.min_games


@pytest.mark.parametrize("env_id", ["frying_master_v1", "waroong_wars_v1", "wok_star_v1"])
def test_a_batch_observer_refuses_bad_rows_before_writing_anything(env_id):
    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=0)
    observer = env.encoder.batch_observer(2)
    eng = env.engine
    obs = np.full((2, len(eng.agents), env.encoder.layout.size), -7, dtype=np.float32)
    masks = np.full((2, len(eng.agents), env.action_space(env.agents[0]).n), -7, dtype=np.int8)
    ints = r"rows must be a sequence of distinct ints in 0\.\.1"
    for rows, engines, says in (([0, 1], [eng], "got 2 rows for 1 engines"), ([2], [eng], r"distinct ints in 0\.\.1"),
                                ([-1], [eng], "distinct ints"), ([1, 1], [eng, eng], "distinct ints"),
                                ([0.5, 1.5], [eng, eng], ints), ((r for r in [0]), [eng], ints),
                                (np.array([[0]]), [eng], ints), (["0"], [eng], ints), ([True], [eng], ints),
                                ([0], (e for e in [eng]), "engines must be a list of engines"),
                                ([0], [object()], "an engine of configuration None given to the batch observer")):
        with pytest.raises(ValueError, match=says):
            observer.observe(rows, engines, obs, masks)
    for frozen in (obs, masks):  # a read-only array: refused before the other is written
        frozen.setflags(write=False)
        with pytest.raises(ValueError, match="writes into the arrays it is given; got a read-only"):
            observer.observe([0], [eng], obs, masks)
        frozen.setflags(write=True)
    assert (obs == -7).all() and (masks == -7).all()


@pytest.mark.parametrize("copy_how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_copied_batch_checks_actions_against_its_current_masks(env_id, copy_how):
    """A copy (pickled, or deep-copied) of a batch refuses an action that is illegal now but was legal
    when it was copied: its seats' masks (``_masks_flat``, a view of the masks) had become a buffer of
    their own, which the copy's steps never wrote, so its legality check read the masks of the moment
    it was copied."""
    import copy
    import pickle

    n = 1
    a = BatchedEnv(env_id, n)
    _, masks, _ = a.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(10):  # mid-game
        _, masks, *_ = a.step(random_legal_actions(rng, masks))
    b = pickle.loads(pickle.dumps(a)) if copy_how == "pickle" else copy.deepcopy(a)
    then = masks.copy()
    for _ in range(200):
        _, masks, *_ = b.step(random_legal_actions(rng, masks))
        acts = random_legal_actions(rng, masks)
        # an action of game 0's first live seat that was legal then and is not now; the others legal then and now
        seat = int(np.flatnonzero(b.alive[0])[0])
        was_only = np.flatnonzero((then[0, seat] == 1) & (masks[0, seat] == 0))
        both = (then == 1) & (masks == 1)
        if len(was_only) and all(both[i, p].any() for i in range(n) for p in range(b.num_seats) if b.alive[i, p]):
            break
    else:
        pytest.fail("no action legal only in the masks of the copy's start")
    for i in range(n):
        for p in range(b.num_seats):
            if b.alive[i, p]:
                acts[i, p] = int(np.flatnonzero(both[i, p])[0])
    acts[0, seat] = int(was_only[0])
    before = [e.snapshot() for e in b.envs]
    with pytest.raises(IllegalActionError):
        b.step(acts)
    assert [e.snapshot() for e in b.envs] == before


@pytest.mark.parametrize("copy_how", ["pickle", "deepcopy"])
def test_a_copied_batchs_views_are_views_of_its_own_arrays(copy_how):
    """(Many seats: the legality check's gather.) A copy's seat masks and game rows are views of its
    own arrays, as the batch's are of the batch's."""
    import copy
    import pickle

    a = BatchedEnv(envs.ENV_IDS[0], 20)
    _, masks, _ = a.reset(seed=3)
    b = pickle.loads(pickle.dumps(a)) if copy_how == "pickle" else copy.deepcopy(a)
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, masks, *_ = b.step(random_legal_actions(rng, masks))
    np.testing.assert_array_equal(b._masks_flat, masks.reshape(-1, b.n_actions))
    for i, (o, m) in enumerate(b._rows):
        assert o.base is b._obs and m.base is b._masks and np.array_equal(m, masks[i])


@pytest.mark.parametrize("env_id,n", [("frying_master_v1", 12), ("waroong_wars_v1", 10), ("wok_star_v1", 6)])
def test_a_batch_with_an_observer_copies_and_pickles_mid_game_and_plays_on_alike(env_id, n):
    import copy
    import pickle

    a = BatchedEnv(env_id, n, {"players": 3, "max_ticks": 30})
    assert a._observer is not None and n >= a._observer.min_games
    _, masks, _ = a.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, masks, *_ = a.step(random_legal_actions(rng, masks))
    b, c = pickle.loads(pickle.dumps(a)), copy.deepcopy(a)
    for _ in range(60):  # through auto-resets
        acts = random_legal_actions(rng, masks)
        ra, rb, rc = a.step(acts), b.step(acts), c.step(acts)
        for k in range(5):
            np.testing.assert_array_equal(ra[k], rb[k])
            np.testing.assert_array_equal(ra[k], rc[k])
        masks = ra[1]


@pytest.mark.parametrize("env_id,option,values", [("frying_master_v1", "serve_rule", ("order_size", "any_food")),
                                                  ("waroong_wars_v1", "no_memory_chef", (False, True)),
                                                  ("wok_star_v1", "difficulty", ("mild", "medium"))])
def test_env_fn_games_of_other_options_with_the_same_spaces_are_refused(env_id, option, values):
    """Options that leave the spaces alone (the serve rule, No-Memory Chef) were let through: the
    batch observer, built from game 0, then showed a Waroong Wars player its own hidden picks and
    offered a Frying Master ``serve`` that the game refuses."""
    module = envs.get_env_module(env_id)
    flip = iter([values[0], values[1]] * 4)
    with pytest.raises(ValueError, match=rf"game 1 is not of game 0's configuration: options \['{option}'\] differ"):
        BatchedEnv(env_id, 4, env_fn=lambda: module.parallel_env(**{option: next(flip)}))


def test_a_batch_observer_refuses_engines_and_arrays_of_another_configuration():
    fm = envs.get_env_module("frying_master_v1")
    observer = fm.parallel_env(players=3).encoder.batch_observer(2)
    obs, masks = np.zeros((2, 3, 561), np.float32), np.zeros((2, 3, 55), np.int8)
    for other in ({"players": 3, "serve_rule": "any_food"}, {"players": 3, "round_ticks": 30}):
        env = fm.parallel_env(**other)
        env.reset(seed=0)
        with pytest.raises(ValueError, match="an engine of configuration .* given to the batch observer of"):
            observer.observe([0], [env.engine], obs, masks)
    env = fm.parallel_env(players=3)
    env.reset(seed=0)
    for o, m in ((obs[:, :2], masks), (obs.astype(np.float64), masks), (obs, masks[:, :, :54])):
        with pytest.raises(ValueError, match=r"writes float32 observations \(rows, 3, 561\) and int8 masks"):
            observer.observe([0], [env.engine], o, m)
    assert not obs.any() and not masks.any()
    observer.observe(np.array([1, 0]), [env.engine, env.engine], obs, masks)  # rows as an array
    np.testing.assert_array_equal(obs[1], np.stack([env.observe(a)["observation"] for a in env.agents]))


@pytest.mark.parametrize("how", ["restore", "engine", "step"])
def test_a_game_changed_outside_the_batch_is_read_again_before_its_actions_are_checked(how):
    """A game restored to an earlier snapshot, its engine changed and ``invalidate_masks()``
    called, or stepped with its own ``env.step``, between two steps: the batch had checked the
    actions against its old masks and the fast path applied an illegal Waroong Wars pick (a pack
    count went to -1, the game's snapshot no longer loaded). Now that game's row is read again:
    the illegal pick is refused as a separate env refuses it, and no game steps."""
    venv = BatchedEnv("waroong_wars_v1", 3, {"players": 3})
    rng = np.random.default_rng(0)
    for seed in range(11, 200):
        _, masks, _ = venv.reset(seed=seed)
        env = venv.envs[0]
        snap = env.snapshot()
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
        if how == "restore":
            env.restore(snap)
        elif how == "step":
            env.step({a: int(np.flatnonzero(m)[-1]) for a, m in zip(venv.possible_agents, masks[0])})
        else:
            eng = env.engine
            eng.packs[0], eng.packs[1] = eng.packs[1], eng.packs[0]
            eng.invalidate_masks()
        real = env.observe("player_0")["action_mask"]
        stale = [int(a) for a in np.flatnonzero(masks[0, 0]) if not real[a]]
        if stale:
            break
    acts = random_legal_actions(rng, masks)
    acts[0, 0] = stale[0]
    before = [e.snapshot() for e in venv.envs]
    with pytest.raises(IllegalActionError, match="illegal action for player_0"):
        venv.step(acts)
    assert [e.snapshot() for e in venv.envs] == before
    acts[0] = [int(np.flatnonzero(env.observe(a)["action_mask"])[0]) for a in venv.possible_agents]
    venv.step(acts)  # legal in the game's real state: it steps
    for e in venv.envs:
        type(e.engine).from_dict(e.snapshot())


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_step_reads_again_no_game_that_nothing_outside_changed(env_id):
    """The games' notes (engine and outside edits) are kept up to date by the steps and the auto-resets
    themselves, so that no step of the fast path reads a game again (``env.observe``) that only the
    batch stepped: a stale note cost every later step a re-read of the game; and a game changed
    outside is read again once, not on every step after it."""
    venv = BatchedEnv(env_id, 2)
    assert venv._fast
    rng = np.random.default_rng(0)
    _, masks, _ = venv.reset(seed=0)
    observed = []
    for i, e in enumerate(venv.envs):
        e.observe = (lambda i, e: lambda a: observed.append(i) or type(e).observe(e, a))(i, e)
    ends = 0
    for _ in range(5000):
        _, masks, _, term, trunc, _ = venv.step(random_legal_actions(rng, masks))
        ends += int((term | trunc).any(axis=1).sum())
        if ends >= 2:
            break
    assert ends >= 2 and observed == []
    venv.envs[1].engine.invalidate_masks()
    live = len(venv.envs[1].agents)
    for _ in range(3):
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
    assert observed == [1] * live


def test_the_reference_path_observes_a_seat_that_sat_out_when_it_acts_again():
    """(A game whose seats sit out now and then; no shipped game has them.) The per-env path wrote
    only the seats ``step`` observed and raised ``KeyError`` for one back in play."""
    from envs.frying_master.engine import FryingMasterEngine
    from envs.frying_master.env import FryingMasterEnv

    class SitOutEngine(FryingMasterEngine):
        def live_agents(self):
            live = super().live_agents()
            if live and self.tick % 3 == 1 and self.phase == "play":
                return [a for a in live if a != self.agents[0]]
            return live

    class SitOutEnv(FryingMasterEnv):
        engine_cls = SitOutEngine

    fast = BatchedEnv("sitout", 2, env_fn=lambda: SitOutEnv(players=3))
    ref = BatchedEnv("sitout", 2, env_fn=lambda: SitOutEnv(players=3, infos="verbose"))
    assert fast._fast and not ref._fast
    steps = _side_by_side(fast, ref, 0, 60, infos=False)  # (verbose infos have more entries)
    assert sum(int((~alive).sum()) for alive, _ in steps) > 0


def test_fewer_games_than_the_observers_min_games_go_one_by_one(monkeypatch):
    venv = BatchedEnv("frying_master_v1", BatchedEnv("frying_master_v1", 1)._observer.min_games - 1, {"players": 2})
    monkeypatch.setattr(venv._observer, "observe", lambda *a: pytest.fail("the observer wrote a small batch"))
    _, masks, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))


def test_fast_path_infos_read_like_the_envs_and_pickle():
    import pickle

    venv = BatchedEnv("frying_master_v1", 2, {"players": 2})
    env = envs.get_env_module("frying_master_v1").parallel_env(players=2)
    _, masks, _ = venv.reset(seed=3)
    env.reset(seed=3)
    acts = random_legal_actions(np.random.default_rng(0), masks)
    infos = venv.step(acts)[5]
    *_, ref = env.step({a: int(acts[0, p]) for p, a in enumerate(env.possible_agents)})
    assert infos[0]["agents"] == ref and dict(infos[0]["agents"]) == ref
    assert list(infos[0]["agents"]) == list(ref) and len(infos[0]["agents"]) == len(ref)
    assert pickle.loads(pickle.dumps(infos[0]["agents"])) == ref


def test_reference_path_serves_envs_the_fast_path_does_not():
    verbose = BatchedEnv("wok_star_v1", 2, {"players": 2, "infos": "verbose"})
    assert not verbose._fast
    obs, masks, _ = verbose.reset(seed=0)
    info = verbose.step(random_legal_actions(np.random.default_rng(0), masks))[5][0]["agents"]
    assert "action_name" in info["chef_0"]


@pytest.mark.parametrize("env_id,kwargs", [("wok_star_v1", {"players": 2}), ("waroong_wars_v1", {"players": 3})])
def test_process_form_through_shared_memory_gives_every_output_of_the_in_process_form(env_id, kwargs):
    kwargs = {**kwargs, "max_ticks": 8}
    local = BatchedEnv(env_id, 7, kwargs)
    with ProcessBatchedEnv(env_id, 7, workers=3, env_kwargs=kwargs) as remote:
        a, b = local.reset(seed=2), remote.reset(seed=2)
        rng = np.random.default_rng(5)
        for _ in range(20):
            for k in range(2):
                np.testing.assert_array_equal(a[k], b[k])
            np.testing.assert_array_equal(local.alive, remote.alive)
            actions = random_legal_actions(rng, a[1])
            a, b = local.step(actions), remote.step(actions)
            _assert_same_step(a, b)
            # the returned arrays are the caller's: none shares memory with the block the shards write
            assert not np.shares_memory(b[0], remote._obs) and not np.shares_memory(b[1], remote._masks)
            assert np.shares_memory(remote._local._obs, remote._obs)  # this process's shard writes the block too


@pytest.mark.parametrize("num_games", [2, 12])  # the Python check of a few seats, the numpy check of many
def test_an_illegal_action_anywhere_in_the_batch_is_refused_before_any_game_steps(num_games):
    venv = BatchedEnv("frying_master_v1", num_games, {"players": 2})
    _, masks, _ = venv.reset(seed=8)
    before = [e.snapshot() for e in venv.envs]
    acts = random_legal_actions(np.random.default_rng(0), masks)
    last = num_games - 1
    acts[last, 1] = np.flatnonzero(masks[last, 1] == 0)[0]
    with pytest.raises(ValueError, match="chef_1"):
        venv.step(acts)
    acts[last, 1] = -1
    with pytest.raises(ValueError, match="chef_1"):
        venv.step(acts)
    assert [e.snapshot() for e in venv.envs] == before
    acts[last, 1] = 0 if masks[last, 1, 0] else np.flatnonzero(masks[last, 1])[0]
    venv.step(acts)  # a legal batch steps


def _same_infos(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert list(x) == list(y)
        assert list(x["agents"]) == list(y["agents"]) and dict(x["agents"]) == dict(y["agents"])
        for key in x:
            if key != "agents":
                np.testing.assert_equal(x[key], y[key])


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
@pytest.mark.parametrize("illegal,spin_s", [("raise", 0.0), ("noop", 0.0), ("raise", 0.005)])
def test_process_form_gives_the_in_process_infos_game_by_game(env_id, illegal, spin_s):
    """The worker sends a plain game's info as its tick (process.pack_infos): the parent's
    rebuilt infos equal the in-process ones in content and order, with replaced actions
    (noop), blocked ones and episode ends (short games) going whole."""
    kwargs = {"max_ticks": 5, "illegal_action": illegal}
    local = BatchedEnv(env_id, 6, kwargs)
    with ProcessBatchedEnv(env_id, 6, workers=3, env_kwargs=kwargs, spin_s=spin_s) as remote:
        assert remote.spin_s == spin_s
        a, b = local.reset(seed=4), remote.reset(seed=4)
        rng = np.random.default_rng(1)
        seen = {"ended": 0, "replaced": 0}
        for _ in range(14):
            actions = random_legal_actions(rng, a[1])
            if illegal == "noop":  # some illegal actions: the engines replace them
                wrong = rng.random(actions.shape) < 0.3
                actions = np.where(wrong, np.argmin(a[1], axis=-1), actions)
            a, b = local.step(actions), remote.step(actions)
            for k in range(5):
                np.testing.assert_array_equal(a[k], b[k])
            _same_infos(a[5], b[5])
            seen["ended"] += sum("final_observation" in x for x in a[5])
            seen["replaced"] += sum(v["illegal_replaced"] for x in a[5] for v in x["agents"].values())
        assert seen["ended"] > 0 and (illegal == "raise" or seen["replaced"] > 0)


def test_pack_infos_sends_only_the_ticks_and_blocked_seats_of_plain_games():
    venv = BatchedEnv("wok_star_v1", 12, {"players": 3})
    _, masks, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    names = venv.possible_agents
    for _ in range(40):  # random chefs often reach for the same dice: some actions are blocked
        acts = random_legal_actions(rng, masks)
        infos = venv._advance(acts)[3]
        masks = venv._masks
        if any(x["agents"]._blocked for x in infos if len(x) == 1):
            break
    ticks, blocked, whole = process.pack_infos(infos, names)
    plain = [k for k, x in enumerate(infos) if len(x) == 1]
    assert sorted(whole) == [k for k in range(12) if k not in plain]
    assert [ticks[k] for k in plain] == [venv.envs[k].engine.tick for k in plain]
    assert [blocked[k] for k in plain] == [sum(1 << s for s, a in enumerate(names) if infos[k]["agents"][a]["blocked"])
                                           for k in plain]
    assert any(blocked)
    _same_infos(process.unpack_infos((ticks, blocked, whole), acts.tolist(), names), infos)
    infos[2] = {**infos[2], "extra": 1}  # anything else goes whole
    ticks, blocked, whole = process.pack_infos(infos, names)
    assert 2 in whole and ticks[2] == -1


def test_spin_s_defaults_to_polling_only_when_every_process_has_a_core(monkeypatch):
    from envs.core.workers import SPIN_S, default_spin

    monkeypatch.setattr(process.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert default_spin(None, 4) == SPIN_S > 0
    assert default_spin(None, 5) == 0.0  # more processes than cores: block at once
    assert default_spin(0, 2) == 0.0 and default_spin(0.01, 9) == 0.01
    with ProcessBatchedEnv("frying_master_v1", 4, workers=4) as venv:  # the env's own default
        assert venv.spin_s == SPIN_S
    for bad in (-0.001, 2, True, "0.1", None.__class__):
        with pytest.raises(ValueError, match=r"spin_s must be a number of seconds from 0 to 1 \(0: always block\), got"):
            ProcessBatchedEnv("frying_master_v1", 2, workers=2, spin_s=bad)


def test_a_factory_must_build_distinct_envs_of_one_configuration():
    """``BatchedEnv(env_fn=lambda: shared)`` stepped one env N times a batch step; games of other
    player counts failed later in numpy; ``None`` or an AEC env were ``AttributeError``s;
    ``env_kwargs`` beside ``env_fn`` were shown in the repr and never used."""
    from envs import frying_master_v1

    shared = frying_master_v1.parallel_env(players=2)
    counts = iter([2, 3])
    for fn, kind, says in ((lambda: shared, ValueError, "returned the same env object for several games"),
                           (lambda: frying_master_v1.parallel_env(players=next(counts)), ValueError,
                            "game 1 is not of game 0's configuration"),
                           (lambda: None, TypeError, "env_fn built a NoneType for game 0"),
                           (lambda: frying_master_v1.env(players=2), TypeError, "allowed: a Kitchen Arena ParallelEnv")):
        with pytest.raises(kind, match=says):
            BatchedEnv("frying_master_v1", 2, env_fn=fn)
    with pytest.raises(ValueError, match="with env_fn: the factory builds each game"):
        BatchedEnv("frying_master_v1", 2, {"players": 4}, env_fn=lambda: frying_master_v1.parallel_env(players=2))
    venv = BatchedEnv("frying_master_v1", 2, env_fn=lambda: frying_master_v1.parallel_env(players=2))
    _, masks, _ = venv.reset(seed=0)
    for rng, m, kind, says in ((None, masks, TypeError, "needs a numpy Generator"),
                               (np.random.default_rng(0), masks[0], ValueError, r"masks must have shape"),
                               (np.random.default_rng(0), masks[:, :, :3], ValueError, r"masks must have shape")):
        with pytest.raises(kind, match=says):
            venv.random_actions(rng, m)
    assert venv.random_actions(np.random.default_rng(0)).shape == (2, 2)


def test_the_process_form_refuses_copy_and_pickle_and_stays_usable():
    """``copy.deepcopy`` of a ``ProcessBatchedEnv`` failed inside pickling, and the half-built
    copy's pipes, when collected, closed the original's: its workers ended, its next step was a
    ``WorkerError`` and ``close()`` an ``OSError``."""
    import copy
    import gc
    import pickle

    venv = ProcessBatchedEnv("frying_master_v1", 2, workers=2, env_kwargs={"players": 2})
    try:
        _, masks, _ = venv.reset(seed=0)
        for attempt in (copy.deepcopy, copy.copy, pickle.dumps):
            with pytest.raises(TypeError, match="holds worker processes and pipes: it cannot be copied or pickled"):
                attempt(venv)
        gc.collect()
        venv.step(venv.random_actions(np.random.default_rng(0), masks))  # the workers live on
    finally:
        venv.close()


@pytest.mark.parametrize("form", ["in-process", "process"])
@pytest.mark.parametrize("illegal", ["raise", "noop"])
def test_actions_of_a_dtype_numpy_counts_as_integers_but_are_not_are_refused_before_any_game_steps(form, illegal):
    """numpy files ``timedelta64`` under its integers (``np.issubdtype``): the process form let such
    actions through its check, its workers stepped their games, and then its own shard refused them
    (with ``"noop"``: the games left half stepped; with ``"raise"``: an ``IndexError``)."""
    kwargs = {"players": 2, "illegal_action": illegal}
    venv = BatchedEnv("frying_master_v1", 2, kwargs) if form == "in-process" else \
        ProcessBatchedEnv("frying_master_v1", 2, workers=2, env_kwargs=kwargs)
    with venv:
        obs, masks, _ = venv.reset(seed=0)
        acts = venv.random_actions(np.random.default_rng(0), masks)
        for bad in (acts.astype("m8[s]"), acts.astype("M8[s]")):
            with pytest.raises(ValueError, match=r"actions must be integers .*got dtype"):
                venv.step(bad)
        after = venv.step(acts)  # nothing had stepped: the same as a fresh batch's first step
    twin = BatchedEnv("frying_master_v1", 2, kwargs)
    twin.reset(seed=0)
    np.testing.assert_array_equal(twin.step(acts)[0], after[0])


def test_the_process_form_names_an_out_of_range_action_it_replaces_as_the_in_process_form_does():
    """With ``illegal_action="noop"`` the process form had sent an index out of range as -1, so its
    verbose infos read "action -1 is not an integer in 0..54" where the in-process form and a single
    env name the action given (999)."""
    kwargs = {"players": 2, "illegal_action": "noop", "infos": "verbose"}
    local = BatchedEnv("frying_master_v1", 4, kwargs)
    with ProcessBatchedEnv("frying_master_v1", 4, workers=2, env_kwargs=kwargs) as remote:
        _, masks, _ = local.reset(seed=3)
        remote.reset(seed=3)
        acts = random_legal_actions(np.random.default_rng(0), masks)
        acts[:, 0] = 999
        a, b = local.step(acts)[5], remote.step(acts)[5]
        _same_infos(a, b)
        for info in b:
            assert info["agents"]["chef_0"]["illegal_reason"] == "action 999 is not an integer in 0..54"


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_game_reset_or_restored_outside_the_batch_counts_its_episode_from_there(env_id):
    """``episode_return`` and ``episode_length`` count the batch's steps of the game's episode: a game
    reset from outside (``envs[i].reset``) had reported the old episode's steps and rewards with the
    new one's."""
    kwargs = {"max_ticks": 30}
    venv = BatchedEnv(env_id, 2, kwargs)
    rng = np.random.default_rng(0)
    _, masks, _ = venv.reset(seed=0)
    for _ in range(7):
        _, masks, *_ = venv.step(random_legal_actions(rng, masks))
    venv.envs[0].reset(seed=5)
    twin = BatchedEnv(env_id, 1, kwargs)
    _, twin_masks, _ = twin.reset(seed=5)
    steps, total = 0, 0.0
    while True:
        acts = venv.random_actions(rng)  # (reads the changed game first)
        np.testing.assert_array_equal(venv._masks[0], twin_masks[0])
        _, masks, rewards, term, trunc, infos = venv.step(acts)
        _, twin_masks, twin_rewards, *_ = twin.step(acts[:1])
        steps += 1
        total = total + rewards[0]
        np.testing.assert_array_equal(rewards[0], twin_rewards[0])
        if (term[0] | trunc[0]).any():
            break
    assert infos[0]["episode_length"] == steps <= 30
    np.testing.assert_allclose(infos[0]["episode_return"], total)


@pytest.mark.parametrize("infos", ["compact", "verbose"])  # the fast path and the reference path
def test_a_game_restored_to_a_finished_game_is_refused_before_any_game_steps(infos):
    """A game restored (from outside) to a game that is over has no seat left to act: the reference
    path stepped the games before it and then raised (a partial step), the fast path reported an end
    without its flags. Now the step is refused, nothing changes, and the game plays once reset."""
    kwargs = {"players": 2, "infos": infos}
    solo = envs.get_env_module("wok_star_v1").parallel_env(**kwargs)
    obs, _ = solo.reset(seed=1)
    rng = np.random.default_rng(0)
    while solo.agents:
        obs = solo.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in solo.agents})[0]
    venv = BatchedEnv("wok_star_v1", 3, kwargs)
    _, masks, _ = venv.reset(seed=0)
    venv.envs[1].restore(solo.snapshot())
    before = [e.snapshot() for e in venv.envs]
    acts = random_legal_actions(rng, masks)
    for _ in range(2):
        with pytest.raises(RuntimeError, match=r"game 1 has no seat left to act.*envs\[1\]\.reset.*no game was stepped"):
            venv.step(acts)
    assert [e.snapshot() for e in venv.envs] == before
    venv.envs[1].reset(seed=9)
    venv.step(venv.random_actions(rng))  # plays on


@pytest.mark.parametrize("form", ["in-process", "process"])
def test_alive_is_read_only_so_the_legality_check_cannot_be_switched_off(form):
    """``alive`` was the batch's own array: ``venv.alive[:] = False`` switched the legality check off for
    good (illegal Waroong Wars actions reached the engines under ``illegal_action="raise"``)."""
    venv = BatchedEnv("waroong_wars_v1", 2, {"players": 3}) if form == "in-process" else \
        ProcessBatchedEnv("waroong_wars_v1", 2, workers=2, env_kwargs={"players": 3})
    with venv:
        _, masks, _ = venv.reset(seed=0)
        alive = venv.alive
        with pytest.raises(ValueError, match="read-only"):
            alive[:] = False
        assert alive.all() and venv.alive.all()
        acts = random_legal_actions(np.random.default_rng(0), masks)
        acts[1, 2] = int(np.flatnonzero(masks[1, 2] == 0)[0])
        with pytest.raises(IllegalActionError):
            venv.step(acts)
        copy = venv.alive.copy()
        copy[:] = False  # a copy is the caller's own
        assert venv.alive.all()


@pytest.mark.parametrize("form", ["in-process", "process"])
def test_random_actions_refuses_masks_that_are_not_0_1_and_defaults_to_the_current_ones(form):
    venv = BatchedEnv("wok_star_v1", 3, {"players": 2}) if form == "in-process" else \
        ProcessBatchedEnv("wok_star_v1", 3, workers=2, env_kwargs={"players": 2})
    with venv:
        _, masks, _ = venv.reset(seed=0)
        rng = np.random.default_rng(0)
        for bad, what in ((masks.astype(float), "got dtype float64"), (masks.astype(str), "got dtype <U"),
                          (np.where(masks == 1, 1, -1), "values from -1 to 1"),
                          (masks.astype(np.uint8) * 255, "values from 0 to 255")):
            with pytest.raises(ValueError, match=re.escape(what)):
                venv.random_actions(rng, bad)
        for _ in range(20):  # the default: the batch's current masks, always legal
            acts = venv.random_actions(rng)
            assert all(masks[i, p, acts[i, p]] for i in range(3) for p in range(2))
            _, masks, *_ = venv.step(acts)
        assert venv.random_actions(rng, masks.astype(bool)).shape == (3, 2)


def test_the_constructor_refuses_option_keys_and_factories_it_cannot_use_and_closes_what_it_built():
    with pytest.raises(ValueError, match=r"env_kwargs key 1 \(a int\) is not allowed.*option names"):
        BatchedEnv("wok_star_v1", 2, {1: 2})
    with pytest.raises(ValueError, match=r"env_kwargs key"):
        ProcessBatchedEnv("wok_star_v1", 2, workers=1, env_kwargs={("players",): 2})
    with pytest.raises(TypeError, match=r"env_fn=5 \(a int\) is not allowed: give a function"):
        BatchedEnv("wok_star_v1", 2, env_fn=5)
    closed = []
    built = []

    def factory():
        if len(built) == 2:
            raise OSError("out of handles")
        env = envs.get_env_module("wok_star_v1").parallel_env()
        env.close = lambda env=env: closed.append(env)
        built.append(env)
        return env

    with pytest.raises(OSError, match="out of handles"):
        BatchedEnv("wok_star_v1", 4, env_fn=factory)
    assert closed == built and len(built) == 2


def test_both_forms_offer_the_same_small_conveniences():
    with BatchedEnv("wok_star_v1", 2) as a, ProcessBatchedEnv("wok_star_v1", 2, workers=1) as b:
        assert a.num_agent_slots == b.num_agent_slots == 2 * a.num_seats
        assert repr(b) == "ProcessBatchedEnv('wok_star_v1', num_games=2, workers=1, env_kwargs={})"
        assert repr(a) == "BatchedEnv('wok_star_v1', num_games=2, env_kwargs={})"
    with pytest.raises(RuntimeError, match="closed"):
        a.reset(seed=0)


def test_a_seed_too_long_to_print_is_refused_naming_its_size():
    with pytest.raises(ValueError, match=r"seed=<an integer of \d+ bits> is not allowed"):
        seeds_for(-10 ** 5000, 2)
    with pytest.raises(ValueError, match=r"seed <an integer of \d+ bits> for game 1 is not allowed"):
        seeds_for([0, -10 ** 5000], 2)


@pytest.mark.parametrize("form", ["in-process", "process"])
def test_every_array_returned_stays_as_it_was_returned(form):
    """Observations, masks and a finished game's final arrays are the caller's own. Kept from one call,
    they had been overwritten by the next: the in-process step's arrays, the process form's reset
    arrays and its final arrays were views of buffers that the next step writes."""
    kwargs = {"players": 2, "max_ticks": 4}
    venv = BatchedEnv("frying_master_v1", 2, kwargs) if form == "in-process" else \
        ProcessBatchedEnv("frying_master_v1", 2, workers=2, env_kwargs=kwargs)
    try:
        rng = np.random.default_rng(0)
        obs, masks, _ = venv.reset(seed=0)
        kept = [(obs, obs.copy()), (masks, masks.copy())]
        ends = 0
        for _ in range(13):
            obs, masks, *_, infos = venv.step(random_legal_actions(rng, masks))
            kept += [(obs, obs.copy()), (masks, masks.copy())]
            for info in infos:
                for key in ("final_observation", "final_action_mask"):
                    if key in info:
                        kept.append((info[key], info[key].copy()))
                        ends += 1
        assert ends >= 8  # every game ended three times at least
        for array, copy in kept:
            np.testing.assert_array_equal(array, copy)
    finally:
        venv.close()


@pytest.mark.parametrize("infos", ["compact", "verbose"])  # the fast path and the reference path
def test_episode_returns_count_each_episode_from_its_own_start(infos):
    """After an auto-reset the next episode's return starts at 0 (the running sum had carried the
    earlier episodes' rewards on: 1.0 reported as 2.0 from the second episode)."""
    venv = BatchedEnv("wok_star_v1", 2, {"players": 2, "max_ticks": 40, "infos": infos})  # income as it comes
    rng = np.random.default_rng(0)
    venv.reset(seed=0)
    totals = [0.0, 0.0]
    episodes = [0, 0]
    earned = 0
    while min(episodes) < 3:
        _, _, rewards, term, trunc, step_infos = venv.step(venv.random_actions(rng))
        for i in range(2):
            totals[i] = totals[i] + rewards[i]
            if (term[i] | trunc[i]).any():
                np.testing.assert_allclose(step_infos[i]["episode_return"], totals[i])
                earned += bool(np.any(totals[i]))
                totals[i], episodes[i] = 0.0, episodes[i] + 1
    assert earned >= 2, "episodes with rewards, else a return carried over would read 0 all the same"
