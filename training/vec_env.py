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
  (every copy draws from its own generator).
* Seeding: ``seed(s)`` (as SB3's ``set_random_seed`` calls it) seeds slot
  ``i`` with ``s + i``; copy ``c`` takes the seed of its first slot at the
  next ``reset()``. Unseeded copies derive their seed from ``settings.seed``.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from envs.core.workers import dispatch, one_blas_thread, receive

from training.copies import BridgeSettings, CopyGroup
from training.worker import COMMANDS, worker_main


class _Remote:
    """The main-process end of one worker."""

    def __init__(self, ctx, settings: BridgeSettings, copy_indices: list[int]):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, settings, copy_indices), daemon=True)
        self.proc.start()
        child.close()

    def send(self, cmd: str, data: Any = None) -> None:
        self.conn.send((cmd, data))

    def recv(self) -> Any:
        return receive(self.conn, self.proc, "bridge worker")

    def call(self, cmd: str, data: Any = None) -> Any:
        self.send(cmd, data)
        return self.recv()


class _Local:
    """Same interface as :class:`_Remote`, in this process."""

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


class MultiAgentVecEnv(VecEnv):
    """See the module docstring."""

    def __init__(self, settings: BridgeSettings, n_copies: int, workers: int = 1):
        if n_copies < 1:
            raise ValueError(f"n_copies must be >= 1, got {n_copies}")
        self.settings = settings
        self.n_copies = n_copies
        self.workers = max(1, int(workers))
        probe = settings.env_spec.make()
        from training.obs import SeatEncoder

        enc = SeatEncoder.for_env(probe, settings.normalize)
        self.agents = list(probe.possible_agents)
        self.k = min(settings.seating.learners, len(self.agents))
        self._parts = split(n_copies, self.workers)
        self._backends: list[Any] = []
        self._closed = False
        try:
            self._backends = [_Local(settings, self._parts[0])]
            if len(self._parts) > 1:
                ctx = mp.get_context("spawn")
                with one_blas_thread():
                    remotes = [_Remote(ctx, settings, part) for part in self._parts[1:]]
                self._backends += remotes
                for b in remotes:
                    b.recv()  # construction report (raises the worker's error if any)
        except BaseException:
            self.close()
            raise
        self._slots_per_backend = [len(p) * self.k for p in self._parts]
        self._masks = np.ones((n_copies * self.k, enc.n_actions), dtype=bool)
        self._actions: np.ndarray | None = None
        super().__init__(n_copies * self.k, enc.space, spaces.Discrete(enc.n_actions))

    # ------------------------------------------------------------------ VecEnv API
    def reset(self):
        seeds = [self._seeds[c * self.k] for c in range(self.n_copies)]
        for b, part in zip(self._backends, self._parts):
            b.send("reset", [seeds[c] for c in part])
        results = [b.recv() for b in self._backends]
        self._reset_seeds()
        self._reset_options()
        obs = np.concatenate([r[0] for r in results])
        self._masks = np.concatenate([r[1] for r in results])
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(-1)
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {actions.shape[0]}")
        start = 0
        for b, n in zip(self._backends, self._slots_per_backend):
            b.send("step", actions[start:start + n])
            start += n

    def step_wait(self):
        results = [b.recv() for b in self._backends]
        obs = np.concatenate([r[0] for r in results])
        rewards = np.concatenate([r[1] for r in results])
        dones = np.concatenate([r[2] for r in results])
        infos = [info for r in results for info in r[3]]
        self._masks = np.concatenate([r[4] for r in results])
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action masks of the current observations, ``(num_envs, A)``."""
        return self._masks.copy()

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("action_masks", "render_mode")

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        idx = list(self._get_indices(indices))
        if attr_name == "render_mode":
            return [None for _ in idx]
        if attr_name == "action_masks":
            return [(lambda i=i: self._masks[i].copy()) for i in idx]
        raise AttributeError(f"MultiAgentVecEnv slots expose only 'action_masks' and 'render_mode', not {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"MultiAgentVecEnv: setting {attr_name!r} on slots is not supported")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            return [self._masks[i].copy() for i in self._get_indices(indices)]
        raise AttributeError(f"MultiAgentVecEnv slots support env_method('action_masks') only, not {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        raise NotImplementedError("the Kitchen Arena envs render text; use `python -m training watch`")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for b in self._backends:
            try:
                b.call("close")
            except Exception:  # noqa: BLE001 - closing a dead worker
                pass
            proc = getattr(b, "proc", None)
            if proc is not None:
                proc.join(timeout=5)
                if proc.is_alive():
                    proc.terminate()

    # ------------------------------------------------------------------ extras
    def add_snapshot(self, name: str, actor_state: dict) -> list[str]:
        """Add a frozen learner snapshot to every copy's self-play pool; returns the pool."""
        for b in self._backends:
            b.send("add_snapshot", (name, actor_state))
        return [b.recv() for b in self._backends][0]

    def set_student(self, actor_state: dict | None) -> None:
        """The network (a :class:`~training.actor.NumpyActor` state) that plays the
        learner seats in :meth:`teacher_step` while the teacher labels (DAgger);
        None: the teacher plays."""
        for b in self._backends:
            b.send("set_student", actor_state)
        for b in self._backends:
            b.recv()

    def teacher_step(self, teacher: str, teacher_share: float = 1.0):
        """One step labelled by a scripted ``teacher`` (a policy spec) in every
        learner seat (behaviour-cloning data): the teacher's actions are played,
        or, once a student is set, the student's most likely legal actions (the
        teacher's with probability ``teacher_share``). Returns the teacher's
        ``labels`` per slot, the actions ``played`` and ``step_wait()``'s
        ``(obs, rewards, dones, infos)``; the masks of the new observations are in :meth:`action_masks`
        as after a normal step."""
        for b in self._backends:
            b.send("teacher_step", (teacher, teacher_share))
        results = [b.recv() for b in self._backends]
        labels = np.concatenate([r[0] for r in results])
        played = np.concatenate([r[1] for r in results])
        steps = [r[2] for r in results]
        self._masks = np.concatenate([r[4] for r in steps])
        return labels, played, (np.concatenate([r[0] for r in steps]), np.concatenate([r[1] for r in steps]),
                        np.concatenate([r[2] for r in steps]), [info for r in steps for info in r[3]])

    def describe(self) -> list[dict]:
        """Per copy: current learner seats and who plays the others."""
        return [d for b in self._backends for d in b.call("describe")]

    def __del__(self):  # best effort: never leave worker processes behind
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass
