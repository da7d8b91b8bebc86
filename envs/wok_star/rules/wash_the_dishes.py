"""Rulebook section "Wash the Dishes" (Phase 1: Open for Business).

"If the Dishwasher token is still placed on the Dirty Dishes: stop both
30-second timers [...] no customers may be served; flip the Dishwasher token
(1st Wash) or remove it (2nd Wash); use any number of currently unused dice to
prepare ingredients or gain Hustle; stand up the timers and flip one over to
start the timer again; each player takes all their dice from the Dirty Dishes
and rolls them."

Modelled as the ``wash`` phase: it ends after a tick in which no chef does
anything; a ``finish_wash(flip)`` in that tick picks the timer to flip.
"""

from __future__ import annotations

from envs.wok_star.rules import open_for_business as ofb


def wash(eng, seat: int) -> None:
    """Use the Dishwasher: the timers stop."""
    eng.phase = "wash"
    eng.washes += 1
    eng._phase_started = True
    eng.say(f"chef_{seat} starts wash {eng.washes}: timers stopped")


def finish_wash(eng, seat: int, flip: str) -> None:
    """A chef's choice of the timer to flip at the restart (the first one in the tick counts)."""
    if eng._finish_flip is None:
        eng._finish_flip = flip


def end_wash_tick(eng) -> None:
    """After a tick in which nobody did anything: timers restart, every dirty die re-rolled."""
    if eng._phase_started or eng._productive:
        return
    flip = eng._finish_flip or "low"
    ofb.flip(eng.timers, flip, eng.T)
    for d, pip in enumerate(eng.die_pip):
        if pip == 0:
            eng.die_holder[d] = d // 5
            eng.roll(d)
    eng.phase = "open"
    eng.late_ticks = 0
    eng.say(f"dishes washed: timers restart ({flip} timer flipped), dirty dice re-rolled")
