"""The process-parallel form of :class:`~envs.vector.batched.BatchedEnv`.

    from envs.vector import ProcessBatchedEnv
    with ProcessBatchedEnv("waroong_wars_v0", num_games=64, workers=2) as venv:
        obs, masks, infos = venv.reset(seed=0)
        obs, masks, rewards, terminated, truncated, infos = venv.step(actions)

The games are split into ``workers`` contiguous shards (default: one per
core). ``workers`` counts the processes that step games, this one included:
the calling process steps the first shard itself (a :class:`BatchedEnv`)
while ``workers - 1`` worker processes (started with ``spawn``: no state is
inherited) each hold a :class:`BatchedEnv` of one other shard. ``step``
sends the workers their slices of the actions first, steps the local shard,
then collects, so every core steps games at the same time and the pipe round
trip hides behind local work. Before anything is sent, the whole batch is
checked against the current masks: an out-of-range or (with
``illegal_action="raise"``) illegal action of a live seat raises a
``ValueError`` naming the game, the agent, the action and the legal ones, and
no game steps. Game ``i`` gets the same seed, and so plays the same game,
as in a ``BatchedEnv`` of the same size: results do not depend on ``workers``.
An exception in a worker is raised here as :class:`envs.core.workers.WorkerError`
with the worker's traceback.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from typing import Any, Mapping, Sequence

import numpy as np

from envs.core.workers import receive, serve
from envs.vector.batched import BatchedEnv, random_legal_actions, seeds_for


#: What a worker's BatchedEnv answers (each reply also carries the shard's ``alive``).
COMMANDS = {
    "step": lambda v, actions: (*v.step(actions), v.alive.copy()),
    "reset": lambda v, seeds: (*v.reset(seeds), v.alive.copy()),
    "close": lambda v, _: v.close(),
}


def _worker(conn, env_id: str, num_games: int, env_kwargs: dict) -> None:
    serve(conn, lambda: BatchedEnv(env_id, num_games, env_kwargs), COMMANDS)


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
        self._raise_illegal = probe.envs[0].illegal_action == "raise"
        self._action_names = list(probe.envs[0].action_table.names(range(self.n_actions)))
        bounds = np.linspace(0, self.num_games, workers + 1).round().astype(int)
        self._slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self._local = BatchedEnv(env_id, self._slices[0].stop, self.env_kwargs)
        ctx = mp.get_context("spawn")
        self._conns, self._procs = [], []
        for sl in self._slices[1:]:
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
        self._masks = np.zeros((self.num_games, self.num_seats, self.n_actions), dtype=np.int8)
        self._started = False

    @property
    def workers(self) -> int:
        """Processes stepping games, this one included."""
        return 1 + len(self._procs)

    def _recv(self, i: int) -> Any:
        return receive(self._conns[i], self._procs[i], "vector worker")

    def _gather(self) -> list:
        return [self._recv(i) for i in range(len(self._conns))]

    def reset(self, seed: int | Sequence[int | None] | None = None):
        seeds = seeds_for(seed, self.num_games)
        for conn, sl in zip(self._conns, self._slices[1:]):
            conn.send(("reset", seeds[sl]))
        parts = [(*self._local.reset(seeds[self._slices[0]]), self._local.alive.copy())] + self._gather()
        self.alive = np.concatenate([p[3] for p in parts])
        self._masks = np.concatenate([p[1] for p in parts])
        self._started = True
        return (np.concatenate([p[0] for p in parts]), self._masks.copy(), [info for p in parts for info in p[2]])

    def _check(self, acts: np.ndarray) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if acts.shape != (self.num_games, self.num_seats):
            raise ValueError(f"actions must have shape (num_games, num_seats) = {(self.num_games, self.num_seats)}, "
                             f"got {acts.shape}")
        if not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be integers (indices into Discrete({self.n_actions})), got dtype {acts.dtype}")
        n = self.n_actions
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
            raise ValueError(f"game {i}, {self.possible_agents[p]}: action {a} is {why}; no game was stepped")

    def step(self, actions: np.ndarray):
        acts = np.asarray(actions)
        self._check(acts)
        for conn, sl in zip(self._conns, self._slices[1:]):
            conn.send(("step", acts[sl]))
        parts = [(*self._local.step(acts[self._slices[0]]), self._local.alive.copy())] + self._gather()
        self.alive = np.concatenate([p[6] for p in parts])
        cat = [np.concatenate([p[k] for p in parts]) for k in range(5)]
        self._masks = cat[1]
        return (cat[0], cat[1].copy(), *cat[2:], [info for p in parts for info in p[5]])

    def random_actions(self, rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
        """Uniformly random legal actions ``(N, P)`` for ``masks``."""
        return random_legal_actions(rng, masks)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._local.close()
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
