"""Figures pinned where a mutation audit found the tests silent: the Elo intervals' width, a cooperative
team's win rate and its boolean extras, and how a tournament turns games into pairwise results
(shared wins, both seatings of a 3-player pairing, each game's weight, draws). Each test fails with
the mutant it was written against."""

from __future__ import annotations

import math

import pytest

from training import tournament as T
from training.envspec import EnvSpec
from training.evaluation import GameRecord, evaluate, play_games
from training.stats import bradley_terry_elo, wilson

ELO = 400 / math.log(10)


def test_the_elo_interval_is_1_96_standard_errors_and_weights_count_in_it():
    """75 wins in 100: the rating difference's standard error is 1 / sqrt(100 x 0.75 x 0.25) in
    log-odds; the 95% half-width is 1.96 of them (a mutant gave one standard error). The same games
    given as 200 comparisons of weight 0.5 carry the same information (a mutant dropped the weight
    from the curvature, not from the ratings)."""
    expect = 1.959964 * ELO / math.sqrt(100 * 0.75 * 0.25)
    r, half = bradley_terry_elo(2, [(0, 1, 1.0)] * 75 + [(0, 1, 0.0)] * 25, anchor=1, prior_games=0.0)
    assert half[0] == pytest.approx(expect, rel=1e-3) and half[0] == pytest.approx(78.6, abs=0.1)
    r2, half2 = bradley_terry_elo(2, [(0, 1, 1.0, 0.5)] * 150 + [(0, 1, 0.0, 0.5)] * 50, anchor=1, prior_games=0.0)
    assert r2 == pytest.approx(r) and half2[0] == pytest.approx(expect, rel=1e-3)


def test_a_cooperative_team_evaluation_reports_its_win_rate_and_its_flags_as_shares(toy_registry):
    spec = EnvSpec.resolve("toy_coop_v0", {"players": 2})
    row = evaluate(spec, "random", None, games=30, seed=3)
    games = play_games(spec, "random", None, range(3, 33))
    won = sum(1 for g in games if g.outcome.get("winners"))
    assert 0 < won < 30, "the toy team wins some and loses some: the rate is informative"
    assert row.win_rate == pytest.approx(won / 30) and tuple(row.win_ci) == pytest.approx(wilson(won, 30))
    cleared = sum(1 for g in games if g.outcome["cleared"])
    assert tuple(row.extras["cleared"][1:]) == pytest.approx(wilson(cleared, 30))
    assert row.to_json()["extras"]["cleared"]["kind"] == "share"


def _record(seed, focus, ranks):
    """A finished 3-seat game: ``ranks`` = {seat: (won, score)}."""
    winners = [a for a, (w, _) in ranks.items() if w]
    return GameRecord(seed, focus, 10, False, {a: 0.0 for a in ranks},
                      {"winners": winners, "scores": {a: float(s) for a, (_, s) in ranks.items()}})


def test_a_tournament_counts_shared_wins_in_part_plays_both_seatings_and_weighs_each_game_once(
        toy_registry, monkeypatch):
    """Three seats, two policies: every game of a pairing seats policy i in one seat (the focus) and j in
    the other two. Shared wins count in part, both seatings (i alone, j alone) are played, a game's
    comparisons weigh one game together, and equal results with no winner are a draw (0.5)."""
    calls = []

    def fake(env_spec, focus, others, seeds, workers):
        calls.append((focus, others))
        seeds = list(seeds)
        if focus == "random":  # random alone in p0 shares the win with one heuristic seat
            return [_record(s, ["p0"], {"p0": (1, 5), "p1": (1, 5), "p2": (0, 1)}) for s in seeds]
        return [_record(s, ["p0"], {"p0": (0, 2), "p1": (0, 2), "p2": (0, 2)}) for s in seeds]  # a draw

    monkeypatch.setattr(T, "play_games_parallel", fake)
    spec = EnvSpec.resolve("toy_v0", {"players": 3})
    res = T.run_tournament(spec, ["random", "heuristic"], games=10, seed=0)
    assert sorted(calls) == [("heuristic", "random"), ("random", "heuristic")]  # both seatings
    by = {s.policy: s for s in res.standings}
    # random: 10 games alone, each half a win; 10 games in two seats, no win: 5 / 30 seat-games
    assert by["random"].games == 30 and by["random"].win_rate == pytest.approx(5 / 30)
    # heuristic: half of each shared win in the first pairing (10 games, 20 seat-games), none alone
    assert by["heuristic"].games == 30 and by["heuristic"].win_rate == pytest.approx(5 / 30)
    # random against heuristic: alone it ties one heuristic seat (0.5) and beats the other (1.0),
    # 0.75 a game; in the draws 0.5; each game one unit of weight: (0.75 x 10 + 0.5 x 10) / 20
    i, j = res.policies.index("random"), res.policies.index("heuristic")
    assert res.matrix[i][j] == pytest.approx(0.625) and res.matrix[j][i] == pytest.approx(0.375)
    # the fit sees each game's two comparisons at half weight: a game once, not twice
    games = [(i, j, 0.5, 0.5), (i, j, 1.0, 0.5)] * 10 + [(j, i, 0.5, 0.5)] * 20
    rating, half = bradley_terry_elo(2, games, anchor=i)
    assert [by["random"].rating, by["heuristic"].rating] == pytest.approx([rating[i], rating[j]])
    assert by["heuristic"].ci95 == pytest.approx(half[j])
