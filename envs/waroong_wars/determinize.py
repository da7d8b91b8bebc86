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

The pools enter only as sorted multisets, so where the true cards lie (which opponent holds
which card, the deck order) cannot influence the result. Simplification: the deal forgets what
a perfect memory could still place (the packs seen earlier this round, cards given to or taken
from a known opponent by Mbok Bakul or a theft); that loses information, it leaks none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from envs.core.seeding import make_rng
from envs.waroong_wars.rules.cooking import EMPTY

if TYPE_CHECKING:
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


def determinize(engine: "WaroongEngine", viewer: str, rng: np.random.Generator,
                own_actions: Sequence[int] = ()) -> "WaroongEngine":
    """A full engine consistent with what ``viewer`` has seen, its hidden parts dealt with ``rng``."""
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
    dealt = _deal(sorted(pool), sizes, rng)
    out = engine.clone()
    hands = [list(h) for h in engine.hands]
    packs = [list(p) for p in engine.packs]
    for (kind, s), cards in dealt.items():
        if kind == "deck":
            out.ingredient_deck = cards
        else:
            (hands if kind == "hand" else packs)[s] = _counts(cards, n_types)
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


def search_arms(engine: "WaroongEngine", agent: str, first: int, legal: Sequence[int]) -> list[int]:
    """The decisions the search player searches, and over which moves (public information only:
    the phase): **the Cooking phase's decisions** (which menu to cook with which cards, the
    supplements, the powers), over every legal move, the rollout policy's choice first; their
    worth shows at the next score change, which the rollouts reach. A Shopping pick's worth shows
    only when the round is cooked, beyond what a decision's rollouts reach cut at the next score
    change (``horizon=score``): searched that way the picks measured worse than the heuristic's
    (docs/search.md), so they are played as the rollout policy plays them."""
    if engine.phase == "draft" or len(legal) < 2:
        return []
    return [first] + [a for a in legal if a != first]
