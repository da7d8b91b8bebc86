"""Observation and global-state vectors of Wok Star.

The observation is built from :meth:`WokStarEngine.public_view` only. Chefs
appear *relative to the observer*: row 0 of every per-chef field is the
observer, row 1 the next chef clockwise, and so on (as in the action table).
Counts are scaled to roughly [0, 1] by the divisor given in each field's doc.

``global_state`` (PettingZoo ``state()``, for centralised critics) is the
observation of ``chef_0`` (so chefs in absolute order) followed by what no
chef sees: the composition of the Regular deck and its next three cards.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from envs.core.encoding import Encoder
from envs.core.tables import Field, ObservationLayout
from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card, load_data
from envs.wok_star.engine import PHASES

DIFFICULTY_ORDER = ("mild", "medium", "extra_spicy")
TOP_CARDS = 3


def observation_fields(n: int) -> list[Field]:
    d = load_data()
    R, I, E, C = len(d.recipes), len(d.ingredients), len(d.events), len(d.characters)
    F = Field
    return [
        F("phase", (len(PHASES),), 0, 1, "one-hot phase: " + ", ".join(PHASES)),
        F("day", (4,), 0, 1, "one-hot day 1-4 (all zero during setup)"),
        F("seat", (n,), 0, 1, "one-hot absolute seat of the observer (chef_i)"),
        F("my_decision", (), 0, 1, "1 if a turn-based decision (setup, goal cubes, purchase turn) is the observer's"),
        F("decider", (n,), 0, 1, "relative one-hot of the chef whose turn-based decision it is"),
        F("difficulty", (3,), 0, 1, "one-hot mild, medium, extra_spicy"),
        F("options", (2,), 0, 1, "Events rule on, Player Powers rule on"),
        F("goals", (4,), 0, 1, "income goal of days 1-4 / 100"),
        F("goal_cubes", (4,), 0, 1, "goal Fortune cube of day k still on the Income Tracker"),
        F("cubes_passed", (), 0, 1, "goal cubes waiting for a recipient / 4"),
        F("income", (), 0, 5, "income earned today / 100"),
        F("money", (), 0, 5, "money left to spend in Next Day Prep / 100"),
        F("timers", (2,), 0, 1, "sand on top of the low and the high timer / timer length"),
        F("late", (), 0, 2, "ticks the current customer has waited with both timers empty / patience"),
        F("washes_left", (), 0, 1, "washes left on the Dishwasher today / 2"),
        F("first_served", (), 0, 1, "1 once the day's first customer is served (both timers started)"),
        F("current_kind", (3,), 0, 1, "card at the counter: none, customer, event"),
        F("current_recipe", (R,), 0, 1, "one-hot recipe the current customer orders"),
        F("current_coupon", (), 0, 1, "the current customer is a Coupon customer"),
        F("current_income", (), 0, 1, "income printed on the current customer / 10"),
        F("current_holder", (n,), 0, 1, "relative one-hot of the chef who can serve the current customer"),
        F("current_event", (E,), 0, 1, "one-hot Event card at the counter"),
        F("current_needs", (I,), 0, 1, "ingredients the current customer's dish needs"),
        F("current_ready", (), 0, 1, "every ingredient the current dish needs is on row 1 or higher"),
        F("deck", (5,), 0, 1, "Regular deck size / 80, Coupons in it / 24, Coupon deck size / 24, Events in it / 15, Event pile / 15"),
        F("regular_left", (R,), 0, 1, "Regular customers of each recipe still to come today / 3"),
        F("coupon_unseen", (R,), 0, 1, "Coupon customers of each recipe not yet seen today (in either deck) / 2"),
        F("recipe_in_play", (R,), 0, 1, "recipe held by a chef"),
        F("recipe_holder", (R, n), 0, 1, "relative one-hot holder of each recipe"),
        F("recipe_offer", (R,), 0, 1, "recipe offered for purchase now (Next Day Prep)"),
        F("recipe_price", (R,), 0, 1, "price of each recipe / 31 (constant)"),
        F("ing_in_play", (I,), 0, 1, "Ingredient card in play"),
        F("ing_level", (I,), 0, 1, "ingredient token row / top row"),
        F("ing_holder", (I, n), 0, 1, "relative one-hot holder of each Ingredient card"),
        F("ing_unlocked", (I,), 0, 1, "uncovered methods / 4"),
        F("ing_demand", (I,), 0, 1, "recipes in play that use the ingredient / 12"),
        F("pending_card", (I,), 0, 1, "one-hot Ingredient card waiting for a holder"),
        F("dice_own", (n, 6), 0, 1, "per chef (relative): unused dice of their colour in their area per pip / 5"),
        F("dice_taken", (n, 6), 0, 4, "per chef: unused dice of other colours they took, per pip / 5"),
        F("dirty", (n,), 0, 1, "per chef: dice of their colour in the Dirty Dishes / 5"),
        F("pool", (n,), 0, 1, "per chef: dice pool size / 5"),
        F("cubes", (n,), 0, 1, "per chef: Fortune cubes / 15"),
        F("on_time", (n,), 0, 4, "per chef: customers served on time today / 20"),
        F("late_served", (n,), 0, 4, "per chef: customers served late today / 20"),
        F("ingredient_cards", (n,), 0, 1, "per chef: Ingredient cards held / 10"),
        F("recipes_held", (n,), 0, 1, "per chef: Recipe cards held / 12"),
        F("character", (n, C), 0, 1, "per chef: one-hot Wang Family character (Player Powers)"),
        F("power_used", (n,), 0, 1, "per chef: power already used today"),
        F("hustle", (), 0, 1, "Hustle tokens in the pool / 25"),
        F("hustle_supply", (), 0, 1, "Hustle tokens in the supply / 25"),
        F("events_today", (E,), 0, 1, "Event cards revealed today"),
        F("events_gone", (E,), 0, 1, "Event cards discarded on earlier days"),
        F("passes", (), 0, 1, "passes in a row in Next Day Prep / players"),
    ]


def hidden_fields() -> list[Field]:
    d = load_data()
    R, E = len(d.recipes), len(d.events)
    width = R + 1 + E
    return [
        Field("deck_regular", (R,), 0, 1, "HIDDEN: Regular customers of each recipe in the Regular deck / 3"),
        Field("deck_coupons", (R,), 0, 1, "HIDDEN: Coupon customers of each recipe in the Regular deck / 2"),
        Field("deck_events", (E,), 0, 1, "HIDDEN: Event cards in the Regular deck"),
        Field("deck_top", (TOP_CARDS, width), 0, 1,
              "HIDDEN: next cards of the Regular deck, each one-hot recipe + coupon flag + event"),
    ]


class WokStarEncoder(Encoder):
    def __init__(self, config: Mapping[str, Any]):
        super().__init__(config)
        self.n = int(config["players"])
        self.data = load_data()
        self.layout = ObservationLayout(observation_fields(self.n))
        self.state_layout = ObservationLayout(observation_fields(self.n) + hidden_fields())
        self._sl = self.layout.slices
        d = self.data
        self._demand_src = np.array([[i in r.ingredients for i in range(len(d.ingredients))] for r in d.recipes], dtype=np.float32)
        self._prices = np.array([r.price / 31 for r in d.recipes], dtype=np.float32)

    def observe(self, engine, agent: str) -> np.ndarray:
        view = engine.public_view(agent)
        v = self.layout.zeros()
        self._fill(v, view.table, view.seat)
        return v

    def _fill(self, v: np.ndarray, t: Mapping[str, Any], seat: int) -> None:
        sl, n = self._sl, self.n
        order = [(seat + r) % n for r in range(n)]
        relof = {s: (s - seat) % n for s in range(n)}

        def put(name: str, idx: int, value: float = 1.0) -> None:
            v[sl[name].start + idx] = value

        put("phase", PHASES.index(t["phase"]))
        if t["day"] >= 1:
            put("day", t["day"] - 1)
        put("seat", seat)
        if t["turn"] >= 0:
            put("decider", relof[t["turn"]])
            if t["turn"] == seat:
                put("my_decision", 0)
        put("difficulty", DIFFICULTY_ORDER.index(t["difficulty"]))
        v[sl["options"]] = (t["events_on"], t["powers_on"])
        v[sl["goals"]] = np.asarray(t["goals"], dtype=np.float32) / 100
        v[sl["goal_cubes"]] = t["goal_cubes"]
        put("cubes_passed", 0, t["cubes_passed"] / 4)
        put("income", 0, max(0, t["income"]) / 100)
        put("money", 0, t["money"] / 100)
        lo, hi = sorted(t["timers"])
        v[sl["timers"]] = (lo / t["timer_full"], hi / t["timer_full"])
        put("late", 0, t["late_ticks"] / t["patience"])
        put("washes_left", 0, t["washes_left"] / 2)
        put("first_served", 0, float(t["first_served"]))
        cur = t["current"]
        put("current_kind", ("none", "customer", "event").index(cur["kind"]))
        if cur["kind"] == "customer":
            r = cur["recipe"]
            put("current_recipe", r)
            put("current_coupon", 0, float(cur["coupon"]))
            put("current_income", 0, cur["income"] / 10)
            put("current_holder", relof[cur["holder"]])
            needs = self.data.recipes[r].ingredients
            ready = True
            for i in needs:
                put("current_needs", i)
                ready = ready and t["ing_level"][i] >= 1
            put("current_ready", 0, float(ready))
        elif cur["kind"] == "event":
            put("current_event", cur["event"])
        v[sl["deck"]] = (t["deck_size"] / 80, t["coupons_in_deck"] / 24, t["coupon_pile"] / 24,
                         t["events_in_deck"] / 15, t["event_pile"] / 15)
        v[sl["regular_left"]] = np.asarray(t["regular_left"], dtype=np.float32) / 3
        v[sl["coupon_unseen"]] = np.asarray(t["coupon_unseen"], dtype=np.float32) / 2
        holders = np.asarray(t["recipe_holder"])
        in_play = holders >= 0
        v[sl["recipe_in_play"]] = in_play
        base = sl["recipe_holder"].start
        for r in np.flatnonzero(in_play):
            v[base + r * n + relof[int(holders[r])]] = 1
        for r in t["offers"]:
            if r >= 0:
                put("recipe_offer", r)
        v[sl["recipe_price"]] = self._prices
        ih = np.asarray(t["ing_holder"])
        ing_live = ih >= 0
        v[sl["ing_in_play"]] = ing_live
        v[sl["ing_level"]] = np.asarray(t["ing_level"], dtype=np.float32) / t["track_top"]
        base = sl["ing_holder"].start
        for i in np.flatnonzero(ing_live):
            v[base + i * n + relof[int(ih[i])]] = 1
        v[sl["ing_unlocked"]] = np.asarray(t["ing_unlocked"], dtype=np.float32) / 4
        v[sl["ing_demand"]] = self._demand_src[in_play].sum(axis=0) / 12
        if t["pending"]:
            put("pending_card", t["pending"][0])
        area = t["area"][order]
        v[sl["dice_own"]] = (area[:, :6] / 5).reshape(-1)
        v[sl["dice_taken"]] = (area[:, 6:] / 5).reshape(-1)
        v[sl["dirty"]] = [t["dirty"][s] / 5 for s in order]
        v[sl["pool"]] = [t["pool"][s] / 5 for s in order]
        v[sl["cubes"]] = [t["cubes"][s] / 15 for s in order]
        v[sl["on_time"]] = [t["on_time"][s] / 20 for s in order]
        v[sl["late_served"]] = [t["late"][s] / 20 for s in order]
        v[sl["ingredient_cards"]] = [float(np.sum(ih == s)) / 10 for s in order]
        v[sl["recipes_held"]] = [float(np.sum(holders == s)) / 12 for s in order]
        base, width = sl["character"].start, len(self.data.characters)
        for r, s in enumerate(order):
            if t["character"][s] >= 0:
                v[base + r * width + t["character"][s]] = 1
        v[sl["power_used"]] = [float(t["power_used"][s]) for s in order]
        put("hustle", 0, t["hustle"] / 25)
        put("hustle_supply", 0, t["hustle_supply"] / 25)
        for e in t["events_today"]:
            put("events_today", e)
        for e in t["events_gone"]:
            put("events_gone", e)
        put("passes", 0, t["passes"] / n)

    def global_state(self, engine) -> np.ndarray:
        v = self.state_layout.zeros()
        view = engine.public_view(engine.agents[0])
        self._fill(v, view.table, 0)
        sl = self.state_layout.slices
        d = self.data
        R = len(d.recipes)
        width = R + 1 + len(d.events)
        for c in engine.deck:
            if is_event_card(c):
                v[sl["deck_events"].start + c - EVENT_CARD_BASE] = 1
            else:
                cu = d.customers[c]
                name = "deck_coupons" if cu.coupon else "deck_regular"
                v[sl[name].start + cu.recipe] += 1 / (2 if cu.coupon else 3)
        base = sl["deck_top"].start
        for k, c in enumerate(reversed(engine.deck[-TOP_CARDS:])):
            row = base + k * width
            if is_event_card(c):
                v[row + R + 1 + c - EVENT_CARD_BASE] = 1
            else:
                cu = d.customers[c]
                v[row + cu.recipe] = 1
                v[row + R] = float(cu.coupon)
        return v
