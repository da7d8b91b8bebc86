"""Deck helpers for card games: piles of card ids with seeded shuffles.

A :class:`Deck` is a list of JSON-able card ids whose *last* element is the
top card. Decks serialise to plain lists, so engines can snapshot them.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np


class EmptyDeckError(IndexError):
    """Drawing from an empty deck."""


class Deck:
    __slots__ = ("cards",)

    def __init__(self, cards: Iterable = ()):
        self.cards = list(cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __bool__(self) -> bool:
        return bool(self.cards)

    def __iter__(self):
        return iter(self.cards)

    def __eq__(self, other) -> bool:
        return isinstance(other, Deck) and self.cards == other.cards

    def __repr__(self) -> str:
        return f"Deck({self.cards!r})"

    def shuffle(self, rng: np.random.Generator) -> "Deck":
        self.cards = [self.cards[i] for i in rng.permutation(len(self.cards))]
        return self

    def draw(self):
        if not self.cards:
            raise EmptyDeckError("draw from an empty deck")
        return self.cards.pop()

    def draw_many(self, n: int) -> list:
        if n > len(self.cards):
            raise EmptyDeckError(f"cannot draw {n} cards from a deck of {len(self.cards)}")
        return [self.cards.pop() for _ in range(n)]

    def peek(self):
        if not self.cards:
            raise EmptyDeckError("peek at an empty deck")
        return self.cards[-1]

    def put_top(self, card) -> None:
        self.cards.append(card)

    def put_bottom(self, card) -> None:
        self.cards.insert(0, card)

    def shuffle_in(self, cards: Iterable, rng: np.random.Generator) -> None:
        """Add ``cards`` and shuffle the whole deck."""
        self.cards.extend(cards)
        self.shuffle(rng)

    def remove(self, card) -> None:
        self.cards.remove(card)

    def to_list(self) -> list:
        return list(self.cards)

    @classmethod
    def from_list(cls, cards: Iterable) -> "Deck":
        return cls(cards)

    def copy(self) -> "Deck":
        return Deck(self.cards)


def deal(deck: Deck, hands: int, per_hand: int) -> list[list]:
    """Deal ``per_hand`` cards to each of ``hands`` hands, one card at a time."""
    out: list[list] = [[] for _ in range(hands)]
    for _ in range(per_hand):
        for h in out:
            h.append(deck.draw())
    return out
