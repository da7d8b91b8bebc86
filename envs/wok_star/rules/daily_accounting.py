"""Rulebook section "Phase 2: Daily Accounting" (with "Income Goals").

"1. Each player gathers their dice back. 2. [...] their dice pool size
increases to match the number of on-time customers served, up to 5 dice per
player [...] 3. All players add their total income [...] subtract $1 for each
late customer. 4. Separate all Customer cards into Regular and Coupon Customer
cards [...] Coupon Customers do not stay in the Regular deck. 5. Place the
Dishwasher token on the Dirty Dishes, with '1st Wash' showing."

Income Goals: "If you have achieved or surpassed the Income Goal for a given
round [...] You gain all Fortune cubes you passed on the Income Tracker. Give
them to the player of your choice" (the ``goal_cubes`` decision of the day's
lead chef; waiting: the chef with the fewest cubes). Below the goal, see
:mod:`envs.wok_star.rules.winning_the_game`.
"""

from __future__ import annotations

from envs.wok_star.cards import coupon_cards, is_event_card, regular_cards
from envs.wok_star.rules import events, next_day_prep, winning_the_game


def accounting(eng) -> None:
    """Daily Accounting, then the goal check (win, loss or Next Day Prep)."""
    events.resolve_end_of_round_cards(eng)
    if eng.income < 0:
        eng.add_income(-eng.income)
    events.discard_today(eng)
    gather_dice(eng)
    for seat in range(eng.n):
        on_time = sum(1 for _, late in eng.served[seat] if not late)
        if on_time > eng.pool[seat]:
            activate_dice(eng, seat, min(eng.data.components["max_dice_per_player"], on_time))
    in_play = [r for r, h in enumerate(eng.recipe_holder) if h >= 0]
    eng.deck = [c for c in eng.deck if is_event_card(c)] + [c for r in in_play for c in regular_cards(r)]
    eng.coupons = [c for r in in_play for c in coupon_cards(r)]
    on_time_today = sum(1 for seat in eng.served for _, late in seat if not late)
    late_today = sum(1 for seat in eng.served for _, late in seat if late)
    eng.service.append([eng.day, on_time_today, late_today, int(eng.current_customer() is not None)])
    eng.current = -1
    eng.served = [[] for _ in range(eng.n)]
    eng.washes = 0
    goal = eng.goals[eng.day - 1]
    eng.history.append([eng.day, eng.income, goal])
    eng.total_income += eng.income
    eng.say(f"ACCOUNTING day {eng.day}: income ${eng.income}, goal ${goal}")
    if winning_the_game.game_ends(eng, goal):
        return
    passed = [k for k, on in enumerate(eng.goal_cubes) if on and eng.goals[k] <= eng.income]
    for k in passed:
        eng.goal_cubes[k] = False
    if passed:
        eng.cubes_passed = len(passed)
        eng.phase = "goal_cubes"
        eng.turn = eng.lead_chef()
        eng._phase_started = True
    else:
        next_day_prep.start_prep(eng)


def gather_dice(eng) -> None:
    """Daily Accounting step 1: every die back to its owner (rolled at the next opening)."""
    for d, pip in enumerate(eng.die_pip):
        if pip >= 0:
            eng.die_pip[d] = 0
            eng.die_holder[d] = d // 5


def activate_dice(eng, owner: int, count: int) -> None:
    """The owner's dice pool grows to ``count`` (never shrinks)."""
    for k in range(5):
        d = owner * 5 + k
        if k < count and eng.die_pip[d] < 0:
            eng.die_pip[d] = 0
            eng.die_holder[d] = owner
    eng.pool[owner] = max(eng.pool[owner], count)


# ---------------------------------------------------------------------------- Income Goals: the cubes passed
def default_cube_recipient(eng) -> int:
    lead = eng.lead_chef()
    return min(range(eng.n), key=lambda s: (eng.cubes[s], (s - lead) % eng.n))


def give_goal_cubes(eng, seat: int, chef: int) -> None:
    goal_cubes_to(eng, eng.rel(seat, chef))
    eng._decided = True


def goal_cubes_to(eng, to: int) -> None:
    eng.cubes[to] += eng.cubes_passed
    eng.say(f"chef_{to} gets {eng.cubes_passed} goal Fortune cube(s)")
    eng.cubes_passed = 0
