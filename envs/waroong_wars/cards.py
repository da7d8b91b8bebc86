"""Waroong Wars card data: load ``data/*.json`` and validate it against the rulebook.

The rulebook prints component counts but no card faces, so menu requirements,
ingredient and customer mixes are reconstructed (each data file says what).
:func:`build_catalog` turns the raw JSON into an immutable :class:`Catalog`
and raises :class:`~envs.core.errors.DataError` on anything that contradicts
the rulebook (counts, names, printed values, its Lontong Balap example).

Indices used everywhere in the engine:

* ingredient *types* ``0..8``: the five main categories in data order
  (Rice, Vegetable, Meat, Unique, Spice), then the four supplements;
* customer *kinds* ``0..13`` in data order;
* menu *cards* ``0..31`` (each dish's copies are consecutive);
* characters ``0..4``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from envs.core.data import check_count, load_json, require, require_keys
from envs.core.errors import DataError

PACKAGE = "envs.waroong_wars"

#: What the rulebook itself states; the data must agree with it.
RULEBOOK = {
    "ingredient_cards": 39,
    "main_ingredient_cards": 35,
    "supplementary_ingredient_cards": 4,
    "menu_cards": 32,
    "customer_cards": 32,
    "character_cards": 5,
    "go_boy_cards": 5,
    "extra_vp_tokens": 18,
    "first_cooking_marker": 1,
    "menu_deck_size": {3: 18, 4: 24, 5: 30},
    "display_size": 6,
    "cards_dealt_per_player": 6,
    "supplement_bonus_tokens": 2,
    "go_boy_limit_per_player": 1,
    "pair_bonus_vp": 5,
}
CATEGORY_NAMES = ("Rice", "Vegetable", "Meat", "Unique", "Spice")
#: Customer kinds as the rulebook lists them, with the printed end-of-game VP
#: of the scoring ones (``None``: no printed value, so the default 1 VP).
PRINTED_CUSTOMERS = {
    "Primadona": 4, "Biduanita": 3, "Foodies": 2, "Boyband": 1, "Preman": -1,
    "Perayu": None, "Maling": None, "Hansip": None, "Mbok Bakul": None,
    "Tukang Beras": None, "Tukang Sayur": None, "Tukang Daging": None, "Tukang Tahu": None, "Tukang Bumbu": None,
}
TUKANG_CATEGORY = {"Tukang Beras": "Rice", "Tukang Sayur": "Vegetable", "Tukang Daging": "Meat",
                   "Tukang Tahu": "Unique", "Tukang Bumbu": "Spice"}
PRINTED_CHARACTERS = ("Bu Prasojo", "Cak Londho", "Geng Bajoel", "Pak Bas", "Jeng Sastro")
ABILITIES = ("score", "perayu", "maling", "hansip", "mbok_bakul", "tukang")
POWERS = ("extra_customer_big_menu", "extra_ingredient", "pair_bonus", "go_boy_after_small_menu",
          "supplement_on_plain_menu")


@dataclass(frozen=True)
class Dish:
    index: int
    name: str
    requires: tuple[int, ...]  # per main category
    vp: int
    icons: tuple[int, ...]  # supplement indices 0..3
    copies: int
    description: str

    @property
    def size(self) -> int:
        """How many ingredient cards the menu requires."""
        return sum(self.requires)


@dataclass(frozen=True)
class Menu:
    """One menu card: a copy of a dish."""

    id: int
    dish: Dish

    @property
    def name(self) -> str:
        return self.dish.name


@dataclass(frozen=True)
class Supplement:
    index: int  # 0..3
    type: int  # ingredient type 5..8
    key: str
    name: str
    icon: str
    vp: int


@dataclass(frozen=True)
class CustomerKind:
    index: int
    key: str
    name: str
    count: int
    end_vp: int
    ability: str
    substitutes: int | None  # main category for a Tukang
    text: str


@dataclass(frozen=True)
class Character:
    index: int
    key: str
    name: str
    title: str
    power: str
    text: str


@dataclass(frozen=True)
class Catalog:
    categories: tuple[str, ...]  # category keys
    category_names: tuple[str, ...]
    main_cards: tuple[int, ...]  # cards per category
    supplements: tuple[Supplement, ...]
    ingredient_types: tuple[str, ...]  # 9 type keys
    ingredient_names: tuple[str, ...]  # 9 readable names
    ingredient_deck: tuple[int, ...]  # the 39 cards as types
    dishes: tuple[Dish, ...]
    menus: tuple[Menu, ...]
    customers: tuple[CustomerKind, ...]
    customer_deck: tuple[int, ...]  # the 32 cards as kinds
    characters: tuple[Character, ...]
    components: dict

    @property
    def n_types(self) -> int:
        return len(self.ingredient_types)

    def customer(self, key: str) -> CustomerKind:
        for c in self.customers:
            if c.key == key:
                return c
        raise KeyError(key)

    def character(self, key: str) -> Character:
        for c in self.characters:
            if c.key == key:
                return c
        raise KeyError(key)

    def tukang_for(self, category: int) -> int:
        """The customer kind that substitutes ``category``."""
        for c in self.customers:
            if c.substitutes == category:
                return c.index
        raise KeyError(category)


def load_raw() -> dict[str, Any]:
    """The five data files as parsed JSON (for :func:`build_catalog`)."""
    return {name: load_json(PACKAGE, f"{name}.json")
            for name in ("components", "ingredients", "menus", "customers", "characters")}


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The validated catalog (cached: data files are read once per process)."""
    return build_catalog(load_raw())


def _reconstructed(name: str, raw: Any) -> None:
    require(isinstance(raw, dict), f"data/{name}.json must hold a JSON object")
    require(isinstance(raw.get("reconstructed"), str) and raw["reconstructed"].strip() != "",
            f"data/{name}.json must say what is reconstructed in a 'reconstructed' note")


def _int(what: str, value: Any, low: int | None = None) -> int:
    require(isinstance(value, int) and not isinstance(value, bool), f"{what} must be an integer, got {value!r}")
    require(low is None or value >= low, f"{what} must be >= {low}, got {value}")
    return value


def build_catalog(raw: dict[str, Any]) -> Catalog:
    """Validate raw data (as :func:`load_raw` returns it) and build the catalog."""
    for name in ("components", "ingredients", "menus", "customers", "characters"):
        require(name in raw, f"data/{name}.json is missing")
        _reconstructed(name, raw[name])

    comp = raw["components"]
    for key, expected in RULEBOOK.items():
        require(key in comp, f"components.json lacks {key!r}")
        if key == "menu_deck_size":
            got = comp[key]
            require(isinstance(got, dict), "components.json: menu_deck_size must map player counts to sizes")
            require(sorted(got) == ["3", "4", "5"], f"components.json: menu_deck_size must cover 3, 4 and 5 players, got {sorted(got)}")
            for p, size in expected.items():
                check_count(f"menu deck for {p} players", _int("menu_deck_size", got[str(p)], 1), size)
        else:
            check_count(f"components.json {key}", _int(key, comp[key]), expected)
    components = dict(comp)
    components["menu_deck_size"] = {int(k): v for k, v in comp["menu_deck_size"].items()}

    # ---------------------------------------------------------------- ingredients
    ing = raw["ingredients"]
    require_keys("ingredients.json", ing, ["categories", "supplements"])
    cats = ing["categories"]
    require(isinstance(cats, list), "ingredients.json: categories must be a list")
    check_count("ingredient categories", len(cats), len(CATEGORY_NAMES))
    for c in cats:
        require_keys("ingredient category", c, ["key", "name", "cards"])
    names = tuple(c["name"] for c in cats)
    require(names == CATEGORY_NAMES, f"ingredient categories must be {list(CATEGORY_NAMES)} (the Tukang customers' categories), got {list(names)}")
    cat_keys = tuple(c["key"] for c in cats)
    require(len(set(cat_keys)) == len(cat_keys), "ingredient category keys must be distinct")
    main_cards = tuple(_int(f"cards of {c['name']}", c["cards"], 1) for c in cats)
    check_count("main ingredient cards", sum(main_cards), RULEBOOK["main_ingredient_cards"])
    sups_raw = ing["supplements"]
    require(isinstance(sups_raw, list), "ingredients.json: supplements must be a list")
    supplements = []
    for i, s in enumerate(sups_raw):
        require_keys("supplement", s, ["key", "name", "icon", "vp", "cards"])
        check_count(f"cards of supplement {s['name']}", _int("supplement cards", s["cards"]), 1)
        check_count(f"VP printed on supplement {s['name']} (the rulebook's +2 VP tokens)", _int("vp", s["vp"]),
                    RULEBOOK["supplement_bonus_tokens"])
        supplements.append(Supplement(i, len(cats) + i, s["key"], s["name"], s["icon"], s["vp"]))
    check_count("supplementary ingredient cards", len(supplements), RULEBOOK["supplementary_ingredient_cards"])
    icons = [s.icon for s in supplements]
    require(len(set(icons)) == len(icons), f"supplement icons must be distinct, got {icons}")
    type_keys = cat_keys + tuple(s.key for s in supplements)
    require(len(set(type_keys)) == len(type_keys), f"ingredient type keys must be distinct, got {list(type_keys)}")
    deck = tuple(t for t, n in enumerate(main_cards) for _ in range(n)) + tuple(s.type for s in supplements)
    check_count("ingredient cards", len(deck), RULEBOOK["ingredient_cards"])
    most_dealt = RULEBOOK["cards_dealt_per_player"] * 5 + 1  # 5 players, plus Cak Londho's extra card
    require(len(deck) >= most_dealt, f"{len(deck)} ingredient cards cannot deal {most_dealt}")

    # ---------------------------------------------------------------- menus
    menus_raw = raw["menus"]
    require_keys("menus.json", menus_raw, ["dishes"])
    dishes: list[Dish] = []
    seen_names = set()
    for i, d in enumerate(menus_raw["dishes"]):
        require_keys(f"dish #{i}", d, ["name", "requires", "vp", "supplement_icons", "copies", "description"])
        require(d["name"] not in seen_names, f"dish name {d['name']!r} appears twice")
        seen_names.add(d["name"])
        req = d["requires"]
        require(isinstance(req, dict) and set(req) <= set(cat_keys),
                f"dish {d['name']}: requirements must name categories among {list(cat_keys)}, got {req!r}")
        requires = tuple(_int(f"{d['name']} {k}", req.get(k, 0), 0) for k in cat_keys)
        size = sum(requires)
        require(2 <= size <= 6, f"dish {d['name']}: requires {size} ingredients; menus need 2 to 6")
        dicons = d["supplement_icons"]
        require(isinstance(dicons, list) and all(x in icons for x in dicons) and len(set(dicons)) == len(dicons),
                f"dish {d['name']}: supplement icons must be distinct among {icons}, got {dicons!r}")
        dishes.append(Dish(i, d["name"], requires, _int(f"{d['name']} vp", d["vp"], 1),
                           tuple(icons.index(x) for x in dicons), _int(f"{d['name']} copies", d["copies"], 1),
                           str(d["description"])))
    menus = tuple(Menu(i, dish) for i, dish in enumerate(x for x in dishes for _ in range(x.copies)))
    check_count("menu cards", len(menus), RULEBOOK["menu_cards"])
    require(any(d.copies >= 2 for d in dishes), "some menus must share a name (Geng Bajoel scores pairs)")
    sizes = {d.size for d in dishes}
    require(bool(sizes & {2, 3}) and bool(sizes & {5, 6}),
            "menus of 2-3 and of 5-6 ingredients must exist (Pak Bas, Bu Prasojo)")
    require(any(not d.icons for d in dishes), "some menu must show no supplement icon (Jeng Sastro)")
    by_name = {d.name: d for d in dishes}
    require("Lontong Balap" in by_name, "the rulebook's example menu Lontong Balap is missing")
    lb = by_name["Lontong Balap"]
    kerupuk = [s for s in supplements if s.name == "Kerupuk Puli"]
    require(lb.size == 3 and lb.vp == 3, f"Lontong Balap must need 3 ingredients and be worth 3 VP (rulebook), got {lb.size} and {lb.vp}")
    require(len(kerupuk) == 1 and kerupuk[0].index in lb.icons,
            "Lontong Balap must show the icon of the supplement Kerupuk Puli (rulebook example: 3 + 2 = 5 VP)")

    # ---------------------------------------------------------------- customers
    cust_raw = raw["customers"]
    require_keys("customers.json", cust_raw, ["kinds"])
    kinds: list[CustomerKind] = []
    for i, k in enumerate(cust_raw["kinds"]):
        require_keys(f"customer kind #{i}", k, ["key", "name", "count", "end_vp", "ability", "text"])
        name = k["name"]
        require(name in PRINTED_CUSTOMERS, f"customer {name!r} is not in the rulebook; kinds are {list(PRINTED_CUSTOMERS)}")
        printed = PRINTED_CUSTOMERS[name]
        end_vp = _int(f"{name} end_vp", k["end_vp"])
        check_count(f"end-of-game VP of an unused {name}", end_vp, 1 if printed is None else printed)
        require(k["ability"] in ABILITIES, f"customer {name}: ability must be one of {ABILITIES}, got {k['ability']!r}")
        sub = None
        if name in TUKANG_CATEGORY:
            require(k["ability"] == "tukang" and k.get("substitutes") in cat_keys,
                    f"{name} must be a 'tukang' substituting one of {list(cat_keys)}")
            sub = cat_keys.index(k["substitutes"])
            require(CATEGORY_NAMES[sub] == TUKANG_CATEGORY[name],
                    f"{name} substitutes {TUKANG_CATEGORY[name]} in the rulebook, not {CATEGORY_NAMES[sub]}")
        else:
            expected = "score" if printed is not None else name.lower().replace(" ", "_")
            require(k["ability"] == expected, f"customer {name}: ability must be {expected!r}, got {k['ability']!r}")
        kinds.append(CustomerKind(i, k["key"], name, _int(f"{name} count", k["count"], 1), end_vp, k["ability"], sub,
                                  str(k["text"])))
    got_names = [k.name for k in kinds]
    require(sorted(got_names) == sorted(PRINTED_CUSTOMERS),
            f"customer kinds must be exactly the rulebook's {list(PRINTED_CUSTOMERS)}, got {got_names}")
    customer_deck = tuple(k.index for k in kinds for _ in range(k.count))
    check_count("customer cards", len(customer_deck), RULEBOOK["customer_cards"])

    # ---------------------------------------------------------------- characters
    ch_raw = raw["characters"]
    require_keys("characters.json", ch_raw, ["characters"])
    chars = []
    for i, c in enumerate(ch_raw["characters"]):
        require_keys(f"character #{i}", c, ["key", "name", "title", "power", "text"])
        require(c["power"] in POWERS, f"character {c['name']}: power must be one of {POWERS}, got {c['power']!r}")
        chars.append(Character(i, c["key"], c["name"], c["title"], c["power"], c["text"]))
    check_count("character cards", len(chars), RULEBOOK["character_cards"])
    require(tuple(c.name for c in chars) == PRINTED_CHARACTERS,
            f"characters must be the rulebook's {list(PRINTED_CHARACTERS)} in that order, got {[c.name for c in chars]}")
    require(sorted(c.power for c in chars) == sorted(POWERS), "each character power must appear exactly once")
    require(len({c.key for c in chars}) == len(chars), "character keys must be distinct")

    ingredient_names = CATEGORY_NAMES + tuple(s.name for s in supplements)
    return Catalog(cat_keys, CATEGORY_NAMES, main_cards, tuple(supplements), type_keys, ingredient_names, deck,
                   tuple(dishes), menus, tuple(kinds), customer_deck, tuple(chars), components)


__all__ = ["Catalog", "Character", "CustomerKind", "DataError", "Dish", "Menu", "Supplement", "build_catalog",
           "load_catalog", "load_raw", "RULEBOOK"]
