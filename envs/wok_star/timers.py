"""The two 30-second sand timers, counted in ticks of sand.

A timer is described by the sand on top (``0..full``): it runs down one tick
per tick while the timers stand. Flipping a timer with ``r`` on top leaves
``full - r`` on top. Timers are interchangeable, so actions name them by the
sand they hold: ``low`` (less sand on top; on a tie the first) or ``high``.
"""

from __future__ import annotations

import math


def ticks_for(seconds: float, seconds_per_tick: float) -> int:
    """Ticks in ``seconds`` of table time (a 30 s timer holds ceil(30 / seconds_per_tick) ticks of sand)."""
    return max(1, math.ceil(seconds / seconds_per_tick - 1e-9))


def low_index(sand: list[int]) -> int:
    return 0 if sand[0] <= sand[1] else 1


def pick(sand: list[int], which: str) -> int:
    """Index of the ``low`` or ``high`` timer."""
    lo = low_index(sand)
    return lo if which == "low" else 1 - lo


def flip(sand: list[int], which: str, full: int) -> None:
    i = pick(sand, which)
    sand[i] = full - sand[i]


def restart(sand: list[int], which: str, full: int) -> None:
    """Put a timer back to full sand on top (Lily's power)."""
    sand[pick(sand, which)] = full


def run(sand: list[int]) -> None:
    """One tick of sand runs down in each standing timer."""
    sand[0] = max(0, sand[0] - 1)
    sand[1] = max(0, sand[1] - 1)


def running(sand: list[int]) -> bool:
    return sand[0] > 0 or sand[1] > 0


def distinct(sand: list[int]) -> bool:
    """Whether ``low`` and ``high`` name timers in different states."""
    return sand[0] != sand[1]
