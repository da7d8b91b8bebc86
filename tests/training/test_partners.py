"""Scripted partner styles (``heuristic?style=NAME``) and the cooperative cross-play matrix
(``python -m training crossplay``): issue 16's population of partners."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envs
from envs.core.errors import ConfigError
from tests.training.test_checkpoint_safety import _run
from training.envspec import EnvSpec
from training.evaluation import evaluate
from training.policies import make_policy, parse_spec

COOPERATIVE = [e for e in envs.ENV_IDS if EnvSpec.resolve(e).kind == "cooperative"]
COMPETITIVE = [e for e in envs.ENV_IDS if EnvSpec.resolve(e).kind != "cooperative"]


def _styles(env_id: str) -> tuple[str, ...]:
    return getattr(EnvSpec.resolve(env_id).module().HeuristicPolicy, "styles", ("default",))


def test_the_cooperative_game_has_a_population_of_at_least_four_styles_besides_default():
    for env_id in COOPERATIVE:
        assert len([s for s in _styles(env_id) if s != "default"]) >= 4


@pytest.mark.parametrize("text, wrong", [("heuristic?colour=red", "unknown option 'colour'; allowed: style"),
                                         ("heuristic?style=", "style is empty")])
def test_a_malformed_heuristic_spec_is_refused_with_what_is_allowed(text, wrong):
    with pytest.raises(ConfigError, match=wrong):
        parse_spec(text)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_an_unknown_style_is_refused_naming_the_games_styles(env_id):
    with pytest.raises(ConfigError) as e:
        make_policy("heuristic?style=no_such_style", EnvSpec.resolve(env_id))
    assert "no style 'no_such_style'" in str(e.value) and ", ".join(_styles(env_id)) in str(e.value)
    assert make_policy("heuristic?style=default", EnvSpec.resolve(env_id)).name == "heuristic"


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_the_recall_option_is_taken_only_by_a_heuristic_that_has_it(env_id):
    """``heuristic?recall=world`` (Waroong Wars' DAgger teacher): made where the game's heuristic
    lists it in ``recalls``, refused elsewhere and for an unknown value, naming what is allowed."""
    spec = EnvSpec.resolve(env_id)
    recalls = getattr(spec.module().HeuristicPolicy, "recalls", ())
    assert parse_spec("heuristic?recall=world").label == "heuristic?recall=world"
    with pytest.raises(ConfigError, match="option .recall. given twice"):
        parse_spec("heuristic?recall=world&recall=memory")
    with pytest.raises(ConfigError) as e:
        make_policy("heuristic?recall=hands", spec)
    assert "no recall 'hands'" in str(e.value) and (", ".join(recalls) if recalls else "no recall option") in str(e.value)
    if "world" in recalls:
        assert make_policy("heuristic?recall=world", spec).recall == "world"
    else:
        with pytest.raises(ConfigError, match="no recall 'world'"):
            make_policy("heuristic?recall=world", spec)
    assert any("world" in getattr(EnvSpec.resolve(g).module().HeuristicPolicy, "recalls", ()) for g in envs.ENV_IDS)


def _trajectory(env_id: str, policy, seed: int) -> list[tuple]:
    env = EnvSpec.resolve(env_id).make()
    obs, _ = env.reset(seed=seed)
    policy.reset(seed)
    steps = []
    while env.agents:
        joint = {a: policy.act(obs[a], a, env) for a in env.agents}  # illegal_action="raise": a bad one raises
        steps.append(tuple(sorted(joint.items())))
        obs, *_ = env.step(joint)
    return steps


@pytest.mark.parametrize("env_id", COOPERATIVE)
def test_every_style_plays_legally_and_differently_from_the_default(env_id):
    spec = EnvSpec.resolve(env_id)
    seeds = range(3)
    base = [_trajectory(env_id, make_policy("heuristic", spec), s) for s in seeds]
    assert base == [_trajectory(env_id, make_policy("heuristic?style=default", spec), s) for s in seeds]
    for style in _styles(env_id):
        if style == "default":
            continue
        pol = make_policy(f"heuristic?style={style}", spec)
        assert pol.name == f"heuristic?style={style}"
        assert [_trajectory(env_id, pol, s) for s in seeds] != base, style


@pytest.mark.parametrize("env_id", COOPERATIVE)
def test_crossplay_cells_are_the_evaluate_rows_of_each_pair(env_id, tmp_path, capsys):
    styles = [f"heuristic?style={s}" for s in _styles(env_id) if s != "default"][:2]
    policies = ["heuristic", styles[0]]
    out = tmp_path / "x.json"
    rc, text = _run(["crossplay", *policies, "--partners", "heuristic", "--partners", styles[1], "--env", env_id,
                     "--games", "6", "--seed", "7", "--workers", "1", "--json", str(out)], capsys)
    assert rc == 0, text
    spec = EnvSpec.resolve(env_id)
    rows = json.loads(out.read_text())["rows"]
    assert [(r["policy"], r["others"]) for r in rows] == [(p, q) for p in policies for q in ["heuristic", styles[1]]]
    for r in rows:
        want = evaluate(spec, r["policy"], r["others"], 6, 7, 1, True)
        assert r["win_rate"] == pytest.approx(want.win_rate) and r["games"] == 6
    matrix = [line for line in text.splitlines() if line.startswith("| ")]
    assert matrix[0] == f"| chef \\ partner | heuristic | {styles[1]} |"
    assert [line.split(" | ")[0] for line in matrix[1:]] == [f"| {p}" for p in policies]


@pytest.mark.parametrize("env_id", COMPETITIVE)
def test_crossplay_refuses_a_competitive_game(env_id, capsys):
    rc, text = _run(["crossplay", "heuristic", "random", "--env", env_id, "--games", "2", "--workers", "1"], capsys)
    assert rc == 2 and "cooperative" in text and "tournament" in text


def test_the_documented_crossplay_commands_parse_and_name_valid_policies():
    from tests.training.test_boundaries import _documented_commands
    from training.cli import build_parser

    commands = _documented_commands("crossplay")
    assert commands, "docs/training.md shows a crossplay command"
    for argv in commands:
        args = build_parser().parse_args(["crossplay", *argv])
        for spec in list(args.policies) + list(args.partners or []):
            parse_spec(spec)
