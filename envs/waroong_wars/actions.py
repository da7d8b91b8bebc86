"""The flat action table of Waroong Wars (one per player count).

Targets are *relative seats*: ``target=k`` is the player ``k`` seats to the
acting player's left (cards pass left, turns go left), so the same index
means the same thing from every seat.

Cooking folds payment permutations that cannot matter (see docs): identical
ingredient cards are interchangeable; real cards are always spent before
wilds (ingredient cards are all collected at Cleanup, while a Go Boy! carries
over and an unused Tukang still scores 1 VP, so keeping the wild is never
worse); what remains is whether the Go Boy! covers one missing card and of
which category (every other missing card is paid by the Tukang of its
category) and which supplement, if any, is added.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

from envs.core.tables import ActionTable
from envs.waroong_wars.cards import load_catalog

DISPLAY_SLOTS = 6


@dataclass(frozen=True)
class ActionIndex:
    """Start indices of the groups and their parameter lists (fast arithmetic decoding)."""

    table: ActionTable
    n_players: int
    gives: tuple[tuple[int, ...], ...]  # Mbok Bakul: the cards given, as sorted ingredient types
    go_boy_options: int  # 1 + categories
    supplement_options: int  # 1 + supplements
    pick0: int
    cook0: int
    perayu0: int
    maling0: int
    mbok0: int
    respond0: int
    extra0: int
    take_go_boy: int
    end_turn: int

    def cook(self, slot: int, go_boy_for: int, supplement: int) -> int:
        """``go_boy_for``: 0 = no Go Boy, 1 + category; ``supplement``: 0 = none, 1 + supplement index."""
        return self.cook0 + (slot * self.go_boy_options + go_boy_for) * self.supplement_options + supplement

    def decode_cook(self, action: int) -> tuple[int, int, int]:
        k = action - self.cook0
        slot, rest = divmod(k, self.go_boy_options * self.supplement_options)
        gb, sp = divmod(rest, self.supplement_options)
        return slot, gb, sp

    def mbok(self, target: int, give: int) -> int:
        return self.mbok0 + (target - 1) * len(self.gives) + give

    def decode_mbok(self, action: int) -> tuple[int, int]:
        t, g = divmod(action - self.mbok0, len(self.gives))
        return t + 1, g


def give_options(cards_per_type: list[int]) -> tuple[tuple[int, ...], ...]:
    """1 or 2 cards (a multiset of ingredient types) to hand over with Mbok Bakul
    (two of a type only where the type has two or more cards: not two of one supplement)."""
    types = range(len(cards_per_type))
    one = [(t,) for t in types]
    two = [g for g in itertools.combinations_with_replacement(types, 2) if g[0] != g[1] or cards_per_type[g[0]] >= 2]
    return tuple(one + two)


@lru_cache(maxsize=None)
def action_index(players: int) -> ActionIndex:
    cat = load_catalog()
    types = cat.ingredient_types
    gives = give_options([cat.ingredient_deck.count(t) for t in range(len(types))])
    give_names = tuple("+".join(types[t] for t in g) for g in gives)
    targets = tuple(range(1, players))
    t = ActionTable("wait: the only action of a player who has nothing to decide this step")
    pick = t.add("draft_pick", "Shopping: take one card of this ingredient type from the pack in front of you "
                 "(face down; the rest passes to the player on your left)", ingredient=types)
    cook = t.add("cook", "Cooking: cook the menu in this display slot (0 = leftmost); real cards pay first, "
                 "`go_boy_for` = the category one missing card of which your Go Boy! covers ('none': no Go Boy), "
                 "every other missing card is paid by a Tukang of its category; `supplement` = the supplementary "
                 "card added for +2 VP tokens ('none': none)",
                 slot=tuple(range(DISPLAY_SLOTS)), go_boy_for=("none",) + cat.categories,
                 supplement=("none",) + tuple(s.key for s in cat.supplements))
    perayu = t.add("use_perayu", "Cooking: play Perayu to steal 1 random customer card from the player `target` "
                   "seats to your left", target=targets)
    maling = t.add("use_maling", "Cooking: play Maling to steal 1 random ingredient card from the player `target` "
                   "seats to your left", target=targets)
    mbok = t.add("use_mbok_bakul", "Cooking: play Mbok Bakul: give these 1 or 2 ingredient cards to the player "
                 "`target` seats to your left and take as many cards at random from that player's hand",
                 target=targets, give=give_names)
    respond = t.add("respond_to_theft", "Targeted by Maling or Perayu: `use_hansip`=True discards your Hansip to "
                    "cancel the effect, False lets it happen", use_hansip=(False, True))
    extra = t.add("extra_customer", "Bu Prasojo, after cooking a menu of 5 or 6 ingredients: take (True) or "
                  "decline (False) 1 extra customer card", take=(False, True))
    go = t.add("take_go_boy", "Cooking, when you have cooked nothing this turn and cannot cook: take a Go Boy! "
               "(wild for your next turn) and end your turn")
    end = t.add("end_turn", "Cooking: stop cooking; the player on your left cooks next")
    return ActionIndex(t, players, gives, 1 + len(cat.categories), 1 + len(cat.supplements), pick.start, cook.start,
                       perayu.start, maling.start, mbok.start, respond.start, extra.start, go.start, end.start)
