"""Rulebook "Character Cards" (Character Mode): the five printed powers.

* Bu Prasojo (Mother of Spice): "You may take 1 extra Customer card when you cook a Menu with 5
  or 6 Ingredients" -> :func:`offer_extra_customer` after such a cook, answered with
  ``extra_customer`` (:func:`extra_customer`).
* Cak Londho (The Point Chaser): "After Shopping phase, take 1 extra Ingredient card from the
  deck" -> :func:`cak_londho_draws` when the draft ends.
* Geng Bajoel (The Genius Duo): "At the End of the Game, you get 5 Victory Points for each pair
  of Menu cards you've cooked with the same name" -> :func:`pair_points` (in every score).
* Pak Bas (Master of Grill): "If you cook only 1 menu that requires 2 or 3 Ingredients this
  turn, take "Go Boy!" card if able" -> :func:`pak_bas_takes_go_boy` at ``end_turn``.
* Jeng Sastro (Fiery Madam): "You may add 1 Supplementary Ingredient card when you cooked a Menu
  without Supplementary icon" -> :data:`PLAIN_MENU_SUPPLEMENT_POWER`, read by the payment rules
  (:func:`.cooking.payment_options`) and the cook mask.

A seat's power key is ``eng.power(seat)`` (None outside Character Mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult
from envs.waroong_wars.rules import customers

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

BIG_MENU_CUSTOMER_POWER = "extra_customer_big_menu"  # Bu Prasojo
EXTRA_INGREDIENT_POWER = "extra_ingredient"  # Cak Londho
PAIR_POWER = "pair_bonus"  # Geng Bajoel
SMALL_MENU_POWER = "go_boy_after_small_menu"  # Pak Bas
PLAIN_MENU_SUPPLEMENT_POWER = "supplement_on_plain_menu"  # Jeng Sastro


def offer_extra_customer(eng: "WaroongEngine", seat: int, dish) -> None:
    """Bu Prasojo just cooked ``dish``: with 5 or 6 ingredients and a customer card left to draw,
    she decides next (a pending ``extra`` decision)."""
    if (eng.power(seat) == BIG_MENU_CUSTOMER_POWER and dish.size in (5, 6)
            and (eng.customer_deck or any(eng.customer_discard))):
        eng.pending = {"kind": "extra", "seat": seat}


def extra_customer(eng: "WaroongEngine", seat: int, take: bool, result: StepResult) -> None:
    """Bu Prasojo's answer: take (draw 1 customer card) or decline."""
    eng.pending = None
    if take:
        customers.draw(eng, seat)
        result.events.append(f"{eng.agents[seat]} (Bu Prasojo) takes an extra customer card")
    else:
        result.events.append(f"{eng.agents[seat]} (Bu Prasojo) declines an extra customer card")


def cak_londho_draws(eng: "WaroongEngine", result: StepResult) -> None:
    """End of Shopping: Cak Londho takes the top card of the undealt ingredient deck."""
    for seat in range(eng.n):
        if eng.power(seat) == EXTRA_INGREDIENT_POWER and eng.ingredient_deck:
            t = eng.ingredient_deck.pop()
            eng.hands[seat][t] += 1
            result.events.append(f"{eng.agents[seat]} (Cak Londho) takes 1 extra ingredient card")


def pak_bas_takes_go_boy(eng: "WaroongEngine", seat: int, result: StepResult) -> None:
    """End of Pak Bas's turn: exactly one menu of 2 or 3 ingredients cooked -> a Go Boy! if able
    (he holds none and the supply has one)."""
    if (eng.power(seat) == SMALL_MENU_POWER and len(eng.cooked_this_turn) == 1
            and eng.cat.menus[eng.cooked_this_turn[0]].dish.size in (2, 3)
            and not eng.go_boy[seat] and eng.go_boy_supply > 0):
        eng.go_boy[seat] = True
        eng.go_boy_supply -= 1
        result.events.append(f"{eng.agents[seat]} (Pak Bas) takes a Go Boy!")


def pair_count(eng: "WaroongEngine", seat: int) -> int:
    """Pairs of same-named menus in the seat's pile (counted for Geng Bajoel)."""
    counts: dict[int, int] = {}
    dish_of = eng.menu_dish
    for m in eng.piles[seat]:
        d = dish_of[m]
        counts[d] = counts.get(d, 0) + 1
    return sum([c // 2 for c in counts.values()])


def pair_points(eng: "WaroongEngine", seat: int) -> int:
    """Geng Bajoel's bonus: 5 VP per pair of same-named menus (0 for everyone else)."""
    if eng.power(seat) != PAIR_POWER:
        return 0
    return eng.cat.components["pair_bonus_vp"] * pair_count(eng, seat)
