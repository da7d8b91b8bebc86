"""Rulebook section "Phase 1: Open for Business".

"A new day of business begins. Flip over 1 of the 30-second timers and draw
and reveal the first Customer from the Regular deck. All players
simultaneously roll their dice and then begin cooking ingredients and serving
customers."

How the day is paced (one tick = ``seconds_per_tick``):

* at opening one timer is flipped (``T`` ticks of sand on top), the other
  stands empty; the first card is revealed and every die rolled;
* at the end of every ``open`` tick one tick of sand runs down in both
  timers (not in a timer that an action of this tick flipped or restarted:
  its sand starts to run in the next tick); a serve is on time while either
  timer has sand on top;
* a serve flips a timer (the first serve of the day: the unstarted one) and
  reveals the next card; an Event card stays until a timer is empty, then
  that timer is flipped and the next card revealed.

The two 30-second sand timers are counted in ticks of sand. A timer is
described by the sand on top (``0..full``): it runs down one tick per tick
while the timers stand. Flipping a timer with ``r`` on top leaves ``full - r``
on top. Timers are interchangeable, so actions name them by the sand they
hold: ``low`` (less sand on top; on a tie the first) or ``high``.
"""

from __future__ import annotations

import math

from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card
from envs.wok_star.rules import closed_for_business, events


# ---------------------------------------------------------------------------- the sand timers
def ticks_for(seconds: float, seconds_per_tick: float) -> int:
    """Ticks in ``seconds`` of table time (a 30 s timer holds ceil(30 / seconds_per_tick) ticks of sand)."""
    return max(1, math.ceil(seconds / seconds_per_tick - 1e-9))


def low_index(sand: list[int]) -> int:
    return 0 if sand[0] <= sand[1] else 1


def pick(sand: list[int], which: str) -> int:
    """Index of the ``low`` or ``high`` timer."""
    lo = low_index(sand)
    return lo if which == "low" else 1 - lo


def flip(sand: list[int], which: str, full: int) -> int:
    """Flip the ``low`` or ``high`` timer; returns its index."""
    i = pick(sand, which)
    sand[i] = full - sand[i]
    return i


def restart(sand: list[int], which: str, full: int) -> int:
    """Put a timer back to full sand on top (Lily's power); returns its index."""
    i = pick(sand, which)
    sand[i] = full
    return i


def run(sand: list[int], fresh: tuple[int, ...] | list[int] = ()) -> None:
    """One tick of sand runs down in each standing timer, except those flipped or restarted by an
    action during this tick (``fresh``): their sand starts to run in the next tick, so a customer
    revealed by a serve gets the timer's full ``T`` ticks, as the first one of the day does."""
    if 0 not in fresh:
        sand[0] = max(0, sand[0] - 1)
    if 1 not in fresh:
        sand[1] = max(0, sand[1] - 1)


def running(sand: list[int]) -> bool:
    return sand[0] > 0 or sand[1] > 0


def distinct(sand: list[int]) -> bool:
    """Whether ``low`` and ``high`` name timers in different states."""
    return sand[0] != sand[1]


# ---------------------------------------------------------------------------- the day
def open_day(eng) -> None:
    """Flip one timer, every die rolled, the first card revealed (called by ``start_day``)."""
    eng.timers = [eng.T, 0]
    eng.washes = 0
    eng.first_served = False
    eng.late_ticks = 0
    eng.served = [[] for _ in range(eng.n)]
    eng.close_reason = ""
    roll_all(eng)
    eng.say(f"DAY {eng.day} opens: goal ${eng.goals[eng.day - 1]}")
    reveal_next(eng)


def roll_all(eng) -> None:
    """"All players simultaneously roll their dice": every die of every pool, back to its owner."""
    for d, pip in enumerate(eng.die_pip):
        if pip >= 0:
            eng.die_holder[d] = d // 5
            eng.roll(d)


#: The serial's values, 0..SERIALS-1 (no game reveals nearly so many cards).
SERIALS = 10 ** 9 + 1


def reveal_next(eng) -> None:
    """Reveal the top card of the Regular deck (close if none is left)."""
    # The serial only tells, within one tick, whether a card was revealed: it counts modulo SERIALS, so
    # that a state restored with any serial the snapshot checks allow stays within them (one restored
    # at the top had been refused after its next reveal: snapshot, deepcopy and pickle of the env).
    eng.serial = (eng.serial + 1) % SERIALS
    eng.late_ticks = 0
    if not eng.deck:
        eng.current = -1
        closed_for_business.close_for_business(eng, "the Regular deck is served out")
        return
    card = eng.deck.pop()
    eng.current = card
    if is_event_card(card):
        e = eng.data.events[card - EVENT_CARD_BASE]
        eng.events_today.append(e.id)
        eng.say(f"EVENT {e.name}: {e.text}")
        if e.when == "drawn":
            events.resolve_drawn(eng, e)
    else:
        cu = eng.data.customers[card]
        eng.say(f"customer for {eng.data.recipes[cu.recipe].name} (${cu.income}{', coupon' if cu.coupon else ''})")


def end_open_tick(eng) -> None:
    """The end of an ``open`` tick: sand runs, the team's close vote, an Event leaves, the customer waits."""
    run(eng.timers, eng._fresh_timers)
    if eng._votes == eng.n:
        closed_for_business.close_for_business(eng, "the team chose to close")
        return
    if eng.current >= 0 and is_event_card(eng.current) and min(eng.timers) == 0:
        events.leaving(eng, flip(eng.timers, "low", eng.T))
        reveal_next(eng)
        if eng.phase != "open":
            return
    if eng.current_customer() is not None and not running(eng.timers):
        eng.late_ticks += 1
        if eng.late_ticks > eng.P:
            closed_for_business.close_for_business(eng, "the customer walked out: both timers ran out and nobody served")
    else:
        eng.late_ticks = 0
