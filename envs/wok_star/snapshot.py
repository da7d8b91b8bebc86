"""Checking a Wok Star snapshot before the engine uses it.

``WokStarEngine.load_state_dict`` hands the ``state`` part of a snapshot to
:func:`check_state`, which checks it fully and returns every field as a fresh
plain value (nothing shared with the input); only then does the engine adopt
them, so a refused snapshot leaves the engine exactly as it was. A bad value
raises :class:`~envs.core.errors.SnapshotError` naming the field
(``state.die_pip[7]``) and what is allowed.

What is checked, in order:

1. **Schema** (:func:`read_fields`): exactly the fields of ``STATE_FIELDS``;
   each one's type (an int is never a bool nor a float), range and length
   (per player count, per the rulebook's component counts), card ids
   (customers ``0..59``, events ``60..74``), no card twice in one pile.
2. **Phase, day and turn** (:func:`check_phase`): setup phases only on day 0
   and only with ``setup="team"`` (Characters only with Player Powers, the
   third die only with 2 players); who decides now (seat order, the card
   giver, the lead chef, the buyer giving out cards); the days completed.
3. **Cards in play** (:func:`check_cards`): $31 recipes removed with 2
   players; every chef holds a recipe of its setup price; an Ingredient card
   is in play (held or waiting) exactly when a recipe in play needs it, with
   its token and upgrades; the waiting cards; every chef holds a card after
   setup; the Next Day Prep offers.
4. **Components** (:func:`check_components`): dice (pool sizes, each die
   where its state allows), the Fortune cubes (``2 n`` plus the 4 goal
   cubes), the 25 Hustle tokens (pool + covering + supply), every Customer
   card of a recipe in play exactly once (deck, Coupon deck, served, counter)
   and none of the others, every Event card exactly once (with Events).
5. **The day** (:func:`check_day`): timers, washes, lateness, the card at the
   counter, serves, income, money, passes, powers, the reasons.
6. **Derived fields** (:func:`check_history`): the record of completed days,
   the total income, the goal cubes left on the Income Tracker and those
   passed, the win - each must be what it is derived from.
7. **The tick** (:func:`check_tick`, by ``WokStarEngine.from_dict``: a whole snapshot's tick
   against its state; ``load_state_dict`` keeps the engine's own tick): at most
   :func:`~envs.wok_star.engine.max_episode_steps` of the config (no legal game is longer) and
   not before the last log entry's tick (``d{day} t{tick}: ...``).

Every rule is a fact of every state reached by legal play (tests replay
whole games through it); each costs O(size of the state).
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any, Mapping

from envs.core.errors import SnapshotError
from envs.core.snapshot import Checker
from envs.wok_star.cards import DIFFICULTIES, EVENT_CARD_BASE, GameData
from envs.wok_star.rules.open_for_business import SERIALS

SETUP_PHASES = ("choose_character", "distribute", "third_die")
KITCHEN_PHASES = ("open", "wash", "closed")
BETWEEN_DAYS = ("goal_cubes", "prep", "over")
ALL_PHASES = SETUP_PHASES + KITCHEN_PHASES + BETWEEN_DAYS

#: The engine config (the env's game options plus ``seconds_per_tick``), as ``envs/wok_star/env.py`` allows them.
CONFIG_KEYS = ("players", "difficulty", "events", "powers", "setup", "timer_seconds", "patience_seconds", "reward",
               "reward_scale", "seconds_per_tick")


_CONFIGS_OK: set = set()


def check_config(config: Mapping[str, Any]) -> None:
    """The engine's config: exactly the options ``WokStarEnv`` resolves, in their ranges (a snapshot's
    config raises SnapshotError naming the option). Remembered once checked: clones pass it again."""
    try:
        key = tuple((k, type(x), x) for k, x in config.items())  # with the type: 1 is not True
        if key in _CONFIGS_OK:
            return
    except (AttributeError, TypeError):  # not a mapping of plain values: the checks below say so
        key = None
    v = Checker("config")
    c = v.dict(config, "", keys=CONFIG_KEYS, optional=("seconds_per_tick",))
    v.choice(c["players"], "players", (2, 3, 4))
    v.str(c["difficulty"], "difficulty", DIFFICULTIES)
    v.bool(c["events"], "events")
    v.bool(c["powers"], "powers")
    v.str(c["setup"], "setup", ("team", "auto"))
    v.float(c["timer_seconds"], "timer_seconds", 5.0, 120.0)
    v.float(c["patience_seconds"], "patience_seconds", 1.0, 120.0)
    v.str(c["reward"], "reward", ("income", "win_loss", "income+win_loss"))
    v.float(c["reward_scale"], "reward_scale", 0.0, 10.0)
    if "seconds_per_tick" in c:
        v.float(c["seconds_per_tick"], "seconds_per_tick", 0.25, 10.0)
    if key is not None and len(_CONFIGS_OK) < 1024:
        _CONFIGS_OK.add(key)


# ---------------------------------------------------------------------------- the game's constants
class Rules(SimpleNamespace):
    """What the rulebook, the data and the config fix for one engine (sizes, limits, ids)."""


_RULES: dict = {}


def rules_of(eng) -> Rules:
    """The engine's :class:`Rules`, after checking its config (cached per config: clones reuse them)."""
    config = eng.config
    key = (tuple((k, type(x), x) for k, x in config.items()), eng.n, eng.T, eng.P)  # type: 1 is not True
    rules = _RULES.get(key)
    if rules is None:
        check_config(config)
        if len(_RULES) > 256:
            _RULES.clear()
        rules = _RULES[key] = _make_rules(eng)
    return rules


def _make_rules(eng) -> Rules:
    data: GameData = eng.data
    comp = data.components
    n = eng.n
    customers = len(data.customers)
    events = len(data.events)
    chris = [c.id for c in data.characters if c.key == "chris"]
    # A day's income is at most every customer card's income plus every bonus (tip, End of Round card).
    max_income = (sum(c.income for c in data.customers) + sum(c.amount for c in data.characters)
                  + sum(e.amount for e in data.events if e.when == "end_of_round"))
    return Rules(
        data=data, config=eng.config, n=n, T=eng.T, P=eng.P, goals=tuple(eng.goals), top=eng.top,
        events_on=bool(eng.config["events"]), powers_on=bool(eng.config["powers"]),
        team_setup=eng.config["setup"] == "team",
        recipes=len(data.recipes), ingredients=len(data.ingredients), customers=customers, events=events,
        cards=customers + events, characters=len(data.characters), chris=chris[0] if chris else None,
        days=comp["days"], washes=comp["washes_per_day"], start_dice=comp["starting_dice"],
        dice=comp["dice_per_player"], max_dice=comp["max_dice_per_player"], hustle=comp["hustle_tokens"],
        cubes=comp["starting_fortune_cubes"] * n + len(eng.goals), offer=comp["recipe_offer"],
        events_per_day=comp["events_per_day"], setup_prices=tuple(comp["setup_recipe_prices"][str(n)]),
        removed_price=comp["two_player_removed_price"] if n == 2 else None,
        prices=tuple(r.price for r in data.recipes),
        cards_of_recipe=tuple(sum(1 for c in data.customers if c.recipe == r.id) for r in data.recipes),
        max_income=max_income, log=8, open_methods=comp["open_methods"], start_row=comp["ingredient_start_row"],
        third_die=comp["two_player_third_die_pool"],
    )


def check_state(eng, state: Any, fields: tuple[str, ...]) -> dict:
    """Check ``state`` (a snapshot's ``state``, with exactly the keys ``fields``) against ``eng``'s config
    (``n``, ``T``, ``P``, ``goals``, ``top`` are read from ``eng``, nothing else); return the fields as fresh
    plain values."""
    g = rules_of(eng)
    v = Fields("state")
    f = SimpleNamespace(**read_fields(v, state, fields, g))
    check_phase(v, f, g)
    check_cards(v, f, g)
    check_components(v, f, g)
    check_day(v, f, g)
    check_history(v, f, g)
    return vars(f)


# ---------------------------------------------------------------------------- 1. schema
def read_fields(v: Fields, state: Any, fields: tuple[str, ...], g: Rules) -> dict:
    """Every field with its type, range and length; returns fresh plain values."""
    s = v.dict(state, "", keys=fields)
    n = g.n
    card = g.cards - 1  # customers 0..59, events 60..74
    return {
        "phase": v.str(s["phase"], "phase", ALL_PHASES),
        "day": v.int(s["day"], "day", 0, g.days),
        "turn": v.int(s["turn"], "turn", -1, n - 1),
        "decision_k": v.int(s["decision_k"], "decision_k", 0, g.ingredients),
        # -2: removed from the game (2 players, $31), -1: not in the game, else the holder's seat
        "recipe_holder": v.int_list(s["recipe_holder"], "recipe_holder", -2, n - 1, length=g.recipes),
        "offers": v.int_list(s["offers"], "offers", -1, g.recipes - 1, max_len=g.offer),
        "ing_holder": v.int_list(s["ing_holder"], "ing_holder", -1, n - 1, length=g.ingredients),
        "ing_level": v.int_list(s["ing_level"], "ing_level", 0, g.top, length=g.ingredients),
        "ing_unlocked": v.int_list(s["ing_unlocked"], "ing_unlocked", 0, 4, length=g.ingredients),
        "pending": v.int_list(s["pending"], "pending", 0, g.ingredients - 1, max_len=g.ingredients, unique=True),
        "pending_by": v.int(s["pending_by"], "pending_by", -1, n - 1),
        "pool": v.int_list(s["pool"], "pool", g.start_dice, g.max_dice, length=n),
        "die_holder": v.int_list(s["die_holder"], "die_holder", 0, n - 1, length=g.dice * n),
        # -1: not in its owner's pool, 0: in the Dirty Dishes (or gathered), 1-6: unused, showing that value
        "die_pip": v.int_list(s["die_pip"], "die_pip", -1, 6, length=g.dice * n),
        "cubes": v.int_list(s["cubes"], "cubes", 0, g.cubes, length=n),
        "goal_cubes": v.bool_list(s["goal_cubes"], "goal_cubes", length=len(g.goals)),
        "cubes_passed": v.int(s["cubes_passed"], "cubes_passed", 0, len(g.goals)),
        "hustle": v.int(s["hustle"], "hustle", 0, g.hustle),
        "timers": v.int_list(s["timers"], "timers", 0, g.T, length=2),
        "washes": v.int(s["washes"], "washes", 0, g.washes),
        "first_served": v.bool(s["first_served"], "first_served"),
        "late_ticks": v.int(s["late_ticks"], "late_ticks", 0, g.P + 1),
        "deck": v.int_list(s["deck"], "deck", 0, card, max_len=g.cards, unique=True),
        "coupons": v.int_list(s["coupons"], "coupons", 0, g.customers - 1, max_len=g.customers, unique=True),
        "current": v.int(s["current"], "current", -1, card),
        "serial": v.int(s["serial"], "serial", 0, SERIALS - 1),
        "served": _served(v, s["served"], g),
        "income": v.int(s["income"], "income", 0, g.max_income),
        "event_pile": v.int_list(s["event_pile"], "event_pile", 0, g.events - 1, max_len=g.events, unique=True),
        "events_today": v.int_list(s["events_today"], "events_today", 0, g.events - 1, max_len=g.events,
                                   unique=True),
        "events_gone": v.int_list(s["events_gone"], "events_gone", 0, g.events - 1, max_len=g.events, unique=True),
        "character": v.int_list(s["character"], "character", -1, g.characters - 1, length=n),
        "power_used": v.bool_list(s["power_used"], "power_used", length=n),
        "money": v.int(s["money"], "money", 0, g.max_income),
        "passes": v.int(s["passes"], "passes", 0, n),
        "won": v.int(s["won"], "won", -1, 1),
        "end_reason": v.str(s["end_reason"], "end_reason"),
        # [day, income, goal] per completed day
        "history": v.int_rows(s["history"], "history", g.days, ((1, g.days), (0, g.max_income), (0, g.max_income))),
        "log": v.str_list(s["log"], "log", g.log),
        "total_income": v.int(s["total_income"], "total_income", 0, g.days * g.max_income),
        "close_reason": v.str(s["close_reason"], "close_reason"),
        # [day, served on time, served late, customer left at the counter] per completed day
        "service": v.int_rows(s["service"], "service", g.days,
                              ((1, g.days), (0, g.customers), (0, g.customers), (0, 1))),
    }


class Fields(Checker):
    """:class:`Checker` with a fast path for the common case (a plain, valid value): the item-by-item
    checks and their messages run only when something is wrong, so loading stays cheap for ``clone()``."""

    def str_list(self, value, field, max_len):
        if type(value) is list and len(value) <= max_len and set(map(type, value)) <= _STR:
            return list(value)
        return [self.str(x, f"{field}[{k}]") for k, x in enumerate(self.list(value, field, max_len=max_len))]

    def int_rows(self, value, field, max_len, ranges):
        """A list of at most ``max_len`` rows, each a list of ints in ``ranges`` (one ``(low, high)`` per column)."""
        out = []
        width = len(ranges)
        for k, row in enumerate(self.list(value, field, max_len=max_len)):
            if (type(row) is list and len(row) == width and set(map(type, row)) <= _INT
                    and all(lo <= x <= hi for x, (lo, hi) in zip(row, ranges))):
                out.append(list(row))
                continue
            items = self.list(row, f"{field}[{k}]", length=width)
            out.append([self.int(x, f"{field}[{k}][{j}]", lo, hi)
                        for j, (x, (lo, hi)) in enumerate(zip(items, ranges))])
        return out


_INT, _STR = {int}, {str}


def _served(v: Fields, value: Any, g: Rules) -> list[list[list[int]]]:
    """Per chef, the customers served today: ``[card, late]`` (late 0 or 1)."""
    rows = v.list(value, "served", length=g.n)
    return [v.int_rows(row, f"served[{s}]", g.customers, ((0, g.customers - 1), (0, 1))) for s, row in enumerate(rows)]


# ---------------------------------------------------------------------------- 2. phase, day, turn
def check_phase(v: Checker, f: SimpleNamespace, g: Rules) -> None:
    phase, day, turn, n = f.phase, f.day, f.turn, g.n
    if (phase in SETUP_PHASES) != (day == 0):
        raise v.fail("day", f"must be 0 in the setup phases {list(SETUP_PHASES)} and 1..{g.days} after them "
                     f"(phase {phase!r})", day)
    if phase in SETUP_PHASES and not g.team_setup:
        raise v.fail("phase", "setup decisions happen only with setup='team'", phase)
    if phase == "choose_character" and not g.powers_on:
        raise v.fail("phase", "Characters are chosen only with Player Powers (powers=True)", phase)
    if phase == "third_die" and n != 2:
        raise v.fail("phase", "the third die is given only in a 2-player game", phase)
    if phase in ("goal_cubes", "prep") and day >= g.days:
        raise v.fail("day", f"there is no Next Day Prep after day {g.days}", day)

    # who decides now
    if phase == "choose_character":
        if -1 not in f.character:
            raise v.fail("character", "a chef must still be choosing a Character", f.character)
        want, why = f.character.index(-1), "chefs choose Characters in seat order"
    elif phase == "distribute":
        want, why = f.decision_k % n, f"Ingredient card k is given by chef k mod {n} (decision_k={f.decision_k})"
    elif phase == "third_die":
        want, why = 0, "chef_0 gives the third die"
    elif phase == "goal_cubes":
        want, why = (day - 1) % n, "the day's lead chef gives the goal cubes"
    elif phase == "prep" and f.pending_by >= 0:
        want, why = f.pending_by, "the buyer gives out the new Ingredient cards"
    elif phase == "prep":
        if turn < 0:
            raise v.fail("turn", f"must be a seat 0..{n - 1}: whose purchase turn it is", turn)
        want = turn
    else:
        want, why = -1, f"nobody's turn in phase {phase!r}"
    if turn != want:
        raise v.fail("turn", f"must be {want}: {why}", turn)

    # days completed: one record per Daily Accounting
    done = day if phase in BETWEEN_DAYS else max(day - 1, 0)
    if len(f.history) != done:
        raise v.fail("history", f"must hold {done} completed days (phase {phase!r}, day {day})", f.history)
    if len(f.service) != done:
        raise v.fail("service", f"must hold {done} completed days (phase {phase!r}, day {day})", f.service)
    over = phase == "over"
    if (f.won != -1) != over:
        raise v.fail("won", "must be 0 or 1 once the game is over, else -1", f.won)
    if bool(f.end_reason) != over:
        raise v.fail("end_reason", "must be given exactly when the game is over", f.end_reason)


# ---------------------------------------------------------------------------- 3. cards in play
def check_cards(v: Checker, f: SimpleNamespace, g: Rules) -> None:
    data, n, phase = g.data, g.n, f.phase
    holder = f.recipe_holder
    recipes = data.recipes
    for r, (h, price) in enumerate(zip(holder, g.prices)):
        if (h == -2) != (price == g.removed_price):
            raise v.fail(f"recipe_holder[{r}]", "must be -2 exactly for the $31 recipes of a 2-player game "
                         "(removed), else -1 (not in the game) or the holder's seat", h)
    in_play = [r for r, h in enumerate(holder) if h >= 0]
    held = {(holder[r], g.prices[r]) for r in in_play}
    for seat, price in enumerate(g.setup_prices):
        if (seat, price) not in held:
            raise v.fail("recipe_holder", f"chef_{seat} must hold a ${price} recipe (the setup table)", holder)
    no_prep_yet = f.day == 0 or (f.day == 1 and phase != "prep")
    if no_prep_yet and len(in_play) != n:
        raise v.fail("recipe_holder", "must give exactly one recipe to each chef before any Next Day Prep", holder)

    # Ingredient cards: in play (held, or pending: waiting for a holder) exactly when a recipe in play needs them
    needed = {i for r in in_play for i in recipes[r].ingredients}
    pending = set(f.pending)
    for i, (h, level, unlocked) in enumerate(zip(f.ing_holder, f.ing_level, f.ing_unlocked)):
        if h >= 0 and i in pending:
            raise v.fail(f"ing_holder[{i}]", "must be -1 while the card is pending", h)
        if (h >= 0 or i in pending) != (i in needed):
            raise v.fail(f"ing_holder[{i}]", "a card is held or pending exactly when a recipe in play needs it", h)
        if i not in needed:
            if level or unlocked:
                raise v.fail(f"ing_level[{i}]" if level else f"ing_unlocked[{i}]",
                             "must be 0 for an ingredient not in play", level or unlocked)
        elif not g.open_methods <= unlocked <= 4:
            raise v.fail(f"ing_unlocked[{i}]", f"must be {g.open_methods}..4 for a card in play ({g.open_methods} open "
                         "methods, then upgrades)",
                         unlocked)
        elif (i in pending or f.day == 0) and level != g.start_row:
            raise v.fail(f"ing_level[{i}]", f"must be {g.start_row} before the first day and for a card not yet given "
                         f"out (a new token starts on row {g.start_row})", level)
        elif (i in pending or no_prep_yet) and unlocked != g.open_methods:
            raise v.fail(f"ing_unlocked[{i}]", f"must be {g.open_methods} before any upgrade is bought", unlocked)
    cards = [0] * n
    for h in f.ing_holder:
        if h >= 0:
            cards[h] += 1
    if f.decision_k != sum(cards):
        raise v.fail("decision_k", f"must be {sum(cards)}: the Ingredient cards given out so far", f.decision_k)

    # pending cards: given out in setup (ingredient order, a card left for every chef without one) or in prep
    if phase in ("choose_character", "distribute"):
        order = sorted(needed) if phase == "choose_character" else sorted(f.pending)
        if f.pending != order or (phase == "distribute" and not f.pending):
            raise v.fail("pending", "must list the cards still to give, in ingredient order"
                         + (" (all of them while Characters are chosen)" if phase == "choose_character" else ""),
                         f.pending)
        if any(h >= 0 and i > f.pending[0] for i, h in enumerate(f.ing_holder)):
            raise v.fail("ing_holder", "setup cards are given in ingredient order", f.ing_holder)
        if cards.count(0) > len(f.pending):
            raise v.fail("pending", f"must leave a card for each of the {cards.count(0)} chefs without one",
                         f.pending)
    else:
        if 0 in cards:
            raise v.fail("ing_holder", f"chef_{cards.index(0)} must hold an Ingredient card after setup",
                         f.ing_holder)
        if f.pending and phase != "prep":
            raise v.fail("pending", f"must be empty in phase {phase!r}", f.pending)
    buying = phase == "prep" and bool(f.pending)
    if (f.pending_by >= 0) != buying:
        raise v.fail("pending_by", "must be the buyer's seat while the new Ingredient cards of a bought recipe are "
                     "given out (Next Day Prep), else -1", f.pending_by)

    # Next Day Prep offers: drawn among the recipes not in the game; -1 where bought
    if phase == "prep":
        for k, r in enumerate(f.offers):
            if r >= 0 and (holder[r] != -1 or r in f.offers[:k]):
                raise v.fail(f"offers[{k}]", "must be a recipe not in the game, offered once (or -1: bought)", r)
        want = min(g.offer, holder.count(-1) + f.offers.count(-1))
        if len(f.offers) != want:
            raise v.fail("offers", f"must hold {want} slots: {g.offer} recipes drawn among those not in the game",
                         f.offers)
    elif f.offers:
        raise v.fail("offers", "must be empty outside Next Day Prep", f.offers)

    # Wang Family characters: one each with Player Powers, chosen in seat order in team setup
    chosen = [c for c in f.character if c >= 0]
    v.unique(chosen, "character")
    if not g.powers_on:
        ok, allowed = not chosen, "must be -1 for every chef without Player Powers"
    elif phase == "choose_character":
        k = f.turn
        ok = len(chosen) == k and all(c >= 0 for c in f.character[:k])
        allowed = "chefs choose in seat order: the chosen ones first, then -1"
    else:
        ok, allowed = len(chosen) == n, "every chef must hold a Character with Player Powers"
    if not ok:
        raise v.fail("character", allowed, f.character)


# ---------------------------------------------------------------------------- 4. components
def check_components(v: Checker, f: SimpleNamespace, g: Rules) -> None:
    n, phase, data = g.n, f.phase, g.data
    # dice: the first pool[o] of owner o's dice are in play (-1: the others); only an unused die (1-6) lies
    # outside its owner's area; between days every die is gathered (0)
    kitchen = phase in KITCHEN_PHASES
    per = g.dice
    for d, (pip, h) in enumerate(zip(f.die_pip, f.die_holder)):
        owner = d // per
        active = d - owner * per < f.pool[owner]
        if (pip == -1) == active or (not kitchen and active and pip != 0):
            raise v.fail(f"die_pip[{d}]", f"must be {'-1' if not active else '0..6' if kitchen else '0'}: "
                         f"chef_{owner}'s pool is {f.pool[owner]} dice (phase {phase!r})", pip)
        if pip <= 0 and h != owner:
            raise v.fail(f"die_holder[{d}]", f"must be {owner}: only an unused die lies in another chef's area", h)
    third = n == 2 and phase not in SETUP_PHASES  # one of 2 chefs starts with 3 dice
    start = sorted([g.start_dice] * (n - 1) + [g.third_die if third else g.start_dice])
    if not f.history:
        if sorted(f.pool) != start:
            raise v.fail("pool", f"must be the starting pools {start} (in some seat order) before any Daily "
                         "Accounting", f.pool)
    else:
        if third and max(f.pool) == g.start_dice:
            raise v.fail("pool", f"one of 2 chefs starts with {g.third_die} dice", f.pool)
        grown = max([row[1] for row in f.service] + start)
        for seat, p in enumerate(f.pool):
            if p > grown:
                raise v.fail(f"pool[{seat}]", "a pool grows only to the customers served on time in one day (at "
                             f"most {grown} so far)", p)

    # Fortune cubes: 2 per chef plus the goal cubes on the Income Tracker
    v.total({"Fortune cubes": sum(f.cubes) + f.goal_cubes.count(True) + f.cubes_passed},
            {"Fortune cubes": g.cubes}, "cubes", "Fortune cubes (chefs + Income Tracker + passed)")

    # Hustle tokens: pool + covering the locked methods + supply = 25
    covering = sum(4 - u for u in f.ing_unlocked if u)
    if f.hustle + covering > g.hustle:
        raise v.fail("hustle", f"must be at most {g.hustle - covering}: {g.hustle} tokens in all, {covering} cover "
                     "locked methods", f.hustle)
    if phase in SETUP_PHASES and f.hustle:
        raise v.fail("hustle", "must be 0 during setup", f.hustle)

    # Customer cards: each card of a recipe in play exactly once (deck, Coupon deck, served, counter)
    customers = data.customers
    seen = [0] * g.customers
    for c in f.deck:
        if c < EVENT_CARD_BASE:
            seen[c] += 1
    for k, c in enumerate(f.coupons):
        if not customers[c].coupon:
            raise v.fail(f"coupons[{k}]", "must be a Coupon customer", c)
        seen[c] += 1
    for row in f.served:
        for c, _ in row:
            seen[c] += 1
    if 0 <= f.current < EVENT_CARD_BASE:
        seen[f.current] += 1
    expect = []  # customer card ids run recipe by recipe
    for h, k in zip(f.recipe_holder, g.cards_of_recipe):
        expect += [1 if h >= 0 else 0] * k
    if seen != expect:
        v.total(dict(enumerate(seen)), dict(enumerate(expect)), "deck/coupons/served/current",
                "Customer cards of the recipes in play")

    # Event cards: with Events, each exactly once (Regular deck, face-down pile, revealed today, discarded)
    events = [c - EVENT_CARD_BASE for c in f.deck if c >= EVENT_CARD_BASE]
    events += f.event_pile + f.events_today + f.events_gone
    if g.events_on:
        if sorted(events) != list(range(g.events)):
            counts = [0] * g.events
            for e in events:
                counts[e] += 1
            v.total(dict(enumerate(counts)), {e: 1 for e in range(g.events)},
                    "deck/event_pile/events_today/events_gone", "Event cards")
        left = max(0, g.events - g.events_per_day * f.day)
        if len(f.event_pile) != left:
            raise v.fail("event_pile", f"must hold {left} cards on day {f.day} ({g.events_per_day} go into the "
                         "Regular deck each day)", f.event_pile)
    elif events:
        raise v.fail("event_pile" if f.event_pile else "events_today" if f.events_today else
                     "events_gone" if f.events_gone else "deck", "no Event cards without Events (events=False)",
                     events)


# ---------------------------------------------------------------------------- 5. the day
def check_day(v: Checker, f: SimpleNamespace, g: Rules) -> None:
    phase, n, data = f.phase, g.n, g.data
    kitchen = phase in KITCHEN_PHASES
    serving = phase in ("open", "wash")
    setup = phase in SETUP_PHASES

    if setup:
        if f.timers != [g.T, 0]:
            raise v.fail("timers", f"must be [{g.T}, 0] before the first day", f.timers)
        if f.first_served or f.late_ticks:
            raise v.fail("first_served" if f.first_served else "late_ticks", "must be false/0 before the first day",
                         f.first_served or f.late_ticks)
    if not kitchen:
        if f.washes:
            raise v.fail("washes", "must be 0 between days (the Dishwasher is back on '1st Wash')", f.washes)
        if f.current != -1:
            raise v.fail("current", "must be -1 between days (no card at the counter)", f.current)
        if any(f.served):
            raise v.fail("served", "must be empty between days", f.served)
        if f.events_today:
            raise v.fail("events_today", "must be empty between days (discarded at accounting)", f.events_today)
    if phase == "wash":
        if not f.washes:
            raise v.fail("washes", "must be 1 or 2 during a wash", f.washes)
        if 0 not in f.die_pip:
            raise v.fail("die_pip", "a wash needs dice in the Dirty Dishes", f.die_pip)
    if serving:
        if f.current < 0:
            raise v.fail("current", f"must be a card in phase {phase!r} (the day closes when the deck is served "
                         "out)", f.current)
        if f.late_ticks > g.P:
            raise v.fail("late_ticks", f"must be at most {g.P} (patience) while the day is open", f.late_ticks)
        if f.late_ticks and (f.timers != [0, 0] or f.current >= EVENT_CARD_BASE):
            raise v.fail("late_ticks", "must be 0 unless a customer waits with both timers empty", f.late_ticks)
    if phase == "closed" and f.current == -1 and f.deck:
        raise v.fail("current", "a day closes with no card at the counter only once the deck is served out",
                     f.current)
    if f.current >= EVENT_CARD_BASE and (not f.events_today or f.events_today[-1] != f.current - EVENT_CARD_BASE):
        raise v.fail("events_today", f"must end with the Event card at the counter ({f.current - EVENT_CARD_BASE})",
                     f.events_today)
    if bool(f.close_reason) != (phase == "closed" or phase in BETWEEN_DAYS):
        raise v.fail("close_reason", "must be given exactly from closing for business to the next opening",
                     f.close_reason)

    # serves: only the recipe's holder serves it
    customers = data.customers
    for s, row in enumerate(f.served):
        for k, (c, _) in enumerate(row):
            r = customers[c].recipe
            if f.recipe_holder[r] != s:
                raise v.fail(f"served[{s}][{k}]", f"must be a customer of a recipe chef_{s} holds "
                             f"({data.recipes[r].name} is held by {f.recipe_holder[r]})", [c, _])

    # powers: once a day, by a Character's owner; flipped back at Next Day Prep
    if any(f.power_used) and (not g.powers_on or setup or phase == "prep"):
        raise v.fail("power_used", "a power is used only with Player Powers, during a day (all flip back at "
                     "Next Day Prep)", f.power_used)

    # income: the day's serves (a late one $1 less) plus Chris's tip; between days, the day's record
    if setup:
        want, why = 0, "nothing is earned before the first day"
    elif kitchen:
        if f.first_served != any(f.served):
            raise v.fail("first_served", "must say whether a customer was served today", f.first_served)
        want = sum(customers[c].income - late for row in f.served for c, late in row)
        why = "the day's serves (a late one $1 less)"
        if g.powers_on and g.chris in f.character:
            s = f.character.index(g.chris)
            dishes = [customers[c].recipe for c, _ in f.served[s]]
            twice = len(set(dishes)) < len(dishes)
            if f.power_used[s] != twice:
                raise v.fail(f"power_used[{s}]", "Chris's tip is taken the first time he serves a dish twice in a "
                             "day", f.power_used[s])
            if twice:
                want += data.characters[g.chris].amount
                why += " and Chris's tip"
    else:
        want, why = f.history[-1][1], "the income counted at Daily Accounting"
    if f.income != want:
        raise v.fail("income", f"must be {want}: {why}", f.income)

    # Next Day Prep: money to spend, purchase turns
    if phase == "prep":
        if f.money > f.income:
            raise v.fail("money", f"must be at most the day's income {f.income}", f.money)
        if f.passes >= n or (f.pending and f.passes):
            raise v.fail("passes", f"must be below {n} ({n} passes in a row end Next Day Prep), 0 after a purchase",
                         f.passes)
        if not f.pending and not _anything_to_buy(f, g):
            raise v.fail("phase", "Next Day Prep ends at once when nothing can be bought", phase)
    elif f.money:
        raise v.fail("money", "must be 0 outside Next Day Prep (unspent money is lost)", f.money)
    if f.passes and (f.day == 0 or (f.day == 1 and phase != "prep")):
        raise v.fail("passes", "must be 0 before the first Next Day Prep", f.passes)


def _anything_to_buy(f: SimpleNamespace, g: Rules) -> bool:
    """``rules.next_day_prep.anything_to_buy`` on the checked fields."""
    comp = g.data.components
    covering = sum(4 - u for u in f.ing_unlocked if u)
    if f.coupons:
        return True
    if f.money >= comp["hustle_cost"] and g.hustle - f.hustle - covering > 0:
        return True
    if f.money >= comp["upgrade_cost"] and any(h >= 0 and u < 4 for h, u in zip(f.ing_holder, f.ing_unlocked)):
        return True
    return any(r >= 0 and f.money >= g.data.recipes[r].price for r in f.offers)


# ---------------------------------------------------------------------------- 6. derived fields
def check_history(v: Checker, f: SimpleNamespace, g: Rules) -> None:
    over = f.phase == "over"
    for k, (day, income, goal) in enumerate(f.history):
        if day != k + 1:
            raise v.fail(f"history[{k}][0]", f"must be {k + 1}: one record per day, in order", day)
        if goal != g.goals[k]:
            raise v.fail(f"history[{k}][2]", f"must be {g.goals[k]}: the day's Income Goal", goal)
        if income < goal and not (over and k == len(f.history) - 1):
            raise v.fail(f"history[{k}][1]", f"must be at least the goal ${goal}: the game went on", income)
    for k, row in enumerate(f.service):
        if row[0] != k + 1:
            raise v.fail(f"service[{k}][0]", f"must be {k + 1}: one record per day, in order", row[0])
        if row[1] + row[2] > g.customers:
            raise v.fail(f"service[{k}]", f"at most the {g.customers} customers are served in a day", row)
    total = sum(h[1] for h in f.history)
    if f.total_income != total:
        raise v.fail("total_income", f"must be {total}: the sum of the days' incomes", f.total_income)
    if over:
        day, income, goal = f.history[-1]
        met = income >= goal
        if f.won != int(met) or (met and day != g.days):
            raise v.fail("won", f"must be 1 when day {g.days}'s goal is met, 0 when a goal is missed (day {day}: "
                         f"${income} of ${goal})", f.won)

    # goal cubes: gained at each day that went on, every goal at or below its income (the goals rise)
    went_on = [h[1] for h in (f.history[:-1] if over else f.history)]
    best = max(went_on, default=-1)
    left = [goal > best for goal in g.goals]
    if f.goal_cubes != left:
        raise v.fail("goal_cubes", f"must be {left}: a cube leaves the Income Tracker once a day's income reaches "
                     "its goal", f.goal_cubes)
    if f.phase == "goal_cubes":
        before = max(went_on[:-1], default=-1)
        passed = sum(1 for goal in g.goals if before < goal <= best)
        if not passed or f.cubes_passed != passed:
            raise v.fail("cubes_passed", f"must be {passed}: the cubes passed at the last Daily Accounting (at "
                         "least one in phase 'goal_cubes')", f.cubes_passed)
    elif f.cubes_passed:
        raise v.fail("cubes_passed", "must be 0 outside phase 'goal_cubes'", f.cubes_passed)


# ---------------------------------------------------------------------------- 7. tick
_LOG_TICK = re.compile(r"d\d+ t(\d{1,9}): ")


def check_tick(tick: int, config: Mapping[str, Any], log: list[str]) -> None:
    """A snapshot's tick (the core has checked it is an integer >= 0) against its checked config
    and ``log``: within the longest game legal play takes with ``config``, and not before the
    last log entry was written."""
    from envs.wok_star.engine import max_episode_steps  # the engine imports this module

    bound = max_episode_steps(**config)
    if tick > bound:
        raise SnapshotError(f"snapshot field tick: must be at most {bound}, the longest game legal play takes "
                            f"with this config (max_episode_steps), got {tick}")
    m = _LOG_TICK.match(log[-1]) if log else None
    if m is not None and tick < int(m.group(1)):
        raise SnapshotError(f"snapshot field tick: must be at least {m.group(1)}, the tick of the last log entry "
                            f"({log[-1][:60]!r}), got {tick}")
