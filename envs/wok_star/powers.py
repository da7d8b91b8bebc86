"""The Wang Family powers (optional rule: Player Powers).

Each chef owns one character; its power works once per day (``power_used``
flips back at Next Day Prep). Chris's tip needs no decision and is taken
automatically the first time he qualifies (a later tip is worth the same, so
waiting never helps); the other powers are actions of their owner:

* Lily (``lily_restart``) and Auntie (``auntie_reseat``) act on the timers
  and the counter, so only while the timers run (``open``);
* Grandpa, Mama and Uncle work on ingredients and dice, so in ``open``,
  ``wash`` and ``closed``.
"""

from __future__ import annotations

import numpy as np

from envs.wok_star import timers
from envs.wok_star.mask_tables import substitutions_legal

POWER_ACTIONS = {
    "lily_restart": ("lily", ("open",)),
    "grandpa_substitute": ("grandpa", ("open", "wash", "closed")),
    "mama_reroll": ("mama", ("open", "wash", "closed")),
    "uncle_deliver": ("uncle", ("open", "wash", "closed")),
    "auntie_reseat": ("auntie", ("open",)),
}


class PowerRules:
    def has_power(self, seat: int, key: str) -> bool:
        c = self.character[seat]
        return (self.config["powers"] and c >= 0 and self.data.characters[c].key == key
                and not self.power_used[seat])

    # ------------------------------------------------------------------ masks
    def power_mask(self, seat: int, m: np.ndarray) -> None:
        if not self.config["powers"] or self.character[seat] < 0 or self.power_used[seat]:
            return
        key = self.data.characters[self.character[seat]].key
        g = self._groups
        if key == "lily" and self.phase == "open":
            m[g["lily_restart"].start] = 1
            m[g["lily_restart"].start + 1] = timers.distinct(self.timers)
        elif key == "auntie" and self.phase == "open":
            m[g["auntie_reseat"].start] = self.current_customer() is not None and len(self.deck) > 0
        elif key == "grandpa":
            g_sub = g["grandpa_substitute"]
            m[g_sub.start: g_sub.stop] = substitutions_legal(tuple(h >= 0 for h in self.ing_holder),
                                                             tuple(self.ing_level), self.top)
        elif key == "mama":
            m[g["mama_reroll"].start] = sum(self.area_rows()[seat][:6]) > 0
        elif key == "uncle":
            start = g["uncle_deliver"].start
            for i, h in enumerate(self.ing_holder):
                m[start + i] = h >= 0 and self.ing_level[i] < self.top

    def power_check(self, seat: int, name: str, p: dict):
        if name not in POWER_ACTIONS:
            return NotImplemented
        key, phases = POWER_ACTIONS[name]
        if not self.config["powers"]:
            return "Player Powers are not in play (powers=False)"
        mine = self.character[seat]
        if mine < 0 or self.data.characters[mine].key != key:
            who = self.data.characters[mine].name if mine >= 0 else "nobody yet"
            return f"only the owner of the {key} card can use this power; you are {who}"
        if self.power_used[seat]:
            return "your power is already used today (it flips back at Next Day Prep)"
        if self.phase not in phases:
            return f"this power works only in phase {'/'.join(phases)} (now: {self.phase})"
        if name == "lily_restart":
            if p["timer"] == "high" and not timers.distinct(self.timers):
                return "both timers hold the same sand; use timer='low'"
            return None
        if name == "auntie_reseat":
            if self.current_customer() is None:
                return "there is no customer at the counter"
            return None if self.deck else "the Regular deck is empty: nobody else is waiting"
        if name == "grandpa_substitute":
            a_key, b_key = p["swap"].split(">")
            a, b = self.data.ingredient_id(a_key), self.data.ingredient_id(b_key)
            if self.ing_holder[a] < 0 or self.ing_holder[b] < 0:
                return "both ingredients must be in play"
            if self.ing_level[a] < 1:
                return f"{a_key} is on row 0: nothing to substitute with"
            return None if self.ing_level[b] < self.top else f"{b_key} is already on the top row"
        if name == "mama_reroll":
            return None if sum(self.area_rows()[seat][:6]) > 0 else "you have no unused dice of your colour in your area"
        if name == "uncle_deliver":
            i = self.data.ingredient_id(p["ingredient"])
            if self.ing_holder[i] < 0:
                return f"{p['ingredient']} is not in play"
            return None if self.ing_level[i] < self.top else f"{p['ingredient']} is already on the top row"
        return None

    # ------------------------------------------------------------------ actions
    def _use_power(self, seat: int, what: str) -> None:
        self.power_used[seat] = True
        self.say(f"chef_{seat} ({self.data.characters[self.character[seat]].name}) {what}")

    def chris_tip(self, seat: int, served_before: bool) -> None:
        """Chris's tip, checked at each of his serves."""
        if served_before and self.has_power(seat, "chris"):
            self.add_income(self.data.characters[self.character[seat]].amount)
            self._use_power(seat, "earns a tip for serving the same dish twice")

    def do_lily_restart(self, seat: int, timer: str) -> None:
        timers.restart(self.timers, timer, self.T)
        self.late_ticks = 0
        self._use_power(seat, f"restarts the {timer} timer")

    def do_auntie_reseat(self, seat: int) -> None:
        old = self.current
        self._use_power(seat, "seats the current customer again later")
        self.reveal_next()
        self.deck.append(old)
        order = self.rng.permutation(len(self.deck))
        self.deck = [self.deck[i] for i in order]

    def do_grandpa_substitute(self, seat: int, swap: str) -> None:
        a_key, b_key = swap.split(">")
        a, b = self.data.ingredient_id(a_key), self.data.ingredient_id(b_key)
        self.ing_level[a] -= 1
        self.ing_level[b] += 1
        self._use_power(seat, f"substitutes {a_key} for {b_key}")

    def do_mama_reroll(self, seat: int) -> None:
        for d, pip in enumerate(self.die_pip):
            if pip > 0 and self.die_holder[d] == seat and d // 5 == seat:
                self.roll(d)
        self._use_power(seat, "re-rolls her unused dice")

    def do_uncle_deliver(self, seat: int, ingredient: str) -> None:
        i = self.data.ingredient_id(ingredient)
        self.ing_level[i] = min(self.top, self.ing_level[i] + self.data.characters[self.character[seat]].amount)
        self._use_power(seat, f"delivers {ingredient} (now row {self.ing_level[i]})")
