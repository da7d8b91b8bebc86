"""Setup, goal-cube and Next Day Prep decisions (turn-based phases).

In these phases one chef (``engine.turn``) decides per tick; the others can
only wait. Waiting (``noop``) when it is your decision takes the documented
default, so no phase can stall:

* ``choose_character`` (Player Powers): chefs pick in seat order; default:
  the first character still free;
* ``distribute``: the Ingredient cards in play are given one by one, in
  ingredient order, the k-th card by ``chef_{k mod n}``, keeping at least one
  card for every chef; default: the Pro Tip rule (:meth:`pro_tip_holder`);
* ``third_die`` (2 players): ``chef_0`` names who starts with 3 dice;
  default: the chef with more Ingredient cards (``chef_0`` on a tie);
* ``goal_cubes``: the day's lead chef (``chef_{(day-1) mod n}``) gives the
  passed goal cubes to one chef; default: the chef with the fewest cubes;
* ``prep``: purchase turns in rotation from the lead chef: on your turn make
  one purchase (or pass by waiting); a recipe's new Ingredient cards are then
  given out by the buyer, one per tick; prep ends after ``n`` passes in a row
  (or at once when nothing can be bought).
"""

from __future__ import annotations

import numpy as np

from envs.wok_star.cards import coupon_cards, regular_cards

DECISIONS = ("choose_character", "give_ingredient", "give_third_die", "give_goal_cubes", "buy_recipe", "upgrade",
             "advertise", "buy_hustle")


class DecisionRules:
    # ------------------------------------------------------------------ setup
    def _deal(self) -> None:
        """A new game: everything in setup steps 1-16 that needs no decision."""
        n, data, comp = self.n, self.data, self.data.components
        self.phase, self.day, self.turn, self.decision_k = "distribute", 0, -1, 0
        self.recipe_holder = [-1] * len(data.recipes)
        if n == 2:
            for r in data.recipes:
                if r.price == comp["two_player_removed_price"]:
                    self.recipe_holder[r.id] = -2
        for seat, price in enumerate(comp["setup_recipe_prices"][str(n)]):
            pile = [r.id for r in data.recipes if r.price == price and self.recipe_holder[r.id] == -1]
            self.recipe_holder[pile[int(self.rng.integers(len(pile)))]] = seat
        self.offers = []
        self.ing_holder = [-1] * len(data.ingredients)
        self.ing_level = [0] * len(data.ingredients)
        self.ing_unlocked = [0] * len(data.ingredients)
        self.pending, self.pending_by = [], -1
        for r, h in enumerate(self.recipe_holder):
            if h >= 0:
                for i in data.recipes[r].ingredients:
                    if i not in self.pending:
                        self.pending.append(i)
        self.pending.sort()
        for i in self.pending:
            self.ing_level[i], self.ing_unlocked[i] = 1, 2
        self.pool = [comp["starting_dice"]] * n
        self.die_pip = [0 if k < comp["starting_dice"] else -1 for _ in range(n) for k in range(5)]
        self.die_holder = [d // 5 for d in range(5 * n)]
        self.cubes = [comp["starting_fortune_cubes"]] * n
        self.goal_cubes = [True] * 4
        self.cubes_passed = 0
        self.hustle = 0
        self.timers, self.washes, self.first_served, self.late_ticks = [self.T, 0], 0, False, 0
        in_play = [r for r, h in enumerate(self.recipe_holder) if h >= 0]
        self.deck = [c for r in in_play for c in regular_cards(r)]
        self.coupons = [c for r in in_play for c in coupon_cards(r)]
        self.current, self.serial = -1, 0
        self.served = [[] for _ in range(n)]
        self.income = self.money = self.passes = self.total_income = 0
        self.event_pile = [int(i) for i in self.rng.permutation(len(data.events))] if self.config["events"] else []
        self.events_today, self.events_gone = [], []
        self.character = [-1] * n
        self.power_used = [False] * n
        self.won, self.end_reason, self.close_reason = -1, "", ""
        self.history, self.log = [], []
        self.service = []
        if self.config["setup"] == "auto":
            if self.config["powers"]:
                self.character = [int(c) for c in self.rng.permutation(len(data.characters))[:n]]
            while self.pending:
                self._give_card(self.pro_tip_holder(self.pending[0], setup=True))
            if n == 2:
                self._third_die(self.default_third_die())
            self.start_day()
        else:
            self.next_setup_step()

    def next_setup_step(self) -> None:
        """Move to the next setup decision still to take (team setup)."""
        if self.config["powers"] and -1 in self.character:
            self.phase, self.turn = "choose_character", self.character.index(-1)
        elif self.pending:
            self.phase, self.turn = "distribute", self.decision_k % self.n
        elif self.n == 2 and max(self.pool) < 3:
            self.phase, self.turn = "third_die", 0
        else:
            self.start_day()
            return
        self._phase_started = True

    # ------------------------------------------------------------------ defaults
    def cards_held(self, seat: int) -> int:
        return sum(1 for h in self.ing_holder if h == seat)

    def needs(self, seat: int, ingredient: int) -> bool:
        return any(h == seat and ingredient in self.data.recipes[r].ingredients for r, h in enumerate(self.recipe_holder))

    def give_card_allowed(self, seat_to: int, setup: bool) -> bool:
        """At setup every chef must end with at least one Ingredient card."""
        if not setup:
            return True
        cardless = [s for s in range(self.n) if self.cards_held(s) == 0]
        if len(self.pending) <= len(cardless):
            return seat_to in cardless
        return True

    def pro_tip_holder(self, ingredient: int, setup: bool) -> int:
        """Pro Tip: 'Give ingredient cards to players that don't need them for their recipes.'

        Among the chefs allowed to take the card, prefer one whose recipes do
        not use it, then the fewest Ingredient cards, then the lowest seat.
        """
        allowed = [s for s in range(self.n) if self.give_card_allowed(s, setup)]
        return min(allowed, key=lambda s: (self.needs(s, ingredient), self.cards_held(s), s))

    def default_third_die(self) -> int:
        return 0 if self.cards_held(0) >= self.cards_held(1) else 1

    def default_cube_recipient(self) -> int:
        lead = self.lead_chef()
        return min(range(self.n), key=lambda s: (self.cubes[s], (s - lead) % self.n))

    # ------------------------------------------------------------------ masks
    def decision_mask(self, seat: int, m: np.ndarray) -> None:
        g = self._groups
        if self.phase == "choose_character":
            start = g["choose_character"].start
            for c in range(len(self.data.characters)):
                m[start + c] = c not in self.character
        elif self.phase == "distribute" or (self.phase == "prep" and self.pending):
            start = g["give_ingredient"].start
            setup = self.phase == "distribute"
            for r in range(self.n):
                m[start + r] = self.give_card_allowed(self.rel(seat, r), setup)
        elif self.phase == "third_die":
            m[g["give_third_die"].start: g["give_third_die"].stop] = 1
        elif self.phase == "goal_cubes":
            m[g["give_goal_cubes"].start: g["give_goal_cubes"].stop] = 1
        elif self.phase == "prep":
            start = g["buy_recipe"].start
            for k, r in enumerate(self.offers):
                if r >= 0 and self.money >= self.data.recipes[r].price:
                    m[start + k * self.n: start + (k + 1) * self.n] = 1
            start = g["upgrade"].start
            if self.money >= self.data.components["upgrade_cost"]:
                for i, h in enumerate(self.ing_holder):
                    m[start + i] = h >= 0 and self.ing_unlocked[i] < 4
            m[g["advertise"].start] = len(self.coupons) > 0
            m[g["buy_hustle"].start] = self.money >= self.data.components["hustle_cost"] and self.hustle_supply > 0

    def decision_check(self, seat: int, name: str, p: dict):
        if name not in DECISIONS:
            return NotImplemented
        phase_of = {"choose_character": ("choose_character",), "give_ingredient": ("distribute", "prep"),
                    "give_third_die": ("third_die",), "give_goal_cubes": ("goal_cubes",)}
        phases = phase_of.get(name, ("prep",))
        if self.phase not in phases:
            return f"{name} is a decision of the {'/'.join(phases)} phase (now: {self.phase})"
        if seat != self.turn:
            return f"it is chef_{self.turn}'s decision, not yours"
        if name == "choose_character":
            c = self.data.character_id(p["character"])
            return f"{p['character']} was already chosen" if c in self.character else None
        if name == "give_ingredient":
            if not self.pending:
                return "no Ingredient card is waiting to be given"
            to = self.rel(seat, p["chef"])
            if not self.give_card_allowed(to, self.phase == "distribute"):
                return "every chef must hold at least one Ingredient card: give it to a chef without one"
            return None
        if name in ("give_third_die", "give_goal_cubes"):
            return None
        if self.pending:
            return "first give out the new Ingredient cards of the recipe you bought (give_ingredient)"
        if name == "buy_recipe":
            k = p["offer"]
            if k >= len(self.offers) or self.offers[k] < 0:
                return f"offer slot {k} is empty"
            price = self.data.recipes[self.offers[k]].price
            return None if self.money >= price else f"the recipe costs ${price}; you have ${self.money}"
        if name == "upgrade":
            i = self.data.ingredient_id(p["ingredient"])
            if self.ing_holder[i] < 0:
                return f"{p['ingredient']} is not in play"
            if self.ing_unlocked[i] >= 4:
                return f"all 4 methods of {p['ingredient']} are already uncovered"
            cost = self.data.components["upgrade_cost"]
            return None if self.money >= cost else f"an upgrade costs ${cost}; you have ${self.money}"
        if name == "advertise":
            return None if self.coupons else "the Coupon deck is empty"
        if name == "buy_hustle":
            cost = self.data.components["hustle_cost"]
            if self.money < cost:
                return f"Hustle costs ${cost}; you have ${self.money}"
            return None if self.hustle_supply > 0 else "the Hustle supply is empty"
        return None

    # ------------------------------------------------------------------ actions
    def do_choose_character(self, seat: int, character: str) -> None:
        self.character[seat] = self.data.character_id(character)
        self.say(f"chef_{seat} is {self.data.characters[self.character[seat]].name}")
        self._decided = True

    def do_give_ingredient(self, seat: int, chef: int) -> None:
        self._give_card(self.rel(seat, chef))
        self._decided = True

    def _give_card(self, to: int) -> None:
        i = self.pending.pop(0)
        self.ing_holder[i] = to
        self.decision_k += 1
        self.say(f"the {self.data.ingredients[i].name} card goes to chef_{to}")

    def do_give_third_die(self, seat: int, chef: int) -> None:
        self._third_die(self.rel(seat, chef))
        self._decided = True

    def _third_die(self, to: int) -> None:
        self.activate_dice(to, 3)
        self.say(f"chef_{to} starts with 3 dice")

    def do_give_goal_cubes(self, seat: int, chef: int) -> None:
        self._goal_cubes(self.rel(seat, chef))
        self._decided = True

    def _goal_cubes(self, to: int) -> None:
        self.cubes[to] += self.cubes_passed
        self.say(f"chef_{to} gets {self.cubes_passed} goal Fortune cube(s)")
        self.cubes_passed = 0

    def do_buy_recipe(self, seat: int, offer: int, chef: int) -> None:
        r = self.offers[offer]
        recipe = self.data.recipes[r]
        to = self.rel(seat, chef)
        self.money -= recipe.price
        self.offers[offer] = -1
        self.recipe_holder[r] = to
        for i in recipe.ingredients:
            if self.ing_holder[i] < 0 and i not in self.pending:
                self.pending.append(i)
                self.ing_level[i], self.ing_unlocked[i] = 1, 2
                if self.hustle_supply < 0:  # the 2 covering tokens come from the supply, else from the pool
                    self.hustle += self.hustle_supply
        self.deck += regular_cards(r)
        self.coupons += coupon_cards(r)
        self.say(f"chef_{seat} buys {recipe.name} (${recipe.price}) for chef_{to}")
        self._purchase(seat)

    def do_upgrade(self, seat: int, ingredient: str) -> None:
        i = self.data.ingredient_id(ingredient)
        self.money -= self.data.components["upgrade_cost"]
        self.ing_unlocked[i] += 1
        self.hustle += 1
        self.say(f"chef_{seat} upgrades {self.data.ingredients[i].name} (method {self.ing_unlocked[i]} uncovered)")
        self._purchase(seat)

    def do_advertise(self, seat: int) -> None:
        k = int(self.rng.integers(len(self.coupons)))
        self.deck.append(self.coupons.pop(k))
        self.say(f"chef_{seat} advertises: a Coupon customer joins the Regular deck")
        self._purchase(seat)

    def do_buy_hustle(self, seat: int) -> None:
        self.money -= self.data.components["hustle_cost"]
        self.hustle += 1
        self.say(f"chef_{seat} buys Hustle (pool {self.hustle})")
        self._purchase(seat)

    def _purchase(self, seat: int) -> None:
        self.passes = 0
        self._decided = True
        if self.pending:
            self.pending_by = seat
        else:
            self.turn = (seat + 1) % self.n

    # ------------------------------------------------------------------ prep flow
    def start_prep(self) -> None:
        """Next Day Prep: powers flip back; three recipes drawn from those not in the game."""
        self.phase = "prep"
        self._phase_started = True
        self.power_used = [False] * self.n
        self.money = self.income
        out = [r for r, h in enumerate(self.recipe_holder) if h == -1]
        order = self.rng.permutation(len(out))
        self.offers = [out[i] for i in order[: self.data.components["recipe_offer"]]]
        self.turn = self.lead_chef()
        self.passes = 0
        self.pending, self.pending_by = [], -1
        self.say(f"NEXT DAY PREP: ${self.money} to spend; offers: " +
                 ", ".join(self.data.recipes[r].name for r in self.offers))
        self._end_prep_if_nothing_to_buy()

    def _anything_to_buy(self) -> bool:
        comp = self.data.components
        if self.coupons:
            return True
        if self.money >= comp["hustle_cost"] and self.hustle_supply > 0:
            return True
        if self.money >= comp["upgrade_cost"] and any(h >= 0 and u < 4 for h, u in zip(self.ing_holder, self.ing_unlocked)):
            return True
        return any(r >= 0 and self.money >= self.data.recipes[r].price for r in self.offers)

    def _end_prep_if_nothing_to_buy(self) -> bool:
        if not self.pending and not self._anything_to_buy():
            self.end_prep()
            return True
        return False

    def end_prep(self) -> None:
        self.say(f"prep over: ${self.money} unspent is lost")
        self.money = 0
        self.offers = []
        self.start_day()

    def end_decision_tick(self, joint: dict[str, int]) -> None:
        """Apply the default for a decider who waited; advance the phase."""
        if self._phase_started:
            return
        waited = not getattr(self, "_decided", False)
        self._decided = False
        phase = self.phase
        if phase == "choose_character":
            if waited:
                free = [c for c in range(len(self.data.characters)) if c not in self.character]
                self.character[self.turn] = free[0]
                self.say(f"chef_{self.turn} waits and gets {self.data.characters[free[0]].name}")
            self.next_setup_step()
        elif phase == "distribute":
            if waited:
                self._give_card(self.pro_tip_holder(self.pending[0], setup=True))
            self.next_setup_step()
        elif phase == "third_die":
            if waited:
                self._third_die(self.default_third_die())
            self.next_setup_step()
        elif phase == "goal_cubes":
            if waited:
                self._goal_cubes(self.default_cube_recipient())
            self.start_prep()
        elif phase == "prep":
            if self.pending_by >= 0:  # the buyer is giving out the new Ingredient cards
                if waited:
                    self._give_card(self.pro_tip_holder(self.pending[0], setup=False))
                if not self.pending:
                    self.turn = (self.pending_by + 1) % self.n
                    self.pending_by = -1
            elif waited:
                self.passes += 1
                self.turn = (self.turn + 1) % self.n
                if self.passes >= self.n:
                    self.end_prep()
                    return
            if self.phase == "prep":
                self._end_prep_if_nothing_to_buy()
