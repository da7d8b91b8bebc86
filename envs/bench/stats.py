"""Median and spread of repeated measurements.

The spread the benchmark reports is the full range, min to max, over the
repeats (with the 2 to 5 repeats a run affords, quartiles would say little).
"""

from __future__ import annotations

import statistics
from typing import Sequence

SPREAD = "min-max"


def median(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("median of no values")
    return float(statistics.median(values))


def spread(values: Sequence[float]) -> tuple[float, float]:
    """(min, max) of the values."""
    if not values:
        raise ValueError("spread of no values")
    return float(min(values)), float(max(values))


def summarize(values: Sequence[float]) -> dict:
    """``{"median", "min", "max", "values"}`` of one figure over the repeats."""
    lo, hi = spread(values)
    return {"median": median(values), "min": lo, "max": hi, "values": [float(v) for v in values]}
