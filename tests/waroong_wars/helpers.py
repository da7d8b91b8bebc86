"""Building explicit Waroong Wars scenarios for the tests."""

from __future__ import annotations

from envs.core.engine import StepResult
from envs.waroong_wars.actions import action_index
from envs.waroong_wars.cards import load_catalog
from envs.waroong_wars.engine import WaroongEngine
from envs.waroong_wars.options import engine_config

CAT = load_catalog()
TYPES = CAT.ingredient_types
CATS = CAT.categories
SUPS = tuple(s.key for s in CAT.supplements)
KIND = {k.key: k.index for k in CAT.customers}
CHAR = {c.key: c.index for c in CAT.characters}


def new_engine(players: int = 3, seed: int = 0, **opts) -> WaroongEngine:
    return WaroongEngine.new(engine_config(players=players, **opts), seed=seed)


def counts(**cards: int) -> list[int]:
    """An ingredient count vector from type keys, e.g. counts(rice=2, kerupuk=1)."""
    out = [0] * len(TYPES)
    for k, v in cards.items():
        out[TYPES.index(k)] = v
    return out


def customer_counts(**cards: int) -> list[int]:
    out = [0] * len(CAT.customers)
    for k, v in cards.items():
        out[KIND[k]] = v
    return out


def menu(dish: str, copy: int = 0) -> int:
    """The id of a menu card of ``dish``."""
    ids = [m.id for m in CAT.menus if m.name == dish]
    return ids[copy]


def cooking_engine(players: int = 3, seed: int = 0, turn: int = 0, **opts) -> WaroongEngine:
    """A game at the start of a Cooking phase with empty hands and no customers, ``turn`` to cook first."""
    eng = new_engine(players, seed, **opts)
    n = eng.n
    eng.phase = "cook"
    eng.packs = [[0] * len(TYPES) for _ in range(n)]
    eng.picked = [False] * n
    eng.pick_no = 6
    eng.hands = [[0] * len(TYPES) for _ in range(n)]
    eng.customers = [[0] * len(CAT.customers) for _ in range(n)]
    eng.first = eng.turn = turn
    eng.turns_taken = 0
    eng.cooked_this_turn = []
    eng.cooked_supplements = []
    eng.mbok_exchanges = [0] * n
    eng.thefts = [[0, 0, 0] for _ in range(n)]
    eng.pending = None
    eng.invalidate_masks()
    return eng


def set_display(eng: WaroongEngine, dishes: list[str | None]) -> None:
    """Put menus of these dishes in slots 0..5 (None = empty), using distinct copies."""
    used: dict[str, int] = {}
    disp = []
    for d in dishes:
        if d is None:
            disp.append(-1)
            continue
        disp.append(menu(d, used.get(d, 0)))
        used[d] = used.get(d, 0) + 1
    eng.display = disp
    eng.menu_deck = [m for m in eng.menu_deck if m not in disp]
    eng.invalidate_masks()


def act(eng: WaroongEngine, seat: int, action: int) -> StepResult:
    """``seat`` plays ``action``; everyone else waits."""
    joint = {a: 0 for a in eng.agents}
    joint[eng.agents[seat]] = action
    return eng.step(joint)


def ix(eng_or_players) -> object:
    n = eng_or_players if isinstance(eng_or_players, int) else eng_or_players.n
    return action_index(n)


def cook_action(eng: WaroongEngine, slot: int, go_boy_for: str | None = None, supplement: str | None = None) -> int:
    g = 0 if go_boy_for is None else 1 + CATS.index(go_boy_for)
    s = 0 if supplement is None else 1 + SUPS.index(supplement)
    return action_index(eng.n).cook(slot, g, s)


def legal_names(eng: WaroongEngine, seat: int) -> list[str]:
    return eng.actions.names(eng.legal_actions(eng.agents[seat]))
