"""Wok Star in plain words: one chef's view of the table, and the rules in short.

Built only from :meth:`WokStarEngine.public_view` (the source of the
observation): at this table everything is public except the order of the
face-down piles and which Coupon or Event cards lie face down in the Regular
deck, and the view holds none of these. Every chef sees the same table; the
view adds which seat is "you" and names the other chefs relative to you, as
the actions do (``chef=0`` is yourself, ``chef=1`` the next chef clockwise).
"""

from __future__ import annotations

from envs.wok_star.cards import load_data
from envs.wok_star.render import render_table

RULES_SUMMARY = """\
Wok Star is cooperative and real time: 2-4 chefs (you are one) run one restaurant and win or lose together.
Each day customers come to the counter one at a time. The chef holding the customer's recipe serves it once
every ingredient of the recipe is on row 1 or higher; serving earns the customer's income and lowers the
ingredient tokens. Chefs raise ingredients by preparing them with two unused dice from their area (the dice go
to the Dirty Dishes); a chef may take another chef's die for a Fortune cube, and turn a die into a Hustle token
to spend on rotating a die or moving Fortune cubes. Two sand timers run while customers are served: when both
are empty the customer waits and then leaves late. Washing the dishes stops the timers and gives the dice
back. Between days chefs buy recipes, upgrade ingredient methods or buy Hustle with the day's money.
Reach the day's Income Goal on each of the 4 days to win. One step is one tick of the clock; chefs are named
relative to you in the actions (chef=0 is you, chef=1 the next chef clockwise)."""


def view(engine, agent: str) -> str:
    """The table as ``agent`` sees it (everything public; nothing face down)."""
    v = engine.public_view(agent)
    t = v.table
    data = load_data()
    n = t["n"]
    me = v.seat
    others = ", ".join(f"chef={r} is chef_{v.rel(r)}" for r in range(1, n))
    recipes = ", ".join(data.recipes[r].name for r, h in enumerate(t["recipe_holder"]) if h == me) or "none"
    cards = ", ".join(data.ingredients[i].name for i, h in enumerate(t["ing_holder"]) if h == me) or "none"
    row = t["area"][me]
    own = " ".join(f"{p + 1}" for p in range(6) for _ in range(int(row[p])))
    taken = " ".join(f"{p + 1}*" for p in range(6) for _ in range(int(row[6 + p])))
    lines = [f"You are {agent} (seat {me} of {n}; {others or 'no other chef'}).",
             f"Your unused dice: {(own + ' ' + taken).strip() or 'none'} (* = a die you took from another chef); "
             f"dirty dice {t['dirty'][me]}; Fortune cubes {t['cubes'][me]}; dice in your pool {t['pool'][me]}.",
             f"Your recipes: {recipes}. Your ingredient cards: {cards}.",
             f"Decision: {'yours' if t['turn'] == me else ('chef_' + str(t['turn'])) if t['turn'] >= 0 else 'none (everyone acts at once)'}.",
             render_table(engine)]
    return "\n".join(lines)
