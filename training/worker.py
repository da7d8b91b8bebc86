"""The loop of a bridge worker process (imports numpy and the envs, never torch).

The main process sends ``(command, data)`` over a pipe; the worker answers
``("ok", result)`` or ``("error", message with traceback)``. Commands:
``reset`` (per-copy seeds), ``step`` (slot actions), ``teacher_step`` (a
scripted teacher labels the learner seats: behaviour-cloning data), ``set_student``
(the network that plays while the teacher labels: DAgger), ``add_snapshot``,
``describe``, ``close``. Ctrl-C is ignored here: the main process decides.
"""

from __future__ import annotations

import signal
import traceback

from training.copies import BridgeSettings, CopyGroup


class WorkerError(RuntimeError):
    """An exception raised inside a bridge worker process (message and traceback included)."""


def worker_main(conn, settings: BridgeSettings, copy_indices: list[int]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C and closes us
    try:
        group = CopyGroup(settings, copy_indices)
    except BaseException as e:  # noqa: BLE001
        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        return
    conn.send(("ok", (group.n_slots, group.encoder.size, group.encoder.n_actions)))
    while True:
        try:
            cmd, data = conn.recv()
        except EOFError:
            return
        try:
            if cmd == "step":
                conn.send(("ok", group.step(data)))
            elif cmd == "reset":
                conn.send(("ok", group.reset(data)))
            elif cmd == "teacher_step":
                conn.send(("ok", group.teacher_step(*data)))
            elif cmd == "set_student":
                conn.send(("ok", group.set_student(data)))
            elif cmd == "add_snapshot":
                group.add_snapshot(*data)
                conn.send(("ok", group.pool_names()))
            elif cmd == "describe":
                conn.send(("ok", group.describe()))
            elif cmd == "close":
                group.close()
                conn.send(("ok", None))
                return
            else:
                conn.send(("error", f"unknown command {cmd!r}"))
        except BaseException as e:  # noqa: BLE001 - report everything to the parent
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
