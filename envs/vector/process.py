"""The process-parallel form of :class:`~envs.vector.batched.BatchedEnv`.

    from envs.vector import ProcessBatchedEnv
    with ProcessBatchedEnv("waroong_wars_v0", num_games=64, workers=2) as venv:
        obs, masks, infos = venv.reset(seed=0)
        obs, masks, rewards, terminated, truncated, infos = venv.step(actions)

The games are split into ``workers`` contiguous shards (default: one per
core); each worker process (started with ``spawn``: no state is inherited)
holds a :class:`BatchedEnv` of its shard. ``step`` sends every worker its
slice of the actions first and then collects the results, so the shards step
at the same time. Game ``i`` gets the same seed, and so plays the same game,
as in a ``BatchedEnv`` of the same size: results do not depend on ``workers``.
An exception in a worker is raised here as :class:`VectorWorkerError` with the
worker's traceback.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import traceback
from typing import Any, Mapping, Sequence

import numpy as np

from envs.vector.batched import BatchedEnv, random_legal_actions, seeds_for


class VectorWorkerError(RuntimeError):
    """An exception raised inside a worker process (message and traceback included)."""


def _worker(conn, env_id: str, num_games: int, env_kwargs: dict) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and closes us
    try:
        venv = BatchedEnv(env_id, num_games, env_kwargs)
    except BaseException as e:  # noqa: BLE001
        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        return
    conn.send(("ok", None))
    while True:
        try:
            cmd, data = conn.recv()
        except EOFError:
            return
        try:
            if cmd == "step":
                conn.send(("ok", (*venv.step(data), venv.alive.copy())))
            elif cmd == "reset":
                conn.send(("ok", (*venv.reset(data), venv.alive.copy())))
            elif cmd == "close":
                venv.close()
                conn.send(("ok", None))
                return
            else:
                conn.send(("error", f"unknown command {cmd!r}"))
        except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))


class ProcessBatchedEnv:
    """``num_games`` games of one env over ``workers`` processes (see module doc)."""

    def __init__(self, env_id: str, num_games: int, workers: int | None = None,
                 env_kwargs: Mapping[str, Any] | None = None):
        workers = int(workers or os.cpu_count() or 1)
        if int(num_games) < 1 or workers < 1:
            raise ValueError(f"need num_games >= 1 and workers >= 1, got {num_games} and {workers}")
        workers = min(workers, int(num_games))
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs or {})
        self.num_games = int(num_games)
        probe = BatchedEnv(env_id, 1, self.env_kwargs)  # spaces and sizes, and a config check here
        self.possible_agents = probe.possible_agents
        self.num_seats, self.obs_size, self.n_actions = probe.num_seats, probe.obs_size, probe.n_actions
        self.observation_space, self.action_space = probe.observation_space, probe.action_space
        probe.close()
        bounds = np.linspace(0, self.num_games, workers + 1).round().astype(int)
        self._slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        ctx = mp.get_context("spawn")
        self._conns, self._procs = [], []
        for sl in self._slices:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, env_id, sl.stop - sl.start, self.env_kwargs), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        self._closed = False
        for i in range(len(self._conns)):
            self._recv(i)
        self.alive = np.zeros((self.num_games, self.num_seats), dtype=bool)

    @property
    def workers(self) -> int:
        return len(self._procs)

    def _recv(self, i: int) -> Any:
        try:
            status, payload = self._conns[i].recv()
        except EOFError as e:
            raise VectorWorkerError(f"worker {self._procs[i].pid} died (exit code {self._procs[i].exitcode})") from e
        if status != "ok":
            raise VectorWorkerError(f"in worker {self._procs[i].pid}: {payload}")
        return payload

    def _gather(self) -> list:
        return [self._recv(i) for i in range(len(self._conns))]

    def reset(self, seed: int | Sequence[int | None] | None = None):
        seeds = seeds_for(seed, self.num_games)
        for conn, sl in zip(self._conns, self._slices):
            conn.send(("reset", seeds[sl]))
        parts = self._gather()
        self.alive = np.concatenate([p[3] for p in parts])
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                [info for p in parts for info in p[2]])

    def step(self, actions: np.ndarray):
        acts = np.asarray(actions)
        if acts.shape != (self.num_games, self.num_seats):
            raise ValueError(f"actions must have shape (num_games, num_seats) = {(self.num_games, self.num_seats)}, "
                             f"got {acts.shape}")
        for conn, sl in zip(self._conns, self._slices):
            conn.send(("step", acts[sl]))
        parts = self._gather()
        self.alive = np.concatenate([p[6] for p in parts])
        cat = [np.concatenate([p[k] for p in parts]) for k in range(5)]
        return (*cat, [info for p in parts for info in p[5]])

    def random_actions(self, rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
        """Uniformly random legal actions ``(N, P)`` for ``masks``."""
        return random_legal_actions(rng, masks)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            try:
                conn.send(("close", None))
                conn.recv()
            except (BrokenPipeError, EOFError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()

    def __enter__(self) -> "ProcessBatchedEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
