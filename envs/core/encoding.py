"""The observation/state encoder protocol.

Each game has one encoder that turns an engine's state into

* ``observe(engine, agent)``: what that agent can see at the table, as a flat
  float32 vector laid out by ``layout`` (an
  :class:`~envs.core.tables.ObservationLayout`). It must contain nothing the
  player could not see: no other hands, no deck order, no face-down cards;
* ``global_state(engine)``: the full state for centralised critics
  (``state()`` in PettingZoo), laid out by ``state_layout``. Hidden
  information may appear here: it is never given to an acting policy.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Mapping

import numpy as np

from envs.core.engine import GameEngine
from envs.core.inputs import shown
from envs.core.tables import ObservationLayout


class BatchDoor:
    """A batch observer's door: one distinct row in ``0..num_games-1`` per engine, each engine of
    the observer's configuration (the encoder's config holds the engine's; an encoder may hold
    observation-only options too). ValueError naming what is allowed; nothing is written. Engine
    configs already seen are remembered by identity (bounded), so a batch pays the dict
    comparison once per engine."""

    def __init__(self, encoder_config: Mapping[str, Any], num_games: int, seats: int, size: int, actions: int):
        self.config = dict(encoder_config)
        self.num_games = num_games
        self.shapes = (seats, size), (seats, actions)
        self._seen: dict[int, Mapping] = {}

    def check(self, rows, engines, obs: np.ndarray, masks: np.ndarray) -> None:
        n = self.num_games
        (seats, size), (_, actions) = self.shapes
        if not (isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.ndim == 3 and obs.shape[1:] == (seats, size)
                and isinstance(masks, np.ndarray) and masks.dtype == np.int8
                and masks.shape == (obs.shape[0], seats, actions) and obs.shape[0] >= n):
            raise ValueError(f"the batch observer writes float32 observations (rows, {seats}, {size}) and int8 masks "
                             f"(rows, {seats}, {actions}) with at least {n} rows; got {_shape(obs)} and {_shape(masks)}")
        if not (obs.flags.writeable and masks.flags.writeable):
            raise ValueError("the batch observer writes into the arrays it is given; got a read-only "
                             + ("observation" if not obs.flags.writeable else "mask") + " array")
        allowed = f"distinct ints in 0..{n - 1}, one per engine (the observer was built for {n} games)"
        try:
            r = np.asarray(rows)
        except (TypeError, ValueError):
            r = None
        if r is None or r.ndim != 1 or (r.size and r.dtype.kind not in "iu"):
            raise ValueError(f"rows must be a sequence of {allowed}; got {shown(rows)}")
        try:
            count = len(engines)
        except TypeError:
            raise ValueError(f"engines must be a list of engines, one per row; got {shown(engines)}") from None
        if r.size != count:
            raise ValueError(f"got {r.size} rows for {count} engines; give one output row per engine")
        listed = r.tolist()
        if listed and (min(listed) < 0 or max(listed) >= n or len(set(listed)) != len(listed)):
            raise ValueError(f"rows {listed[:20]} are not allowed: {allowed}")
        seen = self._seen
        for eng in engines:
            c = getattr(eng, "config", None)
            if seen.get(id(c), _UNSEEN) is c:
                continue
            if not isinstance(c, Mapping) or not c.items() <= self.config.items():
                raise ValueError(f"an engine of configuration {shown(c)} given to the batch observer of "
                                 f"{shown(self.config)}; allowed: engines of the observer's configuration")
            if len(seen) >= 4 * n + 16:
                seen.clear()
            seen[id(c)] = c


_UNSEEN = object()  # (a config never seen: ``None`` is no engine's config)


_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def game_records(flat: list, games: int) -> np.ndarray:
    """A batch observer's records, ``games`` of equal width in one list of integers, as one array
    ``(games, width)``: uint8 straight from ``bytes`` when every value is in 0..255 (the usual
    case), else int64 (a negative count, money above 255, ...). A value that is no integer (only a
    state set by hand holds one), or an integer outside int64, is refused with a ValueError naming it:
    nothing is written."""
    try:
        rec = np.frombuffer(bytes(flat), dtype=np.uint8)
    except (ValueError, TypeError):
        rec = np.array(flat)
        if rec.ndim != 1 or rec.dtype.kind not in "biu":
            bad = next((x for x in flat if not isinstance(x, (int, np.integer)) or not _INT64_MIN <= x <= _INT64_MAX),
                       None)
            raise ValueError(f"an engine's state holds {shown(bad)} where the observation reads a count or an index "
                             f"(a state set by hand?); allowed: integers from {_INT64_MIN} to {_INT64_MAX}, as every "
                             f"step and snapshot leaves them") from None
        rec = rec.astype(np.int64, copy=False)
    return rec.reshape(games, -1)


def write_rows(rows, obs: np.ndarray, masks: np.ndarray, source: np.ndarray, gathers: np.ndarray,
               batch_masks: np.ndarray) -> None:
    """A batch observer's last step: game ``k``'s observation of seat ``s`` is
    ``source[k][gathers[s]]`` (``source``: one vector per game, ``gathers``: ``(seats, size)``), written
    into ``obs[rows[k], s]``, and its masks ``batch_masks[k]`` into ``masks[rows[k]]``. One ``take``
    for every game and seat, straight into ``obs`` when the rows are all of it in order, else the
    take, then one copy (faster than ``source[:, gathers]``; ``clip``: the gathers are in range, and
    "raise" checks every entry: 3% more instructions per agent-step in Waroong Wars' batch)."""
    G = len(source)
    if G == len(obs) and list(rows) == list(range(G)):
        source.take(gathers, axis=1, out=obs, mode="clip")  # (clip: "raise" buffers the output)
        masks[...] = batch_masks
    else:
        idx = np.asarray(rows, dtype=np.intp)
        obs[idx] = source.take(gathers, axis=1, mode="clip")
        masks[idx] = batch_masks


def _shape(a: Any) -> str:
    return f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__


class Encoder(ABC):
    layout: ObservationLayout
    state_layout: ObservationLayout

    def __init__(self, config: Mapping[str, Any]):
        self.config = dict(config)

    @abstractmethod
    def observe(self, engine: GameEngine, agent: str) -> np.ndarray:
        """float32 vector of ``layout.size`` entries within the layout's bounds."""

    def observe_seats(self, engine: GameEngine, out: np.ndarray) -> None:
        """Every seat's observation at once, in seat order (``engine.agents``), written
        into ``out`` (float32 ``(len(engine.agents), layout.size)``): row ``k`` equals
        ``observe(engine, engine.agents[k])``. The batched env's path when every seat
        acts; a game whose observations are gathers of one per-state vector overrides
        it with one gather for all seats (no per-seat array, no second copy)."""
        for k, agent in enumerate(engine.agents):
            out[k] = self.observe(engine, agent)

    def batch_observer(self, num_games: int):
        """An object whose ``observe(rows, engines, obs, masks)`` writes every seat's observation
        and mask of many engines of this configuration at once (``obs[rows[k]]`` float32
        ``(players, size)``, ``masks[rows[k]]`` int8 ``(players, A)``): exactly what
        :meth:`observe_seats` and the engine's ``masks_into`` write, one game at a time;
        and an int ``min_games``, the fewest games for which it is faster than going one by one.
        The batched env uses it where at least that many games have every seat acting.
        Default: None (the game has none; the batched env goes game by game)."""
        return None

    @abstractmethod
    def global_state(self, engine: GameEngine) -> np.ndarray:
        """float32 vector of ``state_layout.size`` entries."""
