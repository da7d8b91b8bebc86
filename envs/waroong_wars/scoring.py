"""Scoring, ranking and the ranking reward.

Final score (rulebook "Scoring"): the VP of the menus in the scoring pile,
plus every unused customer card (1 VP, or what the card prints: Primadona 4,
Biduanita 3, Foodies 2, Boyband 1, Preman -1), plus the Extra VP tokens,
plus Geng Bajoel's 5 VP per pair of cooked menus with the same name.
Ranking: most VP, ties to the most menu cards; players still tied share.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

PAIR_POWER = "pair_bonus"


def pair_count(eng: "WaroongEngine", seat: int) -> int:
    """Pairs of same-named menus in the seat's pile (counted for Geng Bajoel)."""
    counts = Counter(eng.cat.menus[m].dish.index for m in eng.piles[seat])
    return sum(c // 2 for c in counts.values())


def breakdown(eng: "WaroongEngine", seat: int) -> dict[str, int]:
    cat = eng.cat
    menus = sum(cat.menus[m].dish.vp for m in eng.piles[seat])
    customers = sum(cnt * cat.customers[k].end_vp for k, cnt in enumerate(eng.customers[seat]) if cnt)
    pairs = 0
    if eng.power(seat) == PAIR_POWER:
        pairs = eng.cat.components["pair_bonus_vp"] * pair_count(eng, seat)
    return {"menus": menus, "customers": customers, "tokens": eng.tokens[seat], "pairs": pairs}


def score(eng: "WaroongEngine", seat: int) -> int:
    b = breakdown(eng, seat)
    return b["menus"] + b["customers"] + b["tokens"] + b["pairs"]


def public_score(eng: "WaroongEngine", seat: int) -> int:
    """The part of a seat's score every player can see (customer cards are hidden)."""
    b = breakdown(eng, seat)
    return b["menus"] + b["tokens"] + b["pairs"]


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
