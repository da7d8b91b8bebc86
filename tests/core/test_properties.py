"""Property-based tests of the core's tables, decks and engine snapshots."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from envs.core import ActionTable
from envs.core.decks import Deck
from envs.core.seeding import make_rng
from tests.core.toy_game import ToyEngine

groups = st.lists(
    st.tuples(st.integers(0, 3), st.integers(1, 4), st.integers(1, 3)),
    min_size=1, max_size=5,
)


@given(groups)
def test_action_table_index_and_decode_are_inverse(spec):
    t = ActionTable()
    for g, (nparams, a, b) in enumerate(spec):
        params = {f"p{k}": tuple(range(a if k % 2 == 0 else b)) for k in range(nparams)}
        t.add(f"g{g}", "doc", **params)
    seen = set()
    for i in range(t.n):
        name, params = t.decode(i)
        assert t.index(name, **params) == i
        seen.add(t.name(i))
    assert len(seen) == t.n  # every index has a distinct name


@given(st.lists(st.integers(0, 50), max_size=30), st.integers(0, 2**32 - 1))
def test_deck_shuffle_keeps_the_cards_and_is_seeded(cards, seed):
    a = Deck(cards).shuffle(make_rng(seed))
    b = Deck(cards).shuffle(make_rng(seed))
    assert sorted(a.to_list()) == sorted(cards)
    assert a == b


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), max_size=12))
def test_engine_snapshot_round_trip_at_any_point(seed, moves):
    eng = ToyEngine.new({"players": 2, "tokens": 8, "seconds_per_tick": 1.0}, seed=seed)
    for a, b in moves:
        if eng.done:
            break
        joint = {"p0": a if eng.action_mask("p0")[a] else 0, "p1": b if eng.action_mask("p1")[b] else 0}
        twin = ToyEngine.from_dict(json.loads(json.dumps(eng.to_dict())))
        r1 = eng.step(joint)
        r2 = twin.step(joint)
        assert r1.rewards == r2.rewards and r1.blocked == r2.blocked
        assert eng.to_dict() == twin.to_dict()
