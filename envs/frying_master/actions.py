"""Frying Master's action table and a fast decoding of it.

One action per player per tick. Plate actions use the hand holding the
Order Plate; spatula actions name the spatula (0, or 0/1 in a two-spatula
round) and keep it busy for the action's tick cost (``action_ticks`` in
``data/components.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from envs.core.tables import ActionTable
from envs.frying_master.cards import catalog

PILES: tuple[str, ...] = ("A", "B")


def table_spatulas(config: Mapping[str, Any]) -> int:
    """Spatulas per player in the action table: 2 if any round can be a
    two-spatula round (Teppanyaki preset, fixed Teppanyaki Fry, or a drawn mode)."""
    if config.get("teppanyaki") or config.get("mode") in ("drawn", "teppanyaki"):
        return 2
    return 1


@lru_cache(maxsize=4)
def build_action_table(spatulas: int) -> ActionTable:
    cat = catalog()
    t = cat.action_ticks
    table = ActionTable("do nothing this tick (always accepted; a chooser's noop at setup takes the default pile, see docs)")
    table.add("draw", f"take the top Order Plate of pile A or B as your order ({t['draw']} tick; only without a current order)",
              pile=PILES)
    table.add("serve", f"\"Order's up!\": move your plate and its food to your completed orders ({t['serve']} tick; "
                       "the plate must hold the order's number of food cards; serve_rule='any_food': any food)")
    table.add("give_up", f"return your plate's food to the table (random sides) and discard the plate ({t['give_up']} tick)")
    sp = tuple(range(spatulas))
    table.add("flip", f"turn one face-down card of a category image-up; which one is hidden ({t['flip']} tick)",
              spatula=sp, category=cat.category_ids)
    table.add("stir", f"stir {cat.stir_cards} random table cards: each lands on a random side ({t['stir']} tick)", spatula=sp)
    table.add("lift", f"lift one image-up table card of a food onto the spatula (capacity {cat.spatula_capacity}; "
                      f"{t['lift']} ticks: the spatula is busy the next tick)", spatula=sp, food=cat.food_ids)
    table.add("unload", f"set the spatula's whole load on your own plate ({t['unload']} tick; needs a current order)", spatula=sp)
    table.add("tip", f"tip the spatula's load back onto the table, each card on a random side ({t['tip']} tick)", spatula=sp)
    return table


@dataclass(frozen=True)
class ActionIndex:
    """Index arrays of one table, so masks are filled without name lookups."""

    draw: tuple[int, ...]
    serve: int
    give_up: int
    flip: tuple[tuple[int, ...], ...]  # [spatula][category]
    stir: tuple[int, ...]
    lift: tuple[tuple[int, ...], ...]  # [spatula][food]
    unload: tuple[int, ...]
    tip: tuple[int, ...]
    decoded: tuple[tuple[str, int, int], ...]  # index -> (kind, spatula or -1, parameter index or -1)


@lru_cache(maxsize=4)
def action_index(spatulas: int) -> ActionIndex:
    table = build_action_table(spatulas)
    cat = catalog()
    sp = range(spatulas)
    decoded: list[tuple[str, int, int]] = []
    for i in range(table.n):
        name, params = table.decode(i)
        s = params.get("spatula", -1)
        if "pile" in params:
            p = PILES.index(params["pile"])
        elif "category" in params:
            p = cat.category_ids.index(params["category"])
        elif "food" in params:
            p = cat.food_ids.index(params["food"])
        else:
            p = -1
        decoded.append((name, s, p))
    return ActionIndex(
        draw=tuple(table.index("draw", pile=p) for p in PILES),
        serve=table.index("serve"),
        give_up=table.index("give_up"),
        flip=tuple(tuple(table.index("flip", spatula=s, category=c) for c in cat.category_ids) for s in sp),
        stir=tuple(table.index("stir", spatula=s) for s in sp),
        lift=tuple(tuple(table.index("lift", spatula=s, food=f) for f in cat.food_ids) for s in sp),
        unload=tuple(table.index("unload", spatula=s) for s in sp),
        tip=tuple(table.index("tip", spatula=s) for s in sp),
        decoded=tuple(decoded),
    )
