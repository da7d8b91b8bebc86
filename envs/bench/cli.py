"""``python -m envs.bench``: argument parsing and the order of the sections."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Callable

import envs
from envs.bench import report
from envs.bench.errors import Unavailable
from envs.bench.harness import measure, parallel_driver
from envs.bench.machine import machine_info, machine_line
from envs.bench.stats import SPREAD
from envs.core.inputs import MAX_GAMES, int_at_least, output_file_problem
from envs.vector.batched import MAX_BATCH_GAMES

VECTOR_SIZES = (1, 8, 64)
PROCESS_GAMES = 64
#: Batched steps of each timed vector run, at the least (``--quick``: 8); see :func:`envs.bench.batched.steps_for`.
MIN_TIMED_STEPS = 200


def parser() -> argparse.ArgumentParser:
    from envs import bench

    p = argparse.ArgumentParser(prog="python -m envs.bench", description=bench.__doc__.split("\n\n")[0],
                                epilog="What each figure means: pydoc envs.bench")
    p.add_argument("--env", action="append", choices=list(envs.ENV_IDS), help="env id (repeatable; default: all)")
    p.add_argument("--first", type=int_at_least(1), default=None, metavar="N", help="only the first N configurations of each env")
    p.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=3, help="episodes per timed run (default 3)")
    p.add_argument("--repeats", type=int_at_least(1, 1000), default=5, help="timed runs per configuration; median and min-max shown (default 5)")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the random play (default 0)")
    p.add_argument("--peers", action="store_true", help="also PettingZoo's connect_four_v3 and knights_archers_zombies, and ratios")
    p.add_argument("--peer-games", type=int_at_least(1, MAX_GAMES), default=None, metavar="N",
                   help="episodes per timed peer run (default: 50 connect four, 3 knights-archers-zombies)")
    p.add_argument("--vector", action="store_true", help="also envs.vector.BatchedEnv at N = 1, 8, 64 and ProcessBatchedEnv at 64")
    p.add_argument("--vector-steps", type=int_at_least(1, 10 ** 8), default=None, metavar="S",
                   help="game-steps per vector run: S/N batched steps at N games, at least "
                        f"{MIN_TIMED_STEPS} (default 2048; --quick: 512, at least 8)")
    p.add_argument("--workers", type=int_at_least(1, 64), default=None, help="ProcessBatchedEnv workers (default: usable cores)")
    p.add_argument("--training", action="store_true", help="also SB3 rollout fps through the bridge vs CartPole (train extra)")
    p.add_argument("--training-full", action="store_true",
                   help="also each game's full config end to end (rollouts + updates) on 1 and 2 processes next to "
                        "CartPole PPO with the same settings, and the hours its total_timesteps take (train extra; "
                        "minutes; not part of --all)")
    p.add_argument("--scaling", action="store_true", help="also cost per step by player count, and memory of 1 and 1,000 envs")
    p.add_argument("--mem-games", type=int_at_least(1, MAX_BATCH_GAMES), default=None, metavar="N", help="envs held at once for --scaling memory (default 1000)")
    p.add_argument("--all", action="store_true", help="--peers --vector --training --scaling")
    p.add_argument("--quick", action="store_true", help="shorter --training and --vector measurements")
    p.add_argument("--json", metavar="PATH", help="also write every figure as JSON to PATH")
    return p


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main(argv: list[str] | None = None, out: Callable[[str], None] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.all:
        args.peers = args.vector = args.training = args.scaling = True
    for option, value, section in (("--peer-games", args.peer_games, "peers"),
                                   ("--vector-steps", args.vector_steps, "vector"), ("--workers", args.workers, "vector"),
                                   ("--mem-games", args.mem_games, "scaling")):
        if value is not None and not getattr(args, section):  # it was ignored: the measurement it sets was off
            p.error(f"{option} sets the --{section} measurement, which is not on; add --{section} (or --all)")
    if args.quick and not (args.vector or args.training):  # (it had been accepted and done nothing)
        p.error("--quick shortens the --vector and --training measurements, neither of which is on; add one "
                "(or --all)")
    if args.mem_games is None:
        args.mem_games = 1000
    if args.vector_steps is None:
        args.vector_steps = 512 if args.quick else 2048
    problem = args.json is not None and output_file_problem(args.json, "--json")
    if problem:  # before any measurement, not after the whole run
        print(f"error: {problem}", file=sys.stderr)
        return 2
    sink = out or (lambda s: print(s, flush=True))

    def emit(s: str = "") -> None:
        sink(s)

    def progress(s: str) -> None:
        print(s, file=sys.stderr, flush=True)

    # Optional sections fail here, before minutes of measuring, when what they need is missing.
    peers = run_throughput = None
    try:
        if args.peers:
            from envs.bench.peers import load_peers

            peers = load_peers()
        if args.training or args.training_full:
            from envs.bench.training_fps import load_training

            run_throughput = load_training()
    except Unavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    ids = list(dict.fromkeys(args.env)) if args.env else envs.available_env_ids()  # an env named twice: once
    per_env = {e: envs.test_configurations(e)[: args.first] if args.first else envs.test_configurations(e) for e in ids}
    configs = [c for e in ids for c in per_env[e]]
    if not configs:
        print("error: no environments available", file=sys.stderr)
        return 1

    machine = machine_info()
    settings = {"games": args.games, "repeats": args.repeats, "seed": args.seed, "first": args.first, "envs": ids,
                "spread": SPREAD, "quick": args.quick, "peer_games": args.peer_games,
                "vector_steps": None, "workers": None, "mem_games": args.mem_games if args.scaling else None}
    emit("# Kitchen Arena benchmark")
    emit()
    emit(machine_line(machine) + ".")
    emit()
    emit(f"Single process, seeded random legal play (observation and mask built for every acting agent each step). "
         f"Each figure: median ({SPREAD}) over {args.repeats} timed runs of {args.games} episodes; "
         f"peak MiB: tracemalloc peak of one reset + episode, measured untimed.")

    peer_json = ratios = None
    before = []
    if peers:
        for p in peers:
            progress(f"peer {p.driver.name} (before)...")
            before.append(measure(p.driver, args.peer_games or p.games, args.repeats, args.seed))

    emit()
    emit("## Our environments")
    emit()
    emit(report.measure_head())
    results = []
    for cfg in configs:
        m = measure(parallel_driver(cfg), args.games, args.repeats, args.seed)
        results.append(m)
        emit(report.measure_row(m))

    if peers:
        from envs.bench.ratios import drift, met_counts, ratio_rows

        after = []
        for p in peers:
            progress(f"peer {p.driver.name} (after)...")
            after.append(measure(p.driver, args.peer_games or p.games, args.repeats, args.seed))
        peer_json = []
        for p, b, a in zip(peers, before, after):
            bm, am = b.median("agent_steps_per_s"), a.median("agent_steps_per_s")
            peer_json.append({"name": p.driver.name, "target": p.target, "games_per_run": b.runs[0].episodes,
                              "before": b.to_json(), "after": a.to_json(), "drift": drift(bm, am)})
        emit()
        emit("## PettingZoo peers (measured before and after ours)")
        emit()
        emit(report.peers_table(before, after))
        emit()
        emit(report.drift_line(peer_json))
        ratios = ratio_rows([(m.name, m.median("agent_steps_per_s")) for m in results],
                            [{"name": pj["name"], "target": pj["target"], "before": pj["before"]["agent_steps_per_s"]["median"],
                              "after": pj["after"]["agent_steps_per_s"]["median"]} for pj in peer_json])
        emit()
        emit("## Ratios to the peers (our agent-steps/s ÷ the peer's; the faster of its before/after medians)")
        emit()
        emit(report.ratio_table(ratios, met_counts(ratios)))

    vector_rows = None
    if args.vector:
        from envs.bench.batched import measure_vectors, steps_for
        from envs.vector import BatchedEnv, ProcessBatchedEnv

        batched, process_batched = BatchedEnv, ProcessBatchedEnv
        game_steps = args.vector_steps
        floor = 8 if args.quick else MIN_TIMED_STEPS
        workers = args.workers or _usable_cores()
        settings["vector_steps"], settings["workers"] = game_steps, workers
        single = {(m.driver.env_id, tuple(sorted(m.driver.kwargs.items()))): m.median("agent_steps_per_s") for m in results}
        vector_rows = []
        for e in ids:
            cfg = envs.test_configurations(e)[0]
            module = envs.get_env_module(e)
            # at PROCESS_GAMES, the in-process and process forms side by side (their ratio is a target); at every
            # N, a Python loop over N separate envs (the same games, the same steps) timed in turn with them
            plan = [(n, [(batched, "BatchedEnv", {})] + ([(process_batched, "ProcessBatchedEnv", {"workers": workers})]
                                                          if n == PROCESS_GAMES else [])) for n in VECTOR_SIZES]
            for n, forms in plan:
                progress(f"vector {e} {' and '.join(f for _, f, _ in forms)} and a loop of {n} envs, N={n}...")
                *measured, loop = measure_vectors(forms, e, cfg.kwargs, n, steps_for(n, game_steps, floor), args.repeats,
                                                  args.seed, loop=lambda: module.parallel_env(**cfg.kwargs))
                for r in measured:
                    form = r["form"]
                    s = single.get((e, tuple(sorted(cfg.kwargs.items()))))
                    r["vs_single"] = None if s is None else r["agent_steps_per_s"]["median"] / s
                    if form == "BatchedEnv":  # the loop over n separate envs, timed in turn with it
                        r["loop_agent_steps_per_s"] = loop["agent_steps_per_s"]
                        r["vs_loop"] = r["agent_steps_per_s"]["median"] / loop["agent_steps_per_s"]["median"]
                    same_n = next((x for x in vector_rows if x["env_id"] == e and x["form"] == "BatchedEnv"
                                   and x["num_games"] == n), None)
                    r["vs_batched"] = None if form == "BatchedEnv" or same_n is None else \
                        r["agent_steps_per_s"]["median"] / same_n["agent_steps_per_s"]["median"]
                    vector_rows.append(r)
        emit()
        emit("## Batched vector env (envs.vector; one configuration per env, random legal actions for the whole batch)")
        emit()
        emit(report.vector_table(vector_rows))
        emit()
        emit(f"agent-steps/s: median ({SPREAD}) over {args.repeats} runs of about {game_steps} game-steps each "
             f"(at least {floor} batched steps); "
             "vs single env: over the single-process figure of the same configuration above; "
             "vs loop of N envs: over a Python loop stepping N separate envs through the same games and steps "
             "(same draws per agent as the single-env harness), timed in turn with the batch in every repeat; "
             "vs BatchedEnv: the process form over the in-process BatchedEnv of the same N, measured side by side "
             "(each repeat times both in turn) "
             "(the issue's target: >= 1.7x with both cores).")

    training_rows = None
    if run_throughput and args.training:
        emit()
        emit("## Training throughput (SB3 rollout frames/s through the bridge vs PPO on CartPole-v1)")
        emit()
        chosen = {"games": tuple(ids)} if args.env else {}  # --env limits the games measured too
        training_rows = run_throughput(log=emit, quick=args.quick, **chosen)

    if args.training_full:
        from training.throughput import run_full_configs

        emit()
        emit("## Training end to end, full configs (MaskablePPO learning through the bridge vs PPO on CartPole-v1)")
        emit()
        chosen = {"games": tuple(ids)} if args.env else {}
        full = run_full_configs(log=emit, workers=(1, 2), **chosen)
        training_rows = (training_rows or []) + [{"kind": "full_config", **r} for r in full]

    scaling = None
    if args.scaling:
        from envs.bench.scaling import cost_by_players, memory_rows

        cost = cost_by_players(results)
        emit()
        emit("## Scaling: cost per step by number of players (median over the measured configurations)")
        emit()
        emit(report.cost_table(cost))
        if args.first:
            emit()
            emit(f"(only the first {args.first} configuration(s) of each env were measured: run without --first for every player count)")
        progress(f"memory of 1 and {args.mem_games} envs...")
        mem = memory_rows([envs.test_configurations(e)[0] for e in ids], args.mem_games, args.seed)
        emit()
        emit(f"## Scaling: memory (tracemalloc, held after reset; one configuration per env)")
        emit()
        emit(report.memory_table(mem))
        scaling = {"cost_by_players": cost, "memory": mem}

    if args.json:
        given = argv if argv is not None else sys.argv[1:]
        doc = report.build_json(command=shlex.join(["python", "-m", "envs.bench", *given]),
                                machine=machine, settings=settings, configurations=results, peers=peer_json,
                                ratios=ratios, vector=vector_rows, training=training_rows, scaling=scaling)
        report.write_json(doc, args.json)
        progress(f"JSON written to {args.json}")
    return 0
