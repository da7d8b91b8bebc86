"""The public part of Frying Master's observation, kept up to date incrementally.

:class:`PublicObservationBuffer` owns one float32 vector laid out like
:class:`~envs.frying_master.encoding.FryingMasterEncoder`'s observation, as
seen from chef_0's seat (the encoder rotates the per-seat fields for the other
chefs). :meth:`PublicObservationBuffer.update` takes a
:class:`~envs.frying_master.public.PublicView` (the only input, so nothing
hidden can leak) and rewrites only the blocks whose source values differ from
what it last wrote there: most ticks only the clock, the table and a few
spatulas change. Every offset is a plain ``int`` computed once at
construction.

All entries are small integers, so writing them in any order gives the same
float32 bytes as building the vector from scratch.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from envs.core.tables import ObservationLayout
from envs.frying_master.cards import PLATE_TYPES, Catalog
from envs.frying_master.public import PublicView
from envs.frying_master.rules.scoring import category_counts, evaluate, missing

#: Memo entries kept per table of derived plate values before it is cleared.
_MEMO_LIMIT = 4096


class _SeatOffsets:
    """Start offsets of one seat's entries in every per-seat field."""

    __slots__ = ("has", "front", "cards", "value", "fixable", "missing", "load", "busy", "in_play",
                 "done", "dscore", "dcards", "dtypes", "dfoods", "finished", "gold", "last")

    def __init__(self, lay: ObservationLayout, i: int, P: int, F: int, S: int, C: int, T: int):
        def at(name: str, width: int) -> int:
            return lay.slices[name].start + i * width

        self.has = at("has_plate", 1)
        self.front = at("plate_front", P)
        self.cards = at("plate_cards", F)
        self.value = at("plate_value", 1)
        self.fixable = at("plate_fixable", 1)
        self.missing = at("plate_missing", 1)
        self.load = at("spatula_load", S * F)
        self.busy = at("spatula_busy", S)
        self.in_play = at("spatula_in_play", S)
        self.done = at("completed_orders", 1)
        self.dscore = at("completed_score", 1)
        self.dcards = at("completed_cards", C)
        self.dtypes = at("completed_types", T)
        self.dfoods = at("completed_foods", F)
        self.finished = at("finished", 1)
        self.gold = at("gold", 1)
        self.last = at("last_round_total", 1)


class PublicObservationBuffer:
    """The chef_0-seat observation vector of one engine, updated in place.

    ``vec`` is owned by the buffer and rewritten by every :meth:`update`:
    callers must copy (or gather from) it, never hand it out.
    """

    def __init__(self, layout: ObservationLayout, cat: Catalog, n: int, S: int, fronts: np.ndarray,
                 phases: Sequence[str]):
        self.layout = layout
        self.cat = cat
        self.n, self.S = n, S
        self.F, self.C, self.T = F, C, T = len(cat.foods), len(cat.categories), len(PLATE_TYPES)
        self.P = P = fronts.shape[1]
        self.fronts = fronts
        self.zero_front = np.zeros(P, dtype=np.float32)
        self.cat_of = tuple(f.category for f in cat.foods)
        self.plate_type = tuple(p.type for p in cat.plates)
        self.gold_to_win = cat.gold_to_win
        self.casual_modes = frozenset(m.idx for m in cat.modes if m.kind == "casual")
        self.phase_index = {ph: k for k, ph in enumerate(phases)}
        sl = layout.slices
        self.o_phase = sl["phase"].start
        self.o_mode = sl["mode"].start
        self.o_round = sl["round_no"].start
        self.o_tick = sl["play_tick"].start
        self.o_countdown = sl["countdown_left"].start
        self.o_orders = sl["orders_to_end"].start
        self.o_up = sl["table_face_up"].start
        self.o_down = sl["table_face_down"].start
        self.o_piles = sl["pile_size"].start
        self.o_hint = sl["pile_top_hint"].start
        self.o_top = sl["pile_top_front"].start
        self.o_top_mode = sl["pile_top_mode"].start
        self.M = len(cat.modes)
        self.seat_at = [_SeatOffsets(layout, i, P, F, S, C, T) for i in range(n)]
        self._plate_memo: dict[tuple, tuple[int, int, int]] = {}
        self._done_memo: dict[tuple, tuple[float, list[int], list[int], list[int]]] = {}
        self.vec = layout.zeros()
        self.reset()

    # ------------------------------------------------------------------ bookkeeping
    def reset(self) -> None:
        """Forget what was written: the next :meth:`update` rewrites everything."""
        self.vec[:] = 0
        self._phase = self._mode = self._clock = None
        self._up = self._down = self._pile_sizes = self._hints = self._tops = self._top_modes = None
        n = self.n
        self._plate: list = [None] * n
        self._loads: list = [None] * n
        self._busy: list = [None] * n
        self._spatulas: list = [None] * n
        self._completed: list = [None] * n
        self._rest: list = [None] * n  # (finished, gold, last_round_total)
        self._seat: list = [None] * n  # (SeatView, casual) last written per seat

    # ------------------------------------------------------------------ writing
    def update(self, view: PublicView) -> np.ndarray:
        """Bring ``vec`` in line with ``view`` and return it (do not mutate it)."""
        v = self.vec
        phase = self.phase_index[view.phase]
        if phase != self._phase:
            if self._phase is not None:
                v[self.o_phase + self._phase] = 0
            v[self.o_phase + phase] = 1
            self._phase = phase
        if view.mode != self._mode:
            if self._mode is not None:
                v[self.o_mode + self._mode] = 0
            v[self.o_mode + view.mode] = 1
            self._mode = view.mode
        v[self.o_tick] = view.play_tick  # changes every play tick
        clock = (view.round_no, view.countdown_left, view.orders_to_end)
        if clock != self._clock:
            v[self.o_round], v[self.o_countdown], v[self.o_orders] = clock
            self._clock = clock
        if view.table_up != self._up:
            v[self.o_up:self.o_up + self.F] = view.table_up
            self._up = view.table_up
        if view.table_down != self._down:
            v[self.o_down:self.o_down + self.C] = view.table_down
            self._down = view.table_down
        if view.pile_sizes != self._pile_sizes:
            v[self.o_piles:self.o_piles + 2] = view.pile_sizes
            self._pile_sizes = view.pile_sizes
        if view.pile_hints != self._hints:
            C = self.C
            for p, hint in enumerate(view.pile_hints):
                o = self.o_hint + p * C
                v[o:o + C] = 0 if hint is None else hint
            self._hints = view.pile_hints
        if view.pile_modes != self._top_modes:
            M = self.M
            for p, m in enumerate(view.pile_modes):
                o = self.o_top_mode + p * M
                v[o:o + M] = 0
                if m is not None:
                    v[o + m] = 1
            self._top_modes = view.pile_modes
        if view.pile_fronts != self._tops:
            P = self.P
            for p, top in enumerate(view.pile_fronts):
                o = self.o_top + p * P
                v[o:o + P] = self.zero_front if top is None else self.fronts[top]
            self._tops = view.pile_fronts
        casual = view.mode in self.casual_modes
        for i, seat in enumerate(view.seats):
            self._write_seat(v, i, seat, casual)
        return v

    def _write_seat(self, v: np.ndarray, i: int, seat, casual: bool) -> None:
        last = self._seat[i]
        if last is not None and last[0] is seat and last[1] == casual:
            return  # the engine hands out the same SeatView object while the seat is unchanged
        self._seat[i] = (seat, casual)
        at = self.seat_at[i]
        key = (seat.plate, seat.plate_cards, casual)
        if key != self._plate[i]:
            self._plate[i] = key
            F, P = self.F, self.P
            v[at.cards:at.cards + F] = seat.plate_cards
            if seat.plate is None:
                v[at.has] = 0
                v[at.front:at.front + P] = self.zero_front
                value = fixable = miss = 0
            else:
                v[at.has] = 1
                v[at.front:at.front + P] = self.fronts[seat.plate]
                value, fixable, miss = self._plate_stats(key)
            v[at.value] = value
            v[at.fixable] = fixable
            v[at.missing] = miss
        if seat.loads != self._loads[i]:
            self._loads[i] = seat.loads
            F = self.F
            o = at.load
            v[o:o + self.S * F] = 0
            for s, ld in enumerate(seat.loads):
                base = o + s * F
                for f in ld:
                    v[base + f] += 1
        if seat.busy != self._busy[i]:
            self._busy[i] = seat.busy
            v[at.busy:at.busy + self.S] = seat.busy
        if seat.spatulas != self._spatulas[i]:
            self._spatulas[i] = seat.spatulas
            v[at.in_play:at.in_play + self.S] = 0
            v[at.in_play:at.in_play + seat.spatulas] = 1
        key = (seat.completed, casual)
        if key != self._completed[i]:
            self._completed[i] = key
            score, dcards, dtypes, dfoods = self._completed_stats(key)
            v[at.done] = len(seat.completed)
            v[at.dscore] = score
            v[at.dcards:at.dcards + self.C] = dcards
            v[at.dtypes:at.dtypes + self.T] = dtypes
            v[at.dfoods:at.dfoods + self.F] = dfoods
        rest = (seat.finished, seat.gold, seat.last_round_total)
        if rest != self._rest[i]:
            self._rest[i] = rest
            v[at.finished] = seat.finished
            v[at.gold] = min(seat.gold, self.gold_to_win)
            v[at.last] = seat.last_round_total

    # ------------------------------------------------------------------ derived values (memoised)
    def _plate_stats(self, key: tuple) -> tuple[int, int, int]:
        """``(value if served now, fixable 0/1, missing ingredients)`` of a held plate."""
        out = self._plate_memo.get(key)
        if out is None:
            plate_idx, counts, casual = key
            plate = self.cat.plates[plate_idx]
            value = evaluate(plate, counts, self.cat_of, casual).score
            need = missing(plate, counts, self.cat_of, casual)
            out = (value, 0, 0) if need is None else (value, 1, sum(need[0]) + sum(need[1]))
            if len(self._plate_memo) >= _MEMO_LIMIT:
                self._plate_memo.clear()
            self._plate_memo[key] = out
        return out

    def _completed_stats(self, key: tuple) -> tuple[float, list[int], list[int], list[int]]:
        """``(score, cards per category, orders per plate type)`` of the correct completed orders,
        and the food per food on all of them (right or wrong)."""
        out = self._done_memo.get(key)
        if out is None:
            completed, casual = key
            score, dcards, dtypes, dfoods = 0, [0] * self.C, [0] * self.T, [0] * self.F
            for p, c in completed:
                for f, k in enumerate(c):
                    dfoods[f] += k
                sc = evaluate(self.cat.plates[p], c, self.cat_of, casual)
                if sc.valid:
                    score += sc.score
                    for k, x in enumerate(category_counts(c, self.cat_of, self.C)):
                        dcards[k] += x
                    dtypes[self.plate_type[p]] += 1
            out = (score, dcards, dtypes, dfoods)
            if len(self._done_memo) >= _MEMO_LIMIT:
                self._done_memo.clear()
            self._done_memo[key] = out
        return out
