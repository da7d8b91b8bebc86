"""Building explicit Wok Star scenarios for the tests."""

from __future__ import annotations

from envs.wok_star.cards import load_data
from envs.wok_star.engine import WokStarEngine
from envs.wok_star.env import WokStarEnv

DATA = load_data()


def config(**kw) -> dict:
    """A full engine config (env options resolved), auto setup unless asked otherwise."""
    kw = {"setup": "auto", **kw}
    return WokStarEnv.engine_config_of(WokStarEnv.config_spec().resolve(kw))


def engine(seed: int = 0, **kw) -> WokStarEngine:
    return WokStarEngine.new(config(**kw), seed)


def ing(key: str) -> int:
    return DATA.ingredient_id(key)


def rec(key: str) -> int:
    return DATA.recipe_id(key)


def regular(recipe_key: str, k: int = 0) -> int:
    """The k-th Regular customer card of a recipe."""
    return 5 * rec(recipe_key) + k


def coupon(recipe_key: str, k: int = 0) -> int:
    return 5 * rec(recipe_key) + 3 + k


def event_card(key: str) -> int:
    return DATA.events[DATA.event_id(key)].card


def a(eng: WokStarEngine, name: str, **params) -> int:
    return eng.actions.index(name, **params)


def legal(eng: WokStarEngine, seat: int, name: str, **params) -> bool:
    return bool(eng.action_mask(eng.agents[seat])[a(eng, name, **params)])


def step(eng: WokStarEngine, actions: dict | None = None):
    """One tick: ``actions`` maps seat -> (name, params) or index; everyone else waits."""
    joint = {ag: 0 for ag in eng.live_agents()}
    for seat, act in (actions or {}).items():
        joint[eng.agents[seat]] = act if isinstance(act, int) else a(eng, act[0], **act[1])
    return eng.step(joint)


def set_dice(eng: WokStarEngine, seat: int, pips: list[int], pool: int | None = None) -> None:
    """Seat's own dice: ``pips`` unused in their area, the rest of the pool in the Dirty Dishes."""
    pool = max(pool or eng.pool[seat], len(pips))
    eng.pool[seat] = pool
    for k in range(5):
        d = seat * 5 + k
        eng.die_holder[d] = seat
        eng.die_pip[d] = pips[k] if k < len(pips) else (0 if k < pool else -1)


def open_table(eng: WokStarEngine, current: int | None = None, deck: list[int] | None = None,
               levels: dict[str, int] | None = None, dice: dict[int, list[int]] | None = None,
               timers: tuple[int, int] | None = None, first_served: bool = True) -> WokStarEngine:
    """Put the engine in the middle of an open day with the given table."""
    eng.phase = "open"
    eng.turn = -1
    if current is not None:
        eng.current = current
    if deck is not None:
        eng.deck = list(deck)
    for key, level in (levels or {}).items():
        eng.ing_level[ing(key)] = level
    for seat in range(eng.n):
        set_dice(eng, seat, (dice or {}).get(seat, []))
    if timers is not None:
        eng.timers = list(timers)
    eng.first_served = first_served
    eng.invalidate_masks()
    return eng


def holder_of_recipe(eng: WokStarEngine, key: str) -> int:
    return eng.recipe_holder[rec(key)]


def give_recipe(eng: WokStarEngine, key: str, seat: int) -> None:
    """Put a recipe (and its ingredient cards, held by ``seat``) in play."""
    r = rec(key)
    eng.recipe_holder[r] = seat
    for i in DATA.recipes[r].ingredients:
        if eng.ing_holder[i] < 0:
            eng.ing_holder[i] = seat
            eng.ing_unlocked[i] = 2
    eng.invalidate_masks()


def patched_data(components: dict | None = None, characters: dict | None = None):
    """A copy of the game data with some component constants or character amounts changed."""
    import dataclasses

    chars = tuple(dataclasses.replace(c, amount=characters[c.key]) if characters and c.key in characters else c
                  for c in DATA.characters)
    return dataclasses.replace(DATA, components={**DATA.components, **(components or {})}, characters=chars)


def engine_with_data(monkeypatch, data, seed: int = 0, **kw) -> WokStarEngine:
    """An engine (auto setup unless asked otherwise) built on ``data`` instead of the shipped files."""
    import envs.wok_star.engine as engine_module

    monkeypatch.setattr(engine_module, "load_data", lambda: data)
    return engine(seed, **kw)
