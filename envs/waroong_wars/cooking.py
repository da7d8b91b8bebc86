"""The Cooking and Cleanup phases: paying for menus, the display, turns, Go Boy!.

Payment (see :mod:`envs.waroong_wars.actions` for why it folds this way):
real ingredient cards of each required category first; the remaining
*deficit* of category ``c`` is paid by the Go Boy! (one card, only for the
category the action names) and by Tukang customers of category ``c``.

The display has 6 slots, 0 = leftmost. Cooking the menu in slot ``s`` takes
it; the cards left of ``s`` slide one place right and a new menu is revealed
into slot 0 (empty, ``-1``, once the deck is exhausted; empty slots thus
gather on the left). Revealing the last card of the menu deck starts the
last round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.engine import StepResult
from envs.waroong_wars import customers, draft

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

EMPTY = -1
CONSTRAINT_SLOTS = (3, 4, 5)  # the 3 right-most slots
ALL_SLOTS = (0, 1, 2, 3, 4, 5)
SMALL_MENU_POWER = "go_boy_after_small_menu"
PLAIN_MENU_SUPPLEMENT_POWER = "supplement_on_plain_menu"
BIG_MENU_CUSTOMER_POWER = "extra_customer_big_menu"


def slots_for(constraint: bool) -> tuple[int, ...]:
    """Display slots that may be cooked from (Constraint Mode: the 3 right-most)."""
    return CONSTRAINT_SLOTS if constraint else ALL_SLOTS


def cookable_slots(eng: "WaroongEngine") -> tuple[int, ...]:
    return slots_for(eng.constraint)


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


def fill_cook_mask(eng: "WaroongEngine", seat: int, mask) -> bool:
    """Set the legal cook actions of ``seat`` in ``mask`` (a numpy array or a bytearray, set entry by
    entry); True if any menu can be cooked.

    The same rule as :func:`payment_options` per slot, with what depends only on the seat (hand,
    Tukang counts, Go Boy!, supplements in hand) worked out once for all slots (this runs every
    Cooking step); tests check the mask against the slot-by-slot construction from
    :func:`payment_options` and against :func:`envs.waroong_wars.legality.illegal_reason`.
    """
    h = eng.hands[seat]
    held = eng.customers[seat]
    tuk = [held[k] for k in eng.tukang_kinds]
    go_boy = eng.go_boy[seat]
    n_main = len(tuk)
    in_hand = ([k for k in range(len(eng.cat.supplements)) if h[n_main + k] > 0]
               if eng.token_supply > 0 else None)
    plain_power = bool(in_hand) and eng.power(seat) == PLAIN_MENU_SUPPLEMENT_POWER
    display = eng.display
    cook_base, menu_needs = eng.cook_base, eng.menu_needs
    any_cook = False
    for slot in cookable_slots(eng):
        menu = display[slot]
        if menu == EMPTY:
            continue
        need = 0  # missing cards that no Tukang covers
        over_cat = -1
        short = []  # categories missing at least one card
        for c, r in menu_needs[menu]:
            miss = r - h[c]
            if miss > 0:
                short.append(c)
                over = miss - tuk[c]
                if over > 0:
                    need += over
                    over_cat = c
        if need == 0:
            go_boys = [0] + [c + 1 for c in short] if go_boy else (0,)
        elif need == 1 and go_boy:
            go_boys = (over_cat + 1,)
        else:
            continue
        any_cook = True
        if in_hand:
            icons = eng.menu_icons[menu]
            sups = [k + 1 for k in in_hand if k in icons or (plain_power and not icons)]
        else:
            sups = ()
        row = cook_base[slot]
        for g in go_boys:
            base = row[g]
            mask[base] = 1
            for sup in sups:
                mask[base + sup] = 1
    return any_cook


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
    who = eng.agents[seat]
    extra = f" with {cat.supplements[supplement - 1].name} (+{gained} VP tokens)" if supplement else ""
    wild = f", wilds: {', '.join(paid_wild)}" if paid_wild else ""
    result.events.append(f"{who} cooks {dish.name} ({dish.vp} VP){extra}{wild}")
    if eng.customers_on:
        customers.draw(eng, seat)
        if (eng.power(seat) == BIG_MENU_CUSTOMER_POWER and dish.size in (5, 6)
                and (eng.customer_deck or any(eng.customer_discard))):
            eng.pending = {"kind": "extra", "seat": seat}
    take_from_display(eng, slot)


def take_from_display(eng: "WaroongEngine", slot: int) -> None:
    """Remove the card in ``slot``, slide the cards on its left one place right, reveal into slot 0."""
    d = eng.display
    new = eng.menu_deck.pop() if eng.menu_deck else EMPTY
    eng.display = [new] + d[:slot] + d[slot + 1:]
    if new != EMPTY and not eng.menu_deck:
        eng.last_round = True


def take_go_boy(eng: "WaroongEngine", seat: int, result: StepResult) -> None:
    eng.go_boy[seat] = True
    eng.go_boy_supply -= 1
    result.events.append(f"{eng.agents[seat]} cannot cook and takes a Go Boy!")
    advance_turn(eng, result)


def end_turn(eng: "WaroongEngine", seat: int, result: StepResult) -> None:
    """Stop cooking. Pak Bas takes a Go Boy! after cooking exactly one menu of 2 or 3 ingredients."""
    if (eng.power(seat) == SMALL_MENU_POWER and len(eng.cooked_this_turn) == 1
            and eng.cat.menus[eng.cooked_this_turn[0]].dish.size in (2, 3)
            and not eng.go_boy[seat] and eng.go_boy_supply > 0):
        eng.go_boy[seat] = True
        eng.go_boy_supply -= 1
        result.events.append(f"{eng.agents[seat]} (Pak Bas) takes a Go Boy!")
    result.events.append(f"{eng.agents[seat]} ends the turn")
    advance_turn(eng, result)


def advance_turn(eng: "WaroongEngine", result: StepResult) -> None:
    eng.turns_taken += 1
    eng.cooked_this_turn = []
    if eng.turns_taken < eng.n:
        eng.turn = (eng.turn + 1) % eng.n
        return
    end_cooking_phase(eng, result)


def end_cooking_phase(eng: "WaroongEngine", result: StepResult) -> None:
    """Everyone has cooked: the game ends (last round, or the round limit) or Cleanup starts the next round."""
    if eng.last_round:
        eng.game_over("menu deck exhausted", result)
        return
    if eng.round >= eng.round_limit:
        eng.game_over("round limit", result)
        return
    # Cleanup: every ingredient card returns to the deck (reshuffled in start_round); the marker passes left.
    eng.first = (eng.first + 1) % eng.n
    eng.round += 1
    result.events.append(f"cleanup: every ingredient card is reshuffled; the First Cooking marker passes to "
                         f"{eng.agents[eng.first]}")
    draft.start_round(eng)
