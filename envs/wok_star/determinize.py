"""One determinisation for the search player: a full engine whose hidden parts are re-sampled.

Everything in Wok Star is public except (:mod:`envs.wok_star.public`) the order of the
face-down piles and which Coupon or Event cards were shuffled face down into the Regular deck.
What is drawn afresh, the public counts kept:

* **The Regular deck's order**, and which of the unseen Coupon customers and which of the
  unseen Event cards lie in it: the deck keeps its public make-up (the Regular customers still
  to come, which open information fixes, and as many Coupon and Event cards as the table
  shows); the unseen Coupons are split at random between the deck and the Coupon deck, the
  unseen Events between the deck and the Event pile, and the deck is shuffled.
* **The Event pile's order** (the next day's Events) and **the generator** (future shuffles,
  recipe offers, advertising draws): fresh.

Dice, timers, cubes, recipes, ingredients, money and the customers served are public and copied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from envs.core.seeding import make_rng
from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card
from envs.wok_star.legality import DECISION_PHASES

if TYPE_CHECKING:
    from envs.wok_star.engine import WokStarEngine


def determinize(engine: "WokStarEngine", viewer: str, rng: np.random.Generator,
                own_actions: Sequence[int] = (), memory: Sequence = ()) -> "WokStarEngine":
    """A full engine consistent with the public table, its hidden parts drawn with ``rng``.

    The unseen cards enter only as sorted multisets that open information determines (the
    Regular customers still to come; the Coupons not yet seen, in the deck or the Coupon deck;
    the Events not yet seen, in the deck or the Event pile), so their true places and order
    cannot influence the result. Wok Star is cooperative with open information: ``viewer``,
    ``own_actions`` and ``memory`` change nothing."""
    data = engine.data
    table = engine.public_view(viewer).table
    deck = engine.deck
    regular = sorted(c for c in deck if not is_event_card(c) and not data.customers[c].coupon)
    coupons = sorted([c for c in deck if not is_event_card(c) and data.customers[c].coupon] + list(engine.coupons))
    events = sorted([c - EVENT_CARD_BASE for c in deck if is_event_card(c)] + list(engine.event_pile))
    k_coupons, k_events = table["coupons_in_deck"], table["events_in_deck"]
    coupons = [coupons[i] for i in rng.permutation(len(coupons))]
    events = [events[i] for i in rng.permutation(len(events))]
    new_deck = regular + coupons[:k_coupons] + [EVENT_CARD_BASE + e for e in events[:k_events]]
    if len(new_deck) != table["deck_size"]:
        raise ValueError(f"the deck's public make-up gives {len(new_deck)} cards, the table shows {table['deck_size']}")
    out = engine.clone()
    out.deck = [new_deck[i] for i in rng.permutation(len(new_deck))]
    out.coupons = sorted(coupons[k_coupons:])  # drawn at random by index: its order is no information
    out.event_pile = events[k_events:]
    out.rng = make_rng(int(rng.integers(2 ** 63)))
    out.touch()
    return out


def round_of(engine) -> int:
    """The day (the search player's ``horizon=round`` cut)."""
    return engine.day


#: the search player's default ``horizon``: to the end of the game
HORIZON = 0


def search_arms(engine: "WokStarEngine", agent: str, first: int, legal: Sequence[int]) -> list[int]:
    """The decisions the search player searches, and over which moves (public information only:
    the phase): the turn-based ones (setup: characters, Ingredient cards, the third die; the
    Fortune cubes; Next Day Prep's purchases), over every legal move, the rollout policy's choice
    first. While the timers run (``open``, ``wash``, ``closed``) a chef's move costs or gains a
    tick of a day's work, below what a day's rollouts can tell apart from their noise, and it is
    played as the rollout policy plays it."""
    if engine.phase not in DECISION_PHASES or len(legal) < 2:
        return []
    return [first] + [a for a in legal if a != first]
