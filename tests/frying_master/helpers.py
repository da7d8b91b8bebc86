"""Building explicit Frying Master scenarios for the rule tests."""

from __future__ import annotations

from envs.core.engine import NOOP
from envs.frying_master.cards import catalog
from envs.frying_master.engine import FryingMasterEngine
from envs.frying_master.env import FryingMasterEnv

CAT = catalog()


def F(food_id: str) -> int:
    """Food index by id."""
    return CAT.food(food_id).idx


def C(cat_id: str) -> int:
    return CAT.category(cat_id).idx


def P(name: str) -> int:
    """Plate index by name."""
    return CAT.plate_by_name(name).idx


def counts(*foods: str) -> list[int]:
    out = [0] * len(CAT.foods)
    for f in foods:
        out[F(f)] += 1
    return out


def engine_config(**kw) -> dict:
    return FryingMasterEnv.engine_config_of(FryingMasterEnv.config_spec().resolve(kw))


def new_engine(seed: int = 0, **kw) -> FryingMasterEngine:
    kw.setdefault("players", 2)
    kw.setdefault("mode", "mixed")
    return FryingMasterEngine.new(engine_config(**kw), seed=seed)


def in_play(seed: int = 0, table_up: dict[str, int] | None = None, table_down: tuple[str, ...] = (),
            plates: dict[str, str | None] | None = None, **kw) -> FryingMasterEngine:
    """An engine in the play phase of round 1 with an explicit table and plates.

    ``plates`` maps agents to plate names (others hold no plate); the plates
    are taken out of the piles so no plate is in two places."""
    eng = new_engine(seed, **kw)
    eng.phase = "play"
    eng.choose_queue = []
    for a in eng.agents:
        eng.plates[a] = None
    for a, name in (plates or {}).items():
        if name is not None:
            idx = P(name)
            for pile in eng.piles:
                if idx in pile.cards:
                    pile.remove(idx)
            eng.plates[a] = idx
    eng.table.place({F(f): k for f, k in (table_up or {}).items()}, [F(f) for f in table_down])
    eng.invalidate_masks()
    return eng


def act(eng: FryingMasterEngine, name: str, **params) -> int:
    return eng.actions.index(name, **params)


def step(eng: FryingMasterEngine, **joint):
    """One tick: the named agents act (action indices), everyone else waits."""
    full = {a: joint.get(a, NOOP) for a in eng.live_agents()}
    return eng.step(full)


def table_totals(eng: FryingMasterEngine) -> list[int]:
    """Cards per food on the table, either side up."""
    down = eng.table.down_by_food()
    return [u + d for u, d in zip(eng.table.up, down)]
