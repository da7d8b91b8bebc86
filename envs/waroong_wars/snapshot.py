"""Checking a Waroong Wars snapshot before the engine adopts it (issue 12).

:func:`check_state` reads a ``state_dict()`` like a schema and returns the
engine fields it holds; :meth:`WaroongEngine.load_state_dict` assigns them only
after every check passed, so a refused snapshot changes nothing. A bad value
raises :class:`~envs.core.errors.SnapshotError` naming the field (a path such
as ``state.hands[2][5]``) and what is allowed. The rules, in the order checked:

1. *Config* (``config.*``): exactly the engine's options, each a legal value
   (players 3-5, the four variant switches as booleans, not Plain and
   Character Mode together, ``round_limit`` 1-40, ``vp_shaping`` 0-1).
2. *Keys and types* (``state.*``): exactly :data:`STATE_KEYS`; integers are
   integers (never bools or floats), booleans booleans; every per-seat field
   has one entry per seat, every count row one count per ingredient type (9)
   or customer kind (14); ids in range: menu cards 0..31 (display: -1 =
   empty), ingredient types 0..8, customer kinds 0..13, characters 0..4 (-1
   outside Character Mode), seats 0..players-1; phase, ``ended_by`` and the
   pending decision one of the engine's.
3. *Components, as the rulebook and data count them*: each menu card at most
   once across menu deck, display, scoring piles, and ``menu_deck_size``
   (18/24/30) of them in all (the rest stay in the box); the 39 ingredient
   cards (7 per main category, 1 per supplement) across ingredient deck,
   packs and hands (in the Cooking phase the cards cooked with this round are
   used and untracked, so there at most that many, and the used ones no more
   than the menus in the scoring piles require); the 32 customer cards per
   kind across customer deck, discard pile and the players (none in Plain
   Mode); 18 Extra VP tokens and 5 Go Boy! cards across supply and players;
   distinct characters (Character Mode). What only play brings: at most 2
   tokens per menu in a player's pile, at most one customer card out of the
   deck per cooked menu (two with Bu Prasojo at the table), at most one Go
   Boy! held per cooking turn finished, nothing cooked before the first
   Cooking phase, customer cards only with a player who has cooked, no
   score-only customer (Primadona ... Preman) ever discarded, this turn's
   Mbok Bakul exchanges and Maling / Perayu / Hansip outcomes paid by cards
   lying in the discard pile.
4. *Phase, round and turn*: ``round`` 1..round_limit; ``last_round`` is
   exactly "the menu deck is empty"; empty display slots only once the deck
   is empty, and only on the left. Shopping: picks 0..4 made, not everyone
   has picked (the packs would have passed), each pack and hand as large as
   the picks say, the undealt deck 39 - 6 x players, the marker's holder on
   turn, nothing cooked or pending, no empty display slot. Cooking / game
   over: the packs empty, picks 6, the deck 39 - 6 x players less Cak
   Londho's extra card; ``turn`` is the marker's holder plus the turns taken
   (Cooking: 0..players-1 taken; over: all taken, the last player's turn,
   ``ended_by`` saying which end applied and agreeing with ``last_round`` and
   the round limit); ``cooked_this_turn`` is the end of the active player's
   scoring pile; before the round's first cook every ingredient card is in
   the deck or a hand; a seat whose turn has not come holds at most its
   dealt cards (+1 with Cak Londho) and, in round 1, no menu, token or Go Boy!.
5. *Pending decision* (Cooking only, customers in play): a Maling/Perayu was
   played by the player on turn (its card lies in the discard pile) on another
   player holding an ingredient / customer card to steal; a Bu Prasojo
   decision belongs to Bu Prasojo on turn, just after cooking a menu of 5 or 6
   ingredients, with a customer card left to draw.
6. *Tick*: between the fewest and the most steps legal play needs to reach
   the state (5 draft steps and one turn-ending step per player in each
   finished round and the steps of this round so far, one step per cooked
   menu; at most 6 steps per cooked menu on top of those).

Every check is O(size of the state); the common case (plain ints in range) is
checked per list, the item-by-item path only runs to name the bad item.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, Any, Mapping

from envs.core.errors import ConfigError, SnapshotError
from envs.core.snapshot import Checker
from envs.waroong_wars.cards import load_catalog
from envs.waroong_wars.options import GAME_OPTIONS, NOT_RULES
from envs.waroong_wars.rules.characters import BIG_MENU_CUSTOMER_POWER, EXTRA_INGREDIENT_POWER
from envs.waroong_wars.rules.cooking import EMPTY
from envs.waroong_wars.rules.end_of_game import DECK_END, LIMIT_END

if TYPE_CHECKING:  # pragma: no cover
    from envs.waroong_wars.engine import WaroongEngine

STATE_KEYS = (
    "phase", "round", "first", "menu_deck", "display", "last_round", "ingredient_deck", "packs", "picked",
    "pick_no", "hands", "go_boy", "go_boy_supply", "customers", "customer_deck", "customer_discard", "tokens",
    "token_supply", "piles", "characters", "turn", "turns_taken", "cooked_this_turn", "cooked_supplements",
    "mbok_exchanges", "thefts", "pending", "ended_by",
)
PHASES = ("draft", "cook", "over")
THEFTS = ("maling", "perayu")
CONFIG_KEYS = tuple(k for k in GAME_OPTIONS.names() if k not in NOT_RULES)
_CONFIG_KEYSET = frozenset(CONFIG_KEYS)
_SWITCHES = ("no_memory_chef", "plain_mode", "character_mode", "constraint_mode")
_PLAYERS = GAME_OPTIONS.options["players"].choices
_ROUNDS = (GAME_OPTIONS.options["round_limit"].low, GAME_OPTIONS.options["round_limit"].high)
_STATE_KEYSET = frozenset(STATE_KEYS)
#: Most steps one cooked menu can add (the cook, Bu Prasojo's answer, two customer uses with answers).
STEPS_PER_MENU = 6


@dataclass(frozen=True)
class Limits:
    """What the rulebook and the data fix for one player count (built once per count)."""

    n: int
    menu_cards: int  # menu card ids 0..menu_cards-1
    menu_deck_size: int  # cards in play (deck + display + piles)
    slots: int
    deal: int  # cards per pack
    ingredients: dict[str, int]  # cards per ingredient type (by name)
    ingredient_list: list[int]  # the same per type index
    n_types: int
    ingredient_cards: int
    customers: dict[str, int]  # cards per customer kind (by name)
    customer_list: list[int]  # the same per kind index
    n_kinds: int
    customer_cards: int
    tokens: int
    supplement_bonus: int  # tokens per supplement added
    go_boys: int
    characters: int
    powers: tuple[str, ...]  # per character index
    big_menus: frozenset[int]  # menu ids of 5 or 6 ingredients (Bu Prasojo)
    menu_uses: tuple[tuple[int, ...], ...]  # per menu id: most cards of each ingredient type a cook uses
    supplements: int
    type_names: tuple[str, ...]
    kind_names: tuple[str, ...]
    mbok_kind: int  # customer kind index of Mbok Bakul
    theft_kinds: tuple[int, int, int]  # customer kind indices of Maling, Perayu, Hansip
    mbok_cards: int
    score_kinds: tuple[int, ...]  # customer kinds only scored, never played (never discarded)


@lru_cache(maxsize=None)
def limits(n: int) -> Limits:
    cat = load_catalog()
    c = cat.components
    types = cat.ingredient_names
    kinds = tuple(k.name for k in cat.customers)
    return Limits(
        n=n, menu_cards=len(cat.menus), menu_deck_size=c["menu_deck_size"][n], slots=c["display_size"],
        deal=c["cards_dealt_per_player"],
        ingredients={types[t]: cat.ingredient_deck.count(t) for t in range(cat.n_types)},
        ingredient_list=[cat.ingredient_deck.count(t) for t in range(cat.n_types)], n_types=cat.n_types,
        ingredient_cards=len(cat.ingredient_deck),
        customers={k.name: k.count for k in cat.customers}, customer_list=[k.count for k in cat.customers],
        n_kinds=len(cat.customers),
        customer_cards=len(cat.customer_deck),
        tokens=c["extra_vp_tokens"], supplement_bonus=c["supplement_bonus_tokens"], go_boys=c["go_boy_cards"],
        characters=len(cat.characters), powers=tuple(ch.power for ch in cat.characters),
        big_menus=frozenset(m.id for m in cat.menus if m.dish.size in (5, 6)),
        menu_uses=tuple(m.dish.requires + (1,) * len(cat.supplements) for m in cat.menus),
        supplements=len(cat.supplements),
        type_names=types, kind_names=kinds,
        mbok_kind=cat.customer("mbok_bakul").index,
        theft_kinds=tuple(cat.customer(k).index for k in ("maling", "perayu", "hansip")), mbok_cards=cat.customer("mbok_bakul").count,
        score_kinds=tuple(k.index for k in cat.customers if k.ability == "score"),
    )


# ---------------------------------------------------------------------- fast typed lists
# Each helper accepts the common case (plain ints in range) with a few C-level passes and otherwise
# runs the Checker's item-by-item check, which names the bad item (or accepts, e.g., numpy ints).
_INT, _BOOL, _LIST = {int}, {bool}, {list}


def _ints(v: Checker, value: Any, field: str, low: int, high: int, length: int | None = None,
          max_len: int | None = None) -> list[int]:
    """``v.int_list(value, field, low, high, length=, max_len=)``."""
    if (type(value) is list and (length is None or len(value) == length)
            and (max_len is None or len(value) <= max_len)):
        if not value:
            return []
        if set(map(type, value)) == _INT and low <= min(value) and max(value) <= high:
            return value[:]
    return v.int_list(value, field, low, high, length=length, max_len=max_len)


def _bools(v: Checker, value: Any, field: str, length: int) -> list[bool]:
    """``v.bool_list(value, field, length)``."""
    if type(value) is list and len(value) == length and set(map(type, value)) == _BOOL:
        return value[:]
    return v.bool_list(value, field, length)


def _rows(v: Checker, value: Any, field: str, n: int, width: int, high: int, what: str) -> list[list[int]]:
    """One row of ``width`` counts 0..high per seat."""
    if type(value) is list and len(value) == n and set(map(type, value)) == _LIST and set(map(len, value)) == {width}:
        flat = list(chain.from_iterable(value))
        if set(map(type, flat)) == _INT and min(flat) >= 0 and max(flat) <= high:
            return [row[:] for row in value]
    if not (isinstance(value, list) and len(value) == n):
        raise v.fail(field, f"{field} must be {n} rows (one per seat) of {width} {what}", value)
    return [v.int_list(row, f"{field}[{s}]", 0, high, length=width) for s, row in enumerate(value)]


def _int(v: Checker, value: Any, field: str, low: int, high: int) -> int:
    """``v.int(value, field, low, high)``."""
    if type(value) is int and low <= value <= high:
        return value
    return v.int(value, field, low, high)


def _tally(items: list[int], width: int) -> list[int]:
    """Counts per id 0..width-1."""
    return list(map(items.count, range(width)))


def _named(counts: list[int], names: tuple[str, ...]) -> dict[str, int]:
    return dict(zip(names, counts))


# ---------------------------------------------------------------------- config
def check_config(config: Mapping[str, Any]) -> None:
    """The engine's part of the env config (``snapshot["config"]``), as the options allow it."""
    c = config
    if (type(c) is dict and c.keys() == _CONFIG_KEYSET and type(c["players"]) is int and c["players"] in _PLAYERS
            and set(map(type, map(c.__getitem__, _SWITCHES))) == _BOOL and not (c["plain_mode"] and c["character_mode"])
            and type(c["round_limit"]) is int and _ROUNDS[0] <= c["round_limit"] <= _ROUNDS[1]
            and type(c["vp_shaping"]) in (int, float) and 0.0 <= c["vp_shaping"] <= 1.0):
        return  # the common case, checked in one expression; below, the same rules one by one
    v = Checker("config")
    v.dict(config, "", keys=CONFIG_KEYS)
    for key in CONFIG_KEYS:
        opt = GAME_OPTIONS.options[key]
        try:
            opt.check(config[key], GAME_OPTIONS.owner)
        except ConfigError:
            raise v.fail(key, f"must be {opt.allowed_text()}", config[key]) from None
    v.require(not (config["plain_mode"] and config["character_mode"]), "character_mode",
              "must be false with plain_mode (Plain Mode plays without characters)", config["character_mode"])


# ---------------------------------------------------------------------- state
def check_state(eng: "WaroongEngine", state: Mapping[str, Any], tick: int) -> dict[str, Any]:
    """Check ``state`` (a ``state_dict()``) fully against ``eng``'s config; return the fields to set.

    Reads nothing from ``eng`` but what its config fixes (seat count, variants, catalog). Consistency
    rules are written ``if not <rule>: raise v.fail(field, what is allowed, value)``."""
    v = Checker("state")
    L = limits(eng.n)
    n, nt, nk, slots, deal = L.n, L.n_types, L.n_kinds, L.slots, L.deal
    seat, menu_id, in_play = n - 1, L.menu_cards - 1, L.menu_deck_size
    if not (type(state) is dict and state.keys() == _STATE_KEYSET):
        v.dict(state, "", keys=STATE_KEYS)

    # ------------------------------------------------------------ 2. types, ranges, ids
    phase = v.str(state["phase"], "phase", PHASES)
    rnd = _int(v, state["round"], "round", 1, eng.round_limit)
    first = _int(v, state["first"], "first", 0, seat)
    turn = _int(v, state["turn"], "turn", 0, seat)
    turns_taken = _int(v, state["turns_taken"], "turns_taken", 0, n)
    pick_no = _int(v, state["pick_no"], "pick_no", 0, deal)
    last_round = v.bool(state["last_round"], "last_round")
    menu_deck = _ints(v, state["menu_deck"], "menu_deck", 0, menu_id, max_len=in_play - slots)
    display = _ints(v, state["display"], "display", EMPTY, menu_id, length=slots)
    piles = [_ints(v, p, f"piles[{s}]", 0, menu_id, max_len=in_play)
             for s, p in enumerate(v.list(state["piles"], "piles", length=n))]
    cooked = _ints(v, state["cooked_this_turn"], "cooked_this_turn", 0, menu_id, max_len=in_play)
    cooked_sups = _ints(v, state["cooked_supplements"], "cooked_supplements", 0, L.supplements)
    if len(cooked_sups) != len(cooked):
        raise v.fail("cooked_supplements", f"must hold one entry (0 none, 1 + supplement) per menu of "
                     f"cooked_this_turn ({len(cooked)})", cooked_sups)
    exchanges = _ints(v, state["mbok_exchanges"], "mbok_exchanges", 0, 2 * L.mbok_cards, length=n)
    thefts = _rows(v, state["thefts"], "thefts", n, 3, L.customer_cards, "counts (ingredient cards stolen, "
                   "customer cards stolen, cancelled by Hansip)")
    ingredient_deck = _ints(v, state["ingredient_deck"], "ingredient_deck", 0, nt - 1, max_len=L.ingredient_cards)
    packs = _rows(v, state["packs"], "packs", n, nt, deal, "ingredient counts")
    picked = _bools(v, state["picked"], "picked", n)
    hands = _rows(v, state["hands"], "hands", n, nt, L.ingredient_cards, "ingredient counts")
    go_boy = _bools(v, state["go_boy"], "go_boy", n)
    go_boy_supply = _int(v, state["go_boy_supply"], "go_boy_supply", 0, L.go_boys)
    customers = _rows(v, state["customers"], "customers", n, nk, L.customer_cards, "customer counts")
    customer_deck = _ints(v, state["customer_deck"], "customer_deck", 0, nk - 1, max_len=L.customer_cards)
    customer_discard = _ints(v, state["customer_discard"], "customer_discard", 0, L.customer_cards, length=nk)
    tokens = _ints(v, state["tokens"], "tokens", 0, L.tokens, length=n)
    token_supply = _int(v, state["token_supply"], "token_supply", 0, L.tokens)
    characters = _ints(v, state["characters"], "characters", -1, L.characters - 1, length=n)
    ended_by = v.str(state["ended_by"], "ended_by", ("", DECK_END, LIMIT_END))
    pending = _pending_shape(v, state["pending"], seat)

    # ------------------------------------------------------------ 3. components
    # Menu cards: each at most once in deck, display and piles; menu_deck_size of them in all.
    menus = menu_deck + [m for m in display if m != EMPTY]
    for p in piles:
        menus += p
    if len(set(menus)) != len(menus):
        _duplicate_menu(v, menu_deck, display, piles)
    if len(menus) != in_play:
        v.total({"menu cards": len(menus)}, {"menu cards": in_play}, "menu_deck",
                f"menu cards in deck, display and scoring piles ({in_play} with {n} players)")
    # Ingredient cards per type: deck + packs + hands (Cooking: the cards cooked this round are used).
    held = [sum(col) for col in zip(_tally(ingredient_deck, nt), *packs, *hands)]
    if phase == "draft":
        if held != L.ingredient_list:
            v.total(_named(held, L.type_names), L.ingredients, "hands", "ingredient cards in deck, packs and hands")
    else:
        if any(map(int.__gt__, held, L.ingredient_list)):
            raise v.fail("hands", f"at most {L.ingredients} ingredient cards in deck and hands together (the "
                         f"rulebook's counts; the others are used this round)", _named(held, L.type_names))
        # The used ones paid for menus cooked this round (the ends of the piles): at most what every menu
        # in the piles requires per category, and one supplement per menu.
        used = list(map(int.__sub__, L.ingredient_list, held))
        cooked_all = list(chain.from_iterable(piles))
        cap = [sum(col) for col in zip(*map(L.menu_uses.__getitem__, cooked_all))] if cooked_all else [0] * nt
        if any(map(int.__gt__, used, cap)) or sum(used[len(L.menu_uses[0]) - L.supplements:]) > len(cooked_all):
            raise v.fail("hands", f"the cards missing from deck and hands (used this round) must not exceed what "
                         f"the menus in the scoring piles require ({_named(cap, L.type_names)}, one "
                         f"supplement per menu)", _named(used, L.type_names))
    # This turn's supplements (one card of each): each added at most once, not held by anyone now, and
    # each earned at least one token of the player on turn (a supplement is masked without tokens).
    added = [k for k in cooked_sups if k]
    if added:
        if len(set(added)) != len(added):
            raise v.fail("cooked_supplements", "each supplement card is added at most once (one card of each)",
                         cooked_sups)
        sup0 = nt - L.supplements
        if any(held[sup0 + k - 1] for k in added):
            raise v.fail("cooked_supplements", "a supplement added this turn is used: it cannot be in the deck "
                         "or a hand", cooked_sups)
        if len(added) > tokens[turn]:
            raise v.fail("cooked_supplements", f"{len(added)} supplement(s) added this turn, but seat {turn} "
                         f"(on turn) holds only {tokens[turn]} Extra VP token(s)", cooked_sups)
    # Customer cards per kind: deck + discard pile + players (none in Plain Mode).
    kinds = [sum(col) for col in zip(_tally(customer_deck, nk), customer_discard, *customers)]
    if kinds != (L.customer_list if eng.customers_on else [0] * nk):
        v.total(_named(kinds, L.kind_names), L.customers if eng.customers_on else {}, "customers",
                "customer cards in deck, discard pile and hands" + ("" if eng.customers_on else " (Plain Mode: none)"))
    if token_supply + sum(tokens) != L.tokens:
        v.total({"tokens": token_supply + sum(tokens)}, {"tokens": L.tokens}, "tokens",
                "Extra VP tokens in supply and with the players")
    if go_boy_supply + sum(go_boy) != L.go_boys:
        v.total({"Go Boy! cards": go_boy_supply + sum(go_boy)}, {"Go Boy! cards": L.go_boys}, "go_boy",
                "Go Boy! cards in supply and with the players")
    if any(exchanges):
        # (a played card lies face up in the discard pile: one still in the deck had counted as played)
        used_mbok = customer_discard[L.mbok_kind]
        if phase != "cook" or exchanges[turn] or sum(exchanges) > 2 * used_mbok:
            raise v.fail("mbok_exchanges", f"Mbok Bakul exchanges of this turn: only in the Cooking phase, never with "
                         f"the seat on turn ({turn}) itself, at most 2 cards per Mbok Bakul card played "
                         f"({used_mbok} in the discard pile)", exchanges)
    if any(map(any, thefts)):
        # Each outcome spent a card out of the hands: a Maling (ingredient), a Perayu (customer); a
        # cancellation a Maling or Perayu and the target's Hansip.
        out = [customer_discard[k] for k in L.theft_kinds]  # played: maling, perayu, hansip in the discard pile
        col = [sum(row[i] for row in thefts) for i in range(3)]
        if (phase != "cook" or any(thefts[turn]) or col[0] > out[0] or col[1] > out[1] or col[2] > out[2]
                or sum(col) > out[0] + out[1]):
            raise v.fail("thefts", f"this turn's Maling / Perayu outcomes: only in the Cooking phase, never against "
                         f"the seat on turn ({turn}), each spent a Maling / Perayu (and a cancellation a Hansip) "
                         f"that lies in the discard pile now (there: Maling {out[0]}, Perayu {out[1]}, "
                         f"Hansip {out[2]})", thefts)
    for k in L.score_kinds:  # only scored: never played, so never discarded
        if customer_discard[k]:
            raise v.fail(f"customer_discard[{k}]", f"must be 0: {L.kind_names[k]} cards are only scored, never "
                         "played (so never discarded)", customer_discard[k])
    for s in range(n):  # customer cards come from cooking (a draw per cook, or a Perayu drawn so)
        if any(customers[s]) and not piles[s]:
            raise v.fail(f"customers[{s}]", f"must be empty: seat {s} has cooked nothing (piles[{s}] is empty), "
                         "and customer cards come from cooking", customers[s])
    empties = display.count(EMPTY)
    # What only cooking brings: 2 Extra VP tokens per cooked menu at most, and one customer card drawn
    # per cook (Bu Prasojo: one more per cook at most): cards out of the customer deck came from draws.
    bonus = L.supplement_bonus
    for s in range(n):
        if tokens[s] > bonus * len(piles[s]):
            raise v.fail(f"tokens[{s}]", f"at most {bonus} per menu cooked ({len(piles[s])} in piles[{s}])",
                         tokens[s])
    cooks = sum(map(len, piles))
    draws = cooks
    if any(c >= 0 and L.powers[c] == BIG_MENU_CUSTOMER_POWER for c in characters):
        draws *= 2
    if L.customer_cards - len(customer_deck) > draws and eng.customers_on:
        raise v.fail("customer_deck", f"must hold at least {L.customer_cards - draws} cards: only {draws} can "
                     "have been drawn (one per cooked menu, Bu Prasojo one more)", len(customer_deck))
    turns_done = (rnd - 1) * n + (0 if phase == "draft" else turns_taken)
    if sum(go_boy) > turns_done:
        raise v.fail("go_boy", f"at most {turns_done} held: a Go Boy! is taken at the end of a cooking turn "
                     f"({turns_done} finished so far)", go_boy)
    if phase == "draft" and rnd == 1 and cooks:
        raise v.fail("piles", "must be empty in the first round's Shopping phase (nothing cooked yet)", piles)
    if eng.characters_on:
        if min(characters) < 0 or len(set(characters)) != n:
            v.int_list(characters, "characters", 0, L.characters - 1, length=n, unique=True)
    elif characters != [-1] * n:
        raise v.fail("characters", "must all be -1 outside Character Mode", characters)

    # ------------------------------------------------------------ 4. phase, round, turn
    if last_round != (not menu_deck):
        raise v.fail("last_round", f"must be {not menu_deck}: true exactly when the menu deck is empty "
                     "(the last card revealed)", last_round)
    if empties and (menu_deck or display[:empties] != [EMPTY] * empties):
        raise v.fail("display", "empty slots (-1) only once the menu deck is empty, and only on the left "
                     "(slot 0 is refilled first)", display)
    londho = any(c >= 0 and L.powers[c] == EXTRA_INGREDIENT_POWER for c in characters)
    undealt = L.ingredient_cards - n * deal
    if phase == "draft":
        if pick_no > deal - 2:
            raise v.fail("pick_no", f"must be 0..{deal - 2} in the Shopping phase (the last card is taken "
                         "automatically)", pick_no)
        if all(picked):
            raise v.fail("picked", "must not be all true (the packs pass once everyone has picked)", picked)
        for s in range(n):
            made = pick_no + picked[s]
            if sum(packs[s]) != deal - made:
                raise v.fail(f"packs[{s}]", f"must hold {deal - made} cards after {made} pick(s)", packs[s])
            if sum(hands[s]) != made:
                raise v.fail(f"hands[{s}]", f"must hold the {made} card(s) picked", hands[s])
        if len(ingredient_deck) != undealt:
            raise v.fail("ingredient_deck", f"must hold the {undealt} undealt cards during Shopping",
                         len(ingredient_deck))
        if not menu_deck:
            raise v.fail("menu_deck", "must not be empty in the Shopping phase (the game ends in the round "
                         "in which the last menu card is revealed)", menu_deck)
        if turn != first:
            raise v.fail("turn", f"must be {first} (the First Cooking marker) during Shopping", turn)
        if turns_taken or cooked:
            raise v.fail("turns_taken" if turns_taken else "cooked_this_turn", "must be 0 / empty during Shopping",
                         turns_taken or cooked)
    else:
        if pick_no != deal or any(picked) or any(map(any, packs)):
            field, value = (("pick_no", pick_no) if pick_no != deal else ("picked", picked) if any(picked)
                            else ("packs", packs))
            raise v.fail(field, f"after Shopping pick_no is {deal}, picked all false and the packs empty", value)
        left = undealt - londho
        if len(ingredient_deck) != left:
            raise v.fail("ingredient_deck", f"must hold the {left} undealt cards after Shopping"
                         + (" (Cak Londho took one)" if londho else ""), len(ingredient_deck))
        if phase == "cook":
            if turns_taken >= n:
                raise v.fail("turns_taken", f"must be 0..{n - 1} in the Cooking phase", turns_taken)
            if turn != (first + turns_taken) % n:
                raise v.fail("turn", f"must be {(first + turns_taken) % n}: the marker's holder {first} plus "
                             f"{turns_taken} turn(s) taken", turn)
            if cooked and piles[turn][len(piles[turn]) - len(cooked):] != cooked:
                raise v.fail("cooked_this_turn", f"must be the last {len(cooked)} menu(s) of the scoring pile "
                             f"of seat {turn} (on turn)", cooked)
            if turns_taken == 0 and not cooked and held != L.ingredient_list:
                v.total(_named(held, L.type_names), L.ingredients, "hands", "ingredient cards in deck and hands "
                        "before the round's first cook (none used yet)")
            for k in range(turns_taken + 1, n):  # seats whose turn has not come: their dealt cards, less thefts
                s = (first + k) % n
                most_held = deal + (characters[s] >= 0 and L.powers[characters[s]] == EXTRA_INGREDIENT_POWER)
                if sum(hands[s]) > most_held:
                    raise v.fail(f"hands[{s}]", f"at most {most_held} cards: seat {s}'s turn has not come, and a "
                                 "hand only grows in its own turn", sum(hands[s]))
                if rnd == 1:
                    owned = {"piles": piles[s], "tokens": tokens[s], "go_boy": go_boy[s]}
                    for field, value in owned.items():  # (customer cards: only with a pile, checked above)
                        if value:
                            raise v.fail(f"{field}[{s}]", f"seat {s} owns nothing before its first turn (round 1): "
                                         "no menu, Extra VP token or Go Boy!", value)
        else:
            if turns_taken != n:
                raise v.fail("turns_taken", f"must be {n} once the game is over", turns_taken)
            if turn != (first + n - 1) % n:
                raise v.fail("turn", f"must be {(first + n - 1) % n} (the round's last cook) once the game is "
                             "over", turn)
            if cooked:
                raise v.fail("cooked_this_turn", "must be empty once the game is over", cooked)
    if phase == "over":
        end = DECK_END if last_round else LIMIT_END
        if ended_by != end:
            raise v.fail("ended_by", f"must be {end!r} (last_round is {last_round})", ended_by)
        if not last_round and rnd != eng.round_limit:
            raise v.fail("round", f"must be the round limit {eng.round_limit} when the game ended by it", rnd)
    elif ended_by:
        raise v.fail("ended_by", "must be '' while the game runs", ended_by)

    # ------------------------------------------------------------ 5. the pending decision
    if pending is not None:
        if phase != "cook" or not eng.customers_on:
            raise v.fail("pending", "must be null outside the Cooking phase and in Plain Mode", pending)
        if pending["kind"] == "theft":
            ability, attacker, target = pending["ability"], pending["attacker"], pending["target"]
            if attacker != turn:
                raise v.fail("pending.attacker", f"must be the seat on turn ({turn})", attacker)
            if target == attacker:
                raise v.fail("pending.target", "must be another seat than the attacker", target)
            if not sum(hands[target] if ability == "maling" else customers[target]):
                raise v.fail("pending.target", f"must hold a{'n ingredient' if ability == 'maling' else ' customer'} "
                             "card to steal", target)
            kind = eng.ability_kind[ability]
            if not customer_discard[kind]:
                raise v.fail("customer_discard", f"must hold the played {L.kind_names[kind]} card while it awaits "
                             "its answer", customer_discard)
        else:
            who = pending["seat"]
            if who != turn:
                raise v.fail("pending.seat", f"must be the seat on turn ({turn})", who)
            if characters[who] < 0 or L.powers[characters[who]] != BIG_MENU_CUSTOMER_POWER:
                raise v.fail("pending.seat", "must be Bu Prasojo's seat", who)
            if not cooked or cooked[-1] not in L.big_menus:
                raise v.fail("pending", "an extra customer decision follows a cook of a menu of 5 or 6 "
                             "ingredients (cooked_this_turn)", cooked)
            if not customer_deck and not any(customer_discard):
                raise v.fail("pending", "an extra customer decision needs a customer card left to draw", pending)

    # ------------------------------------------------------------ 6. tick
    this_round = pick_no if phase == "draft" else deal - 1 + turns_taken
    theft = pending is not None and pending["kind"] == "theft"
    fewest = (rnd - 1) * (deal - 1 + n) + this_round + cooks + theft
    # (the whole current round had been allowed: a tick ahead of the state, whose next states were refused)
    most = (rnd - 1) * (deal - 1 + n) + this_round + theft + STEPS_PER_MENU * cooks
    if not fewest <= tick <= most:
        raise SnapshotError(f"snapshot field tick: must be {fewest}..{most} in round {rnd} with {cooks} menu(s) "
                            f"cooked (the steps legal play takes to get here), got {tick!r}")

    return {
        "phase": phase, "round": rnd, "first": first, "menu_deck": menu_deck, "display": display,
        "last_round": last_round, "ingredient_deck": ingredient_deck, "packs": packs, "picked": picked,
        "pick_no": pick_no, "hands": hands, "go_boy": go_boy, "go_boy_supply": go_boy_supply,
        "customers": customers, "customer_deck": customer_deck, "customer_discard": customer_discard,
        "tokens": tokens, "token_supply": token_supply, "piles": piles, "characters": characters, "turn": turn,
        "turns_taken": turns_taken, "cooked_this_turn": cooked, "cooked_supplements": cooked_sups,
        "mbok_exchanges": exchanges, "thefts": thefts, "pending": pending, "ended_by": ended_by,
    }


def _duplicate_menu(v: Checker, menu_deck: list[int], display: list[int], piles: list[list[int]]) -> None:
    """Raise for the first menu card found twice (the fast check found one)."""
    where: dict[int, str] = {}
    zones = [("menu_deck", menu_deck), ("display", display)] + [(f"piles[{s}]", p) for s, p in enumerate(piles)]
    for zone, ids in zones:
        for j, m in enumerate(ids):
            if m == EMPTY:
                continue
            if m in where:
                raise v.fail(f"{zone}[{j}]", f"menu card {m} is already in {where[m]}: each menu card exists once", m)
            where[m] = f"state.{zone}"


def _pending_shape(v: Checker, value: Any, seat: int) -> dict | None:
    """None, ``{"kind": "theft", "ability", "attacker", "target"}`` or ``{"kind": "extra", "seat"}``."""
    if value is None:
        return None
    v.dict(value, "pending")
    kind = v.str(value.get("kind"), "pending.kind", ("theft", "extra"))
    if kind == "theft":
        v.dict(value, "pending", keys=("kind", "ability", "attacker", "target"))
        return {"kind": kind, "ability": v.str(value["ability"], "pending.ability", THEFTS),
                "attacker": v.int(value["attacker"], "pending.attacker", 0, seat),
                "target": v.int(value["target"], "pending.target", 0, seat)}
    v.dict(value, "pending", keys=("kind", "seat"))
    return {"kind": kind, "seat": v.int(value["seat"], "pending.seat", 0, seat)}
