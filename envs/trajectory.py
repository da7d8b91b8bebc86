"""Trajectory digests: a fingerprint of seeded random legal play.

    python -m envs.trajectory            # compare every configuration with tests/golden_trajectories.json
    python -m envs.trajectory --update   # rewrite that file (only after a deliberate rule or encoding change)

A digest is the SHA-256 of everything an agent sees in a few seeded games of
random legal play: every observation vector and action mask (bytes), every
reward, termination and truncation, and the applied action and ``blocked``
flag of every info. Speed work must leave every digest unchanged: same seed,
same actions, same bytes. ``tests/conformance/test_golden.py`` checks it, so a
faster engine that observes or scores one bit differently fails (and shipped
checkpoints, trained on these observations, stay valid).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from pathlib import Path

import numpy as np

import envs
from envs.core.seeding import make_rng

GOLDEN_PATH = Path(__file__).resolve().parent.parent / "tests" / "golden_trajectories.json"
GAMES = 2
SEED = 12345


def digest(cfg: envs.EnvConfiguration, games: int = GAMES, seed: int = SEED) -> str:
    env = cfg.parallel_env()
    rng = make_rng(seed)
    h = hashlib.sha256()
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        for a in sorted(obs):
            h.update(a.encode())
            h.update(np.ascontiguousarray(obs[a]["observation"], dtype=np.float32).tobytes())
            h.update(np.ascontiguousarray(obs[a]["action_mask"], dtype=np.int8).tobytes())
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(legal[rng.integers(legal.size)])
            obs, rew, term, trunc, infos = env.step(actions)
            for a in sorted(obs):
                h.update(a.encode())
                h.update(np.ascontiguousarray(obs[a]["observation"], dtype=np.float32).tobytes())
                h.update(np.ascontiguousarray(obs[a]["action_mask"], dtype=np.int8).tobytes())
                h.update(struct.pack("<d??", float(rew[a]), bool(term[a]), bool(trunc[a])))
                h.update(struct.pack("<q?", int(infos[a]["action"]), bool(infos[a]["blocked"])))
    env.close()
    return h.hexdigest()


def all_digests() -> dict[str, str]:
    return {cfg.name: digest(cfg) for cfg in envs.test_configurations()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs.trajectory", description=__doc__.split("\n\n")[0])
    p.add_argument("--update", action="store_true", help=f"rewrite {GOLDEN_PATH.name}")
    p.add_argument("--env", choices=list(envs.ENV_IDS), help="only this env")
    args = p.parse_args(argv)
    cfgs = envs.test_configurations(args.env)
    if not GOLDEN_PATH.parent.is_dir():  # an installed package: the digests are the checkout's tests'
        print(f"error: the golden digests live in {GOLDEN_PATH}, and {GOLDEN_PATH.parent} is not there: run "
              f"this from a checkout of the project", file=sys.stderr)
        return 2
    if not GOLDEN_PATH.is_file() and not args.update:
        print(f"error: golden digests not found at {GOLDEN_PATH}; write them with --update", file=sys.stderr)
        return 2
    golden = json.loads(GOLDEN_PATH.read_text()) if GOLDEN_PATH.exists() else {}
    bad = 0
    for cfg in cfgs:
        d = digest(cfg)
        if args.update:
            golden[cfg.name] = d
            continue
        ok = golden.get(cfg.name) == d
        bad += not ok
        print(f"{'ok  ' if ok else 'DIFF'} {cfg.name}", flush=True)
    if args.update:
        GOLDEN_PATH.write_text(json.dumps(dict(sorted(golden.items())), indent=1) + "\n")
        print(f"wrote {len(cfgs)} digests to {GOLDEN_PATH}")
        return 0
    print(f"{len(cfgs) - bad}/{len(cfgs)} configurations match {GOLDEN_PATH.name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
