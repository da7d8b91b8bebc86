"""Rulebook "Gameplay: Cooking Phase": paying for menus, the display and its refill, the turns.

Turns start at the First Cooking marker and go left; a player cooks any number of menus
(``cook``) and stops with ``end_turn``. Each cooked menu goes to the scoring pile, its
ingredient cards are discarded, its cook draws 1 customer card (:mod:`.customers`), then the
display refills.

Payment (see :mod:`envs.waroong_wars.actions` for why it folds this way):
real ingredient cards of each required category first; the remaining
*deficit* of category ``c`` is paid by the Go Boy! (one card, only for the
category the action names) and by Tukang customers of category ``c``.
A supplement adds +2 VP tokens on a menu showing its icon (Jeng Sastro: also
on a menu without any icon, :mod:`.characters`).

The display has 6 slots, 0 = leftmost. Cooking the menu in slot ``s`` takes
it; the cards left of ``s`` slide one place right and a new menu is revealed
into slot 0 (empty, ``-1``, once the deck is exhausted; empty slots thus
gather on the left). Revealing the last card of the menu deck starts the
last round (:mod:`.end_of_game`). When the last player's turn ends, the game
ends (:mod:`.end_of_game`) or the Cleanup phase starts the next round
(:mod:`.cleanup`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult
from envs.waroong_wars.rules import characters, cleanup, customers, end_of_game
from envs.waroong_wars.rules.characters import PLAIN_MENU_SUPPLEMENT_POWER
from envs.waroong_wars.rules.variants import cookable_slots

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

EMPTY = -1


def tukangs(eng: "WaroongEngine", seat: int) -> list[int]:
    """Tukang customer cards held, per main category (all 0 in Plain Mode)."""
    held = eng.customers[seat]
    return [held[k] for k in eng.tukang_kinds]


def deficits(eng: "WaroongEngine", seat: int, menu: int) -> list[int]:
    """Missing cards per main category after paying with real ingredient cards."""
    h = eng.hands[seat]
    return [max(0, r - h[c]) for c, r in enumerate(eng.cat.menus[menu].dish.requires)]


def payment_options(eng: "WaroongEngine", seat: int, menu: int) -> tuple[list[bool], list[bool]]:
    """Which ``go_boy_for`` (0 none, 1 + category) and ``supplement`` (0 none, 1 + index) choices can pay."""
    dish = eng.cat.menus[menu].dish
    h = eng.hands[seat]
    held = eng.customers[seat]
    need = 0
    over_cat = -1
    d = [0] * 5
    for c, r in enumerate(dish.requires):
        miss = r - h[c]
        if miss > 0:
            d[c] = miss
            over = miss - held[eng.tukang_kinds[c]]
            if over > 0:
                need += over
                over_cat = c
    pay = [need == 0]
    gb = eng.go_boy[seat]
    for c in range(5):
        pay.append(gb and d[c] >= 1 and (need == 0 or (need == 1 and over_cat == c)))
    sup = [True]
    base = len(dish.requires)
    can_supplement = eng.token_supply > 0
    plain_ok = not dish.icons and eng.power(seat) == PLAIN_MENU_SUPPLEMENT_POWER
    for k in range(len(eng.cat.supplements)):
        sup.append(can_supplement and h[base + k] > 0 and (k in dish.icons or plain_ok))
    return pay, sup


def can_cook(eng: "WaroongEngine", seat: int) -> bool:
    for slot in cookable_slots(eng):
        menu = eng.display[slot]
        if menu != EMPTY and any(payment_options(eng, seat, menu)[0]):
            return True
    return False


def cook(eng: "WaroongEngine", seat: int, slot: int, go_boy_for: int, supplement: int, result: StepResult) -> None:
    cat = eng.cat
    menu = eng.display[slot]
    dish = cat.menus[menu].dish
    h = eng.hands[seat]
    paid_wild = []
    for c, r in enumerate(dish.requires):
        real = min(h[c], r)
        h[c] -= real
        miss = r - real
        if go_boy_for == c + 1 and miss:
            miss -= 1
            eng.go_boy[seat] = False
            eng.go_boy_supply += 1
            paid_wild.append("Go Boy!")
        if miss:
            kind = eng.tukang_kinds[c]
            eng.customers[seat][kind] -= miss
            eng.customer_discard[kind] += miss
            paid_wild.append(f"{miss} {cat.customers[kind].name}")
    gained = 0
    if supplement:
        h[len(dish.requires) + supplement - 1] -= 1
        gained = min(cat.components["supplement_bonus_tokens"], eng.token_supply)
        eng.token_supply -= gained
        eng.tokens[seat] += gained
    eng.piles[seat].append(menu)
    eng.cooked_this_turn.append(menu)
    eng.cooked_supplements.append(supplement)
    who = eng.agents[seat]
    extra = f" with {cat.supplements[supplement - 1].name} (+{gained} VP tokens)" if supplement else ""
    wild = f", wilds: {', '.join(paid_wild)}" if paid_wild else ""
    result.events.append(f"{who} cooks {dish.name} ({dish.vp} VP){extra}{wild}")
    if eng.customers_on:
        customers.draw(eng, seat)
        characters.offer_extra_customer(eng, seat, dish)
    take_from_display(eng, slot)


def take_from_display(eng: "WaroongEngine", slot: int) -> None:
    """Remove the card in ``slot``, slide the cards on its left one place right, reveal into slot 0."""
    d = eng.display
    new = eng.menu_deck.pop() if eng.menu_deck else EMPTY
    eng.display = [new] + d[:slot] + d[slot + 1:]
    if new != EMPTY and not eng.menu_deck:
        end_of_game.last_card_revealed(eng)


def end_turn(eng: "WaroongEngine", seat: int, result: StepResult) -> None:
    """Stop cooking. Pak Bas takes a Go Boy! after cooking exactly one menu of 2 or 3 ingredients."""
    characters.pak_bas_takes_go_boy(eng, seat, result)
    result.events.append(f"{eng.agents[seat]} ends the turn")
    advance_turn(eng, result)


def advance_turn(eng: "WaroongEngine", result: StepResult) -> None:
    """The turn passes left; after the last turn of the round the Cooking phase is over."""
    eng.turns_taken += 1
    eng.cooked_this_turn = []
    eng.cooked_supplements = []
    eng.mbok_exchanges = [0] * eng.n
    eng.thefts = [[0, 0, 0] for _ in range(eng.n)]
    if eng.turns_taken < eng.n:
        eng.turn = (eng.turn + 1) % eng.n
        return
    # Every player has cooked: the game ends, or Cleanup starts the next round.
    if not end_of_game.ends_after_cooking_phase(eng, result):
        cleanup.cleanup(eng, result)
