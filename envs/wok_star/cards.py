"""Wok Star card data: load ``data/*.json`` and check it against the rulebook.

Everything the rulebook prints as a count (12 recipes, 10 ingredient cards
with 4 methods, 60 customers, 15 events, 6 characters, 15 Fortune cubes, 25
Hustle tokens, the given rows of the Income Goal table) is checked here; any
mismatch raises :class:`~envs.core.errors.DataError`. The card faces
themselves are reconstructed (see each file's ``"reconstructed"`` note and
``docs/wok_star.md``).

Ids: ingredients ``0..9`` and recipes ``0..11`` in file order; customer cards
``5*recipe + k`` (``k`` 0-2 Regular, 3-4 Coupon), so ``0..59``; event cards
``60 + event`` (``60..74``).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

from envs.core.data import check_count, load_json, require, require_keys

PACKAGE = "envs.wok_star"

#: Rows the rulebook prints (Mild for 2-4 players, Medium for 2 players).
RULEBOOK_GOALS = {
    ("mild", 2): (7, 12, 18, 25),
    ("mild", 3): (10, 17, 27, 38),
    ("mild", 4): (13, 23, 36, 50),
    ("medium", 2): (8, 13, 20, 28),
}
DIFFICULTIES = ("mild", "medium", "extra_spicy")
PATTERNS = ("any", "pair", "diff_eq", "diff_ge", "diff_le", "sum_eq", "sum_ge", "sum_le",
            "both_even", "both_odd", "both_ge", "both_le", "contains")
EVENT_TIMES = ("drawn", "end_of_round")
#: Public facts (reviews): the first day's menu, and the earlier edition's Egg Rolls.
FIRST_DAY_MENU = ("Egg Rolls", "Fried Rice", "Lo Mein")
EARLIER_EGG_ROLLS = ("pork", "wrappers", "bok_choy", "bamboo")
EVENT_CARD_BASE = 60


@dataclass(frozen=True)
class Method:
    pattern: str
    value: int
    amount: int
    foreign: bool

    def matches(self, a: int, b: int) -> bool:
        """Do pips ``a`` and ``b`` fit the pattern (ignoring the foreign-die rule)?"""
        p, v = self.pattern, self.value
        d, s = abs(a - b), a + b
        if p == "any":
            return True
        if p == "pair":
            return a == b
        if p == "diff_eq":
            return d == v
        if p == "diff_ge":
            return d >= v
        if p == "diff_le":
            return d <= v
        if p == "sum_eq":
            return s == v
        if p == "sum_ge":
            return s >= v
        if p == "sum_le":
            return s <= v
        if p == "both_even":
            return a % 2 == 0 and b % 2 == 0
        if p == "both_odd":
            return a % 2 == 1 and b % 2 == 1
        if p == "both_ge":
            return a >= v and b >= v
        if p == "both_le":
            return a <= v and b <= v
        if p == "contains":
            return a == v or b == v
        raise AssertionError(p)

    def text(self) -> str:
        words = {
            "any": "any two", "pair": "pair", "diff_eq": f"diff={self.value}", "diff_ge": f"diff>={self.value}",
            "diff_le": f"diff<={self.value}", "sum_eq": f"sum={self.value}", "sum_ge": f"sum>={self.value}",
            "sum_le": f"sum<={self.value}", "both_even": "both even", "both_odd": "both odd",
            "both_ge": f"both>={self.value}", "both_le": f"both<={self.value}", "contains": f"a {self.value}",
        }[self.pattern]
        return f"{words}{' +other chef' if self.foreign else ''}: +{self.amount}"


@dataclass(frozen=True)
class Ingredient:
    id: int
    key: str
    name: str
    methods: tuple[Method, ...]


@dataclass(frozen=True)
class Recipe:
    id: int
    key: str
    name: str
    price: int
    ingredients: tuple[int, ...]
    regular_incomes: tuple[int, ...]


@dataclass(frozen=True)
class Customer:
    id: int
    recipe: int
    coupon: bool
    income: int


@dataclass(frozen=True)
class Event:
    id: int
    key: str
    name: str
    when: str
    amount: int
    text: str

    @property
    def card(self) -> int:
        return EVENT_CARD_BASE + self.id


@dataclass(frozen=True)
class Character:
    id: int
    key: str
    name: str
    amount: int
    text: str


@dataclass(frozen=True)
class GameData:
    ingredients: tuple[Ingredient, ...]
    recipes: tuple[Recipe, ...]
    customers: tuple[Customer, ...]
    events: tuple[Event, ...]
    characters: tuple[Character, ...]
    goals: dict  # (difficulty, players) -> (4 goals)
    components: dict
    track_top: int

    @functools.cached_property
    def _ingredient_ids(self) -> dict[str, int]:
        return {i.key: i.id for i in self.ingredients}

    def ingredient_id(self, key: str) -> int:
        i = self._ingredient_ids.get(key)
        if i is None:  # unknown key: StopIteration, as the plain search raises
            return next(i.id for i in self.ingredients if i.key == key)
        return i

    def recipe_id(self, key: str) -> int:
        return next(r.id for r in self.recipes if r.key == key)

    def event_id(self, key: str) -> int:
        return next(e.id for e in self.events if e.key == key)

    def character_id(self, key: str) -> int:
        return next(c.id for c in self.characters if c.key == key)


def regular_cards(recipe: int) -> list[int]:
    return [5 * recipe + k for k in range(3)]


def coupon_cards(recipe: int) -> list[int]:
    return [5 * recipe + 3, 5 * recipe + 4]


def is_event_card(card: int) -> bool:
    return card >= EVENT_CARD_BASE


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def _load_ingredients(raw: dict) -> tuple[tuple[Ingredient, ...], int]:
    require_keys("ingredients.json", raw, ["reconstructed", "track_top_row", "ingredients"])
    items = raw["ingredients"]
    check_count("Ingredient cards (ingredients.json)", len(items), 10)
    out = []
    for i, item in enumerate(items):
        require_keys(f"ingredient #{i}", item, ["key", "name", "methods"])
        check_count(f"methods on the {item['key']} card", len(item["methods"]), 4)
        methods = []
        for j, m in enumerate(item["methods"]):
            require(m.get("pattern") in PATTERNS, f"{item['key']} method {j}: unknown pattern {m.get('pattern')!r}; known: {PATTERNS}")
            amount = m.get("amount")
            require(isinstance(amount, int) and 1 <= amount <= 6, f"{item['key']} method {j}: amount must be 1..6, got {amount!r}")
            methods.append(Method(m["pattern"], int(m.get("value", 0)), amount, bool(m.get("foreign", False))))
        first = methods[0]
        require(first.pattern == "any" and first.amount == 1 and not first.foreign,
                f"{item['key']}: the leftmost method must be 'any two dice: +1' (rulebook/reviews), got {first}")
        require(methods[3].foreign, f"{item['key']}: the rightmost method must need another player's die")
        require(not any(m.foreign for m in methods[:3]), f"{item['key']}: only the rightmost method needs another player's die")
        out.append(Ingredient(i, item["key"], item["name"], tuple(methods)))
    keys = [i.key for i in out]
    require(len(set(keys)) == len(keys), f"ingredient keys repeat: {keys}")
    pork = next((i for i in out if i.key == "pork"), None)
    require(pork is not None and any(m.pattern == "diff_eq" and m.value == 2 and m.amount == 2 for m in pork.methods),
            "Pork must have the rulebook's example method 'difference of 2: +2'")
    top = raw["track_top_row"]
    require(isinstance(top, int) and 4 <= top <= 12, f"track_top_row must be 4..12, got {top!r}")
    return tuple(out), top


def _load_recipes(raw: dict, ingredient_keys: list[str]) -> tuple[tuple[Recipe, ...], tuple[Customer, ...]]:
    require_keys("recipes.json", raw, ["reconstructed", "prices", "coupon_income", "recipes"])
    items = raw["recipes"]
    check_count("Recipe cards (recipes.json)", len(items), 12)
    require(raw["prices"] == [11, 16, 31], f"recipe prices must be the rulebook's $11/$16/$31, got {raw['prices']}")
    check_count("Coupon customer income", raw["coupon_income"], 1)
    recipes, customers = [], []
    for r, item in enumerate(items):
        require_keys(f"recipe #{r}", item, ["key", "name", "price", "ingredients", "regular_incomes"])
        require(item["price"] in (11, 16, 31), f"{item['key']}: price {item['price']} is not $11, $16 or $31")
        ings = item["ingredients"]
        require(2 <= len(ings) <= 4, f"{item['key']}: a recipe needs 2 to 4 ingredients, got {len(ings)}")
        require(len(set(ings)) == len(ings), f"{item['key']}: ingredients repeat")
        for k in ings:
            require(k in ingredient_keys, f"{item['key']}: unknown ingredient {k!r}")
        incomes = item["regular_incomes"]
        check_count(f"Regular customers of {item['key']}", len(incomes), 3)
        require(all(isinstance(x, int) and x >= 2 for x in incomes), f"{item['key']}: Regular customers pay at least $2")
        recipes.append(Recipe(r, item["key"], item["name"], item["price"], tuple(ingredient_keys.index(k) for k in ings),
                              tuple(incomes)))
        for k, inc in enumerate(incomes):
            customers.append(Customer(5 * r + k, r, False, inc))
        for k in range(2):
            customers.append(Customer(5 * r + 3 + k, r, True, raw["coupon_income"]))
    check_count("Customer cards", len(customers), 60)
    menu = [next((x for x in recipes if x.name == name), None) for name in FIRST_DAY_MENU]
    require(all(menu), f"the first day's menu {FIRST_DAY_MENU} (reviews) must be recipes")
    require(sorted(x.price for x in menu) == [11, 11, 16],
            f"the first day's menu {FIRST_DAY_MENU} must fit the 3-player deal $11/$11/$16 (reviews)")
    egg_rolls = {ingredient_keys[i] for i in menu[0].ingredients}
    require(egg_rolls <= set(EARLIER_EGG_ROLLS), f"Egg Rolls must use ingredients of the earlier edition's {EARLIER_EGG_ROLLS}")
    require(any(x.name == "Kung Pao Chicken" and x.price > 11 for x in recipes), "Kung Pao Chicken must be a later recipe")
    used = {i for x in recipes for i in x.ingredients}
    check_count("ingredients used by some recipe", len(used), len(ingredient_keys))
    return tuple(recipes), tuple(customers)


def _check_setup_coverage(recipes: tuple[Recipe, ...], components: dict) -> None:
    """Every possible setup deal puts at least one Ingredient card per player in play."""
    for players, prices in components["setup_recipe_prices"].items():
        players = int(players)
        piles = {p: [r for r in recipes if r.price == p] for p in set(prices)}
        for p in set(prices):
            require(len(piles[p]) >= prices.count(p), f"{players} players need {prices.count(p)} ${p} recipes")
        choices = [itertools.combinations(piles[p], prices.count(p)) for p in sorted(set(prices))]
        for combo in itertools.product(*choices):
            ings = {i for group in combo for r in group for i in r.ingredients}
            require(len(ings) >= players, f"a {players}-player deal {[r.key for g in combo for r in g]} has only {len(ings)} ingredient cards")


def _load_goals(raw: dict) -> dict:
    require_keys("income_goals.json", raw, ["reconstructed", "given", "ratio_per_step", "review_overrides", "goals"])
    goals: dict = {}
    for d in DIFFICULTIES:
        for p in (2, 3, 4):
            row = raw["goals"].get(d, {}).get(str(p))
            require(isinstance(row, list) and len(row) == 4, f"income goals: {d} {p} players must list 4 goals")
            require(all(row[k] < row[k + 1] for k in range(3)), f"income goals: {d} {p} players must rise day by day")
            goals[(d, p)] = tuple(row)
    for key, row in RULEBOOK_GOALS.items():
        require(goals[key] == row, f"income goals {key}: the rulebook prints {row}, the file has {goals[key]}")
        d, p = key
        require(tuple(raw["given"][d][str(p)]) == row, f"income goals: 'given' {key} differs from the rulebook")
    ratio = raw["ratio_per_step"]["numerator"] / raw["ratio_per_step"]["denominator"]
    mild2, med2 = RULEBOOK_GOALS[("mild", 2)], RULEBOOK_GOALS[("medium", 2)]
    fitted = sum(a * b for a, b in zip(mild2, med2)) / sum(a * a for a in mild2)
    require(abs(fitted - ratio) < 1e-12, f"income goals: ratio {ratio} is not the least-squares fit {fitted}")
    overrides = raw.get("review_overrides", {})
    for step, d in enumerate(DIFFICULTIES):
        for p in (2, 3, 4):
            expect = [_round_half_up(g * ratio ** step) for g in goals[("mild", p)]]
            for day, value in overrides.get(d, {}).get(str(p), {}).items():
                expect[int(day) - 1] = value
            expect = tuple(expect)
            require(goals[(d, p)] == expect, f"income goals {d} {p} players: {goals[(d, p)]} differs from the documented extrapolation {expect}")
    return goals


def _load_events(raw: dict) -> tuple[Event, ...]:
    require_keys("events.json", raw, ["reconstructed", "events"])
    check_count("Event cards", len(raw["events"]), 15)
    out = []
    for i, e in enumerate(raw["events"]):
        require_keys(f"event #{i}", e, ["key", "name", "when", "amount", "text"])
        require(e["when"] in EVENT_TIMES, f"event {e['key']}: 'when' must be one of {EVENT_TIMES}")
        out.append(Event(i, e["key"], e["name"], e["when"], int(e["amount"]), e["text"]))
    require(len({e.key for e in out}) == 15, "event keys repeat")
    return tuple(out)


def _load_characters(raw: dict) -> tuple[Character, ...]:
    require_keys("characters.json", raw, ["reconstructed", "characters"])
    check_count("Wang Family Character cards", len(raw["characters"]), 6)
    out = tuple(Character(i, c["key"], c["name"], int(c["amount"]), c["text"]) for i, c in enumerate(raw["characters"]))
    for key in ("chris", "lily", "grandpa"):
        require(any(c.key == key for c in out), f"the character {key!r} (named in reviews) is missing")
    return out


def _check_components(comp: dict) -> None:
    for key, expected in (("ingredient_tokens", 10), ("dice_per_player", 5), ("hustle_tokens", 25), ("timers", 2),
                          ("recipe_cards", 12), ("ingredient_cards", 10), ("customer_cards", 60),
                          ("fortune_cubes", 15), ("character_cards", 6), ("event_cards", 15), ("starting_dice", 2),
                          ("starting_fortune_cubes", 2), ("hustle_covering_new_card", 2), ("washes_per_day", 2),
                          ("days", 4), ("upgrade_cost", 6), ("hustle_cost", 2), ("recipe_offer", 3),
                          ("events_per_day", 2), ("max_dice_per_player", 5), ("goal_cubes", 4),
                          ("two_player_third_die_pool", 3), ("ingredient_start_row", 1), ("open_methods", 2)):
        require(key in comp, f"components.json lacks {key!r}")
        check_count(f"components.json {key}", comp[key], expected)
    require(comp["customers_per_recipe"] == {"regular": 3, "coupon": 2}, "5 customers per recipe: 3 Regular, 2 Coupon")
    require(comp["setup_recipe_prices"] == {"2": [11, 16], "3": [11, 11, 16], "4": [11, 11, 16, 16]},
            "setup_recipe_prices must restate the rulebook's setup table")
    require(comp["goal_cubes"] == comp["days"], "one goal cube per day's Income Goal")
    require(comp["open_methods"] + comp["hustle_covering_new_card"] == 4,
            "the methods not open at the start are the ones the Hustle tokens cover")
    # Fortune cubes: 2 per player plus the 4 goal cubes must fit in the box.
    require(comp["starting_fortune_cubes"] * 4 + comp["goal_cubes"] <= comp["fortune_cubes"],
            "not enough Fortune cubes for 4 players")


@functools.lru_cache(maxsize=1)
def load_data() -> GameData:
    """Load and validate every data file (cached)."""
    comp = load_json(PACKAGE, "components.json")
    _check_components(comp)
    ingredients, top = _load_ingredients(load_json(PACKAGE, "ingredients.json"))
    recipes, customers = _load_recipes(load_json(PACKAGE, "recipes.json"), [i.key for i in ingredients])
    _check_setup_coverage(recipes, comp)
    goals = _load_goals(load_json(PACKAGE, "income_goals.json"))
    events = _load_events(load_json(PACKAGE, "events.json"))
    characters = _load_characters(load_json(PACKAGE, "characters.json"))
    return GameData(ingredients, recipes, customers, events, characters, goals, comp, top)
