"""envs.core.workers: the pipe protocol shared by envs.vector and the training bridge."""

import multiprocessing as mp
import os

import pytest

from envs.core.workers import BLAS_THREAD_VARS, WorkerError, dispatch, one_blas_thread, receive, serve

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
        with pytest.raises(WorkerError, match=r"test worker \d+ died \(exit code 0\)"):
            receive(parent, proc, "test worker")
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
