"""Damaged snapshots never corrupt a game (issue 12, item 2), for every configuration.

Every game validates a snapshot fully before it is used (``envs/<game>/snapshot.py``
with the checks of ``envs/core/snapshot.py``); the env installs a restored game only
after its observations, masks and global state lie in their spaces. The fuzzer
(``snapshot_fuzz.py``) damages snapshots of states reached in seeded random play; each
one must be refused with ``SnapshotError`` and the env unchanged, or load, round-trip
and play on soundly."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import envs
from envs.core.errors import SnapshotError
from tests.conformance.snapshot_fuzz import fuzz_snapshots

CONFIGS = envs.test_configurations()
MUTANTS = int(float(os.environ.get("KA_SNAPSHOT_MUTANTS", "20")))


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
def test_damaged_snapshots_are_refused_or_play_on(cfg):
    counts = fuzz_snapshots(cfg, seed=31, n=MUTANTS, states=2)
    assert counts["refused"] > 0 and sum(counts.values()) >= MUTANTS


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_failed_reset_with_a_snapshot_leaves_the_game_exactly_as_it_was(env_id):
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(15):
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    before, agents = env.snapshot(), list(env.agents)
    for damage in ({"state": []}, {"state": {}}, {"tick": -3}, {"engine": "other"}, {"rng": {"bit_generator": "PCG64"}}):
        bad = {**json.loads(json.dumps(before)), **damage}
        with pytest.raises(SnapshotError):
            env.reset(options={"snapshot": bad})
        assert env.snapshot() == before and env.agents == agents
    twin = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    twin.reset(options={"snapshot": before})
    joint = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    a, b = env.step(joint), twin.step(joint)
    assert a[1] == b[1] and env.snapshot() == twin.snapshot()


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_snapshot_text_past_the_json_readers_limits_is_a_snapshot_error(env_id):
    """``from_json`` refuses what ``json.loads`` fails on (deep nesting, huge integers: a bare
    ``RecursionError`` or ``ValueError``) or takes silently (NaN, a key given twice), with
    ``SnapshotError``; a good snapshot's text still round-trips."""
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    env.reset(seed=4)
    engine_cls = type(env.unwrapped.engine)
    text = env.unwrapped.engine.to_json()
    assert engine_cls.from_json(text).to_dict() == env.snapshot()
    good = json.loads(text)
    for bad, match in (
            ("[" * 100_000 + "]" * 100_000, "snapshot: arrays or objects nested too deeply are not allowed"),
            (text.replace('"tick": ', '"tick": ' + "9" * 5000 + ", \"x\": ", 1), "more than 4,300 digits"),
            (text[:-1] + ', "tick": 1}', "the key 'tick' appears twice"),
            (json.dumps({**good, "tick": float("nan")}), "NaN is not allowed"),
            (text[: len(text) // 2], "snapshot: not valid JSON")):
        with pytest.raises(SnapshotError, match=match):
            engine_cls.from_json(bad)


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_snapshots_own_keys_are_checked_as_strictly_as_its_state(env_id):
    """The wrapper of a snapshot was laxer than its ``state``: unknown top-level keys were
    dropped silently, ``version`` took ``True`` and ``1.0`` (a plain ``!=``), and
    ``rng.has_uint32`` took ``1.0`` and came back as ``1`` (no round trip)."""
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    env.reset(seed=4)
    good = env.snapshot()
    rng_state = good["rng"]
    damaged = [
        ({**good, "comment": "x"}, r"snapshot has unknown keys \['comment'\]; a snapshot has exactly \['engine'"),
        ({**good, "version": True}, r"snapshot version True does not match engine version \d+ \(an integer\)"),
        ({**good, "version": float(good["version"])}, r"snapshot version \d+\.0 does not match"),
        ({**good, "rng": {**rng_state, "has_uint32": float(rng_state["has_uint32"])}}, r"rng\.has_uint32 must be 0 or 1"),
    ]
    for bad, message in damaged:
        with pytest.raises(SnapshotError, match=message):
            env.restore(bad)
        assert env.snapshot() == good


def _env_snapshot_and_a_deep_list(env_id: str) -> tuple:
    """(an env of the game's first test configuration reset with seed 4, its snapshot, a list nested
    3,000 deep)."""
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env(**mod.TEST_CONFIGURATIONS[0])
    env.reset(seed=4)
    deep: list = []
    for _ in range(3000):
        deep = [deep]
    return env, env.snapshot(), deep


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_deeply_nested_value_is_named_in_the_message_not_a_recursion_error(env_id):
    """A value nested 3,000 lists deep where a field wants something else was refused as
    "corrupt ... RecursionError: maximum recursion depth exceeded while getting the repr": the
    message's ``repr`` of the value, not the check, overflowed the stack."""
    env, good, deep = _env_snapshot_and_a_deep_list(env_id)
    for field in sorted(good["state"])[:3]:
        bad = {**good, "state": {**good["state"], field: deep}}
        with pytest.raises(SnapshotError) as caught:
            env.restore(bad)
        assert "RecursionError" not in str(caught.value) and "snapshot field state." in str(caught.value)
        assert env.snapshot() == good


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_damaged_generator_state_names_its_field_once(env_id):
    """The engine prefixed the generator check's message, which named the field already: "snapshot field
    rng: snapshot field rng: ..."."""
    env, good, _ = _env_snapshot_and_a_deep_list(env_id)
    bad = {**good, "rng": {**good["rng"], "has_uint32": 7}}
    with pytest.raises(SnapshotError) as caught:
        env.restore(bad)
    assert str(caught.value).count("snapshot field rng") == 1, str(caught.value)
    assert env.snapshot() == good


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_the_snapshots_own_fields_deep_huge_or_past_a_float_are_named_and_change_nothing(env_id):
    """A ``tick`` or ``config`` nested 3,000 deep raised a bare ``RecursionError`` from the message's
    ``repr``; a deep ``rng`` named no field; a config number past a float's range (10**400) said only
    "OverflowError"; 100,000 unknown keys made a message of a megabyte."""
    env, good, deep = _env_snapshot_and_a_deep_list(env_id)
    float_option = next(k for k, v in good["config"].items() if isinstance(v, float))
    cases = [({**good, "tick": deep}, "snapshot field tick: must be an integer >= 0"),
             ({**good, "config": deep}, "snapshot field config: must be an object of plain option values"),
             ({**good, "rng": deep}, "snapshot field rng"),
             ({**good, "config": {**good["config"], float_option: 10 ** 400}},
              f"snapshot field config.{float_option}: must be a"),
             ({**good, "state": {**good["state"], **{f"zz{i}": 0 for i in range(100_000)}}},
              "snapshot field state: keys must be")]
    for bad, says in cases:
        with pytest.raises(SnapshotError) as caught:
            env.restore(bad)
        text = str(caught.value)
        assert says in text and "RecursionError: maximum" not in text and len(text) < 2000, text[:300]
        assert env.snapshot() == good


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_game_at_the_envs_tick_bound_is_over_for_reset_and_restore(env_id):
    """``reset(options={"snapshot": s})`` took a game already at this env's ``max_ticks`` with every
    seat live, and its next step went past the bound; now reset refuses it (its episode is over, as
    it refuses a finished game) and ``restore`` shows it with no seat to act."""
    mod = envs.get_env_module(env_id)
    cfg = {**mod.TEST_CONFIGURATIONS[0], "max_ticks": 10}
    env = mod.parallel_env(**cfg)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    while env.agents:
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    snap = env.snapshot()
    assert snap["tick"] == 10
    fresh = mod.parallel_env(**cfg)
    fresh.reset(seed=5)
    before = fresh.snapshot()
    with pytest.raises(SnapshotError, match=r"at tick 10, where this env's episodes are cut \(max_ticks=10\)"):
        fresh.reset(options={"snapshot": snap})
    assert fresh.snapshot() == before
    fresh.restore(snap)
    assert fresh.agents == []
    with pytest.raises(RuntimeError, match="the episode is over"):
        fresh.step({})
