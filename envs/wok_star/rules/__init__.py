"""The Wok Star rules, one module per rulebook section, in rulebook order.

Each rule is a plain function taking the engine as its first argument
(``serve(eng, seat, flip)``); :data:`ACTIONS` maps every action name of the
action table (but ``noop``) to the function that applies it. Legality (masks
and reasons) is in :mod:`envs.wok_star.legality`; the tick loop in
:mod:`envs.wok_star.engine`.
"""

from __future__ import annotations

#: The modules of this package in the rulebook's order, with the section heading each implements.
SECTIONS = (
    ("setup", "Setup (Two Players)"),
    ("open_for_business", "Phase 1: Open for Business"),
    ("serve_customers", "Serve Customers"),
    ("prepare_ingredients", "Prepare Ingredients"),
    ("wash_the_dishes", "Wash the Dishes"),
    ("gain_and_spend_hustle", "Gain and Spend Hustle"),
    ("closed_for_business", "Closed for Business"),
    ("daily_accounting", "Phase 2: Daily Accounting (Income Goals)"),
    ("next_day_prep", "Phase 3: Next Day Prep (New Recipes, Ingredient Upgrades, Advertising, Hustle)"),
    ("starting_a_new_day", "Starting a New Day"),
    ("winning_the_game", "Winning the Game"),
    ("events", "Optional Rules: Events"),
    ("player_powers", "Optional Rules: Player Powers"),
)

from envs.wok_star.rules import (closed_for_business, daily_accounting, events, gain_and_spend_hustle,  # noqa: E402
                                 next_day_prep, open_for_business, player_powers, prepare_ingredients,
                                 serve_customers, setup, starting_a_new_day, wash_the_dishes, winning_the_game)

#: action name -> the rule that applies it: ``ACTIONS[name](eng, seat, **params)``
ACTIONS = {
    "serve": serve_customers.serve,
    "prepare": prepare_ingredients.prepare,
    "take": prepare_ingredients.take,
    "hustle_gain": gain_and_spend_hustle.hustle_gain,
    "rotate": gain_and_spend_hustle.rotate,
    "move_cubes": gain_and_spend_hustle.move_cubes,
    "wash": wash_the_dishes.wash,
    "finish_wash": wash_the_dishes.finish_wash,
    "close": closed_for_business.close,
    "lily_restart": player_powers.lily_restart,
    "grandpa_substitute": player_powers.grandpa_substitute,
    "mama_reroll": player_powers.mama_reroll,
    "uncle_deliver": player_powers.uncle_deliver,
    "auntie_reseat": player_powers.auntie_reseat,
    "choose_character": player_powers.choose_character,
    "give_ingredient": next_day_prep.give_ingredient,
    "give_third_die": setup.give_third_die,
    "give_goal_cubes": daily_accounting.give_goal_cubes,
    "buy_recipe": next_day_prep.buy_recipe,
    "upgrade": next_day_prep.upgrade,
    "advertise": next_day_prep.advertise,
    "buy_hustle": next_day_prep.buy_hustle,
}

__all__ = ["SECTIONS", "ACTIONS"] + [name for name, _ in SECTIONS]
