"""The Stir-Fry Mode.

Rulebook, "The Stir-Fry Mode": the back of the Order Plate shows the
Stir-Fry Mode for the round, and hints about the type and number of
ingredients needed for the order. The printed table: Casual Fry (ignore
specific required and disliked ingredients), Meat / Veggie / Rice & Noodles
/ Spicy Fry (most cards of the category this round: +3, ties all get it),
Mixed Fry (one of each plate type: +3), Pre-order Fry (cut off in the text;
reconstructed), and the Beginner's Mode's Teppanyaki Fry (two spatulas per
player).

Modelled: the mode's data (``data/modes.json``) gives its ``kind``;
Casual Fry's rule lives in the order check (:mod:`.scoring`), the bonuses in
:func:`mode_bonuses`, Teppanyaki's spatulas in :func:`round_spatulas`, Pre-order
Fry's open top plates in :func:`shows_order_side`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from envs.frying_master.cards import Catalog, Mode, Plate


def round_spatulas(config: Mapping[str, Any], cat: Catalog, mode: int) -> int:
    """Spatulas per chef in a round of ``mode``: two in Teppanyaki Fry or with the ``teppanyaki`` preset."""
    return 2 if config.get("teppanyaki") or cat.modes[mode].kind == "teppanyaki" else 1


def shows_order_side(cat: Catalog, mode: int) -> bool:
    """Pre-order Fry (reconstructed): the top plate of each pile lies order side up."""
    return cat.modes[mode].kind == "preorder"


def mode_bonuses(cat: Catalog, mode: Mode, valid_orders: dict[str, list[tuple[Plate, Sequence[int]]]]) -> dict[str, int]:
    """The Stir-Fry Mode's extra points, per agent, from its correct completed orders."""
    bonus = {a: 0 for a in valid_orders}
    if mode.kind == "most_category":
        in_cat = [f.idx for f in cat.foods if f.category == mode.category]
        amount = {a: sum(c[f] for _, c in orders for f in in_cat) for a, orders in valid_orders.items()}
        best = max(amount.values(), default=0)
        if best > 0:  # nobody "has the most" of nothing
            for a, v in amount.items():
                if v == best:
                    bonus[a] = cat.mode_bonus
    elif mode.kind == "one_of_each_type":
        for a, orders in valid_orders.items():
            if {p.type for p, _ in orders} >= set(range(3)):
                bonus[a] = cat.mode_bonus
    return bonus
