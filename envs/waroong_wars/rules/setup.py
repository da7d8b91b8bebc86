"""Rulebook "Setting Up": the menu deck and display, the customer deck, the supplies, the marker.

1. Shuffle the 32 menu cards and keep 18 / 24 / 30 for 3 / 4 / 5 players (the rest go back
   to the box); 2. deal the display of 6 face up from them; 3. shuffle the customer cards
   (none in Plain Mode); 4. the Extra VP tokens and Go Boy! cards form the supplies; 5. the
   First Cooking marker goes to a random seat (the rulebook's "most savory cuisine" eater).
Character Mode (rulebook "Variants") also deals each player a random Character card here.
The first round's Shopping phase then starts (:func:`.shopping.start_round`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.seeding import shuffled
from envs.waroong_wars.rules import shopping

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine


def set_up(eng: "WaroongEngine") -> None:
    """Deal a new game from ``eng.config`` with ``eng.rng`` (every draw in this order: menus,
    customers, characters, marker, then the first deal of ingredients)."""
    cat = eng.cat
    n = eng.n
    menus = shuffled(list(range(len(cat.menus))), eng.rng)
    eng.menu_deck = menus[: eng.menu_deck_size]  # the rest goes back to the box
    eng.display = [eng.menu_deck.pop() for _ in range(cat.components["display_size"])]
    eng.last_round = False
    eng.customer_deck = shuffled(list(cat.customer_deck), eng.rng) if eng.customers_on else []
    eng.customer_discard = [0] * len(cat.customers)
    eng.customers = [[0] * len(cat.customers) for _ in range(n)]
    if eng.characters_on:
        eng.characters = [int(c) for c in eng.rng.permutation(len(cat.characters))[:n]]
    else:
        eng.characters = [-1] * n
    eng.first = int(eng.rng.integers(n))
    eng.token_supply = cat.components["extra_vp_tokens"]
    eng.tokens = [0] * n
    eng.go_boy = [False] * n
    eng.go_boy_supply = cat.components["go_boy_cards"]
    eng.piles = [[] for _ in range(n)]
    eng.round = 1
    eng.ended_by = ""
    shopping.start_round(eng)
