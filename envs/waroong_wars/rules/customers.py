"""Rulebook "Customer Cards" (and "Additional Customer Cards"): drawing, and the abilities.

Drawn one per cooked menu (Cooking Phase step 3, :func:`.cooking.cook`); used during one's own
cooking turn, then discarded face up. End-of-game values: :mod:`.scoring`.

* Perayu / Maling: steal 1 random customer / ingredient card from a chosen
  player. The target then answers in its own step (``respond_to_theft``):
  discard a Hansip to cancel, or let it happen. Every target is asked, with
  or without a Hansip, so the pause reveals nothing about its hand. The
  outcome is public (``thefts``, per target for the rest of the turn: an
  ingredient card stolen, a customer card stolen, or cancelled by Hansip);
  which card was stolen only the two players know.
* Mbok Bakul: give 1 or 2 chosen ingredient cards to a chosen player and take
  as many at random from that player's hand (drawn before the gift arrives).
  The table sees who exchanged with whom and how many cards (``mbok_exchanges``,
  kept for the rest of the turn); which cards moved only the two players know.
* Tukang: paid as wilds in :func:`.cooking.cook`.
* A used card goes face up to the customer discard pile. When the customer
  deck runs out it is reshuffled from the discard pile; with both empty no
  card is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult
from envs.core.seeding import shuffled

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine


#: Columns of ``eng.thefts[seat]`` (this turn's Maling / Perayu outcomes against that seat).
THEFT_INGREDIENT, THEFT_CUSTOMER, THEFT_CANCELLED = 0, 1, 2


def random_from_counts(counts: list[int], rng) -> int:
    """The index of one card drawn uniformly from a pile given as counts."""
    r = int(rng.integers(sum(counts)))
    for i, c in enumerate(counts):
        if r < c:
            return i
        r -= c
    raise ValueError("empty pile")  # pragma: no cover


def draw(eng: "WaroongEngine", seat: int) -> int | None:
    """Draw the top customer card for ``seat`` (reshuffling the discards if needed)."""
    if not eng.customer_deck:
        cards = [k for k, c in enumerate(eng.customer_discard) for _ in range(c)]
        if not cards:
            return None
        eng.customer_deck = shuffled(cards, eng.rng)
        eng.customer_discard = [0] * len(eng.customer_discard)
    kind = eng.customer_deck.pop()
    eng.customers[seat][kind] += 1
    return kind


def discard(eng: "WaroongEngine", seat: int, kind: int) -> None:
    eng.customers[seat][kind] -= 1
    eng.customer_discard[kind] += 1


def use_theft(eng: "WaroongEngine", seat: int, ability: str, target_rel: int, result: StepResult) -> None:
    """Play Perayu or Maling on the player ``target_rel`` seats to the left; the target answers next."""
    kind = eng.ability_kind[ability]
    discard(eng, seat, kind)
    target = (seat + target_rel) % eng.n
    eng.pending = {"kind": "theft", "ability": ability, "attacker": seat, "target": target}
    result.events.append(f"{eng.agents[seat]} plays {eng.cat.customers[kind].name} on {eng.agents[target]}")


def respond(eng: "WaroongEngine", seat: int, use_hansip: bool, result: StepResult) -> None:
    p = eng.pending
    eng.pending = None
    attacker, ability = p["attacker"], p["ability"]
    if use_hansip:
        discard(eng, seat, eng.ability_kind["hansip"])
        eng.thefts[seat][THEFT_CANCELLED] += 1
        result.events.append(f"{eng.agents[seat]} calls the Hansip: the {ability} is cancelled")
        return
    if ability == "maling":
        t = random_from_counts(eng.hands[seat], eng.rng)
        eng.hands[seat][t] -= 1
        eng.hands[attacker][t] += 1
        eng.thefts[seat][THEFT_INGREDIENT] += 1
        result.events.append(f"{eng.agents[attacker]} steals an ingredient card from {eng.agents[seat]}")
    else:
        k = random_from_counts(eng.customers[seat], eng.rng)
        eng.customers[seat][k] -= 1
        eng.customers[attacker][k] += 1
        eng.thefts[seat][THEFT_CUSTOMER] += 1
        result.events.append(f"{eng.agents[attacker]} steals a customer card from {eng.agents[seat]}")


def use_mbok_bakul(eng: "WaroongEngine", seat: int, target_rel: int, give: tuple[int, ...], result: StepResult) -> None:
    discard(eng, seat, eng.ability_kind["mbok_bakul"])
    target = (seat + target_rel) % eng.n
    mine, theirs = eng.hands[seat], eng.hands[target]
    taken = []
    for _ in give:
        t = random_from_counts(theirs, eng.rng)
        theirs[t] -= 1
        taken.append(t)
    for t in give:
        mine[t] -= 1
        theirs[t] += 1
    for t in taken:
        mine[t] += 1
    eng.mbok_exchanges[target] += len(give)  # public: the target and the size (not which cards)
    result.events.append(f"{eng.agents[seat]} plays Mbok Bakul: exchanges {len(give)} card(s) with {eng.agents[target]}")
