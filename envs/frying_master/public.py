"""What one player can see at the table (the only input of observations and
of the heuristic).

Visible: every image-up card on the table, how many cards of each category lie
face-down (the shapes show), the two piles' sizes and the backs of their top
plates (the printed Stir-Fry Mode and the ingredient hint; in Pre-order Fry
the order side of the top plate), every player's plate (order side up), its
food, every spatula's load, every completed order with the food on it (right
or wrong: completed orders lie face up in front of each player), the round's mode, the clock, the
Gold Spatulas and past round scores. Hidden: which food a face-down card is,
the order of the piles below their tops (and the top's order side outside
Pre-order Fry), and the generator.

:func:`build_view` builds the view from the engine's state (the engine's
``public_view`` caches it per state version and shares it between chefs);
:func:`seat_view` rebuilds one chef's seat only when its revision moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from envs.frying_master.rules.stir_fry_mode import shows_order_side

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine

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
    pile_modes: tuple[int | None, int | None]                           # top plate's back: its printed mode
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


def build_view(eng: "FryingMasterEngine", agent: str) -> PublicView:
    """The table as ``agent`` sees it, from the engine's state."""
    piles = eng.piles
    a_cards, b_cards = piles[0].cards, piles[1].cards
    tops = (a_cards[-1] if a_cards else None, b_cards[-1] if b_cards else None)
    if (tops, eng.mode) != eng._tops:  # the piles' top plates (or the mode) changed
        plates = eng.cat.plates
        eng._tops = (tops, eng.mode)
        eng._top_faces = (tuple([None if t is None else plates[t].hint for t in tops]),
                          tops if shows_order_side(eng.cat, eng.mode) else (None, None),
                          tuple([None if t is None else plates[t].mode for t in tops]))
    hints, fronts, modes = eng._top_faces
    phase = eng.phase
    return view_of(PublicView, {
        "me": agent,
        "agents": eng.agents,
        "phase": phase,
        "chooser": eng.choose_queue[0] if phase == "choose" else None,
        "round_no": eng.round_no,
        "mode": eng.mode,
        "play_tick": eng.play_tick,
        "round_ticks": eng.round_ticks,
        "countdown_left": eng.countdown_left,
        "countdown_ticks": eng.countdown_ticks,
        "orders_to_end": eng.orders_to_end,
        "table_up": tuple(eng.table.up),
        "table_down": tuple(map(len, eng.table.down)),
        "pile_sizes": (len(a_cards), len(b_cards)),
        "pile_hints": hints,
        "pile_fronts": fronts,
        "pile_modes": modes,
        "discarded": tuple(eng.discard),
        "seats": tuple([seat_view(eng, i, a) for i, a in enumerate(eng.agents)]),
    })


def seat_view(eng: "FryingMasterEngine", i: int, a: str) -> SeatView:
    """Seat ``i`` (chef ``a``) as everyone sees it.

    Rebuilt only when the seat's revision moved (the engine's ``_touch``); and
    if its values came out the same as before (a flip or stir leaves the chef's
    seat as it was once the tick ends) the old view object is kept, which the
    encoder skips at once.
    """
    hit = eng._seat_views[i]
    rev = eng._seat_rev[i]
    if hit is not None and hit[0] == rev:
        return hit[2]
    last = eng.history[-1]["total"] if eng.history else {}
    values = (eng.plates[a], tuple(eng.plate_cards[a]), tuple([tuple(load) for load in eng.loads[a]]),
              tuple(eng.busy[a]), eng.spatulas, tuple([(p, tuple(c)) for p, c in eng.completed[a]]),
              eng.gold[a], a in eng.finishers, int(last.get(a, 0)))
    if hit is not None and hit[1] == values:
        seat = hit[2]
    else:
        plate, cards, loads, busy, sp, completed, gold, finished, last_total = values
        seat = view_of(SeatView, {"agent": a, "plate": plate, "plate_cards": cards, "loads": loads, "busy": busy,
                                  "spatulas": sp, "completed": completed, "gold": gold, "finished": finished,
                                  "last_round_total": last_total})
    eng._seat_views[i] = (rev, values, seat)
    return seat
