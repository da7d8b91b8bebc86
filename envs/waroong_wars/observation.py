"""The fast path of the observation: the public block once per state, the viewer's own cards per call.

:meth:`WaroongEncoder.encode_view` (built from a :class:`~envs.waroong_wars.public.PublicView`)
is the readable definition of the observation. :class:`ObservationBuilder`
produces the same bytes at a fraction of the cost, which matters because
every agent is observed after every step:

* the **public block** is a float32 vector in the observation's layout
  holding everything every player sees, with the per-player fields in
  *absolute* seat order and the viewer's private slots left at zero. It is
  built once per engine state and cached on the engine (``eng.obs_cache``),
  keyed by builder, ``tick`` and ``state_version``; the engine drops it on
  every step and on ``invalidate_masks()``. The display block and the
  scoring-pile/character block change rarely and are cached by content;
* a **view** for one seat is a single gather ``block[perm[seat]]``: the
  precomputed index array rotates the per-player fields into relative seat
  order (row ``k`` = the player ``k`` seats to the viewer's left) and is the
  identity elsewhere, and the gather returns a fresh array that nothing
  mutates later. Then only the viewer's own fields are written: ``must_pick``,
  ``pack``, ``hand_visible``, ``hand``, ``customers`` and ``score``.

No leak: the block is filled only from public state (sizes, face-up cards,
piles, supplies, the pending decision), exactly the fields of
:class:`~envs.waroong_wars.public.PublicView` other than the viewer's own;
the private slots take the viewer's own cards under the same visibility rule
as :func:`envs.waroong_wars.public.build`. ``tests/waroong_wars/test_fast_observation.py``
checks the fast path equals ``encode_view`` on many states of every
configuration, and that the cache follows state changes.
"""

from __future__ import annotations

from operator import mul
from typing import TYPE_CHECKING

import numpy as np

from envs.waroong_wars import scoring

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.encoding import WaroongEncoder
    from envs.waroong_wars.engine import WaroongEngine

PHASE_INDEX = {"draft": 0, "cook": 1, "over": 2}
THEFT_INDEX = {"maling": 0, "perayu": 1}  # order of the ``pending_theft`` one-hot (encoding.ABILITIES)

#: Per-player fields (rows in relative seat order in the observation, absolute in the public block).
RELATIVE_FIELDS = ("picked", "hand_sizes", "customer_counts", "go_boy", "tokens", "menus", "menu_vp", "pile_dishes",
                   "characters", "public_scores", "active", "first_cook", "pending_attacker", "pending_target",
                   "pending_extra")
#: The viewer's own fields after ``must_pick``, consecutive in the layout (written as one run).
PRIVATE_RUN = ("pack", "hand_visible", "hand", "customers", "score")
#: Consecutive per-player count fields written as one run of the public block.
SEAT_RUN = ("hand_sizes", "customer_counts", "go_boy", "tokens", "menus", "menu_vp")
DISPLAY_RUN = ("display_present", "display_requires", "display_vp", "display_icons", "display_dish",
               "display_cookable")
PILE_RUN = ("pile_dishes", "characters")
#: Content-keyed caches are cleared when they reach this many entries.
CACHE_LIMIT = 512


def _run(slices: dict[str, slice], names: tuple[str, ...]) -> slice:
    """The slice covering ``names``, which must be consecutive in the layout."""
    for a, b in zip(names, names[1:]):
        if slices[a].stop != slices[b].start:
            raise ValueError(f"observation fields {a!r} and {b!r} are not consecutive")
    return slice(slices[names[0]].start, slices[names[-1]].stop)


def seat_permutations(slices: dict[str, slice], size: int, n: int) -> list[np.ndarray]:
    """Per viewer seat: the gather indices that turn absolute seat rows into relative ones."""
    perms = []
    for viewer in range(n):
        perm = np.arange(size, dtype=np.intp)
        for name in RELATIVE_FIELDS:
            s = slices[name]
            width = (s.stop - s.start) // n
            for k in range(n):
                src = s.start + ((viewer + k) % n) * width
                dst = s.start + k * width
                perm[dst:dst + width] = np.arange(src, src + width)
        perm.flags.writeable = False
        perms.append(perm)
    return perms


class ObservationBuilder:
    """Builds :class:`WaroongEncoder` observations from the engine (see the module docstring)."""

    __slots__ = ("enc", "n", "size", "perms", "template", "zeros", "i_phase", "i_round", "i_last", "i_deck_left",
                 "i_pick_no", "i_must", "s_picked", "s_display", "s_seat", "s_piles", "s_public_scores", "i_active",
                 "i_first", "i_turns", "i_cooked", "i_tokens", "i_go_boy", "i_customer_deck", "s_discard",
                 "i_theft", "i_attacker", "i_target", "i_extra", "s_private", "_display_cache", "_pile_cache")

    def __init__(self, enc: "WaroongEncoder"):
        self.enc = enc
        s = enc.layout.slices
        self.n = n = enc.n
        self.size = enc.layout.size
        self.perms = seat_permutations(s, self.size, n)
        self.template = enc.layout.zeros()
        self.template[s["variants"]] = enc._variants
        self.zeros = [0] * enc.cat.n_types
        self.i_phase = s["phase"].start
        self.i_round, self.i_last = s["round"].start, s["last_round"].start
        self.i_deck_left, self.i_pick_no = s["menu_deck_left"].start, s["pick_no"].start
        self.i_must = s["must_pick"].start
        self.s_picked = s["picked"]
        self.s_display = _run(s, DISPLAY_RUN)
        self.s_seat = _run(s, SEAT_RUN)
        self.s_piles = _run(s, PILE_RUN)
        self.s_public_scores = s["public_scores"]
        self.i_active, self.i_first = s["active"].start, s["first_cook"].start
        self.i_turns, self.i_cooked = s["turns_taken"].start, s["cooked_this_turn"].start
        self.i_tokens, self.i_go_boy = s["token_supply"].start, s["go_boy_supply"].start
        self.i_customer_deck, self.s_discard = s["customer_deck"].start, s["customer_discard"]
        self.i_theft, self.i_attacker = s["pending_theft"].start, s["pending_attacker"].start
        self.i_target, self.i_extra = s["pending_target"].start, s["pending_extra"].start
        self.s_private = _run(s, PRIVATE_RUN)
        self._display_cache: dict[tuple, np.ndarray] = {}
        self._pile_cache: dict[tuple, np.ndarray] = {}

    # ------------------------------------------------------------------ per viewer
    def observe(self, eng: "WaroongEngine", seat: int) -> np.ndarray:
        """The observation of ``seat``: a fresh float32 array, equal to ``encode_view(public.build(eng, seat))``."""
        _, _, _, block, public_scores = self._cached(eng)
        o = block[self.perms[seat]]
        drafting = eng.phase == "draft"
        if drafting:
            if not eng.picked[seat]:
                o[self.i_must] = 1.0
            pack = eng.packs[seat]
            visible = eng.no_memory
        else:
            pack = self.zeros
            visible = True
        hand = eng.hands[seat] if visible else self.zeros
        held = eng.customers[seat]
        score = public_scores[seat] + sum(map(mul, held, eng.customer_vp))  # == scoring.score
        o[self.s_private] = [*pack, visible, *hand, *held, score]
        return o

    # ------------------------------------------------------------------ once per state
    def public_block(self, eng: "WaroongEngine") -> np.ndarray:
        """The public block of the current state (cached on the engine; never mutated once built)."""
        return self._cached(eng)[3]

    def public_scores(self, eng: "WaroongEngine") -> list[int]:
        """Every seat's :func:`scoring.public_score` in the current state (cached with the block)."""
        return self._cached(eng)[4]

    def _cached(self, eng: "WaroongEngine") -> tuple:
        cache = eng.obs_cache
        if cache is not None and cache[0] is self and cache[1] == eng.tick and cache[2] == eng.state_version:
            return cache
        cache = eng.obs_cache = (self, eng.tick, eng.state_version, *self.build_public_block(eng))
        return cache

    def build_public_block(self, eng: "WaroongEngine") -> tuple[np.ndarray, list[int]]:
        """Everything every player sees, per-player fields in absolute seat order, private slots zero;
        and the public scores (``public_scores`` in absolute seat order, also as a list)."""
        b = self.template.copy()
        phase = eng.phase
        b[self.i_phase + PHASE_INDEX[phase]] = 1.0
        b[self.i_round] = eng.round
        b[self.i_last] = eng.last_round
        b[self.i_deck_left] = len(eng.menu_deck)
        b[self.i_pick_no] = eng.pick_no
        if phase == "draft":
            b[self.s_picked] = eng.picked
        b[self.s_display] = self.display_block(eng.display, eng.constraint)
        piles = eng.piles
        pile_block, menu_vps, pairs = self.pile_parts(eng)
        tokens = eng.tokens
        b[self.s_seat] = [*map(sum, eng.hands), *map(sum, eng.customers), *eng.go_boy, *tokens,
                          *map(len, piles), *menu_vps]
        b[self.s_piles] = pile_block
        public_scores = [v + t + x for v, t, x in zip(menu_vps, tokens, pairs)]  # == scoring.public_score
        b[self.s_public_scores] = public_scores
        if phase == "cook":
            b[self.i_active + eng.turn] = 1.0
        b[self.i_first + eng.first] = 1.0
        b[self.i_turns] = eng.turns_taken
        b[self.i_cooked] = len(eng.cooked_this_turn)
        b[self.i_tokens] = eng.token_supply
        b[self.i_go_boy] = eng.go_boy_supply
        b[self.i_customer_deck] = len(eng.customer_deck)
        b[self.s_discard] = eng.customer_discard
        p = eng.pending
        if p is not None:
            if p["kind"] == "theft":
                b[self.i_theft + THEFT_INDEX[p["ability"]]] = 1.0
                b[self.i_attacker + p["attacker"]] = 1.0
                b[self.i_target + p["target"]] = 1.0
            else:
                b[self.i_extra + p["seat"]] = 1.0
        return b, public_scores

    # ------------------------------------------------------------------ content-keyed parts
    def display_block(self, display: list[int], constraint: bool) -> np.ndarray:
        """The display fields of ``display`` (encoded by the reference ``_display``; cached by content)."""
        key = (*display, constraint)
        block = self._display_cache.get(key)
        if block is None:
            enc = self.enc
            buf = enc.layout.zeros()
            enc._display(buf, enc._o, display, constraint)
            block = buf[self.s_display].copy()
            block.flags.writeable = False
            if len(self._display_cache) >= CACHE_LIMIT:
                self._display_cache.clear()
            self._display_cache[key] = block
        return block

    def pile_parts(self, eng: "WaroongEngine") -> tuple[np.ndarray, list[int], list[int]]:
        """What depends only on the scoring piles and characters (cached by their content): the
        ``pile_dishes`` + ``characters`` fields in absolute seat order (by the reference ``_seat_rows``),
        and per seat the menus' VP and Geng Bajoel's pair bonus (by :mod:`scoring`)."""
        piles, characters = eng.piles, eng.characters
        key = (*map(tuple, piles), *characters)
        parts = self._pile_cache.get(key)
        if parts is None:
            dishes, chars = self.enc._seat_rows(range(self.n), piles, characters)
            block = np.concatenate([dishes.reshape(-1), chars.reshape(-1)])
            block.flags.writeable = False
            parts = (block, [scoring.menu_points(eng, s) for s in range(self.n)],
                     [scoring.pair_points(eng, s) for s in range(self.n)])
            if len(self._pile_cache) >= CACHE_LIMIT:
                self._pile_cache.clear()
            self._pile_cache[key] = parts
        return parts
