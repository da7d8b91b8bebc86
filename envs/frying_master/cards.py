"""Frying Master's components, loaded from ``data/*.json`` and validated.

The rulebook gives only component counts (24 Order Plates, 8 Spatula Cards,
58 Food Cards, 15 Spice Tiles, 6 Gold Spatula tokens), the orders that end a
round, the countdown and the first six Stir-Fry Modes. Everything else (the
foods, the plate faces and backs, Pre-order and Teppanyaki Fry) is
reconstructed data, marked so in each file and checked here against the
counts and against the rules it must satisfy. :func:`build_catalog` raises
:class:`~envs.core.errors.DataError` on any mismatch; :func:`catalog` is the
cached, validated catalogue of the shipped data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from envs.core.data import check_count, load_json, require, require_keys
from envs.core.errors import DataError

PACKAGE = "envs.frying_master"
#: The three plate types named by the rulebook, in a fixed order.
PLATE_TYPES: tuple[str, ...] = ("meat", "vegetable", "rice_noodles")
#: The Stir-Fry Modes the rulebook prints (the table is cut off after these and "Pre-order Fry").
PRINTED_MODES: tuple[str, ...] = ("casual", "meat", "veggie", "rice_noodles", "spicy", "mixed")
MODE_KINDS: tuple[str, ...] = ("casual", "most_category", "one_of_each_type", "preorder", "teppanyaki")
ACTION_KINDS: tuple[str, ...] = ("flip", "stir", "lift", "unload", "tip", "draw", "serve", "give_up")


@dataclass(frozen=True)
class Category:
    idx: int
    id: str
    name: str
    component: str  # "food_card" or "spice_tile"
    shape: str


@dataclass(frozen=True)
class Food:
    idx: int
    id: str
    name: str
    category: int
    count: int


@dataclass(frozen=True)
class Plate:
    """One Order Plate: the order side (front) and the back.

    ``specific[f]``: how many of food ``f`` the order names exactly;
    ``any[c]``: how many "any food of category ``c``" icons it shows;
    ``disliked``: food indices that cost 1 point each; ``hint[c]``: the
    back's ingredient hint (required ingredients per category).
    """

    idx: int
    name: str
    type: int
    specific: tuple[int, ...]
    any: tuple[int, ...]
    disliked: tuple[int, ...]
    flavour: int
    mode: int
    hint: tuple[int, ...]

    @property
    def size(self) -> int:
        """The order's number of food cards (required ingredients, all categories)."""
        return sum(self.hint)

    @property
    def n_ingredients(self) -> int:
        return sum(self.specific) + sum(self.any)


@dataclass(frozen=True)
class Mode:
    idx: int
    id: str
    name: str
    kind: str
    category: int | None  # most_category modes only
    spatulas: int
    reconstructed: bool
    rule: str


@dataclass(frozen=True)
class Catalog:
    categories: tuple[Category, ...]
    foods: tuple[Food, ...]
    plates: tuple[Plate, ...]
    modes: tuple[Mode, ...]
    spatula_colours: tuple[str, ...]
    gold_tokens: int
    orders_to_end_round: dict
    countdown_seconds: float
    gold_to_win: int
    mode_bonus: int
    spatula_capacity: int
    stir_cards: int
    action_ticks: dict
    default_round_ticks: int

    # -------------------------------------------------------------- lookups
    def food(self, food_id: str) -> Food:
        for f in self.foods:
            if f.id == food_id:
                return f
        raise KeyError(f"no food {food_id!r}; foods are {[f.id for f in self.foods]}")

    def category(self, cat_id: str) -> Category:
        for c in self.categories:
            if c.id == cat_id:
                return c
        raise KeyError(f"no category {cat_id!r}; categories are {[c.id for c in self.categories]}")

    def mode(self, mode_id: str) -> Mode:
        for m in self.modes:
            if m.id == mode_id:
                return m
        raise KeyError(f"no Stir-Fry Mode {mode_id!r}; modes are {[m.id for m in self.modes]}")

    def plate_by_name(self, name: str) -> Plate:
        for p in self.plates:
            if p.name == name:
                return p
        raise KeyError(f"no plate named {name!r}")

    @property
    def food_ids(self) -> tuple[str, ...]:
        return tuple(f.id for f in self.foods)

    @property
    def category_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.categories)

    @property
    def mode_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.modes)

    @property
    def order_sizes(self) -> tuple[int, ...]:
        """Per plate: the order's number of food cards."""
        return tuple(p.size for p in self.plates)

    def foods_of(self, cat: int) -> tuple[int, ...]:
        return tuple(f.idx for f in self.foods if f.category == cat)

    def slots_text(self, plate: Plate) -> list[str]:
        """The order side's required icons, readable (``beef``, ``any meat``)."""
        out = []
        for f in self.foods:
            out += [f.id] * plate.specific[f.idx]
        for c in self.categories:
            out += [f"any {c.id}"] * plate.any[c.idx]
        return out


# ---------------------------------------------------------------------- building


def _categories(foods_doc: dict) -> tuple[Category, ...]:
    cats = foods_doc["categories"]
    out = []
    for i, c in enumerate(cats):
        require_keys(f"category #{i}", c, ["id", "name", "component", "shape"])
        require(c["component"] in ("food_card", "spice_tile"),
                f"category {c['id']!r}: component must be 'food_card' or 'spice_tile', got {c['component']!r}")
        out.append(Category(i, c["id"], c["name"], c["component"], c["shape"]))
    ids = [c.id for c in out]
    require(len(set(ids)) == len(ids), f"duplicate category ids in {ids}")
    food_cats = sorted(c.id for c in out if c.component == "food_card")
    require(food_cats == sorted(PLATE_TYPES),
            f"food card categories must be the rulebook's {sorted(PLATE_TYPES)}, got {food_cats}")
    check_count("spice tile categories", sum(c.component == "spice_tile" for c in out), 1)
    return tuple(out)


def _foods(foods_doc: dict, cats: tuple[Category, ...], counts: dict) -> tuple[Food, ...]:
    by_id = {c.id: c for c in cats}
    out = []
    for i, f in enumerate(foods_doc["foods"]):
        require_keys(f"food #{i}", f, ["id", "name", "category", "count"])
        require(f["category"] in by_id, f"food {f['id']!r}: unknown category {f['category']!r}; known {sorted(by_id)}")
        require(isinstance(f["count"], int) and f["count"] >= 1, f"food {f['id']!r}: count must be a positive integer")
        out.append(Food(i, f["id"], f["name"], by_id[f["category"]].idx, f["count"]))
    ids = [f.id for f in out]
    require(len(set(ids)) == len(ids), f"duplicate food ids in {ids}")
    cards = sum(f.count for f in out if cats[f.category].component == "food_card")
    tiles = sum(f.count for f in out if cats[f.category].component == "spice_tile")
    check_count("Food Cards", cards, counts["food_cards"])
    check_count("Spice Tiles", tiles, counts["spice_tiles"])
    for c in cats:
        require(any(f.category == c.idx for f in out), f"category {c.id!r} has no food")
    return tuple(out)


def _modes(modes_doc: dict, cats: tuple[Category, ...]) -> tuple[Mode, ...]:
    by_id = {c.id: c for c in cats}
    out = []
    for i, m in enumerate(modes_doc["modes"]):
        require_keys(f"mode #{i}", m, ["id", "name", "kind", "rule", "reconstructed"])
        require(m["kind"] in MODE_KINDS, f"mode {m['id']!r}: kind {m['kind']!r} is not one of {MODE_KINDS}")
        cat = None
        if m["kind"] == "most_category":
            require(m.get("category") in by_id, f"mode {m['id']!r}: most_category needs a known category, got {m.get('category')!r}")
            cat = by_id[m["category"]].idx
        spatulas = int(m.get("spatulas", 1))
        require(spatulas in (1, 2), f"mode {m['id']!r}: spatulas must be 1 or 2")
        require((spatulas == 2) == (m["kind"] == "teppanyaki"), f"mode {m['id']!r}: only Teppanyaki gives two spatulas")
        out.append(Mode(i, m["id"], m["name"], m["kind"], cat, spatulas, bool(m["reconstructed"]), m["rule"]))
    ids = [m.id for m in out]
    require(len(set(ids)) == len(ids), f"duplicate mode ids in {ids}")
    for printed in PRINTED_MODES:
        require(printed in ids, f"the printed Stir-Fry Mode {printed!r} is missing")
        require(not out[ids.index(printed)].reconstructed, f"mode {printed!r} is printed in the rulebook, not reconstructed")
    require("preorder" in ids and "teppanyaki" in ids, "Pre-order Fry and Teppanyaki Fry must be defined")
    for m in out:
        if m.kind == "most_category":
            require(m.category is not None, f"mode {m.id!r} lacks its category")
    return tuple(out)


def _plates(plates_doc: dict, cats, foods, modes, counts: dict) -> tuple[Plate, ...]:
    cat_idx = {c.id: c.idx for c in cats}
    food_by_id = {f.id: f for f in foods}
    mode_idx = {m.id: m.idx for m in modes}
    out = []
    for i, p in enumerate(plates_doc["plates"]):
        what = f"plate #{i} ({p.get('name', '?')})"
        require_keys(what, p, ["id", "name", "type", "required", "disliked", "flavour", "back"])
        require(p["id"] == i, f"{what}: ids must run 0..23 in order, got {p['id']!r}")
        require(p["type"] in PLATE_TYPES, f"{what}: type {p['type']!r} is not one of {PLATE_TYPES}")
        specific = [0] * len(foods)
        anyc = [0] * len(cats)
        for slot in p["required"]:
            if "food" in slot:
                require(slot["food"] in food_by_id, f"{what}: unknown food {slot['food']!r}")
                specific[food_by_id[slot["food"]].idx] += 1
            elif "any" in slot:
                require(slot["any"] in cat_idx, f"{what}: unknown category {slot['any']!r}")
                anyc[cat_idx[slot["any"]]] += 1
            else:
                raise DataError(f"{what}: a required slot must be {{'food': id}} or {{'any': category}}, got {slot!r}")
        n = sum(specific) + sum(anyc)
        require(2 <= n <= 4, f"{what}: needs 2-4 ingredients, has {n}")
        for f in foods:
            require(specific[f.idx] <= f.count, f"{what}: needs {specific[f.idx]} {f.id} but only {f.count} exist")
        disliked = []
        for d in p["disliked"]:
            require(d in food_by_id, f"{what}: unknown disliked food {d!r}")
            f = food_by_id[d]
            require(specific[f.idx] == 0, f"{what}: {d!r} is both required and disliked")
            require(anyc[f.category] > 0,
                    f"{what}: disliked {d!r} can never be on a correct plate (no 'any {cats[f.category].id}' slot)")
            disliked.append(f.idx)
        fl = p["flavour"]
        require(isinstance(fl, int) and fl > sum(anyc),
                f"{what}: flavour {fl!r} must exceed its {sum(anyc)} 'any' slot(s), so a correct order never scores below 1")
        back = p["back"]
        require_keys(f"{what} back", back, ["mode", "hint"])
        require(back["mode"] in mode_idx, f"{what}: the back's mode {back['mode']!r} is not a known mode")
        hint = [int(back["hint"].get(c.id, 0)) for c in cats]
        unknown = set(back["hint"]) - set(cat_idx)
        require(not unknown, f"{what}: hint names unknown categories {sorted(unknown)}")
        true_hint = [anyc[c.idx] + sum(specific[f.idx] for f in foods if f.category == c.idx) for c in cats]
        require(hint == true_hint, f"{what}: the back's hint {hint} does not match the order side {true_hint}")
        out.append(Plate(i, p["name"], PLATE_TYPES.index(p["type"]), tuple(specific), tuple(anyc),
                         tuple(sorted(disliked)), fl, mode_idx[back["mode"]], tuple(hint)))
    check_count("Order Plates", len(out), counts["order_plates"])
    for t in range(len(PLATE_TYPES)):
        check_count(f"{PLATE_TYPES[t]} plates", sum(p.type == t for p in out), counts["order_plates"] // len(PLATE_TYPES))
    for m in modes:
        on = [p for p in out if p.mode == m.idx]
        check_count(f"plates whose back shows {m.id!r}", len(on), counts["order_plates"] // len(modes))
        require(sorted(p.type for p in on) == list(range(len(PLATE_TYPES))),
                f"mode {m.id!r} must be on one plate of each type")
    names = [p.name for p in out]
    require(len(set(names)) == len(names), "plate names must be unique")
    return tuple(out)


def build_catalog(components: dict, foods_doc: dict, modes_doc: dict, plates_doc: dict, spatulas_doc: dict) -> Catalog:
    """Validate the raw data documents and build the :class:`Catalog`."""
    for name, doc in (("components", components), ("foods", foods_doc), ("modes", modes_doc),
                      ("plates", plates_doc), ("spatulas", spatulas_doc)):
        require(isinstance(doc, dict) and "reconstructed" in doc, f"data/{name}.json must carry a 'reconstructed' note")
    counts = components["counts"]
    require_keys("components.counts", counts, ["order_plates", "spatula_cards", "food_cards", "spice_tiles", "gold_spatula_tokens"])
    # The rulebook's printed counts: the data may not change them.
    for key, expected in (("order_plates", 24), ("spatula_cards", 8), ("food_cards", 58), ("spice_tiles", 15),
                          ("gold_spatula_tokens", 6)):
        check_count(f"components.counts.{key}", counts[key], expected)
    require(components["orders_to_end_round"] == {"2": 6, "3": 5, "4": 4},
            f"orders to end a round must be the rulebook's 2:6, 3:5, 4:4, got {components['orders_to_end_round']}")
    # The rulebook's other printed numbers ("the first player to earn two Gold Spatulas wins", "+3
    # points extra", "3... 2... 1... Time's up!"): the match bound, the default truncation and the
    # observation's ranges rest on them too.
    for key, printed in (("gold_spatulas_to_win", 2), ("mode_bonus", 3), ("countdown_seconds", 3)):
        value = components.get(key)
        require(type(value) in (int, float) and value == printed,
                f"components.{key} must be the rulebook's {printed}, got {value!r}")
    cats = _categories(foods_doc)
    foods = _foods(foods_doc, cats, counts)
    modes = _modes(modes_doc, cats)
    plates = _plates(plates_doc, cats, foods, modes, counts)
    spatulas = spatulas_doc["spatula_cards"]
    check_count("Spatula Cards", len(spatulas), counts["spatula_cards"])
    check_count("Gold Spatula tokens", spatulas_doc["gold_spatula_tokens"], counts["gold_spatula_tokens"])
    model = components["model"]
    require_keys("components.model", model, ["spatula_capacity", "stir_cards", "action_ticks", "default_round_ticks"])
    ticks = model["action_ticks"]
    require(sorted(ticks) == sorted(ACTION_KINDS), f"action_ticks must give exactly {sorted(ACTION_KINDS)}")
    require(all(isinstance(v, int) and v >= 1 for v in ticks.values()), "every action costs at least one tick")
    require(all(ticks[k] == 1 for k in ("draw", "serve", "give_up")),
            "plate actions (draw, serve, give_up) take one tick: they use the plate hand, not a spatula")
    require(model["spatula_capacity"] >= 1 and model["stir_cards"] >= 1, "capacity and stir size must be positive")
    return Catalog(
        categories=cats, foods=foods, plates=plates, modes=modes,
        spatula_colours=tuple(s["colour"] for s in spatulas),
        gold_tokens=int(spatulas_doc["gold_spatula_tokens"]),
        orders_to_end_round={int(k): int(v) for k, v in components["orders_to_end_round"].items()},
        countdown_seconds=float(components["countdown_seconds"]),
        gold_to_win=int(components["gold_spatulas_to_win"]),
        mode_bonus=int(components["mode_bonus"]),
        spatula_capacity=int(model["spatula_capacity"]),
        stir_cards=int(model["stir_cards"]),
        action_ticks=dict(ticks),
        default_round_ticks=int(model["default_round_ticks"]),
    )


def raw_documents() -> dict[str, Any]:
    """The shipped data files, parsed but not validated (tests alter copies)."""
    return {name: load_json(PACKAGE, f"{name}.json") for name in ("components", "foods", "modes", "plates", "spatulas")}


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The validated catalogue of the shipped data (cached)."""
    docs = raw_documents()
    return build_catalog(docs["components"], docs["foods"], docs["modes"], docs["plates"], docs["spatulas"])
