"""Which actions are legal, and why an action is not.

:func:`compute_mask` is the fast path (the core caches it per state; its cook part is
:func:`fill_cook_mask`, the payment rule of :mod:`.rules.cooking` worked out for all slots at once);
:func:`compute_masks` builds every seat's mask in one pass (at most one player
decides in the Cooking phase, so the others share the read-only noop-only
mask); :func:`illegal_reason` re-derives legality action by action and says
what is wrong. A test checks the two agree on every action of many random states.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from envs.waroong_wars.rules import cooking
from envs.waroong_wars.rules.characters import PLAIN_MENU_SUPPLEMENT_POWER
from envs.waroong_wars.rules.cooking import EMPTY
from envs.waroong_wars.rules.variants import CONSTRAINT_SLOTS, cookable_slots

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine


def _frozen(m: bytearray) -> np.ndarray:
    """A filled mask as a read-only int8 array over its bytes (a caller writing into a mask it was
    given must not change what the engine checks actions against)."""
    a = np.frombuffer(m, np.int8)
    a.flags.writeable = False
    return a


@lru_cache(maxsize=None)
def _noop_only(n_actions: int) -> np.ndarray:
    m = np.zeros(n_actions, dtype=np.int8)
    m[0] = 1
    m.flags.writeable = False
    return m


@lru_cache(maxsize=None)
def _pick_mask(n_actions: int, pick0: int, present: tuple[bool, ...]) -> np.ndarray:
    """The (read-only, shared) mask of a Shopping pick from a pack holding the types marked in ``present``."""
    m = np.zeros(n_actions, dtype=np.int8)
    m[pick0:pick0 + len(present)] = present
    m.flags.writeable = False
    return m


#: bytes.translate table: a count becomes 1 if positive (0 stays 0).
_PRESENT = bytes([0] + [1] * 255)


@lru_cache(maxsize=None)
def pick_masks(n_actions: int, pick0: int) -> dict[bytes, np.ndarray]:
    """Shared (per action table) cache of Shopping pick masks keyed by the pack's types present, as
    bytes (``bytes(pack).translate(_PRESENT)``: one 0/1 byte per ingredient type, at most 512 keys)."""
    return {}


def pick_mask(eng: "WaroongEngine", pack: list[int]) -> np.ndarray:
    """The (read-only, shared) mask of a Shopping pick from ``pack`` (counts per ingredient type)."""
    try:
        key = bytes(pack).translate(_PRESENT)
    except ValueError:  # a count outside 0..255 (only a hand-made state)
        return _pick_mask(eng.n_actions, eng.ix.pick0, tuple(map(bool, pack)))
    masks = eng.pick_masks
    m = masks.get(key)
    if m is None:
        m = masks[key] = _pick_mask(eng.n_actions, eng.ix.pick0, tuple(map(bool, key)))
    return m


def compute_masks(eng: "WaroongEngine") -> list[np.ndarray]:
    """Every seat's legal-action mask (equal to :func:`compute_mask` seat by seat), in one pass."""
    n_actions = eng.n_actions
    noop = _noop_only(n_actions)
    if eng.phase == "draft":
        return [noop if picked else pick_mask(eng, pack) for picked, pack in zip(eng.picked, eng.packs)]
    masks = [noop] * eng.n
    p = eng.pending
    if p is not None:  # only the player who must answer decides
        seat = p["target"] if p["kind"] == "theft" else p["seat"]
    else:
        seat = eng.turn
    masks[seat] = compute_mask(eng, seat)
    return masks


def compute_mask(eng: "WaroongEngine", seat: int) -> np.ndarray:
    """The legal-action mask of ``seat``; masks that only depend on little state are shared read-only arrays.

    A decision's mask is filled as a ``bytearray`` (setting a Python byte is several times cheaper than
    setting a numpy entry) and returned as an int8 array over it."""
    ix = eng.ix
    if eng.phase == "draft":
        if eng.picked[seat]:
            return _noop_only(eng.n_actions)
        return pick_mask(eng, eng.packs[seat])
    p = eng.pending
    if p is not None:
        if p["kind"] == "theft" and seat == p["target"]:
            m = bytearray(eng.n_actions)
            m[ix.respond0] = 1
            m[ix.respond0 + 1] = eng.customers[seat][eng.ability_kind["hansip"]] > 0
            return _frozen(m)
        if p["kind"] == "extra" and seat == p["seat"]:
            m = bytearray(eng.n_actions)
            m[ix.extra0] = m[ix.extra0 + 1] = 1
            return _frozen(m)
        return _noop_only(eng.n_actions)
    if seat != eng.turn:
        return _noop_only(eng.n_actions)
    m = bytearray(eng.n_actions)
    any_cook = fill_cook_mask(eng, seat, m)
    if eng.customers_on:
        held = eng.customers[seat]
        others = [(seat + k) % eng.n for k in range(1, eng.n)]
        if held[eng.ability_kind["perayu"]]:
            for k, o in enumerate(others):
                m[ix.perayu0 + k] = sum(eng.customers[o]) > 0
        if held[eng.ability_kind["maling"]]:
            for k, o in enumerate(others):
                m[ix.maling0 + k] = sum(eng.hands[o]) > 0
        if held[eng.ability_kind["mbok_bakul"]]:
            h = eng.hands[seat]
            ok = [all(h[t] >= give.count(t) for t in give) for give in ix.gives]
            for k, o in enumerate(others):
                size = sum(eng.hands[o])
                base = ix.mbok(k + 1, 0)
                for g, give in enumerate(ix.gives):
                    if ok[g] and size >= len(give):
                        m[base + g] = 1
    if not any_cook and not eng.cooked_this_turn and not eng.go_boy[seat] and eng.go_boy_supply > 0:
        m[ix.take_go_boy] = 1
    m[ix.end_turn] = 1
    return _frozen(m)


def fill_cook_mask(eng: "WaroongEngine", seat: int, mask) -> bool:
    """Set the legal cook actions of ``seat`` in ``mask`` (a numpy array or a bytearray, set entry by
    entry); True if any menu can be cooked.

    The same rule as :func:`.rules.cooking.payment_options` per slot, with what depends only on the seat (hand,
    Tukang counts, Go Boy!, supplements in hand) worked out once for all slots (this runs every
    Cooking step); tests check the mask against the slot-by-slot construction from
    :func:`~.rules.cooking.payment_options` and against :func:`illegal_reason`.
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


def must_decide_reason(eng: "WaroongEngine", seat: int) -> str:
    """Why ``noop`` is not legal for ``seat`` now (it is the one who must decide)."""
    if eng.phase == "draft":
        return "you must pick an ingredient from your pack this tick (noop would stall the draft)"
    p = eng.pending
    if p is not None and p["kind"] == "theft":
        return "you must answer the theft (let it happen, or use Hansip)"
    if p is not None and p["kind"] == "extra":
        return "you must answer the extra-customer offer"
    return "it is your Cooking turn: cook, use a customer, take the Go Boy, or end your turn"


def illegal_reason(eng: "WaroongEngine", seat: int, action: int) -> str | None:
    """None if non-noop ``action`` is legal for ``seat`` now, else why not (for ``noop``, legal
    exactly where the mask says so, see :func:`must_decide_reason`)."""
    ix = eng.ix
    if action == 0:
        return None
    name, params = ix.table.decode(action)
    who = eng.agents
    if eng.phase == "over":
        return "the game is over"
    if eng.phase == "draft":
        if name != "draft_pick":
            return f"it is the Shopping phase (pick {eng.pick_no + 1} of 6): only draft_pick is possible"
        if eng.picked[seat]:
            return "you have already picked from this pack; wait (noop) until every player has picked and the packs pass left"
        t = ix.table.group("draft_pick").params[0][1].index(params["ingredient"])
        if not eng.packs[seat][t]:
            have = [eng.cat.ingredient_types[i] for i, c in enumerate(eng.packs[seat]) if c]
            return f"the pack in front of you holds no {params['ingredient']} card; it holds {have}"
        return None
    if name == "draft_pick":
        return "the Shopping phase is over: picks happen only while drafting"
    p = eng.pending
    if p is not None:
        if p["kind"] == "theft":
            if seat != p["target"]:
                return f"waiting for {who[p['target']]} to answer the {p['ability']} (Hansip or not)"
            if name != "respond_to_theft":
                return f"you are targeted by {p['ability']}: answer with respond_to_theft"
            if params["use_hansip"] and not eng.customers[seat][eng.ability_kind["hansip"]]:
                return "you hold no Hansip card to cancel it with"
            return None
        if seat != p["seat"]:
            return f"waiting for {who[p['seat']]} (Bu Prasojo) to take or decline an extra customer card"
        if name != "extra_customer":
            return "answer extra_customer first: take or decline Bu Prasojo's extra customer card"
        return None
    if name in ("respond_to_theft", "extra_customer"):
        return "nothing to answer: no Maling, Perayu or Bu Prasojo decision is pending"
    if seat != eng.turn:
        return f"it is {who[eng.turn]}'s cooking turn; wait (noop)"
    if name == "end_turn":
        return None
    if name == "take_go_boy":
        if eng.cooked_this_turn:
            return "you cooked this turn: a Go Boy! may not be taken in a turn you cook"
        if eng.go_boy[seat]:
            return "you already hold a Go Boy! (limit 1 per player)"
        if eng.go_boy_supply <= 0:
            return "no Go Boy! card is left in the supply"
        if cooking.can_cook(eng, seat):
            return "you can still cook a menu: a Go Boy! is only for a player who cannot cook"
        return None
    if name == "cook":
        return _cook_reason(eng, seat, action)
    if not eng.customers_on:
        return "Plain Mode: there are no customer cards"
    target = (seat + params["target"]) % eng.n
    kind_name = {"use_perayu": "perayu", "use_maling": "maling", "use_mbok_bakul": "mbok_bakul"}[name]
    kind = eng.ability_kind[kind_name]
    if not eng.customers[seat][kind]:
        return f"you hold no {eng.cat.customers[kind].name} card"
    if name == "use_perayu":
        return None if sum(eng.customers[target]) else f"{who[target]} holds no customer card to steal"
    if name == "use_maling":
        return None if sum(eng.hands[target]) else f"{who[target]} holds no ingredient card to steal"
    give = ix.gives[ix.decode_mbok(action)[1]]
    h = eng.hands[seat]
    short = [eng.cat.ingredient_types[t] for t in sorted(set(give)) if h[t] < give.count(t)]
    if short:
        return f"you do not hold the cards to give ({params['give']}): too few {short}"
    if sum(eng.hands[target]) < len(give):
        return f"{who[target]} holds {sum(eng.hands[target])} ingredient card(s), fewer than the {len(give)} to exchange"
    return None


def _cook_reason(eng: "WaroongEngine", seat: int, action: int) -> str | None:
    ix = eng.ix
    cat = eng.cat
    slot, g, s = ix.decode_cook(action)
    if slot not in cookable_slots(eng):
        return f"Constraint Mode: only the 3 right-most menus (slots {list(CONSTRAINT_SLOTS)}) may be cooked"
    menu = eng.display[slot]
    if menu == EMPTY:
        return f"display slot {slot} is empty (the menu deck is exhausted)"
    dish = cat.menus[menu].dish
    d = cooking.deficits(eng, seat, menu)
    tuk = cooking.tukangs(eng, seat)
    if g:
        c = g - 1
        if not eng.go_boy[seat]:
            return "you hold no Go Boy! card"
        if not d[c]:
            return (f"{dish.name}: no {cat.category_names[c]} card is missing, so the Go Boy! has nothing to "
                    f"substitute there")
        d[c] -= 1
    over = [(cat.category_names[c], d[c], tuk[c]) for c in range(len(d)) if d[c] > tuk[c]]
    if over:
        parts = ", ".join(f"{n} missing {m} with {t} Tukang" for n, m, t in over)
        hint = "" if g or not eng.go_boy[seat] else " (a Go Boy! could cover one missing card)"
        return f"cannot pay for {dish.name}: {parts}{hint}"
    if s:
        sup = cat.supplements[s - 1]
        if not eng.hands[seat][sup.type]:
            return f"you hold no {sup.name} card"
        if eng.token_supply <= 0:
            return "the Extra VP tokens are exhausted, so a supplement would earn nothing"
        if s - 1 not in dish.icons:
            if dish.icons:
                return f"{dish.name} shows no {sup.icon} icon (it shows {[cat.supplements[i].icon for i in dish.icons]})"
            if eng.power(seat) != PLAIN_MENU_SUPPLEMENT_POWER:
                return f"{dish.name} shows no supplement icon (only Jeng Sastro may add one to such a menu)"
    return None
