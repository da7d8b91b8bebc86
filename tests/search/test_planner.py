"""The search player: legal actions only in every game and player count, deterministic for a seed,
the same decisions behind states that differ only in hidden information, the cooperative forms,
the selection rules, and one evaluation through the CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core.search import Planner, Rollout, SearchBudget, _Table
from envs.core.policy import RandomLegalPolicy
from tests.search.helpers import deciders, determinizer, one_config_per_player_count, positions, scramble
from training.cli import main
from training.envspec import EnvSpec
from training.evaluation import evaluate
from training.policies import make_policy

ROOT = Path(__file__).resolve().parents[2]
SHORT = "planner?sims=8&samples=4&horizon=15"
PER_COUNT = [(e, kw) for e in envs.ENV_IDS for kw in one_config_per_player_count(e)]


@pytest.mark.parametrize("env_id, kwargs", PER_COUNT, ids=[f"{e}-{kw['players']}p" for e, kw in PER_COUNT])
def test_the_planner_plays_only_legal_actions(env_id, kwargs):
    spec = EnvSpec.resolve(env_id, kwargs)
    env = spec.make()  # illegal_action="raise": an illegal action would raise in step
    obs, _ = env.reset(seed=2)
    agents = env.possible_agents
    planner = make_policy(SHORT, spec, seed=0)
    others = {a: make_policy("heuristic", spec) for a in agents}
    seats = {agents[0], agents[-1]}
    for _ in range(40):
        if not env.agents:
            break
        acts = {}
        for a in env.agents:
            acts[a] = planner.act(obs[a], a, env) if a in seats else others[a].act(obs[a], a, env)
            assert obs[a]["action_mask"][acts[a]], (a, acts[a])
        obs, *_ = env.step(acts)
    assert planner.planner.stats["searched"] > 0


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_decisions_repeat_for_a_seed(env_id):
    spec = EnvSpec.resolve(env_id)

    def play(seed: int) -> list[int]:
        env = spec.make()
        obs, _ = env.reset(seed=7)
        pol = make_policy(SHORT, spec, seed=seed)
        h = {a: make_policy("heuristic", spec) for a in env.possible_agents}
        out = []
        for _ in range(25):
            if not env.agents:
                break
            acts = {a: h[a].act(obs[a], a, env) for a in env.agents}
            seat = env.agents[0]
            acts[seat] = pol.act(obs[seat], seat, env)
            out.append(acts[seat])
            obs, *_ = env.step(acts)
        return out

    assert play(1) == play(1)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_states_that_differ_only_in_hidden_information_get_the_same_decisions(env_id):
    spec = EnvSpec.resolve(env_id)
    env, states = positions(env_id, spec.make().unwrapped._init_kwargs, seed=9, count=4)
    checked = 0
    for k, eng in enumerate(states):
        for viewer in deciders(eng)[:1]:
            if len(eng.legal_actions(viewer)) < 2:
                continue
            other = scramble(env_id, eng, viewer, seed=50 + k)
            assert other.to_dict() != eng.to_dict()
            obs = {"action_mask": eng.action_mask(viewer)}
            for seed in (0, 1):
                a = make_policy(SHORT, spec, seed=seed).act(obs, viewer, _Table(eng))
                b = make_policy(SHORT, spec, seed=seed).act(obs, viewer, _Table(other))
                assert a == b
            checked += 1
    assert checked


def test_a_single_legal_action_is_played_without_search():
    spec = EnvSpec.resolve("waroong_wars_v1")
    env = spec.make()
    env.reset(seed=0)
    eng = env.unwrapped.engine
    pol = make_policy(SHORT, spec, seed=0)
    waiting = next(a for a in eng.agents if len(eng.legal_actions(a)) == 1) if any(
        len(eng.legal_actions(a)) == 1 for a in eng.agents) else None
    if waiting is None:  # Shopping: everyone picks; step to the first Cooking turn
        rng = np.random.default_rng(0)
        while eng.phase == "draft":
            eng.step({a: int(rng.choice(eng.legal_actions(a))) for a in eng.live_agents()})
        waiting = next(a for a in eng.agents if len(eng.legal_actions(a)) == 1)
    a = pol.act({"action_mask": eng.action_mask(waiting)}, waiting, env)
    assert a == eng.legal_actions(waiting)[0] and pol.planner.stats["searched"] == 0


def test_cooperative_wok_star_one_seat_and_the_whole_team():
    spec = EnvSpec.resolve("wok_star_v1", {"players": 2, "difficulty": "mild"})
    pol = "planner?sims=4&samples=2&horizon=10"
    beside = evaluate(spec, pol, "heuristic", games=2, workers=1)
    team = evaluate(spec, pol, None, games=1, workers=1)
    assert beside.lineup == "with heuristic" and beside.games == 2
    assert team.lineup == "whole team" and team.games == 1
    planner = make_policy(pol, spec).planner
    assert planner.cooperative
    won = {"winners": ["chef_0", "chef_1"], "scores": {"chef_0": 90.0, "chef_1": 90.0}}
    lost = {"winners": [], "scores": {"chef_0": 90.0, "chef_1": 90.0}}
    assert planner.value(won, "chef_0", True) == planner.value(won, "chef_1", True) > 1.0
    assert planner.value(lost, "chef_0", True) < 1.0 < planner.value(won, "chef_0", True)


def test_competitive_values_count_the_win_then_the_rank_then_the_margin():
    planner = make_policy("planner?sims=2", EnvSpec.resolve("waroong_wars_v1")).planner
    v = lambda scores, winners, done=True: planner.value({"winners": winners, "scores": scores}, "p", done)
    assert v({"p": 30, "q": 20, "r": 10}, ["p"]) > v({"p": 25, "q": 30, "r": 10}, ["q"]) > v(
        {"p": 5, "q": 30, "r": 10}, ["q"])
    assert v({"p": 30, "q": 30}, ["p", "q"]) == pytest.approx(0.7 * 0.5 + 0.2 * 0.5 + 0.1 * 0.5)
    assert v({"p": 12, "q": 10}, [], done=False) > v({"p": 11, "q": 10}, [], done=False) > v(
        {"p": 9, "q": 10}, [], done=False)


def test_the_rollout_policys_choice_stands_unless_another_arm_clearly_beats_it():
    choose = Planner._choose
    assert choose([[0.5, 0.4, 0.6], [0.52, 0.38, 0.61]]) == 0  # a gain within the noise
    assert choose([[0.2, 0.3, 0.25, 0.3], [0.6, 0.7, 0.65, 0.72], [0.5, 0.6, 0.55, 0.6]]) == 1
    assert choose([[0.2], [0.9]]) == 0  # one paired world is no evidence
    assert choose([[0.5, 0.5], [0.6, 0.6]]) == 1  # a gain on every world, without noise


def test_ucb1_opens_arms_progressively_and_tries_each_once():
    n, w = np.zeros(5), np.zeros(5)
    picks = []
    for i in range(12):
        j = Planner._select(n, w, i)
        picks.append(j)
        n[j] += 1
        w[j] += 1.0 if j == 2 else 0.1
    assert picks[0] == 0 and picks[1] == 1 and picks[4] == 2 and max(picks[:4]) <= 1
    assert n[2] == max(n)  # the best arm is played most once open


def test_a_time_budget_stops_on_the_clock():
    ticks = iter(np.arange(0.0, 100.0, 0.004))  # 4 ms per reading
    spec = EnvSpec.resolve("frying_master_v1")
    env = spec.make()
    env.reset(seed=1)
    eng = env.unwrapped.engine
    while len(eng.legal_actions("chef_0")) < 2:
        eng.step({a: eng.legal_actions(a)[0] for a in eng.live_agents()})
    planner = Planner(determinizer("frying_master_v1"), Rollout(lambda: RandomLegalPolicy(0)),
                      SearchBudget(ms=20, samples=2, horizon=5), clock=lambda: float(next(ticks)))
    planner.decide(eng, "chef_0")
    assert 2 <= planner.stats["simulations"] <= 5


def test_the_docs_short_evaluate_runs_as_written_with_a_planner_seat(capsys):
    text = (ROOT / "docs" / "search.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- search-example -->\s*```bash\n(.*?)```", text, re.S).group(1).strip()
    words = shlex.split(block)
    assert words[:3] == ["python", "-m", "training"]
    rc = main(words[3:])
    assert rc == 0
    spec = words[4]
    assert spec.startswith("planner?") and f"| {spec} | vs heuristic | 2 |" in capsys.readouterr().out


def test_the_speed_table_of_performance_md_is_what_the_command_prints(capsys):
    from tests.search import speed

    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Search"):]
    header = next(line for line in section.splitlines() if line.startswith("| env |"))
    assert "python -m tests.search.speed" in section
    assert speed.main(["--seconds", "0.01", "--sims", "2", "--env", "frying_master_v1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == header and out[2].startswith("| frying_master_v1 | 3 |")
