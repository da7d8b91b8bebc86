"""Round-robin tournaments with Elo-scale ratings.

Pairings: every pair of distinct policies (A, B) plays ``games`` seeded,
seat-rotated games (:mod:`training.evaluation`):

* competitive, 2 players: A against B, A's seat alternating;
* competitive, P > 2 players: A in one seat against B in all the others,
  and the reverse pairing (B alone against A's), so both directions count;
* cooperative: every policy plays ``games`` games as a whole team on the
  same seeds; A and B are compared seed by seed.

Every game is turned into pairwise scores between seats held by different
policies: a winner beats a non-winner; among non-winners (or co-winners) the
higher game score wins; equal is a draw (0.5). Cooperative: team won beats
team lost, then the higher team score. Each game carries total weight 1,
split evenly over its comparisons (so a 3-player game is not counted twice).
The win rate column is per seat played (fair share 1/P in competitive games;
the team's win rate in cooperative ones).
Ratings are the maximum-likelihood Bradley-Terry (Elo-scale) fit of
:func:`training.stats.bradley_terry_elo` with 95% intervals; ``random`` is
anchored at 1000 when present, otherwise the mean is 1500.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from envs.core.errors import ConfigError
from envs.core.inputs import checked_games, checked_seed

from training.envspec import EnvSpec
from training.evaluation import GameRecord, play_games_parallel
from training.policies import first_duplicate, parse_spec
from training.stats import bradley_terry_elo, wilson


@dataclass
class Standing:
    policy: str
    rating: float
    ci95: float
    games: int              # competitive: seat-games played; cooperative: games as a team
    score: float            # mean pairwise score against everyone else
    win_rate: float         # competitive: win share per seat played; cooperative: team win rate
    win_ci: tuple[float, float] = (0.0, 0.0)
    # (Elo above the heuristic, 95% half-width of that margin itself) when ``heuristic`` is an entrant
    vs_heuristic: tuple[float, float] | None = None
    # "never lost" / "never won": every comparison went one way, so the likelihood has no maximum and
    # the rating and its interval are the prior's (they grow with the games played); None otherwise
    unbounded: str | None = None


@dataclass
class TournamentResult:
    env: str
    options: dict
    policies: list[str]
    games_per_pairing: int
    standings: list[Standing]
    matrix: list[list[float | None]] = field(default_factory=list)  # row's mean score vs column

    def markdown(self) -> str:
        margin = any(s.vs_heuristic is not None for s in self.standings)
        lines = ["| rank | policy | Elo | 95% CI | " + ("Elo above the heuristic (95% CI) | " if margin else "")
                 + "seat-games | win rate per seat (95% CI) | mean pairwise score |",
                 "|---|---|---|---|" + ("---|" if margin else "") + "---|---|---|"]
        for rank, s in enumerate(self.standings, 1):
            mark = " †" if s.unbounded else ""
            col = ""
            if margin:
                d = s.vs_heuristic
                col = "- | " if s.policy == "heuristic" or d is None else f"{d[0]:+.0f} ± {d[1]:.0f}{mark} | "
            lines.append(f"| {rank} | {s.policy} | {s.rating:.0f}{mark} | ± {s.ci95:.0f} | {col}{s.games} | "
                         f"{s.win_rate:.1%} ({s.win_ci[0]:.1%}-{s.win_ci[1]:.1%}) | {s.score:.3f} |")
        if margin:
            lines += ["", "The margin over the heuristic has an interval of its own: the Elo column's is each "
                          "rating's against the anchor, which carries the anchor's uncertainty too."]
        flagged = [s for s in self.standings if s.unbounded]
        if flagged:
            lines += ["", "† " + "; ".join(f"{s.policy} {s.unbounded}" for s in flagged)
                      + ": every comparison went one way, so the fit's maximum is at infinity. The rating and "
                        "its interval are set by the prior (two virtual draws) and the number of games, and "
                        "grow with more games: read the pairwise scores instead."]
        lines += ["", "Pairwise mean score (row against column):", "",
                  "| | " + " | ".join(self.policies) + " |", "|---|" + "---|" * len(self.policies)]
        for i, p in enumerate(self.policies):
            cells = ["-" if v is None else f"{v:.2f}" for v in self.matrix[i]]
            lines.append(f"| {p} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "env": self.env, "options": self.options, "policies": self.policies,
            "games_per_pairing": self.games_per_pairing,
            "standings": [{"policy": s.policy, "elo": s.rating, "elo_ci95": s.ci95, "games": s.games,
                           "mean_pairwise_score": s.score, "win_rate": s.win_rate, "win_rate_ci95": list(s.win_ci),
                           "elo_above_heuristic": None if s.vs_heuristic is None else s.vs_heuristic[0],
                           "elo_above_heuristic_ci95": None if s.vs_heuristic is None else s.vs_heuristic[1],
                           "unbounded": s.unbounded}
                          for s in self.standings],
            "pairwise_score": self.matrix,
        }


def _ranks(g: GameRecord) -> dict[str, tuple[int, float]]:
    winners = set(g.outcome.get("winners", []))
    scores = g.outcome.get("scores", {})
    return {a: (0 if a in winners else 1, float(scores.get(a, 0.0))) for a in g.returns}


def _cmp(x: tuple[int, float], y: tuple[int, float]) -> float:
    if x[0] != y[0]:
        return 1.0 if x[0] < y[0] else 0.0
    if x[1] != y[1]:
        return 1.0 if x[1] > y[1] else 0.0
    return 0.5


def run_tournament(env_spec: EnvSpec, specs: Sequence[str], games: int = 200, seed: int = 0,
                   workers: int = 0) -> TournamentResult:
    games, seed = checked_games(games), checked_seed(seed)
    if len(specs) < 2:
        raise ConfigError("a tournament needs at least two policies")
    parsed = [parse_spec(s) for s in specs]
    same = first_duplicate(specs)
    if same:
        raise ConfigError(f"the same policy is listed twice: {same[0]!r} and {same[1]!r}; list each once")
    labels = [p.label for p in parsed]
    for i, lab in enumerate(labels):  # two policies under one label (checkpoints of one name elsewhere): their specs
        if labels.count(lab) > 1:
            labels = [p.text if labels[j] == lab else labels[j] for j, p in enumerate(parsed)]
    n = len(specs)
    cooperative = env_spec.kind == "cooperative"
    n_seats = len(env_spec.make().possible_agents)
    results: list[tuple[int, int, float, float]] = []
    pair_scores: dict[tuple[int, int], list[tuple[float, float]]] = {}
    wins = np.zeros(n)
    played = np.zeros(n, dtype=int)

    def add(i: int, j: int, s: float, w: float) -> None:
        results.append((i, j, s, w))
        pair_scores.setdefault((i, j), []).append((s, w))
        pair_scores.setdefault((j, i), []).append((1.0 - s, w))

    seeds = range(seed, seed + games)
    if cooperative:
        team = [play_games_parallel(env_spec, s, None, seeds, workers) for s in specs]
        for i in range(n):
            wins[i] = sum(1.0 for g in team[i] if g.outcome.get("winners"))
            played[i] = len(team[i])
        for i, j in itertools.combinations(range(n), 2):
            for gi, gj in zip(team[i], team[j]):
                ti = (0 if gi.outcome.get("winners") else 1, float(np.mean(list(gi.outcome.get("scores", {0: 0}).values()))))
                tj = (0 if gj.outcome.get("winners") else 1, float(np.mean(list(gj.outcome.get("scores", {0: 0}).values()))))
                add(i, j, _cmp(ti, tj), 1.0)
    else:
        pairings = itertools.combinations(range(n), 2) if n_seats == 2 else itertools.permutations(range(n), 2)
        for i, j in pairings:
            recs = play_games_parallel(env_spec, specs[i], specs[j], seeds, workers)
            for g in recs:
                ranks = _ranks(g)
                focus = g.focus_seats
                rest = [a for a in ranks if a not in focus]
                comps = [(a, b) for a in focus for b in rest]
                for a, b in comps:
                    add(i, j, _cmp(ranks[a], ranks[b]), 1.0 / len(comps))
                winners = list(g.outcome.get("winners", []))
                if winners:
                    wins[i] += sum(1.0 for a in focus if a in winners) / len(winners)
                    wins[j] += sum(1.0 for a in rest if a in winners) / len(winners)
                played[i] += len(focus)
                played[j] += len(rest)
    anchor = labels.index("random") if "random" in labels else None
    ratings, half = bradley_terry_elo(n, results, anchor=anchor)
    ref = labels.index("heuristic") if "heuristic" in labels else None
    vs_ref: list[tuple[float, float] | None] = [None] * n
    if ref is not None:  # the same fit, its intervals taken against the heuristic: each margin's own
        _, half_ref = bradley_terry_elo(n, results, anchor=ref)
        vs_ref = [None if i == ref else (float(ratings[i] - ratings[ref]), float(half_ref[i])) for i in range(n)]
    unbounded: list[str | None] = [None] * n
    for i in range(n):
        mine = [s for (a, _), sc in pair_scores.items() if a == i for s, _ in sc]
        if mine and all(s == 1.0 for s in mine):
            unbounded[i] = "never lost"
        elif mine and all(s == 0.0 for s in mine):
            unbounded[i] = "never won"
    matrix: list[list[float | None]] = []
    mean_score = np.zeros(n)
    for i in range(n):
        row: list[float | None] = []
        tot = wsum = 0.0
        for j in range(n):
            sc = pair_scores.get((i, j))
            if i == j or not sc:
                row.append(None)
                continue
            w = sum(x[1] for x in sc)
            v = sum(x[0] * x[1] for x in sc) / w
            row.append(v)
            tot += v * w
            wsum += w
        matrix.append(row)
        mean_score[i] = tot / wsum if wsum else math.nan
    standings = [
        Standing(labels[i], float(ratings[i]), float(half[i]), int(played[i]), float(mean_score[i]),
                 float(wins[i] / played[i]) if played[i] else math.nan, wilson(wins[i], int(played[i])),
                 vs_ref[i], unbounded[i])
        for i in range(n)
    ]
    order = sorted(range(n), key=lambda i: -standings[i].rating)
    return TournamentResult(env_spec.env_id, dict(env_spec.options), [labels[i] for i in order], games,
                            [standings[i] for i in order], [[matrix[i][j] for j in order] for i in order])
