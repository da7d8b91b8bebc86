"""Text picture of a Frying Master table: clock, mode, table, piles, every
player's plate, spatulas, completed orders and scores. Shows only public
information (it is what everyone at the table sees)."""

from __future__ import annotations

from envs.core.render import box, rule, table
from envs.frying_master.cards import PLATE_TYPES, catalog
from envs.frying_master.engine import FryingMasterEngine
from envs.frying_master.public import PublicView
from envs.frying_master.rules.scoring import evaluate


def _cards(counts, foods) -> str:
    parts = [f"{foods[f].id}x{k}" if k > 1 else foods[f].id for f, k in enumerate(counts) if k]
    return ", ".join(parts) if parts else "-"


def plate_text(plate_idx: int) -> str:
    cat = catalog()
    p = cat.plates[plate_idx]
    dis = ", ".join(cat.foods[f].id for f in p.disliked) or "none"
    return (f"{p.name} [{PLATE_TYPES[p.type]}] needs {' + '.join(cat.slots_text(p))}; "
            f"dislikes {dis}; flavour {p.flavour}")


def render_view(view: PublicView) -> str:
    cat = catalog()
    foods = cat.foods
    mode = cat.modes[view.mode]
    casual = mode.kind == "casual"
    cat_of = [f.category for f in foods]
    clock = f"play tick {view.play_tick}/{view.round_ticks}"
    if view.phase == "countdown":
        clock += f", countdown {view.countdown_left}/{view.countdown_ticks}"
    elif view.phase == "choose":
        clock = f"setup: {view.chooser} chooses a plate"
    elif view.phase == "over":
        clock = "match over"
    lines = [rule(f"Frying Master - round {view.round_no} - {mode.name}"),
             f"{mode.rule}",
             f"{clock}; a round ends at {view.orders_to_end} completed orders"]
    rows = []
    for c in cat.categories:
        up = [(f.id, view.table_up[f.idx]) for f in foods if f.category == c.idx and view.table_up[f.idx]]
        rows.append([c.name, ", ".join(f"{i}x{k}" for i, k in up) or "-", view.table_down[c.idx]])
    lines.append(box("table", table(rows, ["category", "image-up", "face-down"]).splitlines()))
    piles = []
    for p, name in enumerate(("A", "B")):
        hint = view.pile_hints[p]
        back = "empty" if hint is None else f"back {cat.modes[view.pile_modes[p]].name}, hint " + ", ".join(
            f"{cat.categories[c].id} {k}" for c, k in enumerate(hint) if k)
        front = f"; top: {plate_text(view.pile_fronts[p])}" if view.pile_fronts[p] is not None else ""
        piles.append(f"pile {name}: {view.pile_sizes[p]} plates, {back}{front}")
    lines += piles
    rows = []
    for seat in view.seats:
        if seat.plate is None:
            order, value = "-", ""
        else:
            order = cat.plates[seat.plate].name
            value = str(evaluate(cat.plates[seat.plate], seat.plate_cards, cat_of, casual).score)
        spatulas = " | ".join(
            ("[" + ", ".join(foods[f].id for f in load) + "]") + (f" busy {seat.busy[s]}" if seat.busy[s] else "")
            for s, load in enumerate(seat.loads[: seat.spatulas]))
        flag = " (done)" if seat.finished else ""
        rows.append([seat.agent + (" *" if seat.agent == view.me else "") + flag, order,
                     _cards(seat.plate_cards, foods), value, spatulas, len(seat.completed),
                     seat.gold, seat.last_round_total])
    lines.append(table(rows, ["chef", "order", "on plate", "worth", "spatula(s)", "done", "gold", "last round"]))
    for seat in view.seats:
        if seat.plate is not None:
            lines.append(f"  {seat.agent}: {plate_text(seat.plate)}")
        for p, c in seat.completed:
            s = evaluate(cat.plates[p], c, cat_of, casual)
            lines.append(f"  {seat.agent} served {cat.plates[p].name}: {_cards(c, foods)} -> "
                         f"{'correct' if s.valid else 'wrong'}, {s.score} pt")
    return "\n".join(lines)


def render_engine(engine: FryingMasterEngine, viewer: str | None = None) -> str:
    """The table as everyone sees it (``viewer`` only marks a seat)."""
    text = render_view(engine.public_view(viewer or engine.agents[0]))
    if engine.history:
        last = engine.history[-1]
        text += (f"\nlast round ({last['mode']}, {last['ended_by']}): totals {last['total']}, "
                 f"bonus {last['bonus']}, Gold Spatula to {', '.join(last['gold'])}")
    if engine.done:
        text += f"\nwinners: {', '.join(engine.winners)}"
    return text
