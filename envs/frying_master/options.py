"""Constructor options of Frying Master and which variant combinations are valid.

``players`` (2-4), ``mode`` ("drawn" or one fixed Stir-Fry Mode: the
Beginner's Mode plays Mixed or Casual Fry), the ``teppanyaki`` preset (the
Beginner's Mode's two spatulas per player, in every round), ``serve_rule``
(what "Order's up!" needs: by default a plate holding the order's number of
food cards; ``"any_food"`` is the v0 rule, any plate with food), the
project's anti-stalling ``round_ticks`` and the reward option
``round_shaping``.
Every combination is valid (``teppanyaki`` with any mode: with
``mode="teppanyaki"`` it changes nothing). The engine checks a config with
:func:`envs.frying_master.snapshot.check_config`.
"""

from __future__ import annotations

from envs.core.config import ConfigSpec, Option
from envs.frying_master.cards import catalog

PLAYER_COUNTS: tuple[int, ...] = (2, 3, 4)

#: ``serve_rule`` values: the rulebook's (default) first, then the v0 rule.
SERVE_RULES: tuple[str, ...] = ("order_size", "any_food")

#: ``mode`` values: "drawn", then every Stir-Fry Mode of the data.
MODE_CHOICES: tuple[str, ...] = ("drawn",) + catalog().mode_ids

GAME_OPTIONS = ConfigSpec("frying_master_v1", [
    Option("players", 3, "number of chefs (agents chef_0 .. chef_{n-1}, clockwise)", choices=PLAYER_COUNTS),
    Option("mode", "drawn",
           "'drawn': each round's Stir-Fry Mode is drawn from the plate backs (a mode not yet played this match); "
           "or a fixed mode for every round (Beginner's Mode: 'mixed' or 'casual'; 'teppanyaki' gives two spatulas)",
           choices=MODE_CHOICES),
    Option("teppanyaki", False,
           "Beginner's preset for young players: two spatulas per player in every round, whatever the mode",
           kind="bool"),
    Option("serve_rule", "order_size",
           "what \"Order's up!\" needs: 'order_size' (rulebook, default): the plate holds the order's number of "
           "food cards (the foods may still be wrong and score 0); 'any_food' (the v0 rule): any plate with at "
           "least one card", choices=SERVE_RULES),
    Option("round_ticks", catalog().default_round_ticks,
           "play ticks after which a round ends and is scored if nobody has completed the round's orders "
           "(anti-stalling rule; the countdown may run past it)", kind="int", low=20, high=2000),
    Option("round_shaping", 0.0,
           "per-round reward shaping: at each round's end every chef also gets round_shaping x (own round score - "
           "mean round score); 0 = match outcome only", kind="float", low=0.0, high=1.0),
])
