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

:class:`BatchObserver` (below) is the same observation, and the masks, of many
games at once, for the batched env (:mod:`envs.vector`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from envs.core.encoding import BatchDoor, game_records, write_rows
from envs.core.tables import ObservationLayout
from envs.frying_master.cards import PLATE_TYPES, Catalog
from envs.frying_master.public import PublicView
from envs.frying_master.legality import BatchMaskPlan, batch_masks
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

# ---------------------------------------------------------------------- many games at once
#
# :class:`BatchObserver` writes every seat's observation and legal-action mask of a batch of
# games into stacked ``(N, players, ...)`` arrays: one pass of Python over the games reads each
# engine's state into one list of small integers (no public view, no per-block compare-and-write),
# converted at once (from ``bytes`` where every value fits in one); then a few numpy operations over
# the whole batch build the vectors (one scatter of the record's values, one lookup table for every
# one-hot and per-plate value), and
# :func:`~envs.frying_master.legality.batch_masks` the masks. :class:`~envs.vector.BatchedEnv`
# uses it where every seat of a game acts, from ``BatchObserver.min_games`` such games.
# The per-game path above stays the definition; ``tests/frying_master/test_batch.py`` holds the
# two equal entry for entry in every configuration.
#
# It reads what :func:`~envs.frying_master.public.build_view` reads and nothing else the players
# cannot see: the table's image-up cards, how many cards lie face down per category (never
# which), the piles' sizes and their top plates' backs (the order side only in Pre-order Fry),
# and every seat's public values. The derived plate values come from the same scoring functions,
# memoised the same way. Every entry is a small integer, so the float32 bytes are the per-game
# encoder's whatever the order of the writes.


class BatchObserver:
    """Observations and masks of up to ``num_games`` Frying Master games of one configuration.

    :meth:`observe` takes the engines of the games to write and the rows of the
    output arrays they go to. It keeps no state of a game between calls except
    memos of derived values keyed on the values themselves (and, per row, the
    completed orders last scored, checked by identity, length and the engine's count of
    outside changes), so any engine may be given in any row at any call.
    """

    #: The fewest games for which one call is cheaper than going game by game: by executed instructions
    #: per agent-step (2 players), 6 games are level and 7 are 4% cheaper (docs/performance.md).
    min_games = 7

    def __init__(self, encoder: "FryingMasterEncoder", num_games: int):
        cat = self.cat = encoder.cat
        self.n = n = encoder.n
        self.S = S = encoder.S
        self.F = F = len(cat.foods)
        self.C = C = len(cat.categories)
        self.T = len(PLATE_TYPES)
        self.M = M = len(cat.modes)
        lay = encoder.layout
        self.D = lay.size
        self.sl = {name: (s.start, s.stop) for name, s in lay.slices.items()}
        self.choice_at = encoder._choice_at
        n_pl = len(cat.plates)
        self.none_plate = n_pl  # the row of "no plate" in the lookup tables below
        fronts = encoder.fronts
        self.fronts = np.zeros((n_pl + 1, fronts.shape[1]), dtype=np.float32)
        self.fronts[:n_pl] = fronts
        self.shows_front = tuple(m.kind == "preorder" for m in cat.modes)
        self.casual_modes = frozenset(m.idx for m in cat.modes if m.kind == "casual")
        self.gold_to_win = cat.gold_to_win
        self.phase_of = encoder._public.phase_index  # phase name -> index in the engine's PHASES
        self.num_games = num_games
        self.mask_plan = BatchMaskPlan(S, encoder.config.get("serve_rule", "order_size") == "any_food")
        self._door = BatchDoor(encoder.config, num_games, n, self.D, self.mask_plan.A)
        self._public = encoder._public  # its memos of derived plate values are shared
        # Per (row, seat): (completed list, its length, its last entry, casual, stats) last scored.
        self._done_seen: list[list] = [[None] * n for _ in range(num_games)]
        self._layouts(encoder._all_perms)

    # ------------------------------------------------------------------ derived values (memoised)
    def _done_stats(self, row: int, i: int, done: list, casual: bool, edits: int) -> list:
        """``[orders, score, *cards per category, *orders per plate type, *foods]`` of one seat's
        completed orders (the per-game buffer's ``_completed_stats``, memo shared), kept per row
        and seat while the list, its length and its last entry are the same objects and the engine
        has had no change from outside (``edits``: its ``_edits``, which ``invalidate_masks()``
        counts; a step only appends, or starts a new list at a round's start)."""
        seen = self._done_seen[row][i]
        k = len(done)
        last = done[-1] if k else None
        if seen is not None and seen[0] is done and seen[1] == k and seen[2] is last and seen[3] == casual \
                and seen[5] == edits:
            return seen[4]
        key = (tuple([(p, tuple(c)) for p, c in done]), casual)
        score, dcards, dtypes, dfoods = self._public._completed_stats(key)
        out = [k, score, *dcards, *dtypes, *dfoods]
        self._done_seen[row][i] = (done, k, last, casual, out, edits)
        return out

    # ------------------------------------------------------------------ the record layouts
    def _layouts(self, perms: np.ndarray) -> None:
        """Where each value of a game's record goes in the chef_0 vector.

        A game's record is one list of small integers: the game's values, then each seat's, then
        the rows of the lookup table :attr:`look` that the game's one-hots and per-plate values
        come from. The game's values: phase, mode, round, play tick, countdown, orders to end,
        chooser seat + 1 (0: none), spatulas in play, the two piles' sizes and top plates, the
        image-up cards per food, the face-down cards per category. A seat's values: plate
        (``none_plate``: none), the plate's value, fixable and missing, finished, gold (capped),
        last round's total, busy per spatula, load size per spatula, the plate's cards per food,
        then the completed orders' count, score, cards per category, orders per plate type and
        foods. The lookups: the piles' top plates (backs: hint and mode), the plates whose order
        side shows (a top plate in Pre-order Fry, else none), each seat's plate (order side, and
        whether it holds one), the spatulas in play, the phase, the mode and the chooser.

        ``look`` has one row per plate (and "none"), per count of spatulas in play, per phase,
        per mode and per chooser (and "none"), each with its values in its own columns. The chef_0
        vector has ``n`` more columns, "seat ``i`` chooses now", which each seat's gather reads as
        its ``my_choice_turn``."""
        n, S, F, C, T, M = self.n, self.S, self.F, self.C, self.T, self.M
        start = {name: a for name, (a, _) in self.sl.items()}
        D = self.D
        self.G_UP, self.G_DOWN = 12, 12 + F
        self.W_GAME = W_GAME = 12 + F + C
        game_src = [2, 3, 4, 5, 8, 9, *range(12, 12 + F + C)]
        up0, down0 = start["table_face_up"], start["table_face_down"]
        game_dst = [start["round_no"], start["play_tick"], start["countdown_left"], start["orders_to_end"],
                    start["pile_size"], start["pile_size"] + 1, *range(up0, up0 + F), *range(down0, down0 + C)]
        self.R_BUSY, self.R_LOADN, self.R_CARDS = 7, 7 + S, 7 + 2 * S
        self.R_DONE = self.R_CARDS + F
        self.R_WIDTH = self.R_DONE + 2 + C + T + F
        per_seat = [(1, "plate_value", 1), (2, "plate_fixable", 1), (3, "plate_missing", 1), (4, "finished", 1),
                    (5, "gold", 1), (6, "last_round_total", 1), (self.R_BUSY, "spatula_busy", S),
                    (self.R_CARDS, "plate_cards", F), (self.R_DONE, "completed_orders", 1),
                    (self.R_DONE + 1, "completed_score", 1), (self.R_DONE + 2, "completed_cards", C),
                    (self.R_DONE + 2 + C, "completed_types", T), (self.R_DONE + 2 + C + T, "completed_foods", F)]
        src, dst = list(game_src), list(game_dst)
        for i in range(n):
            for col, name, width in per_seat:
                src += [W_GAME + i * self.R_WIDTH + col + k for k in range(width)]
                dst += [start[name] + i * width + k for k in range(width)]
        self.src, self.dst = np.array(src), np.array(dst)
        self.L0 = W_GAME + n * self.R_WIDTH  # the first lookup of a record
        # the lookup table: its row blocks, then its column blocks
        cat, none = self.cat, self.none_plate
        n_pl = none + 1
        self.SP0, self.PH0 = n_pl, n_pl + S + 1
        self.MO0 = self.PH0 + len(self.phase_of)  # (one row per phase)
        self.CH0 = self.MO0 + M
        rows = self.CH0 + n + 1
        Ff = self.fronts.shape[1]
        c_hint, c_mode, c_front, c_has = 0, C, C + M, C + M + Ff
        P = len(self.phase_of)
        c_play, c_phase = c_has + 1, c_has + 1 + S
        c_mo, c_ch = c_phase + P, c_phase + P + M
        look = np.zeros((rows, c_ch + n), dtype=np.float32)
        look[:none, c_front:c_front + Ff] = self.fronts[:none]
        look[:none, c_has] = 1
        for p in cat.plates:
            look[p.idx, c_hint:c_hint + C] = p.hint
            look[p.idx, c_mode + p.mode] = 1
        for k in range(S + 1):
            look[self.SP0 + k, c_play:c_play + k] = 1
        for k in range(P):
            look[self.PH0 + k, c_phase + k] = 1
        for k in range(M):
            look[self.MO0 + k, c_mo + k] = 1
        for k in range(n):
            look[self.CH0 + 1 + k, c_ch + k] = 1  # row CH0: no chooser
        self.look = look
        # the lookups of a record (from L0): 2 tops, 2 shown fronts, n plates, spatulas, phase, mode, chooser
        W_L = look.shape[1]
        lsrc, ldst = [], []

        def block(k: int, c0: int, width: int, d0: int) -> None:
            lsrc.extend(k * W_L + c0 + j for j in range(width))
            ldst.extend(d0 + j for j in range(width))

        for t in range(2):  # the piles' top plates: their backs
            block(t, c_hint, C, start["pile_top_hint"] + t * C)
            block(t, c_mode, M, start["pile_top_mode"] + t * M)
            block(2 + t, c_front, Ff, start["pile_top_front"] + t * Ff)
        for i in range(n):
            block(4 + i, c_front, Ff, start["plate_front"] + i * Ff)
            block(4 + i, c_has, 1, start["has_plate"] + i)
            block(4 + n, c_play, S, start["spatula_in_play"] + i * S)
        block(5 + n, c_phase, P, start["phase"])
        block(6 + n, c_mo, M, start["mode"])
        block(7 + n, c_ch, n, D)  # the n extra columns: seat i chooses now
        self.lsrc, self.ldst = np.array(lsrc), np.array(ldst)
        self.c_play = c_play
        gathers = np.array(perms)  # (n, D): seat i's observation is the chef_0 vector gathered by row i
        gathers[:, self.choice_at] = D + np.arange(n)  # seat i's my_choice_turn: "seat i chooses now"
        self.gathers = gathers
        self.load_at = start["spatula_load"]

    # ------------------------------------------------------------------ the batch
    def observe(self, rows: Sequence[int], engines: Sequence["FryingMasterEngine"], obs: np.ndarray,
                masks: np.ndarray) -> None:
        """Write every seat's observation of ``engines[k]`` into ``obs[rows[k]]`` (float32
        ``(players, size)``) and its masks into ``masks[rows[k]]`` (int8 ``(players, A)``),
        exactly what ``encoder.observe_seats`` and ``engine.masks_into`` write (the masks by
        :func:`~envs.frying_master.legality.batch_masks`)."""
        self._door.check(rows, engines, obs, masks)
        G = len(engines)
        if G == 0:
            return
        n, S, F = self.n, self.S, self.F
        none = self.none_plate
        phase_of, casual_modes, gold_cap = self.phase_of, self.casual_modes, self.gold_to_win
        shows_front, SP0, PH0, MO0, CH0 = self.shows_front, self.SP0, self.PH0, self.MO0, self.CH0
        plate_memo, plate_stats = self._public._plate_memo, self._public._plate_stats
        done_stats = self._done_stats
        # ---- one pass of Python: each game's record (its values, each seat's, its lookups) in one list
        flat: list[int] = []
        load_idx: list[int] = []
        for g, eng in enumerate(engines):
            row = rows[g]
            a_cards, b_cards = eng.piles[0].cards, eng.piles[1].cards
            phase = phase_of[eng.phase]
            mode = eng.mode
            agents = eng.agents
            table = eng.table
            chooser = agents.index(eng.choose_queue[0]) + 1 if eng.phase == "choose" else 0
            top_a = a_cards[-1] if a_cards else none
            top_b = b_cards[-1] if b_cards else none
            spatulas = eng.spatulas
            flat += (phase, mode, eng.round_no, eng.play_tick, eng.countdown_left, eng.orders_to_end, chooser,
                     spatulas, len(a_cards), len(b_cards), top_a, top_b)
            flat += table.up
            flat += [len(d) for d in table.down]
            casual = mode in casual_modes
            edits = eng._edits
            last = eng.history[-1]["total"] if eng.history else None
            finishers = eng.finishers
            plates = []
            for i, a in enumerate(agents):
                plate = eng.plates[a]
                cards = eng.plate_cards[a]
                if plate is None:
                    flat += (none, 0, 0, 0)
                    plates.append(none)
                else:
                    key = (plate, tuple(cards), casual)
                    st = plate_memo.get(key)
                    if st is None:
                        st = plate_stats(key)
                    flat.append(plate)
                    flat += st
                    plates.append(plate)
                gold = eng.gold[a]
                flat += (1 if a in finishers else 0, gold if gold < gold_cap else gold_cap,
                         0 if last is None else int(last.get(a, 0)))
                flat += eng.busy[a]
                base = (g * n + i) * S
                for s, load in enumerate(eng.loads[a]):
                    flat.append(len(load))
                    if load:
                        b = (base + s) * F
                        load_idx += [b + f for f in load]
                flat += cards
                flat += done_stats(row, i, eng.completed[a], casual, edits)
            shown = shows_front[mode]
            flat += (top_a, top_b, top_a if shown else none, top_b if shown else none)
            flat += plates
            flat += (SP0 + spatulas, PH0 + phase, MO0 + mode, CH0 + chooser)
        # ---- the chef_0 vectors, every game at once
        R = game_records(flat, G).astype(np.int64, copy=False)  # (int64: the chooser's "- 1" below)
        v = np.zeros((G, self.D + n), dtype=np.float32)  # (+ n columns: "seat i chooses now")
        v[:, self.dst] = R[:, self.src]
        looked = self.look[R[:, self.L0:]].reshape(G, -1)  # (G, K x columns of the lookup table)
        v[:, self.ldst] = looked[:, self.lsrc]
        if load_idx:
            v[:, self.load_at:self.load_at + n * S * F] = np.bincount(load_idx, minlength=G * n * S * F).reshape(G, -1)
        # ---- the masks (legality's rules, every game at once)
        sr = R[:, self.W_GAME:self.L0].reshape(G, n, self.R_WIDTH)
        plate = sr[:, :, 0]
        sp = (4 + n) * self.look.shape[1] + self.c_play
        m = batch_masks(self.mask_plan, R[:, 0], R[:, 8:10] > 0, R[:, 6] - 1, R[:, self.G_UP:self.G_DOWN] > 0,
                        R[:, self.G_DOWN:self.W_GAME] > 0, plate, plate != none,
                        sr[:, :, self.R_CARDS:self.R_DONE].sum(axis=2), sr[:, :, self.R_BUSY:self.R_LOADN],
                        sr[:, :, self.R_LOADN:self.R_CARDS], looked[:, sp:sp + S] > 0, sr[:, :, 4] != 0)
        # ---- every seat's view: the chef_0 vector gathered by the seat's rotation (and "my choice turn")
        write_rows(rows, obs, masks, v, self.gathers, m)
