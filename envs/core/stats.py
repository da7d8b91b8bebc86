"""The Wilson score interval, shared by the envs' commands (``envs.baselines``, ``envs.clock``)
and the training package's tables (:mod:`training.stats` re-exports it)."""

from __future__ import annotations

import math

#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` in ``n`` trials (fractional successes allowed:
    a win shared by k players counts 1/k). No trials give no interval (NaN, NaN): ``(0, 0)``
    claimed certainty where nothing was seen. ``successes`` outside ``0..n`` is a ValueError (it
    was clamped silently)."""
    if n <= 0:
        return (float("nan"), float("nan"))
    if not -1e-9 <= successes <= n + 1e-9:  # (a sum of shared wins may carry a rounding error)
        raise ValueError(f"wilson: {successes} successes in {n} trials; allowed: 0..{n}")
    p = min(1.0, max(0.0, successes / n))
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    lo = 0.0 if p == 0.0 else max(0.0, c - h)  # exactly 0 (1) at none (all): not a rounding error above (below)
    hi = 1.0 if p == 1.0 else min(1.0, c + h)
    return (lo, hi)
