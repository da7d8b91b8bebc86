"""Scoring.

Rulebook, "Scoring": before scoring, check if the Food Cards on the completed
orders match the requirements. Fully correct orders earn full points; a
disliked ingredient subtracts 1 point each; wrong ingredients or wrong
amounts get no points. The player with the highest score receives a Gold
Spatula Token; a tie goes to more completed orders; still tied, both get one.
The first player to earn two Gold Spatulas wins; simultaneous winners share.

Pure functions: the order check of a plate (the "Order Plates" section's
specific and "any" icons, disliked ingredients and flavour value), a round's
scores with the mode bonus (:func:`~.stir_fry_mode.mode_bonuses`) and the
Gold Spatula award, and the match's winners.

A plate's food is a count per food (``counts[f]``); every card on a plate is
image-up (only image-up cards can be lifted, see the engine).

* A correct order holds exactly the required ingredients: every "specific"
  icon is matched by that food and every "any" icon by one food of its
  category, with nothing left over. It earns the flavour value, minus 1 per
  disliked ingredient on it.
* Anything else (a wrong ingredient, a missing one, one too many) scores 0.
* Casual Fry ignores the specific icons (each becomes "any food of its
  category") and the disliked ingredients.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from envs.frying_master.cards import Catalog, Mode, Plate
from envs.frying_master.rules.stir_fry_mode import mode_bonuses


@dataclass(frozen=True)
class OrderScore:
    valid: bool
    score: int
    disliked: int


def category_counts(counts: Sequence[int], cat_of: Sequence[int], n_cats: int) -> list[int]:
    out = [0] * n_cats
    for f, k in enumerate(counts):
        if k:
            out[cat_of[f]] += k
    return out


def evaluate(plate: Plate, counts: Sequence[int], cat_of: Sequence[int], casual: bool) -> OrderScore:
    """How the order would score with ``counts`` on it."""
    n_cats = len(plate.any)
    if casual:
        valid = category_counts(counts, cat_of, n_cats) == list(plate.hint)
        return OrderScore(valid, plate.flavour if valid else 0, 0)
    extra = [0] * n_cats
    for f, k in enumerate(counts):
        need = plate.specific[f]
        if k < need:
            return OrderScore(False, 0, 0)
        if k > need:
            extra[cat_of[f]] += k - need
    if extra != list(plate.any):
        return OrderScore(False, 0, 0)
    disliked = sum(counts[f] for f in plate.disliked)
    return OrderScore(True, plate.flavour - disliked, disliked)


def missing(plate: Plate, counts: Sequence[int], cat_of: Sequence[int], casual: bool) -> tuple[list[int], list[int]] | None:
    """What the order still needs: ``(specific_missing[f], any_missing[c])``,
    or ``None`` if the food already on it can never become a correct order
    (a wrong ingredient or too many of a kind)."""
    n_cats = len(plate.any)
    if casual:
        have = category_counts(counts, cat_of, n_cats)
        if any(h > n for h, n in zip(have, plate.hint)):
            return None
        return [0] * len(counts), [n - h for h, n in zip(have, plate.hint)]
    spec = [0] * len(counts)
    extra = [0] * n_cats
    for f, k in enumerate(counts):
        need = plate.specific[f]
        if k < need:
            spec[f] = need - k
        elif k > need:
            extra[cat_of[f]] += k - need
    if any(e > a for e, a in zip(extra, plate.any)):
        return None
    return spec, [a - e for a, e in zip(plate.any, extra)]


def score_round(cat: Catalog, mode: Mode, completed: dict[str, list[tuple[int, list[int]]]]) -> dict:
    """Score every completed order, add the mode's bonus, award Gold Spatulas.

    ``completed[agent]`` lists ``(plate index, food counts)``. Returns a
    JSON-able dict: per agent ``orders`` (plate, valid, score, disliked),
    ``base``, ``bonus``, ``total``, ``completed`` and the list ``gold``.
    """
    cat_of = [f.category for f in cat.foods]
    casual = mode.kind == "casual"
    orders, base, valid_orders = {}, {}, {}
    for a, done in completed.items():
        rows, vo = [], []
        for plate_idx, counts in done:
            plate = cat.plates[plate_idx]
            s = evaluate(plate, counts, cat_of, casual)
            rows.append({"plate": plate_idx, "valid": s.valid, "score": s.score, "disliked": s.disliked})
            if s.valid:
                vo.append((plate, counts))
        orders[a] = rows
        base[a] = sum(r["score"] for r in rows)
        valid_orders[a] = vo
    bonus = mode_bonuses(cat, mode, valid_orders)
    total = {a: base[a] + bonus[a] for a in completed}
    n_done = {a: len(completed[a]) for a in completed}
    return {"mode": mode.id, "orders": orders, "base": base, "bonus": bonus, "total": total,
            "completed": n_done, "gold": gold_spatula_winners(total, n_done)}


def gold_spatula_winners(total: dict[str, int], completed: dict[str, int]) -> list[str]:
    """The highest score takes a Gold Spatula; a tie goes to more completed
    orders; a tie on both gives every tied player one."""
    best = max(total.values())
    top = [a for a in total if total[a] == best]
    most = max(completed[a] for a in top)
    return [a for a in top if completed[a] == most]


def match_winners(gold: dict[str, int], gold_to_win: int) -> list[str]:
    """The chefs with ``gold_to_win`` Gold Spatulas (they share the victory); empty while nobody has."""
    return [a for a in gold if gold[a] >= gold_to_win]
