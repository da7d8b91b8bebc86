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
from envs.core.errors import ConfigError
from envs.core.search import Planner, Rollout, SearchBudget, _Table
from envs.core.policy import RandomLegalPolicy
from tests.search.helpers import deciders, determinizer, one_config_per_player_count, positions, scramble
from training.cli import main
from training.envspec import EnvSpec
from training.evaluation import evaluate
from training.policies import make_policy

ROOT = Path(__file__).resolve().parents[2]
SHORT = "planner?sims=8&samples=4&horizon=15"
#: every decision searched, over every legal move (``arms=all``): the search at every position
SHORT_ALL = SHORT + "&arms=all"
PER_COUNT = [(e, kw) for e in envs.ENV_IDS for kw in one_config_per_player_count(e)]


@pytest.mark.parametrize("env_id, kwargs", PER_COUNT, ids=[f"{e}-{kw['players']}p" for e, kw in PER_COUNT])
def test_the_planner_plays_only_legal_actions(env_id, kwargs):
    spec = EnvSpec.resolve(env_id, kwargs)
    env = spec.make()  # illegal_action="raise": an illegal action would raise in step
    obs, _ = env.reset(seed=2)
    agents = env.possible_agents
    planner = make_policy(SHORT_ALL, spec, seed=0)
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


@pytest.mark.parametrize("arms", ["game", "all"])
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_decisions_repeat_for_a_seed(env_id, arms):
    spec = EnvSpec.resolve(env_id)

    def play(seed: int) -> list[int]:
        return _first_seats_moves(spec, make_policy(f"{SHORT}&arms={arms}", spec, seed=seed), 7, 25)

    assert play(1) == play(1)


def _first_seats_moves(spec, pol, seed: int, ticks: int) -> list[int]:
    """The moves ``pol`` plays in the first acting seat of a game seeded ``seed`` (heuristics in the
    others), for at most ``ticks`` ticks."""
    env = spec.make()
    obs, _ = env.reset(seed=seed)
    h = {a: make_policy("heuristic", spec) for a in env.possible_agents}
    out = []
    for _ in range(ticks):
        if not env.agents:
            break
        acts = {a: h[a].act(obs[a], a, env) for a in env.agents}
        seat = env.agents[0]
        acts[seat] = pol.act(obs[seat], seat, env)
        out.append(acts[seat])
        obs, *_ = env.step(acts)
    return out


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
                a = make_policy(SHORT_ALL, spec, seed=seed).act(obs, viewer, _Table(eng))
                b = make_policy(SHORT_ALL, spec, seed=seed).act(obs, viewer, _Table(other))
                assert a == b
            checked += 1
    assert checked


def test_rollouts_by_the_memory_checkpoint_see_no_hidden_information_and_play_legally():
    """``rollout=checkpoint:checkpoints/waroong_wars/memory`` (the planner of the README's Waroong
    Wars row): the checkpoint reads each simulated seat's observation, own picks included, from the
    determinised world, and the seat's own at the table, so two states that differ only in what the
    seat cannot see get the same decisions; its moves are legal in the env it was trained on."""
    from training.checkpoints import read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    spec = trained_env_spec(read_metadata(ckpt))  # 3 players, own_picks=True
    assert spec.options["own_picks"] is True
    text = f"planner?sims=6&samples=3&rollout=checkpoint:{ckpt}"
    env, states = positions("waroong_wars_v1", spec.make().unwrapped._init_kwargs, seed=9, count=4)
    checked = 0
    for k, eng in enumerate(states):
        for viewer in deciders(eng)[:1]:
            if len(eng.legal_actions(viewer)) < 2:
                continue
            other = scramble("waroong_wars_v1", eng, viewer, seed=50 + k)
            assert other.to_dict() != eng.to_dict()
            obs = {"action_mask": eng.action_mask(viewer)}
            for seed in (0, 1):
                pol = make_policy(text, spec, seed=seed)
                a = pol.act(obs, viewer, _Table(eng))
                assert make_policy(text, spec, seed=seed).act(obs, viewer, _Table(other)) == a
                assert obs["action_mask"][a]
            checked += 1
    assert checked >= 2
    assert pol.planner.rollout.observe is not None and pol.planner.stats["simulations"] > 0


def test_rollouts_play_a_forced_move_without_observing_only_for_policies_that_say_it_is_free():
    """A rollout seat with one legal action: a policy whose ``forced_moves_free`` is true (a
    deterministic checkpoint; the Waroong Wars heuristic recalling from the world) plays it without
    its observation being built or its ``act`` called; every other policy (a sampling checkpoint,
    whose draws the move would use; a heuristic that remembers its picks) is asked as before. The
    moves are the policy's own either way."""
    from envs.waroong_wars.heuristic import HeuristicPolicy
    from training.checkpoints import read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    spec = trained_env_spec(read_metadata(ckpt))
    assert make_policy(f"checkpoint:{ckpt}", spec).forced_moves_free
    assert not make_policy(f"checkpoint:{ckpt}?deterministic=false", spec).forced_moves_free
    assert HeuristicPolicy(recall="world").forced_moves_free and not HeuristicPolicy().forced_moves_free
    assert not RandomLegalPolicy().forced_moves_free
    encoder = spec.make().unwrapped.encoder
    _, states = positions("waroong_wars_v1", spec.make().unwrapped._init_kwargs, seed=9, count=8)
    for text, free in ((f"checkpoint:{ckpt}", True), (f"checkpoint:{ckpt}?deterministic=false", False)):
        observed = []

        def observe(engine, agent):
            observed.append(agent)
            return encoder.observe(engine, agent)

        roll = Rollout(lambda: make_policy(text, spec, seed=3), observe)
        asking = make_policy(text, spec, seed=3)
        forced = skipped = 0
        for eng in states:
            for agent in eng.agents:
                roll.policies.setdefault(agent, make_policy(text, spec, seed=3))
                n_before = len(observed)
                a = roll.act(eng, agent)
                obs = {"action_mask": eng.action_mask(agent), "observation": encoder.observe(eng, agent)}
                if free:  # a deterministic policy: the same move when asked
                    assert a == asking.act(obs, agent, _Table(eng))
                forced += len(eng.legal_actions(agent)) == 1
                skipped += len(observed) == n_before
                assert (len(observed) == n_before) == (free and len(eng.legal_actions(agent)) == 1)
        assert forced > 3 and skipped == (forced if free else 0)


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
    noisy = [[0.5, 0.4, 0.6], [0.56, 0.41, 0.64]]  # +0.037 a world, 2.5 standard errors of the paired gain
    assert choose(noisy) == 1 and choose(noisy, 3.0) == 0 and choose([[0.5, 0.4, 0.6], [0.52, 0.38, 0.61]], 0.0) == 1
    assert make_policy("planner?sims=4&z=0.5", EnvSpec.resolve("frying_master_v1")).planner.z == 0.5
    assert make_policy("planner?sims=4", EnvSpec.resolve("frying_master_v1")).planner.z == 1.5


def test_t_quantile_matches_students_table():
    """``t_quantile(z, df)``: the Student-t quantile at the normal level of ``z``, against the
    printed table (one-sided 95% and 97.5%, three decimals), and ``z`` itself on a great many
    degrees of freedom or at ``z = 0``."""
    from envs.core.search import t_cdf, t_quantile

    z95, z975 = 1.6448536269514722, 1.959963984540054  # the normal quantiles of 0.95 and 0.975
    table = {(z95, 1): 6.314, (z95, 2): 2.920, (z95, 3): 2.353, (z95, 5): 2.015, (z95, 10): 1.812,
             (z95, 30): 1.697, (z975, 1): 12.706, (z975, 2): 4.303, (z975, 4): 2.776, (z975, 10): 2.228,
             (z975, 20): 2.086, (z975, 120): 1.980}
    for (z, df), printed in table.items():
        assert t_quantile(z, df) == pytest.approx(printed, abs=5e-4), (z, df)
        assert t_cdf(printed, df) == pytest.approx(0.95 if z == z95 else 0.975, abs=2e-4)
    assert t_quantile(1.5, 5000) == 1.5 and t_quantile(0.0, 3) == 0.0
    assert t_quantile(1.5, 999) > t_quantile(1.5, 1000) == 1.5  # falls toward z as df grows


def test_rule_t_asks_more_of_a_gain_seen_on_few_worlds_and_the_same_on_many():
    """``rule=t``: the threshold is the Student-t quantile with ``k - 1`` degrees of freedom
    (``k`` paired worlds) at ``z``'s level. On three worlds (2 degrees of freedom: 2.45 at the
    level of ``z=1.5``) a gain of 2.5 standard errors passes both rules and one of 1.73 passes
    ``z`` only; on many worlds the two agree."""
    choose = Planner._choose
    base = [0.5, 0.4, 0.6]
    gain = [0.5 + 0.04, 0.4 + 0.01, 0.6 + 0.06]  # +0.037 a world, se 0.0145: 2.5 standard errors
    assert choose([base, gain], 1.5, "z") == 1 and choose([base, gain], 1.5, "t") == 1
    weaker = [0.5 + 0.03, 0.4 + 0.0, 0.6 + 0.06]  # +0.03 a world, se 0.0173: 1.73 standard errors
    assert choose([base, weaker], 1.5, "z") == 1 and choose([base, weaker], 1.5, "t") == 0
    # 2.42 standard errors: under 2 degrees of freedom' 2.45, over 3 degrees' 2.04 (k - 1, not k)
    between = [0.5 + 0.035, 0.4 + 0.01, 0.6 + 0.06]
    assert choose([base, between], 1.5, "z") == 1 and choose([base, between], 1.5, "t") == 0
    rng = np.random.default_rng(0)
    many_base = rng.random(400)
    many = many_base + 0.01 + rng.normal(0, 0.05, 400)
    assert choose([list(many_base), list(many)], 1.5, "t") == choose([list(many_base), list(many)], 1.5, "z") == 1
    spec = EnvSpec.resolve("frying_master_v1")
    assert make_policy("planner?sims=4&rule=t", spec).planner.rule == "t"
    assert make_policy("planner?sims=4", spec).planner.rule == "z"  # the default
    with pytest.raises(ConfigError, match="rule='student'.*allowed: z .* or t"):
        make_policy("planner?rule=student", spec)


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
    # exploration: an arm tried once (mean 0.5) is tried again before a tenth visit of one at 0.6
    assert Planner._select(np.array([10.0, 1.0]), np.array([6.0, 0.5]), 11) == 1


def _searched_state(env_id: str):
    spec, env, eng = _play_until(env_id, {}, 3, lambda e: any(len(e.legal_actions(a)) > 1 for a in e.live_agents())
                                 and e.tick > 5)
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 1)
    return spec, env, eng, agent


def test_the_worlds_of_a_decision_are_exactly_samples_determinisations():
    """``samples=2`` with 40 simulations: two determinisations, each replayed (a mutant drew a third)."""
    spec, env, eng, agent = _searched_state("waroong_wars_v1")
    pol = make_policy("planner?sims=40&samples=2&arms=all", spec, seed=0)
    real, calls = pol.planner.determinize, []
    pol.planner.determinize = lambda *a, **k: calls.append(1) or real(*a, **k)
    pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    assert pol.planner.stats["simulations"] == 40 and len(calls) == 2


def test_an_integer_horizon_values_each_simulation_that_many_ticks_after_its_move():
    spec, env, eng, agent = _searched_state("frying_master_v1")
    pol = make_policy("planner?sims=6&samples=2&arms=all&horizon=5", spec, seed=0)
    real, ticks = pol.planner._worth, []
    pol.planner._worth = lambda sim, out, who: ticks.append((sim.tick, sim.done)) or real(sim, out, who)
    pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    assert len(ticks) == 6 and all(t == eng.tick + 1 + 5 or done for t, done in ticks), (eng.tick, ticks)


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


def test_the_time_budgets_clock_counts_this_threads_cpu_only():
    """The budget read ``time.process_time``, the CPU time of every thread of the process: four
    planners in threads (an evaluation's thread pool, a library's runner threads) each got about a
    quarter of their search. The clock now counts the deciding thread's CPU time only. (CPU times
    are compared, never the wall clock: here another thread works while this one waits.)"""
    import threading
    import time

    planner = make_policy("planner?ms=100", EnvSpec.resolve("frying_master_v1"), seed=0).planner
    spent = []

    def burn():
        start = time.thread_time()
        while time.thread_time() - start < 0.3:
            pass
        spent.append(time.thread_time() - start)

    before = planner.clock()
    other = threading.Thread(target=burn)
    other.start()
    other.join()  # this thread waits: it spends next to no CPU time
    waited = planner.clock() - before
    assert spent[0] >= 0.3 and waited < spent[0] / 3, (waited, spent)


def test_the_docs_short_evaluate_runs_as_written_with_a_planner_seat(capsys):
    text = (ROOT / "docs" / "search.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- search-example -->\s*```bash\n(.*?)```", text, re.S).group(1).strip()
    words = shlex.split(block)
    assert words[:3] == ["python", "-m", "training"]
    rc = main(words[3:])
    assert rc == 0
    spec = words[4]
    assert spec.startswith("planner?") and f"| {spec} | vs heuristic | 2 |" in capsys.readouterr().out


def test_the_speed_table_of_performance_md_is_what_the_command_prints(capsys, monkeypatch):
    from tests.search import speed

    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Search"):]
    header = next(line for line in section.splitlines() if line.startswith("| env |"))
    assert "python -m tests.search.speed" in section
    ran = []
    simulate = Planner._simulate
    monkeypatch.setattr(Planner, "_simulate", lambda self, *a: ran.append(1) or simulate(self, *a))
    assert speed.main(["--seconds", "0.01", "--sims", "2", "--env", "frying_master_v1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == header and out[2].startswith("| frying_master_v1 | 3 |")
    # the timed decisions really simulate (three rollouts, 2 simulations per decision, several deciding
    # seats), and every rate is measured
    assert len(ran) >= 3 * 2 * 2
    cells = [c.strip() for c in out[2].strip("|").split("|")]
    assert len(cells) == len(header.strip("|").split("|")) and "nan" not in cells
    assert all(float(c.replace(",", "")) > 0 for c in cells[3:])


def test_every_documented_speed_command_is_accepted(monkeypatch, capsys):
    """Each ``python -m tests.search.speed ...`` written in the docs (with ``taskset`` or not) runs
    with its own arguments; the measurement is stubbed, it takes minutes."""
    import re
    import shlex

    from tests.search import speed

    found = set()
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        found |= {" ".join(m.group(1).split()) for m in re.finditer(r"python -m tests\.search\.speed([^`|\n]*)", text)}
    assert len(found) >= 2, found
    asked = []
    monkeypatch.setattr(speed, "measure", lambda env, seconds, sims: asked.append((env, seconds, sims)) or
                        {"env": env, "players": 2, "tick": 0, "clones/s": 1.0})
    for args in sorted(found):
        asked.clear()
        assert speed.main(shlex.split(args)) == 0, args
        assert asked and all(e in envs.ENV_IDS for e, _, _ in asked), args
    capsys.readouterr()


# ---------------------------------------------------------------- which decisions are searched
def _play_until(env_id: str, kwargs: dict, seed: int, stop) -> tuple:
    """(env, engine) after heuristic play of every seat until ``stop(engine)`` holds."""
    spec = EnvSpec.resolve(env_id, kwargs)
    env = spec.make()
    obs, _ = env.reset(seed=seed)
    h = {a: make_policy("heuristic", spec) for a in env.possible_agents}
    eng = env.unwrapped.engine
    for _ in range(5000):
        if stop(eng) or not env.agents:
            break
        obs, *_ = env.step({a: h[a].act(obs[a], a, env) for a in env.agents})
    assert stop(eng), "the position was not reached"
    return spec, env, eng


def _waroong_wars_at_start():
    """(spec, env, engine, the first seat, its legal actions) of a fresh seeded Waroong Wars game."""
    spec = EnvSpec.resolve("waroong_wars_v1")
    env = spec.make()
    env.reset(seed=0)
    eng = env.unwrapped.engine
    agent = eng.live_agents()[0]
    return spec, env, eng, agent, eng.legal_actions(agent)


def _searched(spec, env, agent: str, text: str = SHORT) -> tuple[int, int]:
    """(the planner's action, how many decisions it searched) for ``agent`` now."""
    pol = make_policy(text, spec, seed=0)
    eng = env.unwrapped.engine
    a = pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    return a, pol.planner.stats["searched"]


def test_frying_master_searches_which_pile_to_draw_and_plays_the_rest_as_its_rollout_policy():
    from envs.frying_master.determinize import search_arms
    from envs.frying_master.heuristic import decide

    drawing = lambda e: e.phase in ("play", "countdown") and any(
        len([d for d in e.ix.draw if e.action_mask(a)[d]]) == 2 and decide(e.public_view(a)) in e.ix.draw
        for a in e.live_agents())
    spec, env, eng = _play_until("frying_master_v1", {"players": 2}, 3, drawing)
    agent = next(a for a in eng.live_agents() if decide(eng.public_view(a)) in eng.ix.draw
                 and all(eng.action_mask(a)[d] for d in eng.ix.draw))
    first = decide(eng.public_view(agent))
    legal = eng.legal_actions(agent)
    assert search_arms(eng, agent, first, legal) == [first] + [d for d in eng.ix.draw if d != first]
    a, searched = _searched(spec, env, agent)
    assert searched == 1 and a in eng.ix.draw
    # A tick of cooking (lifting, flipping, serving): no search, the heuristic's move.
    spec, env, eng = _play_until("frying_master_v1", {"players": 2}, 3,
                                 lambda e: e.phase == "play" and e.tick > 20 and any(
                                     decide(e.public_view(a)) not in e.ix.draw and len(e.legal_actions(a)) > 2
                                     for a in e.live_agents()))
    agent = next(a for a in eng.live_agents() if decide(eng.public_view(a)) not in eng.ix.draw
                 and len(eng.legal_actions(a)) > 2)
    first = decide(eng.public_view(agent))
    assert search_arms(eng, agent, first, eng.legal_actions(agent)) == []
    assert _searched(spec, env, agent) == (first, 0)
    # arms=all searches that tick over every legal move.
    assert _searched(spec, env, agent, SHORT_ALL)[1] == 1


def test_wok_star_searches_the_turn_based_decisions_only():
    from envs.wok_star.determinize import search_arms
    from envs.wok_star.legality import DECISION_PHASES

    spec, env, eng = _play_until("wok_star_v1", {"players": 2}, 1, lambda e: e.phase == "prep" and any(
        len(e.legal_actions(a)) > 1 for a in e.live_agents()))
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 1)
    legal = eng.legal_actions(agent)
    assert sorted(search_arms(eng, agent, legal[-1], legal)) == sorted(legal)
    assert search_arms(eng, agent, legal[-1], legal)[0] == legal[-1]
    assert _searched(spec, env, agent)[1] == 1
    spec, env, eng = _play_until("wok_star_v1", {"players": 2}, 1, lambda e: e.phase == "open" and any(
        len(e.legal_actions(a)) > 2 for a in e.live_agents()))
    assert "open" not in DECISION_PHASES
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 2)
    assert search_arms(eng, agent, 0, eng.legal_actions(agent)) == []
    assert _searched(spec, env, agent)[1] == 0


def test_waroong_wars_searches_the_picks_and_the_cooking_decisions():
    from envs.waroong_wars.determinize import HORIZON, search_arms

    spec, env, eng, agent, legal = _waroong_wars_at_start()
    assert eng.phase == "draft" and len(legal) > 1
    assert search_arms(eng, agent, legal[1], legal) == [legal[1], legal[0]] + legal[2:]
    assert _searched(spec, env, agent)[1] == 1
    spec, env, eng = _play_until("waroong_wars_v1", {}, 0, lambda e: e.phase == "cook" and any(
        len(e.legal_actions(a)) > 1 for a in e.live_agents()))
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 1)
    legal = eng.legal_actions(agent)
    assert search_arms(eng, agent, legal[1], legal) == [legal[1], legal[0]] + legal[2:]
    assert search_arms(eng, agent, legal[0], legal[:1]) == []
    assert _searched(spec, env, agent)[1] == 1
    # a pick's worth is settled when the round is cooked: rollouts run to the end of the round
    assert HORIZON == "round" and make_policy("planner", spec).planner.budget.horizon == "round"
    assert make_policy("planner", EnvSpec.resolve("frying_master_v1")).planner.budget.horizon == 0


def test_the_game_arms_open_one_at_a_time_and_share_the_budget_on_the_same_worlds():
    spec, env, eng = _play_until("wok_star_v1", {"players": 2}, 1, lambda e: e.phase == "prep" and any(
        len(e.legal_actions(a)) > 3 for a in e.live_agents()))
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 3)
    pol = make_policy("planner?sims=9&samples=3&horizon=10", spec, seed=0)
    played: list[tuple[int, int]] = []
    real = pol.planner._simulate

    def spy(sample, seed, who, action):
        played.append((action, seed))
        return real(sample, seed, who, action)

    pol.planner._simulate = spy
    pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    order = list(dict.fromkeys(a for a, _ in played))
    # opened one at a time (1 + isqrt(N)), each next simulation to the open arm played least
    assert [order.index(a) for a, _ in played] == [0, 1, 0, 1, 2, 2, 0, 1, 2]
    for k in range(3):  # an arm's m-th simulation plays world m, as every arm's does
        seeds = [s for a, s in played if a == order[k]]
        assert seeds == [s for a, s in played if a == order[0]][:len(seeds)]


def test_a_game_arm_chooser_that_breaks_its_contract_is_refused():
    spec, env, eng, agent, legal = _waroong_wars_at_start()
    first = make_policy(SHORT, spec, seed=0).planner.root.act(eng, agent)
    other = next(a for a in legal if a != first)
    for bad in ([first, 10 ** 6], [first, first], [other, first]):  # illegal, twice, not led by first
        pol = make_policy(SHORT, spec, seed=0)
        pol.planner.arms = lambda e, a, f, l, bad=bad: bad
        with pytest.raises(ValueError, match="distinct legal actions"):
            pol.act({"action_mask": eng.action_mask(agent)}, agent, env)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_every_game_says_which_decisions_to_search(env_id):
    import importlib

    mod = importlib.import_module(f"envs.{env_id.rsplit('_v', 1)[0]}.determinize")
    assert callable(mod.determinize) and callable(mod.search_arms)
    spec = EnvSpec.resolve(env_id)
    assert make_policy("planner", spec).planner.arms is mod.search_arms


def test_a_searched_pile_draw_is_the_same_behind_different_hidden_plates_and_foods():
    """The default planner (``arms=game``) at a decision it searches: a state that differs only in
    hidden information (face-down foods, the plates below the piles' tops) gets the same draw."""
    from envs.frying_master.heuristic import decide

    def drawing(e):
        return e.phase in ("play", "countdown") and any(
            decide(e.public_view(a)) in e.ix.draw and all(e.action_mask(a)[d] for d in e.ix.draw)
            for a in e.live_agents())

    spec, env, eng = _play_until("frying_master_v1", {"players": 2}, 5, drawing)
    agent = next(a for a in eng.live_agents() if decide(eng.public_view(a)) in eng.ix.draw
                 and all(eng.action_mask(a)[d] for d in eng.ix.draw))
    other = scramble("frying_master_v1", eng, agent, seed=3)
    assert other.to_dict() != eng.to_dict()
    obs = {"action_mask": eng.action_mask(agent)}
    for seed in (0, 1, 2):
        a = make_policy(SHORT, spec, seed=seed)
        b = make_policy(SHORT, spec, seed=seed)
        assert a.act(obs, agent, _Table(eng)) == b.act(obs, agent, _Table(other))
        assert a.planner.stats["searched"] == b.planner.stats["searched"] == 1


def test_the_planner_remembers_the_packs_it_saw_and_hands_them_to_the_determinisation():
    spec = EnvSpec.resolve("waroong_wars_v1")
    env = spec.make()
    obs, _ = env.reset(seed=2)
    eng = env.unwrapped.engine
    pol = make_policy("planner?sims=2&samples=1&horizon=score", spec, seed=0)
    got = []
    real = pol.planner.determinize
    pol.planner.determinize = lambda e, v, r, own, mem: got.append((e.pick_no, own, mem)) or real(e, v, r, own, mem)
    pol.planner.arms = lambda e, a, first, legal: [first] + [x for x in legal if x != first]  # search the picks
    h = make_policy("heuristic", spec)
    for _ in range(3):
        joint = {a: h.act(obs[a], a, env) for a in env.agents}
        joint["player_0"] = pol.act(obs["player_0"], "player_0", env)
        obs, *_ = env.step(joint)
    seen = pol.memory["player_0"]
    assert [it[2] for it in seen] == [0, 1, 2] and all(it[1] == eng.round for it in seen)
    assert got and got[-1] == (2, tuple(pol.own_actions["player_0"][:2]), tuple(seen))
    pol.reset(1)
    assert pol.memory == {} and pol.own_actions == {}


def test_a_round_horizon_runs_each_simulation_to_the_end_of_the_round():
    spec, env, eng = _play_until("waroong_wars_v1", {}, 3, lambda e: e.phase == "cook" and any(
        len(e.legal_actions(a)) > 1 for a in e.live_agents()))
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 1)
    pol = make_policy("planner?sims=4&samples=2&horizon=round", spec, seed=0)
    real = pol.planner.value
    ends = []  # where each simulation was valued: the outcome's round, and whether the game ended
    pol.planner.value = lambda out, who, done: ends.append((out["rounds"], done)) or real(out, who, done)
    pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    assert pol.planner.stats["simulations"] == 4 and len(ends) == 4
    assert all(r == eng.round + 1 or done for r, done in ends), ends


def _arms_opened(text: str, spec, seed: int, env, agent: str) -> list[int]:
    """The root moves in the order the planner ``text`` first simulated them, deciding for ``agent`` now."""
    pol = make_policy(text, spec, seed=seed)
    played: list[int] = []
    real = pol.planner._simulate

    def spy(sample, world_seed, who, action):
        played.append(action)
        return real(sample, world_seed, who, action)

    pol.planner._simulate = spy
    eng = env.unwrapped.engine
    pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    return list(dict.fromkeys(played))


def test_widen_prior_opens_the_arms_in_the_rollout_checkpoints_preference_order():
    """``widen=prior``: after the rollout policy's own choice the arms open in the order of the
    checkpoint's logits for the seat at the table (highest first); the default opens them in a
    seeded random order, which is not that order here."""
    from training.checkpoints import read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    spec = trained_env_spec(read_metadata(ckpt))
    env = spec.make()
    env.reset(seed=3)
    eng = env.unwrapped.engine
    agent = eng.live_agents()[0]
    legal = eng.legal_actions(agent)
    assert len(legal) >= 4  # a first pick: several card types to search
    opened = {(widen, seed): _arms_opened(f"planner?sims=16&samples=2&rollout=checkpoint:{ckpt}&widen={widen}",
                                          spec, seed, env, agent)
              for widen, seed in (("prior", 2), ("random", 2), ("random", 3), ("random", 4))}
    obs = {"action_mask": eng.action_mask(agent), "observation": env.unwrapped.encoder.observe(eng, agent)}
    logits = make_policy(f"checkpoint:{ckpt}", spec).preferences(obs, agent)
    assert np.isneginf(logits[~eng.action_mask(agent).astype(bool)]).all()
    by_logit = sorted(legal, key=lambda a: (-logits[a], a))
    assert opened["prior", 2] == by_logit[:4]  # 1 + isqrt(15) arms open in 16 simulations
    randoms = [opened["random", s] for s in (2, 3, 4)]
    assert all(r[0] == by_logit[0] and r != by_logit[:4] for r in randoms)  # these seeds: another order


def test_widen_prior_with_heuristic_rollouts_opens_the_picks_by_the_heuristics_values():
    """Waroong Wars' heuristic scores its picks (``preferences``: the values its move maximises,
    remembering nothing), so ``widen=prior`` opens the pick arms best value first; at a decision
    it does not score (Cooking) it gives ``None``, and the arms open as with ``widen=random``."""
    spec, env, eng, agent, legal = _waroong_wars_at_start()
    obs = {"action_mask": eng.action_mask(agent)}
    h = make_policy("heuristic", spec)
    prefs = h.preferences(obs, agent, env)
    assert h._memory == {}  # nothing remembered
    assert int(np.argmax(prefs)) == h.act(obs, agent, env)  # the move is the best-valued pick
    assert np.isneginf(prefs[[a for a in range(prefs.size) if a not in legal]]).all()
    by_value = sorted(legal, key=lambda a: (-prefs[a], a))
    for seed in (2, 3):
        assert _arms_opened("planner?sims=16&samples=2&widen=prior", spec, seed, env, agent) == \
            by_value[:min(4, len(legal))]
    cooking = _play_until("waroong_wars_v1", {}, 0, lambda e: e.phase != "draft")[2]
    cook = next(a for a in cooking.live_agents())
    assert make_policy("heuristic", spec).preferences({"action_mask": cooking.action_mask(cook)}, cook,
                                                      _Table(cooking)) is None


def test_width_weighs_only_the_first_arms_in_the_opening_order_and_shares_the_budget_among_them():
    """``width=K``: a searched decision weighs the first K arms of the opening order (here the
    heuristic's pick values, ``widen=prior``), each next simulation to the one played least, so
    the same budget gives each more simulations; the move played is one of them. A width below 2
    or not an integer is refused, naming what is allowed."""
    spec = EnvSpec.resolve("waroong_wars_v1")
    env = spec.make()
    env.reset(seed=9)
    eng = env.unwrapped.engine
    agent = eng.live_agents()[0]
    legal = eng.legal_actions(agent)
    prefs = make_policy("heuristic", spec).preferences({"action_mask": eng.action_mask(agent)}, agent, env)
    by_value = sorted(legal, key=lambda a: (-prefs[a], a))
    assert len(by_value) >= 5  # a first pick of this seed: six card types
    for width in (2, 3):
        pol = make_policy(f"planner?sims=12&samples=2&widen=prior&width={width}", spec, seed=2)
        played: list[int] = []
        real = pol.planner._simulate

        def spy(sample, world_seed, who, action, real=real, played=played):
            played.append(action)
            return real(sample, world_seed, who, action)

        pol.planner._simulate = spy
        move = pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
        assert list(dict.fromkeys(played)) == by_value[:width]
        assert sorted(played.count(a) for a in by_value[:width]) == [12 // width] * width
        assert move in by_value[:width]
    unlimited = _arms_opened("planner?sims=12&samples=2&widen=prior", spec, 2, env, agent)
    assert len(unlimited) == 4  # without it, 1 + isqrt(11) arms open in 12 simulations
    for bad in ("width=1", "width=0", "width=2.5", "width=two"):
        with pytest.raises(ConfigError, match=r"width=.*allowed: an integer 2\.\.10000"):
            make_policy(f"planner?{bad}", spec)
    with pytest.raises(ValueError, match="width must be an integer >= 2"):
        Planner(lambda *a: None, None, SearchBudget(ms=None, sims=1), width=1)


def test_value_checkpoint_reads_the_checkpoints_critic_as_sb3_computes_it():
    """``value=checkpoint:DIR``: the learned value is the checkpoint's critic (loaded from
    ``model.zip``'s tensors only), for the seat's own observation, equal to SB3's
    ``predict_values`` of the same model; a checkpoint of another env is refused, naming it."""
    import torch

    from training.checkpoints import CheckpointError, load_checkpoint, read_metadata, trained_env_spec
    from training.policies import load_checkpoint_critic

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    spec = trained_env_spec(read_metadata(ckpt))
    env = spec.make()
    env.reset(seed=5)
    raw = env.unwrapped
    leaf = load_checkpoint_critic(ckpt, spec, raw.encoder.observe)
    model, _ = load_checkpoint(ckpt, spec)
    policy = make_policy(f"checkpoint:{ckpt}", spec)
    eng = raw.engine
    for _ in range(3):  # three positions: the start and two joint moves of heuristic play later
        values = []
        for agent in eng.agents:
            x = policy.model_input({"observation": raw.encoder.observe(eng, agent),
                                    "action_mask": eng.action_mask(agent)}, agent)
            with torch.no_grad():
                want = float(model.policy.predict_values(torch.as_tensor(x[None]))[0, 0])
            assert leaf(eng, agent) == pytest.approx(want, abs=1e-4)
            values.append(want)
        assert len(set(np.round(values, 4))) > 1  # the seats' values differ: the seat is read
        h = make_policy("heuristic", spec)
        eng.step({a: h.act({"action_mask": eng.action_mask(a)}, a, _Table(eng)) for a in eng.live_agents()})
    with pytest.raises(CheckpointError, match="frying_master_v1"):
        make_policy(f"planner?sims=2&value=checkpoint:{ROOT / 'checkpoints' / 'frying_master' / 'main'}", spec)
    with pytest.raises(CheckpointError):  # the same game without own_picks: another observation size
        make_policy(f"planner?sims=2&value=checkpoint:{ckpt}", EnvSpec.resolve("waroong_wars_v1", {"players": 3}))


def test_a_learned_value_is_blended_in_where_a_simulation_is_cut_and_not_at_the_games_end():
    """A cut simulation is worth ``LEAF_WEIGHT`` of the learned value and the rest of the rank-and-
    margin value; a finished game is worth its result alone. Two planners alike but for the leaf
    play the same simulation (Waroong Wars cuts at the round's end), so their worths differ by
    exactly the blend."""
    from envs.core.search import LEAF_WEIGHT

    spec, env, eng, agent, legal = _waroong_wars_at_start()
    calls = []

    def leaf(sim, who):
        calls.append((sim.round, who))
        return 5.0

    plain = make_policy("planner?sims=4&samples=2", spec, seed=1).planner
    learned = make_policy("planner?sims=4&samples=2", spec, seed=1).planner
    learned.leaf = leaf
    for action in legal[:2]:
        v = plain._simulate(eng, 11, agent, action)
        w = learned._simulate(eng, 11, agent, action)
        assert w == pytest.approx((1 - LEAF_WEIGHT) * v + LEAF_WEIGHT * 5.0)
    assert calls == [(eng.round + 1, agent)] * 2  # read once per simulation, at the next round, for the seat

    class Finished:
        done = True

    out = eng.outcome()
    assert learned._worth(Finished(), out, agent) == plain.value(out, agent, True)
    assert len(calls) == 2


def test_a_critic_with_non_finite_weights_is_refused(monkeypatch):
    """A checkpoint whose value network holds a NaN would make every cut simulation worth NaN and
    the paired comparisons meaningless: ``value=`` refuses it, saying what is wrong."""
    from training.actor import NumpyActor
    from training.checkpoints import CheckpointError, read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    spec = trained_env_spec(read_metadata(ckpt))
    real = NumpyActor.critic_from_sb3_policy.__func__

    def poisoned(cls, policy):
        critic = real(cls, policy)
        critic.head[1][0] = np.nan
        return critic

    monkeypatch.setattr(NumpyActor, "critic_from_sb3_policy", classmethod(poisoned))
    with pytest.raises(CheckpointError, match="non-finite"):
        make_policy(f"planner?sims=2&value=checkpoint:{ckpt}", spec)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_seed_gives_the_same_moves_whatever_the_planner_played_before(env_id):
    """With random rollouts (``rollout=random``, and ``others=``/``play=``) the policies made during a
    planner's first game kept their maker's seed (0), and only a later game's were reseeded: the
    same game with the same seed was played otherwise by a fresh planner and by one that had played
    before (``evaluate --games 4`` and ``--games 1 --seed 3`` differed on game 3)."""
    spec = EnvSpec.resolve(env_id)
    text = "planner?sims=6&samples=2&rollout=random&horizon=score"

    def play(pol, seed: int) -> list[int]:
        pol.reset(seed)
        return _first_seats_moves(spec, pol, seed, 30)

    fresh = play(make_policy(text, spec), 3)
    used = make_policy(text, spec)
    play(used, 11)  # another game first: its rollout policies exist when game 3 starts
    assert play(used, 3) == fresh
    assert make_policy(text, spec).planner.stats["searched"] == 0


def test_a_pick_the_search_overrules_is_remembered_by_the_table_heuristic_as_played(monkeypatch):
    """The planner plays its table policy's move unless a search clearly beats it. Waroong Wars'
    heuristic remembers the face-down picks it chose; overruled, it had kept its own choice, so its
    later picks in the round (and the arm each search must beat) reckoned with a hand the seat did
    not hold. Forced here to overrule every searched pick: the remembered hand is the real one."""
    spec, env, eng, agent, _ = _waroong_wars_at_start()
    monkeypatch.setattr(Planner, "_choose", staticmethod(lambda vals, z=1.5, rule="z": len(vals) - 1))
    pol = make_policy("planner?sims=4&samples=2", spec, seed=0)
    h = {a: make_policy("heuristic", spec) for a in env.possible_agents}
    seat = eng.agents.index(agent)
    obs = {a: env.observe(a) for a in env.agents}
    checked = 0
    for _ in range(6):
        view = eng.public_view(agent)
        if view.phase != "draft":
            break
        acts = {a: h[a].act(obs[a], a, env) for a in env.agents}
        acts[agent] = pol.act(obs[agent], agent, env)
        obs, *_ = env.step(acts)
        view = eng.public_view(agent)
        table = pol.planner.root.policies[agent]
        if view.phase == "draft" and not view.hand_visible and view.pick_no > 0:
            assert table._known_hand(view, agent) == list(eng.hands[seat])
            checked += 1
    assert checked >= 2 and pol.planner.stats["searched"] >= 2
    # as a DAgger teacher (``overruled``) it keeps its own picks, as the shipped runs were cloned
    from envs.core.policy import Policy

    assert type(pol.planner.root.policies[agent]).overruled is Policy.overruled


def test_a_planner_never_reset_forgets_the_last_game_at_the_next(monkeypatch):
    """A PettingZoo loop calls no ``policy.reset``: the planner's per-seat actions and memories grew
    by every decision of every game (0.28 MiB a Waroong Wars game), and the next game's
    determinisations read the last game's round-1 items as this game's. A seat's decision at tick 0,
    or at a tick before its last one, starts a new game's record."""
    spec = EnvSpec.resolve("waroong_wars_v1", {"players": 3})
    pol = make_policy("planner?sims=2&samples=1", spec, seed=0)
    env = spec.make()
    sizes = []
    for ep in range(3):
        obs, _ = env.reset(seed=ep)
        first = None
        for _ in range(40):
            if not env.agents:
                break
            joint = {a: pol.act(obs[a], a, env) if a == "player_0" else
                     int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
            if first is None:
                first = list(pol.own_actions["player_0"])
            obs, *_ = env.step(joint)
        assert len(first) == 1  # the game's first decision saw nothing of the last game
        sizes.append(len(pol.own_actions["player_0"]))
        assert len(pol.memory["player_0"]) <= sizes[-1]
    assert max(sizes) <= 40  # one game's decisions, not every game's
