"""Customers, sand timers, events, closing and Daily Accounting (rulebook:
Open for Business, Serve Customers, Closed for Business, Daily Accounting,
Income Goals, Starting a New Day, Winning the Game, Events).

How the day is paced (one tick = ``seconds_per_tick``):

* at opening one timer is flipped (``T`` ticks of sand on top), the other
  stands empty; the first card is revealed and every die rolled;
* at the end of every ``open`` tick one tick of sand runs down in both
  timers; a serve is on time while either timer has sand on top;
* a serve flips a timer (the first serve of the day: the unstarted one) and
  reveals the next card; an Event card stays until a timer is empty, then
  that timer is flipped and the next card revealed;
* the day closes when every chef votes ``close`` in one tick, when the
  Regular deck is served out, when the current customer has waited
  ``patience`` ticks with both timers empty, or when a customer is at the
  counter and no chef has any action left but waiting (never while an Event
  card shows: it leaves when a timer is empty).
"""

from __future__ import annotations

import numpy as np

from envs.wok_star import timers
from envs.wok_star.cards import EVENT_CARD_BASE, coupon_cards, is_event_card, regular_cards
from envs.wok_star.events import resolve_drawn, resolve_end_of_round


class ServiceRules:
    # ------------------------------------------------------------------ cards
    def current_customer(self):
        """The Customer card at the counter, or None (no card, or an Event)."""
        c = self.current
        if c < 0 or is_event_card(c):
            return None
        return self.data.customers[c]

    def can_cook(self, recipe_id: int) -> bool:
        return all(self.ing_level[i] >= 1 for i in self.data.recipes[recipe_id].ingredients)

    def add_income(self, dollars: int) -> None:
        self.income += dollars
        self.give_reward(dollars)

    def reveal_next(self) -> None:
        """Reveal the top card of the Regular deck (close if none is left)."""
        self.serial += 1
        self.late_ticks = 0
        if not self.deck:
            self.current = -1
            self.close_for_business("the Regular deck is served out")
            return
        card = self.deck.pop()
        self.current = card
        if is_event_card(card):
            e = self.data.events[card - EVENT_CARD_BASE]
            self.events_today.append(e.id)
            self.say(f"EVENT {e.name}: {e.text}")
            if e.when == "drawn":
                resolve_drawn(self, e)
        else:
            cu = self.data.customers[card]
            self.say(f"customer for {self.data.recipes[cu.recipe].name} (${cu.income}{', coupon' if cu.coupon else ''})")

    # ------------------------------------------------------------------ masks
    def service_masks(self, masks: np.ndarray) -> None:
        """``serve`` (the current recipe's holder), ``wash``, ``close``, ``finish_wash`` of every chef (one row per seat)."""
        g = self._groups
        if self.phase == "open":
            cu = self.current_customer()
            if cu is not None:
                holder = self.recipe_holder[cu.recipe]
                if holder >= 0 and self.can_cook(cu.recipe):
                    serve = g["serve"].start
                    masks[holder, serve] = 1
                    masks[holder, serve + 1] = self.first_served and timers.distinct(self.timers)
            if self.washes < 2 and 0 in self.die_pip:  # dirty_dice() > 0
                masks[:, g["wash"].start] = 1
            masks[:, g["close"].start] = 1
        elif self.phase == "wash":
            start = g["finish_wash"].start
            masks[:, start] = 1
            if timers.distinct(self.timers):
                masks[:, start + 1] = 1

    def service_check(self, seat: int, name: str, p: dict):
        if name == "serve":
            if self.phase != "open":
                return "customers can only be served while the timers run (not while washing, not after closing)" \
                    if self.phase in ("wash", "closed") else f"no customers are waiting now (phase: {self.phase})"
            cu = self.current_customer()
            if cu is None:
                return "there is no customer at the counter (an Event card is showing)" if self.current >= 0 else "there is no customer at the counter"
            recipe = self.data.recipes[cu.recipe]
            if self.recipe_holder[cu.recipe] != seat:
                return f"only the holder of the {recipe.name} recipe (chef_{self.recipe_holder[cu.recipe]}) can serve this customer"
            empty = [self.data.ingredients[i].key for i in recipe.ingredients if self.ing_level[i] < 1]
            if empty:
                return f"{recipe.name} needs {', '.join(empty)}, which is on row 0"
            if p["flip"] == "high":
                if not self.first_served:
                    return "the first serve of the day flips the second, unstarted timer (flip='low')"
                if not timers.distinct(self.timers):
                    return "both timers hold the same sand; use flip='low'"
            return None
        if name == "wash":
            if self.phase != "open":
                return f"the dishes can only be washed while open for business (now: {self.phase})"
            if self.washes >= 2:
                return "the Dishwasher is used up for today (2 washes)"
            if self.dirty_dice() == 0:
                return "the Dirty Dishes are empty"
            return None
        if name == "finish_wash":
            if self.phase != "wash":
                return "no wash is under way"
            if p["flip"] == "high" and not timers.distinct(self.timers):
                return "both timers hold the same sand; use flip='low'"
            return None
        if name == "close":
            if self.phase != "open":
                return f"only an open restaurant can close (now: {self.phase})"
            return None
        return NotImplemented

    # ------------------------------------------------------------------ actions
    def do_serve(self, seat: int, flip: str) -> None:
        cu = self.current_customer()
        recipe = self.data.recipes[cu.recipe]
        for i in recipe.ingredients:
            self.ing_level[i] -= 1
        late = not timers.running(self.timers)
        already = any(self.data.customers[c].recipe == cu.recipe for c, _ in self.served[seat])
        self.served[seat].append([cu.id, int(late)])
        value = cu.income - (1 if late else 0)
        self.add_income(value)
        self.say(f"chef_{seat} serves {recipe.name} {'LATE' if late else 'on time'} (+${value})")
        self.chris_tip(seat, already)
        timers.flip(self.timers, flip if self.first_served else "low", self.T)
        self.first_served = True
        self.reveal_next()

    def do_wash(self, seat: int) -> None:
        self.start_wash(seat)

    def do_finish_wash(self, seat: int, flip: str) -> None:
        if self._finish_flip is None:
            self._finish_flip = flip

    def do_close(self, seat: int) -> None:
        """A vote; counted for the whole tick in ``begin_tick``."""

    # ------------------------------------------------------------------ end of tick
    def end_open_tick(self) -> None:
        timers.run(self.timers)
        if self._votes == self.n:
            self.close_for_business("the team chose to close")
            return
        if self.current >= 0 and is_event_card(self.current) and min(self.timers) == 0:
            timers.flip(self.timers, "low", self.T)
            self.reveal_next()
            if self.phase != "open":
                return
        if self.current_customer() is not None and not timers.running(self.timers):
            self.late_ticks += 1
            if self.late_ticks > self.P:
                self.close_for_business("the customer walked out: both timers ran out and nobody served")
        else:
            self.late_ticks = 0

    def close_for_business(self, reason: str) -> None:
        self.phase = "closed"
        self.close_reason = reason
        self._phase_started = True
        self.say(f"CLOSED: {reason}")
        self.touch()
        if not self.anyone_productive():
            self.accounting()
            self.touch()

    def end_closed_tick(self) -> None:
        if self._phase_started or self._productive:
            return
        self.accounting()

    # ------------------------------------------------------------------ accounting
    def accounting(self) -> None:
        """Daily Accounting, then the goal check (win, loss or Next Day Prep)."""
        for e in list(self.events_today):
            ev = self.data.events[e]
            if ev.when == "end_of_round":
                resolve_end_of_round(self, ev)
        if self.income < 0:
            self.add_income(-self.income)
        self.events_gone.extend(self.events_today)
        self.events_today = []
        self.gather_dice()
        for seat in range(self.n):
            on_time = sum(1 for _, late in self.served[seat] if not late)
            if on_time > self.pool[seat]:
                self.activate_dice(seat, min(self.data.components["max_dice_per_player"], on_time))
        in_play = [r for r, h in enumerate(self.recipe_holder) if h >= 0]
        self.deck = [c for c in self.deck if is_event_card(c)] + [c for r in in_play for c in regular_cards(r)]
        self.coupons = [c for r in in_play for c in coupon_cards(r)]
        on_time_today = sum(1 for seat in self.served for _, late in seat if not late)
        late_today = sum(1 for seat in self.served for _, late in seat if late)
        self.service.append([self.day, on_time_today, late_today, int(self.current_customer() is not None)])
        self.current = -1
        self.served = [[] for _ in range(self.n)]
        self.washes = 0
        goal = self.goals[self.day - 1]
        self.history.append([self.day, self.income, goal])
        self.total_income += self.income
        self.say(f"ACCOUNTING day {self.day}: income ${self.income}, goal ${goal}")
        if self.income < goal:
            self.won = 0
            self.end_reason = f"day {self.day}: income ${self.income} below the goal ${goal}"
            self.phase = "over"
            return
        if self.day == self.data.components["days"]:
            self.won = 1
            self.end_reason = f"day {self.day} goal met: the loan is paid"
            self.phase = "over"
            return
        passed = [k for k in range(4) if self.goal_cubes[k] and self.goals[k] <= self.income]
        for k in passed:
            self.goal_cubes[k] = False
        if passed:
            self.cubes_passed = len(passed)
            self.phase = "goal_cubes"
            self.turn = self.lead_chef()
            self._phase_started = True
        else:
            self.start_prep()

    def start_day(self) -> None:
        """Starting a New Day / Open for Business."""
        self.day += 1
        self.phase = "open"
        self._phase_started = True
        self.turn = -1
        if self.config["events"]:
            for _ in range(min(self.data.components["events_per_day"], len(self.event_pile))):
                self.deck.append(EVENT_CARD_BASE + self.event_pile.pop())
        order = self.rng.permutation(len(self.deck))
        self.deck = [self.deck[i] for i in order]
        self.timers = [self.T, 0]
        self.washes = 0
        self.first_served = False
        self.late_ticks = 0
        self.income = 0
        self.money = 0
        self.served = [[] for _ in range(self.n)]
        self.close_reason = ""
        self.roll_all()
        self.say(f"DAY {self.day} opens: goal ${self.goals[self.day - 1]}")
        self.reveal_next()
