"""Benchmark: random legal play of every env and configuration.

    python -m envs.bench                      # every env, every configuration
    python -m envs.bench --env wok_star_v0 --games 5 --repeats 5

Prints, per configuration, the median over ``--repeats`` runs of agent-steps
per second (one agent's action), joint steps per second (one env.step) and
episodes per second, plus the mean episode length. Random play is seeded, so
runs are comparable; timings are wall-clock on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import envs
from envs.core.seeding import make_rng


def run_once(cfg: envs.EnvConfiguration, games: int, seed: int) -> tuple[float, int, int, int]:
    env = cfg.parallel_env()
    rng = make_rng(seed)
    agent_steps = joint_steps = 0
    start = time.perf_counter()
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(legal[rng.integers(legal.size)])
            agent_steps += len(actions)
            obs, *_ = env.step(actions)
            joint_steps += 1
    return time.perf_counter() - start, agent_steps, joint_steps, games


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", choices=list(envs.ENV_IDS), help="env id (repeatable; default: all)")
    p.add_argument("--games", type=int, default=3, help="episodes per run (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="runs per configuration; the median is shown (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--first", type=int, default=None, help="only the first N configurations of each env")
    args = p.parse_args(argv)
    ids = args.env or envs.available_env_ids()
    rows = []
    header = f"{'configuration':<72} {'agent-steps/s':>13} {'joint steps/s':>13} {'episodes/s':>10} {'steps/ep':>8}"
    print(header)
    print("-" * len(header))
    for env_id in ids:
        cfgs = envs.test_configurations(env_id)
        if args.first:
            cfgs = cfgs[: args.first]
        for cfg in cfgs:
            runs = [run_once(cfg, args.games, args.seed) for _ in range(args.repeats)]
            aps = statistics.median(r[1] / r[0] for r in runs)
            jps = statistics.median(r[2] / r[0] for r in runs)
            eps = statistics.median(r[3] / r[0] for r in runs)
            steps = runs[0][2] / runs[0][3]
            rows.append((cfg.name, aps, jps, eps, steps))
            print(f"{cfg.name:<72} {aps:>13,.0f} {jps:>13,.0f} {eps:>10.2f} {steps:>8.0f}", flush=True)
    if not rows:
        print("no environments available", file=sys.stderr)
        return 1
    print("-" * len(header))
    print(f"median over configurations: {statistics.median(r[1] for r in rows):,.0f} agent-steps/s, "
          f"{statistics.median(r[2] for r in rows):,.0f} joint steps/s, {statistics.median(r[3] for r in rows):.2f} episodes/s "
          f"(median of {args.repeats} repeats x {args.games} games per configuration)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
