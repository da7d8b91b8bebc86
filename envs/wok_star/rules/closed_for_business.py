"""Rulebook section "Closed for Business" (Phase 1: Open for Business).

"The Open for Business phase ends, if: you cannot (or choose not to) serve the
current customer, or all customers from the Regular deck are served.
Immediately following the Open for Business phase, players may spend any
remaining, unused dice to Prepare Ingredients or earn Hustle."

The day closes when every chef votes ``close`` in one tick, when the Regular
deck is served out, when the current customer has waited ``patience`` ticks
with both timers empty, or when a customer is at the counter and no chef has
any action left but waiting (never while an Event card shows: it leaves when
a timer is empty). The ``closed`` phase ends after a tick in which no chef
does anything (skipped when no chef can do anything).
"""

from __future__ import annotations

from envs.wok_star.rules import daily_accounting


def close(eng, seat: int) -> None:
    """A vote; counted for the whole tick in ``begin_tick``."""


def close_for_business(eng, reason: str) -> None:
    eng.phase = "closed"
    eng.close_reason = reason
    eng._phase_started = True
    eng.say(f"CLOSED: {reason}")
    eng.touch()
    if not eng.anyone_productive():
        daily_accounting.accounting(eng)
        eng.touch()


def end_closed_tick(eng) -> None:
    if eng._phase_started or eng._productive:
        return
    daily_accounting.accounting(eng)
