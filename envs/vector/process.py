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
sends the workers their command first (one message per worker), steps the
local shard, then collects, so every core steps games at the same time and
the pipe round trip hides behind local work. Every shard's arrays live in one
block of memory shared by all the processes (:class:`_Block`:
``multiprocessing`` ``RawArray`` s, made here and handed to each worker when
it starts), each shard in its own rows: the actions (written here before the
command is sent), the observations, masks and ``alive``, the rewards and end
flags, each game's tick and blocked seats (:func:`pack_infos`), and the final
observation and masks of a game that ended. A worker answers a step by
releasing a semaphore of its own; only the infos that cannot be rebuilt here
from the actions sent (an episode's end, a replaced action) and errors still
travel through the pipe, and a status word in the block says when to read it.
The pipe's messages and the semaphore order each process's reads of the
block after the other's writes. Before anything is sent, the whole batch is
checked against the current masks: with ``illegal_action="raise"`` an
out-of-range or illegal action of a live seat raises an
:class:`~envs.core.errors.IllegalActionError` (a ``ValueError``) naming the
game, the agent, the action and the legal ones; no game steps and the env
stays usable. With ``"noop"`` it is replaced (and flagged ``illegal_replaced``)
as in :class:`BatchedEnv` and a single env, an index out of range included.
Game ``i`` gets the same seed, and so plays the same game, as in a
``BatchedEnv`` of the same size: results do not depend on ``workers``.

Waiting: after answering, a worker polls its pipe for up to ``spin_s`` seconds
before it blocks, and this process polls each worker's semaphore (a reset's
answer: its pipe) the same way (waking from a blocking read cost a step of 64
games 10% on this project's virtual machine; reading a step's answer from the
pipe, 20-60 µs more than the semaphore and the block, on each side). While
blocked on a step's answer it looks every
:data:`envs.core.workers.ANSWER_CHECK_S` whether the worker died.
``spin_s=None`` (the default) is :data:`envs.core.workers.SPIN_S` when every process
has a core of its own (this process's CPU affinity), else 0: always block.

Failures (:class:`envs.core.workers.WorkerError`, with the worker's pid and
exit code): every answer of a step or reset is read before anything is
raised, so no answer is left in a pipe for the next call.

* A worker that died (or whose pipe broke), found when a command is sent or
  an answer awaited: ``WorkerError`` with ``died=True``; the env is then
  *broken*: every later ``reset``/``step`` raises a ``WorkerError`` saying so,
  until it is closed and a new one is built.
* With ``timeout_s`` (default None: no limit), a worker still running that has
  not answered a command within that many seconds (stuck, or stopped) is
  killed and reported the same way (``... did not answer within T s (stuck,
  or slower than the timeout allows); it was stopped ...``): the env is broken,
  where without it the call would wait for ever.
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
from envs.core.inputs import first_line
from envs.core.workers import (ANSWERED, Remote, WorkerError, answer_step, check_timeout, default_spin, die_with_parent,
                               first_error, read_answer, refuse_copy, refuse_if_unusable, serve, shared_arrays,
                               shared_buffers, status_word, stop_workers)
from envs.vector.batched import (_NONE, MAX_BATCH_GAMES, AgentInfos, BatchedEnv, action_array, all_live_legal,
                                 check_count, env_options, random_action_inputs, random_legal_actions, read_only,
                                 seeds_for)

LABEL = "vector worker"

class _Shard:
    """A worker's games: a :class:`BatchedEnv` whose arrays are its rows of the
    batch's :class:`_Block` in memory shared with the parent: it reads a step's
    actions there and writes the observations, masks, ``alive``, rewards, end
    flags and ticks there, so a step's message over the pipe is the command alone
    and the answer only the infos that :func:`pack_infos` cannot reduce to a tick
    (almost always none). The pipe's messages and the semaphore ``done`` order the
    two processes' reads and writes of the block."""

    def __init__(self, env_id: str, rows: slice, env_kwargs: dict, buffers: dict, signal: tuple):
        self.venv = BatchedEnv(env_id, rows.stop - rows.start, env_kwargs)
        self.block = _Block.over(buffers, self.venv).rows(rows)
        self.venv._use_buffers(self.block.obs, self.block.masks, self.block.alive)  # (the block's own, writable)
        self.done, self.status = signal[0], status_word(buffers["status"], signal[1])

    def replied(self, cmd: str, sent: bool) -> None:
        """After a step's answer: say in the shared status whether the parent must read the
        pipe (1: the infos that went whole, or the step's error) or not (0), then release
        the parent (``done``)."""
        if cmd == "step":
            answer_step(self.status, self.done, sent)

    def step(self):
        """One step of the shard's games with the actions in the block; writes the rest of the
        answer into the block and returns :data:`ANSWERED`, or the infos that go whole
        (:func:`pack_infos`), their final arrays written into the block."""
        block = self.block
        rewards, terminated, truncated, infos = self.venv._advance(block.actions, checked=True)
        ticks, blocked, whole = pack_infos(infos, self.venv.possible_agents)
        block.rewards[...] = rewards
        block.terminated[...] = terminated
        block.truncated[...] = truncated
        block.ticks[...] = ticks
        block.blocked[...] = blocked
        if not whole:
            return ANSWERED
        for k, info in whole.items():  # an episode's end: its final arrays go through the block too
            for key in _FINAL:
                if key in info:
                    getattr(block, key)[k] = info[key]
                    info[key] = None  # (the key keeps its place; the parent reads the block)
        return whole

    def reset(self, seeds):
        return self.venv._reset_arrays(seeds)

    def close(self) -> None:
        self.venv.close()


def pack_infos(infos: list[dict], names: Sequence[str]) -> tuple[list[int], list[int], dict[int, dict]]:
    """A shard's step infos for the parent: ``(ticks, blocked, whole)``. A game whose
    info is only ``{"agents": AgentInfos}`` of the fast path with every seat acting in
    seat order and no action replaced (almost every game on almost every step) is
    sent as its tick and a bit mask of the seats whose action was blocked (bit ``s``:
    seat ``s``; the info says only *whether* an action was blocked): its joint action
    is the row of the actions the parent sent (:func:`unpack_infos` rebuilds it). Any
    other info (an episode's end, a replaced action, the reference path's dicts) goes
    whole in ``whole``, by game index, with tick -1. Pickling and unpickling every
    game's mapping cost the parent 90 µs and the worker 80-160 µs a step of 32 games;
    sending Wok Star's blocked actions (a third of the games of a random batch) whole
    cost each side about 50 µs."""
    ticks: list[int] = []
    blocked: list[int] = []
    whole: dict[int, dict] = {}
    names = list(names)
    for k, info in enumerate(infos):
        agents = info.get("agents")
        if len(info) == 1 and type(agents) is AgentInfos and not agents._replaced and list(agents._joint) == names:
            ticks.append(agents._tick)
            stopped = agents._blocked
            blocked.append(sum(1 << s for s, a in enumerate(names) if a in stopped) if stopped else 0)
        else:
            ticks.append(-1)
            blocked.append(0)
            whole[k] = info
    return ticks, blocked, whole


def unpack_infos(packed: tuple[list[int], list[int], dict[int, dict]], rows: list[list[int]],
                 names: Sequence[str]) -> list[dict]:
    """The infos of :func:`pack_infos` again, the joint actions from ``rows`` (the
    shard's actions as lists, seat order): equal to what the worker's shard built."""
    ticks, blocked, whole = packed
    out = []
    for k, (tick, bits, row) in enumerate(zip(ticks, blocked, rows)):
        if tick < 0:
            out.append(whole[k])
        else:
            stopped = frozenset(a for s, a in enumerate(names) if bits >> s & 1) if bits else _NONE
            out.append({"agents": AgentInfos(dict(zip(names, row)), _NONE, stopped, tick)})
    return out


#: What a worker's shard answers (its arrays are in shared memory).
COMMANDS = {
    "step": lambda shard, _: shard.step(),  # the actions are in the shared block
    "reset": lambda shard, seeds: shard.reset(seeds),
    "close": lambda shard, _: shard.close(),
}


def _worker(conn, env_id: str, rows: slice, env_kwargs: dict, buffers: dict, spin_s: float, signal: tuple) -> None:
    """A worker process: the shard of games ``rows`` over the shared ``buffers``; ``signal``:
    its ``(done semaphore, status index)``."""
    die_with_parent()  # (a sibling forked from the parent holds the pipe open: its end would not show)
    serve(conn, lambda: _Shard(env_id, rows, env_kwargs, buffers, signal), COMMANDS,
          spin_s=spin_s, replied=lambda cmd, shard, sent: shard.replied(cmd, sent))


#: The arrays of a :class:`_Block`: name -> (dtype, shape after the game axis, in units of
#: (seats, observation size, actions)).
_BLOCK = {
    "obs": (np.float32, ("p", "d")), "masks": (np.int8, ("p", "a")), "alive": (np.bool_, ("p",)),
    "actions": (np.int64, ("p",)), "rewards": (np.float64, ("p",)), "terminated": (np.bool_, ("p",)),
    "truncated": (np.bool_, ("p",)), "ticks": (np.int64, ()), "blocked": (np.int64, ()),
    "final_observation": (np.float32, ("p", "d")), "final_action_mask": (np.int8, ("p", "a")),
}


#: The arrays of an episode's end in its info that a worker writes into the block (a game's final
#: observation and masks: 8 kB of Wok Star's, and most steps of a batch end some game).
_FINAL = ("final_observation", "final_action_mask")


def _sizes(shape_of) -> dict[str, int]:
    """The sizes :data:`_BLOCK`'s dims name (``shape_of``: a BatchedEnv of the env)."""
    return {"p": shape_of.num_seats, "d": shape_of.obs_size, "a": shape_of.n_actions}


class _Block:
    """numpy arrays over the shared memory of :data:`_BLOCK` (:func:`envs.core.workers.shared_buffers`,
    with a ``status`` word per worker), one attribute per entry, each with the game axis first;
    :meth:`rows` takes a shard's games."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        for name, arr in arrays.items():
            setattr(self, name, arr)

    @classmethod
    def over(cls, buffers: dict, shape_of) -> "_Block":
        """The arrays of every game over ``buffers`` (``shape_of``: a BatchedEnv of the env, for the sizes)."""
        return cls(shared_arrays(buffers, _BLOCK, _sizes(shape_of)))

    def rows(self, sl: slice) -> "_Block":
        return _Block({name: arr[sl] for name, arr in self.arrays.items()})


class ProcessBatchedEnv:
    """``num_games`` games of one env over ``workers`` processes (see module doc)."""

    def __init__(self, env_id: str, num_games: int, workers: int | None = None,
                 env_kwargs: Mapping[str, Any] | None = None, spin_s: float | None = None,
                 timeout_s: float | None = None):
        self._closed = False  # first: close() (and __del__) work whatever fails below
        self._pid = os.getpid()  # the process whose workers these are (a fork's child may not use them)
        self._local: BatchedEnv | None = None
        self._remotes: list[Remote] = []
        self._signals: list[tuple] = []  # each worker's (done semaphore, status word): how a step answers
        self._block: _Block | None = None  # the shared arrays of every shard (with worker processes)
        num_games = check_count("num_games", num_games, MAX_BATCH_GAMES)
        workers = check_count("workers", (os.cpu_count() or 1) if workers is None else workers)
        workers = min(workers, num_games)
        self.spin_s = default_spin(spin_s, workers)
        self.timeout_s = check_timeout(timeout_s)
        self.env_id = env_id
        self.env_kwargs = env_options(env_kwargs)
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
        self._flat_rows = np.arange(self.num_games * self.num_seats)
        self._broken: WorkerError | None = None  # a worker died: only close() is left
        self._not_ready: str | None = "call reset() before step()"  # why step() refuses now
        try:
            self._local = local = BatchedEnv(env_id, self._slices[0].stop, self.env_kwargs)
            if len(self._slices) > 1:  # every game's rows in one shared block: each shard writes its own
                ctx = mp.get_context("spawn")
                buffers = shared_buffers(ctx, self.num_games, _BLOCK, _sizes(probe), len(self._slices) - 1)
                block = self._block = _Block.over(buffers, probe)
                local._use_buffers(*(view[self._slices[0]] for view in (block.obs, block.masks, block.alive)))
                for k, sl in enumerate(self._slices[1:]):
                    done = ctx.Semaphore(0)
                    self._signals.append((done, status_word(buffers["status"], k)))
                    self._remotes.append(Remote(ctx, _worker, (env_id, sl, self.env_kwargs, buffers, self.spin_s,
                                                               (done, k)), LABEL, self.timeout_s))
            # the whole batch's arrays, written in place by the shards' steps (this process reads
            # them between steps only, when no shard writes)
            self._obs, self._masks, self._alive = local._obs, local._masks, local._alive
            if self._block is not None:
                self._obs, self._masks, self._alive = self._block.obs, self._block.masks, self._block.alive
            self._alive_view = read_only(self._alive)
            for r in self._remotes:
                r.recv()  # built (or the worker's error)
        except BaseException:
            self.close()
            raise

    @property
    def alive(self) -> np.ndarray:
        """``(N, P)`` bool: the seats that act in the current state (a read-only view, as
        :attr:`BatchedEnv.alive`: the check of every step reads the array behind it)."""
        return self._alive_view

    @property
    def num_agent_slots(self) -> int:
        return self.num_games * self.num_seats

    @property
    def workers(self) -> int:
        """Processes stepping games, this one included."""
        return 1 + len(self._remotes)

    @property
    def _procs(self) -> list:
        return [r.proc for r in self._remotes]

    # ------------------------------------------------------------------ one command to every shard
    def _usable(self) -> None:
        refuse_if_unusable("ProcessBatchedEnv", self._closed, self._broken, self._pid)

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
        for k, r in enumerate(self._remotes):
            try:
                # a step's answer is in the shared block; the pipe holds only what went whole
                parts.append(read_answer(r, cmd, self._signals[k], self.spin_s))
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
                self._not_ready = (f"the last {cmd} failed ({type(err).__name__}: {first_line(err)}) and left "
                                   f"the games in an unknown state; call reset() before step()")
            raise err
        return parts

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | Sequence[int | None] | None = None):
        self._usable()
        seeds = seeds_for(seed, self.num_games)
        local = self._local
        sl0 = self._slices[0]
        parts = self._round("reset", [seeds[sl] for sl in self._slices[1:]], lambda: local._reset_arrays(seeds[sl0]))
        self._not_ready = None
        return self._obs.copy(), self._masks.copy(), [info for p in parts for info in p]

    def _check(self, acts: np.ndarray) -> np.ndarray:
        """``acts`` checked as :class:`BatchedEnv` checks them, as the int64 array the shards read. With
        ``illegal_action="noop"`` an index out of range is passed on as it is (each shard's engine
        replaces it with ``noop`` and flags ``illegal_replaced``, its reason naming it, as a single env
        does); one past int64 (a ``uint64``) becomes -1, the one value the shared block cannot hold."""
        if self._not_ready is not None:
            raise RuntimeError(self._not_ready)
        if acts.shape != (self.num_games, self.num_seats):
            raise ValueError(f"actions must have shape (num_games, num_seats) = {(self.num_games, self.num_seats)}, "
                             f"got {acts.shape}")
        if acts.dtype.kind not in "iu":  # (as BatchedEnv: numpy files timedelta64 under its integers)
            raise ValueError(f"actions must be integers (indices into Discrete({self.n_actions})), got dtype {acts.dtype}")
        n = self.n_actions
        flat = acts.reshape(-1)
        if not self._raise_illegal:
            if flat.min() >= 0 and flat.max() < n:
                return acts  # in range is all that "noop" asks here
            if acts.dtype.kind == "u" and flat.max() > np.iinfo(np.int64).max:
                clean = np.full(acts.shape, -1, np.int64)
                fits = acts <= np.iinfo(np.int64).max
                clean[fits] = acts[fits]
                return clean
            return acts.astype(np.int64, copy=False)
        if all_live_legal(self._masks.reshape(-1, n), self._flat_rows, acts, self._alive):
            return acts
        out = (acts < 0) | (acts >= n)
        wrong = out if not self._raise_illegal else \
            out | (np.take_along_axis(self._masks, np.clip(acts, 0, n - 1)[..., None], -1)[..., 0] == 0)
        wrong &= self._alive
        if wrong.any():
            i, p = (int(x) for x in np.argwhere(wrong)[0])
            a = int(acts[i, p])
            legal = [self._action_names[k] for k in np.flatnonzero(self._masks[i, p])]
            why = f"is out of range: valid indices are 0..{n - 1}" if out[i, p] else \
                f"({self._action_names[a]}) is not legal now; legal: {legal}"
            raise IllegalActionError(f"game {i}, {self.possible_agents[p]}: action {a} {why}; no game was stepped")
        return acts

    def step(self, actions: np.ndarray):
        self._usable()
        acts = self._check(action_array(actions, self.num_games, self.num_seats))
        local, block = self._local, self._block
        sl0 = self._slices[0]
        if block is not None:  # the workers read their actions from the block (written before the pipe's message)
            block.actions[sl0.stop:] = acts[sl0.stop:]
        parts = self._round("step", [None] * len(self._remotes), lambda: local._advance(acts[sl0], checked=True))
        rewards, terminated, truncated, infos = parts[0]
        if block is not None:
            rest = slice(sl0.stop, None)
            rewards = np.concatenate([rewards, block.rewards[rest]])
            terminated = np.concatenate([terminated, block.terminated[rest]])
            truncated = np.concatenate([truncated, block.truncated[rest]])
            rows, names = acts.tolist(), self.possible_agents
            infos = list(infos)
            for sl, whole in zip(self._slices[1:], parts[1:]):
                for k, info in whole.items():
                    for key in _FINAL:
                        if key in info:
                            info[key] = getattr(block, key)[sl.start + k].copy()
                infos += unpack_infos((block.ticks[sl].tolist(), block.blocked[sl].tolist(), whole), rows[sl], names)
        return self._obs.copy(), self._masks.copy(), rewards, terminated, truncated, infos

    def random_actions(self, rng: np.random.Generator, masks: np.ndarray | None = None) -> np.ndarray:
        """Uniformly random legal actions ``(N, P)`` for ``masks`` (default: the current ones), as
        :meth:`BatchedEnv.random_actions`."""
        shape = (self.num_games, self.num_seats, self.n_actions)
        return random_legal_actions(rng, random_action_inputs(rng, self._masks if masks is None else masks, shape))

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
            # the workers' semaphores (named, in /dev/shm) go now, not when this object is collected:
            # a closed env that stays referenced (an SB3 model's env, a sweep's list) held them
            self._signals = []

    def __reduce_ex__(self, protocol):
        raise refuse_copy("ProcessBatchedEnv", "build another with the same arguments (the in-process BatchedEnv "
                                               "copies and pickles mid-game)")

    def __copy__(self):
        return self.__reduce_ex__(0)

    def __repr__(self) -> str:
        return (f"ProcessBatchedEnv({self.env_id!r}, num_games={self.num_games}, workers={self.workers}, "
                f"env_kwargs={self.env_kwargs})")

    def __enter__(self) -> "ProcessBatchedEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
