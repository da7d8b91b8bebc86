"""One determinisation for the search player: a full engine whose hidden parts are re-sampled.

What a player cannot see (:mod:`envs.waroong_wars.public`), and what is therefore dealt afresh
from the cards out of the viewer's sight, every public count kept:

* **Ingredient cards**: the other players' hands (their sizes are public), the packs in front
  of the others while Shopping, and the ingredient deck; also the viewer's own face-down picks
  while Shopping when the viewer cannot look at them (No-Memory Chef off) and does not
  remember them (``own_actions`` holds the picks this seat made this round: a player remembers
  what they took). The pool is every ingredient card not in the viewer's own hand or pack and
  not used this round (used cards were cooked face up).
* **Customer cards**: the other players' (their counts are public) and the customer deck.
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

The pools enter only as sorted multisets, so where the true cards lie (which opponent holds
which card, the deck order) cannot influence the result. Simplification: the deal forgets the
cards given to or taken from a known opponent by Mbok Bakul or a theft, and draws uniformly
which seen card each opponent took (a perfect model would weigh the cards by how that player
drafts); that loses information, it leaks none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from envs.core.seeding import make_rng
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
    pack in front of it, as ``("pack", round, pick_no, counts)``; else None."""
    if engine.phase != "draft":
        return None
    view = engine.public_view(agent)
    return ("pack", view.round, view.pick_no, tuple(view.pack))


def _seen_this_round(engine: "WaroongEngine", now: Sequence[int], own_actions: Sequence[int], memory: Sequence):
    """``[(P_j, R_j)]`` for the picks ``j < pick_no`` this round (the pack seen, and what was left
    of it after this seat's pick), then ``(now, None)`` (the pack in front of it now); None unless
    every one of them is remembered and fits."""
    k = engine.pick_no
    if engine.phase != "draft" or k == 0:
        return None
    n_types = engine.cat.n_types
    packs = {}
    for item in memory:
        if isinstance(item, tuple) and len(item) == 4 and item[0] == "pack" and item[1] == engine.round:
            packs[item[2]] = list(item[3])
    picks = list(own_actions[len(own_actions) - k:])
    pick0 = engine.ix.pick0
    if len(picks) != k or any(j not in packs for j in range(k)):
        return None
    per_hand = engine.cat.components["cards_dealt_per_player"]
    out = []
    for j in range(k):
        p, t = packs[j], picks[j] - pick0
        if len(p) != n_types or sum(p) != per_hand - j or not 0 <= t < n_types or p[t] < 1:
            return None
        r = list(p)
        r[t] -= 1
        out.append((p, r))
    if sum(now) != per_hand - k:
        return None
    out.append((list(now), None))
    return out


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
                own_actions: Sequence[int] = (), memory: Sequence = ()) -> "WaroongEngine":
    """A full engine consistent with what ``viewer`` has seen, its hidden parts dealt with ``rng``
    (``memory``: what :func:`remember` gave at this seat's earlier decisions)."""
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
    seen = _seen_this_round(engine, view.pack, own_actions, memory) if drafting and own_hand is not None else None
    placed = _place_seen(engine, v, seen, rng) if seen else None
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
        if fits:
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
    cpool = list(engine.customer_deck)
    for (_, s) in (k for k in csizes if k[0] == "hand"):
        cpool += [t for t in range(n_kinds) for _ in range(engine.customers[s][t])]
    cdealt = _deal(sorted(cpool), csizes, rng)
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
    out.invalidate_masks()
    return out


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
