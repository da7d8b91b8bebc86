"""A scripted Frying Master chef that uses public information only.

Each tick it plans the current order from :meth:`public_view`:

1. setup / no order: take the pile whose top plate's back hint looks easiest
   to cook from what lies on the table (in Pre-order Fry: the order itself),
   favouring the round's bonus category;
2. serve as soon as the plate is a correct order;
3. give up an order that can no longer be correct (wrong or surplus food) or
   that needs a food no longer anywhere on the table (card counting: a food's
   face-down cards = its total minus every visible card of it);
4. tip a spatula holding food the order cannot use;
5. lift a needed image-up card (specific foods first, then "any" slots with
   non-disliked foods), with any free spatula that has room;
6. set the spatula's load on the plate when the order is covered, the
   spatula is full or nothing useful is image-up;
7. otherwise flip a face-down card of a needed category (where the needed
   food can still be hiding); else wait.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.engine import NOOP
from envs.core.policy import Policy, table_engine
from envs.frying_master.actions import action_index
from envs.frying_master.cards import Catalog, catalog
from envs.frying_master.public import PublicView
from envs.frying_master.rules.scoring import evaluate, missing


def visible_counts(view: PublicView, n_foods: int) -> list[int]:
    """Cards of each food that are visible anywhere off the face-down table."""
    out = list(view.table_up)
    for seat in view.seats:
        for f, k in enumerate(seat.plate_cards):
            out[f] += k
        for load in seat.loads:
            for f in load:
                out[f] += 1
        for _, counts in seat.completed:
            for f, k in enumerate(counts):
                out[f] += k
    return out


def face_down_counts(view: PublicView, cat: Catalog) -> list[int]:
    """Card counting: face-down cards per food = total - visible."""
    vis = visible_counts(view, len(cat.foods))
    return [f.count - vis[f.idx] for f in cat.foods]


def pile_value(view: PublicView, p: int, cat: Catalog) -> float:
    """How attractive pile ``p``'s top plate looks (higher is better)."""
    hint = view.pile_hints[p]
    if hint is None:
        return -1e9
    mode = cat.modes[view.mode]
    n = sum(hint)
    on_table = [0] * len(cat.categories)
    for f in cat.foods:
        on_table[f.category] += view.table_up[f.idx]
    front = view.pile_fronts[p]
    if front is not None:  # Pre-order Fry: the whole order is known
        plate = cat.plates[front]
        have = sum(min(plate.specific[f], view.table_up[f]) for f in range(len(cat.foods)))
        have += sum(min(plate.any[c], on_table[c]) for c in range(len(cat.categories)))
        score = have / n + plate.flavour / (3 + 2.5 * n)
    else:
        score = sum(min(h, u) for h, u in zip(hint, on_table)) / n + (n + 1) / (3 + 2.5 * n)
    if mode.kind == "most_category":
        score += 0.3 * hint[mode.category]
    return score


class HeuristicPolicy(Policy):
    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray], agent: str, env: Any = None) -> int:
        engine = table_engine(env, "frying_master")
        view = engine.public_view(agent)
        action = decide(view)
        mask = observation["action_mask"]
        if mask[action]:
            return action
        if mask[NOOP]:
            return NOOP
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action")
        return int(legal[0])


def decide(view: PublicView) -> int:
    """The heuristic's action for ``view.me`` (public information only)."""
    cat = catalog()
    me = view.my_seat
    ix = action_index(len(me.loads))
    if view.phase == "choose":
        if view.chooser != me.agent:
            return NOOP
        return ix.draw[max((0, 1), key=lambda p: pile_value(view, p, cat))]
    if view.phase not in ("play", "countdown") or me.finished:
        return NOOP
    free = [s for s in range(me.spatulas) if me.busy[s] == 0]
    if me.plate is None:
        if view.pile_sizes[0] or view.pile_sizes[1]:
            return ix.draw[max((0, 1), key=lambda p: pile_value(view, p, cat))]
        return NOOP
    mode = cat.modes[view.mode]
    casual = mode.kind == "casual"
    cat_of = [f.category for f in cat.foods]
    plate = cat.plates[me.plate]
    if evaluate(plate, me.plate_cards, cat_of, casual).valid:
        return ix.serve
    need = missing(plate, me.plate_cards, cat_of, casual)
    if need is None:
        return ix.give_up
    spec, anyc = list(need[0]), list(need[1])
    # Assign what the spatulas already carry; a spatula with unusable food is tipped.
    for s in range(me.spatulas):
        bad = False
        for f in me.loads[s]:
            if spec[f] > 0:
                spec[f] -= 1
            elif anyc[cat_of[f]] > 0:
                anyc[cat_of[f]] -= 1
            else:
                bad = True
        if bad and s in free:
            return ix.tip[s]
    loaded = [s for s in free if me.loads[s]]
    if sum(spec) + sum(anyc) == 0:
        return ix.unload[loaded[0]] if loaded else NOOP
    down = face_down_counts(view, cat)
    disliked = set() if casual else set(plate.disliked)
    # What could be lifted now, best first.
    target = None
    for f in range(len(cat.foods)):
        if spec[f] and view.table_up[f]:
            target = f
            break
    flip_cats: list[int] = []
    for f in range(len(cat.foods)):
        if spec[f] > view.table_up[f]:
            if down[f] + view.table_up[f] < spec[f]:
                return ix.give_up  # the food is not on the table any more
            flip_cats.append(cat_of[f])
    for c in range(len(cat.categories)):
        if not anyc[c]:
            continue
        foods = [f.idx for f in cat.foods if f.category == c]
        # Foods still needed as specific ones are kept for those slots.
        spare = [f for f in foods if view.table_up[f] > spec[f]]
        liked = [f for f in spare if f not in disliked]
        hidden_liked = sum(down[f] for f in foods if f not in disliked)
        if target is None and liked:
            target = max(liked, key=lambda f: view.table_up[f])
        elif not liked:
            if hidden_liked and view.table_down[c]:
                flip_cats.append(c)
            elif target is None and spare:
                target = spare[0]  # only disliked food left: take it (-1 beats nothing)
            elif not spare and not view.table_down[c]:
                return ix.give_up
    room = [s for s in free if len(me.loads[s]) < cat.spatula_capacity]
    if target is not None and room:
        return ix.lift[room[0]][target]
    if loaded:
        return ix.unload[loaded[0]]
    if free:
        for c in flip_cats:
            if view.table_down[c]:
                return ix.flip[free[0]][c]
    return NOOP
