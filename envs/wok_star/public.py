"""What the chefs can see at the table.

Everything in Wok Star is public except the *order* of the face-down piles
(Regular deck, Coupon deck after advertising, Event pile, the Recipe cards not
in the game) and which Coupon or Event cards were shuffled face down into the
Regular deck. The public table therefore holds deck *counts* and what can be
deduced from open information (Regular customers of each recipe still to come,
Coupons of each recipe not yet seen), never a card's position.

The observation encoder and the heuristic read only this view.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card


@dataclass(frozen=True)
class PublicView:
    """One chef's view: ``seat`` plus the (shared, read-only) public table."""

    seat: int
    table: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.table[key]

    def rel(self, r: int) -> int:
        return (self.seat + r) % self.table["n"]


def build_public_table(eng) -> Mapping[str, Any]:
    data = eng.data
    n = eng.n
    n_rec = len(data.recipes)
    counts = eng.area_counts()
    dirty = [0] * n
    for d, pip in enumerate(eng.die_pip):
        if pip == 0:
            dirty[d // 5] += 1
    served_cards = [c for s in range(n) for c, _ in eng.served[s]]
    # Regular customers of each recipe still to come today: all of them, less served and the one at the counter.
    regular_left = [0] * n_rec
    coupon_unseen = [0] * n_rec
    for r, h in enumerate(eng.recipe_holder):
        if h >= 0:
            regular_left[r] = 3
            coupon_unseen[r] = 2
    for c in served_cards + ([eng.current] if eng.current >= 0 and not is_event_card(eng.current) else []):
        cu = data.customers[c]
        if cu.coupon:
            coupon_unseen[cu.recipe] -= 1
        else:
            regular_left[cu.recipe] -= 1
    if eng.phase in ("choose_character", "distribute", "third_die", "goal_cubes", "prep", "over"):
        # Between days every customer is back in its deck.
        regular_left = [3 if h >= 0 else 0 for h in eng.recipe_holder]
    coupons_in_deck = sum(1 for c in eng.deck if not is_event_card(c) and data.customers[c].coupon)
    events_in_deck = sum(1 for c in eng.deck if is_event_card(c))
    current = eng.current
    cur = {"kind": "none", "recipe": -1, "income": 0, "coupon": False, "event": -1, "holder": -1}
    if current >= 0:
        if is_event_card(current):
            cur = {**cur, "kind": "event", "event": current - EVENT_CARD_BASE}
        else:
            cu = data.customers[current]
            cur = {**cur, "kind": "customer", "recipe": cu.recipe, "income": cu.income, "coupon": cu.coupon,
                   "holder": eng.recipe_holder[cu.recipe]}
    table = {
        "n": n,
        "phase": eng.phase,
        "day": eng.day,
        "turn": eng.turn,
        "difficulty": eng.config["difficulty"],
        "events_on": bool(eng.config["events"]),
        "powers_on": bool(eng.config["powers"]),
        "goals": tuple(eng.goals),
        "goal_cubes": tuple(eng.goal_cubes),
        "cubes_passed": eng.cubes_passed,
        "income": eng.income,
        "money": eng.money,
        "timers": tuple(eng.timers),
        "timer_full": eng.T,
        "late_ticks": eng.late_ticks,
        "patience": eng.P,
        "washes_left": data.components["washes_per_day"] - eng.washes,
        "first_served": eng.first_served,
        "current": MappingProxyType(cur),
        "deck_size": len(eng.deck),
        "regular_left": tuple(regular_left),
        "coupon_unseen": tuple(coupon_unseen),
        "coupons_in_deck": coupons_in_deck,
        "coupon_pile": len(eng.coupons),
        "events_in_deck": events_in_deck,
        "event_pile": len(eng.event_pile),
        "events_today": tuple(eng.events_today),
        "events_gone": tuple(eng.events_gone),
        "recipe_holder": tuple(eng.recipe_holder),
        "offers": tuple(eng.offers),
        "ing_holder": tuple(eng.ing_holder),
        "ing_level": tuple(eng.ing_level),
        "ing_unlocked": tuple(eng.ing_unlocked),
        "track_top": eng.top,
        "pending": tuple(eng.pending),
        "area": counts.copy(),  # int[n, 12]: own dice per pip, taken dice per pip, per area
        "dirty": tuple(dirty),
        "pool": tuple(eng.pool),
        "cubes": tuple(eng.cubes),
        "hustle": eng.hustle,
        "hustle_supply": eng.hustle_supply,
        "on_time": tuple(sum(1 for _, late in eng.served[s] if not late) for s in range(n)),
        "late": tuple(sum(1 for _, late in eng.served[s] if late) for s in range(n)),
        "served_recipes": tuple(tuple(data.customers[c].recipe for c, _ in eng.served[s]) for s in range(n)),
        "character": tuple(eng.character),
        "power_used": tuple(eng.power_used),
        "passes": eng.passes,
        "history": tuple(tuple(h) for h in eng.history),
        "won": eng.won,
        "log": tuple(eng.log),
        "close_reason": eng.close_reason,
    }
    table["area"].setflags(write=False)
    return MappingProxyType(table)
