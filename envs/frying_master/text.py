"""Frying Master in plain words: one chef's view of the table, and the rules in short.

Built only from :meth:`FryingMasterEngine.public_view` (the observation's
source): image-up cards, face-down counts per category, the piles' sizes and
the backs of their top plates (the order side only in Pre-order Fry), every
chef's plate, spatulas, completed orders and Gold Spatulas. Never which food
a face-down card is, nor the order of the piles.
"""

from __future__ import annotations

from envs.frying_master.cards import catalog
from envs.frying_master.render import render_view
from envs.frying_master.rules.scoring import evaluate

RULES_SUMMARY = """\
Frying Master is competitive and real time: 2-4 chefs (you are one) grab food cards from one shared heap at the
same time. Each chef draws an Order Plate (pile A or B), lifts image-up food cards from the table with a spatula
(up to 3 at a time; a lift keeps the spatula busy for the next tick), unloads them onto the plate and calls
"Order's up!" (serve) when the plate holds the order's number of cards. Face-down cards are turned image-up by
flipping (which card of the category comes up is hidden) or stirring. Correct orders score their flavour value,
minus disliked foods; the round's Stir-Fry Mode adds a bonus. A round ends shortly after a set number of orders
is completed; the round's top scorer takes a Gold Spatula and the first chef with two wins. Every move takes one
tick; when two chefs reach for the same last card in one tick, one of them is blocked."""


def view(engine, agent: str) -> str:
    """The table as ``agent`` sees it."""
    v = engine.public_view(agent)
    cat = catalog()
    seat = v.my_seat
    casual = cat.modes[v.mode].kind == "casual"
    if seat.plate is None:
        plate = "no order: draw one from pile A or B"
    else:
        worth = evaluate(cat.plates[seat.plate], seat.plate_cards, [f.category for f in cat.foods], casual)
        on = ", ".join(f"{cat.foods[f].id}x{k}" for f, k in enumerate(seat.plate_cards) if k) or "nothing yet"
        plate = f"{cat.plates[seat.plate].name} (on it: {on}; worth {worth.score} now)"
    spatulas = "; ".join(f"spatula {s}: [{', '.join(cat.foods[f].id for f in load)}]"
                         + (f" busy {seat.busy[s]} tick(s)" if seat.busy[s] else "")
                         for s, load in enumerate(seat.loads[:seat.spatulas]))
    phase = {"choose": f"setup: {v.chooser} chooses", "play": "play", "countdown": "countdown (the round is ending)",
             "over": "the match is over"}.get(v.phase, v.phase)
    lines = [f"You are {agent} (marked * below). Phase: {phase}.",
             f"Your order: {plate}. Your {spatulas}. Completed orders this round: {len(seat.completed)}; "
             f"Gold Spatulas: {seat.gold}.",
             render_view(v)]
    return "\n".join(lines)
