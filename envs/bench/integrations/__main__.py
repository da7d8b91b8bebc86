"""``python -m envs.bench.integrations [--steps N] [--json FILE]``: agent-steps/s of every env
through every integration library installed here, beside the raw env, in one run.

Libraries that do not import in this environment are listed as skipped (AgileRL lives in
its own venv: run the same command with that venv's python). Pin one core for figures
that compare (``taskset -c 0``)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

import envs
from envs.bench.integrations import LIBRARIES
from envs.core.inputs import atomic_write_text, int_at_least, output_file_problem, run_main

IMPORTS = {"torchrl": "torchrl", "tianshou": "tianshou", "sb3": "supersuit", "agilerl": "agilerl", "rllib": "ray"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs.bench.integrations", description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int_at_least(1), default=2000, help="agent-steps per measurement (default 2000)")
    p.add_argument("--library", choices=LIBRARIES, action="append", help="only these libraries (repeatable)")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args(argv)
    libraries = args.library or list(LIBRARIES)
    twice = sorted({lib for lib in libraries if libraries.count(lib) > 1})
    if twice:
        p.error(f"--library {', '.join(twice)} is given twice; give each library once")
    problem = args.json is not None and output_file_problem(args.json, "--json")
    if problem:  # before any measurement (a bad path had lost every row measured)
        p.error(problem)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - torch comes with every library here
        pass
    rows = []
    for lib in libraries:
        try:
            importlib.import_module(IMPORTS[lib])
        except ImportError as e:
            print(f"{lib:9s} skipped: {e}", flush=True)
            continue
        mod = importlib.import_module(f"envs.bench.integrations.{lib}")
        for env_id in envs.ENV_IDS:
            r = mod.measure(env_id, steps=args.steps)
            ratio = r["agent_steps_per_s"] / r["raw_agent_steps_per_s"]
            extra = "".join(f", {k[:-len('_agent_steps_per_s')]} {v:,.0f}" for k, v in r.items()
                            if k.endswith("_agent_steps_per_s") and k != "raw_agent_steps_per_s")
            print(f"{lib:9s} {env_id:18s} {r['agent_steps_per_s']:9.0f} agent-steps/s through the wrapper, "
                  f"raw {r['raw_agent_steps_per_s']:9.0f} ({ratio:.2f}x){extra}", flush=True)
            rows.append(r)
    if not rows:
        print(f"error: nothing measured: none of {', '.join(libraries)} imports here (AgileRL lives in a venv of "
              f"its own: run this command with that venv's python)", file=sys.stderr)
        return 2
    if args.json:
        atomic_write_text(args.json, json.dumps(rows, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
