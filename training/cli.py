"""``python -m training <command>``: train, evaluate, crossplay, tournament, watch, play, bench, list, schema.

Policies are named by spec strings (``random``, ``heuristic``, ``noop``,
``checkpoint:checkpoints/<game>/<name>``; see ``training.policies``).
Errors in configs, specs or checkpoints print one clear line and exit with
status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import envs
from envs.core.errors import KitchenArenaError
from envs.core.workers import WorkerError
from envs.core.inputs import (MAX_GAMES, first_line, int_at_least, output_file_problem, printable, quoted,
                               read_text_file, seconds)

from training import missing_extra_message
from training.policies import SPEC_HELP

EPILOG = f"policy specs: {SPEC_HELP}"
#: seconds between the frames of ``watch`` when stdout is a terminal and --delay is not given
WATCH_DELAY = 0.3


def _yaml_value(text: str, what: str):
    import yaml

    from training.config import yaml_load, yaml_refusal

    try:
        return yaml_load(text) if text.strip() else ""
    except yaml.YAMLError as e:
        raise KitchenArenaError(f"{what}: the value {text!r:.200} is {yaml_refusal(e)}") from e


def _kv(items: list[str], what: str) -> dict:
    out = {}
    for item in items or []:
        k, sep, v = item.partition("=")
        if not sep or not k.strip():
            raise KitchenArenaError(f"{what} {quoted(item)} is not KEY=VALUE (e.g. {what} players=3)")
        if k.strip() in out:
            raise KitchenArenaError(f"{what} {quoted(item)}: {k.strip()!r} is given twice; give each option once")
        out[k.strip()] = _yaml_value(v, f"{what} {quoted(item)}")
    return out


def _sweep(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        k, sep, v = item.partition("=")
        if not sep or not k.strip() or not v.strip():
            raise KitchenArenaError(f"--sweep {quoted(item)} is not KEY=V1,V2,... (e.g. --sweep difficulty=mild,medium)")
        if k.strip() in out:
            raise KitchenArenaError(f"--sweep {quoted(item)}: {k.strip()!r} is swept twice; "
                                    f"list all its values in one --sweep")
        values = [_yaml_value(x, f"--sweep {quoted(item)}") for x in v.split(",")]
        if len({json.dumps(x, sort_keys=True, default=str) for x in values}) != len(values):
            raise KitchenArenaError(f"--sweep {quoted(item)}: a value is listed twice; list each value once")
        out[k.strip()] = values
    return out


def _env_spec(args, policy_specs: list[str] | None = None):
    """The env of a command: --env/--env-set, or the one a checkpoint was trained on."""
    from training.checkpoints import read_metadata, trained_env_spec
    from training.envspec import EnvSpec
    from training.policies import parse_spec

    options = _kv(args.env_set, "--env-set")
    if args.env:
        options = {**_observation_options(args.env, policy_specs, options), **options}
        return _named("--env/--env-set", lambda: EnvSpec.resolve(args.env, options))
    for s in policy_specs or []:
        ps = parse_spec(s)
        if ps.kind == "checkpoint":
            meta = read_metadata(ps.path)
            trained = trained_env_spec(meta)
            return _named("--env-set" if options else f"the env of {s}",
                          lambda: EnvSpec.resolve(meta["env_id"], {**trained.options, **options}))
    raise KitchenArenaError(f"--env is required (no checkpoint among the policies to take it from); "
                            f"present envs: {envs.available_env_ids()}")


def _observation_options(env_id: str, policy_specs: list[str] | None, given: dict) -> dict:
    """The observation-only options (the env class's ``observation_options``, e.g. Waroong Wars'
    ``own_picks``) that the checkpoints among ``policy_specs`` were trained with on ``env_id``, where
    --env-set does not give them: a policy trained with one is played with it."""
    from training.checkpoints import read_metadata
    from training.policies import parse_spec

    if env_id not in envs.available_env_ids():
        return {}  # EnvSpec.resolve names the problem
    names = getattr(envs.get_env_module(env_id).raw_env, "observation_options", ())
    out: dict = {}
    source: dict[str, str] = {}
    for s in policy_specs or []:
        ps = parse_spec(s)
        if ps.kind != "checkpoint":
            continue
        meta = read_metadata(ps.path)
        trained = meta.get("env_config") or {}
        if meta.get("env_id") != env_id:
            continue
        for k in names:
            if k in given or k not in trained:
                continue
            if k in out and out[k] != trained[k]:
                raise KitchenArenaError(
                    f"{source[k]} was trained with {k}={out[k]!r} and {s} with {k}={trained[k]!r}: one table cannot "
                    f"observe both ways; play them in separate commands, or choose with --env-set {k}=...")
            out[k], source[k] = trained[k], s
    return out


def _named(source: str, build):
    """``build()``, an env's own ConfigError prefixed with the option's source."""
    from envs.core.errors import ConfigError

    try:
        return build()
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from e


def _check_outputs(args) -> None:
    """--json/--markdown can be written, and no two outputs (--save-games too) name one file:
    checked before any game is played."""
    named: dict[str, str] = {}
    for flag in ("json", "markdown", "save_games"):
        target = getattr(args, flag, None)
        if target is None:
            continue
        option = "--" + flag.replace("_", "-")
        if not str(target).strip():
            raise KitchenArenaError(f"{option} {quoted(target)}: give a file name"
                                    + (" (or a directory)" if flag == "save_games" else ""))
        problem = None if flag == "save_games" else output_file_problem(target, option)
        if problem:
            raise KitchenArenaError(problem)
        where = os.path.realpath(target)  # (a symlink to another output's file had passed as another file)
        if where in named:
            raise KitchenArenaError(f"{named[where]} and {option} both name {quoted(target)}: the second would "
                                    f"overwrite the first; give each output its own file")
        named[where] = option
    save = getattr(args, "save_games", None)
    if save is not None and not str(save).endswith(".jsonl"):  # a directory of one file per game (replay.is_jsonl)
        inside = os.path.realpath(save) + os.sep
        for where, option in named.items():
            if option != "--save-games" and where.startswith(inside):
                raise KitchenArenaError(f"{option} {quoted(getattr(args, option[2:]))} lies in the --save-games "
                                        f"directory {quoted(save)}, where the saved games' files go (one could be "
                                        f"overwritten); give it a place of its own")


def _write_outputs(args, markdown: str, data: dict) -> None:
    for flag, text in (("json", json.dumps(data, indent=2) + "\n"), ("markdown", markdown + "\n")):
        target = getattr(args, flag, None)
        if not target:
            continue
        try:
            Path(target).write_text(text, encoding="utf-8")
        except OSError as e:
            raise KitchenArenaError(f"--{flag} {target!r} could not be written: {e.strerror or e}") from e
        print(f"wrote {printable(target)}")


# ---------------------------------------------------------------------- commands
def cmd_train(args) -> int:
    from training import require_modules
    from training.config import load_config, to_yaml
    from training.trainer import plan_run, train

    backend = getattr(args, "backend", "sb3")
    address = getattr(args, "address", None)
    if address is not None and backend != "rllib":
        raise KitchenArenaError("--address is only for --backend rllib (the Ray cluster to train on); "
                                "the sb3 backend trains on this machine")
    require_modules("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "rich", "matplotlib")
    if backend == "rllib":
        try:
            require_modules("ray")
        except ModuleNotFoundError:
            raise KitchenArenaError("--backend rllib needs the package 'ray[rllib]' (module 'ray' is not installed), "
                                    "part of the rllib extra; install it: pip install -e '.[train,rllib]' (in a "
                                    "checkout; installed from a wheel: pip install '<the wheel>[train,rllib]')") from None
        return _train_rllib(args, address)
    # every key, spec, checkpoint and sweep combination is checked here, errors named by their source
    cfg = load_config(args.config, args.set, check=lambda c: plan_run(c, resume=args.resume))
    if args.quiet:
        cfg["training"]["progress_bar"] = False
    if args.dry_run:
        plan = train(cfg, resume=args.resume, overwrite=args.overwrite, dry_run=True)
        print(f"config: {cfg['_source']} (valid)")
        print(plan.describe())
        print("---")
        print(to_yaml(cfg), end="")
        return 0
    result = train(cfg, resume=args.resume, overwrite=args.overwrite)
    return 130 if result.interrupted else 0


def _train_rllib(args, address: str | None) -> int:
    """``train --backend rllib``: the same config checks, then :func:`training.rllib_backend.train_rllib`
    (keys with no RLlib meaning refused before Ray starts)."""
    from training.config import load_config, to_yaml
    from training.rllib_backend import check_address, check_supported, describe, train_rllib
    from training.trainer import check_run, plan_run

    check_address(address)  # (a bad --address was reported as the config file's fault)

    def check(c):
        check_supported(c, plan_run(c, resume=args.resume), resume=args.resume, address=address)

    cfg = load_config(args.config, args.set, check=check)
    if args.quiet:
        cfg["training"]["progress_bar"] = False
    if args.dry_run:
        plan, _ = check_run(cfg, args.resume, args.overwrite)  # the destination too, as the SB3 backend's dry run
        print(f"config: {cfg['_source']} (valid for --backend rllib)")
        print(plan.describe())
        print(describe(cfg, plan, address))
        print("---")
        print(to_yaml(cfg), end="")
        return 0
    result = train_rllib(cfg, address=address, resume=args.resume, overwrite=args.overwrite)
    return 130 if result.interrupted else 0


def cmd_evaluate(args) -> int:
    from training.evaluation import checkpoint_fit_error, markdown_table, outcome_extras, summary_json
    from training.policies import first_duplicate, make_policy
    from training.trainer import run_evaluation, sweep_combinations

    _check_outputs(args)
    spec = _env_spec(args, [args.policy] + list(args.against or []))
    sweep = _sweep(args.sweep)
    both = [k for k in _kv(args.env_set, "--env-set") if k in sweep]
    if both:
        raise KitchenArenaError(f"{both[0]!r} is given by --env-set and swept by --sweep: the sweep would replace "
                                f"the --env-set value; give it in one of them")
    same = first_duplicate(args.against or [])
    if same:
        raise KitchenArenaError(f"--against lists one policy twice ({same[0]!r} and {same[1]!r}): its rows would be "
                                f"the same games; list each once")
    combos = sweep_combinations(sweep) or [{}]
    specs = []
    for c in combos:
        label = ", ".join(f"{k}={v}" for k, v in c.items())
        specs.append(_named(f"--sweep {label}", lambda c=c: spec.with_options(**c)) if c else spec)
    cooperative = spec.kind == "cooperative"
    lineups: list[str | None] = []
    if args.team:
        lineups.append(None)
    lineups += list(args.against or [])
    if not lineups:
        lineups = [None, "heuristic"] if cooperative else ["random", "heuristic"]
    # Before any game: every policy is built for the requested env (a damaged
    # checkpoint, or one that cannot play it, is an error); with --sweep, every
    # checkpoint (a planner's too) must be intact, each line-up must play at least
    # one combination, and every policy is built for each combination it plays
    # (a combination a checkpoint cannot play is an n/a row).
    policies = list(dict.fromkeys([args.policy] + [o for o in lineups if o is not None]))
    if not sweep:
        for p in policies:
            make_policy(p, spec)
    else:
        misfits = [checkpoint_fit_error([args.policy], s) for s in specs]
        if all(misfits):
            raise KitchenArenaError(f"{args.policy} can play none of the --sweep combinations: "
                                    + "; ".join(dict.fromkeys(misfits)))
        for o in lineups:
            if o is None:
                continue
            why = [checkpoint_fit_error([args.policy, o], s) for s in specs]
            if all(why):
                raise KitchenArenaError(f"{args.policy} with {o} can play none of the --sweep combinations: "
                                        + "; ".join(dict.fromkeys(why)))
        for s, why in zip(specs, misfits):
            for p in policies:
                if why is None and checkpoint_fit_error([p], s) is None:
                    make_policy(p, s)  # (a planner's options against this combination, before any game)
    extras = [x.strip() for x in (args.extras or "").split(",") if x.strip()]
    if args.extras is not None and not extras:
        raise KitchenArenaError(f"--extras {quoted(args.extras)} names no outcome() key; give keys separated by "
                                f"commas, or leave --extras out (all of them)")
    if extras:
        available = outcome_extras(spec, args.seed)
        unknown = [x for x in extras if x not in available]
        if unknown:
            raise KitchenArenaError(f"--extras: {', '.join(map(repr, unknown))} not among the outcome() extras of "
                                    f"{spec.env_id}; allowed: {', '.join(available) or 'none'}")
    plan = [(s, args.policy, o) for s in specs for o in lineups]
    with _saving_games(args):
        rows = run_evaluation(plan, args.games, args.seed, args.workers, not args.sample,
                              log=lambda s: print(s, file=sys.stderr), sweep=bool(sweep))
    table = markdown_table(rows, extras)
    print(f"\n{args.games} seeded games per row (seeds {args.seed}..{args.seed + args.games - 1}), seats rotated; "
          f"95% confidence intervals\n")
    print(table)
    _write_outputs(args, table, summary_json(rows))
    return 0


def cmd_crossplay(args) -> int:
    from training.evaluation import crossplay_markdown, summary_json
    from training.policies import first_duplicate, make_policy
    from training.trainer import run_evaluation

    _check_outputs(args)
    for flag, listed in (("the chefs", args.policies), ("--partners", args.partners or [])):
        same = first_duplicate(listed)
        if same:
            raise KitchenArenaError(f"{flag} list one policy twice ({same[0]!r} and {same[1]!r}): its lines would "
                                    f"be the same games; list each once")
    partners = list(args.partners or args.policies)
    spec = _env_spec(args, list(args.policies) + partners)
    if spec.kind != "cooperative":
        raise KitchenArenaError(f"crossplay pairs chefs with partners in a cooperative game; {spec.env_id} is "
                                f"{spec.kind}: use tournament for a competitive one")
    for p in dict.fromkeys(list(args.policies) + partners):
        make_policy(p, spec)  # every policy can play this env, before any game
    plan = [(spec, p, q) for p in args.policies for q in partners]
    with _saving_games(args):
        rows = run_evaluation(plan, args.games, args.seed, args.workers, True, log=lambda s: print(s, file=sys.stderr))
    table = crossplay_markdown(rows, args.policies, partners)
    print(f"\n{spec.label()}: team win rate of each chef (line) with each partner in the other seats (column); "
          f"{args.games} seeded games per cell (seeds {args.seed}..{args.seed + args.games - 1}), seats rotated; "
          f"95% confidence intervals\n")
    print(table)
    _write_outputs(args, table, summary_json(rows))
    return 0


def cmd_tournament(args) -> int:
    from training.tournament import run_tournament

    _check_outputs(args)
    spec = _env_spec(args, args.policies)
    with _saving_games(args):
        result = run_tournament(spec, args.policies, args.games, args.seed, args.workers)
    md = result.markdown()
    print(f"\n{spec.label()}: round robin, {args.games} seeded games per pairing, seats rotated\n")
    print(md)
    _write_outputs(args, md, result.to_json())
    return 0


def cmd_watch(args) -> int:
    from training.watch import watch

    if args.replay is not None:
        return _watch_replay(args)
    _no_replay_flags(args)
    spec = _env_spec(args, args.policies)
    clear = False if args.no_clear else None
    delay = args.delay
    if delay is None:  # watchable in a terminal; no waiting when piped or captured
        delay = WATCH_DELAY if sys.stdout.isatty() else 0.0
    with _saving_games(args) as saver:
        watch(spec, args.policies, 0 if args.seed is None else args.seed, delay, clear, args.every, args.max_steps,
              on_replay=None if saver is None else saver.add)
    return 0


def _no_replay_flags(args) -> None:
    """watch without --replay: policies are needed; --from/--game are for --replay."""
    for flag, value in (("--from", args.from_tick), ("--game", args.game)):
        if value is not None:
            raise KitchenArenaError(f"watch {flag} is for a replay: give --replay FILE")
    if not args.policies:
        raise KitchenArenaError("watch needs the policies of the seats (one spec for all, or one per seat), "
                                "or --replay FILE to replay a saved game")


def _watch_replay(args) -> int:
    """``watch --replay FILE``: the saved game, tick by tick (training.replay, training.watch)."""
    from training.replay import load
    from training.watch import watch_replay

    given = [flag for flag, value in (("policies", args.policies), ("--env", args.env), ("--env-set", args.env_set),
                                      ("--seed", args.seed), ("--max-steps", args.max_steps),
                                      ("--save-games", args.save_games)) if value not in (None, [])]
    if given:
        raise KitchenArenaError(f"watch --replay: {', '.join(given)} cannot be given with a replay (the env, seed, "
                                f"seats and actions come from the file); allowed with it: --delay, --from, --every, "
                                f"--no-clear, --game")
    data = load(args.replay, args.game)  # replayed once first: a bad replay is refused before anything is drawn
    delay = args.delay
    if delay is None:
        delay = WATCH_DELAY if sys.stdout.isatty() else 0.0
    where = args.replay if args.game is None else f"{args.replay} game {args.game}"
    watch_replay(data, delay, False if args.no_clear else None, args.every, args.from_tick or 0, source=where)
    return 0


@contextmanager
def _saving_games(args):
    """``--save-games DIR|FILE.jsonl``: every game played inside is saved as a replay
    (training.replay.GameSaver; the target is checked before any game is played)."""
    target = getattr(args, "save_games", None)
    if target is None:
        yield None
        return
    if not str(target).strip():
        raise KitchenArenaError(f"--save-games {quoted(target)}: give a file name or a directory")
    from training.evaluation import saving_games
    from training.replay import GameSaver

    saver = GameSaver(target).check()

    def sink(records) -> None:
        for g in records:
            saver.add(g.replay)

    with saving_games(sink):
        yield saver
    saver.finish()
    print(saver.summary())


def cmd_play(args) -> int:
    from training.play import ReplayObserver, play

    spec = _env_spec(args, args.others)
    with _saving_games(args) as saver:
        observers = [ReplayObserver(spec, saver, humans=args.seat)] if saver is not None else []
        result = play(spec, args.seat, args.others or [], args.seed, args.wall_clock, observers=observers)
    return result.exit_code


def cmd_list(args) -> int:
    import yaml

    from training.checkpoints import MANIFEST_FILE, CheckpointError, read_metadata, shipped_checkpoints
    from envs.core import inputs
    from training.config import yaml_load, yaml_refusal

    # a folder given with its flag must be there; a default one that is not (outside a checkout: a
    # package installed from a wheel, the user's own folder) is said so, and the rest listed
    given = {"--configs": args.configs, "--checkpoints": args.checkpoints}
    for flag, folder in given.items():
        if folder is not None and not Path(folder).is_dir():
            raise KitchenArenaError(f"list {flag} {quoted(folder)}: no such directory; allowed: a directory "
                                    f"(the defaults are configs and checkpoints in the current one)")
    args.configs, args.checkpoints = args.configs or "configs", args.checkpoints or "checkpoints"
    print("environments:")
    present = envs.available_env_ids()
    for e in envs.ENV_IDS:
        print(f"  {e:20s} {'present' if e in present else 'not present yet'}")
    cdir = Path(args.configs)
    print(f"configs ({printable(cdir)}):")
    if not cdir.is_dir():
        print(f"  (no {printable(cdir)}/ in {printable(Path.cwd())}: the project's configs are in its checkout; "
              f"give --configs DIR)")
    for p in sorted(cdir.glob("*.yaml")) if cdir.is_dir() else []:
        try:
            data = yaml_load(inputs.read_text_file(p, p.name, KitchenArenaError, inputs.MAX_CONFIG_BYTES)) or {}
            env_id = str(((data.get("env") or {}) if isinstance(data, dict) else {}).get("id", "?"))
        except KitchenArenaError as e:
            env_id = f"unreadable ({e})"
        except (yaml.YAMLError, AttributeError) as e:
            env_id = f"invalid: {yaml_refusal(e)}"
        except OSError as e:  # a directory, a dangling link, no permission
            env_id = f"unreadable ({e.strerror or e})"
        print(f"  {printable(p.name):28s} {printable(env_id)}{'' if env_id in present else '  (env not present)'}")
    root = Path(args.checkpoints)
    print(f"checkpoints ({printable(root)}):")
    if not root.is_dir():
        print(f"  (no {printable(root)}/ in {printable(Path.cwd())}: a run writes its checkpoints there; give "
              f"--checkpoints DIR)")
        return 0
    shipped: set[Path] = set()
    if (root / MANIFEST_FILE).is_file():
        try:
            shipped = {p.resolve() for p in shipped_checkpoints(root)}
        except CheckpointError as e:
            print(f"  (the list of shipped checkpoints is unreadable: {e})")
    found = sorted(root.glob("*/*/metadata.json"))
    for meta_path in found:
        d = meta_path.parent
        try:
            m = read_metadata(d)
            state = "complete" if m.get("complete") else "partial"
            mark = ", shipped" if d.resolve() in shipped else ""
            print(f"  {printable(d):40s} {m['env_id']} {m['timesteps']:,} steps ({state}{mark})")
        except CheckpointError as e:
            print(f"  {printable(d):40s} unreadable: {printable(e)}")
    if not found and any(root.glob("*/metadata.json")):
        print(f"  (none at {printable(root)}/<game>/<name>/: {printable(root)} holds checkpoints itself; "
              f"give its parent, --checkpoints {printable(root.parent)})")
    return 0


def cmd_bench(args) -> int:
    from training.bench import run_bench
    from training.config import load_config
    from training.trainer import plan_run

    cfg = load_config(args.config, args.set, check=plan_run)
    counts = args.workers
    copies = cfg["training"]["env_copies"]
    if len(set(counts)) != len(counts):  # (the runs of a count given twice were pooled and printed twice)
        raise KitchenArenaError(f"--workers {','.join(map(str, counts))}: a count is given twice; give each once "
                                f"(--repeat measures a count again)")
    if max(counts) > copies:  # (the bridge steps at most one process per copy: a row read 8 where 4 ran)
        raise KitchenArenaError(f"--workers {max(counts)}: more processes than the config's {copies} env copies; "
                                f"allowed: 1..{copies} (or --set training.env_copies=N)")
    # learn() ends on a whole rollout: n_steps of every learner slot (the header had named the steps asked for)
    rollout = cfg["algorithm"]["n_steps"] * copies * plan_run(cfg).learners
    steps = -(-args.timesteps // rollout) * rollout
    print(f"{cfg['env']['id']} {cfg['env']['options']}: {cfg['training']['env_copies']} env copies, "
          f"{steps:,} learner steps per measurement ({args.timesteps:,} asked, rounded up to whole rollouts of "
          f"{rollout:,})")
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
    if not path.is_file():
        raise KitchenArenaError(f"schema --update {args.update!r}: no such file (the doc that holds the "
                                f"config-schema block, e.g. docs/training.md)")
    text = read_text_file(path, f"schema --update {quoted(str(path))}", KitchenArenaError)
    if not SCHEMA_BLOCK.search(text):
        raise KitchenArenaError(f"{path} has no config-schema block (<!-- BEGIN GENERATED: config-schema --> ...)")
    path.write_text(SCHEMA_BLOCK.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text), encoding="utf-8")
    print(f"updated the config table in {path}")
    return 0


# ---------------------------------------------------------------------- parser
def _counts(text: str) -> list[int]:
    parse = int_at_least(1, 64)
    try:
        return [parse(x.strip()) for x in text.split(",")]
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: {e} (comma-separated process counts, e.g. 1,2)") from None


def _env_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", help=f"env id (default: the checkpoint's); one of {list(envs.ENV_IDS)}")
    p.add_argument("--env-set", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. players=3 (repeatable)")


def _save_games_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save-games", metavar="DIR|FILE.jsonl", default=None,
                   help="save every game played as a replay: one file per game in DIR (new or empty), "
                        "or one JSON-lines file; docs/replays.md")


def _games_args(p, per: str, json_help: str, markdown_help: str) -> None:
    """The env, games, seed, workers and output options of a command that plays seeded games."""
    _env_args(p)
    p.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=200, help=f"seeded games per {per} (default 200)")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the first game (game g uses seed+g)")
    p.add_argument("--workers", type=int_at_least(1, 64), default=2, help="processes playing games (default 2)")
    p.add_argument("--json", help=json_help)
    p.add_argument("--markdown", help=markdown_help)
    _save_games_arg(p)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training", description=__doc__.split("\n\n")[0], epilog=EPILOG)
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a policy from a YAML config (default: the embedded Frying Master run)",
                       epilog="config keys: `python -m training schema`; docs/training.md")
    t.add_argument("--config", help="YAML config (default: the embedded default, a small Frying Master run from scratch)")
    t.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. training.total_timesteps=20000 (repeatable)")
    t.add_argument("--resume", action="store_true", help="continue the run's checkpoint up to total_timesteps")
    t.add_argument("--overwrite", action="store_true", help="replace an existing checkpoint of the same name")
    t.add_argument("--dry-run", action="store_true", help="validate the config, show the plan, train nothing")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                   help="sb3 (default: this machine) or rllib (Ray RLlib PPO; docs/training.md)")
    t.add_argument("--address", default=None,
                   help="with --backend rllib: the address of an existing Ray cluster (default: start a local one)")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("evaluate", help="evaluate a policy with partners / against opponents", epilog=EPILOG)
    e.add_argument("policy", help="policy spec")
    _env_args(e)
    e.add_argument("--against", "--partners", action="append", metavar="SPEC",
                   help="who plays the other seats: opponents (competitive) or partners (cooperative); repeatable: one row each")
    e.add_argument("--team", action="store_true", help="also a row with the policy in every seat")
    e.add_argument("--sweep", action="append", default=[], metavar="KEY=V1,V2",
                   help="evaluate over several values of an env option (repeatable: all combinations)")
    e.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=200, help="seeded games per row (default 200)")
    e.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the first game (game g uses seed+g)")
    e.add_argument("--workers", type=int_at_least(1, 64), default=2,
                   help="processes playing games (default 2; 1 = this process only)")
    e.add_argument("--extras", metavar="K1,K2", help="outcome() extras to show as columns (default: all; JSON has all)")
    e.add_argument("--sample", action="store_true", help="trained policies sample instead of playing their best action")
    e.add_argument("--json", help="write the figures to this JSON file")
    e.add_argument("--markdown", help="write the table to this file")
    _save_games_arg(e)
    e.set_defaults(func=cmd_evaluate)

    x = sub.add_parser("crossplay", help="cooperative cross-play matrix: each chef with each partner", epilog=EPILOG)
    x.add_argument("policies", nargs="+", help="the chefs evaluated (one line each)")
    x.add_argument("--partners", action="append", metavar="SPEC",
                   help="who fills the other seats (one column each; repeatable; default: the same policies)")
    _games_args(x, "cell", json_help="write every cell's figures to this JSON file", markdown_help="write the matrix to this file")
    x.set_defaults(func=cmd_crossplay)

    r = sub.add_parser("tournament", help="round robin among policies, with Elo-scale ratings", epilog=EPILOG)
    r.add_argument("policies", nargs="+", help="two or more policy specs")
    _games_args(r, "pairing", json_help="write ratings and pairwise scores to this JSON file",
                markdown_help="write the tables to this file")
    r.set_defaults(func=cmd_tournament)

    w = sub.add_parser("watch", help="render a seeded game played by chosen policies", epilog=EPILOG)
    w.add_argument("policies", nargs="*", help="one spec for every seat, or one per seat in seat order "
                                               "(none with --replay)")
    _env_args(w)
    w.add_argument("--seed", type=int_at_least(0), default=None, help="the game's seed (default 0)")
    w.add_argument("--delay", type=seconds(zero=True, most=60), default=None,
                   help=f"seconds between frames (default {WATCH_DELAY} when stdout is a terminal, else 0)")
    w.add_argument("--every", type=int_at_least(1), default=1, help="draw every N steps")
    w.add_argument("--max-steps", type=int_at_least(0), default=None, help="stop after N steps")
    w.add_argument("--no-clear", action="store_true", help="never clear the screen between frames")
    _save_games_arg(w)
    w.add_argument("--replay", metavar="FILE", help="replay a saved game (.json, or .jsonl with --game K) "
                                                    "instead of playing one; docs/replays.md")
    w.add_argument("--from", dest="from_tick", type=int_at_least(0), default=None, metavar="TICK",
                   help="with --replay: start drawing at tick TICK (default 0, the table as dealt)")
    w.add_argument("--game", type=int_at_least(1), default=None, metavar="K",
                   help="with --replay of a .jsonl file: its K-th game (line K, from 1)")
    w.set_defaults(func=cmd_watch)

    pl = sub.add_parser("play", help="take one or more seats yourself, in the terminal (docs/play.md)", epilog=EPILOG)
    _env_args(pl)
    pl.add_argument("--seat", action="append", default=[], required=True, metavar="AGENT",
                    help="a seat you play, e.g. chef_0 (repeatable)")
    pl.add_argument("--others", nargs="+", action="extend", default=[], metavar="SPEC",
                    help="who plays the other seats: one spec for all, or one per other seat in seat order "
                         "(default heuristic)")
    pl.add_argument("--seed", type=int_at_least(0), default=0, help="the game's seed (default 0)")
    pl.add_argument("--wall-clock", action="store_true",
                    help="real-time games: run one tick every seconds_per_tick of wall time (noop if you have not "
                         "answered); default: the clock stops while you decide")
    _save_games_arg(pl)
    pl.set_defaults(func=cmd_play)

    ls = sub.add_parser("list", help="environments, configs and checkpoints present")
    ls.add_argument("--configs", default=None, help="the configs folder (default: configs, if there)")
    ls.add_argument("--checkpoints", default=None, help="the checkpoints folder (default: checkpoints, if there)")
    ls.set_defaults(func=cmd_list)

    b = sub.add_parser("bench", help="measure bridge and training steps/s per number of worker processes, "
                                    "and the learner alone (the env's share of training)")
    b.add_argument("--config", help="YAML config (default: the embedded default)")
    b.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    b.add_argument("--workers", type=_counts, default=[1, 2],
                   help="comma-separated counts of processes stepping copies (default 1,2)")
    b.add_argument("--timesteps", type=int_at_least(1, 10 ** 9), default=20_000,
                   help="learner steps per measurement (rounded up to whole rollouts: n_steps x learner slots)")
    b.add_argument("--repeat", type=int_at_least(1, 1000), default=1,
                   help="measure each count this many times, interleaved")
    b.set_defaults(func=cmd_bench)

    s = sub.add_parser("schema", help="print the table of config keys (markdown)")
    s.add_argument("--update", metavar="DOC", help="rewrite the config-schema block of DOC (docs/training.md)")
    s.set_defaults(func=cmd_schema)
    return p


class _Warnings:
    """The warnings of one command: each shown once. A ``CheckpointWarning``
    (a checkpoint used with env options or a package version it was not
    trained with) is printed as one ``warning:`` line the first time its
    message appears in the command, never more (the same checkpoint meets the
    same env in every row, pairing and seat); other warnings as Python shows them."""

    def __enter__(self):
        from training.checkpoints import CheckpointWarning

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("default")
        warnings.simplefilter("always", CheckpointWarning)  # never filtered by Python's registry: deduplicated here
        seen: set[str] = set()
        show = warnings.showwarning

        def showwarning(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, CheckpointWarning):
                text = " ".join(str(message).split())
                if text not in seen:
                    seen.add(text)
                    print(f"warning: {text}", file=sys.stderr)
                return
            show(message, category, filename, lineno, file, line)

        warnings.showwarning = showwarning
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _error(text: str) -> int:
    # always one line, printable (a text agent's exception, a file's name), at most 2,000 characters
    print("error: " + printable(" ".join(text.split()), 2000), file=sys.stderr)
    return 2


def _os_error_text(e: OSError) -> str:
    """An ``OSError`` as one line: what the system said and the path(s) it said it of (cut at 200 characters)."""
    paths = [quoted(f) for f in (e.filename, e.filename2) if f is not None]
    if not paths or not e.strerror:
        return " ".join(str(e).split()) or type(e).__name__
    return f"{e.strerror}: {' -> '.join(paths)}"


#: options that name a file, a folder or an env: an empty value is refused (``--config ''`` had read
#: the current directory, ``--env ''`` had been taken as not given, ``schema --update ''`` ignored)
_NAMED_OPTIONS = {"config": "a config file", "replay": "a replay file", "env": "an env id", "update": "a doc file",
                  "configs": "a directory", "checkpoints": "a directory"}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        for name, what in _NAMED_OPTIONS.items():
            value = getattr(args, name, None)
            if isinstance(value, str) and not value.strip():
                raise KitchenArenaError(f"--{name} is empty; give {what}")
        with _Warnings():
            return args.func(args)
    except KitchenArenaError as e:  # ConfigError, CheckpointError, EnvUnavailableError, bad specs
        return _error(str(e))
    except OSError as e:  # a path the system refuses (too long, not permitted, not a directory) or a full disk
        return _error(_os_error_text(e))
    except WorkerError as e:  # a worker process died or was stuck (train saved what it had first)
        return _error(first_line(e))
    except ModuleNotFoundError as e:  # a module of the train extra, imported on first use
        message = missing_extra_message(e)
        if message is None:
            raise
        return _error(message)
    except KeyboardInterrupt:  # (the commands that save on Ctrl-C, train and play, handle it themselves first)
        print("interrupted (Ctrl-C)", file=sys.stderr)
        return 130
