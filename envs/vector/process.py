"""The process-parallel form of :class:`~envs.vector.batched.BatchedEnv`.

    from envs.vector import ProcessBatchedEnv
    with ProcessBatchedEnv("waroong_wars_v1", num_games=64, workers=2) as venv:
        obs, masks, infos = venv.reset(seed=0)
        obs, masks, rewards, terminated, truncated, infos = venv.step(actions)

The games are split into ``workers`` contiguous shards (default: one per
core). ``workers`` counts the processes that step games, this one included:
the calling process steps the first shard itself (a :class:`BatchedEnv`)
while ``workers - 1`` worker processes (started with ``spawn``: no state is
inherited) each hold a :class:`BatchedEnv` of one other shard. ``step``
sends the workers their slices of the actions first (one message per worker),
steps the local shard, then collects, so every core steps games at the same
time and the pipe round trip hides behind local work. A worker writes its
shard's observations, masks and ``alive`` straight into memory shared with
this process (``multiprocessing`` ``RawArray`` s, made here and handed to
the worker when it starts); its answer carries only rewards, end flags and
infos, and of the infos only what the parent cannot rebuild from the actions
it sent (:func:`pack_infos`). Before anything is sent, the whole batch is
checked against the current masks: an out-of-range or (with
``illegal_action="raise"``) illegal action of a live seat raises an
:class:`~envs.core.errors.IllegalActionError` (a ``ValueError``) naming the
game, the agent, the action and the legal ones; no game steps and the env
stays usable. Game ``i`` gets the same seed, and so plays the same game,
as in a ``BatchedEnv`` of the same size: results do not depend on ``workers``.

Waiting: after answering, a worker polls its pipe for up to ``spin_s`` seconds
before it blocks, and this process polls for each answer the same way (waking
from a blocking read cost a step of 64 games 10% on this project's virtual
machine). ``spin_s=None`` (the default) is :data:`SPIN_S` when every process
has a core of its own (this process's CPU affinity), else 0: always block.

Failures (:class:`envs.core.workers.WorkerError`, with the worker's pid and
exit code): every answer of a step or reset is read before anything is
raised, so no answer is left in a pipe for the next call.

* A worker that died (or whose pipe broke), found when a command is sent or
  an answer awaited: ``WorkerError`` with ``died=True``; the env is then
  *broken*: every later ``reset``/``step`` raises a ``WorkerError`` saying so,
  until it is closed and a new one is built.
* An exception inside a step or reset, in a worker (a ``WorkerError`` with the
  exception's type, message and traceback) or in this process's shard (the
  exception itself): the games are left in an unknown state (the other shards
  have stepped), so ``step`` refuses with a ``RuntimeError`` until ``reset()``
  succeeds (it starts every game again).
* ``close()`` always returns (a worker that does not answer is terminated,
  then killed; every process is reaped), may be called again, and after it
  ``reset``/``step`` raise a ``RuntimeError``.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from typing import Any, Mapping, Sequence

import numpy as np

from envs.core.errors import IllegalActionError
from envs.core.workers import Remote, WorkerError, first_error, refuse_if_unusable, serve, stop_workers, wait_briefly
from envs.vector.batched import _NONE, AgentInfos, BatchedEnv, all_live_legal, random_legal_actions, seeds_for

LABEL = "vector worker"
#: How long (s) a process polls for the next message before it blocks, by default (see ``spin_s``).
SPIN_S = 0.005

class _Shard:
    """A worker's games: a :class:`BatchedEnv` whose observations, masks and
    ``alive`` live in memory shared with the parent (``buffers``: three
    ``RawArray`` s made by the parent, see :func:`_buffers`), so a step's
    answer over the pipe is only the small per-game part (rewards, end flags,
    infos); the parent reads the arrays straight from the shared memory."""

    def __init__(self, env_id: str, num_games: int, env_kwargs: dict, buffers=None):
        self.venv = BatchedEnv(env_id, num_games, env_kwargs)
        if buffers is not None:
            self.venv._use_buffers(*_views(buffers, num_games, self.venv))

    def step(self, actions):
        rewards, terminated, truncated, infos = self.venv._advance(actions, checked=True)
        return rewards, terminated, truncated, pack_infos(infos, self.venv.possible_agents)

    def reset(self, seeds):
        return self.venv._reset_arrays(seeds)

    def close(self) -> None:
        self.venv.close()


def pack_infos(infos: list[dict], names: Sequence[str]) -> tuple[list[int], dict[int, dict]]:
    """A shard's step infos for the pipe: ``(ticks, whole)``. A game whose info is
    only ``{"agents": AgentInfos}`` of the fast path with every seat acting in seat
    order, no action replaced and none blocked (almost every game on almost every
    step) is sent as its tick alone: its joint action is the row of the actions the
    parent sent (:func:`unpack_infos` rebuilds it). Any other info (an episode's
    end, a replaced or blocked action, the reference path's dicts) goes whole in
    ``whole``, by game index. Pickling and unpickling every game's mapping cost the
    parent 90 µs and the worker 80-160 µs a step of 32 games."""
    ticks: list[int] = []
    whole: dict[int, dict] = {}
    names = list(names)
    for k, info in enumerate(infos):
        agents = info.get("agents")
        if (len(info) == 1 and type(agents) is AgentInfos and not agents._replaced and not agents._blocked
                and list(agents._joint) == names):
            ticks.append(agents._tick)
        else:
            ticks.append(-1)
            whole[k] = info
    return ticks, whole


def unpack_infos(packed: tuple[list[int], dict[int, dict]], rows: list[list[int]], names: Sequence[str]) -> list[dict]:
    """The infos of :func:`pack_infos` again, the joint actions from ``rows`` (the
    shard's actions as lists, seat order): equal to what the worker's shard built."""
    ticks, whole = packed
    return [whole[k] if tick < 0 else {"agents": AgentInfos(dict(zip(names, row)), _NONE, _NONE, tick)}
            for k, (tick, row) in enumerate(zip(ticks, rows))]


#: What a worker's shard answers (its arrays are in shared memory).
COMMANDS = {
    "step": lambda shard, actions: shard.step(actions),
    "reset": lambda shard, seeds: shard.reset(seeds),
    "close": lambda shard, _: shard.close(),
}


def _worker(conn, env_id: str, num_games: int, env_kwargs: dict, buffers=None, spin_s: float = 0.0) -> None:
    serve(conn, lambda: _Shard(env_id, num_games, env_kwargs, buffers), COMMANDS, spin_s=spin_s)


def _buffers(ctx, num_games: int, probe: BatchedEnv) -> tuple:
    """Shared memory for one shard: observations, masks, alive (raw bytes; :func:`_views` shapes them)."""
    p = probe.num_seats
    return (ctx.RawArray("b", num_games * p * probe.obs_size * 4), ctx.RawArray("b", num_games * p * probe.n_actions),
            ctx.RawArray("b", num_games * p))


def _views(buffers: tuple, num_games: int, shape_of) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy arrays over a shard's shared memory: ``(obs, masks, alive)``."""
    o, m, a = buffers
    p = shape_of.num_seats
    return (np.frombuffer(o, dtype=np.float32).reshape(num_games, p, shape_of.obs_size),
            np.frombuffer(m, dtype=np.int8).reshape(num_games, p, shape_of.n_actions),
            np.frombuffer(a, dtype=np.bool_).reshape(num_games, p))


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _spin(spin_s: float | None, workers: int) -> float:
    """``spin_s`` checked, or the default: :data:`SPIN_S` when every process has a
    core of its own (this process's CPU affinity), else 0 (a process that polls
    would take a core another one needs)."""
    if spin_s is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return SPIN_S if workers <= cores else 0.0
    if isinstance(spin_s, bool) or not isinstance(spin_s, (int, float)) or not 0 <= spin_s <= 1:
        raise ValueError(f"spin_s must be a number of seconds from 0 to 1 (0: always block), got {spin_s!r}")
    return float(spin_s)


class ProcessBatchedEnv:
    """``num_games`` games of one env over ``workers`` processes (see module doc)."""

    def __init__(self, env_id: str, num_games: int, workers: int | None = None,
                 env_kwargs: Mapping[str, Any] | None = None, spin_s: float | None = None):
        self._closed = False  # first: close() (and __del__) work whatever fails below
        self._local: BatchedEnv | None = None
        self._remotes: list[Remote] = []
        self._shared: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # each worker's (obs, masks, alive)
        num_games = _count("num_games", num_games)
        workers = _count("workers", (os.cpu_count() or 1) if workers is None else workers)
        workers = min(workers, num_games)
        self.spin_s = _spin(spin_s, workers)
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs or {})
        self.num_games = num_games
        probe = BatchedEnv(env_id, 1, self.env_kwargs)  # spaces and sizes, and a config check here
        self.possible_agents = probe.possible_agents
        self.num_seats, self.obs_size, self.n_actions = probe.num_seats, probe.obs_size, probe.n_actions
        self.observation_space, self.action_space = probe.observation_space, probe.action_space
        probe.close()
        self._raise_illegal = probe.envs[0].illegal_action == "raise"
        self._action_names = list(probe.envs[0].action_table.names(range(self.n_actions)))
        bounds = np.linspace(0, self.num_games, workers + 1).round().astype(int)
        self._slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self.alive = np.zeros((self.num_games, self.num_seats), dtype=bool)
        self._masks = np.zeros((self.num_games, self.num_seats, self.n_actions), dtype=np.int8)
        self._flat_rows = np.arange(self.num_games * self.num_seats)
        self._broken: WorkerError | None = None  # a worker died: only close() is left
        self._not_ready: str | None = "call reset() before step()"  # why step() refuses now
        try:
            self._local = BatchedEnv(env_id, self._slices[0].stop, self.env_kwargs)
            ctx = mp.get_context("spawn")
            for sl in self._slices[1:]:
                size = sl.stop - sl.start
                buffers = _buffers(ctx, size, probe)
                self._remotes.append(Remote(ctx, _worker, (env_id, size, self.env_kwargs, buffers, self.spin_s), LABEL))
                self._shared.append(_views(buffers, size, probe))
            for r in self._remotes:
                r.recv()  # built (or the worker's error)
        except BaseException:
            self.close()
            raise

    @property
    def workers(self) -> int:
        """Processes stepping games, this one included."""
        return 1 + len(self._remotes)

    @property
    def _procs(self) -> list:
        return [r.proc for r in self._remotes]

    # ------------------------------------------------------------------ one command to every shard
    def _usable(self) -> None:
        refuse_if_unusable("ProcessBatchedEnv", self._closed, self._broken)

    def _round(self, cmd: str, datas: list, local):
        """Send ``cmd`` with ``datas[k]`` to worker ``k``, run ``local()`` here
        meanwhile, read every answer; returns ``[local result, *answers]`` or
        raises (see the module doc for what each failure leaves)."""
        self._usable()
        sent = 0
        try:
            for r, data in zip(self._remotes, datas):
                r.send(cmd, data)
                sent += 1
        except BaseException as e:
            # a dead worker, or interrupted mid-send: the pipes cannot be trusted any more
            self._broken = e if isinstance(e, WorkerError) else WorkerError(
                f"interrupted ({type(e).__name__}) while sending {cmd!r} to {LABEL} {self._remotes[sent].proc.pid}",
                label=LABEL, pid=self._remotes[sent].proc.pid, died=True)
            raise
        errors: list[BaseException] = []
        parts: list[Any] = []
        try:
            parts.append(local())
        except BaseException as e:  # noqa: BLE001 - raised below, once every answer is read
            errors.append(e)
        for r in self._remotes:
            try:
                if self.spin_s:
                    wait_briefly(r.conn, self.spin_s)
                parts.append(r.recv())
            except WorkerError as e:
                errors.append(e)
            except BaseException as e:  # interrupted mid-read: the pipe cannot be trusted any more
                self._broken = WorkerError(f"interrupted ({type(e).__name__}) while reading {LABEL} {r.proc.pid}",
                                           label=LABEL, pid=r.proc.pid, died=True)
                raise
        if errors:
            err = first_error(errors)
            if isinstance(err, WorkerError) and err.died:
                self._broken = err
            else:
                self._not_ready = (f"the last {cmd} failed ({type(err).__name__}: {str(err).splitlines()[0]}) and left "
                                   f"the games in an unknown state; call reset() before step()")
            raise err
        return parts

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | Sequence[int | None] | None = None):
        self._usable()
        seeds = seeds_for(seed, self.num_games)
        bad = [(i, s) for i, s in enumerate(seeds) if s is not None and s < 0]
        if bad:
            raise ValueError(f"seeds must be non-negative integers or None, got {bad[0][1]} for game {bad[0][0]}")
        local = self._local
        sl0 = self._slices[0]
        parts = self._round("reset", [seeds[sl] for sl in self._slices[1:]], lambda: local._reset_arrays(seeds[sl0]))
        obs, self._masks, self.alive = self._gather()
        self._not_ready = None
        return obs, self._masks.copy(), [info for p in parts for info in p]

    def _gather(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every shard's observations, masks and alive, stacked (fresh arrays):
        this process's shard from its arrays, the workers' from shared memory."""
        local = self._local
        if not self._shared:
            return local._obs.copy(), local._masks.copy(), local.alive.copy()
        shards = [(local._obs, local._masks, local.alive), *self._shared]
        return tuple(np.concatenate([sh[k] for sh in shards]) for k in range(3))

    def _check(self, acts: np.ndarray) -> None:
        if self._not_ready is not None:
            raise RuntimeError(self._not_ready)
        if acts.shape != (self.num_games, self.num_seats):
            raise ValueError(f"actions must have shape (num_games, num_seats) = {(self.num_games, self.num_seats)}, "
                             f"got {acts.shape}")
        if not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be integers (indices into Discrete({self.n_actions})), got dtype {acts.dtype}")
        n = self.n_actions
        flat = acts.reshape(-1)
        if not self._raise_illegal and flat.min() >= 0 and flat.max() < n:
            return  # in range is all that "noop" asks here
        if self._raise_illegal and all_live_legal(self._masks.reshape(-1, n), self._flat_rows, acts, self.alive):
            return
        out = (acts < 0) | (acts >= n)
        wrong = out if not self._raise_illegal else \
            out | (np.take_along_axis(self._masks, np.clip(acts, 0, n - 1)[..., None], -1)[..., 0] == 0)
        wrong &= self.alive
        if wrong.any():
            i, p = (int(x) for x in np.argwhere(wrong)[0])
            a = int(acts[i, p])
            legal = [self._action_names[k] for k in np.flatnonzero(self._masks[i, p])]
            why = f"out of range: valid indices are 0..{n - 1}" if out[i, p] else \
                f"{self._action_names[a]} is not legal now; legal: {legal}"
            raise IllegalActionError(f"game {i}, {self.possible_agents[p]}: action {a} is {why}; no game was stepped")

    def step(self, actions: np.ndarray):
        self._usable()
        acts = np.asarray(actions)
        self._check(acts)
        local = self._local
        sl0 = self._slices[0]
        parts = self._round("step", [acts[sl] for sl in self._slices[1:]],
                            lambda: local._advance(acts[sl0], checked=True))
        obs, self._masks, self.alive = self._gather()
        if len(parts) == 1:
            rewards, terminated, truncated, infos = parts[0]
        else:
            rewards, terminated, truncated = (np.concatenate([p[k] for p in parts]) for k in range(3))
            rows, names = acts.tolist(), self.possible_agents
            infos = list(parts[0][3])
            for sl, part in zip(self._slices[1:], parts[1:]):
                infos += unpack_infos(part[3], rows[sl], names)
        return obs, self._masks.copy(), rewards, terminated, truncated, infos

    def random_actions(self, rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
        """Uniformly random legal actions ``(N, P)`` for ``masks``."""
        return random_legal_actions(rng, masks)

    def close(self) -> None:
        """Close every shard and end the worker processes; always returns (see the module doc)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._local is not None:
                self._local.close()
        finally:
            stop_workers(self._remotes)

    def __enter__(self) -> "ProcessBatchedEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
