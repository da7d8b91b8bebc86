"""Worker processes fail loudly and cleanly, in both users of envs.core.workers:
envs.vector.ProcessBatchedEnv and the training bridge's MultiAgentVecEnv.

Faults are real: a worker is SIGKILLed between steps (the next send finds a
dead pipe), kills itself inside a step (the answer never comes), or raises
inside a step. A faulty worker is the normal worker with one command replaced
in its own process (the test swaps the process target; spawn imports it from
this module by name).
"""

from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest

import envs
from envs.core.errors import IllegalActionError
from envs.core.workers import WorkerError
from envs.vector import BatchedEnv, ProcessBatchedEnv, process, random_legal_actions

ENV_ID = envs.available_env_ids()[0]
KWARGS = dict(envs.get_env_module(ENV_ID).TEST_CONFIGURATIONS[0])
FAULTY_SHARD_GAMES = 1  # 5 games over 3 workers: shards of 2, 1, 2 games; the first worker's is faulty
FAULTY_FIRST_COPY = 2  # 5 bridge copies over 3 workers: groups [0, 1], [2, 3], [4]; the first worker's is faulty


# ---------------------------------------------------------------------------- faulty worker targets (run in the child)
def _fail_on_second(real, fault):
    calls = []

    def step(obj, data):
        calls.append(1)
        if len(calls) == 2:
            fault()
        return real(obj, data)
    return step


def _raise():
    raise ZeroDivisionError("boom in a step")


def _die():
    os.kill(os.getpid(), signal.SIGKILL)


def _vector_worker_raising(conn, env_id, rows, env_kwargs, buffers, spin_s, signal):
    if rows.stop - rows.start == FAULTY_SHARD_GAMES:
        process.COMMANDS["step"] = _fail_on_second(process.COMMANDS["step"], _raise)
    process._worker(conn, env_id, rows, env_kwargs, buffers, spin_s, signal)


def _vector_worker_dying(conn, env_id, rows, env_kwargs, buffers, spin_s, signal):
    process.COMMANDS["step"] = _fail_on_second(process.COMMANDS["step"], _die)
    process._worker(conn, env_id, rows, env_kwargs, buffers, spin_s, signal)


def _vector_worker_not_building(conn, env_id, rows, env_kwargs, buffers, spin_s, signal):
    if rows.stop - rows.start == FAULTY_SHARD_GAMES:
        env_kwargs = {**env_kwargs, "no_such_option": 1}
    process._worker(conn, env_id, rows, env_kwargs, buffers, spin_s, signal)


def _bridge_worker_raising(conn, settings, copy_indices, shared):
    from training import worker

    if copy_indices[0] == FAULTY_FIRST_COPY:
        worker.COMMANDS["step"] = _fail_on_second(worker.COMMANDS["step"], _raise)
    worker.worker_main(conn, settings, copy_indices, shared)


def _bridge_worker_dying(conn, settings, copy_indices, shared):
    from training import worker

    worker.COMMANDS["step"] = _fail_on_second(worker.COMMANDS["step"], _die)
    worker.worker_main(conn, settings, copy_indices, shared)


# ---------------------------------------------------------------------------- helpers
@pytest.fixture
def closing():
    """Register envs (and their worker processes): closed, and every process made sure gone, even on failure."""
    made: list = []

    def add(venv):
        made.append(venv)
        return venv
    yield add
    for venv in made:
        procs = _procs(venv)
        venv.close()
        for p in procs:
            if p.exitcode is None:
                p.kill()
                p.join(5)


def _procs(venv) -> list:
    return [r.proc for r in getattr(venv, "_remotes", None) or getattr(venv, "_backends", []) if hasattr(r, "proc")]


def _assert_gone(procs) -> None:
    """Every process has exited and been reaped (no zombie: its pid no longer exists)."""
    for p in procs:
        assert p.exitcode is not None
        with pytest.raises(ProcessLookupError):
            os.kill(p.pid, 0)


def _assert_closed_cleanly(venv, procs) -> None:
    venv.close()
    venv.close()  # twice: nothing happens
    _assert_gone(procs)
    with pytest.raises(RuntimeError, match="closed; build a new one"):
        venv.reset()


def _same(a, b) -> None:
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------------------- ProcessBatchedEnv
def test_a_worker_killed_between_steps_is_a_worker_error_and_the_env_refuses_until_rebuilt(closing):
    venv = closing(ProcessBatchedEnv(ENV_ID, 5, workers=3, env_kwargs=KWARGS))
    obs, masks, _ = venv.reset(seed=0)
    procs = venv._procs
    victim = procs[1]  # the last worker: the first one has already been sent the step when the send fails
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(10)
    acts = random_legal_actions(np.random.default_rng(0), masks)
    with pytest.raises(WorkerError, match=rf"vector worker {victim.pid} died \(exit code -9, killed by SIGKILL\)") as e:
        venv.step(acts)
    assert e.value.died and e.value.pid == victim.pid and e.value.exitcode == -9
    for call in (lambda: venv.step(acts), lambda: venv.reset(seed=0)):
        with pytest.raises(WorkerError, match=rf"broken: vector worker {victim.pid} died .*build a new one"):
            call()
    _assert_closed_cleanly(venv, procs)
    assert procs[0].exitcode == 0  # the live worker was closed, not killed (its pending answer was read)
    with pytest.raises(RuntimeError, match="closed"):
        venv.step(acts)


def test_a_worker_that_dies_inside_a_step_is_a_worker_error_with_its_exit_code(closing, monkeypatch):
    monkeypatch.setattr(process, "_worker", _vector_worker_dying)
    venv = closing(ProcessBatchedEnv(ENV_ID, 2, workers=2, env_kwargs=KWARGS))
    rng = np.random.default_rng(0)
    obs, masks, _ = venv.reset(seed=0)
    masks = venv.step(random_legal_actions(rng, masks))[1]
    procs = venv._procs
    with pytest.raises(WorkerError, match=rf"vector worker {procs[0].pid} died \(exit code -9, killed by SIGKILL\) "
                                          r"before it answered"):
        venv.step(random_legal_actions(rng, masks))
    with pytest.raises(WorkerError, match="broken"):
        venv.step(random_legal_actions(rng, masks))
    _assert_closed_cleanly(venv, procs)


def test_an_exception_in_a_worker_step_comes_back_and_every_other_answer_is_drained(closing, monkeypatch):
    monkeypatch.setattr(process, "_worker", _vector_worker_raising)
    venv = closing(ProcessBatchedEnv(ENV_ID, 5, workers=3, env_kwargs=KWARGS))
    ref = BatchedEnv(ENV_ID, 5, KWARGS)
    rng = np.random.default_rng(0)
    masks = venv.reset(seed=0)[1]
    masks = venv.step(random_legal_actions(rng, masks))[1]
    assert [sl.stop - sl.start for sl in venv._slices] == [2, FAULTY_SHARD_GAMES, 2]
    faulty = venv._procs[0]  # shards 2, 1, 2: the first worker holds the one-game shard
    with pytest.raises(WorkerError, match=rf"in vector worker {faulty.pid}: ZeroDivisionError: boom in a step\n"
                                          r".*Traceback") as e:
        venv.step(random_legal_actions(rng, masks))
    assert not e.value.died and e.value.remote_type == "ZeroDivisionError" and faulty.exitcode is None
    with pytest.raises(RuntimeError, match=r"last step failed \(WorkerError: .*ZeroDivisionError.*call reset\(\)"):
        venv.step(random_legal_actions(rng, masks))
    # a reset starts every game again; its answers are its own (no answer of the failed step was left unread)
    a, b = ref.reset(seed=7), venv.reset(seed=7)
    _same(a, b)
    for _ in range(3):
        acts = random_legal_actions(rng, a[1])
        a, b = ref.step(acts), venv.step(acts)
        _same(a, b)
    _assert_closed_cleanly(venv, venv._procs)


def test_an_exception_in_this_process_shard_is_raised_as_itself_once_the_workers_answered(closing, monkeypatch):
    venv = closing(ProcessBatchedEnv(ENV_ID, 2, workers=2, env_kwargs=KWARGS))
    ref = BatchedEnv(ENV_ID, 2, KWARGS)
    masks = venv.reset(seed=0)[1]
    monkeypatch.setattr(venv._local, "_advance", lambda actions, checked=False: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        venv.step(random_legal_actions(np.random.default_rng(0), masks))
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match=r"last step failed \(ZeroDivisionError.*call reset\(\)"):
        venv.step(random_legal_actions(np.random.default_rng(0), masks))
    a, b = ref.reset(seed=4), venv.reset(seed=4)  # the worker's answer to the failed step was read then
    _same(a, b)
    acts = random_legal_actions(np.random.default_rng(1), a[1])
    _same(ref.step(acts), venv.step(acts))


def test_an_illegal_action_in_a_worker_shard_is_an_illegal_action_error_and_nothing_steps(closing):
    venv = closing(ProcessBatchedEnv(ENV_ID, 4, workers=2, env_kwargs=KWARGS))
    ref = BatchedEnv(ENV_ID, 4, KWARGS)
    a, b = ref.reset(seed=3), venv.reset(seed=3)
    _same(a, b)
    acts = random_legal_actions(np.random.default_rng(0), b[1])
    bad = acts.copy()
    game, seat = 3, int(np.flatnonzero(venv.alive[3])[0])  # game 3 is in the worker's shard
    bad[game, seat] = venv.n_actions + 5
    with pytest.raises(IllegalActionError, match=rf"game 3, {venv.possible_agents[seat]}: .*out of range.*"
                                                 r"no game was stepped"):
        venv.step(bad)
    _same(ref.step(acts), venv.step(acts))  # nothing had stepped, and the env steps on


def test_with_noop_an_out_of_range_action_in_any_shard_is_replaced_as_batched_env_replaces_it(closing):
    """``illegal_action="noop"``: an index out of range (negative, past the table, past int64) is a
    ``noop`` flagged ``illegal_replaced`` in every shard, as in :class:`BatchedEnv` and a single env;
    it used to refuse the whole batch."""
    kwargs = {**KWARGS, "illegal_action": "noop"}
    venv = closing(ProcessBatchedEnv(ENV_ID, 4, workers=2, env_kwargs=kwargs))
    ref = BatchedEnv(ENV_ID, 4, kwargs)
    a, b = ref.reset(seed=3), venv.reset(seed=3)
    rng = np.random.default_rng(0)
    for t in range(12):
        acts = random_legal_actions(rng, a[1]).astype(np.int64)
        acts[t % 4, 0], acts[(t + 2) % 4, 1] = venv.n_actions + t, -1 - t  # this process's shard and the worker's
        a, b = ref.step(acts), venv.step(acts)
        _same(a, b)
        assert a[5] == b[5]
        assert b[5][t % 4]["agents"][venv.possible_agents[0]]["illegal_replaced"] or not venv.alive[t % 4, 0]
    huge = np.zeros((4, venv.num_seats), np.uint64)
    huge[3, 0] = 2 ** 64 - 1  # no int64 holds it: the check reads it as out of range, not wrapped
    a, b = ref.step(np.where(huge > 0, -1, 0)), venv.step(huge)
    _same(a, b)
    assert a[5] == b[5]


def test_a_worker_that_cannot_build_leaves_no_process_behind(monkeypatch):
    import multiprocessing as mp

    monkeypatch.setattr(process, "_worker", _vector_worker_not_building)
    before = {p.pid for p in mp.active_children()}
    try:
        with pytest.raises(WorkerError, match=r"in vector worker \d+: ConfigError: .*no_such_option") as e:
            ProcessBatchedEnv(ENV_ID, 5, workers=3, env_kwargs=KWARGS)  # the second worker builds fine
        # checked while the error (and so the half-built env) is alive: no reliance on garbage collection
        assert e.value.remote_type == "ConfigError"
        assert [p for p in mp.active_children() if p.pid not in before] == []
    finally:
        for p in mp.active_children():
            if p.pid not in before:
                p.kill()
                p.join(5)


def test_bad_sizes_are_refused():
    for kw, name in (({"num_games": 0}, "num_games"), ({"num_games": 2.5}, "num_games"),
                     ({"num_games": 2, "workers": 0}, "workers"), ({"num_games": 2, "workers": True}, "workers")):
        with pytest.raises(ValueError, match=rf"{name}=.* is not allowed; allowed: an integer >= 1"):
            ProcessBatchedEnv(ENV_ID, env_kwargs=KWARGS, **kw)
    with ProcessBatchedEnv(ENV_ID, 2, workers=1, env_kwargs=KWARGS) as venv:
        with pytest.raises(ValueError, match="non-negative"):
            venv.reset(seed=[0, -1])
        with pytest.raises(RuntimeError, match="reset"):  # the refused reset changed nothing
            venv.step(np.zeros((2, venv.num_seats), dtype=int))


# ---------------------------------------------------------------------------- the training bridge
def _bridge(copies, workers, **kwargs):
    pytest.importorskip("stable_baselines3")
    from training.copies import BridgeSettings, RewardRule
    from training.envspec import EnvSpec
    from training.seating import SeatingRule
    from training.vec_env import MultiAgentVecEnv

    spec = EnvSpec.resolve(ENV_ID, KWARGS)
    coop = spec.kind == "cooperative"
    n = len(spec.make().possible_agents)
    settings = BridgeSettings(spec, SeatingRule(n if coop else 1, "cycle", {"random": 1.0}, 3, 0.5), RewardRule(),
                              coop, True, 0)
    return MultiAgentVecEnv(settings, copies, workers, **kwargs)


def _masked(venv, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])


def test_bridge_worker_killed_between_steps(closing):
    venv = closing(_bridge(2, 2))
    venv.reset()
    procs = _procs(venv)
    os.kill(procs[0].pid, signal.SIGKILL)
    procs[0].join(10)
    acts = _masked(venv, np.random.default_rng(0))
    with pytest.raises(WorkerError, match=rf"bridge worker {procs[0].pid} died \(exit code -9, killed by SIGKILL\)"):
        venv.step(acts)
    for call in (lambda: venv.step(acts), venv.reset, venv.describe):
        with pytest.raises(WorkerError, match="broken: bridge worker .* died"):
            call()
    _assert_closed_cleanly(venv, procs)


def test_bridge_worker_that_dies_inside_a_step_is_a_worker_error_with_its_exit_code(closing, monkeypatch):
    pytest.importorskip("stable_baselines3")
    import training.vec_env

    monkeypatch.setattr(training.vec_env, "worker_main", _bridge_worker_dying)
    venv = closing(_bridge(2, 2))
    rng = np.random.default_rng(0)
    venv.reset()
    venv.step(_masked(venv, rng))
    procs = _procs(venv)
    with pytest.raises(WorkerError, match=rf"bridge worker {procs[0].pid} died \(exit code -9, killed by SIGKILL\) "
                                          r"before it answered") as e:
        venv.step(_masked(venv, rng))  # its answer (a semaphore) never comes: the death is seen while waiting
    assert e.value.died and e.value.exitcode == -9
    for call in (lambda: venv.step(_masked(venv, rng)), venv.reset):
        with pytest.raises(WorkerError, match="broken: bridge worker .* died"):
            call()
    _assert_closed_cleanly(venv, procs)


def test_bridge_worker_exception_is_drained_and_stepping_waits_for_a_reset(closing, monkeypatch):
    pytest.importorskip("stable_baselines3")
    import training.vec_env

    monkeypatch.setattr(training.vec_env, "worker_main", _bridge_worker_raising)
    venv = closing(_bridge(5, 3))  # the first worker fails, the second answers after it
    ref = closing(_bridge(5, 1))
    rng = np.random.default_rng(0)
    venv.reset()
    venv.step(_masked(venv, rng))
    faulty = _procs(venv)[0]
    with pytest.raises(WorkerError, match=rf"in bridge worker {faulty.pid}: ZeroDivisionError: boom in a step"):
        venv.step(_masked(venv, rng))
    with pytest.raises(RuntimeError, match=r"last step failed .*call reset\(\)"):
        venv.step(_masked(venv, rng))
    for v in (ref, venv):
        v.seed(5)
    np.testing.assert_array_equal(ref.reset(), venv.reset())
    for _ in range(3):
        acts = _masked(ref, rng)
        _same(ref.step(acts), venv.step(acts))
    _assert_closed_cleanly(venv, _procs(venv))


def test_bridge_refuses_an_illegal_action_before_anything_steps(closing):
    venv = closing(_bridge(2, 2))
    ref = _bridge(2, 1)
    closing(ref)
    for v in (ref, venv):
        v.seed(3)
        v.reset()
    rng = np.random.default_rng(1)
    acts = _masked(venv, rng)
    n = venv.action_space.n
    for bad_value, why in ((n + 3, "out of range"), (-1, "out of range")):
        bad = acts.copy()
        bad[-1] = bad_value  # the last slot: the worker's copy
        with pytest.raises(IllegalActionError, match=rf"slot {len(acts) - 1} .*{why}.*no copy was stepped"):
            venv.step(bad)
    if not venv.action_masks()[-1].all():
        bad = acts.copy()
        bad[-1] = int(np.flatnonzero(~venv.action_masks()[-1])[0])
        with pytest.raises(IllegalActionError, match="is not legal now"):
            venv.step(bad)
    with pytest.raises(ValueError, match="integers"):
        venv.step(acts.astype(float))
    for _ in range(3):  # nothing had stepped (no generator advanced either): both continue alike
        _same(ref.step(acts), venv.step(acts))
        acts = _masked(ref, rng)


# ---------------------------------------------------------------------------- a worker that never answers
def _bounded(call, seconds: float = 60.0):
    """``call()``'s exception, or its result, from a thread given ``seconds``: a test of a timeout must
    not hang itself if the timeout fails."""
    import threading

    out: dict = {}

    def run():
        try:
            out["value"] = call()
        except BaseException as e:  # noqa: BLE001 - returned to the test
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"no answer within {seconds} s: the timeout did not fire"
    return out


@pytest.mark.parametrize("make", ["vector", "bridge"])
@pytest.mark.parametrize("during", ["step", "reset"])
def test_a_worker_that_stops_answering_is_stopped_after_timeout_s_and_the_env_is_broken(closing, make, during):
    """``timeout_s``: a worker still running but not answering (here stopped with SIGSTOP) is killed
    once the timeout has passed, the call raises a WorkerError saying so, and the env refuses every
    later call until rebuilt; close() still returns and leaves no process. Without ``timeout_s`` the
    call would wait for ever, as before."""
    # Built and reset under a generous limit (a loaded machine may take more than 0.5 s to spawn a
    # worker and build its games), then the limit under test for the call the stopped worker misses.
    if make == "vector":
        venv = closing(ProcessBatchedEnv(ENV_ID, 4, workers=2, env_kwargs=KWARGS, timeout_s=120))
        masks = venv.reset(seed=1)[1]
        act = lambda: venv.step(random_legal_actions(np.random.default_rng(0), masks))  # noqa: E731
        label = "vector worker"
        remotes = venv._remotes
    else:
        venv = closing(_bridge(2, 2, timeout_s=120))
        venv.reset()
        act = lambda: venv.step(_masked(venv, np.random.default_rng(0)))  # noqa: E731
        label = "bridge worker"
        remotes = venv._backends
    for r in remotes:
        if hasattr(r, "proc"):
            assert r.timeout_s == 120
            r.timeout_s = 0.5
    procs = _procs(venv)
    os.kill(procs[0].pid, signal.SIGSTOP)
    out = _bounded(act if during == "step" else venv.reset)
    err = out.get("error")
    assert isinstance(err, WorkerError) and err.died, out
    assert str(err).startswith(f"{label} {procs[0].pid} did not answer within 0.5 s (stuck, or slower than the "
                               f"timeout allows); it was stopped (exit code -9, killed by SIGKILL)"), err
    with pytest.raises(WorkerError, match="is broken: .* did not answer within 0.5 s"):
        venv.reset()
    _assert_closed_cleanly(venv, procs)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "5", True])
def test_timeout_s_is_none_or_seconds_above_zero(bad):
    with pytest.raises(ValueError, match=r"timeout_s=.* is not allowed; allowed: None \(no limit\) or a number of "
                                         r"seconds > 0"):
        ProcessBatchedEnv(ENV_ID, 2, workers=2, env_kwargs=KWARGS, timeout_s=bad)


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, ValueError])
def test_an_exception_without_a_message_in_this_process_shard_is_raised_as_itself(closing, monkeypatch, interruption):
    """A ``KeyboardInterrupt`` (or any exception without a message) in this process's own shard
    became ``IndexError: list index out of range`` (the message's first line was read), and the
    env went on stepping half-stepped games: about a quarter of real Ctrl-Cs ended so."""
    venv = closing(ProcessBatchedEnv(ENV_ID, 2, workers=2, env_kwargs=KWARGS))
    masks = venv.reset(seed=0)[1]

    def stop(actions, checked=False):
        raise interruption()

    monkeypatch.setattr(venv._local, "_advance", stop)
    with pytest.raises(interruption):
        venv.step(random_legal_actions(np.random.default_rng(0), masks))
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match=rf"last step failed \({interruption.__name__}: \) .*call reset\(\)"):
        venv.step(random_legal_actions(np.random.default_rng(0), masks))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /dev/shm")
@pytest.mark.parametrize("make", ["vector", "bridge"])
def test_close_lets_the_workers_semaphores_go_while_the_env_is_still_referenced(make):
    """A closed env kept its workers' named semaphores (``/dev/shm/sem.mp-*``) until it was
    collected: a closed env that stays referenced (an SB3 model's env, a sweep's list) held them."""
    import gc

    def present(names: set[str]) -> set[str]:
        return {n for n in names if os.path.exists(f"/dev/shm/sem.{n}")}

    kept, ours = [], set()
    for _ in range(3):
        if make == "vector":
            venv = ProcessBatchedEnv(ENV_ID, 4, workers=2, env_kwargs=KWARGS)
        else:
            venv = _bridge(2, 2)
        venv.reset()
        names = {done._semlock.name.lstrip("/") for done, _ in venv._signals}
        assert names and present(names) == names
        ours |= names
        venv.close()
        kept.append(venv)
    gc.collect()
    assert not present(ours)


# ---------------------------------------------------------------------------- a fork of the process that built the env
def _in_fork(child) -> int:
    """Run ``child()`` in an ``os.fork()`` child of this process; its exit status (0: it returned;
    ``child`` may also leave with ``sys.exit``, which runs the exit handlers as a program's end would)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            child()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0
            import multiprocessing.util as mp_util

            mp_util._exit_function()  # what the interpreter's exit runs (terminated daemonic "children")
        except BaseException:  # noqa: BLE001
            code = 3
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
@pytest.mark.parametrize("make", ["vector", "bridge"])
@pytest.mark.parametrize("child_does", ["step", "collect", "close", "exit"])
def test_a_forked_child_neither_uses_nor_ends_the_parents_workers(closing, make, child_does):
    """An env built before ``os.fork()``: the child's steps drove the parent's workers and shared
    arrays (the parent's next steps silently wrong); its close, its garbage collection and its exit
    (multiprocessing terminates daemonic children at exit) ended the parent's workers. Now the
    child's use is refused, naming the process, and the parent plays on as if nothing happened."""
    import gc

    if make == "vector":
        venv = closing(ProcessBatchedEnv(ENV_ID, 4, workers=2, env_kwargs=KWARGS))
        ref = BatchedEnv(ENV_ID, 4, env_kwargs=KWARGS)
        first, _ = venv.reset(seed=3)[:2], ref.reset(seed=3)
    else:
        venv, ref = closing(_bridge(2, 2)), _bridge(2, 1)
        for v in (venv, ref):
            v.seed(3)
        _same([venv.reset()], [ref.reset()])
    rng = np.random.default_rng(0)

    def step_both():
        if make == "vector":
            acts = random_legal_actions(rng, ref._masks)
            _same(venv.step(acts), ref.step(acts))
        else:
            acts = random_legal_actions(rng, ref.action_masks()[:, None, :]).reshape(-1)
            _same(venv.step(acts), ref.step(acts))

    step_both()

    def child():
        if child_does == "step":
            with pytest.raises(RuntimeError, match=r"was built in process \d+.*\(a fork of it\): build a new"):
                venv.reset() if make == "bridge" else venv.step(np.zeros((4, venv.num_seats), dtype=np.int64))
        elif child_does == "collect":  # (what its collection runs: the fixture here holds a reference)
            type(venv).__del__(venv)
            gc.collect()
        elif child_does == "close":
            venv.close()
        else:
            sys.exit(0)

    assert _in_fork(child) == 0
    for _ in range(5):
        step_both()
    assert all(p.exitcode is None for p in _procs(venv))
    ref.close()


_ORPHAN_SCRIPT = """
import multiprocessing as mp, os, signal, sys, time
sys.path.insert(0, {root!r})
from tests.vector.test_worker_failures import ENV_ID, KWARGS, _bridge
from envs.vector import ProcessBatchedEnv

def sleeper():
    time.sleep(60)

if __name__ == "__main__":
    venv = ProcessBatchedEnv(ENV_ID, 4, workers=2, env_kwargs=KWARGS) if {make!r} == "vector" else _bridge(2, 2)
    venv.reset()
    helper = mp.get_context("fork").Process(target=sleeper)
    helper.start()
    print(venv._procs[0].pid if {make!r} == "vector" else venv._backends[1].proc.pid, helper.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (an orphan's parent of last resort may not reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
@pytest.mark.parametrize("make", ["vector", "bridge"])
def test_a_worker_ends_with_its_killed_parent_while_a_forked_sibling_holds_the_pipe(make):
    """The parent SIGKILLed while a child it forked (an SB3 ``SubprocVecEnv(start_method="fork")``, a
    data loader) still ran: that child held the parent's end of the worker's pipe open, so the worker
    never saw the end and ran on, orphaned. Workers now ask the kernel to end them with their parent."""
    import subprocess
    import time

    if make == "bridge":
        pytest.importorskip("stable_baselines3")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # (the parent's pipe stays open in its children after it dies: read its line, do not wait for the end)
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_SCRIPT.format(root=root, make=make)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    worker, sibling = (int(x) for x in parent.stdout.readline().split())
    parent.wait(60)
    parent.stdout.close()
    try:
        deadline = time.monotonic() + 15
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(worker), f"worker {worker} still runs after its parent was killed"
    finally:
        for pid in (worker, sibling):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
