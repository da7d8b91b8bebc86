"""Seeded, seat-rotated evaluation of a policy with chosen partners or opponents.

One *row* of an evaluation is: a policy (the *focus*), an env configuration,
who fills the other seats, and ``games`` games. Game ``g`` is dealt with seed
``seed + g`` and:

* ``others=None``: the focus plays every seat (a cooperative team of one
  shared policy; for competitive games, a mirror match);
* otherwise the focus plays seat ``(seed + g) mod P`` and ``others`` plays every other
  seat (opponents in competitive games, partners in cooperative ones: the
  cross-play test), so each seat is visited equally often.

Figures (each with a 95% interval): win rate (cooperative: the team won;
competitive: the focus's win share, 1/k when k players share a victory;
Wilson interval), the focus's mean score (the game's own score; cooperative:
the team's), its mean return (sum of env rewards), game length in steps, and
every numeric extra of the game's ``outcome()`` (numbers, booleans as
shares, per-seat mappings averaged over the focus's seats, lists averaged
over their entries). Results depend only on the seeds, not on the number of
worker processes (games are split into contiguous chunks and merged in order).
"""

from __future__ import annotations

import copy
import json
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from contextvars import ContextVar
import math
import multiprocessing as mp
import signal
import warnings
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from envs.core.inputs import checked_games, checked_seed
from envs.core.play import play_episode
from envs.core.policy import Policy
from envs.core.workers import WorkerError, die_with_parent, exit_on_sigterm, exit_status, one_blas_thread

from training.checkpoints import CheckpointError, CheckpointWarning
from training.replay import jsonable as _jsonable
from training.envspec import EnvSpec
from training.policies import ActorPolicy, PolicySpec, make_policy, named_checkpoints, parse_spec
from training.stats import mean_ci, wilson

DEFAULT_GAMES = 200
_RESERVED = ("winners", "scores")


@dataclass
class GameRecord:
    seed: int
    focus_seats: list[str]
    steps: int
    truncated: bool
    returns: dict[str, float]
    outcome: dict[str, Any]
    replay: dict | None = None  # the game's replay (training.replay), when games are being saved


@dataclass
class Row:
    """One evaluated line-up and its figures."""

    env: str
    options: dict
    policy: str
    others: str | None
    games: int
    cooperative: bool
    win_rate: float = float("nan")
    win_ci: tuple[float, float] = (float("nan"), float("nan"))
    score: tuple[float, float, float] = (float("nan"),) * 3
    returns: tuple[float, float, float] = (float("nan"),) * 3
    length: tuple[float, float, float] = (float("nan"),) * 3
    truncated: int = 0
    extras: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    share_extras: list[str] = field(default_factory=list)  # extras that were booleans (shown as %)
    note: str = ""

    @property
    def lineup(self) -> str:
        if self.others is None:
            return "whole team" if self.cooperative else "mirror (all seats)"
        return ("with " if self.cooperative else "vs ") + self.others

    def to_json(self) -> dict:
        d = {
            "env": self.env, "options": self.options, "policy": self.policy, "others": self.others,
            "lineup": self.lineup, "games": self.games, "cooperative": self.cooperative,
            "win_rate": _num(self.win_rate), "win_rate_ci95": [_num(x) for x in self.win_ci],
            "score_mean": _num(self.score[0]), "score_ci95": [_num(x) for x in self.score[1:]],
            "return_mean": _num(self.returns[0]), "return_ci95": [_num(x) for x in self.returns[1:]],
            "length_mean": _num(self.length[0]), "length_ci95": [_num(x) for x in self.length[1:]],
            "truncated_games": self.truncated,
            "extras": {k: {"mean": _num(v[0]), "ci95": [_num(v[1]), _num(v[2])],
                           "kind": "share" if k in self.share_extras else "mean"} for k, v in self.extras.items()},
        }
        if self.note:
            d["note"] = self.note
        return d


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


# ---------------------------------------------------------------------- playing
def _lineup_policies(env_spec: EnvSpec, agents: list[str], focus_seats: list[str], focus: Policy,
                     others_spec: PolicySpec | None, cache: dict) -> dict[str, Policy]:
    """One policy object per seat (scripted policies may keep per-game state)."""
    pols = {}
    for a in agents:
        if a in focus_seats:
            key = ("focus", a)
            if key not in cache:
                cache[key] = _clone(focus)
        else:
            key = ("other", a)
            if key not in cache:
                cache[key] = make_policy(others_spec, env_spec)
        pols[a] = cache[key]
    return pols


def _clone(p: Policy) -> Policy:
    if isinstance(p, ActorPolicy):  # share the network, not the generator
        q = copy.copy(p)
        q.rng = np.random.default_rng(0)
        return q
    return copy.deepcopy(p)


#: sinks of :func:`saving_games` in this context (a thread's own: one thread's block had recorded
#: the games of every other thread's evaluations too)
_GAME_SINKS: ContextVar[tuple[Callable[[list[GameRecord]], None], ...]] = ContextVar("game_sinks", default=())


@contextmanager
def saving_games(sink: Callable[[list[GameRecord]], None]) -> Iterator[None]:
    """Within the block, every game :func:`play_games_parallel` plays (so every
    :func:`evaluate` row and tournament pairing) is recorded: its records carry
    ``replay`` and are handed to ``sink`` in seed order, one call per batch
    (``--save-games``). The block is the calling thread's (a ``contextvars`` context): games that
    other threads play meanwhile are not handed to ``sink``."""
    token = _GAME_SINKS.set(_GAME_SINKS.get() + (sink,))
    try:
        yield
    finally:
        _GAME_SINKS.reset(token)


def play_games(env_spec: EnvSpec, focus_spec: str, others_spec: str | None, seeds: Sequence[int],
               deterministic: bool = True, record: bool = False) -> list[GameRecord]:
    """Play one game per seed in this process (see the module docstring); with
    ``record``, each record carries the game's replay."""
    env = env_spec.make()
    agents = list(env.possible_agents)
    fs = parse_spec(focus_spec)
    if fs.kind == "checkpoint" and not deterministic:
        fs = PolicySpec(fs.kind, fs.path, {**fs.options, "deterministic": False}, fs.text)
    focus = make_policy(fs, env_spec)
    os_ = parse_spec(others_spec) if others_spec is not None else None
    cache: dict = {}
    out = []
    for seed in seeds:
        if os_ is None:
            focus_seats = agents
        else:
            focus_seats = [agents[seed % len(agents)]]
        pols = _lineup_policies(env_spec, agents, focus_seats, focus, os_, cache)
        rec = None
        if record:
            from training.replay import Recorder

            rec = Recorder(env_spec, int(seed), {a: fs.label if a in focus_seats else os_.label for a in agents})
        r = play_episode(env, pols, seed=int(seed), observer=rec)
        out.append(GameRecord(int(seed), list(focus_seats), r.steps, bool(r.truncated), dict(r.returns),
                              _jsonable(r.outcome), None if rec is None else rec.finish(env)))
    env.close()
    return out


def _chunk_worker(args):
    env_spec, focus_spec, others_spec, seeds, deterministic, record = args
    with warnings.catch_warnings():
        # the parent built these policies for this env first and showed their
        # CheckpointWarnings (play_games_parallel); a worker would only repeat them
        warnings.simplefilter("ignore", CheckpointWarning)
        return play_games(env_spec, focus_spec, others_spec, seeds, deterministic, record)


def _pool_worker_start() -> None:
    """An evaluation worker: ends with its parent, and leaves Ctrl-C to it (the terminal's SIGINT
    reaches the whole process group: each worker printed a ``KeyboardInterrupt`` traceback while
    the parent stopped the pool anyway)."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_games_parallel(env_spec: EnvSpec, focus_spec: str, others_spec: str | None, seeds: Sequence[int],
                        workers: int = 0, deterministic: bool = True) -> list[GameRecord]:
    seeds = list(seeds)
    record = bool(_GAME_SINKS.get())
    workers = min(int(workers), max(1, len(seeds) // 20))
    if workers <= 1:
        return _saved(play_games(env_spec, focus_spec, others_spec, seeds, deterministic, record))
    # Build every trained policy here first: a checkpoint that is damaged or
    # cannot play this env fails in this process, before any worker starts,
    # and its CheckpointWarnings are shown here, once, not by every worker.
    for spec in dict.fromkeys(s for s in (focus_spec, others_spec) if s is not None):
        if parse_spec(spec).kind == "checkpoint":
            make_policy(spec, env_spec)
    size = math.ceil(len(seeds) / workers)
    chunks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
    ctx = mp.get_context("spawn")
    # SIGTERM ends the pool with this process (its workers would otherwise play their chunks out,
    # orphaned), and a worker ends when this process does, however it ends. A worker that dies (the
    # OOM killer, a kill) breaks the pool: an error naming it, where multiprocessing.Pool.map waited
    # for its chunk for ever.
    pool = ProcessPoolExecutor(len(chunks), mp_context=ctx, initializer=_pool_worker_start)
    done, procs = False, []
    try:
        with exit_on_sigterm(), one_blas_thread():
            results = pool.map(_chunk_worker, [(env_spec, focus_spec, others_spec, c, deterministic, record)
                                               for c in chunks])
            procs = _pool_processes(pool)  # (started by the submissions; a broken pool forgets them)
            parts = list(results)
        done = True
    except BrokenProcessPool:
        ends = (exit_status(p, 0.5) for p in procs)
        codes = sorted({st for st in ends if st not in ("still running", "exit code 0")})
        raise WorkerError(f"an evaluation worker process died before it finished its games"
                          f"{' (' + ', '.join(codes) + ')' if codes else ''}; nothing of this evaluation is kept",
                          label="evaluation worker", died=True) from None
    finally:
        if not done:  # (an error or Ctrl-C here: the other workers' chunks are not waited for)
            for p in procs or _pool_processes(pool):
                if p.is_alive():
                    p.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
    return _saved([g for part in parts for g in part])


def _pool_processes(pool: ProcessPoolExecutor) -> list:
    """The pool's worker processes (``ProcessPoolExecutor._processes``: what it offers no other way)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _saved(records: list[GameRecord]) -> list[GameRecord]:
    """``records`` (in seed order) handed to the sinks of :func:`saving_games`."""
    for sink in _GAME_SINKS.get():
        sink(records)
    return records


def checkpoint_fit_error(specs: Sequence[str | None], env_spec: EnvSpec) -> str | None:
    """Why one of the checkpoints among ``specs`` cannot play ``env_spec``
    (other seats, observation or actions; or a soft difference refused by
    ``strict=true``), as the whole message; None if each of them fits. A
    damaged or missing checkpoint raises its CheckpointError: that is not a
    misfit of one env configuration."""
    from training.checkpoints import check_env, read_metadata, verify_file

    for s in specs:
        for ps in ([] if s is None else named_checkpoints(s)):  # (a planner's rollout=checkpoint:DIR, ...)
            meta = verify_file(ps.path, read_metadata(ps.path))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", CheckpointWarning)  # only the refusal matters here
                    check_env(meta, env_spec, f"checkpoint {ps.path!r}", ps.options.get("strict", False))
            except CheckpointError as e:
                return str(e)
    return None


def outcome_extras(env_spec: EnvSpec, seed: int = 0) -> list[str]:
    """The extras an evaluation of ``env_spec`` reports (the numeric keys of
    ``outcome()``, as :func:`summarize` names them), from one random game."""
    return list(_extras_of(play_games(env_spec, "random", None, [int(seed)])[0]))




# ---------------------------------------------------------------------- figures
def _win_value(g: GameRecord, cooperative: bool) -> float:
    winners = list(g.outcome.get("winners", []))
    if cooperative:
        return 1.0 if winners else 0.0
    if not winners:
        return 0.0
    return sum(1.0 for a in g.focus_seats if a in winners) / len(winners)


def _extras_of(g: GameRecord, shares: set | None = None) -> dict[str, float]:
    """Numeric extras of one game's outcome, flattened to one number per key
    (boolean keys are added to ``shares``)."""
    out: dict[str, float] = {}
    for k, v in g.outcome.items():
        if k in _RESERVED:
            continue
        if isinstance(v, bool):
            out[k] = float(v)
            if shares is not None:
                shares.add(k)
        elif isinstance(v, Real):
            out[k] = float(v)
        elif isinstance(v, dict) and v and all(isinstance(x, Real) for x in v.values()):
            seats = [a for a in g.focus_seats if a in v]
            if seats:  # per-seat figure: the focus's seats
                out[k] = float(np.mean([float(v[a]) for a in seats]))
            else:
                out[k] = float(np.mean([float(x) for x in v.values()]))
        elif isinstance(v, list) and v and all(isinstance(x, Real) and not isinstance(x, bool) for x in v):
            out[f"{k} (mean per entry)"] = float(np.mean([float(x) for x in v]))
    return out


def summarize(env_spec: EnvSpec, policy_label: str, others_label: str | None, games: list[GameRecord],
              cooperative: bool) -> Row:
    row = Row(env_spec.env_id, dict(env_spec.options), policy_label, others_label, len(games), cooperative)
    wins = [_win_value(g, cooperative) for g in games]
    if others_label is not None or cooperative:  # a competitive mirror wins every game by construction: n/a
        row.win_rate = float(np.mean(wins)) if wins else float("nan")
        row.win_ci = wilson(sum(wins), len(wins))
    scores = []
    for g in games:
        sc = g.outcome.get("scores", {})
        seats = list(sc) if cooperative and others_label is None else g.focus_seats
        vals = [float(sc[a]) for a in seats if a in sc]
        if vals:
            scores.append(float(np.mean(vals)))
    row.score = mean_ci(scores)
    row.returns = mean_ci([float(np.mean([g.returns[a] for a in g.focus_seats])) for g in games])
    row.length = mean_ci([g.steps for g in games])
    row.truncated = sum(g.truncated for g in games)
    per_key: dict[str, list[float]] = {}
    shares: set = set()
    for g in games:
        for k, v in _extras_of(g, shares).items():
            per_key.setdefault(k, []).append(v)
    row.extras = {}
    for k, v in per_key.items():
        if len(v) != len(games):
            continue
        if k in shares:
            lo, hi = wilson(sum(v), len(v))
            row.extras[k] = (float(np.mean(v)), lo, hi)
            row.share_extras.append(k)
        else:
            row.extras[k] = mean_ci(v)
    return row


def evaluate(env_spec: EnvSpec, policy: str, others: str | None = None, games: int = DEFAULT_GAMES,
             seed: int = 0, workers: int = 0, deterministic: bool = True) -> Row:
    """One row: ``policy`` (a spec) with/against ``others`` (a spec, or None: ``policy`` in every
    seat, the whole team of a cooperative game or a competitive game's mirror, whose win rate
    is n/a: the policy wins every game by construction)."""
    games, seed = checked_games(games), checked_seed(seed)
    cooperative = env_spec.kind == "cooperative"
    recs = play_games_parallel(env_spec, policy, others, range(seed, seed + games), workers, deterministic)
    return summarize(env_spec, parse_spec(policy).label, None if others is None else parse_spec(others).label,
                     recs, cooperative)


def unavailable_row(env_spec: EnvSpec, policy: str, others: str | None, games: int, note: str) -> Row:
    return Row(env_spec.env_id, dict(env_spec.options), parse_spec(policy).label,
               None if others is None else parse_spec(others).label, 0, env_spec.kind == "cooperative", note=note)


# ---------------------------------------------------------------------- output
def _pct(p: float, ci: tuple[float, float]) -> str:
    if math.isnan(p):
        return "n/a"
    return f"{p:.1%} ({ci[0]:.1%}-{ci[1]:.1%})"


def _mci(m: tuple[float, float, float]) -> str:
    if math.isnan(m[0]):
        return "n/a"
    if math.isnan(m[1]):  # one game: a mean and no interval
        return f"{m[0]:.3g} (one game)"
    half = (m[2] - m[1]) / 2
    return f"{m[0]:.3g} ± {half:.2g}"


def _fmt_extra(r: Row, k: str) -> str:
    if k not in r.extras:
        return ""
    m = r.extras[k]
    return _pct(m[0], (m[1], m[2])) if k in r.share_extras else _mci(m)


def markdown_table(rows: Sequence[Row], extras: Sequence[str] | None = None) -> str:
    """The evaluation table (markdown); outcome extras get one column each
    (``extras``: only these, in this order; None or empty: all of them)."""
    extra_keys: list[str] = []
    for r in rows:
        for k in r.extras:
            if k not in extra_keys:
                extra_keys.append(k)
    if extras:
        extra_keys = [k for k in extras if k in extra_keys]
    show_options = len({json.dumps(r.options, sort_keys=True) for r in rows}) > 1 or any(r.options for r in rows)
    head = (["env options"] if show_options else []) + ["policy", "line-up", "games", "win rate (95% CI)",
                                                       "score", "return", "length"] + extra_keys
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        opts = ", ".join(f"{k}={v}" for k, v in r.options.items()) or "defaults"
        if r.note:
            cells = ([opts] if show_options else []) + [r.policy, r.lineup, "0", r.note] + [""] * (3 + len(extra_keys))
        else:
            cells = ([opts] if show_options else []) + [
                r.policy, r.lineup, str(r.games), _pct(r.win_rate, r.win_ci), _mci(r.score), _mci(r.returns),
                _mci(r.length)] + [_fmt_extra(r, k) for k in extra_keys]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def summary_json(rows: Sequence[Row]) -> dict:
    return {"rows": [r.to_json() for r in rows]}


def crossplay_markdown(rows: Sequence[Row], policies: Sequence[str], partners: Sequence[str]) -> str:
    """The cross-play matrix of a cooperative game: one line per policy (the chef evaluated), one
    column per partner (who fills the other seats), each cell that team's win rate with its 95%
    interval; ``rows`` are :func:`evaluate`'s rows of every (policy, partner) pair."""
    cell = {(r.policy, r.others): r for r in rows}
    labels = {p: parse_policy_label(p) for p in list(policies) + list(partners)}
    head = "| chef \\ partner | " + " | ".join(labels[q] for q in partners) + " |"
    lines = [head, "|---|" + "---|" * len(partners)]
    for p in policies:
        cells = []
        for q in partners:
            r = cell.get((labels[p], labels[q]))
            cells.append("" if r is None else _pct(r.win_rate, r.win_ci))
        lines.append(f"| {labels[p]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_policy_label(spec: str) -> str:
    """The label a row carries for ``spec`` (as :func:`evaluate` writes it)."""
    from training.policies import parse_spec

    return parse_spec(spec).label
