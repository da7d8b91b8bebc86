"""The constructor options of Wok Star (its ``ConfigSpec``) and the variant combinations.

Every combination of the game options is valid: 2, 3 or 4 players, any
difficulty, each optional rule (Events, Player Powers) on or off, team or
automatic setup; :func:`variant_combinations` lists the 36 rule variants
(players x difficulty x Events x Player Powers) that the tests cover.
"""

from __future__ import annotations

import itertools

from envs.core.config import ConfigSpec, Option

PLAYERS = (2, 3, 4)
DIFFICULTIES = ("mild", "medium", "extra_spicy")

GAME_OPTIONS = ConfigSpec(
    "wok_star_v1",
    [
        Option("players", 3, "number of chefs (agents chef_0 ... chef_{n-1})", choices=PLAYERS),
        Option("difficulty", "mild", "Income Goal table row: 'mild', 'medium' or 'extra_spicy' "
                                     "(Medium 3-4 players and Extra Spicy are reconstructed)",
               choices=DIFFICULTIES),
        Option("events", False, "optional rule: Events (2 Event cards shuffled into the Regular deck each day)", kind="bool"),
        Option("powers", False, "optional rule: Player Powers (one Wang Family character per chef)", kind="bool"),
        Option("setup", "team", "'team': the chefs take the setup decisions (characters, who holds which Ingredient card, "
                                "who starts with 3 dice in a 2-player game); 'auto': characters dealt at random, cards by "
                                "the rulebook's Pro Tip, the 3rd die to the chef with more Ingredient cards",
               choices=("team", "auto")),
        Option("timer_seconds", 30.0, "seconds of sand in each timer; a timer holds ceil(timer_seconds / seconds_per_tick) ticks",
               kind="float", low=5.0, high=120.0),
        Option("patience_seconds", 30.0, "after both timers run out, the current customer waits this long before walking "
                                         "out (the day then closes); the bound that keeps a day finite",
               kind="float", low=1.0, high=120.0),
        Option("reward", "income", "'income': every chef gets reward_scale x each dollar the team earns, when earned "
                                   "(late serves net of the $1, end-of-round events at accounting); 'win_loss': +1 "
                                   "to every chef on winning, -1 on losing, else 0; 'income+win_loss': both",
               choices=("income", "win_loss", "income+win_loss")),
        Option("reward_scale", 0.1, "reward per dollar of income (reward='income' or 'income+win_loss')",
               kind="float", low=0.0, high=10.0),
    ],
)


def variant_combinations() -> list[dict]:
    """Every player count x difficulty x (Events, Player Powers): 36 configurations, all valid."""
    return [
        {"players": p, "difficulty": d, "events": e, "powers": w}
        for p, d, (e, w) in itertools.product(PLAYERS, DIFFICULTIES,
                                              ((False, False), (True, False), (False, True), (True, True)))
    ]
