"""Rulebook section "Serve Customers" (Phase 1: Open for Business).

"Only the player with that customer's Recipe card can serve that customer":
every Ingredient token of the recipe moves down 1 slot (impossible from slot
0); the card is on time while at least 1 timer still runs, else late ($1
less). "Immediately after serving the first customer, flip over the second,
empty 30-second timer and reveal the next Customer card. For the rest of the
phase, as soon as you serve a customer you must flip one of the timers and
reveal the next Customer card from the Regular deck."
"""

from __future__ import annotations

from envs.wok_star.rules import open_for_business as ofb
from envs.wok_star.rules import player_powers


def can_cook(eng, recipe_id: int) -> bool:
    """Every ingredient of the recipe is on row 1 or higher."""
    level = eng.ing_level
    return all(level[i] >= 1 for i in eng.data.recipes[recipe_id].ingredients)


def serve(eng, seat: int, flip: str) -> None:
    cu = eng.current_customer()
    recipe = eng.data.recipes[cu.recipe]
    for i in recipe.ingredients:
        eng.ing_level[i] -= 1
    late = not ofb.running(eng.timers)
    already = any(eng.data.customers[c].recipe == cu.recipe for c, _ in eng.served[seat])
    eng.served[seat].append([cu.id, int(late)])
    value = cu.income - (1 if late else 0)
    eng.add_income(value)
    eng.say(f"chef_{seat} serves {recipe.name} {'LATE' if late else 'on time'} (+${value})")
    player_powers.chris_tip(eng, seat, already)
    eng._fresh_timers.append(ofb.flip(eng.timers, flip if eng.first_served else "low", eng.T))
    eng.first_served = True
    ofb.reveal_next(eng)
