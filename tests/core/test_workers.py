"""envs.core.workers: the pipe protocol shared by envs.vector and the training bridge."""

import multiprocessing as mp
import os
import signal
import time

import pytest

from envs.core.workers import (ANSWERED, BLAS_THREAD_VARS, Remote, WorkerError, dispatch, first_error, one_blas_thread,
                               receive, serve, stop_workers)

COMMANDS = {"add": lambda obj, x: obj.append(x) or sum(obj), "fail": lambda obj, _: 1 / 0, "close": lambda obj, _: None}


def test_dispatch_applies_a_command_and_names_the_known_ones_for_an_unknown_one():
    box = [1]
    assert dispatch(COMMANDS, box, "add", 2) == 3 and box == [1, 2]
    with pytest.raises(ValueError, match=r"unknown command 'mul'; known: \['add', 'close', 'fail'\]"):
        dispatch(COMMANDS, box, "mul", 2)


def _build_list():
    return [10]


def _serve(conn):
    serve(conn, _build_list, COMMANDS, hello=len)


def _serve_broken(conn):
    serve(conn, lambda: [][0], COMMANDS)


HANGING = {**COMMANDS, "hang": lambda obj, _: time.sleep(600)}


def _serve_hanging(conn):
    serve(conn, _build_list, HANGING)


@pytest.fixture
def remotes():
    """Started workers, killed and reaped after the test whatever happens."""
    made: list[Remote] = []
    yield lambda target: made.append(Remote(mp.get_context("spawn"), target, (), "test worker")) or made[-1]
    for r in made:
        if r.proc.exitcode is None:
            r.proc.kill()
            r.proc.join(10)


def _assert_reaped(proc):
    assert proc.exitcode is not None
    with pytest.raises(ProcessLookupError):  # no zombie: the pid is gone
        os.kill(proc.pid, 0)


def test_a_worker_answers_reports_errors_with_their_traceback_and_stops_on_close():
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_serve, args=(child,), daemon=True)
    proc.start()
    child.close()  # else the parent's copy keeps the pipe open and a dead worker is never noticed
    try:
        assert receive(parent, proc, "test worker") == 1  # hello: len([10])
        parent.send(("add", 5))
        assert receive(parent, proc, "test worker") == 15
        parent.send(("fail", None))
        with pytest.raises(WorkerError, match=r"in test worker \d+: ZeroDivisionError: division by zero\n.*Traceback"):
            receive(parent, proc, "test worker")
        parent.send(("add", 1))  # the worker survives an error
        assert receive(parent, proc, "test worker") == 16
        parent.send(("close", None))
        assert receive(parent, proc, "test worker") is None
        proc.join(timeout=10)
        assert proc.exitcode == 0
        with pytest.raises(WorkerError, match=r"test worker \d+ died \(exit code 0\) before it answered") as e:
            receive(parent, proc, "test worker")
        assert e.value.died and e.value.pid == proc.pid and e.value.exitcode == 0
    finally:
        proc.kill()


QUIET = {**COMMANDS, "quiet": lambda obj, x: obj.append(x) or ANSWERED}


def _serve_quiet(conn, log):
    serve(conn, _build_list, QUIET, replied=lambda cmd, obj, sent: log.send((cmd, list(obj), sent)))


def test_a_command_that_answered_otherwise_sends_nothing_and_replied_sees_every_command():
    """``ANSWERED`` (ProcessBatchedEnv's step, answered through shared memory) puts nothing on
    the pipe; ``replied(cmd, obj, sent)`` runs after every command, ``sent`` saying whether a
    result or an error went on the pipe."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    log_in, log_out = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_serve_quiet, args=(child, log_out), daemon=True)
    proc.start()
    child.close()
    log_out.close()
    try:
        assert receive(parent, proc, "test worker") is None  # built (no hello)
        parent.send(("quiet", 7))
        parent.send(("add", 1))  # answered on the pipe: the next message there is this one's
        assert receive(parent, proc, "test worker") == 18
        parent.send(("fail", None))
        with pytest.raises(WorkerError, match="ZeroDivisionError"):
            receive(parent, proc, "test worker")
        parent.send(("close", None))
        assert receive(parent, proc, "test worker") is None
        proc.join(timeout=10)
        assert proc.exitcode == 0
        seen = []
        try:
            while True:  # to the end of the log (the worker has exited)
                seen.append(log_in.recv())
        except EOFError:
            pass
        assert seen == [("quiet", [10, 7], False), ("add", [10, 7, 1], True), ("fail", [10, 7, 1], True),
                        ("close", [10, 7, 1], True)]
    finally:
        proc.kill()


def test_a_worker_that_cannot_build_says_why():
    ctx = mp.get_context("fork")  # the build is a lambda: fork, not spawn
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_serve_broken, args=(child,), daemon=True)
    proc.start()
    child.close()  # else the parent's copy keeps the pipe open and a dead worker is never noticed
    with pytest.raises(WorkerError, match="IndexError: list index out of range"):
        receive(parent, proc, "test worker")
    proc.join(timeout=10)


def test_one_blas_thread_sets_and_restores_the_environment(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    for k in BLAS_THREAD_VARS[1:]:
        monkeypatch.delenv(k, raising=False)
    with one_blas_thread():
        assert all(os.environ[k] == "1" for k in BLAS_THREAD_VARS)
    assert os.environ["OMP_NUM_THREADS"] == "7"
    assert all(k not in os.environ for k in BLAS_THREAD_VARS[1:])


@pytest.mark.parametrize("first_out", ["first in", "second in"])
def test_one_blas_thread_blocks_of_two_threads_at_once_leave_the_environment_as_it_was(monkeypatch, first_out):
    """Two evaluations in threads: the block that ended first restored its "before" (which it
    took after the other had set 1s), and those 1s stayed for the rest of the process, in every
    subprocess started after. The environment now comes back when the last block ends."""
    import threading

    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    for k in BLAS_THREAD_VARS[1:]:
        monkeypatch.delenv(k, raising=False)
    entered = [threading.Event(), threading.Event()]
    leave = [threading.Event(), threading.Event()]
    seen = []

    def block(i):
        with one_blas_thread():
            entered[i].set()
            leave[i].wait(10)
            seen.append(os.environ["OMP_NUM_THREADS"])

    threads = [threading.Thread(target=block, args=(i,)) for i in (0, 1)]
    threads[0].start()
    entered[0].wait(10)
    threads[1].start()
    entered[1].wait(10)
    order = (0, 1) if first_out == "first in" else (1, 0)
    for i in order:
        leave[i].set()
        threads[i].join(10)
    assert seen == ["1", "1"]  # the block still running keeps its 1s
    assert os.environ["OMP_NUM_THREADS"] == "7"
    assert all(k not in os.environ for k in BLAS_THREAD_VARS[1:])


def test_a_dead_worker_is_a_worker_error_with_pid_and_exit_code_on_send_and_on_receive(remotes):
    r = remotes(_serve)
    assert r.recv() == 1
    r.proc.kill()
    r.proc.join(10)
    pid = r.proc.pid
    with pytest.raises(WorkerError, match=rf"test worker {pid} died \(exit code -9, killed by SIGKILL\) "
                                          r"before it could be sent 'add'") as e:
        r.send("add", 1)  # the raw error would be BrokenPipeError
    assert (e.value.died, e.value.pid, e.value.exitcode) == (True, pid, -9)
    with pytest.raises(WorkerError, match=rf"test worker {pid} died \(exit code -9, killed by SIGKILL\) "
                                          r"before it answered"):
        r.recv()  # the raw error would be EOFError
    stop_workers([r])
    _assert_reaped(r.proc)


def test_an_error_in_a_worker_carries_its_type_and_message(remotes):
    r = remotes(_serve)
    r.recv()
    with pytest.raises(WorkerError) as e:
        r.call("fail")
    assert (e.value.died, e.value.pid, e.value.remote_type, e.value.remote_message) == \
        (False, r.proc.pid, "ZeroDivisionError", "division by zero")
    assert r.call("add", 2) == 12  # still serving
    stop_workers([r])
    assert r.proc.exitcode == 0  # closed, not terminated
    _assert_reaped(r.proc)


def test_stop_workers_returns_for_a_worker_that_does_not_answer(remotes):
    r = remotes(_serve_hanging)
    r.recv()
    r.send("hang")
    stop_workers([r], timeout=0.5)  # returns: the worker is terminated once the time is up
    assert r.proc.exitcode == -signal.SIGTERM
    _assert_reaped(r.proc)
    stop_workers([r], timeout=0.5)  # again, on a gone worker: returns


def test_notes_are_added_where_python_has_no_add_note():
    """Python 3.10 (``requires-python >= 3.10``) has no ``BaseException.add_note``: ``first_error`` raised
    an ``AttributeError`` in place of the workers' errors, before the env was marked broken."""
    from envs.core.workers import _add_note

    class Py310Error(RuntimeError):
        @property
        def add_note(self):
            raise AttributeError("add_note")  # as on Python 3.10

    e = Py310Error("first")
    _add_note(e, "also: one")
    _add_note(e, "also: two")
    assert e.__notes__ == ["also: one", "also: two"]
    assert first_error([e, Py310Error("second")]) is e and e.__notes__[-1] == "also: Py310Error: second"


def test_first_error_prefers_a_death_and_notes_the_others():
    raised = WorkerError("in w 1: ValueError: x", remote_type="ValueError")
    died = WorkerError("w 2 died (exit code -9, killed by SIGKILL)", died=True)
    other = KeyError("k")
    assert first_error([raised, died, other]) is died
    assert died.__notes__ == ["also: WorkerError: in w 1: ValueError: x", "also: KeyError: 'k'"]
    assert first_error([other]) is other
    stop = KeyboardInterrupt()
    assert first_error([died, stop]) is stop  # Ctrl-C is never turned into another error
