"""``python -m tests.search.speed``: the search player's costs per game, on one core.

Per env (default options): clones/s of a mid-game engine (``engine.clone()``), determinisations/s
(``envs/<game>/determinize.py``), and simulations/s of one searched decision with each rollout
(heuristic to the end of the game, heuristic with ``horizon=score``, random to the end; every
decision with a choice searched, ``arms=all``, and the simulations counted by the planner), as a
markdown table (docs/performance.md, "Search")."""

from __future__ import annotations

import argparse
import time

import envs
from envs.core.inputs import int_at_least, seconds
from envs.core.seeding import make_rng
from tests.search.helpers import deciders, determinizer, positions
from training.envspec import EnvSpec
from training.policies import make_policy

ROLLOUTS = (("heuristic, to the end", "rollout=heuristic"), ("heuristic, horizon=score", "horizon=score"),
            ("random, to the end", "rollout=random"))


def _rate(fn, seconds: float) -> float:
    n, start = 0, time.process_time()
    while True:
        fn()
        n += 1
        dt = time.process_time() - start
        if dt >= seconds:
            return n / dt


def measure(env_id: str, seconds: float = 1.0, sims: int = 16) -> dict:
    spec = EnvSpec.resolve(env_id)
    env, states = positions(env_id, dict(spec.options), seed=1, count=3)
    eng = states[1]
    viewer = deciders(eng)[0]
    det = determinizer(env_id)
    rng = make_rng(0)
    row = {"env": env_id, "players": len(eng.agents), "tick": eng.tick,
           "clones/s": _rate(eng.clone, seconds),
           "determinisations/s": _rate(lambda: det(eng, viewer, rng), seconds)}
    for label, opt in ROLLOUTS:
        # arms=all: every decision with a choice is searched (the game's default searches only some,
        # e.g. none of Frying Master's at these positions), so that each timed decision simulates
        pol = make_policy(f"planner?sims={sims}&samples=8&arms=all&{opt}", spec, seed=0)
        pl = pol.planner
        spent = 0.0
        for s in states:
            for a in deciders(s):
                if len(s.legal_actions(a)) < 2:
                    continue
                t = time.process_time()
                pl.decide(s, a)
                spent += time.process_time() - t
        total = pl.stats["simulations"]  # the simulations run, counted by the planner
        row[f"sims/s ({label})"] = total / spent if spent and total else float("nan")
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.search.speed", description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=seconds(most=3600), default=1.0, help="seconds per clone / determinisation rate")
    ap.add_argument("--sims", type=int_at_least(1, 10 ** 7), default=16,
                    help="simulations per timed decision (at most 10,000,000, the planner's own bound)")
    ap.add_argument("--env", action="append", choices=envs.ENV_IDS, help="env id (repeatable; default: all)")
    args = ap.parse_args(argv)
    rows = [measure(e, args.seconds, args.sims) for e in args.env or envs.ENV_IDS]
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(f"{v:,.0f}" if isinstance(v, float) else str(v) for v in r.values()) + " |")
    return 0


if __name__ == "__main__":
    from envs.core.inputs import run_main

    raise SystemExit(run_main(main))
