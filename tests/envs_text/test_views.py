"""Text views and parse_action over every configuration of the registry, on sampled states."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import envs
from envs.core.errors import ActionParseError, KitchenArenaError
from envs.core.text import legal_actions, parse_action, player_view, prompt, rules_summary
from tests.envs_text.helpers import sampled_states

CONFIGS = envs.test_configurations()


def _views(cfg, seed):
    env = cfg.parallel_env()
    out = []
    for e in sampled_states(env, seed):
        out.append({a: player_view(e, a) for a in e.possible_agents})
    return out


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
def test_views_are_non_empty_deterministic_and_name_the_viewer(cfg):
    first = _views(cfg, seed=7)
    assert len(first) >= 2, "at least two sampled states"
    for views in first:
        for agent, text in views.items():
            assert isinstance(text, str) and len(text) > 200
            assert f"You are {agent}" in text
    assert _views(cfg, seed=7) == first  # same seed, same actions: the same words


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
def test_parse_action_maps_every_legal_name_and_index_back(cfg):
    env = cfg.parallel_env()
    checked = 0
    for e in sampled_states(env, seed=3):
        for agent in e.agents:
            legal = legal_actions(e, agent)
            assert [i for i, _ in legal] == list(np.flatnonzero(e.engine.action_mask(agent)))
            for index, name in legal:
                assert name == e.action_table.name(index)
                assert parse_action(e, agent, name) == index
                assert parse_action(e, agent, f"  {name.upper().replace(', ', ' ,  ')} ") == index
                assert parse_action(e, agent, str(index)) == index
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_bad_text_raises_with_every_legal_name(env_id):
    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=0)
    agent = env.agents[0]
    legal = legal_actions(env, agent)
    names = [n for _, n in legal]
    illegal = next(i for i in range(env.action_table.n) if i not in dict(legal))
    for bad, why in [("make me a sandwich", "no action has this name"), ("", "empty"),
                     (str(env.action_table.n + 5), "no action has index"),
                     (str(illegal), "not legal now"), (env.action_table.name(illegal), "not legal now")]:
        with pytest.raises(ActionParseError) as info:
            parse_action(env, agent, bad)
        msg = str(info.value)
        assert why in msg, msg
        assert all(n in msg for n in names)
        assert info.value.legal == names and info.value.agent == agent
        assert isinstance(info.value, KitchenArenaError) and isinstance(info.value, ValueError)
    with pytest.raises(ActionParseError, match="must be text"):
        parse_action(env, agent, 3)


def test_action_parse_error_pickles_and_rebuilds_from_one_argument():
    e = ActionParseError("chef_0", "fly", ["noop", "serve(flip='low')"], "no action has this name")
    back = pickle.loads(pickle.dumps(e))
    assert str(back) == str(e) and back.legal == e.legal and back.text == "fly" and back.agent == "chef_0"
    assert type(back) is ActionParseError and back.__dict__ == e.__dict__
    again = type(e)(e)
    assert str(again) == str(e) and again.legal == e.legal
    msg_only = type(e)(str(e))
    assert str(pickle.loads(pickle.dumps(msg_only))) == str(e)


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_rules_summary_and_prompt(env_id):
    summary = rules_summary(env_id)
    assert 200 < len(summary) < 2500
    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=1)
    agent = env.agents[-1]
    p = prompt(env, agent)
    assert summary in p and player_view(env, agent) in p
    for i, n in legal_actions(env, agent):
        assert f"\n{i}: {n}" in p
        group = env.action_table.group_of(i)
        assert f"\n{group.name}: {group.doc}\n" in p.split("# What your actions mean", 1)[1]
    with pytest.raises(ValueError, match="unknown environment"):
        rules_summary("no_such_game_v1")
    with pytest.raises(ValueError, match="no such agent"):
        player_view(env, "nobody")


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_names_stay_distinct_without_case_spaces_and_quotes(env_id):
    from envs.core.text import normalize

    tables = {}
    for cfg in envs.test_configurations(env_id):
        t = cfg.parallel_env().action_table
        tables[t.n] = t
    for t in tables.values():
        names = [normalize(t.name(i)) for i in range(t.n)]
        assert len(set(names)) == t.n


def test_quotes_may_be_left_out():
    env_id = envs.available_env_ids()[-1]
    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=0)
    agent = env.agents[0]
    for index, name in legal_actions(env, agent):
        assert parse_action(env, agent, name.replace("'", "")) == index
        assert parse_action(env, agent, name.replace("'", '"')) == index
