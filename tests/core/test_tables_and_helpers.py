from __future__ import annotations

import numpy as np
import pytest

from envs.core import ActionTable, ConfigError, ConfigSpec, Field, ObservationLayout, Option
from envs.core.decks import Deck, EmptyDeckError, deal
from envs.core.seeding import make_rng, rng_from_dict, rng_to_dict, shuffled
from envs.core.render import bar, box, side_by_side, table


def test_action_table_indexes_decodes_and_names():
    t = ActionTable()
    t.add("serve", "serve")
    t.add("prep", "prepare", ing=("pork", "rice", "egg"), method=(0, 1))
    assert t.n == 1 + 1 + 6
    assert t.index("prep", ing="rice", method=1) == 2 + 2 * 1 + 1
    assert t.decode(5) == ("prep", {"ing": "rice", "method": 1})
    assert t.name(0) == "noop" and t.name(5) == "prep(ing='rice', method=1)"
    assert t.group("prep").range == range(2, 8)
    assert "out of range" in t.name(99)
    with pytest.raises(KeyError):
        t.index("prep", ing="tofu", method=0)
    with pytest.raises(ValueError):
        t.add("serve", "again")
    md = t.markdown(full=True)
    assert "| 2-7 | `prep` |" in md and "| 7 | `prep(ing='egg', method=1)` |" in md


def test_observation_layout_slices_bounds_and_docs():
    lay = ObservationLayout([Field("a", (), 0, 1, "flag"), Field("b", (2, 3), -1, 5, "grid")])
    assert lay.size == 7 and lay.slices["b"] == slice(1, 7)
    v = lay.zeros()
    lay.set(v, "b", np.arange(6).reshape(2, 3) - 1)
    assert lay.get(v, "b")[1, 2] == 4
    assert lay.out_of_bounds(v) == []
    lay.set(v, "a", 2)
    assert lay.out_of_bounds(v) == ["a"]
    with pytest.raises(ValueError):
        lay.set(v, "b", [1, 2])
    assert "| 1-6 | `b` | 2x3 | [-1, 5] | grid |" in lay.markdown()


def test_config_spec_resolves_defaults_and_rejects_bad_values():
    spec = ConfigSpec("g", [Option("n", 2, "players", choices=(2, 3, 4)), Option("fast", False, "", kind="bool"),
                            Option("t", 30.0, "", kind="float", low=1.0)])
    cfg = spec.resolve({"n": np.int64(3)})
    assert cfg == {"n": 3, "fast": False, "t": 30.0}
    with pytest.raises(TypeError):
        cfg["n"] = 4  # read-only
    for bad in ({"n": 5}, {"n": True}, {"fast": 1}, {"t": 0.5}, {"t": float("nan")}, {"zzz": 1}):
        with pytest.raises(ConfigError):
            spec.resolve(bad)
    assert "| `n` | `2` | one of 2, 3, 4 | players |" in spec.markdown()


def test_rng_round_trip_and_shuffle():
    g = make_rng(3)
    g.integers(10, size=5)
    h = rng_from_dict(rng_to_dict(g))
    assert list(g.integers(100, size=10)) == list(h.integers(100, size=10))
    assert sorted(shuffled(list(range(10)), make_rng(1))) == list(range(10))
    assert shuffled(list(range(10)), make_rng(1)) == shuffled(list(range(10)), make_rng(1))
    with pytest.raises(ValueError):
        make_rng(-1)


def test_deck_draw_deal_and_errors():
    d = Deck(range(10)).shuffle(make_rng(0))
    assert sorted(d.to_list()) == list(range(10))
    top = d.peek()
    assert d.draw() == top and len(d) == 9
    hands = deal(d, 3, 3)
    assert [len(h) for h in hands] == [3, 3, 3] and len(d) == 0
    with pytest.raises(EmptyDeckError):
        d.draw()


def test_render_helpers():
    assert bar(5, 10, width=4) == "[##..]"
    assert "| x" in box("T", ["x"])
    assert table([[1, 22]], header=["a", "b"]).splitlines()[1].startswith("-")
    assert side_by_side(["a\nb", "c"]) == "a  c\nb"
