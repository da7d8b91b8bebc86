"""The rules engine used directly, without PettingZoo (``env.unwrapped.engine``, ``Engine.new``): its
read and check API answers bad input the same way in every game, its masks cannot be written into,
it copies and pickles in any state, and a finished game says why it takes no step."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

import envs
from envs.core.errors import IllegalActionError


def _engine_class(env_id: str):
    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=0)
    return type(env.unwrapped.engine)


def _random_joint(eng, rng) -> dict:
    return {a: int(rng.choice(eng.legal_actions(a))) for a in eng.live_agents()}


def _played(cls, config: dict, seed: int, ticks: int):
    eng = cls.new(config, seed)
    rng = np.random.default_rng(seed)
    for _ in range(ticks):
        if eng.done:
            break
        eng.step(_random_joint(eng, rng))
    return eng


@pytest.mark.parametrize("conf", envs.test_configurations(), ids=lambda c: c.name)
def test_every_mask_an_engine_hands_out_is_read_only(conf):
    """A caller that writes into a mask it was given (building its own mask in place) must not change
    what the engine checks actions against: Waroong Wars' Cooking-turn masks had been writable views of
    the engine's cache, and an illegal cook written into one was then applied."""
    cls = _engine_class(conf.env_id)
    env = conf.parallel_env()
    env.reset(seed=0)
    config = env.unwrapped.engine.config
    eng = cls.new(config, 3)
    rng = np.random.default_rng(3)
    seen = 0
    while True:
        for a in eng.agents:
            m = eng.action_mask(a)
            assert not m.flags.writeable, (eng.tick, a)
            with pytest.raises(ValueError):
                m[int(np.argmin(m))] = 1
            seen += 1
        if eng.done or eng.tick >= 400:
            break
        eng.step(_random_joint(eng, rng))
    assert seen > 20


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_an_engine_deep_copies_and_pickles_after_its_public_view_was_read(env_id):
    """Wok Star's engine kept its public view's read-only mappings in a cache that deep copies and
    pickles took along, and failed (``cannot pickle 'mappingproxy' object``) in any state whose view
    had been read: every tick of the heuristic and the planner."""
    cls = _engine_class(env_id)
    eng = _played(cls, {}, 1, 30)
    for a in eng.agents:
        eng.public_view(a)
        eng.action_mask(a)
    copies = [copy.deepcopy(eng), pickle.loads(pickle.dumps(eng))]
    rng = np.random.default_rng(5)
    for _ in range(25):
        if eng.done:
            break
        joint = _random_joint(eng, rng)
        for e in [eng, *copies]:
            e.step(dict(joint))
    for c in copies:
        assert json.dumps(c.to_dict(), sort_keys=True) == json.dumps(eng.to_dict(), sort_keys=True)
        assert all(c.public_view(a) is not None for a in c.agents)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_the_read_and_check_api_answers_bad_input_alike_in_every_game(env_id):
    cls = _engine_class(env_id)
    eng = cls.new({}, 0)
    agent, n = eng.agents[0], eng.actions.n
    before = json.dumps(eng.to_dict(), sort_keys=True)
    # why_illegal says what is wrong, never an IndexError, never the last action's reason for -1
    for bad in (n, -1, 10**30):
        assert eng.why_illegal(agent, bad) == f"index out of range: valid indices are 0..{n - 1}"
    assert "integer index" in eng.why_illegal(agent, "3")
    assert eng.why_illegal("nobody", 1).startswith("no such agent 'nobody'; agents are")
    # an unknown agent is a KeyError naming the agents, from every reader
    for read in (eng.public_view, eng.action_mask, eng.outcome_seen_by, eng.legal_actions):
        with pytest.raises(KeyError, match="no such agent 'nobody'; agents are"):
            read("nobody")
        with pytest.raises(KeyError, match="no such agent"):
            read(["not", "hashable"])
    # an unknown illegal_action mode is refused, not read as "raise"
    joint = {a: eng.default_action(a) for a in eng.live_agents()}
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'noop', got 'nope'"):
        eng.validate(joint, "nope")
    assert json.dumps(eng.to_dict(), sort_keys=True) == before
    # the engine's generator must be one a snapshot can hold
    config = cls.resolve_config({})
    with pytest.raises(TypeError, match="rng must be a numpy Generator over PCG64.*MT19937"):
        cls(config, np.random.Generator(np.random.MT19937(0)))
    with pytest.raises(TypeError, match="rng must be a numpy Generator over PCG64.*int"):
        cls(config, 0)
    assert cls(config, np.random.default_rng(0)).to_dict() == cls.new({}, 0).to_dict()


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_finished_game_says_why_it_takes_no_step_and_stays_as_it_was(env_id):
    """After the end the masks show ``noop`` only (for wrappers and AEC agents stepping out), and
    ``step`` refuses any joint action with a message that says the game is over; the message had
    named agent '-' and action '-'."""
    cls = _engine_class(env_id)
    eng = _played(cls, {}, 2, 10_000)
    assert eng.done and eng.live_agents() == []
    assert all(eng.legal_actions(a) == [0] for a in eng.agents)
    snap = json.dumps(eng.to_dict(), sort_keys=True)
    for joint in ({}, {a: 0 for a in eng.agents}):
        with pytest.raises(IllegalActionError, match=r"the game is over \(tick \d+\): a finished game takes no more steps"):
            eng.step(joint)
    assert json.dumps(eng.to_dict(), sort_keys=True) == snap
    assert eng.why_illegal(eng.agents[0], 1) == "the game is over"


def test_the_architecture_docs_engine_snippet_runs_as_written(capsys):
    """docs/ARCHITECTURE.md's "Using an engine without PettingZoo" block, run as written: the game it
    plays is the env's game of the same seed."""
    import re

    from envs import docs

    text = (docs.ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text.split("### Using an engine without PettingZoo", 1)[1], re.S)
    scope: dict = {}
    exec(compile(block.group(1), "ARCHITECTURE.md", "exec"), scope)
    eng = scope["eng"]
    assert eng.done and scope["same"].to_dict() == eng.to_dict()
    env = envs.get_env_module("frying_master_v1").parallel_env(players=2)
    env.reset(seed=0)
    assert env.unwrapped.engine.to_dict() == type(eng).new({"players": 2}, 0).to_dict()
    assert capsys.readouterr().out.strip() == f"{eng.tick} {eng.outcome()['winners']} True"
