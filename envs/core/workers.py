"""Worker processes that serve commands over a pipe (shared by ``envs.vector``
and the training bridge).

The parent sends ``(command, data)``; the worker answers ``("ok", result)``
or ``("error", message with traceback)``. :func:`serve` is the worker's loop,
:func:`receive` the parent's side of one answer, and :func:`dispatch` applies
one command in-process (what a worker does, without a pipe).
"""

from __future__ import annotations

import os
import signal
import traceback
from contextlib import contextmanager
from typing import Any, Callable, Mapping

Commands = Mapping[str, Callable[[Any, Any], Any]]


class WorkerError(RuntimeError):
    """An exception raised inside a worker process (its message and traceback included)."""


def dispatch(commands: Commands, obj: Any, cmd: str, data: Any) -> Any:
    """Apply ``commands[cmd](obj, data)``; an unknown command is a ValueError naming the known ones."""
    handler = commands.get(cmd)
    if handler is None:
        raise ValueError(f"unknown command {cmd!r}; known: {sorted(commands)}")
    return handler(obj, data)


def serve(conn, build: Callable[[], Any], commands: Commands, hello: Callable[[Any], Any] = lambda obj: None) -> None:
    """A worker's loop: build the object (answering ``hello(obj)``, or the
    error), then answer commands until ``close`` (which also runs
    ``commands["close"]``) or until the parent goes away. Ctrl-C is ignored:
    the parent decides and closes the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        obj = build()
        conn.send(("ok", hello(obj)))
    except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        return
    while True:
        try:
            cmd, data = conn.recv()
        except EOFError:
            return
        try:
            conn.send(("ok", dispatch(commands, obj, cmd, data)))
        except BaseException as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        if cmd == "close":
            return


def receive(conn, proc, label: str) -> Any:
    """One answer from the worker ``proc`` behind ``conn``: its result, or a
    :class:`WorkerError` (``label`` names the kind of worker in the message)."""
    try:
        status, payload = conn.recv()
    except EOFError as e:
        raise WorkerError(f"{label} {proc.pid} died (exit code {proc.exitcode})") from e
    if status != "ok":
        raise WorkerError(f"in {label} {proc.pid}: {payload}")
    return payload


BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def one_blas_thread():
    """Within the block (while worker processes are spawned, which inherit the
    environment), set the BLAS thread counts to 1; restore them after.
    Multi-threaded BLAS in several processes on few cores spins and slows
    everything down."""
    saved = {k: os.environ.get(k) for k in BLAS_THREAD_VARS}
    os.environ.update({k: "1" for k in saved})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
