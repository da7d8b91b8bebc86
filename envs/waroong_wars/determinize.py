"""One determinisation for the search player: a full engine whose hidden parts are re-sampled.

What a player cannot see (:mod:`envs.waroong_wars.public`), and what is therefore dealt afresh
from the cards out of the viewer's sight, every public count kept:

* **Ingredient cards**: the other players' hands (their sizes are public), the packs in front
  of the others while Shopping, and the ingredient deck; also the viewer's own face-down picks
  while Shopping when the viewer cannot look at them (No-Memory Chef off) and does not
  remember them (``own_actions`` holds the picks this seat made this round: a player remembers
  what they took). The pool is every ingredient card not in the viewer's own hand or pack and
  not used this round (used cards were cooked face up).
* **Customer cards**: the other players' (their counts are public) and the customer deck. Where
  the drafters' rule (below) placed a seat's picks, that seat is dealt one of the Tukangs under
  which the rule explained them (none, or one of a category, at the odds the rule kept) and no
  other Tukang, so that it drafts and cooks in the simulations as its picks said.
* **Menu cards**: the menu deck's order, and which of the menus not on the table (not in the
  display, not in a scoring pile) are in the deck rather than back in the box.
* **The generator**: a fresh one.

**The packs seen this round** (``memory``, the items :func:`remember` gave at this seat's earlier
picks: the pack in front of it at each pick; with ``own_actions``, what it took from each): packs
pass left, so the pack this seat saw ``t`` picks ago, less its own pick, is in front of the seat
``t`` places to its left (``t < n``), less one card for each seat in between, which went into
that seat's hand; a pack seen ``n`` picks apart came round the table, so what the others took
from it is known as a multiset, one card to each of them. The seen packs are placed so (which
card each seat in between took is drawn uniformly from the known cards), and the rest is dealt
as above. A memory that does not fit the table (not this round's, a pick missing) is not used.

**After Shopping** the same memory still counts (3-5 players): the round's picks, the packs seen
and the first hand this seat saw in the Cooking phase (its picks and the last card, taken without
a decision) place the cards each other seat drafted from those packs, in the hands of the seats
whose Cooking turn has not begun and whose hand is still the size Shopping left it (the others
have used, or may have used, those cards: dealt as before). The drafters' rule below then reads
the table as the seat saw it at its last pick, which the memory keeps.

**The other drafters' rule** (:func:`_infer_draft`). From pick ``n - 1`` of a round on (counting
from 0), this seat has seen every starting pack once: the pack it saw at pick ``j`` started ``j`` seats to its
right and had lost one card to each seat in between. Those ``n (n - 1) / 2`` cards (3, 6 or 10) are
unseen, and every other pick follows from them by the drafter's rule. Modelling the others as the
heuristic drafter (told the table's public state and the picks in question as its hand; of its
customer cards, which the viewer cannot see, the rule reads only the Tukangs: none or one, of each
category, at the odds of its public customer count), the inference keeps the choices of those
cards (drawn from the unseen pool: the pool less the cards this seat saw) and Tukangs whose replay
of the round gives every pack this seat saw, weighted by those odds and by how many ways the
unseen pool deals the cards, and a determinisation draws one: every other seat's hand and the
pack in front of it then follow, and its customer cards hold a Tukang that explains its picks
(:func:`_deal_customers`; in the Cooking phase for the seats yet to cook that hold as many
customer cards as at the last pick). At 3 players every choice is enumerated; at 4-5 there are too
many for a decision's budget, so paths through them are sampled by the rule with importance
weights, from a generator seeded by what the seat saw. None consistent (the others draft
otherwise): the seen packs are placed as above.

**A trained drafter beside the heuristic** (:class:`DrafterModel`; the planner's
``drafters=checkpoint:DIR``). With a model, each other seat drafts either as the heuristic or as
the model all round: one more hidden kind per seat beside its Tukang, kept where its picks fit, at
odds that :func:`drafter_shares` reads from this game's earlier rounds (each remembered whole,
inferred with even odds; a seat is the same player all game). The model's pick is read from this
seat's own public view with the other seat's place, pick, pack and picks put in, its customer cards
taken as the Tukang in question and its score as its public score: nothing of the true hidden state.
With ``kinds`` (the planner's ``others=drafters``) a determinisation also draws each other seat's kind
at the odds the rule gives it and names it (``sim_models``), so that in that world's simulations the
seat plays that drafter (:class:`envs.core.search.SeatModels`).

The pools enter only as sorted multisets, so where the true cards lie (which opponent holds
which card, the deck order) cannot influence the result. Simplification: the deal forgets the
cards given to or taken from a known opponent by Mbok Bakul or a theft, and before pick ``n - 1``
(or against drafters the heuristic does not explain) draws uniformly which seen card each opponent
took; that loses information, it leaks none. The drafter model is a model: against other drafters it
can place cards wrongly, never from the true hidden state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import zlib
from functools import lru_cache

import numpy as np

from envs.core.seeding import make_rng
from envs.waroong_wars.rules.characters import EXTRA_INGREDIENT_POWER
from envs.waroong_wars.rules.cooking import EMPTY

if TYPE_CHECKING:
    from envs.core.policy import Policy
    from envs.waroong_wars.engine import WaroongEngine


def remembered_picks(engine: "WaroongEngine", seat: int, own_actions: Sequence[int]) -> list[int] | None:
    """The viewer's own hand while Shopping, from its own picks this round (the last ``pick_no``
    of its actions, when all of them are picks), or None when they are not all known."""
    k = engine.pick_no
    picks = list(own_actions[len(own_actions) - k:]) if k else []
    pick0, n_types = engine.ix.pick0, engine.cat.n_types
    if len(picks) != k or not all(pick0 <= a < pick0 + n_types for a in picks):
        return None
    hand = [0] * n_types
    for a in picks:
        hand[a - pick0] += 1
    return hand


def remember(engine: "WaroongEngine", agent: str) -> tuple | None:
    """What a perfect memory keeps of this moment for ``agent`` (public to it): while Shopping, the
    pack in front of it and its public view, as ``("pack", round, pick_no, counts, view)`` (the view:
    the table the drafters' rule reads in the Cooking phase, :func:`shopping_view`); in the Cooking
    phase, its own hand, as ``("hand", round, counts)`` (the first of a round shows the hand
    Shopping left it, unless another player's power changed it before: :func:`_seen_last_draft`
    checks); else None."""
    view = engine.public_view(agent)
    if engine.phase == "draft":
        return ("pack", view.round, view.pick_no, tuple(view.pack), view)
    if engine.phase == "cook" and view.hand_visible:
        return ("hand", view.round, tuple(view.hand))
    return None


def _remembered(memory: Sequence, round_no: int) -> tuple[dict[int, list[int]], list[int] | None]:
    """This round's items of ``memory``: the packs seen, by pick number, and the first hand seen in
    the Cooking phase (None if none)."""
    packs, hand = {}, None
    for item in memory:
        if not isinstance(item, tuple) or len(item) < 3 or item[1] != round_no:
            continue
        if item[0] == "pack" and len(item) in (4, 5):
            packs[item[2]] = list(item[3])
        elif item[0] == "hand" and len(item) == 3 and hand is None:
            hand = list(item[2])
    return packs, hand


def shopping_view(memory: Sequence, round_no: int, viewer: int):
    """The viewer's public view at its last remembered pick of round ``round_no`` (the table as the
    drafters saw it: in the Cooking phase menus have been cooked and customers drawn since), or
    None when the memory holds none."""
    best = None
    for item in memory:
        if isinstance(item, tuple) and len(item) == 5 and item[0] == "pack" and item[1] == round_no \
                and getattr(item[4], "viewer", None) == viewer and (best is None or item[2] > best[2]):
            best = item
    return None if best is None else best[4]


def _seen_pairs(packs: dict[int, list[int]], picks: Sequence[int], per_hand: int, n_types: int):
    """``[(P_j, R_j)]`` for the picks ``j`` of ``picks`` (card types): the pack seen and what was left
    of it after this seat's pick; None unless every pack is remembered, holds ``per_hand - j``
    cards and the card picked from it."""
    out = []
    for j, t in enumerate(picks):
        p = packs.get(j)
        if p is None or len(p) != n_types or sum(p) != per_hand - j or not 0 <= t < n_types or p[t] < 1:
            return None
        out.append((p, _minus(p, t)))
    return out


def _seen_this_round(engine: "WaroongEngine", now: Sequence[int], own_actions: Sequence[int], memory: Sequence):
    """``[(P_j, R_j)]`` for the picks ``j < pick_no`` this round (the pack seen, and what was left
    of it after this seat's pick), then ``(now, None)`` (the pack in front of it now); None unless
    every one of them is remembered and fits."""
    k = engine.pick_no
    if engine.phase != "draft" or k == 0:
        return None
    picks = list(own_actions[len(own_actions) - k:])
    per_hand = engine.cat.components["cards_dealt_per_player"]
    if len(picks) != k or sum(now) != per_hand - k:
        return None
    packs, _ = _remembered(memory, engine.round)
    out = _seen_pairs(packs, [a - engine.ix.pick0 for a in picks], per_hand, engine.cat.n_types)
    return None if out is None else out + [(list(now), None)]


def _seen_last_draft(engine: "WaroongEngine", own_actions: Sequence[int], memory: Sequence):
    """In the Cooking phase, this round's Shopping as :func:`_seen_this_round` gives it at its end:
    ``[(P_j, R_j)]`` for every pick ``j`` of the round (the pack seen, and what was left of it after
    this seat's pick; the last pick, one card taken without a decision, read from the first hand
    this seat saw this round), then ``(empty pack, None)``; None unless every pick and pack is
    remembered and the first hand is the picks and one card more."""
    if engine.phase != "cook":
        return None
    n_types, pick0 = engine.cat.n_types, engine.ix.pick0
    decided = engine.cat.components["cards_dealt_per_player"] - 1
    picks = [a - pick0 for a in own_actions if pick0 <= a < pick0 + n_types][-decided:]
    return _seen_draft_of(engine, memory, engine.round, picks)


def _round_picks(engine: "WaroongEngine", own_actions: Sequence[int], round_no: int) -> list[int] | None:
    """The card types this seat picked by decision in the earlier round ``round_no``: each round's
    Shopping takes ``cards_dealt_per_player - 1`` decisions (the last card comes without one), the
    current round's picks so far are the last of ``own_actions``' picks; None if they do not add up."""
    n_types, pick0 = engine.cat.n_types, engine.ix.pick0
    decided = engine.cat.components["cards_dealt_per_player"] - 1
    picks = [a - pick0 for a in own_actions if pick0 <= a < pick0 + n_types]
    now = engine.pick_no if engine.phase == "draft" else decided
    end = len(picks) - now - (engine.round - 1 - round_no) * decided
    if not 1 <= round_no < engine.round or end - decided < 0:
        return None
    return picks[end - decided:end]


def _seen_draft_of(engine: "WaroongEngine", memory: Sequence, round_no: int, picks: list[int]):
    """Round ``round_no``'s Shopping as this seat saw it by its end (:func:`_seen_last_draft`), its
    picks by decision given."""
    n_types = engine.cat.n_types
    per_hand = engine.cat.components["cards_dealt_per_player"]
    packs, hand = _remembered(memory, round_no)
    decided = per_hand - 1
    if hand is None or len(hand) != n_types or len(picks) != decided:
        return None
    last = list(hand)
    for t in picks:
        last[t] -= 1
    if min(last) < 0 or sum(last) != 1:
        return None  # not the picks and one card (a power changed the hand, or Cak Londho's extra card)
    packs[decided] = last
    out = _seen_pairs(packs, picks + [last.index(1)], per_hand, n_types)
    return None if out is None else out + [([0] * n_types, None)]


#: a seat whose chance of drafting as the trained model is this close to 0 or 1 is modelled by the one
#: drafter alone (the other kind's branches cost more than the little weight they would carry)
SETTLED = 0.05
#: the most a single earlier round moves the odds that a seat drafts as the trained model (either way):
#: the model's pick is read from an approximate view (98% of picks right), so no round is proof
ROUND_ODDS_CAP = 20.0


def drafter_shares(engine: "WaroongEngine", v: int, own_actions: Sequence[int], memory: Sequence,
                   model: DrafterModel) -> dict[int, float]:
    """Per other seat, the chance that it drafts as ``model`` rather than as the heuristic, from the
    model's share (the prior) and every earlier round of this game that this seat remembers whole:
    each such round's drafters' inference (every starting pack seen, the pool every ingredient card
    but those this seat saw) weighs the kinds of each seat, and the odds it gives (at most
    :data:`ROUND_ODDS_CAP` either way) multiply. A seat is the same player all game, so a heuristic
    seat stops being read as the model after a round or two, and the model's seat the other way."""
    n = engine.n
    q = model.share
    odds = {s: q / (1.0 - q) for s in range(n) if s != v}
    even = model.with_share(0.5)
    pool = sorted(engine.cat.ingredient_deck)
    cpool = _unseen_customers(engine, v)
    for r in range(1, engine.round):
        picks = _round_picks(engine, own_actions, r)
        table = shopping_view(memory, r, v)
        seen = _seen_draft_of(engine, memory, r, picks) if picks is not None and table is not None else None
        if not seen:
            continue
        _, post = _infer_draft(table, seen, pool, cpool, model=even, with_posterior=True)
        for s, p in post.items():
            odds[s] *= min(ROUND_ODDS_CAP, max(1.0 / ROUND_ODDS_CAP, p / max(1.0 - p, 1e-12)))
    return {s: o / (1.0 + o) for s, o in odds.items()}


def _yet_to_cook(engine: "WaroongEngine", view, v: int) -> set[int]:
    """The other seats whose Cooking turn this round has not begun and whose hand is still the size
    Shopping left it (public: the marker, how many turns were taken, what the seat on turn has done
    so far, the hand sizes and the characters): they hold every card they drafted."""
    n = view.n
    per_hand = engine.cat.components["cards_dealt_per_player"]
    order = [(view.first + i) % n for i in range(n)]
    later = set(order[view.turns_taken + 1:])
    if view.turns_taken < n and not view.cooked_this_turn and not any(view.mbok_exchanges) \
            and not any(any(t) for t in view.thefts):
        later.add(order[view.turns_taken])
    later.discard(v)
    return {s for s in later
            if view.hand_sizes[s] == per_hand + (engine.power(s) == EXTRA_INGREDIENT_POWER)}


def _plus(p: Sequence[int], *types: int) -> list[int]:
    """Counts ``p`` with one more card of each of ``types``."""
    q = list(p)
    for t in types:
        q[t] += 1
    return q


def _minus(p: Sequence[int], t: int) -> list[int]:
    """Counts ``p`` with one card of type ``t`` fewer."""
    q = list(p)
    q[t] -= 1
    return q


#: how many draft inferences :func:`_infer_draft` keeps (a decision's determinisations share one)
_INFERENCES_KEPT = 256
#: how many paths through the unseen cards :func:`_infer_draft` draws with 4 or 5 players
_PATHS_SAMPLED = 32
_inferences: dict = {}


@lru_cache(maxsize=1)
def _heuristic_drafter():
    """The heuristic whose drafting rule models the other seats (its value tables are kept across
    inferences; it remembers nothing of a game: it is asked with explicit hands)."""
    from envs.waroong_wars.heuristic import HeuristicPolicy

    return HeuristicPolicy(recall="world")


#: a trained drafter model's default share: the chance, before any round of the game is seen, that a seat
#: drafts as the model rather than as the heuristic. Low, so that a table of heuristic drafters costs
#: their inference little (their hand cards placed: 74.3% against 75.2% without a model, 72.9% at an even
#: share), while a seat that drafts as the model is recognised after a round (docs/search.md)
DRAFTER_PRIOR = 0.1


class DrafterModel:
    """A trained policy as a drafter, for the drafters' rule (the planner's ``drafters=checkpoint:DIR``).

    ``observe(view, picks)``: the env's observation vector of a
    :class:`~envs.waroong_wars.public.PublicView` for its viewer, ``picks`` the viewer's picks this
    round (what an ``own_picks`` observation adds); ``logits(X, seat)``: the policy's scores of every
    action for the rows of ``X``, observations of seat ``seat``; ``key`` names the policy (inferences
    are kept per model); ``share``: the prior chance that another seat drafts as this policy rather
    than as the heuristic (:data:`DRAFTER_PRIOR`); ``slices``: where the observation holds the viewer's ``pack`` and
    ``customers`` (:attr:`envs.waroong_wars.encoding.WaroongEncoder.layout`), so that the rows of one
    seat, hand and pick that differ only there are patched from one observation (``None``: each row
    observed). Its pick from a pack is the pack's first card type with the highest score."""

    def __init__(self, observe, logits, key: str, share: float = DRAFTER_PRIOR, slices: dict | None = None):
        if not 0.0 < share < 1.0:
            raise ValueError(f"share must lie strictly between 0 and 1 (the prior chance of this model against "
                             f"the heuristic), got {share!r}")
        if slices is not None and set(slices) != {"pack", "customers"}:
            raise ValueError(f"slices must name 'pack' and 'customers', got {sorted(slices)}")
        self.observe, self.logits, self.key, self.share, self.slices = observe, logits, str(key), float(share), slices

    def with_share(self, share: float) -> "DrafterModel":
        return DrafterModel(self.observe, self.logits, self.key, share, self.slices)


class _Drafter:
    """The choice of a drafter in a seat the viewer cannot see into (:meth:`pick`): the heuristic
    drafter's, or with a :class:`DrafterModel`, that model's (a seat's *kind* is ``(model, tukang)``:
    model 0 the heuristic, 1 the trained one; tukang the category of its one Tukang customer or -1);
    read from the viewer's own public view with that seat's place, pick number and customer cards
    put in; kept for one inference (its calls repeat)."""

    def __init__(self, view, model: DrafterModel | None = None, shares: dict[int, float] | None = None):
        from envs.waroong_wars.actions import action_index

        self.view, self.ix, self.h, self.model = view, action_index(view.n), _heuristic_drafter(), model
        self.shares = shares or {}
        self.picks: dict = {}
        self.bases: dict = {}
        self.n_types = self.h.cat.n_types
        self.every_pick = {self.ix.pick0 + t for t in range(self.n_types)}
        self.views: dict = {}
        self.memo: dict = {}

    def kinds(self, seat: int, count: int, cpool: list[int]) -> list[tuple[tuple[int, int], float]]:
        """``[((model, tukang), odds)]`` for ``seat`` holding ``count`` customer cards: the Tukang odds
        (:func:`_tukang_odds`), with a model split between the heuristic and the model by the seat's
        share (``shares``; default the model's own)."""
        odds = _tukang_odds(count, cpool, self.h.tukang_kinds)
        if self.model is None:
            return [((0, tuk), w) for tuk, w in odds]
        q = self.shares.get(seat, self.model.share)
        if q <= SETTLED or q >= 1.0 - SETTLED:  # the seat's kind is settled: one drafter, fewer branches
            m = int(q >= 1.0 - SETTLED)
            return [((m, tuk), w) for tuk, w in odds]
        return [((0, tuk), w * (1.0 - q)) for tuk, w in odds] + [((1, tuk), w * q) for tuk, w in odds]

    def pick(self, seat: int, hand: list[int], pack: list[int], pick_no: int, kind: tuple[int, int] = (0, -1),
             tuks: Sequence[int] = ()) -> int:
        """The card type a drafter of ``kind`` in ``seat`` takes from ``pack`` holding ``hand``
        (the heuristic's rule reads no customer card but the Tukang): the first of the pack's types
        with the highest score. The heuristic's score of a type does not depend on the rest of the
        pack (it values each candidate on its own), so every type is scored once per hand and read
        for any pack; a trained model's is read for each pack (its observation shows the pack), with
        those for the other Tukangs ``tuks`` in the same batch. (Kept per kind, seat, hand, pack and
        pick: the inference asks the same often.)"""
        key = (kind, seat, tuple(hand), tuple(pack), pick_no)
        best_t = self.picks.get(key)
        if best_t is not None:
            return best_t
        model, tuk = kind
        if model == 0:
            scores, best = self.scores(seat, hand, pick_no, tuk), -1.0
        else:
            scores, best = self.model_scores(seat, hand, pick_no, [(pack, t) for t in (tuk, *tuks)])[0], -np.inf
        best_t = -1
        for t, c in enumerate(pack):
            if c and scores[t] > best:
                best, best_t = scores[t], t
        self.picks[key] = best_t
        return best_t

    def _as_seat(self, seat: int, pick_no: int, tuk: int, **more):
        """The viewer's view as ``seat`` would see the table at pick ``pick_no`` holding one Tukang of
        category ``tuk`` (-1: no customer card the rule reads)."""
        from dataclasses import replace

        customers = [0] * len(self.view.customers)
        if tuk >= 0:
            customers[self.h.tukang_kinds[tuk]] = 1
        return replace(self.view, viewer=seat, pick_no=pick_no, customers=tuple(customers), **more)

    def scores(self, seat: int, hand: list[int], pick_no: int, tuk: int) -> list[float]:
        """The heuristic's score of every card type as the next pick of ``seat`` holding ``hand``."""
        key = (seat, tuple(hand), pick_no, tuk)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        vkey = (seat, pick_no, tuk)
        as_seat = self.views.get(vkey)
        if as_seat is None:
            as_seat = self.views[vkey] = self._as_seat(seat, pick_no, tuk)
        pick0 = self.ix.pick0
        out = [-1.0] * self.n_types
        for a, value in self.h._pick_scores(as_seat, self.every_pick, self.ix, list(hand)):
            out[a - pick0] = value
        self.memo[key] = out
        return out

    def model_scores(self, seat: int, hand: list[int], pick_no: int, rows: Sequence) -> list[list[float]]:
        """The trained model's score (logit) of every card type as ``seat``'s pick holding ``hand``, for
        each ``(pack, tukang)`` of ``rows``: the viewer's view with that seat's place, pick number,
        pack, hand (its own picks; its hand only where hands are visible), the Tukang as its customer
        cards, its public score as its score, every seat holding ``pick_no`` cards and nobody's pick of
        this pack made yet (measured on ``waroong_wars/memory``'s own games, 3 players: the pick so read
        is its true pick at 98% of its Shopping decisions, docs/search.md). Rows not seen before are
        computed in one batch."""
        h = tuple(hand)
        keys = [(1, seat, h, tuple(p), pick_no, t) for p, t in rows]
        todo = list(dict.fromkeys(k for k in keys if k not in self.memo))
        if todo:
            m, v = self.model, self.view
            n_cust, zeros = len(v.customers), (0,) * self.n_types

            def customers(t):
                c = [0] * n_cust
                if t >= 0:
                    c[self.h.tukang_kinds[t]] = 1
                return c

            def as_seat(pack, t):
                return self._as_seat(seat, pick_no, t, pack=pack, picked=(False,) * v.n,
                                     hand=h if v.hand_visible else zeros, hand_sizes=(pick_no,) * v.n,
                                     score=v.public_scores[seat])

            if m.slices is None:
                x = np.stack([m.observe(as_seat(k[3], k[5]), h) for k in todo])
            else:  # one observation per seat, hand and pick, the pack and customers patched in
                bkey = (seat, h, pick_no)
                base = self.bases.get(bkey)
                if base is None:
                    base = self.bases[bkey] = m.observe(as_seat(todo[0][3], todo[0][5]), h)
                x = np.repeat(base[None], len(todo), axis=0)
                x[:, m.slices["pack"]] = [k[3] for k in todo]
                x[:, m.slices["customers"]] = [customers(k[5]) for k in todo]
            pick0 = self.ix.pick0
            for k, row in zip(todo, m.logits(x, seat)[:, pick0:pick0 + self.n_types].tolist()):
                self.memo[k] = row
        return [self.memo[k] for k in keys]


def _tukang_odds(count: int, cpool: list[int], tukang_kinds: list[int]) -> list[tuple[int, float]]:
    """``[(category or -1, weight)]``: how likely a seat holding ``count`` customer cards dealt from
    the unseen customers ``cpool`` holds no Tukang (-1) or exactly one, of each category (two or
    more are left out): hypergeometric odds, up to a common factor."""
    from math import comb

    if count == 0:
        return [(-1, 1.0)]
    held = [cpool.count(k) for k in tukang_kinds]
    others = len(cpool) - sum(held)
    out = [(-1, float(comb(others, count)))]
    out += [(c, float(h * comb(others, count - 1))) for c, h in enumerate(held) if h]
    return [(c, w) for c, w in out if w > 0]


def _infer_draft(view, seen, pool: list[int], cpool: list[int], paths: int | None = None,
                 model: DrafterModel | None = None, shares: dict[int, float] | None = None,
                 with_posterior: bool = False, with_tukangs: bool = False):
    """From pick ``n - 1`` of a round on (and in its Cooking phase), with every other seat's
    starting pack seen once: the round's Shopping that the other seats' heuristic drafting and what
    this seat saw allow. The pack this seat saw at pick ``j`` started ``j`` seats to its right and
    lost one card to each seat in between, at picks ``0 .. j - 1``: those ``n (n - 1) / 2`` cards are
    unseen, and every other pick follows from them, the seen packs and the drafter's rule, given each
    seat's Tukang customers (none or one, of a category: :func:`_tukang_odds`). The unseen cards are
    enumerated pack by pack, each pack's last taker first, so that the taker's hand is known when its
    pick is checked against the rule; a seat's Tukangs are carried as the set of those its picks so
    far allow. The round is then replayed from the starting packs this gives, and kept where every
    pack this seat saw comes out. Returns ``[(weight, hands, packs)]`` (weight: the Tukangs' odds times
    how many ways the unseen pool deals the cards; the other seats' hands and the packs in front of
    them now), or ``[]`` when none is consistent (the others do not draft as the heuristic does).

    With 3 players (three unseen cards) every choice is enumerated. With 4 or 5 (six or ten) there
    are too many for a decision's budget: ``paths`` (default :data:`_PATHS_SAMPLED`) paths through
    them are drawn card by card among those the rule allows, from a generator seeded by what this
    seat saw (so the same view gives the same inference), each weighted by the inverse of its draw's
    probability; those weights estimate the enumeration's. ``paths=0`` enumerates at any count.

    With a trained ``model`` (:class:`DrafterModel`) each other seat drafts either as the heuristic or
    as the model, all round (one more hidden kind beside its Tukang), at the odds ``shares`` gives for
    it (default: the model's share); ``with_posterior`` returns ``(states, posterior)``, the posterior
    per other seat the chance, over the kept states, that it drafted as the model (empty without a
    model or without a kept state).

    ``with_tukangs`` adds, after the states (and the posterior), one entry per state: for each other
    seat, ``((tukang, odds), ...)``, the Tukangs (a category, or -1 for none) under which its picks in
    that state follow the rule, with their odds normalised to 1 (:func:`determinize` deals its customer
    cards to match one of them)."""
    k = len(seen) - 1
    v, n, n_types = view.viewer, view.n, len(seen[0][0])
    if paths is None:
        paths = 0 if n == 3 else _PATHS_SAMPLED
    key = (paths, view.round, view.display, view.go_boy, view.characters, view.piles, view.token_supply > 0,
           view.customer_counts, tuple((tuple(p), tuple(r) if r is not None else None) for p, r in seen),
           tuple(pool), tuple(cpool))
    if model is not None:  # (the key without a model is the one before models were added: the same paths drawn)
        key += (model.key, model.share, tuple(sorted((shares or {}).items())))
    hit = _inferences.get(key)
    if hit is not None:
        return _inferred(hit, with_posterior, with_tukangs)
    drafter = _Drafter(view, model, shares)
    # the unseen cards in enumeration order: (j, i) is the card the seat v - j + i took at pick i
    # from the pack that started at seat v - j (seen at pick j)
    slots = [(j, i) for j in range(1, n) for i in range(j - 1, -1, -1)]
    others = [s for s in range(n) if s != v]
    out: list = []
    as_model: list = []  # per kept state: each other seat's share of weight on the model's kind
    tukangs: list = []  # per kept state: each other seat's Tukangs still possible, with their odds

    def split(s, hand, pack, i, options):
        """``options`` (a seat's kinds still possible, with their odds: which drafter, which Tukang)
        grouped by the card the drafter in seat ``s`` takes from ``pack`` with ``hand`` at pick ``i``."""
        groups: dict[int, list] = {}
        tuks = [t for (m, t), _ in options if m == 1]
        for kind, w in options:
            groups.setdefault(drafter.pick(s, hand, pack, i, kind, tuks), []).append((kind, w))
        return groups

    def allowed(x, taken, left, hands, tuks):
        """Slot ``x``: its taker ``s``, ``s``'s hand then, the odds of the Tukangs still possible for
        ``s``, and ``[(card, the Tukangs that take it)]`` for every card the unseen pool ``left`` holds
        that ``s`` would take there by the rule."""
        j, i = slots[x]
        s = (v - j + i) % n
        options = tuks.get(s) or drafter.kinds(s, view.customer_counts[s], list(cpool))
        hand = hands.get(s, [0] * n_types)
        later = [taken[(j, i2)] for i2 in range(i + 1, j)]
        tuks_m = [t for (m, t), _ in options if m == 1]
        if tuks_m:  # the model's scores of every candidate pack in one batch
            drafter.model_scores(s, hand, i, [(_plus(seen[j][0], c, *later), t)
                                              for c in range(n_types) if left[c] for t in tuks_m])
        out_ = []
        for c in range(n_types):
            if left[c]:
                keep = split(s, hand, _plus(seen[j][0], c, *later), i, options).get(c)
                if keep:
                    out_.append((c, keep))
        return s, hand, options, out_

    def enumerate_slots(x, taken, left, weight, hands, tuks):
        if x == len(slots):
            replay(taken, weight, tuks)
            return
        s, hand, _, cards = allowed(x, taken, left, hands, tuks)
        for c, keep in cards:
            enumerate_slots(x + 1, {**taken, slots[x]: c}, _minus(left, c), weight * left[c],
                            {**hands, s: _plus(hand, c)}, {**tuks, s: keep})

    def replay(taken, weight, tuks):
        packs = {v: list(seen[0][0])}
        for j in range(1, n):
            packs[(v - j) % n] = _plus(seen[j][0], *[taken[(j, i)] for i in range(j)])
        replay_from(0, packs, {s: [0] * n_types for s in others}, weight, tuks, 0, {})

    def replay_from(i, packs, hands, weight, tuks, s_at, picks):
        """Pick ``i`` of the round replayed for the other seats from ``others[s_at]`` on (their picks
        so far in ``picks``), branching where the Tukangs still possible for a seat disagree."""
        if s_at == len(others):
            mine = [a - b for a, b in zip(seen[i][0], seen[i][1])].index(1)
            after = {(s + 1) % n: _minus(packs[s], picks[s] if s != v else mine) for s in range(n)}
            if after[v] != list(seen[i + 1][0]):
                return
            new_hands = {s: _plus(hands[s], picks[s]) for s in others}
            if i + 1 == k:
                shares_here = {}
                for s in others:
                    total = sum(w for _, w in tuks[s])
                    weight *= total
                    shares_here[s] = sum(w for (m, _), w in tuks[s] if m == 1) / total
                out.append((weight, new_hands, {s: after[s] for s in others}))
                as_model.append(shares_here)
                tukangs.append({s: _tukang_shares(tuks[s]) for s in others})
            else:
                replay_from(i + 1, after, new_hands, weight, tuks, 0, {})
            return
        s = others[s_at]
        for c, keep in split(s, hands[s], packs[s], i, tuks[s]).items():
            if c >= 0:
                replay_from(i, packs, hands, weight, {**tuks, s: keep}, s_at + 1, {**picks, s: c})

    def sample_slots(rng):
        """One path through the unseen cards drawn card by card among those the rule allows (each
        in proportion to how many the pool holds and to the odds of the Tukangs that take it), then
        replayed; weighted by the inverse of its draw's probability, so that the kept paths
        estimate the enumeration's weights."""
        taken, left, hands, tuks, weight = {}, list(unseen), {}, {}, 1.0
        for x in range(len(slots)):
            s, hand, options, cards = allowed(x, taken, left, hands, tuks)
            if not cards:
                return
            mass = sum(w for _, w in options)
            p = np.array([left[c] * sum(w for _, w in keep) / mass for c, keep in cards])
            z = p.sum()
            y = int(rng.choice(len(cards), p=p / z))
            c, keep = cards[y]
            weight *= z * left[c] / p[y]  # the target's factor left[c] over the draw's probability p[y] / z
            taken[slots[x]], left = c, _minus(left, c)
            hands[s], tuks[s] = _plus(hand, c), keep
        replay(taken, weight, tuks)

    # The unseen cards come from the pool less the cards this seat saw that are in it: the seen part
    # of every starting pack, less this seat's picks and the pack in front of it now. (In the Cooking
    # phase the cards already cooked have left the pool, and which ones is not read here: a type
    # seen more often than the pool holds it counts as none left.)
    unseen = _counts(pool, n_types)
    for j in range(n):
        unseen = [a - b for a, b in zip(unseen, seen[j][0])]
    for j in range(k):
        unseen = [a + b - c for a, b, c in zip(unseen, seen[j][0], seen[j][1])]
    unseen = [a + b for a, b in zip(unseen, seen[k][0])]
    if min(unseen) < 0:
        if any(seen[k][0]):  # while Shopping (the Cooking phase's last seen pack is empty)
            paths = -1  # the pool does not hold what was seen: nothing is consistent
        unseen = [max(0, a) for a in unseen]
    if paths == 0:
        enumerate_slots(0, {}, unseen, 1.0, {}, {})
    elif paths > 0:
        rng = make_rng(zlib.crc32(repr(key).encode()))
        for _ in range(paths):
            sample_slots(rng)
    posterior: dict[int, float] = {}
    total = sum(w for w, _, _ in out)
    if model is not None and total > 0:
        posterior = {s: sum(w * a[s] for (w, _, _), a in zip(out, as_model)) / total for s in others}
    if paths > 0:  # paths that drew the same state are one state, their Tukangs' odds weighed by path
        merged: dict = {}
        for (w, hands_now, packs_now), tk in zip(out, tukangs):
            hk = (tuple(map(tuple, hands_now.values())), tuple(map(tuple, packs_now.values())))
            w0, odds = merged[hk][0] if hk in merged else (0.0, {})
            for s, pairs in tk.items():
                seat = odds.setdefault(s, {})
                for t, q in pairs:
                    seat[t] = seat.get(t, 0.0) + w * q
            merged[hk] = ((w0 + w, odds), hands_now, packs_now)
        out[:] = [(w, h, p) for (w, _), h, p in merged.values()]
        tukangs[:] = [{s: tuple((t, q / w) for t, q in sorted(seat.items())) for s, seat in odds.items()}
                      for (w, odds), _, _ in merged.values()]
    if len(_inferences) >= _INFERENCES_KEPT:
        _inferences.clear()
    _inferences[key] = hit = (out, posterior, tukangs)
    return _inferred(hit, with_posterior, with_tukangs)


def _inferred(hit: tuple, with_posterior: bool, with_tukangs: bool):
    """:func:`_infer_draft`'s answer from its kept ``(states, posterior, tukangs)``."""
    out, posterior, tukangs = hit
    if with_posterior:
        return (out, posterior, tukangs) if with_tukangs else (out, posterior)
    return (out, tukangs) if with_tukangs else out


def _tukang_shares(options) -> tuple[tuple[int, float], ...]:
    """A seat's kinds still possible (``[((model, tukang), odds)]``) as ``((tukang, odds), ...)``, the
    odds of each Tukang summed over the drafters and normalised to 1, by Tukang."""
    by: dict[int, float] = {}
    for (_, t), w in options:
        by[t] = by.get(t, 0.0) + w
    total = sum(by.values())
    return tuple((t, w / total) for t, w in sorted(by.items()))


def _place_seen(engine: "WaroongEngine", v: int, seen, rng: np.random.Generator):
    """One draw of where the seen packs' cards are: ``(forced, packs)`` (module docstring), or
    None when the seen packs contradict one another."""
    n, n_types, k = engine.n, engine.cat.n_types, len(seen) - 1
    forced = [[0] * n_types for _ in range(n)]
    packs: dict[int, list[int]] = {}
    for j in range(k):
        rest = seen[j][1]
        t = k - j  # passes since this seat passed the pack on
        if t < n:
            cards = [c for c in range(n_types) for _ in range(rest[c])]
            cards = [cards[i] for i in rng.permutation(len(cards))]
            for i in range(1, t):  # the seats in between took one card each
                forced[(v + i) % n][cards[i - 1]] += 1
            packs[(v + t) % n] = _counts(cards[t - 1:], n_types)
        else:  # round the table and seen again n picks later: what the others took is known
            later = seen[j + n][0]
            took = [rest[c] - later[c] for c in range(n_types)]
            if min(took) < 0 or sum(took) != n - 1:
                return None
            cards = [c for c in range(n_types) for _ in range(took[c])]
            cards = [cards[i] for i in rng.permutation(len(cards))]
            for i in range(1, n):
                forced[(v + i) % n][cards[i - 1]] += 1
    return forced, packs


def determinize(engine: "WaroongEngine", viewer: str, rng: np.random.Generator,
                own_actions: Sequence[int] = (), memory: Sequence = (),
                drafters: DrafterModel | None = None, kinds: bool = False) -> "WaroongEngine":
    """A full engine consistent with what ``viewer`` has seen, its hidden parts dealt with ``rng``
    (``memory``: what :func:`remember` gave at this seat's earlier decisions; ``drafters``: a trained
    policy that the drafters' rule weighs beside the heuristic, :class:`DrafterModel`).

    With ``kinds`` (and ``drafters``) the engine also carries ``sim_models``, each other seat's kind of
    drafter for the simulations (``{agent: 0}`` the heuristic, ``1`` the model; the planner's
    ``others=drafters``, :class:`envs.core.search.SeatModels`), drawn after the rest of the world (which
    is therefore the world drawn without it) at the chance the drafters' rule gives: this round's
    inference where it kept a state, else the game's earlier rounds (:func:`drafter_shares`)."""
    v = engine.seat_of[viewer]
    view = engine.public_view(viewer)
    n, n_types = engine.n, engine.cat.n_types
    drafting = engine.phase == "draft"
    own_hand = list(view.hand) if view.hand_visible else (remembered_picks(engine, v, own_actions) if drafting else None)
    if own_hand is not None and sum(own_hand) != view.hand_sizes[v]:
        own_hand = None  # the remembered picks do not fit (a seat played by someone else): dealt too
    # Ingredient cards out of sight: who holds how many is public, which ones is not.
    sizes = {("hand", s): view.hand_sizes[s] for s in range(n) if s != v or own_hand is None}
    if drafting:
        sizes.update({("pack", s): sum(engine.packs[s]) for s in range(n) if s != v})
    sizes[("deck", 0)] = len(engine.ingredient_deck)  # public: the cards not dealt, less any drawn
    pool = list(engine.ingredient_deck)
    for (kind, s) in sizes:
        if kind != "deck":
            rows = engine.hands if kind == "hand" else engine.packs
            pool += [t for t in range(n_types) for _ in range(rows[s][t])]
    # The packs seen this round, placed where they must be (own hand known: the memory is whole).
    if drafting:
        seen = _seen_this_round(engine, view.pack, own_actions, memory) if own_hand is not None else None
    else:
        seen = _seen_last_draft(engine, own_actions, memory) if own_hand is not None else None
    placed = None
    tukang_odds: dict = {}  # the inferred state's Tukangs, per seat whose customer cards are dealt to match
    shares = posterior = None  # each other seat's chance of drafting as ``drafters``: the earlier rounds', this one's
    if seen and len(seen) >= n:
        table = view if drafting else shopping_view(memory, engine.round, v)
        shares = drafter_shares(engine, v, own_actions, memory, drafters) if table and drafters is not None else None
        inferred, posterior, tukangs = _infer_draft(table, seen, sorted(pool), _unseen_customers(engine, v),
                                                    model=drafters, shares=shares, with_posterior=True,
                                                    with_tukangs=True) if table else ([], {}, [])
        if inferred:
            w = np.array([x[0] for x in inferred], dtype=float)
            i = int(rng.choice(len(inferred), p=w / w.sum()))
            _, hands_now, packs_now = inferred[i]
            placed = ([hands_now.get(s, [0] * n_types) for s in range(n)], dict(packs_now))
            # the customer cards the rule read: unchanged since (Shopping), or held since the seat's last
            # pick by a seat yet to cook with as many customer cards as then (the Cooking phase)
            tukang_odds = {s: odds for s, odds in tukangs[i].items()
                           if drafting or view.customer_counts[s] == table.customer_counts[s]}
    if placed is None and seen:
        placed = _place_seen(engine, v, seen, rng)
    if placed is not None and not drafting:
        # after Shopping the placed picks are still in the hands of the seats yet to cook (the others
        # have used or may have used them: dealt as before)
        later = _yet_to_cook(engine, view, v)
        placed = ([f if s in later else [0] * n_types for s, f in enumerate(placed[0])], {})
        tukang_odds = {s: odds for s, odds in tukang_odds.items() if s in later}
    forced = [[0] * n_types for _ in range(n)]
    known_packs: dict[int, list[int]] = {}
    if placed is not None:
        left = _counts(pool, n_types)
        f, kp = placed
        for s in range(n):
            for c in range(n_types):
                left[c] -= f[s][c] + (kp[s][c] if s in kp else 0)
        fits = min(left) >= 0 and all(sum(f[s]) <= sizes[("hand", s)] for s in range(n) if s != v) \
            and all(sum(kp[s]) == sizes[("pack", s)] for s in kp)
        if not fits:
            tukang_odds = {}
        else:
            forced, known_packs = f, kp
            pool = [c for c in range(n_types) for _ in range(left[c])]
            for s in range(n):
                if s != v:
                    sizes[("hand", s)] -= sum(f[s])
            for s in kp:
                del sizes[("pack", s)]
    dealt = _deal(sorted(pool), sizes, rng)
    out = engine.clone()
    hands = [list(h) for h in engine.hands]
    packs = [list(p) for p in engine.packs]
    for (kind, s), cards in dealt.items():
        if kind == "deck":
            out.ingredient_deck = cards
        else:
            (hands if kind == "hand" else packs)[s] = _counts(cards, n_types)
    for s in range(n):
        if s != v and any(forced[s]):
            hands[s] = [a + b for a, b in zip(hands[s], forced[s])]
    for s, p in known_packs.items():
        packs[s] = list(p)
    if own_hand is not None:
        hands[v] = list(own_hand)
    out.hands, out.packs = hands, packs
    # Customer cards: the others' (counts public) and the deck.
    n_kinds = len(engine.cat.customers)
    csizes = {("hand", s): view.customer_counts[s] for s in range(n) if s != v}
    csizes[("deck", 0)] = view.customer_deck_size
    cdealt = _deal_customers(_unseen_customers(engine, v), csizes, tukang_odds, engine.tukang_kinds, rng)
    customers = [list(c) for c in engine.customers]
    for (kind, s), cards in cdealt.items():
        if kind == "deck":
            out.customer_deck = cards
        else:
            customers[s] = _counts(cards, n_kinds)
    out.customers = customers
    # Menu cards: the deck is drawn from the menus not on the table.
    on_table = {m for m in view.display if m != EMPTY} | {m for p in view.piles for m in p}
    unseen = [m for m in range(len(engine.cat.menus)) if m not in on_table]
    unseen = [unseen[i] for i in rng.permutation(len(unseen))]
    out.menu_deck = unseen[:view.menu_deck_left]
    out.rng = make_rng(int(rng.integers(2 ** 63)))
    if kinds and drafters is not None:
        q = posterior or shares or drafter_shares(engine, v, own_actions, memory, drafters)
        out.sim_models = {engine.agents[s]: int(rng.random() < q.get(s, drafters.share)) for s in range(n) if s != v}
    out.invalidate_masks()
    return out


def _unseen_customers(engine: "WaroongEngine", v: int) -> list[int]:
    """The customer cards seat ``v`` cannot see (the deck and the other players'), as a sorted
    multiset: open information determines it (every customer card not in ``v``'s hand or the
    discard pile)."""
    return sorted(list(engine.customer_deck) + [t for s in range(engine.n) if s != v
                                                for t in range(len(engine.customers[s]))
                                                for _ in range(engine.customers[s][t])])


def _deal_customers(pool: list[int], sizes: dict, tukang_odds: dict, tukang_kinds: Sequence[int],
                    rng: np.random.Generator) -> dict:
    """:func:`_deal` of the unseen customer cards, where each seat ``s`` of ``tukang_odds`` (``{s:
    ((tukang, odds), ...)}``, from the drafters' rule) first draws one of those Tukangs and is dealt to
    match: that Tukang (none for -1) and, for the rest of its customer cards, cards that are no Tukang,
    as the rule counted it (:func:`_tukang_odds`). Where the unseen cards cannot match every such seat,
    the deal ignores the Tukangs."""
    if not tukang_odds:
        return _deal(pool, sizes, rng)
    wanted = {}
    for s in sorted(tukang_odds):
        odds = tukang_odds[s]
        q = np.array([w for _, w in odds], dtype=float)
        wanted[s] = odds[int(rng.choice(len(odds), p=q / q.sum()))][0]
    kinds = set(tukang_kinds)
    left = list(pool)
    fixed: dict = {}
    for s, t in wanted.items():
        k = sizes[("hand", s)]
        hand = []
        if t >= 0 and k:
            if tukang_kinds[t] not in left:
                return _deal(pool, sizes, rng)
            left.remove(tukang_kinds[t])
            hand.append(tukang_kinds[t])
        plain = [c for c in left if c not in kinds]
        if len(plain) < k - len(hand):
            return _deal(pool, sizes, rng)
        for c in [plain[i] for i in rng.permutation(len(plain))[:k - len(hand)]]:
            left.remove(c)
            hand.append(c)
        fixed[("hand", s)] = sorted(hand)
    rest = _deal(sorted(left), {key: k for key, k in sizes.items() if key not in fixed}, rng)
    return {key: fixed[key] if key in fixed else rest[key] for key in sizes}


def _deal(pool: list[int], sizes: dict, rng: np.random.Generator) -> dict:
    """The sorted ``pool`` shuffled and dealt: ``sizes[key]`` cards to each key, in key order."""
    if sum(sizes.values()) != len(pool):
        raise ValueError(f"{len(pool)} unseen cards for places holding {sum(sizes.values())}")
    cards = [pool[i] for i in rng.permutation(len(pool))]
    out, at = {}, 0
    for key, k in sizes.items():
        out[key] = cards[at:at + k]
        at += k
    return out


def _counts(cards: Sequence[int], n: int) -> list[int]:
    out = [0] * n
    for t in cards:
        out[t] += 1
    return out


def rollout_policy() -> "Policy":
    """The heuristic as the search player's simulations play it: each seat's own face-down picks
    read from the simulated world (``recall="world"``), where the memory of a policy reset for
    each simulation would have forgotten the picks made before the simulation began."""
    from envs.waroong_wars.heuristic import HeuristicPolicy

    return HeuristicPolicy(recall="world")


def round_of(engine) -> int:
    """The round (the search player's ``horizon=round`` cut: a round's picks are settled when it is cooked)."""
    return engine.round


#: the search player's default ``horizon``: a round (a pick's worth is settled when the round is cooked)
HORIZON = "round"


def search_arms(engine: "WaroongEngine", agent: str, first: int, legal: Sequence[int]) -> list[int]:
    """The decisions the search player searches, and over which moves (public information only:
    the phase and the mask): **every decision with a choice**, the Shopping picks (over the card
    types in the pack) and the Cooking phase's decisions (which menu to cook with which cards, the
    supplements, the powers), over every legal move, the rollout policy's choice first. A pick's
    worth shows when the round is cooked: searched with rollouts to the end of the round
    (``horizon=round``, this game's default), the packs this seat saw remembered (``remember``)
    and every simulated seat drafting with its own picks in mind (``rollout_policy``). Cut at the
    next score change (``horizon=score``) the picks measured worse than the heuristic's
    (docs/search.md)."""
    if len(legal) < 2:
        return []
    return [first] + [a for a in legal if a != first]
