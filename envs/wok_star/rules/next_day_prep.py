"""Rulebook section "Phase 3: Next Day Prep" (New Recipes, Ingredient Upgrades,
Advertising, Hustle).

"Before you are ready to open for the next business day, you should prepare
by purchasing: New Recipes ($11/$16/$31), Ingredient Upgrades ($6),
Advertising (Free), Hustle ($2). Each option may be purchased multiple times.
[...] The Income Tracker is set to zero at the end of this phase."

Purchase turns rotate from the day's lead chef: on your turn make one
purchase (or pass by waiting); a recipe's new Ingredient cards are then given
out by the buyer, one per tick; prep ends after ``n`` passes in a row (or at
once when nothing can be bought). Powers flip back at the start of the phase.
"""

from __future__ import annotations

from envs.wok_star.cards import coupon_cards, regular_cards
from envs.wok_star.rules import starting_a_new_day


def start_prep(eng) -> None:
    """Next Day Prep: powers flip back; three recipes drawn from those not in the game."""
    eng.phase = "prep"
    eng._phase_started = True
    eng.power_used = [False] * eng.n
    eng.money = eng.income
    out = [r for r, h in enumerate(eng.recipe_holder) if h == -1]
    order = eng.rng.permutation(len(out))
    eng.offers = [out[i] for i in order[: eng.data.components["recipe_offer"]]]
    eng.turn = eng.lead_chef()
    eng.passes = 0
    eng.pending, eng.pending_by = [], -1
    eng.say(f"NEXT DAY PREP: ${eng.money} to spend; offers: " +
            ", ".join(eng.data.recipes[r].name for r in eng.offers))
    end_prep_if_nothing_to_buy(eng)


def anything_to_buy(eng) -> bool:
    comp = eng.data.components
    if eng.coupons:
        return True
    if eng.money >= comp["hustle_cost"] and eng.hustle_supply > 0:
        return True
    if eng.money >= comp["upgrade_cost"] and any(h >= 0 and u < 4 for h, u in zip(eng.ing_holder, eng.ing_unlocked)):
        return True
    return any(r >= 0 and eng.money >= eng.data.recipes[r].price for r in eng.offers)


def end_prep_if_nothing_to_buy(eng) -> bool:
    if not eng.pending and not anything_to_buy(eng):
        end_prep(eng)
        return True
    return False


def end_prep(eng) -> None:
    eng.say(f"prep over: ${eng.money} unspent is lost")
    eng.money = 0
    eng.offers = []
    starting_a_new_day.start_day(eng)


# ---------------------------------------------------------------------------- purchases
def _purchase(eng, seat: int) -> None:
    eng.passes = 0
    eng._decided = True
    if eng.pending:
        eng.pending_by = seat
    else:
        eng.turn = (seat + 1) % eng.n


def buy_recipe(eng, seat: int, offer: int, chef: int) -> None:
    """New Recipes: the card to a chef, its new Ingredient cards (2 Hustle tokens cover each, token on
    row 1) to be given out, its 3 Regular and 2 Coupon customers into the decks."""
    r = eng.offers[offer]
    recipe = eng.data.recipes[r]
    to = eng.rel(seat, chef)
    eng.money -= recipe.price
    eng.offers[offer] = -1
    eng.recipe_holder[r] = to
    for i in recipe.ingredients:
        if eng.ing_holder[i] < 0 and i not in eng.pending:
            eng.pending.append(i)
            eng.ing_level[i] = eng.data.components["ingredient_start_row"]
            eng.ing_unlocked[i] = eng.data.components["open_methods"]
            if eng.hustle_supply < 0:  # the 2 covering tokens come from the supply, else from the pool
                eng.hustle += eng.hustle_supply
    eng.deck += regular_cards(r)
    eng.coupons += coupon_cards(r)
    eng.say(f"chef_{seat} buys {recipe.name} (${recipe.price}) for chef_{to}")
    _purchase(eng, seat)


def give_ingredient(eng, seat: int, chef: int) -> None:
    """The pending Ingredient card (at setup or after a purchase) to a chef."""
    give_card(eng, eng.rel(seat, chef))
    eng._decided = True


def give_card(eng, to: int) -> None:
    i = eng.pending.pop(0)
    eng.ing_holder[i] = to
    eng.decision_k += 1
    eng.say(f"the {eng.data.ingredients[i].name} card goes to chef_{to}")


def upgrade(eng, seat: int, ingredient: str) -> None:
    """Ingredient Upgrades: $6, the leftmost covering Hustle token to the pool."""
    i = eng.data.ingredient_id(ingredient)
    eng.money -= eng.data.components["upgrade_cost"]
    eng.ing_unlocked[i] += 1
    eng.hustle += 1
    eng.say(f"chef_{seat} upgrades {eng.data.ingredients[i].name} (method {eng.ing_unlocked[i]} uncovered)")
    _purchase(eng, seat)


def advertise(eng, seat: int) -> None:
    """Advertising: one random Coupon customer into the Regular deck (free)."""
    k = int(eng.rng.integers(len(eng.coupons)))
    eng.deck.append(eng.coupons.pop(k))
    eng.say(f"chef_{seat} advertises: a Coupon customer joins the Regular deck")
    _purchase(eng, seat)


def buy_hustle(eng, seat: int) -> None:
    eng.money -= eng.data.components["hustle_cost"]
    eng.hustle += 1
    eng.say(f"chef_{seat} buys Hustle (pool {eng.hustle})")
    _purchase(eng, seat)


def end_prep_tick(eng, waited: bool) -> None:
    """The end of a ``prep`` tick: a card-giver who waited gives by the Pro Tip; a buyer who waited passes."""
    from envs.wok_star.rules import setup

    if eng.pending_by >= 0:  # the buyer is giving out the new Ingredient cards
        if waited:
            give_card(eng, setup.pro_tip_holder(eng, eng.pending[0], setup=False))
        if not eng.pending:
            eng.turn = (eng.pending_by + 1) % eng.n
            eng.pending_by = -1
    elif waited:
        eng.passes += 1
        eng.turn = (eng.turn + 1) % eng.n
        if eng.passes >= eng.n:
            end_prep(eng)
            return
    if eng.phase == "prep":
        end_prep_if_nothing_to_buy(eng)
