"""The multi-agent VecEnv bridge: SB3 conventions, masks, seats, rewards, workers."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

import envs
from envs.core.errors import IllegalActionError
from training.actor import NumpyActor
from training.copies import BridgeSettings, RewardRule
from training.envspec import EnvSpec
from training.seating import SeatingRule
from training.vec_env import MultiAgentVecEnv, split


def make_venv(env_id="toy_v0", options=None, learners=1, others=None, reward=None, copies=3, workers=1,
              cooperative=False, seed=0, **kw):
    spec = EnvSpec.resolve(env_id, options or {"players": 2})
    rule = SeatingRule(learners, kw.pop("rotation", "cycle"), others or {"random": 1.0}, 3, 0.5)
    settings = BridgeSettings(spec, rule, reward or RewardRule(), cooperative, True, seed)
    return MultiAgentVecEnv(settings, copies, workers)


def random_masked_actions(venv, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in get_action_masks(venv)])


def test_is_an_sb3_vecenv_with_masking_through_wrappers(toy_registry):
    venv = make_venv(options={"players": 3}, learners=2, copies=3)
    try:
        assert isinstance(venv, VecEnv) and venv.num_envs == 6
        wrapped = VecMonitor(venv)
        assert is_masking_supported(venv) and is_masking_supported(wrapped)
        obs = wrapped.reset()
        assert obs.shape == (6, 2 + 3) and obs.dtype == np.float32
        masks = get_action_masks(wrapped)
        assert masks.shape == (6, 3) and masks.dtype == bool
        np.testing.assert_array_equal(masks, venv.action_masks())
        assert venv.observation_space.contains(obs[0])
    finally:
        venv.close()


def test_slot_observation_is_the_seat_encoding_with_one_hot(toy_registry):
    venv = make_venv(options={"players": 3}, learners=1, copies=3)
    try:
        obs = venv.reset()
        plan = venv.describe()
        for i, p in enumerate(plan):
            seat = ["p0", "p1", "p2"].index(p["learners"][0])
            np.testing.assert_array_equal(obs[i, 2:], np.eye(3)[seat])
            assert np.float32(6 / 20) <= obs[i, 0] <= np.float32(8 / 20)  # pile 6-8 of 0..20, rescaled (float32
            # bounds: numpy 1.x compares a float32 with a Python float in float64, where 0.4f > 0.4)
            assert obs[i, 1] == 0.0
        # cycle rotation: copy c starts at seat c and moves one seat per episode
        assert [p["learners"] for p in plan] == [["p0"], ["p1"], ["p2"]]
    finally:
        venv.close()


def test_seat_rotation_visits_every_seat(toy_registry):
    venv = make_venv(options={"players": 3}, learners=1, copies=1)
    rng = np.random.default_rng(0)
    try:
        venv.reset()
        seen = [venv.describe()[0]["learners"][0]]
        while len(seen) < 6:
            _, _, dones, infos = venv.step(random_masked_actions(venv, rng))
            if dones[0]:
                seen.append(venv.describe()[0]["learners"][0])
        assert seen == ["p0", "p1", "p2", "p0", "p1", "p2"]
    finally:
        venv.close()


def test_auto_reset_reports_terminal_observation_and_truncation(toy_registry):
    venv = make_venv(options={"players": 2, "max_ticks": 1, "tokens": 16}, copies=2)
    try:
        venv.reset()
        obs, rew, dones, infos = venv.step(np.zeros(2, dtype=int))  # everyone waits: truncated after 1 tick
        assert dones.all()
        for i in range(2):
            assert infos[i]["TimeLimit.truncated"] is True
            term = infos[i]["terminal_observation"]
            assert term.shape == obs[i].shape and term[0] >= 16 / 20
            assert obs[i][0] >= 16 / 20  # the next game's first observation
    finally:
        venv.close()
    venv = make_venv(options={"players": 2}, copies=1, others={"heuristic": 1})
    rng = np.random.default_rng(1)
    try:
        venv.reset()
        while True:
            obs, rew, dones, infos = venv.step(random_masked_actions(venv, rng))
            if dones[0]:
                break
        info = infos[0]
        assert info["TimeLimit.truncated"] is False
        assert info["terminal_observation"][0] == 0.0  # the pile is empty at the end
        assert info["others"] == ["heuristic"] and info["seat"] in ("p0", "p1")
        assert info["win"] in (0.0, 0.5, 1.0) and set(info["outcome"]) >= {"winners", "scores"}
        assert obs[0][0] > 0.0  # already the next game
    finally:
        venv.close()


def _collect(venv, steps, seed=0):
    rng = np.random.default_rng(seed)
    venv.seed(11)
    out = [venv.reset().copy()]
    for _ in range(steps):
        obs, rew, dones, infos = venv.step(random_masked_actions(venv, rng))
        out += [obs.copy(), rew.copy(), dones.copy(), [i.get("win") for i in infos]]
    return out


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


def test_two_pool_snapshots_in_one_game_reproduce_with_the_same_worker_count(toy_registry):
    """Where two snapshots play seats of one game, the order of the copy's draws follows the batches
    of its process (docs/training.md): a run reproduces with its own ``workers``, run after run."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    import torch

    for workers in (1, 2):
        runs = []
        for _ in range(2):
            venv = make_venv(options={"players": 3}, learners=1, copies=4, workers=workers, others={"pool": 1.0})
            try:
                for k in range(2):
                    pol = MaskableActorCriticPolicy(venv.observation_space, venv.action_space, lambda _: 0.0,
                                                    net_arch=[8])
                    torch.manual_seed(k)
                    for p in pol.parameters():
                        torch.nn.init.normal_(p)
                    venv.add_snapshot(f"snapshot@{k}", NumpyActor.from_sb3_policy(pol).state())
                runs.append(_collect(venv, 120))
                assert any(len(set(d["others"].values())) == 2 for d in venv.describe())  # two in one game
            finally:
                venv.close()
        for a, b in zip(*runs):
            _same(a, b)


def test_worker_processes_give_the_same_trajectories_as_one_process(toy_registry):
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    runs = []
    for workers in (1, 3):
        venv = make_venv(options={"players": 3}, learners=1, copies=5, workers=workers,
                         others={"pool": 1.0, "heuristic": 1.0, "random": 1.0})
        try:
            pol = MaskableActorCriticPolicy(venv.observation_space, venv.action_space, lambda _: 0.0, net_arch=[8])
            import torch

            torch.manual_seed(0)
            for p in pol.parameters():
                torch.nn.init.normal_(p)
            state = NumpyActor.from_sb3_policy(pol).state()
            assert venv.add_snapshot("snapshot@0", state) == ["snapshot@0"]
            runs.append(_collect(venv, 150))
        finally:
            venv.close()
    _same(runs[0], runs[1])


def test_same_seed_same_trajectory_other_seed_differs(toy_registry):
    a = make_venv(options={"players": 3}, copies=2, others={"heuristic": 1, "random": 1})
    b = make_venv(options={"players": 3}, copies=2, others={"heuristic": 1, "random": 1})
    try:
        ra, rb = _collect(a, 60), _collect(b, 60)
        _same(ra, rb)
        b.seed(12)
        b.reset()
        rng = np.random.default_rng(0)
        firsts = [b.step(random_masked_actions(b, rng))[0] for _ in range(5)]
        assert any(not np.array_equal(x, y) for x, y in zip(firsts, ra[1::4][:5]))
    finally:
        a.close()
        b.close()


def test_team_reward_is_the_mean_and_win_bonus_counts(toy_registry):
    venv = make_venv("toy_coop_v0", learners=2, cooperative=True, copies=1,
                     reward=RewardRule("team", 2.0, win_bonus=10.0, loss_penalty=1.0))
    try:
        venv.reset()
        # p0 grabs 2, p1 grabs 1: each token is worth 1/2 to every player -> team mean 1.5, scaled x2
        obs, rew, dones, infos = venv.step(np.array([2, 1]))
        np.testing.assert_allclose(rew, [3.0, 3.0])
        while not dones[0]:
            greedy = [2 if m[2] else 1 if m[1] else 0 for m in get_action_masks(venv)]
            obs, rew, dones, infos = venv.step(np.array(greedy))
        won = bool(infos[0]["outcome"]["winners"])
        assert infos[0]["win"] == infos[1]["win"] == (1.0 if won else 0.0)
        assert won and rew[0] >= 10.0  # the bonus of a won game on top of the last grab
    finally:
        venv.close()


def test_own_reward_and_loss_penalty(toy_registry):
    venv = make_venv(options={"players": 2, "tokens": 1}, copies=1, others={"heuristic": 1},
                     reward=RewardRule("own", 1.0, win_bonus=5.0, loss_penalty=3.0))
    try:
        venv.reset()
        obs, rew, dones, infos = venv.step(np.array([0]))  # wait while the heuristic grabs everything
        while not dones[0]:
            obs, rew, dones, infos = venv.step(np.array([0]))
        assert infos[0]["win"] == 0.0 and rew[0] == -3.0
    finally:
        venv.close()


def test_maskable_ppo_never_samples_an_illegal_action(toy_registry):
    """Thousands of learner steps with illegal_action='raise' (an illegal action would raise)."""
    venv = VecMonitor(make_venv(options={"players": 3, "tokens": 3}, learners=3, copies=4))
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=256, n_epochs=1, seed=0,
                            policy_kwargs={"net_arch": [8]}, device="cpu")
        model.learn(3072)
        assert model.num_timesteps >= 3072
        # the control: the same sampling without masks hits an illegal action and the env raises
        with pytest.raises(IllegalActionError):
            model.learn(3072, use_masking=False, reset_num_timesteps=False)
    finally:
        venv.close()


@pytest.mark.parametrize("env_id", [e for e in ("frying_master_v1", "waroong_wars_v1", "wok_star_v1")
                                    if e in envs.available_env_ids()])
def test_masks_are_respected_on_the_real_games(env_id):
    """Thousands of steps sampled from the bridge's masks, illegal_action='raise', other seats random."""
    m = envs.get_env_module(env_id)
    opts = dict(m.TEST_CONFIGURATIONS[0])
    spec = EnvSpec.resolve(env_id, opts)
    cooperative = spec.kind == "cooperative"
    n = len(spec.make().possible_agents)
    venv = make_venv(env_id, opts, learners=n if cooperative else 1, cooperative=cooperative, copies=2,
                     others={"random": 1.0})
    rng = np.random.default_rng(0)
    try:
        venv.reset()
        steps = 0
        while steps < 2500:
            venv.step(random_masked_actions(venv, rng))
            steps += venv.num_envs
    finally:
        venv.close()


def test_a_bad_action_is_refused_before_any_copy_steps(toy_registry):
    venv = make_venv(copies=2, workers=2)  # copy 0 in this process, copy 1 in a worker
    try:
        venv.reset()
        # checked here before anything is sent (as with workers=1): nothing steps, the env stays usable;
        # genuine exceptions inside a worker and dead workers: tests/vector/test_worker_failures.py
        with pytest.raises(IllegalActionError, match=r"slot 1 \(env copy 1\): action 5 is out of range"):
            venv.step(np.array([0, 5]))  # action index 5 does not exist
        venv.step(np.array([0, 0]))
    finally:
        venv.close()


def test_actions_must_be_one_per_slot_of_an_integer_kind_and_the_message_names_the_action(toy_registry):
    """Any array of ``num_envs`` entries had been flattened and stepped (a ``(2, 2)`` batch for 4 slots);
    ``timedelta64`` actions passed the integer check; an illegal action read "action 3 is serve is not
    legal now"."""
    venv = make_venv(env_id="frying_master_v1", options={"players": 2}, copies=4)
    try:
        venv.reset()
        masks = venv.action_masks()
        legal = np.array([np.flatnonzero(m)[0] for m in masks])
        for bad in (legal.reshape(2, 2), legal.reshape(1, 4), legal.reshape(1, 1, 4)):
            with pytest.raises(ValueError, match=r"actions must have shape \(4,\) \(one per slot"):
                venv.step(bad)
        with pytest.raises(ValueError, match="must be integers"):
            venv.step(legal.astype("m8[s]"))
        slot = next(i for i in range(4) if not masks[i].all())
        wrong = legal.copy()
        wrong[slot] = int(np.flatnonzero(~masks[slot])[0])
        name = envs.get_env_module("frying_master_v1").parallel_env().action_table.name(int(wrong[slot]))
        with pytest.raises(IllegalActionError, match=re.escape(f"action {wrong[slot]} ({name}) is not legal now; legal:")):
            venv.step(wrong)
        venv.step(legal.reshape(4, 1))  # a column of one action per slot is read as the slots' actions
    finally:
        venv.close()


def test_a_closed_or_broken_bridge_answers_no_masks_seeds_or_attributes(toy_registry):
    """The module doc says every command raises after ``close()`` (and a broken env answers only
    ``close``): masks, seeds and attributes had kept answering with the last step's values."""
    venv = make_venv(copies=2)
    venv.reset()
    venv.close()
    for call in (venv.action_masks, lambda: get_action_masks(venv), lambda: venv.seed(1),
                 lambda: venv.get_attr("render_mode"), lambda: venv.env_method("action_masks"),
                 lambda: venv.env_is_wrapped(VecMonitor), lambda: venv.set_attr("x", 1)):
        with pytest.raises(RuntimeError, match="closed"):
            call()


@pytest.mark.parametrize("build,says", [
    (lambda: SeatingRule(0), r"SeatingRule.learners=0 is not allowed; allowed: an integer >= 1"),
    (lambda: SeatingRule(1, "nosuch"), r"SeatingRule.rotation='nosuch' is not allowed; allowed: one of \('cycle', 'random'\)"),
    (lambda: SeatingRule(1, others={"random": 0.0}), r"every weight is 0"),
    (lambda: SeatingRule(1, others={"random": -1.0, "heuristic": 2.0}), r"others\['random'\]=-1.0 is not allowed"),
    (lambda: SeatingRule(1, others={"random": float("nan")}), r"others\['random'\]=nan is not allowed"),
    (lambda: SeatingRule(1, others={3: 1.0}), r"others key 3 is not allowed"),
    (lambda: SeatingRule(1, pool_size=0), r"pool_size=0 is not allowed"),
    (lambda: SeatingRule(1, latest_weight=1.5), r"latest_weight=1.5 is not allowed; allowed: a finite number >= 0 and <= 1"),
    (lambda: RewardRule("nosuch"), r"RewardRule.mode='nosuch' is not allowed; allowed: one of \('team', 'own'\)"),
    (lambda: RewardRule("own", float("nan")), r"RewardRule.scale=nan is not allowed; allowed: a finite number > 0"),
    (lambda: RewardRule("own", 0.0), r"RewardRule.scale=0.0 is not allowed"),
    (lambda: RewardRule("own", 1.0, win_bonus=float("inf")), r"RewardRule.win_bonus=inf is not allowed"),
    (lambda: RewardRule("own", 1.0, loss_penalty=True), r"RewardRule.loss_penalty=True is not allowed"),
])
def test_seating_and_reward_rules_built_in_python_are_checked_as_the_config_is(build, says):
    """docs/training.md builds these by hand: ``learners=0`` had failed inside SB3 with an
    ``IndexError``, an unknown rotation or reward mode had played as another, weights of 0 had
    ended in numpy's NaN message, and a NaN scale reached the learner."""
    with pytest.raises(ValueError, match=says):
        build()


def test_pool_seats_need_a_snapshot(toy_registry):
    venv = make_venv(copies=1, others={"pool": 1.0})
    try:
        with pytest.raises(ValueError, match="self-play pool is empty"):
            venv.reset()
    finally:
        venv.close()


def test_pool_keeps_the_most_recent_snapshots_and_samples_them(toy_registry):
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    venv = make_venv(options={"players": 3}, copies=4, others={"pool": 1.0})
    try:
        pol = MaskableActorCriticPolicy(venv.observation_space, venv.action_space, lambda _: 0.0, net_arch=[8])
        state = NumpyActor.from_sb3_policy(pol).state()
        for t in range(5):
            pool = venv.add_snapshot(f"snapshot@{t}", state)
        assert pool == ["snapshot@2", "snapshot@3", "snapshot@4"]  # pool_size 3, first in first out
        venv.reset()
        names = {n for p in venv.describe() for n in p["others"].values()}
        assert names <= set(pool) and "snapshot@4" in names
    finally:
        venv.close()


def test_split_is_contiguous_and_balanced():
    assert split(5, 2) == [[0, 1, 2], [3, 4]]
    assert split(2, 4) == [[0], [1]]
    assert split(3, 1) == [[0, 1, 2]]


def test_a_worker_answers_a_step_through_the_shared_block_and_sends_only_the_infos_of_ended_games(toy_registry):
    """The worker's side of a step (training.worker.SharedSlots), in this process: it reads its
    actions from its rows of the block, writes there what CopyGroup.step returns, and answers
    ANSWERED, or {slot: info} of the slots whose game ended."""
    import multiprocessing as mp

    from envs.core.workers import ANSWERED, shared_arrays, shared_buffers
    from training.copies import CopyGroup
    from training.worker import SLOT_BLOCK, SharedSlots, slot_sizes

    spec = EnvSpec.resolve("toy_v0", {"players": 2})
    settings = BridgeSettings(spec, SeatingRule(1, "cycle", {"random": 1.0}, 3, 0.5), RewardRule(), False, True, 0)
    ours, twin = CopyGroup(settings, [1, 2]), CopyGroup(settings, [1, 2])  # slots 1-2 of a bridge of 4
    d, a = ours.encoder.size, ours.encoder.n_actions
    ctx = mp.get_context("spawn")
    buffers = shared_buffers(ctx, 4, SLOT_BLOCK, slot_sizes(d, a), 1)
    block = shared_arrays(buffers, SLOT_BLOCK, slot_sizes(d, a))
    done = ctx.Semaphore(0)
    slots = SharedSlots(buffers, 1, 3, d, a, (done, 0))
    seeds = [5, 6]
    ours.reset(seeds)
    _, masks = twin.reset(seeds)
    rng = np.random.default_rng(0)
    answers = []
    for _ in range(40):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        block["actions"][1:3] = acts
        block["actions"][[0, 3]] = -1  # other slots' rows: never read
        answer = slots.step(ours)
        slots.replied("step", answer is not ANSWERED)
        assert done.acquire(False) and not done.acquire(False)  # released once per step
        assert slots.status[0] == (answer is not ANSWERED)  # 1: read the pipe too
        obs, rewards, dones, infos, masks = twin.step(acts)
        for name, want in (("obs", obs), ("rewards", rewards), ("dones", dones), ("masks", masks)):
            np.testing.assert_array_equal(block[name][1:3], want)
        ended = {i: info for i, info in enumerate(infos) if info}
        if ended:
            assert answer.keys() == ended.keys()
            for i in ended:
                np.testing.assert_array_equal(answer[i]["terminal_observation"], ended[i]["terminal_observation"])
                assert {k: v for k, v in answer[i].items() if k != "terminal_observation"} == \
                    {k: v for k, v in ended[i].items() if k != "terminal_observation"}
        else:
            assert answer is ANSWERED
        answers.append(answer)
    assert any(x is ANSWERED for x in answers) and any(x is not ANSWERED for x in answers)
    assert (block["obs"][[0, 3]] == 0).all()  # the other slots' rows were not written


def test_workers_poll_only_when_every_process_and_torch_thread_has_a_core(monkeypatch):
    import torch

    from envs.core.workers import SPIN_S
    from training.vec_env import spin_for

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert spin_for(None, 2) == SPIN_S > 0
        assert spin_for(None, 3) == 0.0
        torch.set_num_threads(2)  # the network's second thread needs the second core
        assert spin_for(None, 2) == 0.0 and spin_for(None, 1) == SPIN_S
        assert spin_for(0.001, 2) == 0.001  # given: as given
    finally:
        torch.set_num_threads(threads)
    with pytest.raises(ValueError, match="spin_s must be a number of seconds"):
        spin_for(-1, 2)


def test_worker_side_modules_do_not_import_torch():
    """Bridge and evaluation workers start fast because they never import torch."""
    import subprocess
    import sys

    code = ("import sys, training.worker, training.evaluation, training.checkpoints, training.policies; "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr or "torch was imported"


# ---------------------------------------------------------------------------- trajectories unchanged by the speed work
def _bridge_trajectory_digest(game: str, workers: int, steps: int = 120) -> str:
    """SHA-256 (first 16 hex digits) of a seeded bridge run of ``configs/<game>_quick.yaml``
    (episodes cut at 40 ticks, so many end and reset): every observation, reward, done, info
    and mask, the seating, and a teacher step; a fixed random snapshot plays the pool seats."""
    import dataclasses
    import hashlib

    from training.config import load_config
    from training.throughput import CONFIG_DIR
    from training.trainer import plan_run

    def feed(h, x):
        if isinstance(x, np.ndarray):
            h.update(f"{x.dtype}{x.shape}".encode())
            h.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, dict):
            for k in sorted(x, key=str):
                h.update(repr(k).encode())
                feed(h, x[k])
        elif isinstance(x, (list, tuple)):
            h.update(b"[")
            for v in x:
                feed(h, v)
            h.update(b"]")
        else:
            h.update(repr(x).encode())

    plan = plan_run(load_config(CONFIG_DIR / f"{game}_quick.yaml"))
    settings = dataclasses.replace(plan.settings, env_spec=plan.settings.env_spec.with_options(max_ticks=40))
    venv = MultiAgentVecEnv(settings, 6, workers)
    h = hashlib.sha256()
    try:
        if plan.uses_pool:
            rng = np.random.default_rng(7)
            d, a = venv.observation_space.shape[0], venv.action_space.n
            venv.add_snapshot("snap@0", {
                "layers": [(rng.standard_normal((16, d)).astype(np.float32), np.zeros(16, np.float32))],
                "activation": "Tanh", "head": (rng.standard_normal((a, 16)).astype(np.float32), np.zeros(a, np.float32))})
        venv.seed(3)
        feed(h, [venv.reset(), venv.action_masks(), venv.describe()])
        rng = np.random.default_rng(0)
        for _ in range(steps):
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
            feed(h, [*venv.step(acts), venv.action_masks()])
        feed(h, [venv.describe(), venv.teacher_step("heuristic")])
    finally:
        venv.close()
    return h.hexdigest()[:16]


#: Recorded with the bridge and BatchedEnv as they were before the throughput work (issue 15).
#: Waroong Wars' from 2026-12-07 (stop 59): a slot's info at a truncation holds the outcome as its seat can
#: know it (``outcomes_seen``: the others' face-down customers uncounted); with the game's full outcome
#: there, as before, the run still hashes to the digest recorded before the throughput work, 820dba5a28c0273c
#: (``test_the_bridge_trajectory_is_the_recorded_one_but_for_what_a_seat_sees_of_a_cut_outcome``)
BRIDGE_DIGESTS = {"wok_star": "e2bc0ed9904cea7b", "frying_master": "c38cfbf9e5a01524", "waroong_wars": "a4a4dfc902e986e9"}


def test_the_bridge_trajectory_is_the_recorded_one_but_for_what_a_seat_sees_of_a_cut_outcome(monkeypatch):
    """Everything but the slot infos' ``outcome`` at a truncation is as recorded before the throughput work:
    with the batch's ``outcomes_seen`` dropped (so the slots get the game's full outcome, as before),
    Waroong Wars' run hashes to its old digest; with them, to the new one."""
    from envs.vector import BatchedEnv

    real = BatchedEnv.step

    def without_seen(self, actions):
        out = real(self, actions)
        for info in out[5]:
            info.pop("outcomes_seen", None)
        return out

    monkeypatch.setattr(BatchedEnv, "step", without_seen)
    assert _bridge_trajectory_digest("waroong_wars", 1) == "820dba5a28c0273c"


@pytest.mark.parametrize("game", sorted(BRIDGE_DIGESTS))
def test_bridge_trajectories_are_those_recorded_before_the_throughput_work(game):
    assert _bridge_trajectory_digest(game, 1) == BRIDGE_DIGESTS[game]
    # and the same over two processes (the worker's answers through the shared block and, for the
    # games that ended, its infos through the pipe)
    assert _bridge_trajectory_digest(game, 2) == BRIDGE_DIGESTS[game]


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_seat_encoder_rows_at_once_are_each_rows_encoding(env_id):
    """``SeatEncoder.encode_rows`` (the bridge's gathered slots, the drafter model's batches) is
    ``encode`` of each row, bit for bit, for per-row seats and for one seat for every row."""
    from training.obs import SeatEncoder

    env = envs.get_env_module(env_id).parallel_env()
    enc = SeatEncoder.for_env(env)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    rows = np.stack([obs[a]["observation"] for a in env.agents] * 3)
    rows = rows + rng.integers(0, 3, rows.shape).astype(np.float32)  # other values in range or not
    seats = rng.integers(0, len(env.agents), len(rows))
    np.testing.assert_array_equal(enc.encode_rows(rows, seats), np.stack([enc.encode(r, s) for r, s in zip(rows, seats)]))
    one = enc.encode_rows(rows, 1)
    assert one.dtype == np.float32
    np.testing.assert_array_equal(one, np.stack([enc.encode(r, 1) for r in rows]))


def test_seed_options_and_slot_indices_are_checked_at_once(toy_registry):
    """``seed(-3)`` and ``seed(1.7)`` were stored, and every later ``reset`` then failed with
    numpy's message; ``set_options({...})`` was stored and never read; ``get_attr(...,
    indices=[99])`` answered ``[None]`` and ``env_method("action_masks", indices=[99])`` raised
    numpy's ``IndexError``."""
    venv = make_venv()
    try:
        venv.seed(5)
        first = venv.reset()
        for bad in (-3, 1.7, True, "abc"):
            with pytest.raises(ValueError, match=r"MultiAgentVecEnv\.seed=.* is not allowed; allowed: an "
                                                 r"integer >= 0 or None"):
                venv.seed(bad)
        venv.seed(5)
        assert np.array_equal(venv.reset(), first)  # the refused seeds were not kept
        with pytest.raises(ValueError, match="the bridge's games take no reset options; allowed: None"):
            venv.set_options({"bogus": 1})
        venv.set_options(None)
        n = venv.num_envs
        for call in (lambda: venv.get_attr("render_mode", indices=[99]),
                     lambda: venv.env_method("action_masks", indices=[n]),
                     lambda: venv.env_is_wrapped(object, indices=-1)):
            with pytest.raises(IndexError, match=rf"slot index .* is not allowed; allowed: 0\.\.{n - 1}"):
                call()
        assert len(venv.env_method("action_masks", indices=[0, n - 1])) == 2
    finally:
        venv.close()


def test_the_bridge_refuses_copy_and_pickle(toy_registry):
    """It holds worker processes and pipes, as ``ProcessBatchedEnv`` does: a half-built copy
    would close the original's pipes."""
    import copy
    import pickle

    venv = make_venv(copies=2, workers=2)
    try:
        venv.reset()
        for attempt in (copy.deepcopy, copy.copy, pickle.dumps):
            with pytest.raises(TypeError, match="MultiAgentVecEnv holds worker processes and pipes"):
                attempt(venv)
        venv.step(np.zeros(venv.num_envs, dtype=np.int64))
    finally:
        venv.close()


def test_copies_never_seeded_deal_games_of_their_own(toy_registry):
    """A copy that ``seed()`` never reached derives its seed from the run seed and its index: copies that
    had all taken the run seed alone dealt one game in every slot."""
    venv = make_venv(options={"players": 2}, copies=3)
    try:
        venv.reset()
        group = venv._backends[0].group  # (one worker: every copy in this process)
        games = [repr(env.unwrapped.engine.to_dict()) for env in group.batch.envs]
        assert len(games) == 3 and len(set(games)) == 3
    finally:
        venv.close()


def test_a_win_bonus_and_a_loss_penalty_come_only_with_a_game_that_ends_not_one_cut(toy_registry):
    """``RewardRule``: the bonus and the penalty are the game's result; a truncated episode (max_ticks)
    has none, and had been given the loss penalty."""
    plain = make_venv(options={"players": 2, "max_ticks": 3}, copies=1, others={"random": 1})
    ruled = make_venv(options={"players": 2, "max_ticks": 3}, copies=1, others={"random": 1},
                      reward=RewardRule("own", 1.0, win_bonus=5.0, loss_penalty=3.0))
    try:
        plain.reset()
        ruled.reset()
        for _ in range(3):
            _, r1, d1, i1 = plain.step(np.array([0]))
            _, r2, d2, i2 = ruled.step(np.array([0]))
            np.testing.assert_array_equal(r1, r2)
        assert d2[0] and i2[0]["TimeLimit.truncated"]
    finally:
        plain.close()
        ruled.close()
