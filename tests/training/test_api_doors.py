"""The Python API's doors as a researcher's own code calls them: policies, evaluation,
tournaments, statistics and ``play_episode`` refuse what they cannot use, with what is allowed,
and report no figure that no game measured."""

from __future__ import annotations

import math

import pytest

import envs
from envs.baselines import evaluate_config
from envs.core.errors import ConfigError
from envs.core.play import play_episode
from envs.core.policy import RandomLegalPolicy
from training.envspec import EnvSpec
from training.evaluation import evaluate, markdown_table
from training.policies import make_policy, parse_spec
from training.stats import mean_ci, wilson
from training.tournament import run_tournament

GAMES = [e for e in envs.ENV_IDS if envs.get_env_module(e).SUMMARY["kind"] == "competitive"]


def _spec(env_id: str) -> EnvSpec:
    return EnvSpec.resolve(env_id, dict(envs.get_env_module(env_id).TEST_CONFIGURATIONS[0]))


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_the_noop_policy_plays_whole_games_of_every_game(env_id):
    """``noop`` crashed every Waroong Wars game at its first draft tick (a drafter has no
    ``noop``: ``IllegalActionError``) although it is offered for every game; there it now plays
    the game's documented default, as ``illegal_action="noop"`` does."""
    spec = _spec(env_id)
    env = spec.make()
    noop = make_policy("noop", spec)
    result = play_episode(env, {a: noop for a in env.possible_agents}, seed=1, max_steps=400)
    assert result.steps > 0
    obs, _ = env.reset(seed=2)
    for a in env.agents:  # noop where it is legal, else the game's documented default (a legal action)
        played = noop.act(obs[a], a, env)
        expected = 0 if obs[a]["action_mask"][0] else env.unwrapped.engine.default_action(a)
        assert played == expected and obs[a]["action_mask"][played]


@pytest.mark.parametrize("call", [
    lambda s: run_tournament(s, ["random", "heuristic"], games=-3),
    lambda s: run_tournament(s, ["random", "heuristic"], games=2.5),
    lambda s: run_tournament(s, ["random", "heuristic"], games=2, seed=-1),
    lambda s: evaluate(s, "random", "heuristic", games="3"),
    lambda s: evaluate(s, "random", "heuristic", games=2, seed=1.5),
])
def test_games_and_seeds_are_checked_by_the_python_api(call):
    """``run_tournament(games=-3)`` returned standings of no games (win-rate intervals [0, 0]);
    ``games=2.5``, ``games="3"`` and ``seed=1.5`` were bare ``TypeError``s."""
    with pytest.raises(ValueError, match=r"(games|seed)=.* is not allowed; allowed: an integer >= [01]"):
        call(_spec(GAMES[0]))


def test_evaluate_config_refuses_no_games():
    """``games=0`` was ``ZeroDivisionError``; ``games=-2`` an interval of (2.09, 0.0)."""
    cfg = envs.test_configurations(GAMES[0])[0]
    for bad in (0, -2):
        with pytest.raises(ValueError, match=rf"games={bad} is not allowed"):
            evaluate_config(cfg, bad)


def test_a_competitive_mirror_has_no_win_rate_and_one_game_no_interval():
    """``evaluate(spec, p, None)`` in a competitive game seats ``p`` everywhere: it reported a
    100% win rate with an interval; one game gave zero-width intervals ("20 ± 0")."""
    spec = _spec(GAMES[0])
    mirror = evaluate(spec, "random", None, games=2, workers=0)
    assert mirror.lineup == "mirror (all seats)" and math.isnan(mirror.win_rate)
    assert mirror.to_json()["win_rate"] is None and mirror.to_json()["win_rate_ci95"] == [None, None]
    one = evaluate(spec, "random", "heuristic", games=1, workers=0)
    assert math.isnan(one.length[1]) and "(one game)" in markdown_table([one])
    assert mean_ci([5.0])[0] == 5.0 and all(math.isnan(x) for x in mean_ci([5.0])[1:])
    assert all(math.isnan(x) for x in wilson(0, 0))
    for bad in (5, -1):
        with pytest.raises(ValueError, match=r"successes in 3 trials; allowed: 0\.\.3"):
            wilson(bad, 3)
    lo, hi = wilson(3, 3)
    assert 0.43 < lo < 0.44 and hi == 1.0


def test_play_episode_needs_a_policy_per_seat_and_counts_max_steps():
    """A missing seat was a bare ``KeyError: 'chef_1'``; ``max_steps=0`` and ``-5`` each
    played one step."""
    env = _spec(GAMES[0]).make()
    pol = RandomLegalPolicy(0)
    with pytest.raises(KeyError, match="no policy for"):
        play_episode(env, {env.possible_agents[0]: pol}, seed=1)
    assert play_episode(env, {a: pol for a in env.possible_agents}, seed=1, max_steps=0).steps == 0
    assert play_episode(env, {a: pol for a in env.possible_agents}, seed=1, max_steps=3).steps == 3
    for bad in (-5, 1.5, True):
        with pytest.raises(ValueError, match="max_steps=.* is not allowed; allowed: an integer >= 0 or None"):
            play_episode(env, {a: pol for a in env.possible_agents}, seed=1, max_steps=bad)


def test_make_policy_and_parse_spec_name_a_value_of_the_wrong_kind():
    """``make_policy(None, spec)`` and ``make_policy("heuristic", "frying_master_v1")`` were
    ``AttributeError``s; ``parse_spec(5)`` said the spec was empty."""
    spec = _spec(GAMES[0])
    with pytest.raises(ConfigError, match="a policy spec is a string; got int 5"):
        parse_spec(5)
    with pytest.raises(ConfigError, match="a policy spec is a string; got NoneType"):
        make_policy(None, spec)
    with pytest.raises(ConfigError, match=r"make_policy needs the EnvSpec of the env it plays .* got str"):
        make_policy("heuristic", GAMES[0])
    assert isinstance(make_policy("random", spec, seed=0), RandomLegalPolicy)


@pytest.mark.parametrize("spec_text", ["heuristic", "planner?sims=4&samples=2"])
def test_a_scripted_policy_names_an_env_of_another_game_or_without_a_game(spec_text):
    """The heuristic and the planner of one game, given another game's env, failed deep inside
    (``'PublicView' object has no attribute 'my_seat'``); given an env before ``reset``,
    ``'NoneType' object has no attribute 'public_view'``."""
    fm = next(e for e in envs.ENV_IDS if e.startswith("frying_master"))
    ws = next(e for e in envs.ENV_IDS if e.startswith("wok_star"))
    pol = make_policy(spec_text, _spec(fm), seed=0)
    other = _spec(ws).make()
    obs, _ = other.reset(seed=1)
    agent = other.agents[0]
    with pytest.raises(ValueError, match=r"frying_master's (HeuristicPolicy|planner) plays frying_master; the env "
                                         r"given plays wok_star"):
        pol.act(obs[agent], agent, other)
    fresh = _spec(fm).make()
    with pytest.raises(RuntimeError, match="the env has no game yet; call env.reset"):
        pol.act(obs[agent], agent, fresh)
    obs, _ = fresh.reset(seed=1)
    a = fresh.agents[0]
    assert obs[a]["action_mask"][pol.act(obs[a], a, fresh)]


def test_every_policy_kind_refuses_a_negative_seed():
    """``make_policy("heuristic", spec, seed=-1)`` was taken where ``random`` refused it."""
    spec = _spec(GAMES[0])
    for text in ("random", "heuristic", "noop"):
        with pytest.raises(ValueError, match=r"seed=-1 is not allowed; allowed: an integer >= 0"):
            make_policy(text, spec, seed=-1)


def test_an_integer_too_long_for_a_config_is_refused_naming_its_length(tmp_path):
    """A YAML integer of 100,000 digits (or YAML 1.1's base-60 ``1:59:59:...``, 22 s to build at
    900 kB) reached Python's limit on integer text, or the message's ``repr``, as a traceback."""
    from training.config import ConfigError as CfgError, load_config, parse_override

    for text in ("9" * 100_000, "1" + ":59" * 3000):
        path = tmp_path / "big.yaml"
        path.write_text(f"training:\n  seed: {text}\n")
        with pytest.raises(CfgError, match=rf"line 2: an integer written with {len(text):,} characters is not allowed; "
                                           r"allowed: at most 64"):
            load_config(path)
        with pytest.raises(CfgError, match=r"--set 'training.seed=[19][^']*\.\.\.': the value is line 1: an integer written with"):
            parse_override(f"training.seed={text}")
    assert load_config(None, ["training.seed=4294967295"])["training"]["seed"] == 4294967295


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_an_option_past_a_floats_range_or_too_long_to_print_is_a_config_error(env_id):
    """``timer_seconds=10**400`` raised a bare ``OverflowError``, ``players=10**5000`` Python's
    ``ValueError`` about integer text."""
    mod = envs.get_env_module(env_id)
    float_option = next(o.name for o in mod.parallel_env().config_spec().options.values() if o.kind == "float")
    with pytest.raises(ConfigError, match=rf"option {float_option}=1000.*is not allowed; allowed:"):
        mod.parallel_env(**{float_option: 10 ** 400})
    with pytest.raises(ConfigError, match=r"option players=<an integer of \d+ bits> is not allowed; allowed: one of"):
        mod.parallel_env(players=10 ** 5000)


def test_the_agilerl_env_refuses_every_mask_in_infos_but_true():
    """``mask_in_infos=0``, ``"no"`` or ``None`` had become True, where the env itself refuses them."""
    from envs.integrations.agilerl import parallel_env

    assert parallel_env(envs.ENV_IDS[1]).unwrapped.mask_in_infos is True
    assert parallel_env(envs.ENV_IDS[1], mask_in_infos=True).unwrapped.mask_in_infos is True
    for bad in (False, 0, "no", None):
        with pytest.raises(ValueError, match=rf"mask_in_infos must stay True \(or be left out\); got {bad!r}"):
            parallel_env(envs.ENV_IDS[1], mask_in_infos=bad)
