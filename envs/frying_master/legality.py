"""Which Frying Master actions are legal: the whole mask, or one action.

:func:`compute_mask` fills an int8 mask through the precomputed index tables
of :class:`~envs.frying_master.actions.ActionIndex` into a ``bytearray`` (a
Python byte store is far cheaper per entry than numpy item assignment) and
wraps it as a numpy array once. What depends only on the table and the
chef's spatula states (flip, stir and lift entries) comes from a bytes
template (:class:`MaskTemplates`) keyed by what the table shows, shared by
every chef and every engine and reused whenever the table looks the same.

:func:`is_legal` answers for one non-noop action without building a mask;
the engine uses it to re-check an action when its turn in the tick's
resolution order comes. Both follow the same rules, and a test checks they
agree on every action in many random states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine


#: Spatula states that decide its table-dependent actions (flip, stir, lift).
BUSY, NO_ROOM, ROOM = 0, 1, 2

#: Templates kept per action index before the store is emptied (bounds memory).
_TEMPLATE_LIMIT = 20_000


class MaskTemplates:
    """Mask bytes of the table-dependent actions, shared by every engine of
    one action index and reused across states.

    A template is keyed by the table's signature (is a food image-up, per
    food; are there face-down cards, per category; 0/1 bytes) and the chef's spatula
    states (``BUSY``, ``NO_ROOM``: free but full, ``ROOM``: free with
    room); it holds noop and every legal flip, stir and lift.
    """

    def __init__(self, ix, n_actions: int, n_foods: int):
        self.ix = ix
        self.n_actions = n_actions
        self.n_foods = n_foods
        self._store: dict[tuple[bytes, tuple[int, ...]], bytes] = {}

    def get(self, signature: bytes, states: tuple[int, ...]) -> bytes:
        key = (signature, states)
        t = self._store.get(key)
        if t is None:
            t = self._build(signature, states)
            if len(self._store) >= _TEMPLATE_LIMIT:
                self._store.clear()
            self._store[key] = t
        return t

    def _build(self, signature: bytes, states: tuple[int, ...]) -> bytes:
        ix, F = self.ix, self.n_foods
        up = [f for f in range(F) if signature[f]]
        down = [c for c in range(len(signature) - F) if signature[F + c]]
        m = bytearray(self.n_actions)
        m[0] = 1
        for s, state in enumerate(states):
            if state == BUSY:
                continue
            for c in down:
                m[ix.flip[s][c]] = 1
            if up or down:
                m[ix.stir[s]] = 1
            if state == ROOM:
                for f in up:
                    m[ix.lift[s][f]] = 1
        return bytes(m)


_templates: dict[int, MaskTemplates] = {}


def mask_templates(eng: "FryingMasterEngine") -> MaskTemplates:
    """The shared :class:`MaskTemplates` of the engine's action table."""
    t = _templates.get(eng.S)
    if t is None:
        t = _templates[eng.S] = MaskTemplates(eng.ix, eng.n_actions, eng.n_foods)
    return t


def table_signature(eng: "FryingMasterEngine") -> bytes:
    """Which foods lie image-up and which categories have face-down cards
    (one 0/1 byte each), all the mask needs of the table: computed once per
    engine state version."""
    cached = eng._table_signature
    if cached is not None and cached[0] == eng._version:
        return cached[1]
    table = eng.table
    sig = bytes([k > 0 for k in table.up] + [len(d) > 0 for d in table.down])
    eng._table_signature = (eng._version, sig)
    return sig


def compute_mask(eng: "FryingMasterEngine", agent: str) -> np.ndarray:
    """The int8 legal-action mask of ``agent`` (index 0, noop, is legal
    except for the setup chooser, who must take a plate if a pile has one)."""
    ix = eng.ix
    phase = eng.phase
    if phase == "choose":
        m = bytearray(eng.n_actions)
        m[0] = 1
        if agent == eng.choose_queue[0]:
            for p in (0, 1):
                if eng.piles[p]:
                    m[ix.draw[p]] = 1
                    m[0] = 0  # the chooser must choose (a noop takes the default pile)
        return np.frombuffer(m, dtype=np.int8)
    if (phase != "play" and phase != "countdown") or agent in eng.finishers:
        m = bytearray(eng.n_actions)
        m[0] = 1
        return np.frombuffer(m, dtype=np.int8)
    busy = eng.busy[agent]
    loads = eng.loads[agent]
    capacity = eng.capacity
    spatulas = range(eng.spatulas)
    states = tuple([BUSY if busy[s] else ROOM if len(loads[s]) < capacity else NO_ROOM for s in spatulas])
    m = bytearray(mask_templates(eng).get(table_signature(eng), states))
    plate = eng.plates[agent]
    if plate is None:
        for p in (0, 1):
            if eng.piles[p]:
                m[ix.draw[p]] = 1
    else:
        m[ix.give_up] = 1
        if any(eng.plate_cards[agent]):
            m[ix.serve] = 1
    for s in spatulas:
        if loads[s] and not busy[s]:
            m[ix.tip[s]] = 1
            if plate is not None:
                m[ix.unload[s]] = 1
    return np.frombuffer(m, dtype=np.int8)


def is_legal(eng: "FryingMasterEngine", agent: str, kind: str, s: int, p: int) -> bool:
    """Whether the non-noop action decoded as ``(kind, spatula, parameter)``
    is legal for ``agent`` now (the same answer as its mask entry)."""
    phase = eng.phase
    if phase == "choose":
        return kind == "draw" and agent == eng.choose_queue[0] and bool(eng.piles[p])
    if (phase != "play" and phase != "countdown") or agent in eng.finishers:
        return False
    plate = eng.plates[agent]
    if kind == "draw":
        return plate is None and bool(eng.piles[p])
    if kind == "give_up":
        return plate is not None
    if kind == "serve":
        return plate is not None and any(eng.plate_cards[agent])
    if s >= eng.spatulas or eng.busy[agent][s]:
        return False
    table = eng.table
    if kind == "flip":
        return bool(table.down[p])
    if kind == "stir":
        return any(table.up) or any(table.down)
    load = eng.loads[agent][s]
    if kind == "lift":
        return len(load) < eng.capacity and table.up[p] != 0
    if kind == "tip":
        return bool(load)
    if kind == "unload":
        return bool(load) and plate is not None
    raise ValueError(f"unknown action kind {kind!r}")
