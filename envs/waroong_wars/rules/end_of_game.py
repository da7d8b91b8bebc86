"""Rulebook "Ending the Game": the last round, and when the game ends.

"When the last card from the Menu deck is revealed, the game has entered its last round. Finish
the Cooking phase as usual and score your Victory Points": :func:`last_card_revealed` (called by
:func:`.cooking.take_from_display` on that reveal) and :func:`ends_after_cooking_phase`.
Safety rule, not in the rulebook: the game also ends after the Cooking phase of round
``round_limit`` (the ``round_limit`` option), so every episode ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

#: ``ended_by`` once the game is over, "" before.
DECK_END, LIMIT_END = "menu deck exhausted", "round limit"


def last_card_revealed(eng: "WaroongEngine") -> None:
    eng.last_round = True


def ends_after_cooking_phase(eng: "WaroongEngine", result: StepResult) -> bool:
    """Every player has cooked this round: end the game (last round, or the round limit) and say so."""
    if eng.last_round:
        end_game(eng, DECK_END, result)
        return True
    if eng.round >= eng.round_limit:
        end_game(eng, LIMIT_END, result)
        return True
    return False


def end_game(eng: "WaroongEngine", why: str, result: StepResult) -> None:
    eng.phase = "over"
    eng.ended_by = why
    result.events.append(f"game over ({why})")
