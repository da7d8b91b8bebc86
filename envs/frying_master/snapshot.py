"""Checking a Frying Master snapshot fully before the engine adopts it.

:func:`check_state` reads ``state_dict()`` output, together with the config
and tick that the core's ``from_dict`` has already put on the engine, and
returns the values to install as fresh plain lists and dicts. It changes
nothing, so ``load_state_dict`` assigns only after every rule passed (a failed
load leaves the engine as it was). A bad value raises
:class:`~envs.core.errors.SnapshotError` naming the field
(``state.loads.chef_1[0][2]``) and what is allowed.

The rules, in the order they are checked:

1. **Config**: exactly the engine's option keys (``players``, ``mode``;
   optionally ``teppanyaki``, ``serve_rule``, ``round_ticks``, ``round_shaping``,
   ``seconds_per_tick``) with values ``frying_master_v1`` accepts.
2. **Shape**: ``state`` has exactly :data:`STATE_KEYS`; every per-chef dict has
   exactly the agents as keys; every number is an int (never a bool or a
   float) in its range; every list has its length (18 foods, 4 categories,
   2 piles, one entry per spatula of the action table, at most 3 cards a
   spatula, at most the round's orders-to-end per chef).
3. **Round and mode**: ``1 <= round_no <= players + 1``; ``modes_played`` has
   one mode per round, the last being ``mode``; a fixed mode repeats it with
   nothing set aside; a drawn mode never repeats, and ``set_aside`` holds
   each round's mode card (a plate whose back shows that round's mode);
   ``spatulas`` is what the mode and ``teppanyaki`` give (derived, not trusted).
4. **Order Plates**: each of the 24 plates lies in exactly one place (set
   aside, pile A, pile B, given up, held, completed this round); the piles are
   never both empty while given-up plates wait (those are reshuffled at once);
   a chef without a plate has no food on one.
5. **Food Cards and Spice Tiles**: a face-down list holds foods of its own
   category only; per food, the table (either side up), spatulas, plates and
   completed orders hold exactly the data's cards (58 Food Cards, 15 Spice
   Tiles); after the match the shortfall is exactly what the last round
   discarded from spatulas. A served order holds the order's number of cards
   (``serve_rule='any_food'``: at least one card).
6. **Spatulas**: a spatula not in use this round is empty and idle; busy
   ticks are below the dearest action's cost; a busy spatula (only a lift
   keeps one busy) holds the card it lifted.
7. **Phase and turn**: setup (``choose``): the queue is 1..players chefs in
   clockwise order, each without a plate, everyone else holding the plate
   they took (with no food), the piles no bigger than the pool's two halves,
   nothing given up, served, lifted or busy yet, no clock running. Play: no
   queue, ``play_tick < round_ticks``, no countdown, no finisher; at play
   tick 0 (nobody has acted since "Wok on Fire!") every chef holds a plate
   with no food and idle, empty spatulas, and nothing is given up. Countdown:
   ``1 <= countdown_left <= countdown_ticks``, a finisher. Over: no countdown
   left. Finishers are exactly the chefs with the round's orders served, and
   hold no plate (their last serve took it);
   nobody served more, nor more orders than play ticks passed.
8. **History and Gold Spatulas**: one result per finished round (after the
   match, the current one too), in the engine's exact form: its round number
   and mode, plates distinct and not set aside by then, each order's score as
   its validity and disliked count give, and base, bonus, total, completed
   and the Gold Spatula winners recomputed (the match's last round is scored
   again from its completed orders); nobody reaches two Gold Spatulas before
   the last round; ``gold`` counts the tokens won; ``winners`` are the chefs
   with two, and only once the match is over.
9. **Tick**: the snapshot's tick fits the rounds played (setup ticks, play
   ticks, countdowns; a round ended by its countdown took from
   ``orders_to_end`` to ``round_ticks`` play ticks).

The checks are one pass over the state (whose size the component counts
bound), with a cheap test of the well-formed case before each precise one,
so ``clone()`` stays fast.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Sequence

from envs.core.snapshot import Checker
from envs.frying_master.rules.end_of_round import TICK_LIMIT, TIMES_UP
from envs.frying_master.rules.scoring import gold_spatula_winners, score_round

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine

#: The keys of ``state_dict()``.
STATE_KEYS: tuple[str, ...] = (
    "round_no", "phase", "mode", "modes_played", "set_aside", "spatulas", "piles", "discard", "table", "plates",
    "plate_cards", "loads", "busy", "completed", "choose_queue", "play_tick", "countdown_left", "finishers", "gold",
    "history", "winners")
TABLE_KEYS: tuple[str, ...] = ("up", "down")
#: The keys of one round's result in ``history`` (``rules.scoring.score_round``'s, and the additions of
#: ``rules.end_of_round.end_round``).
ROUND_KEYS: tuple[str, ...] = (
    "mode", "orders", "base", "bonus", "total", "completed", "gold", "round", "ended_by", "discarded_from_spatulas")
ORDER_KEYS: tuple[str, ...] = ("plate", "valid", "score", "disliked")
CONFIG_KEYS: tuple[str, ...] = (
    "players", "mode", "teppanyaki", "serve_rule", "round_ticks", "round_shaping", "seconds_per_tick")
CONFIG_OPTIONAL: tuple[str, ...] = ("teppanyaki", "serve_rule", "round_ticks", "round_shaping", "seconds_per_tick")
_ORDER_KEYSET = frozenset(ORDER_KEYS)


# ---------------------------------------------------------------------- fast typed checks


def _agent_list(v: Checker, value: Any, field: str, agents: Sequence[str]) -> list[str]:
    """Distinct agent names (at most one each)."""
    items = v.list(value, field, max_len=len(agents))
    for i, a in enumerate(items):
        if type(a) is not str or a not in agents:
            v.str(a, f"{field}[{i}]", agents)
    if len(set(items)) != len(items):
        v.unique(items, field)
    return items


def _plate_id(v: Checker, value: Any, field: str, n_plates: int, null: bool = False) -> int:
    allowed = ("must be null or " if null else "must be ") + f"an Order Plate index in 0..{n_plates - 1}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise v.fail(field, allowed, value)
    if not 0 <= value < n_plates:
        raise v.fail(field, f"{allowed} (there is no plate index {value})", value)
    return int(value)


def _plate_ids(v: Checker, value: Any, field: str, n_plates: int) -> list[int]:
    if type(value) is list and len(value) <= n_plates and all(type(x) is int and 0 <= x < n_plates for x in value):
        return list(value)
    items = v.list(value, field, max_len=n_plates)
    return [_plate_id(v, x, f"{field}[{i}]", n_plates) for i, x in enumerate(items)]


def _each_plate_once(v: Checker, cat, places: Sequence[tuple[str, int]]) -> None:
    """Every Order Plate lies in exactly one of ``places`` (field, plate); raises naming the
    field of a plate's second place, or the plates that lie nowhere."""
    where: dict[int, str] = {}
    for field, p in places:
        if p in where:
            raise v.fail(field, f"must not repeat Order Plate {p} ({cat.plates[p].name}): each plate lies in one "
                                f"place only, and it is already at {v.path(where[p])}", p)
        where[p] = field
    counts = {f"{p} ({pl.name})": int(p in where) for p, pl in enumerate(cat.plates)}
    v.total(counts, {k: 1 for k in counts}, "set_aside, piles, discard, plates, completed", "Order Plates")


# ---------------------------------------------------------------------- config

_CONFIGS_OK: set[tuple] = set()  # configs already accepted, by (key, type, value) items


def check_config(config: Any, cat) -> None:
    """The engine's part of the env config, as ``frying_master_v1`` accepts it."""
    key = None
    if type(config) is dict:
        key = tuple(sorted((k, type(x).__name__, x) for k, x in config.items() if type(k) is str))
        if len(key) == len(config) and key in _CONFIGS_OK:
            return
    c = Checker("config")
    c.dict(config, "", keys=CONFIG_KEYS, optional=CONFIG_OPTIONAL)
    c.choice(config["players"], "players", (2, 3, 4))
    c.str(config["mode"], "mode", ("drawn",) + cat.mode_ids)
    if "teppanyaki" in config:
        c.bool(config["teppanyaki"], "teppanyaki")
    if "serve_rule" in config:
        c.str(config["serve_rule"], "serve_rule", ("order_size", "any_food"))
    if "round_ticks" in config:
        c.optional(config["round_ticks"], "round_ticks", c.int, 20, 2000)
    if "round_shaping" in config:
        c.float(config["round_shaping"], "round_shaping", 0.0, 1.0)
    if "seconds_per_tick" in config:
        c.float(config["seconds_per_tick"], "seconds_per_tick", 0.25, 10.0)
    if key is not None and len(_CONFIGS_OK) < 1024:
        _CONFIGS_OK.add(key)


# ---------------------------------------------------------------------- the table


def check_table(v: Checker, value: Any, cat_of: Sequence[int], n_cats: int, cat=None, field: str = "table",
                most: int = 10 ** 6) -> tuple[list[int], list[list[int]]]:
    """``Table.state_dict()`` output: ``(up, down)``, the image-up count per food (at most
    ``most``) and each category's face-down foods (their kinds only: the engine checks the
    component totals)."""
    n_foods = len(cat_of)

    def sub(key: str) -> str:
        return f"{field}.{key}" if field else key

    v.dict(value, field, keys=TABLE_KEYS)
    up = v.int_list(value["up"], sub("up"), 0, most, length=n_foods)
    down_lists = v.list(value["down"], sub("down"), length=n_cats)
    down = []
    for c, d in enumerate(down_lists):
        if type(d) is list:
            for f in d:
                if type(f) is not int or not 0 <= f < n_foods or cat_of[f] != c:
                    break
            else:
                down.append(list(d))
                continue
        foods = v.int_list(d, sub(f"down[{c}]"), 0, n_foods - 1)
        for i, f in enumerate(foods):
            if cat_of[f] != c:
                name = cat.categories[c].id if cat is not None else f"category {c}"
                allowed = [g for g in range(n_foods) if cat_of[g] == c]
                raise v.fail(sub(f"down[{c}][{i}]"), f"must be a face-down {name} food (one of {allowed}), "
                                                     "not a food of another category", f)
        down.append(foods)
    return up, down


# ---------------------------------------------------------------------- the engine state


def check_state(eng: "FryingMasterEngine", state: Any) -> dict:
    """Check ``state`` (``state_dict()`` output) against ``eng``'s config, catalogue and
    tick; return the values to install (fresh containers; ``completed`` as
    ``(plate, counts)`` tuples, ``history`` in the engine's exact form)."""
    from envs.frying_master.engine import PHASES  # the engine imports this module

    cat, config, agents, n = eng.cat, eng.config, eng.agents, eng.n
    check_config(config, cat)
    v = Checker("state")
    v.dict(state, "", keys=STATE_KEYS)
    F, P, M = eng.n_foods, len(cat.plates), len(cat.modes)
    S, capacity, to_end = eng.S, eng.capacity, eng.orders_to_end
    round_ticks, cd_ticks, gold_to_win = eng.round_ticks, eng.countdown_ticks, cat.gold_to_win
    food_count = [f.count for f in cat.foods]
    most = max(food_count)

    # --- round, mode, spatulas -----------------------------------------------------------------
    phase = v.str(state["phase"], "phase", PHASES)
    round_no = v.int(state["round_no"], "round_no", 1, n + 1)
    mode = v.int(state["mode"], "mode", 0, M - 1)
    modes_played = v.int_list(state["modes_played"], "modes_played", 0, M - 1, length=round_no)
    if modes_played[-1] != mode:
        raise v.fail("mode", f"must be the round's mode, modes_played[-1] = {modes_played[-1]}", mode)
    set_aside = _plate_ids(v, state["set_aside"], "set_aside", P)
    if config["mode"] == "drawn":
        v.unique(modes_played, "modes_played")  # each round draws a mode not yet played
        if len(set_aside) != round_no:
            raise v.fail("set_aside", f"must hold the {round_no} mode card(s) drawn so far, one per round", set_aside)
        for i, p in enumerate(set_aside):
            if cat.plates[p].mode != modes_played[i]:
                raise v.fail(f"set_aside[{i}]", f"must be round {i + 1}'s mode card: a plate whose back shows "
                                                f"{cat.modes[modes_played[i]].id!r}", p)
    else:
        fixed = cat.mode(config["mode"]).idx
        for i, m in enumerate(modes_played):
            if m != fixed:
                raise v.fail(f"modes_played[{i}]", f"must be the fixed mode {fixed} ({config['mode']!r})", m)
        if set_aside:
            raise v.fail("set_aside", "must be empty: no mode card is drawn with a fixed mode", set_aside)

    def spatulas_of(m: int) -> int:
        return 2 if config.get("teppanyaki") or cat.modes[m].kind == "teppanyaki" else 1

    sp = spatulas_of(mode)
    if v.int(state["spatulas"], "spatulas", 1, 2) != sp:
        raise v.fail("spatulas", f"must be {sp}: two spatulas only in Teppanyaki Fry or with the teppanyaki preset",
                     state["spatulas"])

    # --- Order Plates: piles, given up, held, completed ------------------------------------------
    pile_lists = v.list(state["piles"], "piles", length=2)
    piles = [_plate_ids(v, p, f"piles[{i}]", P) for i, p in enumerate(pile_lists)]
    discard = _plate_ids(v, state["discard"], "discard", P)
    if discard and not piles[0] and not piles[1]:
        raise v.fail("discard", "must be empty when both piles are: given-up plates are reshuffled into new piles "
                                "at once", discard)
    held_in = v.dict(state["plates"], "plates", keys=agents)
    held = {}
    for a in agents:
        p = held_in[a]
        if p is not None and (type(p) is not int or not 0 <= p < P):
            p = _plate_id(v, p, f"plates.{a}", P, null=True)
        held[a] = p
    completed_in = v.dict(state["completed"], "completed", keys=agents)
    completed: dict[str, list[tuple[int, list[int]]]] = {}
    for a in agents:
        done = []
        for i, row in enumerate(v.list(completed_in[a], f"completed.{a}", max_len=to_end)):
            if type(row) is not list or len(row) != 2:
                row = v.list(row, f"completed.{a}[{i}]", length=2)
            p, counts = row
            if type(p) is not int or not 0 <= p < P:
                p = _plate_id(v, p, f"completed.{a}[{i}][0]", P)
            counts = v.int_list(counts, f"completed.{a}[{i}][1]", 0, most, length=F)
            if eng.serve_any_food:
                if not any(counts):
                    raise v.fail(f"completed.{a}[{i}][1]", "must hold at least one card: only a plate with food "
                                                           "is served (serve_rule='any_food')", counts)
            elif sum(counts) != eng.order_size[p]:
                raise v.fail(f"completed.{a}[{i}][1]", f"must hold {eng.order_size[p]} cards, the order's number "
                                                       f"of food cards ({cat.plates[p].name}): \"Order's up!\" "
                                                       "needs them (serve_rule='order_size')", counts)
            done.append((p, counts))
        completed[a] = done
    every = set_aside + piles[0] + piles[1] + discard + [p for p in held.values() if p is not None]
    for a in agents:
        every += [p for p, _ in completed[a]]
    if len(every) != P or len(set(every)) != P:
        _each_plate_once(v, cat, [(f"{field}[{i}]", p) for field, plates in (
            ("set_aside", set_aside), ("piles[0]", piles[0]), ("piles[1]", piles[1]), ("discard", discard))
            for i, p in enumerate(plates)]
            + [(f"plates.{a}", held[a]) for a in agents if held[a] is not None]
            + [(f"completed.{a}[{i}][0]", p) for a in agents for i, (p, _) in enumerate(completed[a])])

    # --- food on the table, plates and spatulas ------------------------------------------------------
    up, down = check_table(v, state["table"], eng.cat_of, eng.n_cats, cat, most=most)
    plate_cards_in = v.dict(state["plate_cards"], "plate_cards", keys=agents)
    loads_in = v.dict(state["loads"], "loads", keys=agents)
    busy_in = v.dict(state["busy"], "busy", keys=agents)
    max_busy = max(eng.ticks_of.values()) - 1
    only_lift_waits = all(k == "lift" for k, t in eng.ticks_of.items() if t > 1)
    idle = phase == "choose" or phase == "over"  # set up afresh, or discarded at the round's end
    plate_cards, loads, busy = {}, {}, {}
    for a in agents:
        pc = plate_cards[a] = v.int_list(plate_cards_in[a], f"plate_cards.{a}", 0, most, length=F)
        if held[a] is None and any(pc):
            raise v.fail(f"plate_cards.{a}", "must be all 0: a chef without an order plate has no food on one", pc)
        ls = v.list(loads_in[a], f"loads.{a}", length=S)
        la = loads[a] = [v.int_list(load, f"loads.{a}[{s}]", 0, F - 1, max_len=capacity) for s, load in enumerate(ls)]
        b = busy[a] = v.int_list(busy_in[a], f"busy.{a}", 0, max_busy, length=S)
        for s in range(S):
            if (la[s] or b[s]) and (s >= sp or idle):
                why = f"spatula {s} is not in use this round" if s >= sp else f"spatulas are idle in phase {phase!r}"
                raise (v.fail(f"loads.{a}[{s}]", f"must be empty: {why}", la[s]) if la[s] else
                       v.fail(f"busy.{a}[{s}]", f"must be 0: {why}", b[s]))
            if b[s] and not la[s] and only_lift_waits:
                raise v.fail(f"busy.{a}[{s}]", f"must be 0 while state.loads.{a}[{s}] is empty: only a lift keeps "
                                               "a spatula busy, and the lifted card is on it", b[s])
    # Cards per food in every zone the engine tracks.
    food = [sum(col) for col in zip(up, *plate_cards.values(), *(c for a in agents for _, c in completed[a]))]
    for d in down:
        for f in d:
            food[f] += 1
    for la in loads.values():
        for load in la:
            for f in load:
                food[f] += 1

    # --- phase and turn --------------------------------------------------------------------------------
    queue = _agent_list(v, state["choose_queue"], "choose_queue", agents)
    play_tick = v.int(state["play_tick"], "play_tick", 0, round_ticks)
    countdown_left = v.int(state["countdown_left"], "countdown_left", 0, cd_ticks)
    finishers = _agent_list(v, state["finishers"], "finishers", agents)
    for a in agents:
        k = len(completed[a])
        if a in finishers and k != to_end:
            raise v.fail(f"completed.{a}", f"must hold {to_end} orders: {a} is a finisher (served the round's "
                                           "orders, then only waits)", completed_in[a])
        if a not in finishers and k >= to_end:
            raise v.fail("finishers", f"must name {a}: {a} served the round's {to_end} orders", finishers)
        if a in finishers and held[a] is not None:  # (one had been accepted holding a live order, food on it)
            raise v.fail(f"plates.{a}", f"must be null: {a} is a finisher (its last serve left it without a plate, "
                                        "and it only waits)", held[a])
        if k > play_tick:
            raise v.fail(f"completed.{a}", f"must hold at most {play_tick} orders: one serve per play tick",
                         completed_in[a])
    if phase == "choose":
        if not queue:
            raise v.fail("choose_queue", "must name the chef(s) still to choose a plate at setup", queue)
        for i in range(1, len(queue)):
            want = agents[(agents.index(queue[i - 1]) + 1) % n]
            if queue[i] != want:
                raise v.fail(f"choose_queue[{i}]", f"must be {want}: plates are chosen clockwise", queue[i])
        for a in agents:
            if (a in queue) != (held[a] is None):
                raise v.fail(f"plates.{a}", f"must be null: {a} has not chosen a plate yet" if a in queue else
                             f"must be a plate: {a} has chosen at setup", held[a])
            if completed[a]:
                raise v.fail(f"completed.{a}", "must be empty at setup", completed_in[a])
            if any(plate_cards[a]):
                raise v.fail(f"plate_cards.{a}", "must be all 0 at setup", plate_cards[a])
        pool = P - len(set_aside)
        for i, half in enumerate(((pool + 1) // 2, pool // 2)):
            if len(piles[i]) > half:
                raise v.fail(f"piles[{i}]", f"must hold at most {half} plates at setup (the pool of {pool} split "
                                            "in two)", piles[i])
        if discard:
            raise v.fail("discard", "must be empty at setup: nobody has given up a plate yet", discard)
        if play_tick or countdown_left:
            raise v.fail("play_tick" if play_tick else "countdown_left", "must be 0 at setup",
                         play_tick or countdown_left)
    elif queue:
        raise v.fail("choose_queue", f"must be empty once setup is over (phase {phase!r})", queue)
    if phase == "play":
        if play_tick >= round_ticks:
            raise v.fail("play_tick", f"must be below round_ticks = {round_ticks} in play (the round ends at that "
                                      "tick)", play_tick)
        if countdown_left:
            raise v.fail("countdown_left", "must be 0 before the countdown", countdown_left)
        if play_tick == 0:  # nobody has acted since "Wok on Fire!" (work done already had been accepted)
            for a in agents:
                if held[a] is None:
                    raise v.fail(f"plates.{a}", f"must be a plate at play tick 0: {a} chose one at setup and has "
                                                "not acted since", held[a])
                if any(plate_cards[a]) or any(loads[a]) or any(busy[a]):
                    field, value = ((f"plate_cards.{a}", plate_cards[a]) if any(plate_cards[a]) else
                                    (f"loads.{a}", loads[a]) if any(loads[a]) else (f"busy.{a}", busy[a]))
                    raise v.fail(field, "must be empty at play tick 0: nobody has acted since \"Wok on Fire!\"",
                                 value)
            if discard:
                raise v.fail("discard", "must be empty at play tick 0: nobody has given up a plate yet", discard)
    elif phase == "countdown":
        if not countdown_left:
            raise v.fail("countdown_left", f"must be in 1..{cd_ticks} during the countdown", countdown_left)
        if not finishers:
            raise v.fail("finishers", "must name who served the round's orders: they started the countdown",
                         finishers)
    elif phase == "over":
        if countdown_left:
            raise v.fail("countdown_left", "must be 0 after the match", countdown_left)
        if not play_tick:
            raise v.fail("play_tick", "must be at least 1 after the match (a round has play ticks)", play_tick)
    if finishers and (phase == "choose" or phase == "play"):
        raise v.fail("finishers", f"must be empty in phase {phase!r}: a finisher starts the countdown", finishers)
    if finishers and play_tick < to_end:
        raise v.fail("play_tick", f"must be at least {to_end}: a finisher served {to_end} orders, one per play tick",
                     play_tick)

    # --- history, Gold Spatulas, winners -----------------------------------------------------------------
    over = phase == "over"
    hist_in = v.list(state["history"], "history", length=round_no if over else round_no - 1)
    history = [_check_round(v, eng, r, i, modes_played[i], spatulas_of(modes_played[i]), set_aside,
                            completed if over and i == len(hist_in) - 1 else None) for i, r in enumerate(hist_in)]
    gold_in = v.dict(state["gold"], "gold", keys=agents)
    gold = {a: v.int(gold_in[a], f"gold.{a}", 0, gold_to_win) for a in agents}
    won = {a: 0 for a in agents}
    for i, r in enumerate(history):
        for a in r["gold"]:
            won[a] += 1
        if (i < len(history) - 1 or not over) and max(won.values()) >= gold_to_win:
            raise v.fail(f"history[{i}].gold", f"must leave everyone below {gold_to_win} Gold Spatulas: the match "
                                               "ends with the first chef to reach them", r["gold"])
    for a in agents:
        if gold[a] != won[a]:
            raise v.fail(f"gold.{a}", f"must be {won[a]}: the Gold Spatulas {a} won in the rounds of history",
                         gold[a])
    winners = _agent_list(v, state["winners"], "winners", agents)
    expected = [a for a in agents if gold[a] >= gold_to_win] if over else []
    if winners != expected:
        raise v.fail("winners", f"must be {expected}: the chefs with {gold_to_win} Gold Spatulas, once the match is "
                                "over", winners)
    if over:
        if not winners:
            raise v.fail("phase", f"must not be 'over' before someone has {gold_to_win} Gold Spatulas", phase)
        ended = history[-1]["ended_by"]
        if (ended == TIMES_UP) != bool(finishers):
            raise v.fail(f"history[{len(history) - 1}].ended_by",
                         f"must be {TIMES_UP!r}: someone served the round's orders" if finishers else
                         f"must be {TICK_LIMIT!r}: nobody served the round's orders", ended)
        if ended == TICK_LIMIT and play_tick != round_ticks:
            raise v.fail("play_tick", f"must be round_ticks = {round_ticks}: the last round ended at its tick limit",
                         play_tick)

    # --- component totals ------------------------------------------------------------------------------
    zones = "table, loads, plate_cards, completed"
    if not over:
        if food != food_count:
            v.total(dict(zip(cat.food_ids, food)), dict(zip(cat.food_ids, food_count)), zones,
                    "Food Cards and Spice Tiles")
    else:  # the last round's spatula loads were discarded: only their number is known
        for f, (k, want) in enumerate(zip(food, food_count)):
            if k > want:
                raise v.fail(zones, f"must hold at most the {want} {cat.foods[f].id} card(s) the game has", k)
        gone = sum(food_count) - sum(food)
        discarded = sum(history[-1]["discarded_from_spatulas"].values())
        if gone != discarded:
            raise v.fail(f"history[{len(history) - 1}].discarded_from_spatulas",
                         f"must add up to the {gone} card(s) missing from the table, plates and completed orders",
                         discarded)

    # --- the tick ----------------------------------------------------------------------------------------
    finished_rounds = history[:-1] if over else history
    low = high = 0
    for r in finished_rounds:
        if r["ended_by"] == TICK_LIMIT:
            low += n + round_ticks
            high += n + round_ticks
        else:
            low += n + to_end + cd_ticks
            high += n + round_ticks + cd_ticks
    if phase == "choose":
        now = n - len(queue)
    elif phase == "play":
        now = n + play_tick
    elif phase == "countdown":
        now = n + play_tick + cd_ticks - countdown_left
    else:
        now = n + play_tick + (cd_ticks if finishers else 0)
    if not low + now <= eng.tick <= high + now:
        raise Checker("tick").fail("", f"must be in {low + now}..{high + now}: {len(finished_rounds)} finished "
                                       f"round(s), then {now} tick(s) of round {round_no} (phase {phase!r})",
                                   eng.tick)

    return {
        "round_no": round_no, "phase": phase, "mode": mode, "modes_played": modes_played, "set_aside": set_aside,
        "spatulas": sp, "piles": piles, "discard": discard, "table": (up, down), "plates": held,
        "plate_cards": plate_cards, "loads": loads, "busy": busy, "completed": completed, "choose_queue": queue,
        "play_tick": play_tick, "countdown_left": countdown_left, "finishers": finishers, "gold": gold,
        "history": history, "winners": winners,
    }


def _check_round(v: Checker, eng: "FryingMasterEngine", value: Any, i: int, mode_idx: int, spatulas: int,
                 set_aside: Sequence[int], completed: dict | None) -> dict:
    """``history[i]``: round ``i + 1``'s result, rebuilt in the engine's exact form.
    ``completed``: the round's completed orders, while they are still on the table (the
    match's last round, after the match)."""
    cat, agents, to_end = eng.cat, eng.agents, eng.orders_to_end
    h = f"history[{i}]"
    v.dict(value, h, keys=ROUND_KEYS)
    mode = cat.modes[mode_idx]
    if v.int(value["round"], f"{h}.round") != i + 1:
        raise v.fail(f"{h}.round", f"must be {i + 1}", value["round"])
    if v.str(value["mode"], f"{h}.mode") != mode.id:
        raise v.fail(f"{h}.mode", f"must be {mode.id!r}: modes_played[{i}] = {mode_idx}", value["mode"])
    ended = v.str(value["ended_by"], f"{h}.ended_by", (TICK_LIMIT, TIMES_UP))
    # The orders: distinct plates, none of them a mode card set aside by then; scores as validity gives.
    out_of_play = set(set_aside[:i + 1])
    orders_in = v.dict(value["orders"], f"{h}.orders", keys=agents)
    seen: set[int] = set()
    orders = {}
    casual = mode.kind == "casual"
    n_plates = len(cat.plates)
    for a in agents:
        out = []
        for j, row in enumerate(v.list(orders_in[a], f"{h}.orders.{a}", max_len=to_end)):
            if type(row) is not dict or row.keys() != _ORDER_KEYSET:
                v.dict(row, f"{h}.orders.{a}[{j}]", keys=ORDER_KEYS)
            p, valid, disliked, score = row["plate"], row["valid"], row["disliked"], row["score"]
            if type(p) is not int or not 0 <= p < n_plates:
                p = _plate_id(v, p, f"{h}.orders.{a}[{j}].plate", n_plates)
            if p in seen or p in out_of_play:
                raise v.fail(f"{h}.orders.{a}[{j}].plate", "must not repeat a plate served earlier in the round" if
                             p in seen else "must not be a mode card set aside", p)
            seen.add(p)
            plate = cat.plates[p]
            if valid is not True and valid is not False:
                valid = v.bool(valid, f"{h}.orders.{a}[{j}].valid")
            # Disliked food fills "any" icons of a correct order (Casual Fry ignores it).
            top = sum(plate.any) if valid and not casual and plate.disliked else 0
            if type(disliked) is not int or not 0 <= disliked <= top:
                disliked = v.int(disliked, f"{h}.orders.{a}[{j}].disliked", 0, top)
            want = plate.flavour - disliked if valid else 0
            if type(score) is not int or score != want:
                raise v.fail(f"{h}.orders.{a}[{j}].score", f"must be {want}: " + (
                    "the flavour value less 1 per disliked ingredient" if valid else "an incorrect order scores 0"),
                    score)
            out.append({"plate": p, "valid": valid, "score": want, "disliked": disliked})
        orders[a] = out
    if completed is not None:  # the orders are still on the table: score them again
        want = score_round(cat, mode, {a: completed[a] for a in agents})
        for a in agents:
            if orders[a] != want["orders"][a]:
                raise v.fail(f"{h}.orders.{a}", f"must be {want['orders'][a]}: the scores of completed.{a}",
                             orders_in[a])
    else:
        want = _score_rows(cat, mode, orders)
    result = {"mode": mode.id, "orders": orders}
    for key in ("base", "bonus", "total", "completed"):
        got = v.dict(value[key], f"{h}.{key}", keys=agents)
        for a in agents:
            if type(got[a]) is not int or got[a] != want[key][a]:
                raise v.fail(f"{h}.{key}.{a}", f"must be {want[key][a]}, as the round's orders give", got[a])
        result[key] = {a: want[key][a] for a in agents}
    gold = _agent_list(v, value["gold"], f"{h}.gold", agents)
    if gold != want["gold"]:
        raise v.fail(f"{h}.gold", f"must be {want['gold']}: the top total takes a Gold Spatula (a tie: more "
                                  "completed orders; still tied: each)", gold)
    result["gold"] = gold
    result["round"] = i + 1
    most = max(want["completed"].values())
    if (ended == TIMES_UP) != (most == to_end):
        raise v.fail(f"{h}.ended_by", f"must be {TIMES_UP!r}: someone served the round's {to_end} orders"
                     if most == to_end else f"must be {TICK_LIMIT!r}: nobody served the round's {to_end} orders",
                     ended)
    result["ended_by"] = ended
    disc = v.dict(value["discarded_from_spatulas"], f"{h}.discarded_from_spatulas", keys=agents)
    result["discarded_from_spatulas"] = {
        a: v.int(disc[a], f"{h}.discarded_from_spatulas.{a}", 0, spatulas * eng.capacity) for a in agents}
    return result


def _score_rows(cat, mode, orders: dict[str, list[dict]]) -> dict:
    """``rules.scoring.score_round``'s base, bonus, total, completed and gold from orders whose
    cards are gone but whose validity is recorded. A correct order outside Casual Fry holds
    exactly its back's hint per category, so the mode bonuses follow from the plates."""
    base = {a: sum(r["score"] for r in rows) for a, rows in orders.items()}
    bonus = {a: 0 for a in orders}
    if mode.kind == "most_category":
        amount = {a: sum(cat.plates[r["plate"]].hint[mode.category] for r in rows if r["valid"])
                  for a, rows in orders.items()}
        best = max(amount.values(), default=0)
        if best > 0:
            for a, k in amount.items():
                if k == best:
                    bonus[a] = cat.mode_bonus
    elif mode.kind == "one_of_each_type":
        for a, rows in orders.items():
            if {cat.plates[r["plate"]].type for r in rows if r["valid"]} >= set(range(3)):
                bonus[a] = cat.mode_bonus
    total = {a: base[a] + bonus[a] for a in orders}
    done = {a: len(rows) for a, rows in orders.items()}
    return {"base": base, "bonus": bonus, "total": total, "completed": done, "gold": gold_spatula_winners(total, done)}
