"""``python -m training <command>``: train, evaluate, tournament, watch, bench, list, schema.

Policies are named by spec strings (``random``, ``heuristic``, ``noop``,
``checkpoint:checkpoints/<game>/<name>``; see ``training.policies``).
Errors in configs, specs or checkpoints print one clear line and exit with
status 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path

import yaml

import envs
from envs.core.errors import KitchenArenaError

from training.policies import SPEC_HELP

EPILOG = f"policy specs: {SPEC_HELP}"


def _kv(items: list[str], what: str) -> dict:
    out = {}
    for item in items or []:
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise KitchenArenaError(f"{what} {item!r} is not KEY=VALUE")
        out[k.strip()] = yaml.safe_load(v) if v.strip() else ""
    return out


def _sweep(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        k, sep, v = item.partition("=")
        if not sep or not k or not v:
            raise KitchenArenaError(f"--sweep {item!r} is not KEY=V1,V2,...")
        out[k.strip()] = [yaml.safe_load(x) for x in v.split(",")]
    return out


def _env_spec(args, policy_specs: list[str] | None = None):
    """The env of a command: --env/--env-set, or the one a checkpoint was trained on."""
    from training.checkpoints import read_metadata, trained_env_spec
    from training.envspec import EnvSpec
    from training.policies import parse_spec

    options = _kv(args.env_set, "--env-set")
    if args.env:
        return EnvSpec.resolve(args.env, options)
    for s in policy_specs or []:
        ps = parse_spec(s)
        if ps.kind == "checkpoint":
            meta = read_metadata(ps.path)
            trained = trained_env_spec(meta)
            return EnvSpec.resolve(meta["env_id"], {**trained.options, **options})
    raise KitchenArenaError(f"--env is required (no checkpoint among the policies to take it from); "
                            f"present envs: {envs.available_env_ids()}")


def _write_outputs(args, markdown: str, data: dict) -> None:
    if getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    if getattr(args, "markdown", None):
        Path(args.markdown).write_text(markdown + "\n", encoding="utf-8")
        print(f"wrote {args.markdown}")


# ---------------------------------------------------------------------- commands
def cmd_train(args) -> int:
    from training.config import load_config, to_yaml
    from training.trainer import train

    cfg = load_config(args.config, args.set)
    if args.quiet:
        cfg["training"]["progress_bar"] = False
    if args.dry_run:
        plan = train(cfg, dry_run=True)
        print(f"config: {cfg['_source']} (valid)")
        print(plan.describe())
        print("---")
        print(to_yaml(cfg), end="")
        return 0
    result = train(cfg, resume=args.resume, overwrite=args.overwrite)
    return 130 if result.interrupted else 0


def cmd_evaluate(args) -> int:
    from training.evaluation import markdown_table, summary_json
    from training.trainer import run_evaluation

    spec = _env_spec(args, [args.policy])
    sweep = _sweep(args.sweep)
    combos = [{}]
    if sweep:
        import itertools

        combos = [dict(zip(sweep, vals)) for vals in itertools.product(*sweep.values())]
    cooperative = spec.kind == "cooperative"
    lineups: list[str | None] = []
    if args.team:
        lineups.append(None)
    lineups += list(args.against or [])
    if not lineups:
        lineups = [None, "heuristic"] if cooperative else ["random", "heuristic"]
    plan = [(spec.with_options(**c) if c else spec, args.policy, o) for c in combos for o in lineups]
    rows = run_evaluation(plan, args.games, args.seed, args.workers, not args.sample,
                          log=lambda s: print(s, file=sys.stderr))
    table = markdown_table(rows, [x for x in (args.extras or "").split(",") if x])
    print(f"\n{args.games} seeded games per row (seeds {args.seed}..{args.seed + args.games - 1}), seats rotated; "
          f"95% confidence intervals\n")
    print(table)
    _write_outputs(args, table, summary_json(rows))
    return 0


def cmd_tournament(args) -> int:
    from training.tournament import run_tournament

    spec = _env_spec(args, args.policies)
    result = run_tournament(spec, args.policies, args.games, args.seed, args.workers)
    md = result.markdown()
    print(f"\n{spec.label()}: round robin, {args.games} seeded games per pairing, seats rotated\n")
    print(md)
    _write_outputs(args, md, result.to_json())
    return 0


def cmd_watch(args) -> int:
    from training.watch import watch

    spec = _env_spec(args, args.policies)
    clear = False if args.no_clear else None
    watch(spec, args.policies, args.seed, args.delay, clear, args.every, args.max_steps)
    return 0


def cmd_list(args) -> int:
    from training.checkpoints import CheckpointError, read_metadata

    print("environments:")
    present = envs.available_env_ids()
    for e in envs.ENV_IDS:
        print(f"  {e:20s} {'present' if e in present else 'not present yet'}")
    cdir = Path(args.configs)
    print(f"configs ({cdir}):")
    for p in sorted(cdir.glob("*.yaml")):
        try:
            env_id = (yaml.safe_load(p.read_text()) or {}).get("env", {}).get("id", "?")
        except yaml.YAMLError:
            env_id = "invalid YAML"
        print(f"  {p.name:28s} {env_id}{'' if env_id in present else '  (env not present)'}")
    root = Path(args.checkpoints)
    print(f"checkpoints ({root}):")
    for meta_path in sorted(root.glob("*/*/metadata.json")):
        d = meta_path.parent
        try:
            m = read_metadata(d)
            state = "complete" if m.get("complete") else "partial"
            print(f"  {str(d):40s} {m['env_id']} {m['timesteps']:,} steps ({state})")
        except CheckpointError as e:
            print(f"  {str(d):40s} unreadable: {e}")
    return 0


def cmd_bench(args) -> int:
    from training.bench import run_bench
    from training.config import load_config

    cfg = load_config(args.config, args.set)
    counts = [int(x) for x in args.workers.split(",")]
    print(f"{cfg['env']['id']} {cfg['env']['options']}: {cfg['training']['env_copies']} env copies, "
          f"{args.timesteps:,} learner steps per measurement")
    run_bench(cfg, counts, args.timesteps, args.repeat)
    return 0


SCHEMA_BLOCK = re.compile(r"(<!-- BEGIN GENERATED: config-schema -->\n)(?:.*?\n)??(<!-- END GENERATED: config-schema -->)", re.S)


def cmd_schema(args) -> int:
    from training.config import SCHEMA

    table = SCHEMA.markdown()
    if not args.update:
        print(table)
        return 0
    path = Path(args.update)
    text = path.read_text(encoding="utf-8")
    if not SCHEMA_BLOCK.search(text):
        raise KitchenArenaError(f"{path} has no config-schema block (<!-- BEGIN GENERATED: config-schema --> ...)")
    path.write_text(SCHEMA_BLOCK.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text), encoding="utf-8")
    print(f"updated the config table in {path}")
    return 0


# ---------------------------------------------------------------------- parser
def _env_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", help=f"env id (default: the checkpoint's); one of {list(envs.ENV_IDS)}")
    p.add_argument("--env-set", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. players=3 (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training", description=__doc__.split("\n\n")[0], epilog=EPILOG)
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a policy from a YAML config (default: the embedded Wok Star run)",
                       epilog="config keys: `python -m training schema`; docs/training.md")
    t.add_argument("--config", help="YAML config (default: the embedded default, a small Wok Star run)")
    t.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. training.total_timesteps=20000 (repeatable)")
    t.add_argument("--resume", action="store_true", help="continue the run's checkpoint up to total_timesteps")
    t.add_argument("--overwrite", action="store_true", help="replace an existing checkpoint of the same name")
    t.add_argument("--dry-run", action="store_true", help="validate the config, show the plan, train nothing")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("evaluate", help="evaluate a policy with partners / against opponents", epilog=EPILOG)
    e.add_argument("policy", help="policy spec")
    _env_args(e)
    e.add_argument("--against", "--partners", action="append", metavar="SPEC",
                   help="who plays the other seats: opponents (competitive) or partners (cooperative); repeatable: one row each")
    e.add_argument("--team", action="store_true", help="also a row with the policy in every seat")
    e.add_argument("--sweep", action="append", default=[], metavar="KEY=V1,V2",
                   help="evaluate over several values of an env option (repeatable: all combinations)")
    e.add_argument("--games", type=int, default=200, help="seeded games per row (default 200)")
    e.add_argument("--seed", type=int, default=0, help="seed of the first game (game g uses seed+g)")
    e.add_argument("--workers", type=int, default=2, help="processes playing games (default 2; 1 = this process only)")
    e.add_argument("--extras", metavar="K1,K2", help="outcome() extras to show as columns (default: all; JSON has all)")
    e.add_argument("--sample", action="store_true", help="trained policies sample instead of playing their best action")
    e.add_argument("--json", help="write the figures to this JSON file")
    e.add_argument("--markdown", help="write the table to this file")
    e.set_defaults(func=cmd_evaluate)

    r = sub.add_parser("tournament", help="round robin among policies, with Elo-scale ratings", epilog=EPILOG)
    r.add_argument("policies", nargs="+", help="two or more policy specs")
    _env_args(r)
    r.add_argument("--games", type=int, default=200, help="seeded games per pairing (default 200)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--json", help="write ratings and pairwise scores to this JSON file")
    r.add_argument("--markdown", help="write the tables to this file")
    r.set_defaults(func=cmd_tournament)

    w = sub.add_parser("watch", help="render a seeded game played by chosen policies", epilog=EPILOG)
    w.add_argument("policies", nargs="+", help="one spec for every seat, or one per seat in seat order")
    _env_args(w)
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--delay", type=float, default=0.0, help="seconds between frames")
    w.add_argument("--every", type=int, default=1, help="draw every N steps")
    w.add_argument("--max-steps", type=int, default=None)
    w.add_argument("--no-clear", action="store_true", help="never clear the screen between frames")
    w.set_defaults(func=cmd_watch)

    ls = sub.add_parser("list", help="environments, configs and checkpoints present")
    ls.add_argument("--configs", default="configs")
    ls.add_argument("--checkpoints", default="checkpoints")
    ls.set_defaults(func=cmd_list)

    b = sub.add_parser("bench", help="measure bridge and training steps/s per number of worker processes")
    b.add_argument("--config", help="YAML config (default: the embedded default)")
    b.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    b.add_argument("--workers", default="1,2", help="comma-separated counts of processes stepping copies (default 1,2)")
    b.add_argument("--timesteps", type=int, default=20_000, help="learner steps per measurement")
    b.add_argument("--repeat", type=int, default=1, help="measure each count this many times, interleaved")
    b.set_defaults(func=cmd_bench)

    s = sub.add_parser("schema", help="print the table of config keys (markdown)")
    s.add_argument("--update", metavar="DOC", help="rewrite the config-schema block of DOC (docs/training.md)")
    s.set_defaults(func=cmd_schema)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            return args.func(args)
    except KitchenArenaError as e:  # ConfigError, CheckpointError, EnvUnavailableError, bad specs
        print(f"error: {e}", file=sys.stderr)
        return 2
