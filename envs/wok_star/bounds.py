"""The documented bound on the length of any Wok Star game played with legal actions.

Every phase ends by rule (see docs/wok_star.md, "Why every game ends"):

* **Open for Business**: split the open ticks of a day into *segments* that
  start when a card is revealed or a timer is refilled (serve, Event expiry,
  restart after a wash, Lily). Within a segment both timers hold at most
  ``T`` ticks of sand, so after ``T`` ticks both are empty; a customer then
  waits at most ``P + 1`` more ticks before walking out and the day closes
  (an Event card leaves as soon as a timer is empty). A day reveals at most
  every card of the Regular deck (Regular and Coupon customers of every
  recipe, Event cards) plus one card Auntie sends back, and refills at most
  3 more times (2 washes, Lily): at most ``cards + 4`` segments.
* **Wash and after closing**: each tick but the first and the last has a
  productive action applied, and each such action uses up something that
  does not come back during that step: an unused die (prepare, Hustle),
  a die taken from its owner's area, a Hustle token (rotate, move cubes:
  at most the pool plus one per die turned into Hustle) or a once-a-day
  power: at most ``15 n + 28`` actions.
* **Turn-based decisions**: one tick each at setup (characters, at most 10
  Ingredient cards, the 2-player third die) and for the goal cubes; in Next
  Day Prep at most 72 purchases (3 recipes, 20 upgrades, 25 Hustle, 24
  Coupons), each after at most ``n - 1`` passes, plus 10 card hand-outs and
  the final ``n`` passes.
"""

from __future__ import annotations

from envs.wok_star.timers import ticks_for


def max_episode_steps(players: int = 3, timer_seconds: float = 30.0, patience_seconds: float = 30.0,
                      seconds_per_tick: float = 1.0, events: bool = False, **_: object) -> int:
    n = int(players)
    T = ticks_for(float(timer_seconds), float(seconds_per_tick))
    P = ticks_for(float(patience_seconds), float(seconds_per_tick))
    recipes = 8 if n == 2 else 12
    cards = 3 * recipes + 2 * recipes + (15 if events else 0)
    open_ticks = (cards + 1 + 3 + 1) * (T + P + 1)
    kitchen_step = (15 * n + 28) + 2
    day = open_ticks + 3 * kitchen_step
    setup = n + 10 + 1
    prep = 73 * n + 10
    return setup + 4 * day + 3 * (1 + prep)
