"""The multi-agent bridge: PettingZoo ParallelEnv copies as one SB3 ``VecEnv``.

:class:`MultiAgentVecEnv` runs ``n_copies`` copies of a ParallelEnv and
presents each *learner seat* of each copy as one slot of a
``stable_baselines3.common.vec_env.VecEnv`` (parameter sharing: every slot
is the same policy; the seat's identity is a one-hot at the end of its
observation, see :mod:`training.obs`). ``num_envs = n_copies * learners``.

* Masks: ``action_masks()`` returns the ``(num_envs, A)`` boolean masks of the
  current observations. sb3-contrib's ``is_masking_supported(venv)`` calls
  ``venv.has_attr("action_masks")`` and ``get_action_masks(venv)`` calls
  ``np.stack(venv.env_method("action_masks"))``; both are answered here from
  the masks the copies returned with their last step (no extra round trip to
  the workers), also through ``VecMonitor`` and other wrappers, which forward
  them.
* Non-learning seats are played inside the copies (:mod:`training.seating`),
  so SB3 only ever sees the learner.
* Auto-reset as SB3 expects: when a copy's game ends, each of its slots
  reports ``done=True`` with ``infos[i]["terminal_observation"]`` (the last
  observation) and ``infos[i]["TimeLimit.truncated"]`` (True when the env
  truncated rather than terminated), and the returned observation is the
  first of the next game. The end-of-game info also holds ``win`` (the
  seat's win share), ``score``, ``seat``, ``learner_index`` (which of the
  learner's seats in that game), ``others`` and the game's ``outcome``.
* Processes: ``workers`` is the number of processes stepping copies,
  the calling process included. The copies are split into ``workers``
  contiguous groups; the calling process steps the first group itself
  while ``workers - 1`` spawned processes (numpy and the envs, no torch)
  step the others at the same time, so the round trip to the workers is
  hidden behind local work. ``workers=1`` runs everything in the calling
  process. Results are the same for any ``workers`` and the same seed
  (every copy draws from its own generator). A step's arrays go through
  memory shared with the workers (:mod:`training.worker`: the actions there,
  the observations, rewards, dones, masks and ``alive`` back, a semaphore per
  worker for the answer); only the infos of games that ended, and errors,
  still go through the pipes. After answering, a worker polls its pipe for up
  to ``spin_s`` seconds before it blocks, and this process polls each
  worker's answer the same way: ``spin_s=None`` (the default) is
  :data:`envs.core.workers.SPIN_S` when every process, and every torch
  thread of this one (``torch.get_num_threads()`` when the bridge is built),
  has a core of its own, else 0 (always block; :func:`spin_for`).
* Checks and failures: ``step`` checks the actions here, before anything is
  sent (integers, one per slot; with ``illegal_action="raise"`` an
  out-of-range or illegal action of a slot whose seat acts raises
  :class:`~envs.core.errors.IllegalActionError`, nothing steps, and the env
  stays usable). Failures follow :mod:`envs.vector.process`: every answer
  is read before anything is raised; a worker that died (or whose pipe
  broke) is a :class:`~envs.core.workers.WorkerError` with its pid and exit
  code and leaves the env *broken* (everything but ``close()`` raises until a
  new one is built), and so does, with ``timeout_s`` (the config's
  ``training.worker_timeout_s``), a worker still running that has not
  answered within that many seconds (it is killed first); an exception inside a ``reset``/``step``/``teacher_step``
  (the exception itself from this process's copies, a ``WorkerError`` with
  its type, message and traceback from a worker) leaves the copies in an
  unknown state, so stepping refuses until ``reset()`` succeeds;
  ``close()`` always returns, may be repeated, and after it every command
  raises a ``RuntimeError``.
* Seeding: ``seed(s)`` (as SB3's ``set_random_seed`` calls it) seeds slot
  ``i`` with ``s + i``; copy ``c`` takes the seed of its first slot at the
  next ``reset()``. Unseeded copies derive their seed from ``settings.seed``.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from envs.core.errors import IllegalActionError
from envs.core.inputs import checked_int, first_line
from envs.core.workers import (Remote, WorkerError, check_timeout, default_spin, dispatch, first_error, refuse_copy,
                               one_blas_thread, read_answer, refuse_if_unusable, shared_arrays, shared_buffers,
                               status_word, stop_workers)
from envs.integrations.sb3 import checked_indices, checked_seed

from training.copies import BridgeSettings, CopyGroup
from training.worker import COMMANDS, SLOT_BLOCK, slot_sizes, worker_main

LABEL = "bridge worker"


class _Local:
    """Same interface as :class:`~envs.core.workers.Remote`, in this process
    (``recv`` runs the command that ``send`` stored)."""

    def __init__(self, settings: BridgeSettings, copy_indices: list[int]):
        self.group = CopyGroup(settings, copy_indices)
        self._pending: tuple[str, Any] | None = None

    def send(self, cmd: str, data: Any = None) -> None:
        self._pending = (cmd, data)

    def recv(self) -> Any:
        cmd, data = self._pending
        self._pending = None
        return dispatch(COMMANDS, self.group, cmd, data)

    def call(self, cmd: str, data: Any = None) -> Any:
        self.send(cmd, data)
        return self.recv()


def split(n: int, parts: int) -> list[list[int]]:
    """``range(n)`` in ``parts`` contiguous, nearly equal pieces."""
    parts = max(1, min(parts, n))
    base, extra = divmod(n, parts)
    out, start = [], 0
    for p in range(parts):
        size = base + (1 if p < extra else 0)
        out.append(list(range(start, start + size)))
        start += size
    return out


def spin_for(spin_s: float | None, processes: int) -> float:
    """``spin_s`` checked, or the default: :func:`envs.core.workers.default_spin` counting, besides
    the ``processes`` that step copies, every torch thread of this process after the first (the
    network's threads run between steps; a worker polling beside them on their core slowed a
    two-thread update several times)."""
    torch = sys.modules.get("torch")
    threads = int(torch.get_num_threads()) if torch is not None else 1
    return default_spin(spin_s, processes + max(0, threads - 1))


#: Commands after whose failure the copies are in an unknown state (stepping waits for a reset).
_STATEFUL = ("reset", "step", "teacher_step")


class MultiAgentVecEnv(VecEnv):
    """See the module docstring."""

    def __init__(self, settings: BridgeSettings, n_copies: int, workers: int = 1, spin_s: float | None = None,
                 timeout_s: float | None = None):
        self._closed = False  # first: close() (and __del__) work whatever fails below
        self._pid = os.getpid()  # the process whose workers these are (a fork's child may not use them)
        self._backends: list[Any] = []
        self._signals: list[tuple] = []  # each worker's (semaphore, status word): how a step answers
        self._block: dict[str, np.ndarray] | None = None  # every slot's arrays in shared memory (with workers)
        n_copies = checked_int(n_copies, "n_copies", 1)
        self.settings = settings
        self.n_copies = n_copies
        self.workers = checked_int(workers, "workers", 1)
        probe = settings.env_spec.make()
        from training.obs import SeatEncoder

        enc = SeatEncoder.for_env(probe, settings.normalize)
        self.agents = list(probe.possible_agents)
        self.k = min(settings.seating.learners, len(self.agents))
        self._raise_illegal = getattr(probe, "illegal_action", "raise") == "raise"
        self._action_names = list(probe.action_table.names(range(enc.n_actions)))
        probe.close()
        self._parts = split(n_copies, self.workers)
        self.spin_s = spin_for(spin_s, len(self._parts))
        self.timeout_s = check_timeout(timeout_s)
        self._slots_per_backend = [len(p) * self.k for p in self._parts]
        self._broken: WorkerError | None = None  # a worker died: only close() is left
        self._not_ready: str | None = "call reset() before step()"  # why stepping refuses now
        self._waiting = False  # step_async() sent, step_wait() not yet called
        try:
            self._backends.append(_Local(settings, self._parts[0]))
            if len(self._parts) > 1:  # every slot's step answer in one shared block: each worker writes its rows
                ctx = mp.get_context("spawn")
                sizes = slot_sizes(enc.size, enc.n_actions)
                buffers = shared_buffers(ctx, n_copies * self.k, SLOT_BLOCK, sizes, len(self._parts) - 1)
                self._block = shared_arrays(buffers, SLOT_BLOCK, sizes)
                start = self._slots_per_backend[0]
                with one_blas_thread():
                    for j, part in enumerate(self._parts[1:]):
                        stop = start + len(part) * self.k
                        done = ctx.Semaphore(0)
                        self._signals.append((done, status_word(buffers["status"], j)))
                        shared = (buffers, start, stop, self.spin_s, (done, j))
                        self._backends.append(Remote(ctx, worker_main, (settings, part, shared), LABEL,
                                                     self.timeout_s))
                        start = stop
                for b in self._backends[1:]:
                    b.recv()  # construction report (raises the worker's error if any)
        except BaseException:
            self.close()
            raise
        self._masks = np.ones((n_copies * self.k, enc.n_actions), dtype=bool)
        self._alive = np.zeros(n_copies * self.k, dtype=bool)
        self._rows = np.arange(n_copies * self.k)
        self._actions: np.ndarray | None = None
        super().__init__(n_copies * self.k, enc.space, spaces.Discrete(enc.n_actions))

    # ------------------------------------------------------------------ one command to every backend
    def _usable(self) -> None:
        refuse_if_unusable("MultiAgentVecEnv", self._closed, self._broken, self._pid)
        if self._waiting:
            raise RuntimeError("step_async() was called and step_wait() was not: call step_wait() first")

    def _send_all(self, cmd: str, datas: Sequence[Any]) -> None:
        for b, data in zip(self._backends, datas):
            try:
                b.send(cmd, data)
            except BaseException as e:  # a dead worker, or interrupted mid-send: the pipes cannot be trusted
                pid = getattr(getattr(b, "proc", None), "pid", None)
                self._broken = e if isinstance(e, WorkerError) else WorkerError(
                    f"interrupted ({type(e).__name__}) while sending {cmd!r} to {LABEL} {pid}",
                    label=LABEL, pid=pid, died=True)
                raise

    def _recv_all(self, cmd: str) -> list[Any]:
        """Every backend's answer; on failure, raise once all are read (module doc)."""
        errors: list[BaseException] = []
        results: list[Any] = []
        for k, b in enumerate(self._backends):
            try:
                # a worker's step answer is in the shared block; its pipe holds ended games' infos, or an error
                results.append(read_answer(b, cmd, self._signals[k - 1], self.spin_s) if isinstance(b, Remote)
                               else b.recv())
            except BaseException as e:  # noqa: BLE001 - raised below, once every answer is read
                if isinstance(b, Remote) and not isinstance(e, WorkerError):  # interrupted mid-read
                    self._broken = WorkerError(f"interrupted ({type(e).__name__}) while reading {LABEL} {b.proc.pid}",
                                               label=LABEL, pid=b.proc.pid, died=True)
                    raise
                errors.append(e)
        if errors:
            err = first_error(errors)
            if isinstance(err, WorkerError) and err.died:
                self._broken = err
            elif cmd in _STATEFUL:
                self._not_ready = (f"the last {cmd} failed ({type(err).__name__}: {first_line(err)}) and "
                                   f"left the env copies in an unknown state; call reset() before step()")
            raise err
        return results

    def _round(self, cmd: str, datas: Sequence[Any]) -> list[Any]:
        self._usable()
        self._send_all(cmd, datas)
        return self._recv_all(cmd)

    def _check_actions(self, actions: np.ndarray) -> None:
        """Refuse a bad batch before anything is sent (so nothing changes)."""
        if actions.ndim != 1 or actions.shape[0] != self.num_envs:
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per slot; ({self.num_envs}, 1) is read "
                             f"as that), got {actions.shape}")
        if actions.dtype.kind not in "iu":  # (np.issubdtype also counts timedelta64 as an integer)
            raise ValueError(f"actions must be integers (indices into Discrete({self._masks.shape[1]})), "
                             f"got dtype {actions.dtype}")
        if self._not_ready is not None:
            raise RuntimeError(self._not_ready)
        if not self._raise_illegal:  # the env replaces illegal actions itself (and flags them in its infos)
            return
        n = self._masks.shape[1]
        out = (actions < 0) | (actions >= n)
        wrong = (out | ~self._masks[self._rows, np.clip(actions, 0, n - 1)]) & self._alive
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            a = int(actions[i])
            legal = [self._action_names[j] for j in np.flatnonzero(self._masks[i])]
            why = f"is out of range: valid indices are 0..{n - 1}" if out[i] else \
                f"({self._action_names[a]}) is not legal now; legal: {legal}"
            raise IllegalActionError(f"slot {i} (env copy {i // self.k}): action {a} {why}; no copy was stepped")

    # ------------------------------------------------------------------ VecEnv API
    def reset(self):
        seeds = [self._seeds[c * self.k] for c in range(self.n_copies)]
        results = self._round("reset", [[seeds[c] for c in part] for part in self._parts])
        self._reset_seeds()
        self._reset_options()
        obs = np.concatenate([r[0] for r in results])
        self._masks = np.concatenate([r[1] for r in results])
        self._alive = np.concatenate([r[2] for r in results])
        self._not_ready = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._usable()
        actions = np.asarray(actions)
        if actions.shape == (self.num_envs, 1):  # (a column of one action per slot, as some callers give it)
            actions = actions.reshape(-1)
        self._check_actions(actions)
        n0 = self._slots_per_backend[0]
        if self._block is not None:  # the workers read their actions there (written before the pipe's message)
            self._block["actions"][n0:] = actions[n0:]
        self._send_all("step", [actions[:n0]] + [None] * (len(self._backends) - 1))
        self._waiting = True

    def step_wait(self):
        if self._closed or self._broken is not None:
            self._waiting = False
            self._usable()
        if not self._waiting:
            raise RuntimeError("step_wait() without step_async(): send the actions first")
        self._waiting = False
        results = self._recv_all("step")
        if len(results) == 1:  # every array is fresh from the copies already
            obs, rewards, dones, infos, self._masks, self._alive = results[0]
            return obs, rewards, dones, infos
        # this process's slots first, then every worker's rows of the block, copied out (fresh arrays)
        local, block, rest = results[0], self._block, slice(self._slots_per_backend[0], None)
        obs = np.concatenate([local[0], block["obs"][rest]])
        rewards = np.concatenate([local[1], block["rewards"][rest]])
        dones = np.concatenate([local[2], block["dones"][rest]])
        infos = list(local[3])
        for size, whole in zip(self._slots_per_backend[1:], results[1:]):  # {slot: info} of its ended games
            infos += [whole.get(i, {}) for i in range(size)]
        self._masks = np.concatenate([local[4], block["masks"][rest]])
        self._alive = np.concatenate([local[5], block["alive"][rest]])
        return obs, rewards, dones, infos

    def _answerable(self) -> None:
        """The slots' own answers (masks, attributes, seeds) are refused once the env is closed or
        broken, as every command is (module doc): they had kept answering with the last masks."""
        refuse_if_unusable("MultiAgentVecEnv", self._closed, self._broken, self._pid)

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action masks of the current observations, ``(num_envs, A)``."""
        self._answerable()
        return self._masks.copy()

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("action_masks", "render_mode")

    def __reduce_ex__(self, protocol):
        raise refuse_copy("MultiAgentVecEnv", "build another from the same settings")

    def __copy__(self):
        return self.__reduce_ex__(0)

    def _get_indices(self, indices) -> list[int]:
        return checked_indices(self, indices, "MultiAgentVecEnv")

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """SB3's ``seed`` (slot ``i`` seeded ``seed + i`` at the next ``reset``), the seed checked
        first: a bad one stored would fail every later ``reset``."""
        self._answerable()
        return super().seed(checked_seed(seed, "MultiAgentVecEnv"))

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """The bridge's games take no reset options: only None (or empty ones) is allowed, where
        SB3's default stored them and ``reset`` dropped them unread."""
        given = options if isinstance(options, list) else [options]
        if any(o for o in given):
            raise ValueError(f"MultiAgentVecEnv.set_options({options!r}) is not allowed: the bridge's games take no "
                             f"reset options; allowed: None")
        super().set_options(options)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        self._answerable()
        idx = list(self._get_indices(indices))
        if attr_name == "render_mode":
            return [None for _ in idx]
        if attr_name == "action_masks":
            return [(lambda i=i: self._masks[i].copy()) for i in idx]
        raise AttributeError(f"MultiAgentVecEnv slots expose only 'action_masks' and 'render_mode', not {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        self._answerable()
        raise AttributeError(f"MultiAgentVecEnv: setting {attr_name!r} on slots is not supported")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        self._answerable()
        if method_name == "action_masks":  # one copy, handed out row by row (sb3-contrib stacks them)
            rows = self._masks.copy() if indices is None else self._masks[list(self._get_indices(indices))]
            return list(rows)
        raise AttributeError(f"MultiAgentVecEnv slots support env_method('action_masks') only, not {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        self._answerable()
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        raise NotImplementedError("the Kitchen Arena envs render text; use `python -m training watch`")

    def close(self) -> None:
        """Close every copy and end the worker processes; always returns (module doc)."""
        if self._closed:
            return
        self._closed = True
        try:
            for b in self._backends:
                if isinstance(b, _Local):
                    b.group.close()
        finally:
            stop_workers([b for b in self._backends if isinstance(b, Remote)])
            self._signals = []  # the workers' named semaphores go now (a closed env may stay referenced)

    # ------------------------------------------------------------------ extras
    def add_snapshot(self, name: str, actor_state: dict) -> list[str]:
        """Add a frozen learner snapshot to every copy's self-play pool; returns the pool."""
        return self._round("add_snapshot", [(name, actor_state)] * len(self._backends))[0]

    def set_student(self, actor_state: dict | None) -> None:
        """The network (a :class:`~training.actor.NumpyActor` state) that plays the
        learner seats in :meth:`teacher_step` while the teacher labels (DAgger);
        None: the teacher plays."""
        self._round("set_student", [actor_state] * len(self._backends))

    def teacher_step(self, teacher: str, teacher_share: float = 1.0):
        """One step labelled by a scripted ``teacher`` (a policy spec) in every
        learner seat (behaviour-cloning data): the teacher's actions are played,
        or, once a student is set, the student's most likely legal actions (the
        teacher's with probability ``teacher_share``). Returns the teacher's
        ``labels`` per slot, the actions ``played`` and ``step_wait()``'s
        ``(obs, rewards, dones, infos)``; the masks of the new observations are in :meth:`action_masks`
        as after a normal step."""
        self._usable()
        if self._not_ready is not None:
            raise RuntimeError(self._not_ready)
        results = self._round("teacher_step", [(teacher, teacher_share)] * len(self._backends))
        labels = np.concatenate([r[0] for r in results])
        played = np.concatenate([r[1] for r in results])
        steps = [r[2] for r in results]
        self._masks = np.concatenate([r[4] for r in steps])
        self._alive = np.concatenate([r[3] for r in results])
        return labels, played, (np.concatenate([r[0] for r in steps]), np.concatenate([r[1] for r in steps]),
                        np.concatenate([r[2] for r in steps]), [info for r in steps for info in r[3]])

    def describe(self) -> list[dict]:
        """Per copy: current learner seats and who plays the others."""
        return [d for r in self._round("describe", [None] * len(self._backends)) for d in r]

    def __del__(self):  # best effort: never leave worker processes behind
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass
