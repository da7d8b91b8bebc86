"""The loop of a bridge worker process (imports numpy and the envs, never torch).

The main process sends ``(command, data)`` over a pipe; the worker answers
``("ok", result)`` or ``("error", message with traceback)``. Commands:
``reset`` (per-copy seeds), ``step`` (slot actions), ``teacher_step`` (a
scripted teacher labels the learner seats: behaviour-cloning data), ``set_student``
(the network that plays while the teacher labels: DAgger), ``add_snapshot``,
``describe``, ``close``. Ctrl-C is ignored here: the main process decides
(the protocol, and what each failure becomes, is :mod:`envs.core.workers`).
"""

from __future__ import annotations

import warnings

from envs.core.workers import WorkerError, serve  # noqa: F401  (WorkerError: raised by the bridge)

from training.checkpoints import CheckpointWarning
from training.copies import BridgeSettings, CopyGroup


def _add_snapshot(group: CopyGroup, data) -> list[str]:
    group.add_snapshot(*data)
    return group.pool_names()


def _slot_alive(group: CopyGroup):
    """Per slot: does its learner seat act in the current state (else its action is ignored)?"""
    rows, seats = group._slot_index()
    return group.batch.alive[rows, seats].copy()


#: What a copy group answers, in a worker or in the main process (training.vec_env._Local);
#: ``reset``, ``step`` and ``teacher_step`` also return the slots' ``alive`` last (the
#: bridge checks the next actions against it and the masks before sending them).
COMMANDS = {
    "step": lambda g, d: (*g.step(d), _slot_alive(g)),
    "reset": lambda g, d: (*g.reset(d), _slot_alive(g)),
    "teacher_step": lambda g, d: (*g.teacher_step(*d), _slot_alive(g)),
    "set_student": lambda g, d: g.set_student(d),
    "add_snapshot": _add_snapshot,
    "describe": lambda g, d: g.describe(),
    "close": lambda g, d: g.close(),
}


def worker_main(conn, settings: BridgeSettings, copy_indices: list[int]) -> None:
    # The main process built these policies first (training.trainer.plan_run, the bridge's in-process
    # group) and showed their CheckpointWarnings once; a worker would only repeat them.
    warnings.simplefilter("ignore", CheckpointWarning)
    serve(conn, lambda: CopyGroup(settings, copy_indices), COMMANDS,
          hello=lambda g: (g.n_slots, g.encoder.size, g.encoder.n_actions))
