"""Rulebook section "Optional Rules: Events".

"During step 9 of the setup procedure, shuffle all Event cards. Shuffle 2
Event cards into the Regular deck. [...] When an Event card is drawn from the
Regular deck, follow the instructions on the card. Once either 30-second
timers is up, flip the empty timer, draw the next Customer card, and proceed
with the game as usual. During the Daily Accounting phase: 1. resolve any End
of Round Event cards [...] 2. Then discard all Event cards that appeared
during this round from the game. 3. When re-shuffling the Regular deck, draw
2 new Event cards face-down and shuffle them into the deck."

What each (reconstructed) Event card does:
``resolve_drawn`` runs when a card with ``when == "drawn"`` is revealed;
``resolve_end_of_round`` runs at the start of Daily Accounting for each
``"end_of_round"`` card revealed that day, in the order they appeared.
Every key in ``data/events.json`` has exactly one function here (checked by
the tests).
"""

from __future__ import annotations

from typing import Callable

from envs.wok_star.cards import EVENT_CARD_BASE, Event


def _health_inspector(eng, e: Event) -> None:
    for i, h in enumerate(eng.ing_holder):
        if h >= 0:
            eng.ing_level[i] = max(0, eng.ing_level[i] - e.amount)


def _dropped_tray(eng, e: Event) -> None:
    live = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    top = max(live, key=lambda i: (eng.ing_level[i], -i))
    eng.ing_level[top] = max(0, eng.ing_level[top] - e.amount)


def _power_flicker(eng, e: Event) -> None:
    for d, pip in enumerate(eng.die_pip):
        if pip > 0:
            eng.roll(d)


def _staff_meeting(eng, e: Event) -> None:
    for seat in range(eng.n):
        for pip in range(1, 7):
            d = eng.find_die(seat, pip, False)
            if d >= 0:
                eng.to_dishes(d)
                break


def _broken_dishwasher(eng, e: Event) -> None:
    eng.washes = min(eng.data.components["washes_per_day"], eng.washes + e.amount)


def _spilled_sauce(eng, e: Event) -> None:
    eng.hustle -= min(eng.hustle, e.amount)


def _walk_ins(eng, e: Event) -> None:
    for _ in range(min(e.amount, len(eng.coupons))):
        k = int(eng.rng.integers(len(eng.coupons)))
        eng.deck.append(eng.coupons.pop(k))
    order = eng.rng.permutation(len(eng.deck))
    eng.deck = [eng.deck[i] for i in order]


def _impatient_crowd(eng, e: Event) -> None:
    eng.timers = [max(0, s - eng.crowd_ticks) for s in eng.timers]


def _supply_delivery(eng, e: Event) -> None:
    for i, h in enumerate(eng.ing_holder):
        if h >= 0 and eng.ing_level[i] == 0:
            eng.ing_level[i] = e.amount


def _lucky_cat(eng, e: Event) -> None:
    eng.hustle += min(e.amount, eng.hustle_supply)


def _rent_increase(eng, e: Event) -> None:
    eng.add_income(-e.amount)


def _late_count(eng) -> int:
    return sum(late for served in eng.served for _, late in served)


def _bad_review(eng, e: Event) -> None:
    eng.add_income(-e.amount * _late_count(eng))


def _food_critic(eng, e: Event) -> None:
    eng.add_income(e.amount if _late_count(eng) == 0 else -e.amount)


def _tax_collector(eng, e: Event) -> None:
    eng.add_income(-(max(0, eng.income) // e.amount))


def _generous_tipper(eng, e: Event) -> None:
    eng.add_income(e.amount)


DRAWN: dict[str, Callable] = {
    "health_inspector": _health_inspector,
    "dropped_tray": _dropped_tray,
    "power_flicker": _power_flicker,
    "staff_meeting": _staff_meeting,
    "broken_dishwasher": _broken_dishwasher,
    "spilled_sauce": _spilled_sauce,
    "walk_ins": _walk_ins,
    "impatient_crowd": _impatient_crowd,
    "supply_delivery": _supply_delivery,
    "lucky_cat": _lucky_cat,
}
END_OF_ROUND: dict[str, Callable] = {
    "rent_increase": _rent_increase,
    "bad_review": _bad_review,
    "food_critic": _food_critic,
    "tax_collector": _tax_collector,
    "generous_tipper": _generous_tipper,
}


def add_day_events(eng) -> None:
    """Setup step 9 and each new day: 2 Event cards from the pile into the Regular deck (shuffled by the caller)."""
    if eng.config["events"]:
        for _ in range(min(eng.data.components["events_per_day"], len(eng.event_pile))):
            eng.deck.append(EVENT_CARD_BASE + eng.event_pile.pop())


def resolve_end_of_round_cards(eng) -> None:
    """Daily Accounting 1: the End of Round cards that appeared today, in the order they appeared."""
    for e in list(eng.events_today):
        ev = eng.data.events[e]
        if ev.when == "end_of_round":
            resolve_end_of_round(eng, ev)


def discard_today(eng) -> None:
    """Daily Accounting 2: the Event cards that appeared today leave the game."""
    eng.events_gone.extend(eng.events_today)
    eng.events_today = []


def resolve_drawn(eng, e: Event) -> None:
    DRAWN[e.key](eng, e)


def resolve_end_of_round(eng, e: Event) -> None:
    END_OF_ROUND[e.key](eng, e)


def check_events(data) -> None:
    """Every Event card in the data has exactly one implementation, resolved at the time it says."""
    from envs.core.data import require

    for e in data.events:
        table = DRAWN if e.when == "drawn" else END_OF_ROUND
        require(e.key in table, f"event {e.key!r} ({e.when}) has no implementation in envs/wok_star/rules/events.py")
    keys = {e.key for e in data.events}
    extra = (set(DRAWN) | set(END_OF_ROUND)) - keys
    require(not extra, f"rules/events.py implements events missing from events.json: {sorted(extra)}")
