"""Rulebook section "Starting a New Day".

"At the end of the Next Day Prep, return the Income marker to the zero space
on the Income Tracker. If you just completed days 1, 2 or 3, you are ready to
start a new day: shuffle the Regular deck and proceed to the Open for
Business phase." (Day 1 starts the same way at the end of setup.)
"""

from __future__ import annotations

from envs.wok_star.rules import events, open_for_business


def start_day(eng) -> None:
    """Starting a New Day / Open for Business."""
    eng.day += 1
    eng.phase = "open"
    eng._phase_started = True
    eng.turn = -1
    events.add_day_events(eng)
    order = eng.rng.permutation(len(eng.deck))
    eng.deck = [eng.deck[i] for i in order]
    eng.income = 0
    eng.money = 0
    open_for_business.open_day(eng)
