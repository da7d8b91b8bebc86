"""Observation and global-state vectors of Wok Star.

The observation holds only what the chefs see at the table (the facts of
:meth:`WokStarEngine.public_view`), built fast by :mod:`envs.wok_star.observation`. Chefs
appear *relative to the observer*: row 0 of every per-chef field is the
observer, row 1 the next chef clockwise, and so on (as in the action table).
Counts are scaled to roughly [0, 1] by the divisor given in each field's doc.

``global_state`` (PettingZoo ``state()``, for centralised critics) is the
observation of ``chef_0`` (so chefs in absolute order) followed by what no
chef sees: the composition of the Regular deck and its next three cards.
"""

from __future__ import annotations

import functools
from typing import Any, Mapping

import numpy as np

from envs.core.encoding import Encoder
from envs.core.tables import Field, ObservationLayout
from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card, load_data
from envs.wok_star.engine import PHASES
from envs.wok_star.observation import BatchObserver, FramePlan

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
        F("late", (), 0, 2, "ticks the current customer has waited with both timers empty / patience (the tick both ran out counts; it "
          "walks out past 1, and the closed phase still shows it at the counter)"),
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
        F("regular_left", (R,), 0, 1, "Regular customers of each recipe not revealed yet today / 3 (after closing: those the day did not reach)"),
        F("coupon_unseen", (R,), 0, 1, "Coupon customers of each recipe not yet seen today (in either deck) / 2"),
        F("recipe_in_play", (R,), 0, 1, "recipe held by a chef"),
        F("recipe_holder", (R, n), 0, 1, "relative one-hot holder of each recipe"),
        F("recipe_offer", (R,), 0, 1, "recipe offered for purchase now (Next Day Prep), as a set: which offer slot holds which recipe is not "
          "shown (buy_recipe names a slot; a known gap, docs/wok_star.md)"),
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
        F("passes", (), 0, 1, "passes in a row in Next Day Prep / players (kept from the last Next Day Prep until the next one)"),
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
              "HIDDEN: next cards of the Regular deck, each one-hot recipe + coupon flag + event (between Daily "
              "Accounting and the next opening the deck is not shuffled yet: not the next day's order)"),
    ]


@functools.lru_cache(maxsize=None)
def frame_plan(n: int) -> FramePlan:
    """The (shared, read-only) frame plan of an ``n``-chef game."""
    return FramePlan(ObservationLayout(observation_fields(n)), n, load_data())


class WokStarEncoder(Encoder):
    """Observations from one public frame per state (see :mod:`envs.wok_star.observation`)."""

    def __init__(self, config: Mapping[str, Any]):
        super().__init__(config)
        self.n = int(config["players"])
        self.data = load_data()
        self.layout = ObservationLayout(observation_fields(self.n))
        self.state_layout = ObservationLayout(observation_fields(self.n) + hidden_fields())
        self.plan = frame_plan(self.n)
        d = self.data
        self._state_width = len(d.recipes) + 1 + len(d.events)
        hidden = self.state_layout.slices
        self._o_deck_regular = hidden["deck_regular"].start
        self._o_deck_coupons = hidden["deck_coupons"].start
        self._o_deck_events = hidden["deck_events"].start
        self._o_deck_top = hidden["deck_top"].start

    def observe(self, engine, agent: str) -> np.ndarray:
        """``agent``'s observation (a fresh array; the shared frame is computed once per state)."""
        return self.plan.observe(engine, engine.seat[agent])

    def observe_seats(self, engine, out: np.ndarray) -> None:
        """Every chef's observation into ``out`` ``(n, size)``: one gather of the shared frame."""
        self.plan.frame(engine).take(self.plan.all_gathers, out=out, mode="clip")  # (the method: numpy.take adds a Python call)

    def batch_observer(self, num_games: int) -> BatchObserver:
        """Every chef's observation and mask of many games at once
        (:class:`~envs.wok_star.observation.BatchObserver`)."""
        return BatchObserver(self, num_games)

    def global_state(self, engine) -> np.ndarray:
        """``chef_0``'s observation followed by the hidden composition and top of the Regular deck."""
        v = self.state_layout.zeros()
        v[: self.layout.size] = self.plan.frame(engine)
        d = self.data
        R = len(d.recipes)
        for c in engine.deck:
            if is_event_card(c):
                v[self._o_deck_events + c - EVENT_CARD_BASE] = 1
            else:
                cu = d.customers[c]
                base = self._o_deck_coupons if cu.coupon else self._o_deck_regular
                v[base + cu.recipe] += 1 / (2 if cu.coupon else 3)
        for k, c in enumerate(reversed(engine.deck[-TOP_CARDS:])):
            row = self._o_deck_top + k * self._state_width
            if is_event_card(c):
                v[row + R + 1 + c - EVENT_CARD_BASE] = 1
            else:
                cu = d.customers[c]
                v[row + cu.recipe] = 1
                v[row + R] = float(cu.coupon)
        return v
