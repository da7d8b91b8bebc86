"""The loop of a bridge worker process (imports numpy and the envs, never torch).

The main process sends ``(command, data)`` over a pipe; the worker answers
``("ok", result)`` or ``("error", message with traceback)``. Commands:
``reset`` (per-copy seeds), ``step`` (slot actions), ``teacher_step`` (a
scripted teacher labels the learner seats: behaviour-cloning data), ``set_student``
(the network that plays while the teacher labels: DAgger), ``add_snapshot``,
``describe``, ``close``. Ctrl-C is ignored here: the main process decides
(the protocol, and what each failure becomes, is :mod:`envs.core.workers`).

A step goes through memory shared with the main process (:class:`SharedSlots`,
the arrays of :data:`SLOT_BLOCK` over every slot of the bridge, each worker in
its own rows): the main process writes the slots' actions there before it sends
the bare command; the worker steps, writes the observations, rewards, dones,
masks and ``alive`` there, and answers by a semaphore
(:func:`envs.core.workers.answer_step`). Only the infos of the slots whose game
ended (most steps have none) and errors still go through the pipe. Pickling a
group's whole answer cost the worker about 100 µs a step, and the main process
received it 85-95 µs after that.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from envs.core.workers import WorkerError  # noqa: F401  (raised by the bridge)
from envs.core.workers import ANSWERED, answer_step, die_with_parent, serve, shared_arrays, status_word

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


#: The arrays a step's answer takes through shared memory (:func:`envs.core.workers.shared_buffers`):
#: name -> (dtype, shape after the slot axis: ``"d"`` the policy's observation size, ``"a"`` the
#: number of actions).
SLOT_BLOCK = {
    "actions": (np.int64, ()), "obs": (np.float32, ("d",)), "rewards": (np.float32, ()), "dones": (np.bool_, ()),
    "masks": (np.bool_, ("a",)), "alive": (np.bool_, ()),
}


def slot_sizes(obs_size: int, n_actions: int) -> dict[str, int]:
    """The sizes :data:`SLOT_BLOCK`'s dims name."""
    return {"d": obs_size, "a": n_actions}


class SharedSlots:
    """A worker's slots ``start:stop`` of the shared arrays, and its answer signal
    ``(semaphore, status index)``."""

    def __init__(self, buffers: dict, start: int, stop: int, obs_size: int, n_actions: int, signal: tuple):
        every = shared_arrays(buffers, SLOT_BLOCK, slot_sizes(obs_size, n_actions))
        self.arrays = {name: a[start:stop] for name, a in every.items()}
        self.done, self.status = signal[0], status_word(buffers["status"], signal[1])

    def step(self, group: CopyGroup) -> Any:
        """``COMMANDS["step"]`` with the actions in the shared arrays; its arrays written there.
        Returns :data:`ANSWERED`, or ``{slot: info}`` of the slots whose info is not empty."""
        arr = self.arrays
        obs, rewards, dones, infos, masks, alive = COMMANDS["step"](group, arr["actions"])
        arr["obs"][...] = obs
        arr["rewards"][...] = rewards
        arr["dones"][...] = dones
        arr["masks"][...] = masks
        arr["alive"][...] = alive
        whole = {i: info for i, info in enumerate(infos) if info}
        return whole or ANSWERED

    def replied(self, cmd: str, sent: bool) -> None:
        if cmd == "step":
            answer_step(self.status, self.done, sent)


def worker_main(conn, settings: BridgeSettings, copy_indices: list[int], shared: tuple) -> None:
    """A bridge worker's loop. ``shared``: ``(buffers, start, stop, spin_s, signal)``, its slots'
    rows of the shared arrays and how it answers a step (:class:`SharedSlots`)."""
    # The main process built these policies first (training.trainer.plan_run, the bridge's in-process
    # group) and showed their CheckpointWarnings once; a worker would only repeat them.
    warnings.simplefilter("ignore", CheckpointWarning)
    die_with_parent()  # (a sibling forked from the main process holds the pipe open: its end would not show)
    buffers, start, stop, spin_s, signal = shared
    slots: list[SharedSlots] = []

    def build() -> CopyGroup:
        group = CopyGroup(settings, copy_indices)
        slots.append(SharedSlots(buffers, start, stop, group.encoder.size, group.encoder.n_actions, signal))
        return group

    commands = {**COMMANDS, "step": lambda g, _: slots[0].step(g)}
    serve(conn, build, commands, hello=lambda g: (g.n_slots, g.encoder.size, g.encoder.n_actions), spin_s=spin_s,
          replied=lambda cmd, g, sent: slots[0].replied(cmd, sent))
