"""Confidence intervals and ratings.

* :func:`wilson`: Wilson score interval of a proportion (accepts fractional
  successes, as shared wins count 1/k).
* :func:`mean_ci`: mean with a normal-approximation 95% interval
  (``mean +- 1.96 s / sqrt(n)``; evaluations default to >= 200 games).
* :func:`bradley_terry_elo`: Elo-scale ratings fitted by maximum likelihood
  to pairwise results (the Bradley-Terry model behind Elo, as BayesElo and
  Ordo do), with a weak prior so undefeated players stay finite, and 95%
  intervals from the curvature of the likelihood. Unlike incremental Elo it
  does not depend on the order the games were played in.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from envs.core.stats import Z95, wilson  # noqa: F401 - re-exported: training's tables use both

ELO_SCALE = 400.0 / math.log(10.0)


def mean_ci(values: Iterable[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the normal interval of the mean. One value gives no interval (its
    mean, NaN, NaN): a zero-width one claimed a certainty one sample cannot give."""
    x = np.asarray(list(values), dtype=np.float64)
    if x.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = float(x.mean())
    if x.size == 1:
        return (m, float("nan"), float("nan"))
    h = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return (m, m - h, m + h)


def bradley_terry_elo(n_players: int, results: Sequence[tuple], anchor: int | None = None,
                      anchor_rating: float = 1000.0, mean_rating: float = 1500.0, prior_games: float = 2.0,
                      iterations: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Ratings and 95% half-widths from ``results`` = [(i, j, s) or (i, j, s, w)]:
    ``s`` = score of i against j in [0, 1], ``w`` = weight (default 1).

    The model: P(i beats j) = 1 / (1 + 10^((r_j - r_i)/400)). ``prior_games``
    virtual draws against a player at the mean keep ratings finite. Ratings
    are shifted so ``anchor`` sits at ``anchor_rating`` (or the mean at
    ``mean_rating`` when no anchor is given)."""
    n = n_players
    theta = np.zeros(n)
    pairs = [(int(r[0]), int(r[1]), float(r[2]), float(r[3]) if len(r) > 3 else 1.0) for r in results if r[0] != r[1]]
    H = np.eye(n)
    for _ in range(iterations):
        sig = 1.0 / (1.0 + np.exp(-theta))
        grad = prior_games * (0.5 - sig)            # virtual draws against a rating-0 player
        H = np.diag(prior_games * sig * (1.0 - sig))  # negative Hessian of the log-likelihood
        for i, j, s, wt in pairs:
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            grad[i] += wt * (s - p)
            grad[j] -= wt * (s - p)
            w = wt * p * (1 - p)
            H[i, i] += w
            H[j, j] += w
            H[i, j] -= w
            H[j, i] -= w
        step = np.linalg.lstsq(H, grad, rcond=None)[0]  # H is singular without a prior
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    cov = np.linalg.pinv(H)
    # uncertainty of each rating relative to the reference point
    if anchor is not None:
        e = np.eye(n) - np.eye(n)[anchor]
    else:
        e = np.eye(n) - np.full((n, n), 1.0 / n)
    var = np.einsum("ij,jk,ik->i", e, cov, e)
    half = Z95 * np.sqrt(np.maximum(var, 0.0)) * ELO_SCALE
    ratings = theta * ELO_SCALE
    if anchor is not None:
        ratings = ratings - ratings[anchor] + anchor_rating
    else:
        ratings = ratings - ratings.mean() + mean_rating
    return ratings, half
