"""Rulebook section "Setup" (with "Two Players").

Steps 1-16: income 0, both timers, the supply, the Dishwasher on "1st Wash",
the Recipe piles, one recipe per player by the player-count table, the
Customer decks of the recipes in play, the Ingredient cards in play
distributed ("Each player should have at least 1 Ingredient card. Pro Tip:
Give ingredient cards to players that don't need them for their recipes"),
tokens on row 1, 2 Hustle tokens covering the 2 rightmost methods, 2 dice and
2 Fortune cubes per player, the difficulty and 4 goal cubes. Two players:
"Remove the $31 recipe cards from the game. Select one player to start the
game with 3 dice instead of 2."

Team decisions (``setup="team"``): ``distribute`` (the k-th card given by
``chef_{k mod n}``, keeping at least one card for every chef; waiting: the Pro
Tip rule) and ``third_die`` (``chef_0`` names who starts with 3 dice;
waiting: the chef with more Ingredient cards). ``setup="auto"`` takes every
default at once.
"""

from __future__ import annotations

from envs.wok_star.cards import coupon_cards, regular_cards
from envs.wok_star.rules import daily_accounting, next_day_prep, starting_a_new_day


def deal(eng) -> None:
    """A new game: everything in setup steps 1-16 that needs no decision."""
    n, data, comp = eng.n, eng.data, eng.data.components
    eng.phase, eng.day, eng.turn, eng.decision_k = "distribute", 0, -1, 0
    eng.recipe_holder = [-1] * len(data.recipes)
    if n == 2:
        for r in data.recipes:
            if r.price == comp["two_player_removed_price"]:
                eng.recipe_holder[r.id] = -2
    for seat, price in enumerate(comp["setup_recipe_prices"][str(n)]):
        pile = [r.id for r in data.recipes if r.price == price and eng.recipe_holder[r.id] == -1]
        eng.recipe_holder[pile[int(eng.rng.integers(len(pile)))]] = seat
    eng.offers = []
    eng.ing_holder = [-1] * len(data.ingredients)
    eng.ing_level = [0] * len(data.ingredients)
    eng.ing_unlocked = [0] * len(data.ingredients)
    eng.pending, eng.pending_by = [], -1
    for r, h in enumerate(eng.recipe_holder):
        if h >= 0:
            for i in data.recipes[r].ingredients:
                if i not in eng.pending:
                    eng.pending.append(i)
    eng.pending.sort()
    for i in eng.pending:  # step 11: tokens on row 1; step 12: the 2 rightmost methods covered
        eng.ing_level[i], eng.ing_unlocked[i] = comp["ingredient_start_row"], comp["open_methods"]
    eng.pool = [comp["starting_dice"]] * n
    eng.die_pip = [0 if k < comp["starting_dice"] else -1 for _ in range(n) for k in range(5)]
    eng.die_holder = [d // 5 for d in range(5 * n)]
    eng.cubes = [comp["starting_fortune_cubes"]] * n
    eng.goal_cubes = [True] * comp["goal_cubes"]
    eng.cubes_passed = 0
    eng.hustle = 0
    eng.timers, eng.washes, eng.first_served, eng.late_ticks = [eng.T, 0], 0, False, 0
    in_play = [r for r, h in enumerate(eng.recipe_holder) if h >= 0]
    eng.deck = [c for r in in_play for c in regular_cards(r)]
    eng.coupons = [c for r in in_play for c in coupon_cards(r)]
    eng.current, eng.serial = -1, 0
    eng.served = [[] for _ in range(n)]
    eng.income = eng.money = eng.passes = eng.total_income = 0
    eng.event_pile = [int(i) for i in eng.rng.permutation(len(data.events))] if eng.config["events"] else []
    eng.events_today, eng.events_gone = [], []
    eng.character = [-1] * n
    eng.power_used = [False] * n
    eng.won, eng.end_reason, eng.close_reason = -1, "", ""
    eng.history, eng.log = [], []
    eng.service = []
    if eng.config["setup"] == "auto":
        if eng.config["powers"]:
            eng.character = [int(c) for c in eng.rng.permutation(len(data.characters))[:n]]
        while eng.pending:
            next_day_prep.give_card(eng, pro_tip_holder(eng, eng.pending[0], setup=True))
        if n == 2:
            third_die_to(eng, default_third_die(eng))
        starting_a_new_day.start_day(eng)
    else:
        next_setup_step(eng)


def next_setup_step(eng) -> None:
    """Move to the next setup decision still to take (team setup)."""
    if eng.config["powers"] and -1 in eng.character:
        eng.phase, eng.turn = "choose_character", eng.character.index(-1)
    elif eng.pending:
        eng.phase, eng.turn = "distribute", eng.decision_k % eng.n
    elif eng.n == 2 and max(eng.pool) < eng.data.components["two_player_third_die_pool"]:
        eng.phase, eng.turn = "third_die", 0
    else:
        starting_a_new_day.start_day(eng)
        return
    eng._phase_started = True


# ---------------------------------------------------------------------------- step 10: the Ingredient cards
def cards_held(eng, seat: int) -> int:
    return sum(1 for h in eng.ing_holder if h == seat)


def needs(eng, seat: int, ingredient: int) -> bool:
    return any(h == seat and ingredient in eng.data.recipes[r].ingredients for r, h in enumerate(eng.recipe_holder))


def give_card_allowed(eng, seat_to: int, setup: bool) -> bool:
    """At setup every chef must end with at least one Ingredient card."""
    if not setup:
        return True
    cardless = [s for s in range(eng.n) if cards_held(eng, s) == 0]
    if len(eng.pending) <= len(cardless):
        return seat_to in cardless
    return True


def pro_tip_holder(eng, ingredient: int, setup: bool) -> int:
    """Pro Tip: 'Give ingredient cards to players that don't need them for their recipes.'

    Among the chefs allowed to take the card, prefer one whose recipes do
    not use it, then the fewest Ingredient cards, then the lowest seat.
    """
    allowed = [s for s in range(eng.n) if give_card_allowed(eng, s, setup)]
    return min(allowed, key=lambda s: (needs(eng, s, ingredient), cards_held(eng, s), s))


# ---------------------------------------------------------------------------- Two Players: the third die
def default_third_die(eng) -> int:
    return 0 if cards_held(eng, 0) >= cards_held(eng, 1) else 1


def give_third_die(eng, seat: int, chef: int) -> None:
    third_die_to(eng, eng.rel(seat, chef))
    eng._decided = True


def third_die_to(eng, to: int) -> None:
    dice = eng.data.components["two_player_third_die_pool"]
    daily_accounting.activate_dice(eng, to, dice)
    eng.say(f"chef_{to} starts with {dice} dice")
