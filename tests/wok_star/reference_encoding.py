"""The encoding as first written (one ``public_view`` table, filled field by field), kept as the
reference that the fast frame encoder (:mod:`envs.wok_star.observation`) must match bit for bit."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card, load_data
from envs.wok_star.encoding import TOP_CARDS
from envs.wok_star.engine import PHASES
from envs.wok_star.observation import DIFFICULTY_ORDER


class ReferenceEncoder:
    """Slow, obviously-correct encoder over ``engine.public_view``, sharing the fast encoder's layouts."""

    def __init__(self, fast):
        self.n = fast.n
        self.data = load_data()
        self.layout = fast.layout
        self.state_layout = fast.state_layout
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
