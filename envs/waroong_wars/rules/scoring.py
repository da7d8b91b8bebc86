"""Rulebook "Scoring": the score, the ranking and the ranking reward.

Final score: the VP of the menus in the scoring pile,
plus every unused customer card (1 VP, or what the card prints: Primadona 4,
Biduanita 3, Foodies 2, Boyband 1, Preman -1), plus the Extra VP tokens,
plus Geng Bajoel's 5 VP per pair of cooked menus with the same name
(:func:`.characters.pair_points`).
Ranking: most VP, ties to the most menu cards; players still tied share.

:func:`score` and :func:`public_score` run every step (observations, VP
shaping), so they read the engine's flat lookup tables (``menu_vp``,
``menu_dish``, ``customer_vp``: built once per engine from the catalog) with
``map`` instead of walking the catalog's dataclasses; :func:`breakdown` is
the readable itemised version (same numbers; a test checks they agree).
"""

from __future__ import annotations

from operator import mul
from typing import TYPE_CHECKING

from envs.waroong_wars.rules.characters import pair_points

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine


def menu_points(eng: "WaroongEngine", seat: int) -> int:
    """VP of the menus in the seat's scoring pile."""
    return sum(map(eng.menu_vp.__getitem__, eng.piles[seat]))


def breakdown(eng: "WaroongEngine", seat: int) -> dict[str, int]:
    cat = eng.cat
    menus = sum(cat.menus[m].dish.vp for m in eng.piles[seat])
    customers = sum(cnt * cat.customers[k].end_vp for k, cnt in enumerate(eng.customers[seat]) if cnt)
    return {"menus": menus, "customers": customers, "tokens": eng.tokens[seat], "pairs": pair_points(eng, seat)}


def score(eng: "WaroongEngine", seat: int) -> int:
    """The seat's full score now (menus, customers, tokens, pairs)."""
    return (menu_points(eng, seat) + sum(map(mul, eng.customers[seat], eng.customer_vp))
            + eng.tokens[seat] + pair_points(eng, seat))


def public_score(eng: "WaroongEngine", seat: int) -> int:
    """The part of a seat's score every player can see (customer cards are hidden)."""
    return menu_points(eng, seat) + eng.tokens[seat] + pair_points(eng, seat)


def rank_keys(eng: "WaroongEngine") -> list[tuple[int, int]]:
    """(score, menus cooked) per seat: the rulebook's order of comparison."""
    return [(score(eng, s), len(eng.piles[s])) for s in range(eng.n)]


def winners(eng: "WaroongEngine") -> list[int]:
    keys = rank_keys(eng)
    best = max(keys)
    return [s for s, k in enumerate(keys) if k == best]


def rank_rewards(eng: "WaroongEngine") -> list[float]:
    """Per seat: (players it beats - players that beat it) / (n - 1), in [-1, 1], summing to 0."""
    keys = rank_keys(eng)
    n = eng.n
    return [(sum(k > o for o in keys) - sum(o > k for o in keys)) / (n - 1) for k in keys]
