"""Markdown tables for stdout and the JSON document of ``--json``."""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from envs.core.inputs import atomic_write_text

SCHEMA = "kitchen-arena-bench/1"


# ---------------------------------------------------------------- formatting
def _num(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def fig(f: dict) -> str:
    """A figure as ``median (min–max)``."""
    return f"{_num(f['median'])} ({_num(f['min'])}–{_num(f['max'])})"


def mib(x: float | None) -> str:
    return "–" if x is None else (f"{x:.3f}" if x < 1 else f"{x:,.1f}")


def row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def table_head(headers: Sequence[str], right: Sequence[bool]) -> str:
    return row(headers) + "\n" + row("---:" if r else "---" for r in right)


def table(headers: Sequence[str], right: Sequence[bool], rows: Iterable[Sequence[Any]]) -> str:
    return "\n".join([table_head(headers, right), *(row(r) for r in rows)])


# ---------------------------------------------------------- per-configuration
MEASURE_HEADERS = ["configuration", "agent-steps/s", "joint steps/s", "episodes/s", "reset ms", "peak MiB", "steps/episode"]
MEASURE_RIGHT = [False, True, True, True, True, True, True]


def measure_head(first: str = "configuration") -> str:
    return table_head([first, *MEASURE_HEADERS[1:]], MEASURE_RIGHT)


def measure_cells(m, label: str | None = None) -> list[str]:
    j = m.to_json()
    return [label or j["name"], fig(j["agent_steps_per_s"]), fig(j["joint_steps_per_s"]), fig(j["episodes_per_s"]),
            fig(j["reset_ms"]), mib(j["peak_memory_mib"]), f"{j['steps_per_episode']:.0f}"]


def measure_row(m, label: str | None = None) -> str:
    return row(measure_cells(m, label))


# ---------------------------------------------------------------------- peers
def peers_table(before: list, after: list) -> str:
    rows = []
    for b, a in zip(before, after):
        rows.append(measure_cells(b, f"{b.name} (before)"))
        rows.append(measure_cells(a, f"{a.name} (after)"))
    return table(["peer", *MEASURE_HEADERS[1:]], MEASURE_RIGHT, rows)


def drift_line(peers_json: list[dict]) -> str:
    parts = []
    for p in peers_json:
        d = p["drift"]
        parts.append(f"{p['name']} {'n/a' if d is None else f'{d:+.1%}'}")
    return "Peer drift, after vs before (agent-steps/s medians): " + ", ".join(parts) + "."


def ratio_table(rows: list[dict], counts: dict[str, tuple[int, int]]) -> str:
    if not rows:
        return "(no configurations)"
    peers = list(rows[0]["vs"])
    headers = ["configuration", "agent-steps/s"]
    for p in peers:
        v = rows[0]["vs"][p]
        headers.append(f"÷ {p} ({_num(v['peer_agent_steps_per_s'])}/s), target ≥ {v['target']:g}x")
    body = []
    for r in rows:
        cells = [r["configuration"], _num(r["agent_steps_per_s"])]
        for p in peers:
            v = r["vs"][p]
            cells.append(f"{v['ratio']:.2f}x {'met' if v['met'] else 'MISSED'}")
        body.append(cells)
    summary = "; ".join(f"{p}: {counts[p][0]}/{counts[p][1]} configurations meet the target" for p in peers)
    return table(headers, [False] + [True] * (len(headers) - 1), body) + "\n\n" + summary + "."


# --------------------------------------------------------------------- vector
def vector_table(rows: list[dict]) -> str:
    body = []
    for r in rows:
        single, batched, loop = r.get("vs_single"), r.get("vs_batched"), r.get("vs_loop")
        body.append([f"{r['env_id']}{_kw(r['kwargs'])}", r["form"], r["num_games"], r["workers"] or "–",
                     r["batched_steps"], fig(r["agent_steps_per_s"]), "–" if single is None else f"{single:.2f}x",
                     "–" if loop is None else f"{loop:.2f}x", "–" if batched is None else f"{batched:.2f}x"])
    return table(["env", "form", "N games", "workers", "batched steps", "agent-steps/s", "vs single env",
                  "vs loop of N envs", "vs BatchedEnv"], [False, False, True, True, True, True, True, True, True], body)


def _kw(kwargs: dict) -> str:
    return "[" + ",".join(f"{k}={v}" for k, v in kwargs.items()) + "]" if kwargs else ""


# -------------------------------------------------------------------- scaling
def cost_table(rows: list[dict]) -> str:
    return table(["env", "players", "configurations", "µs per agent-step", "µs per joint step", "relative"],
                 [False, True, True, True, True, True],
                 [[r["env_id"], r["players"], r["configurations"], f"{r['us_per_agent_step']:.1f}",
                   f"{r['us_per_joint_step']:.1f}", f"{r['relative']:.2f}x"] for r in rows])


def memory_table(rows: list[dict]) -> str:
    many = rows[0]["games"] if rows else 1000
    return table(["configuration", "one env (MiB)", f"{many:,} envs (MiB)", f"per env of {many:,} (MiB)"],
                 [False, True, True, True],
                 [[f"{r['env_id']}{_kw(r['kwargs'])}", mib(r["one_env_mib"]), mib(r["many_envs_mib"]),
                   mib(r["per_env_of_many_mib"])] for r in rows])


# ----------------------------------------------------------------------- JSON
def build_json(*, command: str, machine: dict, settings: dict, configurations: list, peers: dict | None,
               ratios: list | None, vector: list | None, training: list | None, scaling: dict | None) -> dict:
    return {
        "schema": SCHEMA,
        "command": command,
        "machine": machine,
        "settings": settings,
        "configurations": [m.to_json() for m in configurations],
        "peers": peers,
        "ratios": ratios,
        "vector": vector,
        "training": training,
        "scaling": scaling,
    }


def write_json(doc: dict, path: str) -> None:
    """``doc`` as JSON, written whole or not at all (:func:`envs.core.inputs.atomic_write_text`: a
    failed write had left the previous results cut short)."""
    atomic_write_text(path, json.dumps(doc, indent=1, default=_jsonable) + "\n")


def _jsonable(x: Any) -> Any:
    try:
        import numpy as np

        if isinstance(x, np.generic):
            return x.item()
        if isinstance(x, np.ndarray):
            return x.tolist()
    except ImportError:  # pragma: no cover
        pass
    return str(x)
