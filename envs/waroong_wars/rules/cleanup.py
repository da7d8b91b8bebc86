"""Rulebook "Gameplay: Cleanup Phase": the next round, the First Cooking marker, Go Boy! cards.

1. "When the last player has finished their Cooking phase, collect all Ingredient cards ...
   Shuffle them altogether with unused Ingredient cards, forming a new Ingredient deck. The First
   Cooking marker is passed to the left and the new round is played": :func:`cleanup` (the
   reshuffle happens in :func:`.shopping.start_round`, which deals from all 39 cards).
2. "If you can't cook any Menu card during the Cooking phase, you may take one "Go Boy!" card"
   (limit 1 held; not in a turn you cook): :func:`take_go_boy`, offered in the player's own turn
   (docs: deviation 5); taking it ends that turn (the engine then calls
   :func:`.cooking.advance_turn`). The Go Boy! is a wild for one missing card in a later turn,
   discarded when used (:func:`.cooking.cook`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult
from envs.waroong_wars.rules import shopping

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine


def cleanup(eng: "WaroongEngine", result: StepResult) -> None:
    """Every ingredient card returns to the deck (reshuffled in start_round); the marker passes left."""
    eng.first = (eng.first + 1) % eng.n
    eng.round += 1
    result.events.append(f"cleanup: every ingredient card is reshuffled; the First Cooking marker passes to "
                         f"{eng.agents[eng.first]}")
    shopping.start_round(eng)


def take_go_boy(eng: "WaroongEngine", seat: int, result: StepResult) -> None:
    """``seat`` cannot cook and takes a Go Boy! from the supply (the caller ends the turn)."""
    eng.go_boy[seat] = True
    eng.go_boy_supply -= 1
    result.events.append(f"{eng.agents[seat]} cannot cook and takes a Go Boy!")
