"""What one player may know at the table: :class:`PublicView`.

Everything an observation or the heuristic uses goes through this view.
It holds the viewer's own cards when the rules let the viewer look at them,
the pack in front of the viewer during Shopping, and public information
about everyone else: sizes of hands, face-up Go Boy! cards, VP tokens,
scoring piles, characters, the pending decision, the supplies, the face-up
customer discard pile, and this turn's public events: the menus cooked (with
the supplement added to each), the Mbok Bakul exchanges (with whom, how
many cards; not which) and the outcomes of Maling / Perayu (stolen from whom,
or cancelled by Hansip; not which card). Never another player's ingredient or customer cards,
anyone's face-down picks (the viewer's own too, unless No-Memory Chef) or
the order or content of a deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.waroong_wars.rules import scoring

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine


@dataclass(frozen=True)
class PublicView:
    viewer: int
    n: int
    phase: str  # "draft" | "cook" | "over"
    round: int
    round_limit: int
    last_round: bool
    menu_deck_left: int
    constraint: bool
    # Shopping
    pick_no: int  # picks made so far this round
    picked: tuple[bool, ...]  # who has picked from the current pack (public: you see them take a card)
    pack: tuple[int, ...]  # the pack in front of the viewer (counts per ingredient type; zeros outside Shopping)
    # the viewer's own cards
    hand_visible: bool
    hand: tuple[int, ...]  # counts per ingredient type (zeros when not visible)
    customers: tuple[int, ...]  # own customer cards per kind
    score: int  # own full score so far (customers included)
    # everyone (absolute seats)
    display: tuple[int, ...]  # menu ids, -1 = empty slot
    hand_sizes: tuple[int, ...]
    customer_counts: tuple[int, ...]
    go_boy: tuple[bool, ...]
    tokens: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    characters: tuple[int, ...]  # -1 = none
    public_scores: tuple[int, ...]
    first: int
    turn: int  # whose cooking turn (meaningful in the Cooking phase)
    turns_taken: int
    cooked_this_turn: tuple[int, ...]  # menu ids the player on turn has cooked this turn (public: face up)
    cooked_supplements: tuple[int, ...]  # per menu of cooked_this_turn: supplement added (0 none, 1 + index)
    mbok_exchanges: tuple[int, ...]  # per seat: cards the player on turn exchanged with it by Mbok Bakul this
    # turn (the table sees the target and the size; which cards moved is hidden)
    thefts: tuple[tuple[int, int, int], ...]  # per seat: this turn's Maling / Perayu outcomes against it
    # (ingredient cards stolen, customer cards stolen, cancelled by Hansip; which card: hidden)
    pending: dict | None  # {"kind": "theft", "ability", "attacker", "target"} or {"kind": "extra", "seat"}
    token_supply: int
    go_boy_supply: int
    customer_deck_size: int
    customer_discard: tuple[int, ...]


def build(eng: "WaroongEngine", seat: int) -> PublicView:
    n = eng.n
    drafting = eng.phase == "draft"
    visible = (not drafting) or eng.no_memory
    zeros = (0,) * eng.cat.n_types
    fields = dict(
        viewer=seat, n=n, phase=eng.phase, round=eng.round, round_limit=eng.round_limit,
        last_round=eng.last_round, menu_deck_left=len(eng.menu_deck), constraint=eng.constraint,
        pick_no=eng.pick_no, picked=tuple(eng.picked),
        pack=tuple(eng.packs[seat]) if drafting else zeros,
        hand_visible=visible, hand=tuple(eng.hands[seat]) if visible else zeros,
        customers=tuple(eng.customers[seat]), score=scoring.score(eng, seat),
        display=tuple(eng.display),
        hand_sizes=tuple(map(sum, eng.hands)),
        customer_counts=tuple(map(sum, eng.customers)),
        go_boy=tuple(eng.go_boy), tokens=tuple(eng.tokens),
        piles=tuple(map(tuple, eng.piles)),
        characters=tuple(eng.characters),
        public_scores=tuple([scoring.public_score(eng, s) for s in range(n)]),
        first=eng.first, turn=eng.turn, turns_taken=eng.turns_taken,
        cooked_this_turn=tuple(eng.cooked_this_turn), cooked_supplements=tuple(eng.cooked_supplements),
        mbok_exchanges=tuple(eng.mbok_exchanges), thefts=tuple(map(tuple, eng.thefts)),
        pending=dict(eng.pending) if eng.pending else None,
        token_supply=eng.token_supply, go_boy_supply=eng.go_boy_supply,
        customer_deck_size=len(eng.customer_deck), customer_discard=tuple(eng.customer_discard),
    )
    # The frozen dataclass's own __init__ sets each field through object.__setattr__; its
    # instance dict filled at once is the same object, built in a fraction of the time.
    view = object.__new__(PublicView)
    view.__dict__.update(fields)
    return view
