"""Action masks and why an action is illegal, for every phase.

:func:`compute_masks` fills every chef's mask in one pass (``int8[n, A]``,
row = seat; the engine caches it per state: ``engine.all_masks()``);
:func:`check` says why one action is illegal for one chef now (None when it
is legal), the slow path that ``why_illegal`` and the conflict check use. The
two agree (tested).

Precomputed tables make the kitchen part of the action mask cheap.

The dice actions ``take``, ``hustle_gain`` and ``rotate`` are consecutive
blocks of the action table, and each index is legal exactly when one cell of
the area counts (``engine.area_counts()``, ``int[n, 12]``: per chef, own dice
per pip then taken dice per pip) is positive, and the block's gate holds
(a Fortune cube to hand over, a Hustle token in the supply, one in the pool).
So the three blocks are one gather from the flattened ``counts > 0`` vector,
extended with a trailing ``False`` that gated-off indices point at::

    m[take.start:rotate.stop] = positive[dice_gather(n, seat, gate)]

``prepare_legal`` and ``cube_moves_legal`` memoise the two other kitchen
blocks by their small inputs (the acting chef's 12 counts; the cubes of the
chefs in relative order), which repeat constantly; ``substitutions_legal``
does the same for Grandpa's power.

The engine computes the masks of all ``n`` chefs in one pass, as one
``int8[n, A]`` array (:func:`kitchen_masks`), with the batched forms
of these tables: ``dice_gathers`` (every chef's gather, stacked),
``prepare_row`` (a chef's whole ``prepare`` block, memoised by its area
and its cards) and ``cube_moves_all``.
"""

from __future__ import annotations

import functools

import numpy as np

from envs.wok_star.actions import (COMBO_BY_LABEL, N_COMBOS, build_action_table, combo_fits, cube_moves, feasible,
                                   moves_by_label, substitutions)
from envs.wok_star.rules import open_for_business as timers
from envs.wok_star.rules.player_powers import POWER_ACTIONS, grandpa_amount
from envs.wok_star.rules.prepare_ingredients import amount_table
from envs.wok_star.rules.serve_customers import can_cook
from envs.wok_star.rules.setup import give_card_allowed

KITCHEN_PHASES = ("open", "wash", "closed")
DECISION_PHASES = ("choose_character", "distribute", "third_die", "goal_cubes", "prep")

#: gate bits of :func:`dice_gather`
GATE_TAKE, GATE_HUSTLE_GAIN, GATE_ROTATE = 1, 2, 4


@functools.lru_cache(maxsize=None)
def dice_gather(n: int, seat: int, gate: int) -> np.ndarray:
    """Index into ``append(counts.ravel() > 0, False)`` for every action from ``take`` to ``rotate``.

    ``gate`` is a bitmask of the blocks whose condition holds; a block whose
    gate is off points at the trailing ``False`` (index ``12 * n``).
    """
    t = build_action_table(n)
    off = 12 * n
    idx: list[int] = []
    for r in range(1, n):  # take(chef=r, pip): the other chef's own die of that pip
        for pip in range(6):
            idx.append(((seat + r) % n) * 12 + pip if gate & GATE_TAKE else off)
    assert len(idx) == t.group("take").size
    for pip in range(6):  # hustle_gain(pip, die): a die of the actor's area
        for die in range(2):
            idx.append(seat * 12 + die * 6 + pip if gate & GATE_HUSTLE_GAIN else off)
    for r in range(n):  # rotate(chef=r, pip, die, direction): a die of that chef's area
        for pip in range(6):
            for die in range(2):
                cell = ((seat + r) % n) * 12 + die * 6 + pip if gate & GATE_ROTATE else off
                idx += [cell, cell]
    assert t.group("take").start + len(idx) == t.group("rotate").stop
    out = np.array(idx, dtype=np.intp)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=65536)
def prepare_legal(have: tuple[int, ...], ingredient: int, unlocked: int) -> np.ndarray:
    """bool[78]: the ``prepare`` combinations of ``ingredient`` that the counts ``have`` allow."""
    out = combos_feasible(have) & method_fits(ingredient, unlocked)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def method_fits(ingredient: int, unlocked: int) -> np.ndarray:
    """bool[78]: the combinations that fit one of the first ``unlocked`` methods of ``ingredient``."""
    out = amount_table(ingredient)[unlocked] > 0
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def _cube_needs(n: int) -> np.ndarray:
    """int[moves, n]: cubes each move takes from each chef (relative seats)."""
    moves = cube_moves(n)
    need = np.zeros((len(moves), n), dtype=np.int64)
    for k, move in enumerate(moves):
        for src, _ in move:
            need[k, src] += 1
    need.setflags(write=False)
    return need


@functools.lru_cache(maxsize=4096)
def cube_moves_legal(cubes: tuple[int, ...]) -> np.ndarray:
    """bool[moves]: which ``move_cubes`` moves the cubes of the chefs (relative order) allow."""
    out = np.all(_cube_needs(len(cubes)) <= np.array(cubes), axis=1)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=65536)
def substitutions_legal(in_play: tuple[bool, ...], level: tuple[int, ...], top: int, amount: int = 1) -> np.ndarray:
    """bool[subs]: Grandpa's ``a>b`` swaps allowed (both in play, ``a`` on row ``amount``+, ``b`` below ``top``)."""
    out = np.array([in_play[a] and in_play[b] and level[a] >= amount and level[b] < top
                    for a, b in substitutions(len(level))], dtype=bool)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def dice_gathers(n: int, gates: tuple[int, ...]) -> np.ndarray:
    """``intp[n, take..rotate]``: :func:`dice_gather` of every seat, ``gates[seat]`` being that seat's gate."""
    out = np.stack([dice_gather(n, seat, gate) for seat, gate in enumerate(gates)])
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=16384)
def combos_feasible(have: tuple[int, ...]) -> np.ndarray:
    """bool[78]: the dice combinations that one chef's area (12 counts: own then taken dice, per pip) allows."""
    out = feasible(np.array(have, dtype=np.int16))
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=8192)
def prepare_row(have: tuple[int, ...], unlocked: tuple[int, ...]) -> np.ndarray:
    """bool[ingredients * 78]: one chef's whole ``prepare`` block.

    ``have``: the chef's area (12 counts); ``unlocked[i]``: the methods
    uncovered on ingredient ``i`` if the chef holds its card, else 0 (with 0
    methods nothing fits, so a card held elsewhere and a card with no method
    give the same zero block, as in :func:`prepare_legal`).
    """
    out = np.zeros((len(unlocked), N_COMBOS), dtype=bool)
    for i, u in enumerate(unlocked):
        if u:
            out[i] = prepare_legal(have, i, u)
    out = out.ravel()
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=16384)
def area_flags(have: tuple[int, ...]) -> bytes:
    """One chef's area (12 counts) as 12 bytes ``count > 0``: its part of the ``positive`` vector."""
    return bytes(c > 0 for c in have)


def area_positive(rows: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """bool[12 n + 1]: ``counts.ravel() > 0`` of all areas (``engine.area_rows()``) and a trailing
    False, the vector that :func:`dice_gather` indexes (read-only)."""
    return np.frombuffer(b"".join([area_flags(have) for have in rows]) + b"\0", dtype=bool)


@functools.lru_cache(maxsize=4096)
def cube_moves_all(cubes: tuple[int, ...]) -> np.ndarray:
    """bool[n, moves]: :func:`cube_moves_legal` of every seat (``cubes`` in absolute seat order)."""
    n = len(cubes)
    out = np.stack([cube_moves_legal(tuple(cubes[(seat + r) % n] for r in range(n))) for seat in range(n)])
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=None)
def blank_masks(n: int, size: int) -> np.ndarray:
    """Read-only ``int8[n, size]``: every chef's mask with only ``noop`` (index 0) legal; copy to fill."""
    out = np.zeros((n, size), dtype=np.int8)
    out[:, 0] = 1
    out.setflags(write=False)
    return out


# ============================================================================ the masks of a state
def compute_masks(eng) -> np.ndarray:
    """Every chef's action mask, ``int8[n, A]`` (row = seat), writable (the engine freezes and caches it)."""
    masks = blank_masks(eng.n, eng.actions.n).copy()  # noop legal for everyone
    if eng.phase in KITCHEN_PHASES:
        kitchen_masks(eng, masks)
        service_masks(eng, masks)
        if eng.config["powers"]:
            for seat in range(eng.n):
                power_mask(eng, seat, masks[seat])
    elif eng.phase in DECISION_PHASES and 0 <= eng.turn < eng.n:
        decision_mask(eng, eng.turn, masks[eng.turn])
    return masks


def batch_masks(engines) -> np.ndarray:
    """``int8[K, n, A]``: :func:`compute_masks` of each of ``engines`` (one player count, every one in
    a kitchen phase), with the per-game work cut to the memoised tables' lookups and a handful of
    numpy calls over the batch: the ``prepare`` blocks stacked, the ``take``..``rotate`` blocks one
    gather from every game's area flags, the service entries set by index lists. Player Powers
    (:func:`power_mask`) go game by game. Equal to :func:`compute_masks` of each engine
    (``tests/wok_star/test_batch.py``)."""
    K = len(engines)
    e0 = engines[0]
    n = e0.n
    g = e0._groups
    prep, take0, rot1, moves = g["prepare"], g["take"].start, g["rotate"].stop, g["move_cubes"]
    serve, wash, close, finish = g["serve"].start, g["wash"].start, g["close"].start, g["finish_wash"].start
    washes = e0.data.components["washes_per_day"]
    out = np.zeros((K, n, e0.actions.n), dtype=np.int8)
    out[:, :, 0] = 1  # noop legal for everyone
    blocks, flags, gathers = [], [], []
    cube_games, cube_blocks = [], []
    one_g, one_s, one_c = [], [], []  # entries of one chef
    all_g, all_c = [], []  # entries of every chef
    for k, eng in enumerate(engines):
        rows = eng.area_rows()
        for have, unlocked in zip(rows, seat_unlocked(eng)):
            blocks.append(prepare_row(have, unlocked))
        hustle = eng.hustle
        shared = (GATE_HUSTLE_GAIN if eng.hustle_supply > 0 else 0) | (GATE_ROTATE if hustle > 0 else 0)
        gathers.append(dice_gathers(n, tuple([shared | GATE_TAKE if c > 0 else shared for c in eng.cubes])))
        flags += [area_flags(have) for have in rows]
        flags.append(b"\0")
        if hustle > 0:
            cube_games.append(k)
            cube_blocks.append(cube_moves_all(tuple(eng.cubes)))
        phase = eng.phase
        if phase == "open":
            cu = eng.current_customer()
            if cu is not None:
                holder = eng.recipe_holder[cu.recipe]
                if holder >= 0 and can_cook(eng, cu.recipe):
                    one_g.append(k)
                    one_s.append(holder)
                    one_c.append(serve)
                    if eng.first_served and timers.distinct(eng.timers):
                        one_g.append(k)
                        one_s.append(holder)
                        one_c.append(serve + 1)
            if eng.washes < washes and 0 in eng.die_pip:  # dirty_dice() > 0
                all_g.append(k)
                all_c.append(wash)
            all_g.append(k)
            all_c.append(close)
        elif phase == "wash":
            all_g.append(k)
            all_c.append(finish)
            if timers.distinct(eng.timers):
                all_g.append(k)
                all_c.append(finish + 1)
        elif phase != "closed":
            raise ValueError(f"batch_masks takes engines in a kitchen phase {KITCHEN_PHASES}; got phase {phase!r}")
    out[:, :, prep.start: prep.stop] = np.concatenate(blocks).reshape(K, n, -1)
    # every game's area flags and a trailing False (12 n + 1 entries each); its gather shifted to its own
    positive = np.frombuffer(b"".join(flags), dtype=bool)
    at = np.array(gathers) + (np.arange(K) * (12 * n + 1))[:, None, None]
    out[:, :, take0: rot1] = positive[at]
    if cube_games:
        out[cube_games, :, moves.start: moves.stop] = np.array(cube_blocks)
    if one_g:
        out[one_g, one_s, one_c] = 1
    if all_g:
        out[all_g, :, all_c] = 1
    if e0.config["powers"]:
        for k, eng in enumerate(engines):
            for seat in range(n):
                power_mask(eng, seat, out[k, seat])
    return out


def seat_unlocked(eng) -> tuple[tuple[int, ...], ...]:
    """Per chef, ``ing_unlocked`` of the Ingredient cards it holds and 0 for the others (the key of
    its ``prepare`` block, :func:`prepare_row`). Kept in ``_keyed_cache`` with the holders
    and upgrades it derives from, which change only in decisions."""
    key = (tuple(eng.ing_holder), tuple(eng.ing_unlocked))
    entry = eng._keyed_cache.get("seat_unlocked")
    if entry is None or entry[0] != key:
        holder, unlocked = key
        per_seat = tuple(tuple(u if h == s else 0 for h, u in zip(holder, unlocked)) for s in range(eng.n))
        entry = eng._keyed_cache["seat_unlocked"] = (key, per_seat)
    return entry[1]


def kitchen_masks(eng, masks: np.ndarray) -> None:
    """Dice actions of every chef (``masks``: ``int8[n, A]``, one row per seat).

    ``prepare``: each chef's block memoised by its area and its cards;
    ``take``, ``hustle_gain``, ``rotate``: one gather from the areas'
    ``positive`` flags; ``move_cubes``: memoised by the cubes.
    """
    g = eng._groups
    n = eng.n
    rows = eng.area_rows()
    prep = g["prepare"]
    for seat, unlocked in enumerate(seat_unlocked(eng)):
        masks[seat, prep.start: prep.stop] = prepare_row(rows[seat], unlocked)
    # take (a cube to hand over), hustle_gain (supply not empty), rotate (pool not empty): one gather
    hustle = eng.hustle
    shared = (GATE_HUSTLE_GAIN if eng.hustle_supply > 0 else 0) | (GATE_ROTATE if hustle > 0 else 0)
    gates = tuple([shared | GATE_TAKE if c > 0 else shared for c in eng.cubes])
    if any(gates):
        masks[:, g["take"].start: g["rotate"].stop] = area_positive(rows)[dice_gathers(n, gates)]
    if hustle > 0:
        g_moves = g["move_cubes"]
        masks[:, g_moves.start: g_moves.stop] = cube_moves_all(tuple(eng.cubes))


def service_masks(eng, masks: np.ndarray) -> None:
    """``serve`` (the current recipe's holder), ``wash``, ``close``, ``finish_wash`` of every chef (one row per seat)."""
    g = eng._groups
    if eng.phase == "open":
        cu = eng.current_customer()
        if cu is not None:
            holder = eng.recipe_holder[cu.recipe]
            if holder >= 0 and can_cook(eng, cu.recipe):
                serve = g["serve"].start
                masks[holder, serve] = 1
                masks[holder, serve + 1] = eng.first_served and timers.distinct(eng.timers)
        if eng.washes < eng.data.components["washes_per_day"] and 0 in eng.die_pip:  # dirty_dice() > 0
            masks[:, g["wash"].start] = 1
        masks[:, g["close"].start] = 1
    elif eng.phase == "wash":
        start = g["finish_wash"].start
        masks[:, start] = 1
        if timers.distinct(eng.timers):
            masks[:, start + 1] = 1


def power_mask(eng, seat: int, m: np.ndarray) -> None:
    if not eng.config["powers"] or eng.character[seat] < 0 or eng.power_used[seat]:
        return
    key = eng.data.characters[eng.character[seat]].key
    g = eng._groups
    if key == "lily" and eng.phase == "open":
        m[g["lily_restart"].start] = 1
        m[g["lily_restart"].start + 1] = timers.distinct(eng.timers)
    elif key == "auntie" and eng.phase == "open":
        m[g["auntie_reseat"].start] = eng.current_customer() is not None and len(eng.deck) > 0
    elif key == "grandpa":
        g_sub = g["grandpa_substitute"]
        m[g_sub.start: g_sub.stop] = substitutions_legal(tuple(h >= 0 for h in eng.ing_holder),
                                                         tuple(eng.ing_level), eng.top, grandpa_amount(eng, seat))
    elif key == "mama":
        m[g["mama_reroll"].start] = sum(eng.area_rows()[seat][:6]) > 0
    elif key == "uncle":
        start = g["uncle_deliver"].start
        for i, h in enumerate(eng.ing_holder):
            m[start + i] = h >= 0 and eng.ing_level[i] < eng.top


def decision_mask(eng, seat: int, m: np.ndarray) -> None:
    g = eng._groups
    comp = eng.data.components
    if eng.phase == "choose_character":
        start = g["choose_character"].start
        for c in range(len(eng.data.characters)):
            m[start + c] = c not in eng.character
    elif eng.phase == "distribute" or (eng.phase == "prep" and eng.pending):
        start = g["give_ingredient"].start
        setup = eng.phase == "distribute"
        for r in range(eng.n):
            m[start + r] = give_card_allowed(eng, eng.rel(seat, r), setup)
    elif eng.phase == "third_die":
        m[g["give_third_die"].start: g["give_third_die"].stop] = 1
    elif eng.phase == "goal_cubes":
        m[g["give_goal_cubes"].start: g["give_goal_cubes"].stop] = 1
    elif eng.phase == "prep":
        start = g["buy_recipe"].start
        for k, r in enumerate(eng.offers):
            if r >= 0 and eng.money >= eng.data.recipes[r].price:
                m[start + k * eng.n: start + (k + 1) * eng.n] = 1
        start = g["upgrade"].start
        if eng.money >= comp["upgrade_cost"]:
            for i, h in enumerate(eng.ing_holder):
                m[start + i] = h >= 0 and eng.ing_unlocked[i] < 4
        m[g["advertise"].start] = len(eng.coupons) > 0
        m[g["buy_hustle"].start] = eng.money >= comp["hustle_cost"] and eng.hustle_supply > 0


# ============================================================================ why an action is illegal
def check(eng, seat: int, name: str, params: dict) -> str | None:
    """None if ``name(**params)`` is legal for ``seat`` now, else why not."""
    if name == "noop":
        return None
    rule = CHECKS.get(name)
    if rule is None:
        return f"unknown action {name}"
    return rule(eng, seat, name, params)


def describe_area(eng, seat: int) -> str:
    c = eng.area_counts()[seat]
    own = [str(p + 1) for p in range(6) for _ in range(c[p])]
    taken = [f"{p + 1}*" for p in range(6) for _ in range(c[6 + p])]
    return "[" + " ".join(own + taken) + "]" if own or taken else "no unused dice"


def _cubes_allow(eng, seat: int, move) -> bool:
    need = {}
    for s, _ in move:
        need[s] = need.get(s, 0) + 1
    return all(eng.cubes[eng.rel(seat, s)] >= k for s, k in need.items())


def kitchen_check(eng, seat: int, name: str, p: dict):
    if eng.phase not in KITCHEN_PHASES:
        return f"dice can only be used while the restaurant is open, washing or just closed (now: {eng.phase})"
    if name == "prepare":
        i = eng.data.ingredient_id(p["ingredient"])
        if eng.ing_holder[i] < 0:
            return f"{p['ingredient']} is not in play"
        if eng.ing_holder[i] != seat:
            return f"only the holder of the {p['ingredient']} card (chef_{eng.ing_holder[i]}) can prepare it"
        c = COMBO_BY_LABEL[p["dice"]]
        if not combo_fits(eng.area_rows()[seat], c):
            return (f"your area lacks unused dice {p['dice']} (`*` = a die you took from another chef); "
                    f"you have {describe_area(eng, seat)}")
        if amount_table(i)[eng.ing_unlocked[i]][c] == 0:
            methods = "; ".join(mt.text() for mt in eng.data.ingredients[i].methods[: eng.ing_unlocked[i]])
            return f"dice {p['dice']} fit no unlocked {p['ingredient']} method ({methods})"
        return None
    if name == "take":
        other = eng.rel(seat, p["chef"])
        if eng.cubes[seat] < 1:
            return "you have no Fortune cube to hand over, so you cannot use another chef's dice"
        if eng.area_rows()[other][p["pip"] - 1] == 0:
            return f"chef_{other} has no unused die of their colour showing {p['pip']} in their area"
        return None
    if name == "hustle_gain":
        if eng.hustle_supply <= 0:
            return "the Hustle supply is empty"
        col = (0 if p["die"] == "own" else 6) + p["pip"] - 1
        if eng.area_rows()[seat][col] == 0:
            return f"you have no unused {p['die']} die showing {p['pip']}; you have {describe_area(eng, seat)}"
        return None
    if name == "rotate":
        if eng.hustle < 1:
            return "the Hustle pool is empty"
        holder = eng.rel(seat, p["chef"])
        col = (0 if p["die"] == "own" else 6) + p["pip"] - 1
        if eng.area_rows()[holder][col] == 0:
            return f"chef_{holder}'s area has no unused {p['die']} die showing {p['pip']}"
        return None
    # move_cubes
    if eng.hustle < 1:
        return "the Hustle pool is empty"
    move = moves_by_label(eng.n)[p["move"]]
    if not _cubes_allow(eng, seat, move):
        return "a chef named as a source has too few Fortune cubes (cubes: " + ", ".join(
            f"chef_{s}={c}" for s, c in enumerate(eng.cubes)) + ")"
    return None


def service_check(eng, seat: int, name: str, p: dict):
    if name == "serve":
        if eng.phase != "open":
            return "customers can only be served while the timers run (not while washing, not after closing)" \
                if eng.phase in ("wash", "closed") else f"no customers are waiting now (phase: {eng.phase})"
        cu = eng.current_customer()
        if cu is None:
            return "there is no customer at the counter (an Event card is showing)" if eng.current >= 0 else "there is no customer at the counter"
        recipe = eng.data.recipes[cu.recipe]
        if eng.recipe_holder[cu.recipe] != seat:
            return f"only the holder of the {recipe.name} recipe (chef_{eng.recipe_holder[cu.recipe]}) can serve this customer"
        empty = [eng.data.ingredients[i].key for i in recipe.ingredients if eng.ing_level[i] < 1]
        if empty:
            return f"{recipe.name} needs {', '.join(empty)}, which is on row 0"
        if p["flip"] == "high":
            if not eng.first_served:
                return "the first serve of the day flips the second, unstarted timer (flip='low')"
            if not timers.distinct(eng.timers):
                return "both timers hold the same sand; use flip='low'"
        return None
    if name == "wash":
        if eng.phase != "open":
            return f"the dishes can only be washed while open for business (now: {eng.phase})"
        washes = eng.data.components["washes_per_day"]
        if eng.washes >= washes:
            return f"the Dishwasher is used up for today ({washes} washes)"
        if eng.dirty_dice() == 0:
            return "the Dirty Dishes are empty"
        return None
    if name == "finish_wash":
        if eng.phase != "wash":
            return "no wash is under way"
        if p["flip"] == "high" and not timers.distinct(eng.timers):
            return "both timers hold the same sand; use flip='low'"
        return None
    # close
    if eng.phase != "open":
        return f"only an open restaurant can close (now: {eng.phase})"
    return None


def power_check(eng, seat: int, name: str, p: dict):
    key, phases = POWER_ACTIONS[name]
    if not eng.config["powers"]:
        return "Player Powers are not in play (powers=False)"
    mine = eng.character[seat]
    if mine < 0 or eng.data.characters[mine].key != key:
        who = eng.data.characters[mine].name if mine >= 0 else "nobody yet"
        return f"only the owner of the {key} card can use this power; you are {who}"
    if eng.power_used[seat]:
        return "your power is already used today (it flips back at Next Day Prep)"
    if eng.phase not in phases:
        return f"this power works only in phase {'/'.join(phases)} (now: {eng.phase})"
    if name == "lily_restart":
        if p["timer"] == "high" and not timers.distinct(eng.timers):
            return "both timers hold the same sand; use timer='low'"
        return None
    if name == "auntie_reseat":
        if eng.current_customer() is None:
            return "there is no customer at the counter"
        return None if eng.deck else "the Regular deck is empty: nobody else is waiting"
    if name == "grandpa_substitute":
        a_key, b_key = p["swap"].split(">")
        a, b = eng.data.ingredient_id(a_key), eng.data.ingredient_id(b_key)
        if eng.ing_holder[a] < 0 or eng.ing_holder[b] < 0:
            return "both ingredients must be in play"
        k = grandpa_amount(eng, seat)
        if eng.ing_level[a] < k:
            return (f"{a_key} is on row {eng.ing_level[a]}: Grandpa substitutes {k} row{'s' if k != 1 else ''}"
                    if eng.ing_level[a] else f"{a_key} is on row 0: nothing to substitute with")
        return None if eng.ing_level[b] < eng.top else f"{b_key} is already on the top row"
    if name == "mama_reroll":
        return None if sum(eng.area_rows()[seat][:6]) > 0 else "you have no unused dice of your colour in your area"
    # uncle_deliver
    i = eng.data.ingredient_id(p["ingredient"])
    if eng.ing_holder[i] < 0:
        return f"{p['ingredient']} is not in play"
    return None if eng.ing_level[i] < eng.top else f"{p['ingredient']} is already on the top row"


_DECISION_PHASES_OF = {"choose_character": ("choose_character",), "give_ingredient": ("distribute", "prep"),
                       "give_third_die": ("third_die",), "give_goal_cubes": ("goal_cubes",)}


def decision_check(eng, seat: int, name: str, p: dict):
    phases = _DECISION_PHASES_OF.get(name, ("prep",))
    if eng.phase not in phases:
        return f"{name} is a decision of the {'/'.join(phases)} phase (now: {eng.phase})"
    if seat != eng.turn:
        return f"it is chef_{eng.turn}'s decision, not yours"
    comp = eng.data.components
    if name == "choose_character":
        c = eng.data.character_id(p["character"])
        return f"{p['character']} was already chosen" if c in eng.character else None
    if name == "give_ingredient":
        if not eng.pending:
            return "no Ingredient card is waiting to be given"
        to = eng.rel(seat, p["chef"])
        if not give_card_allowed(eng, to, eng.phase == "distribute"):
            return "every chef must hold at least one Ingredient card: give it to a chef without one"
        return None
    if name in ("give_third_die", "give_goal_cubes"):
        return None
    if eng.pending:
        return "first give out the new Ingredient cards of the recipe you bought (give_ingredient)"
    if name == "buy_recipe":
        k = p["offer"]
        if k >= len(eng.offers) or eng.offers[k] < 0:
            return f"offer slot {k} is empty"
        price = eng.data.recipes[eng.offers[k]].price
        return None if eng.money >= price else f"the recipe costs ${price}; you have ${eng.money}"
    if name == "upgrade":
        i = eng.data.ingredient_id(p["ingredient"])
        if eng.ing_holder[i] < 0:
            return f"{p['ingredient']} is not in play"
        if eng.ing_unlocked[i] >= 4:
            return f"all 4 methods of {p['ingredient']} are already uncovered"
        cost = comp["upgrade_cost"]
        return None if eng.money >= cost else f"an upgrade costs ${cost}; you have ${eng.money}"
    if name == "advertise":
        return None if eng.coupons else "the Coupon deck is empty"
    # buy_hustle
    cost = comp["hustle_cost"]
    if eng.money < cost:
        return f"Hustle costs ${cost}; you have ${eng.money}"
    return None if eng.hustle_supply > 0 else "the Hustle supply is empty"


#: action name -> its check
CHECKS = {
    **{name: kitchen_check for name in ("prepare", "take", "hustle_gain", "rotate", "move_cubes")},
    **{name: service_check for name in ("serve", "wash", "finish_wash", "close")},
    **{name: power_check for name in POWER_ACTIONS},
    **{name: decision_check for name in ("choose_character", "give_ingredient", "give_third_die", "give_goal_cubes",
                                         "buy_recipe", "upgrade", "advertise", "buy_hustle")},
}
