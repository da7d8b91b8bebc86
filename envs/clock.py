"""What the clock does: sweep the real-time games' tempo and measure the scripted baseline.

    python -m envs.clock --game wok_star --seconds-per-tick 1,2,5,10 --timer-seconds 10,30,60,120 --games 500
    python -m envs.clock --game frying_master --players 2 --seconds-per-tick 0.25,0.5,1,2,3 --games 500
    python -m envs.clock --game all --games 200 --markdown --json clock.json --plot docs/figures/clock.png

For each point of the grid (``seconds_per_tick`` x, in Wok Star, ``timer_seconds``) it plays
``--games`` seeded games (game ``g`` uses seed ``--seed + g`` at every point, so the points
differ by the clock, not by the deal) and reports:

* **Wok Star** (cooperative): a team of heuristic chefs. Win rate with its Wilson 95% interval;
  the late share (customers served late / customers served, from the outcome's
  ``served_late`` and ``served_on_time``: a serve is late when both timers are empty, worth $1
  less); the unserved share (customers who reached the counter and were not served: walked out
  after ``patience_seconds`` or left when the day closed, ``customers`` minus the serves);
  ticks per game; days completed; the timer length in ticks.
* **Frying Master** (competitive): ``--heuristic-seats`` heuristic chefs (default 1) against
  random legal chefs, the heuristic seats rotating over the table game by game. Win rate of a
  heuristic seat (a shared victory among k winners counts 1/k; fair share 1/players) with its
  Wilson 95% interval; ticks per game; rounds per game. The clock-bound quantity: in Frying
  Master ``seconds_per_tick`` changes only the "3... 2... 1... Time's up!" countdown
  (``ceil(3 s / seconds_per_tick)`` ticks); the anti-stalling ``round_ticks`` limit and every
  move's cost are counted in ticks, whatever a tick lasts. So the sweep reports the countdown
  length in ticks and the orders served during the countdown per round (by the chefs who had
  not finished: what the countdown's length gives them), beside the share of rounds ended by the
  tick limit instead of by a finisher.

Option names are read from each env's ``ConfigSpec`` and every point is resolved by it before
anything runs: a value the env refuses exits 2 with the env's own message. ``--plot FILE.png``
draws one figure per game (matplotlib, Agg, imported only then); with ``--game all`` the
game's name is added before the suffix (``clock.png`` -> ``clock_wok_star.png``,
``clock_frying_master.png``). ``--markdown`` prints tables ready to paste into the docs;
``--json FILE`` writes every row. Rows depend only on the arguments (seeded), never on timing.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import envs
from envs.core.inputs import MAX_GAMES, int_at_least, output_file_problem
from envs.core.play import play_episode
from envs.core.policy import RandomLegalPolicy
from envs.core.stats import wilson
from envs.core.tick_env import INTERFACE_OPTIONS

#: The real-time games this command sweeps (the registry's ids without the version suffix).
GAMES: tuple[str, ...] = ("wok_star", "frying_master")
#: Option names the sweep sets itself (checked against each env's ConfigSpec).
TEMPO_OPTION = "seconds_per_tick"
TIMER_OPTION = "timer_seconds"  # Wok Star only
PLAYERS_OPTION = "players"
DEFAULT_TEMPI = {"wok_star": (1.0, 2.0, 5.0, 10.0), "frying_master": (0.25, 0.5, 1.0, 2.0, 3.0)}
DEFAULT_TIMERS = (10.0, 30.0, 60.0, 120.0)


class ClockError(ValueError):
    """A bad argument for the sweep (exit status 2)."""


# ---------------------------------------------------------------------- helpers
def env_id_of(game: str) -> str:
    """The registry id of ``game`` (whatever its version suffix)."""
    for env_id in envs.ENV_IDS:
        if env_id.rsplit("_v", 1)[0] == game:
            return env_id
    raise ClockError(f"no environment for game {game!r} in the registry {list(envs.ENV_IDS)}")


def _spec(game: str):
    return envs.get_env_module(env_id_of(game)).raw_env.config_spec()


def _view_value(view: Any, key: str) -> Any:
    """A field of a game's public view (attribute or mapping item), or None if it has none."""
    if hasattr(view, key):
        return getattr(view, key)
    try:
        return view[key]
    except (KeyError, TypeError, IndexError):
        return None


def _share(outcome: Mapping[str, Any], agent: str) -> float:
    winners = outcome.get("winners", [])
    return 1.0 / len(winners) if agent in winners else 0.0


def _need(outcome: Mapping[str, Any], key: str, env_id: str) -> Any:
    if key not in outcome:
        raise RuntimeError(f"{env_id}: the outcome has no {key!r} (keys: {sorted(outcome)}); "
                           "envs/clock.py reads the late serves from it")
    return outcome[key]


def _fmt_num(x: float) -> str:
    return f"{x:g}"


# ---------------------------------------------------------------------- the grid
def build_points(game: str, tempi: Sequence[float], timers: Sequence[float] | None, players: int | None,
                 extra: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every point's keyword options for ``game``, each resolved by the env's ConfigSpec
    (a refused value raises the env's ConfigError)."""
    spec = _spec(game)
    names = spec.names()
    need = [TEMPO_OPTION] + ([TIMER_OPTION] if game == "wok_star" else []) + ([PLAYERS_OPTION] if players else [])
    missing = [k for k in need if k not in names]
    if missing:
        raise ClockError(f"{env_id_of(game)} has no option {', '.join(missing)} (its options: {', '.join(names)})")
    base = dict(extra)
    if players is not None:
        base[PLAYERS_OPTION] = players
    timer_list: Sequence[float | None] = timers if game == "wok_star" else [None]
    points = []
    for timer in timer_list:
        for spt in tempi:
            kw = {**base, TEMPO_OPTION: float(spt)}
            if timer is not None:
                kw[TIMER_OPTION] = float(timer)
            spec.resolve(kw)  # raises ConfigError with the env's message
            points.append(kw)
    return points


# ---------------------------------------------------------------------- one point
def measure_wok_star(kwargs: Mapping[str, Any], games: int, seed: int) -> dict[str, Any]:
    """A heuristic team plays ``games`` seeded games at one point."""
    env_id = env_id_of("wok_star")
    m = envs.get_env_module(env_id)
    env = m.parallel_env(**kwargs)
    env.reset(seed=seed)
    view = env.unwrapped.engine.public_view(env.possible_agents[0])
    timer_ticks, patience_ticks = _view_value(view, "timer_full"), _view_value(view, "patience")
    agents = env.possible_agents
    team = m.HeuristicPolicy()
    wins = on_time = late = customers = 0
    ticks: list[int] = []
    days = income = 0.0
    truncated = 0
    for g in range(games):
        r = play_episode(env, {a: team for a in agents}, seed=seed + g)
        o = r.outcome
        wins += bool(r.winners)
        on_time += int(_need(o, "served_on_time", env_id))
        late += int(_need(o, "served_late", env_id))
        customers += int(_need(o, "customers", env_id))
        days += float(o.get("days_completed", 0))
        income += float(next(iter(o.get("scores", {0: 0.0}).values())))
        ticks.append(r.steps)
        truncated += bool(r.truncated)
    env.close()
    serves = on_time + late
    cfg = m.raw_env.config_spec().resolve(kwargs)
    lo, hi = wilson(wins, games)
    return {
        "game": "wok_star", "env_id": env_id, "players": cfg[PLAYERS_OPTION],
        "seconds_per_tick": cfg[TEMPO_OPTION], "timer_seconds": cfg[TIMER_OPTION],
        "timer_ticks": timer_ticks, "patience_ticks": patience_ticks,
        "options": {k: v for k, v in kwargs.items() if k not in (TEMPO_OPTION, TIMER_OPTION, PLAYERS_OPTION)},
        "games": games, "seed": seed,
        "wins": wins, "win_rate": wins / games, "win_ci95": [lo, hi],
        "serves": serves, "late_serves": late, "late_share": late / serves if serves else 0.0,
        "customers": customers, "unserved_share": (customers - serves) / customers if customers else 0.0,
        "ticks_per_game": sum(ticks) / games, "ticks_max": max(ticks),
        "days_completed": days / games, "income_per_game": income / games,
        "truncated": truncated,
    }


def _play_frying_master(env: Any, policies: Mapping[str, Any], seed: int) -> tuple[int, dict, dict[str, int]]:
    """One episode, as :func:`envs.core.play.play_episode` plays it, counting per step the serves
    made during the countdown and each round's ``ended_by`` (``last_step_details``)."""
    obs, _ = env.reset(seed=seed)
    for i, p in enumerate(dict.fromkeys(policies.values())):
        p.reset(seed * 1000 + i)
    raw = env.unwrapped
    first = env.possible_agents[0]
    stats = {"countdown_serves": 0, "rounds": 0, "rounds_by_limit": 0}
    steps = 0
    while env.agents:
        phase = _view_value(raw.engine.public_view(first), "phase")
        actions = {a: policies[a].act(obs[a], a, env) for a in env.agents}
        obs, _, _, _, _ = env.step(actions)
        steps += 1
        details = raw.last_step_details()
        if phase == "countdown":
            stats["countdown_serves"] += sum(1 for d in details.values()
                                             if d.get("action_name") == "serve" and not d.get("blocked_reason"))
        rr = next((d["round_result"] for d in details.values() if d.get("round_result")), None)
        if rr is not None:
            stats["rounds"] += 1
            stats["rounds_by_limit"] += rr.get("ended_by") != "time's up"
    return steps, raw.engine.outcome(), stats


def measure_frying_master(kwargs: Mapping[str, Any], games: int, seed: int, heuristic_seats: int = 1) -> dict[str, Any]:
    """``heuristic_seats`` heuristic chefs against random legal chefs, the seats rotating."""
    env_id = env_id_of("frying_master")
    m = envs.get_env_module(env_id)
    env = m.parallel_env(**kwargs)
    env.reset(seed=seed)
    countdown = _view_value(env.unwrapped.engine.public_view(env.possible_agents[0]), "countdown_ticks")
    agents = env.possible_agents
    n = len(agents)
    if not 1 <= heuristic_seats <= n:
        raise ClockError(f"--heuristic-seats must be 1..{n} for {n} players, got {heuristic_seats}")
    share = 0.0
    ticks: list[int] = []
    cd_serves = rounds = by_limit = 0
    for g in range(games):
        seats = [agents[(g + j) % n] for j in range(heuristic_seats)]
        heur, rnd = m.HeuristicPolicy(), RandomLegalPolicy()
        policies = {a: (heur if a in seats else rnd) for a in agents}
        steps, outcome, st = _play_frying_master(env, policies, seed + g)
        share += sum(_share(outcome, a) for a in seats) / heuristic_seats
        ticks.append(steps)
        cd_serves += st["countdown_serves"]
        rounds += st["rounds"]
        by_limit += st["rounds_by_limit"]
    env.close()
    cfg = m.raw_env.config_spec().resolve(kwargs)
    lo, hi = wilson(share, games)
    return {
        "game": "frying_master", "env_id": env_id, "players": cfg[PLAYERS_OPTION],
        "seconds_per_tick": cfg[TEMPO_OPTION], "countdown_ticks": countdown,
        "options": {k: v for k, v in kwargs.items() if k not in (TEMPO_OPTION, PLAYERS_OPTION)},
        "heuristic_seats": heuristic_seats, "games": games, "seed": seed,
        "win_rate": share / games, "win_ci95": [lo, hi], "fair_share": 1.0 / n,
        "ticks_per_game": sum(ticks) / games, "ticks_max": max(ticks),
        "rounds": rounds, "rounds_per_game": rounds / games,
        "countdown_serves": cd_serves, "countdown_serves_per_round": cd_serves / rounds if rounds else 0.0,
        "limit_share": by_limit / rounds if rounds else 0.0,
    }


def sweep(game: str, points: Sequence[Mapping[str, Any]], games: int, seed: int, heuristic_seats: int = 1,
          progress=None) -> list[dict[str, Any]]:
    rows = []
    for kw in points:
        t = time.perf_counter()
        if game == "wok_star":
            row = measure_wok_star(kw, games, seed)
        else:
            row = measure_frying_master(kw, games, seed, heuristic_seats)
        rows.append(row)
        if progress:
            progress(f"{game} {', '.join(f'{k}={v}' for k, v in kw.items())}: {time.perf_counter() - t:.1f} s")
    return rows


# ---------------------------------------------------------------------- output
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(row: Mapping[str, Any]) -> str:
    lo, hi = row["win_ci95"]
    return f"{_pct(row['win_rate'])} ({100 * lo:.0f}-{100 * hi:.0f})"


def markdown(game: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """A markdown table of one game's rows."""
    if not rows:
        return ""
    r0 = rows[0]
    opts = ", ".join(f"{k}={v!r}" for k, v in r0["options"].items())
    head = f"{r0['env_id']}, players={r0['players']}" + (f", {opts}" if opts else "") + \
        f"; {r0['games']} games per point, seeds {r0['seed']}-{r0['seed'] + r0['games'] - 1}"
    if game == "wok_star":
        lines = [head, "",
                 "| s/tick | timer (s) | timer (ticks) | heuristic win rate (95% CI) | late share of serves | "
                 "unserved share | ticks/game | days completed |",
                 "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {_fmt_num(r['seconds_per_tick'])} | {_fmt_num(r['timer_seconds'])} | {r['timer_ticks']} | "
                         f"{_ci(r)} | {_pct(r['late_share'])} ({r['late_serves']}/{r['serves']}) | "
                         f"{_pct(r['unserved_share'])} | {r['ticks_per_game']:.1f} | {r['days_completed']:.2f} |")
    else:
        head += f"; {_seats_label(r0)} (fair share {_pct(r0['fair_share'])})"
        lines = [head, "",
                 "| s/tick | countdown (ticks) | heuristic seat win rate (95% CI) | orders served in the countdown "
                 "per round | rounds ended by the tick limit | rounds/game | ticks/game |",
                 "|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {_fmt_num(r['seconds_per_tick'])} | {r['countdown_ticks']} | {_ci(r)} | "
                         f"{r['countdown_serves_per_round']:.3f} | {_pct(r['limit_share'])} | "
                         f"{r['rounds_per_game']:.2f} | {r['ticks_per_game']:.1f} |")
    return "\n".join(lines)


def text_table(game: str, rows: Sequence[Mapping[str, Any]]) -> str:
    if game == "wok_star":
        cols = ("seconds_per_tick", "timer_seconds", "timer_ticks", "win_rate", "late_share", "unserved_share",
                "ticks_per_game", "days_completed")
    else:
        cols = ("seconds_per_tick", "countdown_ticks", "win_rate", "countdown_serves_per_round", "limit_share",
                "rounds_per_game", "ticks_per_game")
    out = [f"{game}:", "  ".join(f"{c:>14}" for c in cols)]
    for r in rows:
        out.append("  ".join(f"{r[c]:>14.4g}" if isinstance(r[c], float) else f"{r[c]!s:>14}" for c in cols))
    return "\n".join(out)


def plot_path(path: str, game: str, several: bool) -> Path:
    p = Path(path)
    return p.with_name(f"{p.stem}_{game}{p.suffix}") if several else p


def _seats_label(row: Mapping[str, Any]) -> str:
    k, n = row["heuristic_seats"], row["players"]
    if k >= n:
        return "every seat heuristic"
    return f"{k} heuristic seat{'s' if k > 1 else ''} vs random"


def plot(game: str, rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """One figure of a game's sweep (matplotlib with the Agg backend, imported here only).
    Wok Star adds a fourth panel: the win rate against the timer's length in ticks, where the
    points of every (seconds_per_tick, timer_seconds) pair fall on one curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r0 = rows[0]
    wok = game == "wok_star"
    fig, axes = plt.subplots(1, 4 if wok else 3, figsize=(17 if wok else 13, 3.8))
    if wok:
        groups = sorted({r["timer_seconds"] for r in rows})
        label = lambda v: f"timer {_fmt_num(v)} s"
        key = "timer_seconds"
        panels = (("late_share", "late share of serves"), ("ticks_per_game", "ticks per game"))
        title = f"Wok Star, {r0['players']} players, heuristic team"
    else:
        groups = [None]
        label = lambda v: _seats_label(r0)
        key = None
        panels = (("countdown_serves_per_round", "orders served in the countdown per round"),
                  ("ticks_per_game", "ticks per game"))
        title = f"Frying Master, {r0['players']} players, {_seats_label(r0)}"
    tempo_axes = axes[:3]
    for v in groups:
        rs = sorted((r for r in rows if key is None or r[key] == v), key=lambda r: r["seconds_per_tick"])
        x = [r["seconds_per_tick"] for r in rs]
        line, = axes[0].plot(x, [r["win_rate"] for r in rs], marker="o", label=label(v))
        axes[0].fill_between(x, [r["win_ci95"][0] for r in rs], [r["win_ci95"][1] for r in rs],
                             color=line.get_color(), alpha=0.15)
        for ax, (k, _) in zip(axes[1:3], panels):
            ax.plot(x, [r[k] for r in rs], marker="o", color=line.get_color(), label=label(v))
        if wok:
            t = [r["timer_ticks"] for r in rs]
            axes[3].errorbar(t, [r["win_rate"] for r in rs], fmt="o", color=line.get_color(), label=label(v),
                             yerr=[[r["win_rate"] - r["win_ci95"][0] for r in rs],
                                   [r["win_ci95"][1] - r["win_rate"] for r in rs]], capsize=2)
    if not wok:
        axes[0].axhline(r0["fair_share"], color="grey", linestyle=":", label="fair share")
    axes[0].set_ylabel("heuristic win rate (95% CI)")
    axes[0].set_ylim(0, 1.02)
    for ax, (_, name) in zip(axes[1:3], panels):
        ax.set_ylabel(name)
    tempi = sorted({r["seconds_per_tick"] for r in rows})
    for ax in tempo_axes:
        ax.set_xscale("log")
        ax.set_xlabel("seconds per tick")
        ax.set_xticks(tempi)
        ax.set_xticklabels([_fmt_num(s) for s in tempi])
        ax.minorticks_off()
        ax.grid(alpha=0.3)
    if wok:
        ax = axes[3]
        ax.set_xscale("log")
        ticks = sorted({r["timer_ticks"] for r in rows})
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks], fontsize=7)
        ax.minorticks_off()
        ax.set_xlabel("timer length in ticks (ceil(timer s / s per tick))")
        ax.set_ylabel("heuristic win rate (95% CI)")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{title}: {r0['games']} games per point, seeds {r0['seed']}-{r0['seed'] + r0['games'] - 1}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------- command line
def _positive_list(text: str) -> list[float]:
    vals = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            v = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not a number (give a comma-separated list, e.g. 1,2,5)")
        if not v > 0 or math.isinf(v):
            raise argparse.ArgumentTypeError(f"{part!r}: every value must be a positive number")
        vals.append(v)
    if not vals:
        raise argparse.ArgumentTypeError("the list is empty")
    return list(dict.fromkeys(vals))


def _parse_set(items: Sequence[str]) -> dict[str, Any]:
    out = {}
    for kv in items:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise ClockError(f"--set {kv!r}: expected KEY=VALUE")
        if k in out:  # the last value silently won
            raise ClockError(f"--set {k} is given twice; give each option once")
        try:
            out[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            out[k] = v
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m envs.clock", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=[*GAMES, "all"], default="all", help="which real-time game (default: all)")
    p.add_argument("--seconds-per-tick", type=_positive_list, metavar="LIST",
                   help="comma-separated seconds_per_tick values (default: Wok Star "
                        + ",".join(map(_fmt_num, DEFAULT_TEMPI["wok_star"])) + "; Frying Master "
                        + ",".join(map(_fmt_num, DEFAULT_TEMPI["frying_master"])) + ")")
    p.add_argument("--timer-seconds", type=_positive_list, metavar="LIST",
                   help="Wok Star only: comma-separated timer_seconds values (default: "
                        + ",".join(map(_fmt_num, DEFAULT_TIMERS)) + ")")
    p.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=100, metavar="N", help="seeded games per point (default 100)")
    p.add_argument("--seed", type=int_at_least(0), default=0, metavar="S", help="game g uses seed S+g (default 0)")
    p.add_argument("--players", type=int_at_least(1), metavar="P", help="player count (default: the env's default)")
    p.add_argument("--heuristic-seats", type=int_at_least(1), default=1, metavar="K",
                   help="Frying Master only: heuristic chefs at the table, the rest random (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="another env option for every point (repeatable; with --game all, only the games "
                        "whose options include KEY get it), e.g. --set difficulty='medium'")
    p.add_argument("--json", metavar="FILE", help="write every row to this JSON file")
    p.add_argument("--plot", metavar="FILE.png", help="draw the sweep (one file per game; see above)")
    p.add_argument("--markdown", action="store_true", help="print markdown tables ready to paste into the docs")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    games = list(GAMES) if args.game == "all" else [args.game]
    if args.timer_seconds is not None and "wok_star" not in games:
        p.error("--timer-seconds applies to Wok Star only (use --game wok_star or all)")
    if args.heuristic_seats != 1 and "frying_master" not in games:
        p.error("--heuristic-seats applies to Frying Master only (use --game frying_master or all)")
    if args.json and args.plot and os.path.abspath(args.json) == os.path.abspath(args.plot):
        p.error(f"--json and --plot both name {args.json!r}: the plot would overwrite the rows; give each its own file")
    for flag, target in (("--json", args.json), ("--plot", args.plot)):
        problem = target is not None and output_file_problem(target, flag, parents_made=True)
        if problem:
            p.error(problem)
    if args.plot:  # the files written: one per game with --game all (checked too, and apart from --json)
        for g in games:
            each = plot_path(args.plot, g, len(games) > 1)
            problem = output_file_problem(str(each), f"--plot (its {g} file)", parents_made=True)
            if problem:
                p.error(problem)
            if args.json and os.path.abspath(args.json) == os.path.abspath(each):
                p.error(f"--json {args.json!r} is the plot file of {g} that --plot {args.plot!r} writes; give each "
                        f"its own file")
    if args.plot:
        if Path(args.plot).suffix.lower() != ".png":
            p.error(f"--plot {args.plot!r}: give a .png file name")
        if importlib.util.find_spec("matplotlib") is None:
            p.error("--plot needs matplotlib (pip install matplotlib, or the project's [train] extra)")
    plan: list[tuple[str, list[dict[str, Any]]]] = []
    try:
        extra = _parse_set(args.set)
        for key in (TEMPO_OPTION, TIMER_OPTION, PLAYERS_OPTION):
            if key in extra:
                raise ClockError(f"--set {key}=...: the sweep sets {key} itself; use --{key.replace('_', '-')}")
        for key in INTERFACE_OPTIONS:  # (render_mode="human" had drawn every tick inside the timing)
            if key in extra:
                raise ClockError(f"--set {key}=...: how the env talks, not the game; the clock measures the game "
                                 f"alone; allowed: game options")
        known = {g: set(_spec(g).names()) for g in games}
        for k in extra:
            if not any(k in known[g] for g in games):
                # No game of the sweep has it: let the first env refuse it with its own message.
                _spec(games[0]).resolve({k: extra[k]})
        for g in games:
            tempi = args.seconds_per_tick or list(DEFAULT_TEMPI[g])
            timers = (args.timer_seconds or list(DEFAULT_TIMERS)) if g == "wok_star" else None
            mine = {k: v for k, v in extra.items() if k in known[g]}
            plan.append((g, build_points(g, tempi, timers, args.players, mine)))
        if "frying_master" in games:
            n = dict(plan)["frying_master"][0].get(PLAYERS_OPTION) or _spec("frying_master").defaults()[PLAYERS_OPTION]
            if args.heuristic_seats > n:
                raise ClockError(f"--heuristic-seats {args.heuristic_seats}: Frying Master has {n} players here")
    except ValueError as e:  # ClockError and the envs' ConfigError (both ValueErrors)
        p.error(str(e))
    report = {"command": "python -m envs.clock " + " ".join(sys.argv[1:] if argv is None else argv),
              "games": args.games, "seed": args.seed, "rows": {}, "seconds": {}}
    progress = lambda s: print(s, file=sys.stderr, flush=True)
    for g, points in plan:
        t = time.perf_counter()
        rows = sweep(g, points, args.games, args.seed, args.heuristic_seats, progress)
        report["rows"][g] = rows
        report["seconds"][g] = round(time.perf_counter() - t, 1)
        print(markdown(g, rows) if args.markdown else text_table(g, rows))
        print()
        if args.plot:
            out = plot(g, rows, plot_path(args.plot, g, len(games) > 1))
            progress(f"wrote {out}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        progress(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    from envs.core.inputs import run_main

    raise SystemExit(run_main(main))
