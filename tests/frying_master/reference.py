"""Plain, slow reference definitions of Frying Master's observation and mask.

Written field by field from the rules and the observation table, with no
caching, templates or incremental updates, so the fast engine and encoder
can be checked against them (``test_fast_paths.py``).
"""

from __future__ import annotations

import numpy as np

from envs.frying_master.cards import catalog
from envs.frying_master.encoding import FryingMasterEncoder, plate_fronts
from envs.frying_master.engine import PHASES, FryingMasterEngine
from envs.frying_master.rules.scoring import category_counts, evaluate, missing


def reference_observation(encoder: FryingMasterEncoder, engine: FryingMasterEngine, agent: str) -> np.ndarray:
    """``agent``'s observation built from scratch from its public view."""
    cat, lay = catalog(), encoder.layout
    fronts = plate_fronts(cat)
    cat_of = [f.category for f in cat.foods]
    C, S = len(cat.categories), encoder.S
    view = engine.public_view(agent)
    casual = cat.modes[view.mode].kind == "casual"
    v = lay.zeros()
    lay.set(v, "phase", np.eye(len(PHASES), dtype=np.float32)[PHASES.index(view.phase)])
    lay.set(v, "my_choice_turn", float(view.chooser == agent))
    lay.set(v, "mode", np.eye(len(cat.modes), dtype=np.float32)[view.mode])
    for name in ("round_no", "play_tick", "countdown_left", "orders_to_end"):
        lay.set(v, name, getattr(view, name))
    lay.set(v, "table_face_up", view.table_up)
    lay.set(v, "table_face_down", view.table_down)
    lay.set(v, "pile_size", view.pile_sizes)
    lay.set(v, "pile_top_hint", [h if h is not None else [0] * C for h in view.pile_hints])
    lay.set(v, "pile_top_mode", [np.eye(len(cat.modes))[m] if m is not None else np.zeros(len(cat.modes))
                                 for m in view.pile_modes])
    lay.set(v, "pile_top_front", [fronts[t] if t is not None else fronts[0] * 0 for t in view.pile_fronts])
    i = view.agents.index(agent)
    seats = view.seats[i:] + view.seats[:i]  # me first, then clockwise
    per_seat: dict[str, list] = {name: [] for name in FryingMasterEncoder.PER_SEAT}
    for seat in seats:
        value = fixable = miss = 0
        if seat.plate is not None:
            plate = cat.plates[seat.plate]
            value = evaluate(plate, seat.plate_cards, cat_of, casual).score
            need = missing(plate, seat.plate_cards, cat_of, casual)
            if need is not None:
                fixable, miss = 1, sum(need[0]) + sum(need[1])
        load = np.zeros((S, len(cat.foods)))
        for s, ld in enumerate(seat.loads):
            for f in ld:
                load[s, f] += 1
        score, dcards, dtypes, dfoods = 0, np.zeros(C), np.zeros(3), np.zeros(len(cat.foods))
        for p, c in seat.completed:
            dfoods += c  # every completed order's food, right or wrong
            sc = evaluate(cat.plates[p], c, cat_of, casual)
            if sc.valid:
                score += sc.score
                dcards += category_counts(c, cat_of, C)
                dtypes[cat.plates[p].type] += 1
        rows = {
            "has_plate": seat.plate is not None,
            "plate_front": fronts[seat.plate] if seat.plate is not None else fronts[0] * 0,
            "plate_cards": seat.plate_cards, "plate_value": value, "plate_fixable": fixable, "plate_missing": miss,
            "spatula_load": load, "spatula_busy": seat.busy,
            "spatula_in_play": [1 if s < seat.spatulas else 0 for s in range(S)],
            "completed_orders": len(seat.completed), "completed_score": score, "completed_cards": dcards,
            "completed_types": dtypes, "completed_foods": dfoods, "finished": seat.finished, "gold": min(seat.gold, cat.gold_to_win),
            "last_round_total": seat.last_round_total,
        }
        for name in per_seat:
            per_seat[name].append(np.asarray(rows[name], dtype=np.float32))
    for name, rows in per_seat.items():
        lay.set(v, name, np.stack(rows))
    return v


def reference_mask(eng: FryingMasterEngine, agent: str) -> np.ndarray:
    """``agent``'s legal-action mask, rule by rule."""
    m = np.zeros(eng.actions.n, dtype=np.int8)
    m[0] = 1
    ix = eng.ix
    if eng.done:  # after the game only noop (a wrapper that auto-resets still finds a legal action)
        return m
    if eng.phase == "choose":
        if agent == eng.choose_queue[0]:  # noop stays legal: it takes pile A (B if A is empty)
            for p in (0, 1):
                if eng.piles[p]:
                    m[ix.draw[p]] = 1
        return m
    if agent in eng.finishers:
        return m
    plate = eng.plates[agent]
    if plate is None:
        for p in (0, 1):
            if eng.piles[p]:
                m[ix.draw[p]] = 1
    else:
        m[ix.give_up] = 1
        held = sum(eng.plate_cards[agent])
        if held >= 1 if eng.config.get("serve_rule") == "any_food" else held == sum(eng.cat.plates[plate].hint):
            m[ix.serve] = 1  # "Order's up!": the order's number of food cards (v0 rule: any food)
    table = eng.table
    for s in range(eng.spatulas):
        if eng.busy[agent][s]:
            continue
        load = eng.loads[agent][s]
        for c in range(len(table.down)):
            if table.down[c]:
                m[ix.flip[s][c]] = 1
        if table.total() > 0:
            m[ix.stir[s]] = 1
        if len(load) < eng.capacity:
            for f in range(len(table.up)):
                if table.up[f]:
                    m[ix.lift[s][f]] = 1
        if load:
            m[ix.tip[s]] = 1
            if plate is not None:
                m[ix.unload[s]] = 1
    return m
