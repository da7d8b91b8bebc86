"""Rulebook "Variants": what each printed variant changes, and Constraint Mode's slots.

* No-Memory Chef ("You can look at your cards during the Shopping Phase"): the
  ``no_memory_chef`` switch, read by :mod:`envs.waroong_wars.public` (and the fast observation).
* Plain Mode ("Playing without character and customer"): ``plain_mode``; the engine's
  ``customers_on`` is off (no customer drawn, no ability, no Tukang wild), no characters.
* Character Mode ("Randomly assign one Character card for each player"): ``character_mode``;
  dealt in :mod:`.setup`, the powers in :mod:`.characters`.
* Constraint Mode ("You can only cook 3 right-most menu cards"): :func:`slots_for` below.

Which combinations are valid: :mod:`envs.waroong_wars.options`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

CONSTRAINT_SLOTS = (3, 4, 5)  # the 3 right-most slots
ALL_SLOTS = (0, 1, 2, 3, 4, 5)


def slots_for(constraint: bool) -> tuple[int, ...]:
    """Display slots that may be cooked from (Constraint Mode: the 3 right-most)."""
    return CONSTRAINT_SLOTS if constraint else ALL_SLOTS


def cookable_slots(eng: "WaroongEngine") -> tuple[int, ...]:
    return slots_for(eng.constraint)
