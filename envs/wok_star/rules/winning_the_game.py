"""Rulebook section "Winning the Game" (with the Income Goals' loss).

"If you have earned enough income at the end of the 4th round to satisfy the
final Income Goal - congratulations [...] If you have not earned enough
income to satisfy the final Income Goal (or any given round), the restaurant
must close its doors and you lose the game." ("If you have earned less than
the required Income Goal, the game is over and all players lose.")
"""

from __future__ import annotations


def game_ends(eng, goal: int) -> bool:
    """At Daily Accounting: a missed goal loses, day 4's goal met wins (``phase`` becomes ``over``)."""
    if eng.income < goal:
        eng.won = 0
        eng.end_reason = f"day {eng.day}: income ${eng.income} below the goal ${goal}"
        eng.phase = "over"
        return True
    if eng.day == eng.data.components["days"]:
        eng.won = 1
        eng.end_reason = f"day {eng.day} goal met: the loan is paid"
        eng.phase = "over"
        return True
    return False
