"""What one player can see at the table (the only input of observations and
of the heuristic).

Visible: every image-up card on the table, how many cards of each category lie
face-down (the shapes show), the two piles' sizes and the backs of their top
plates (Stir-Fry Mode and ingredient hint; in Pre-order Fry the order side of
the top plate), every player's plate (order side up), its food, every
spatula's load, every completed order, the round's mode, the clock, the
Gold Spatulas and past round scores. Hidden: which food a face-down card is,
the order of the piles below their tops (and the top's order side outside
Pre-order Fry), and the generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

_T = TypeVar("_T")


def view_of(cls: type[_T], values: dict[str, Any]) -> _T:
    """An instance of the frozen dataclass ``cls`` holding ``values`` (every
    field, by name; the dict becomes the instance's own, so pass a fresh
    one), built without the frozen ``__setattr__`` that the generated
    ``__init__`` goes through once per field (several times slower). Equal
    to ``cls(**values)``."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    return obj


@dataclass(frozen=True)
class SeatView:
    agent: str
    plate: int | None                       # current order (plate index) or None
    plate_cards: tuple[int, ...]            # food counts on the plate (all image-up)
    loads: tuple[tuple[int, ...], ...]      # per spatula of the action table: foods on it, in lift order
    busy: tuple[int, ...]                   # per spatula: ticks it is still busy
    spatulas: int                           # spatulas this player uses this round (1 or 2)
    completed: tuple[tuple[int, tuple[int, ...]], ...]  # (plate, food counts) per completed order, this round
    gold: int
    finished: bool                          # completed the round's orders (counting down)
    last_round_total: int

    @classmethod
    def of(cls, **values: Any) -> "SeatView":
        """``SeatView(**values)``, built fast (see :func:`view_of`); give every field."""
        return view_of(cls, values)


@dataclass(frozen=True)
class PublicView:
    me: str
    agents: tuple[str, ...]
    phase: str                              # "choose", "play", "countdown" or "over"
    chooser: str | None                     # whose setup choice it is (choose phase)
    round_no: int
    mode: int                               # the round's Stir-Fry Mode (index into catalog().modes)
    play_tick: int
    round_ticks: int
    countdown_left: int
    countdown_ticks: int
    orders_to_end: int
    table_up: tuple[int, ...]               # image-up cards per food
    table_down: tuple[int, ...]             # face-down cards per category
    pile_sizes: tuple[int, int]
    pile_hints: tuple[tuple[int, ...] | None, tuple[int, ...] | None]   # top plate's back hint per pile
    pile_fronts: tuple[int | None, int | None]                          # top plate (Pre-order Fry only)
    discarded: tuple[int, ...]              # plates given up this round (face-up beside the piles)
    seats: tuple[SeatView, ...]             # every player, chef_0 first

    @classmethod
    def of(cls, **values: Any) -> "PublicView":
        """``PublicView(**values)``, built fast (see :func:`view_of`); give every field."""
        return view_of(cls, values)

    def seen_by(self, agent: str) -> "PublicView":
        """The same table seen by ``agent`` (only ``me`` differs; built fast)."""
        values = dict(self.__dict__)
        values["me"] = agent
        return view_of(PublicView, values)

    def seat(self, agent: str) -> SeatView:
        return self.seats[self.agents.index(agent)]

    @property
    def my_seat(self) -> SeatView:
        return self.seat(self.me)
