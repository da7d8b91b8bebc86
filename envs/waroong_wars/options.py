"""Constructor options of Waroong Wars and which variant combinations are valid.

The four printed variants are independent switches except one pair:
Plain Mode plays "without character and customer", so it cannot be combined
with Character Mode. No-Memory Chef and Constraint Mode combine with
everything. :func:`check_variants` enforces that (raising ``ConfigError``);
the engine calls it, so a bad combination fails however the game is built.
"""

from __future__ import annotations

from typing import Any, Mapping

from envs.core.config import ConfigSpec, Option
from envs.core.errors import ConfigError

PLAYER_COUNTS = (3, 4, 5)
DEFAULT_ROUND_LIMIT = 20
VIEWERS = ("all", "none") + tuple(f"player_{i}" for i in range(max(PLAYER_COUNTS)))

GAME_OPTIONS = ConfigSpec(
    "waroong_wars_v1",
    [
        Option("players", 4, "number of chefs (the rulebook's 3-5); sets the menu deck to 18/24/30 cards",
               choices=PLAYER_COUNTS),
        Option("no_memory_chef", False,
               "No-Memory Chef variant: players may look at their own picks during the Shopping phase "
               "(off: picks stay face down, unseen even by their owner, until the draft ends)", kind="bool"),
        Option("plain_mode", False,
               "Plain Mode variant: no customers (none drawn, no abilities, no Tukang wilds) and no characters; "
               "cannot be combined with character_mode", kind="bool"),
        Option("character_mode", False,
               "Character Mode variant: each player gets a random, face-up Character card with its printed power",
               kind="bool"),
        Option("constraint_mode", False,
               "Constraint Mode variant: only the 3 right-most menu cards of the display may be cooked", kind="bool"),
        Option("round_limit", DEFAULT_ROUND_LIMIT,
               "safety rule (not in the rulebook): the game also ends after the Cooking phase of this round if the "
               "last menu card has not been revealed by then, so every episode ends", kind="int", low=1, high=40),
        Option("vp_shaping", 0.0,
               "reward shaping: each step every agent also receives this factor times the change of its own current "
               "score (VP); 0 = pure final-ranking reward", kind="float", low=0.0, high=1.0),
        Option("own_picks", False,
               "observation extension (not a rule; off by default): append own_picks, the ingredient cards of each "
               "type this player has picked so far in this round's Shopping phase (its own past actions, which a "
               "player may remember though the picks lie face down; zeros outside Shopping, where the hand is "
               "shown); a policy trained with it must be played with it", kind="bool"),
        Option("render_viewer", "all",
               "whose hidden cards the text rendering shows: 'all' (spectator), 'none' (public information only) "
               "or 'player_i' (exactly what that player sees)", choices=VIEWERS),
    ],
)

#: Options that only change the rendering, not the rules (kept out of the engine's config).
RENDER_ONLY = ("render_viewer",)
#: Options that only change the observation, not the rules (kept out of the engine's config: the
#: encoder gets them, see ``WaroongWarsEnv.make_encoder``).
OBSERVATION_ONLY = ("own_picks",)
#: Every option the rules engine does not see (its config, and so its snapshots, leave them out).
NOT_RULES = RENDER_ONLY + OBSERVATION_ONLY


def check_variants(config: Mapping[str, Any]) -> None:
    """Raise ConfigError for a combination of options that the rules exclude."""
    if config.get("plain_mode") and config.get("character_mode"):
        raise ConfigError(
            "waroong_wars_v1: plain_mode=True plays without characters and customers, so it cannot be combined "
            "with character_mode=True; valid: plain_mode alone, character_mode alone, or neither "
            "(no_memory_chef and constraint_mode combine with all of them)")
    viewer = config.get("render_viewer", "all")
    if viewer.startswith("player_") and int(viewer.split("_")[1]) >= int(config.get("players", 4)):
        raise ConfigError(
            f"waroong_wars_v1: render_viewer={viewer!r} is not at this table; allowed: 'all', 'none' or "
            f"player_0..player_{int(config.get('players', 4)) - 1}")


def valid_variant_combinations() -> list[dict[str, bool]]:
    """Every valid combination of the four variant switches (12 of the 16)."""
    out = []
    for plain in (False, True):
        for character in (False, True):
            if plain and character:
                continue
            for no_memory in (False, True):
                for constraint in (False, True):
                    out.append({"no_memory_chef": no_memory, "plain_mode": plain,
                                "character_mode": character, "constraint_mode": constraint})
    return out


def engine_config(**overrides: Any) -> dict[str, Any]:
    """A complete rules-engine config: the defaults with ``overrides`` (validated)."""
    resolved = dict(GAME_OPTIONS.resolve(overrides))
    check_variants(resolved)
    for key in NOT_RULES:
        resolved.pop(key)
    return resolved
