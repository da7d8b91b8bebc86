"""Win rates of the scripted heuristic and of random legal play.

    python -m envs.baselines --env wok_star_v1 --games 200
    python -m envs.baselines --env frying_master_v1 --games 200 --set players=2

Cooperative games (``SUMMARY["kind"] == "cooperative"``): a team of
heuristic chefs and a team of random chefs each play ``--games`` seeded games
per configuration; the win rate is the share of games the team won.

Competitive games: one heuristic seat against random opponents, the seat
rotating over all positions game by game; the heuristic's win rate counts a
shared victory among k winners as 1/k of a win. The random row is one random
seat in the same games (its fair share is 1/players).

Results come with Wilson 95% confidence intervals. Output is a markdown
table (and ``--json`` writes the figures).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import envs
from envs.core.inputs import MAX_GAMES, checked_games, checked_seed, int_at_least, output_file_problem
from envs.core.play import play_episode
from envs.core.policy import RandomLegalPolicy
from envs.core.stats import wilson


def _share(outcome: dict, agent: str) -> float:
    w = outcome.get("winners", [])
    return 1.0 / len(w) if agent in w else 0.0


def evaluate_config(cfg: envs.EnvConfiguration, games: int, seed0: int = 0) -> dict[str, Any]:
    games, seed0 = checked_games(games), checked_seed(seed0, "seed0")
    m = cfg.module()
    env = cfg.parallel_env()
    agents = env.possible_agents
    coop = m.SUMMARY["kind"] == "cooperative"
    res: dict[str, Any] = {"config": cfg.name, "games": games}
    if coop:
        for label, make in (("heuristic", lambda: m.HeuristicPolicy()), ("random", lambda: RandomLegalPolicy())):
            pol = make()
            wins = 0
            scores = []
            for g in range(games):
                r = play_episode(env, {a: pol for a in agents}, seed=seed0 + g)
                wins += bool(r.winners)
                scores.append(sum(r.outcome.get("scores", {}).values()) / max(1, len(agents)))
            res[label] = {"win_rate": wins / games, "ci95": wilson(wins, games), "mean_score": sum(scores) / games}
    else:
        h_wins = r_wins = 0.0
        for g in range(games):
            seat = agents[g % len(agents)]
            other = agents[(g + 1) % len(agents)]
            heur = m.HeuristicPolicy()
            rnd = RandomLegalPolicy()
            pols = {a: (heur if a == seat else rnd) for a in agents}
            r = play_episode(env, pols, seed=seed0 + g)
            h_wins += _share(r.outcome, seat)
            r_wins += _share(r.outcome, other)
        res["heuristic"] = {"win_rate": h_wins / games, "ci95": wilson(h_wins, games)}
        res["random"] = {"win_rate": r_wins / games, "ci95": wilson(r_wins, games)}
    return res


class _Once(argparse.Action):
    """An option given at most once (``--env`` twice had measured the last one only, silently)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} is given twice; give one (run the command once per env)")
        setattr(namespace, self.dest, values)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs.baselines", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", required=True, choices=list(envs.ENV_IDS), action=_Once)
    p.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=200)
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="only configurations whose option KEY equals VALUE (repeatable)")
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args(argv)
    problem = args.json is not None and output_file_problem(args.json, "--json")
    if problem:
        p.error(problem)
    every = envs.test_configurations(args.env)
    values: dict[str, list[str]] = {}
    for c in every:
        for k, v in c.kwargs.items():
            values.setdefault(k, [])
            if str(v) not in values[k]:
                values[k].append(str(v))
    known = ", ".join(f"{k} ({'/'.join(v)})" for k, v in values.items())
    want = {}
    for kv in args.set:
        k, eq, v = kv.partition("=")
        if not eq or not k:
            p.error(f"--set {kv!r} is not KEY=VALUE (e.g. --set players=3); the configurations' options: {known}")
        if k in want:
            p.error(f"--set {k} given twice; give each option once")
        want[k] = v
    cfgs = [c for c in every if all(str(c.kwargs.get(k)) == v for k, v in want.items())]
    if not cfgs:
        p.error(f"no configuration of {args.env} matches {want}; the configurations' options: {known}")
    out = []
    print("| configuration | heuristic win rate (95% CI) | random win rate (95% CI) | games | seconds |")
    print("|---|---|---|---|---|")
    for cfg in cfgs:
        t = time.perf_counter()
        r = evaluate_config(cfg, args.games, args.seed)
        r["seconds"] = time.perf_counter() - t
        out.append(r)
        h, rd = r["heuristic"], r["random"]
        print(f"| {cfg.name} | {h['win_rate']:.1%} ({h['ci95'][0]:.1%}-{h['ci95'][1]:.1%}) | "
              f"{rd['win_rate']:.1%} ({rd['ci95'][0]:.1%}-{rd['ci95'][1]:.1%}) | {args.games} | {r['seconds']:.0f} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    from envs.core.inputs import run_main

    raise SystemExit(run_main(main))
