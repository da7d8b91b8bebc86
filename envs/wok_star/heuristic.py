"""A scripted Wok Star team: every chef runs the same rules on public information.

It reads only the observation's action mask, the static card data and
``engine.public_view(agent)`` (no deck order, nothing face down).

Open for Business, in order of priority:

1. serve the current customer if you can (flip the timer with less sand);
2. if the current dish lacks an ingredient whose card you hold, prepare it
   with the dice that give the most (own dice before taken ones); with one
   die short, take one from the chef with the most unused dice (if you have a
   Fortune cube); with a Hustle token, turn a die to reach a better method;
3. otherwise prepare the ingredient of yours with the highest demand per
   level (demand: customers still to come whose dish uses it), up to a stock
   of ``STOCK`` rows (empty tokens first); short of dice for an empty card,
   take a die from a chef who has nothing to prepare;
4. when the current dish is blocked (a missing ingredient's holder has fewer
   than two dice and cannot take one) the holder starts a wash if one is
   left; with no wash left and nothing else to try, every chef votes to
   close in the same tick;
5. powers: Lily restarts an empty timer while the dish is still cooking,
   Grandpa substitutes a plentiful ingredient for a missing one, Uncle
   delivers a missing ingredient, Mama re-rolls dice that fit no better
   method, Auntie sends a blocked customer back.

While washing and after closing: spend every unused die (prepare what is
lowest, else turn it into Hustle), then wait (which ends the step).

Decisions: characters by preference; Ingredient cards to a chef whose recipes
do not use them, fewest cards per die; goal cubes by the default (fewest
cubes). Next Day Prep, on your turn: buy a recipe only when customers may run
short (yesterday's Regular deck ran out, or fewer Regular customers than
dice): the offer with the most income per ingredient (ingredients in play
count half), for the chef with the largest pool below 5 and under 2 recipes;
else upgrade the most-demanded card ($6); else buy Hustle ($2); else advertise
(up to ``ADVERTISE`` Coupons) if the deck ran out; otherwise pass.

Styles (``HeuristicPolicy(style=...)``, spec ``heuristic?style=NAME``): the
same rules with other settings, a population of partners that divide the work,
keep the tempo and spend differently (:data:`STYLES`; issue 16's cross-play):

* ``default``: the settings above;
* ``stockpiler``: stocks 3 rows of every card before idling and keeps 2 Hustle
  tokens in reserve (slow, deep preparation);
* ``just_in_time``: stocks 1 row only, so its dice stay free for the dish at
  the counter (tempo);
* ``soloist``: never takes dice or moves Fortune cubes from other chefs (each
  chef works their own cards: a division of labour with no help);
* ``big_spender``: buys a recipe whenever one is affordable, spends every
  Hustle token on rotations and advertises up to 5 Coupons;
* ``miser``: never buys recipes or advertises; only upgrades and Hustle;
* ``eager_buyer``: the default chef, except that it buys a recipe whenever one
  is affordable (``big_spender``'s recipe rule alone: it keeps its Hustle
  reserve and advertises as the default does);
* ``hustler``: the default chef, except that it keeps no Hustle token in
  reserve: it spends every token on a rotation that reaches a better method
  (``big_spender``'s Hustle rule alone: it buys recipes and advertises as the
  default does).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.engine import NOOP
from envs.core.policy import Policy, table_engine
from envs.wok_star.actions import build_action_table
from envs.wok_star.cards import load_data
from envs.wok_star.actions import COMBOS, N_COMBOS, feasible
from envs.wok_star.rules.prepare_ingredients import amount_table

STOCK = 2
ADVERTISE = 3
HUSTLE_RESERVE = 1
CUSTOMERS_PER_DIE = 1.0
CHARACTER_PREFERENCE = ("lily", "uncle", "grandpa", "auntie", "mama", "chris")

#: name -> settings of each style (see the module doc); ``default`` is the constants above.
STYLES: dict[str, dict[str, Any]] = {
    "default": {"stock": STOCK, "advertise": ADVERTISE, "hustle_reserve": HUSTLE_RESERVE, "helps": True,
                "recipes": "when_short", "advertises": True},
    "stockpiler": {"stock": 3, "advertise": ADVERTISE, "hustle_reserve": 2, "helps": True,
                   "recipes": "when_short", "advertises": True},
    "just_in_time": {"stock": 1, "advertise": ADVERTISE, "hustle_reserve": HUSTLE_RESERVE, "helps": True,
                     "recipes": "when_short", "advertises": True},
    "soloist": {"stock": STOCK, "advertise": ADVERTISE, "hustle_reserve": HUSTLE_RESERVE, "helps": False,
                "recipes": "when_short", "advertises": True},
    "big_spender": {"stock": STOCK, "advertise": 5, "hustle_reserve": 0, "helps": True,
                    "recipes": "always", "advertises": True},
    "miser": {"stock": STOCK, "advertise": 0, "hustle_reserve": HUSTLE_RESERVE, "helps": True,
              "recipes": "never", "advertises": False},
    "eager_buyer": {"stock": STOCK, "advertise": ADVERTISE, "hustle_reserve": HUSTLE_RESERVE, "helps": True,
                    "recipes": "always", "advertises": True},
    "hustler": {"stock": STOCK, "advertise": ADVERTISE, "hustle_reserve": 0, "helps": True,
                "recipes": "when_short", "advertises": True},
}


class HeuristicPolicy(Policy):
    name = "heuristic"
    styles = tuple(STYLES)

    def __init__(self, style: str = "default") -> None:
        if style not in STYLES:
            raise ValueError(f"unknown Wok Star heuristic style {style!r}; allowed: {', '.join(STYLES)}")
        self.style = style
        st = STYLES[style]
        self.stock, self.advertise_up_to, self.hustle_reserve = st["stock"], st["advertise"], st["hustle_reserve"]
        self.helps, self.recipes, self.advertises = st["helps"], st["recipes"], st["advertises"]
        if style != "default":
            self.name = f"heuristic?style={style}"
        self.data = load_data()
        self._table = None
        self._n = None

    # ------------------------------------------------------------------ plumbing
    def _setup_table(self, n: int) -> None:
        if self._n != n:
            self._n = n
            self._table = build_action_table(n)
            self._g = {g.name: g for g in self._table.groups}

    def _idx(self, name: str, offset: int = 0) -> int:
        return self._g[name].start + offset

    def act(self, observation: dict[str, np.ndarray], agent: str, env: Any = None) -> int:
        engine = table_engine(env, "wok_star")
        view = engine.public_view(agent)
        t, me = view.table, view.seat
        self._setup_table(t["n"])
        mask = observation["action_mask"]
        if not np.any(mask):
            raise ValueError(f"{agent} has no legal action")
        phase = t["phase"]
        if phase in ("open", "wash", "closed"):
            a = self._kitchen(t, me, mask)
        elif t["turn"] == me:
            a = self._decide(t, me, mask)
        else:
            a = NOOP
        if a != NOOP and not mask[a]:
            a = NOOP
        if not mask[a]:  # a mask that hides noop (the env's never does): the lowest legal action
            a = int(np.flatnonzero(mask)[0])
        return int(a)

    # ------------------------------------------------------------------ analysis
    def _demand(self, t) -> np.ndarray:
        """Customers still to come (and the current one) per ingredient."""
        d = self.data
        dem = np.zeros(len(d.ingredients))
        for r, h in enumerate(t["recipe_holder"]):
            if h >= 0:
                waiting = t["regular_left"][r] + 0.5 * t["coupon_unseen"][r]
                for i in d.recipes[r].ingredients:
                    dem[i] += waiting
        cur = t["current"]
        if cur["kind"] == "customer":
            for i in d.recipes[cur["recipe"]].ingredients:
                dem[i] += 3
        return dem

    def _missing(self, t) -> list[int]:
        cur = t["current"]
        if cur["kind"] != "customer":
            return []
        return [i for i in self.data.recipes[cur["recipe"]].ingredients if t["ing_level"][i] < 1]

    def _best_prepare(self, t, me: int, mask, i: int) -> tuple[int, int]:
        """(action, amount) of the best legal prepare of ingredient ``i``; (-1, 0) if none."""
        start = self._idx("prepare", i * N_COMBOS)
        legal = np.flatnonzero(mask[start: start + N_COMBOS])
        if legal.size == 0:
            return -1, 0
        amounts = amount_table(i)[t["ing_unlocked"][i]]
        best, best_key = -1, None
        for c in legal:
            lo, hi, m = COMBOS[c]
            key = (int(amounts[c]), -bin(m).count("1"), -(lo == hi), lo + hi)
            if best_key is None or key > best_key:
                best, best_key = c, key
        return start + best, int(best_key[0])

    def _unused(self, t, seat: int) -> int:
        return int(t["area"][seat].sum())

    def _rotate_for(self, t, me: int, mask, i: int, current_best: int) -> int:
        """A rotation of one of my dice that lets ``i`` be prepared for more; -1 if none."""
        if t["hustle"] < 1:
            return -1
        area = t["area"][me]
        amounts = amount_table(i)[t["ing_unlocked"][i]]
        best_a, best_gain = -1, 0
        for col in range(12):
            if area[col] == 0:
                continue
            pip, taken = col % 6 + 1, col >= 6
            for direction, delta in (("up", 1), ("down", -1)):
                new = (pip - 1 + delta) % 6 + 1
                trial = area.copy()
                trial[col] -= 1
                trial[(6 if taken else 0) + new - 1] += 1
                gain = self._best_amount(trial, amounts) - current_best
                if gain > best_gain:
                    a = self._table.index("rotate", chef=0, pip=pip, die="taken" if taken else "own", direction=direction)
                    if mask[a]:
                        best_a, best_gain = a, gain
        return best_a

    @staticmethod
    def _best_amount(have: np.ndarray, amounts: np.ndarray) -> int:
        ok = feasible(have)
        return int(amounts[ok].max()) if ok.any() else 0

    def _take_for(self, t, me: int, mask) -> int:
        """Take a die from the chef with the most unused dice (not the current dish's missing-ingredient holders)."""
        if t["cubes"][me] < 1 or not self.helps:
            return -1
        n = t["n"]
        best_a, best_key = -1, None
        busy = {t["ing_holder"][i] for i in self._missing(t)}
        for r in range(1, n):
            s = (me + r) % n
            own = t["area"][s][:6]
            if own.sum() == 0:
                continue
            for pip in range(6, 0, -1):
                if own[pip - 1] > 0:
                    a = self._table.index("take", chef=r, pip=pip)
                    key = (s not in busy, int(own.sum()), pip)
                    if mask[a] and (best_key is None or key > best_key):
                        best_a, best_key = a, key
                    break
        return best_a

    def _cubes_to_me(self, t, me: int, mask) -> int:
        """Spend a Hustle token to bring Fortune cubes from the richest chef(s)."""
        if t["hustle"] < 1 or not self.helps:
            return -1
        n = t["n"]
        rich = sorted(((t["cubes"][(me + r) % n], r) for r in range(1, n)), reverse=True)
        if rich[0][0] >= 2:
            label = f"{rich[0][1]}>0,{rich[0][1]}>0"
        elif rich[0][0] == 1:
            second = [r for c, r in rich[1:] if c >= 1]
            label = f"{rich[0][1]}>0" + (f",{second[0]}>0" if second else "")
            if second and second[0] < rich[0][1]:
                label = f"{second[0]}>0,{rich[0][1]}>0"
        else:
            return -1
        try:
            a = self._table.index("move_cubes", move=label)
        except KeyError:
            return -1
        return a if mask[a] else -1

    def _blocked(self, t) -> bool:
        """The current dish lacks an ingredient that its holder cannot prepare with the dice at
        hand, counting dice they could take from other chefs for their Fortune cubes."""
        missing = self._missing(t)
        if not missing:
            return False
        for i in missing:
            h = t["ing_holder"][i]
            dice = self._unused(t, h)
            takeable = sum(int(t["area"][s][:6].sum()) for s in range(t["n"]) if s != h)
            cubes = t["cubes"][h] + (2 * t["hustle"] if t["hustle"] else 0)
            if dice + min(takeable, cubes) >= 2:
                continue
            return True
        return False

    # ------------------------------------------------------------------ kitchen
    def _kitchen(self, t, me: int, mask) -> int:
        phase = t["phase"]
        power = self._power(t, me, mask)
        if power >= 0:
            return power
        if phase == "open":
            serve = self._idx("serve")
            if mask[serve]:
                return serve
        missing = self._missing(t) if phase == "open" else []
        mine_missing = [i for i in missing if t["ing_holder"][i] == me]
        for i in mine_missing:
            a, amount = self._best_prepare(t, me, mask, i)
            rot = self._rotate_for(t, me, mask, i, amount)
            if rot >= 0:
                return rot
            if a >= 0:
                return a
            if self._unused(t, me) <= 1:
                take = self._take_for(t, me, mask)
                if take >= 0:
                    return take
                if t["cubes"][me] == 0:
                    move = self._cubes_to_me(t, me, mask)
                    if move >= 0:
                        return move
        if phase == "open" and missing and self._blocked(t):
            holder = t["ing_holder"][missing[0]]
            if t["washes_left"] > 0 and sum(t["dirty"]) > 0:
                wash = self._idx("wash")
                if me == holder and mask[wash]:
                    return wash
                if me != holder:  # spend spare dice before the wash re-rolls the dishes
                    a = self._stock_up(t, me, mask, "open")
                    return a if a >= 0 else NOOP
            elif self._hopeless(t):
                return self._idx("close")
        a = self._stock_up(t, me, mask, phase)
        if a >= 0:
            return a
        a = self._borrow_for_stock(t, me, mask)
        if a >= 0:
            return a
        if phase in ("wash", "closed"):
            return self._hustle_any(mask)
        return NOOP

    def _hopeless(self, t) -> bool:
        """Blocked, no wash left, no power that could help: close for business."""
        if t["washes_left"] > 0 and sum(t["dirty"]) > 0:
            return False
        if t["powers_on"]:
            for s in range(t["n"]):
                c = t["character"][s]
                if c >= 0 and not t["power_used"][s] and self.data.characters[c].key in ("uncle", "grandpa", "auntie"):
                    return False
        return True

    def _stock_up(self, t, me: int, mask, phase: str) -> int:
        """Prepare the ingredient of mine most worth having (empty ones first); rotate first if a
        Hustle token turns the dice into a better method."""
        dem = self._demand(t)
        best_a, best_key, best_i, best_amount = -1, None, -1, 0
        for i, h in enumerate(t["ing_holder"]):
            if h != me or dem[i] <= 0:
                continue
            level = t["ing_level"][i]
            if level >= self.stock and phase == "open":
                continue
            if level >= t["track_top"]:
                continue
            a, amount = self._best_prepare(t, me, mask, i)
            if a < 0:
                continue
            key = (level == 0, dem[i] / (level + 1), amount)
            if best_key is None or key > best_key:
                best_a, best_key, best_i, best_amount = a, key, i, amount
        if best_a >= 0 and t["hustle"] > self.hustle_reserve:
            rot = self._rotate_for(t, me, mask, best_i, best_amount)
            if rot >= 0:
                return rot
        return best_a

    def _wants(self, t, s: int, dem) -> bool:
        """Does chef ``s`` hold a card in demand below the stock level?"""
        return any(h == s and dem[i] > 0 and t["ing_level"][i] < self.stock for i, h in enumerate(t["ing_holder"]))

    def _borrow_for_stock(self, t, me: int, mask) -> int:
        """Short of dice for a low card of mine: take a die from a chef who has nothing to prepare."""
        if t["cubes"][me] < 1 or self._unused(t, me) >= 2 or not self.helps:
            return -1
        dem = self._demand(t)
        if not any(h == me and dem[i] > 0 and t["ing_level"][i] <= 1 for i, h in enumerate(t["ing_holder"])):
            return -1
        n = t["n"]
        for r in range(1, n):
            s = (me + r) % n
            own = t["area"][s][:6]
            if own.sum() == 0 or self._wants(t, s, dem):
                continue
            for pip in range(6, 0, -1):
                if own[pip - 1] > 0:
                    a = self._table.index("take", chef=r, pip=pip)
                    if mask[a]:
                        return a
        return -1

    def _hustle_any(self, mask) -> int:
        g = self._g["hustle_gain"]
        legal = np.flatnonzero(mask[g.start: g.stop])
        return g.start + int(legal[0]) if legal.size else NOOP

    # ------------------------------------------------------------------ powers
    def _power(self, t, me: int, mask) -> int:
        if not t["powers_on"] or t["character"][me] < 0 or t["power_used"][me]:
            return -1
        key = self.data.characters[t["character"][me]].key
        missing = self._missing(t) if t["phase"] == "open" else []
        if key == "lily":
            a = self._idx("lily_restart")
            if mask[a] and t["first_served"] and max(t["timers"]) <= 1 and missing:
                return a
        elif key == "uncle" and missing:
            a = self._table.index("uncle_deliver", ingredient=self.data.ingredients[missing[0]].key)
            if mask[a] and self._blocked(t):
                return a
        elif key == "grandpa" and len(missing) == 1:
            needs = set(self.data.recipes[t["current"]["recipe"]].ingredients)
            spare = [j for j, h in enumerate(t["ing_holder"]) if h >= 0 and j not in needs and t["ing_level"][j] >= 2]
            if spare and self._blocked(t):
                j = max(spare, key=lambda j: t["ing_level"][j])
                a = self._table.index("grandpa_substitute",
                                      swap=f"{self.data.ingredients[j].key}>{self.data.ingredients[missing[0]].key}")
                if mask[a]:
                    return a
        elif key == "auntie":
            a = self._idx("auntie_reseat")
            if mask[a] and self._blocked(t) and (t["washes_left"] == 0 or sum(t["dirty"]) == 0):
                return a
        elif key == "mama":
            a = self._idx("mama_reroll")
            if mask[a] and t["phase"] == "open" and self._unused(t, me) >= 2:
                dem = self._demand(t)
                mine = [i for i, h in enumerate(t["ing_holder"]) if h == me and dem[i] > 0]
                if mine and all(self._best_prepare(t, me, mask, i)[1] <= 1 for i in mine) and self._blocked(t):
                    return a
        return -1

    # ------------------------------------------------------------------ decisions
    def _decide(self, t, me: int, mask) -> int:
        phase = t["phase"]
        if phase == "choose_character":
            for key in CHARACTER_PREFERENCE:
                a = self._table.index("choose_character", character=key)
                if mask[a]:
                    return a
            return NOOP
        if phase == "distribute":
            return self._give_card(t, me, mask)
        if phase in ("third_die", "goal_cubes"):
            return NOOP
        if phase == "prep":
            return self._prep(t, me, mask)
        return NOOP

    def _give_card(self, t, me: int, mask) -> int:
        """Give the pending card to a chef whose recipes do not use it (Pro Tip), with the
        fewest cards per die."""
        i, n = t["pending"][0], t["n"]
        g = self._g["give_ingredient"]

        def needs(s: int) -> bool:
            return any(h == s and i in self.data.recipes[r].ingredients for r, h in enumerate(t["recipe_holder"]))

        cards = [sum(1 for h in t["ing_holder"] if h == s) for s in range(n)]
        legal = [s for s in range(n) if mask[g.start + (s - me) % n]]
        to = min(legal, key=lambda s: (needs(s), (cards[s] + 1) / t["pool"][s], (s - me) % n))
        return g.start + (to - me) % n

    def _prep(self, t, me: int, mask) -> int:
        if t["pending"]:
            return self._give_card(t, me, mask)
        d = self.data
        money = t["money"]
        n = t["n"]
        holders = t["recipe_holder"]
        dem = self._demand(t)
        regulars = sum(3 for h in holders if h >= 0)
        short_of_customers = "served out" in t["close_reason"] or regulars < CUSTOMERS_PER_DIE * sum(t["pool"])
        if self.recipes != "when_short":
            short_of_customers = self.recipes == "always"
        # 1. a recipe when customers (not dice) may run short: most income per ingredient,
        #    ingredients already in play counting half
        best_a, best_key = -1, None
        for k, r in enumerate(t["offers"]):
            if r < 0 or d.recipes[r].price > money or not short_of_customers:
                continue
            rec = d.recipes[r]
            cost = sum(0.5 if t["ing_holder"][i] >= 0 else 1.0 for i in rec.ingredients)
            key = (sum(rec.regular_incomes) / cost, -rec.price)
            if best_key is None or key > best_key:
                # concentrate serves (dice pools grow with on-time serves per chef): the chef
                # with the largest pool still below 5 and at most 2 recipes
                counts = [sum(1 for h in holders if h == s) for s in range(n)]
                cands = [s for s in range(n) if t["pool"][s] < 5 and counts[s] < 2] or list(range(n))
                to = min(cands, key=lambda s: (-t["pool"][s], counts[s], (s - me) % n))
                best_a, best_key = self._table.index("buy_recipe", offer=k, chef=(to - me) % n), key
        if best_a >= 0 and mask[best_a]:
            return best_a
        # 2. upgrades, most demanded card first
        ups = [i for i in range(len(d.ingredients)) if mask[self._table.index("upgrade", ingredient=d.ingredients[i].key)]]
        if ups:
            i = max(ups, key=lambda i: (dem[i], -t["ing_unlocked"][i], -i))
            return self._table.index("upgrade", ingredient=d.ingredients[i].key)
        # 3. hustle
        a = self._idx("buy_hustle")
        if mask[a]:
            return a
        # 4. advertise only when the Regular deck ran out yesterday (more customers can then be served)
        a = self._idx("advertise")
        if mask[a] and self.advertises and "served out" in t["close_reason"] and t["coupons_in_deck"] < self.advertise_up_to:
            return a
        return NOOP
