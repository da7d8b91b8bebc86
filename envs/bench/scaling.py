"""``--scaling``: how cost per step grows with the number of players, and
what one game and 1,000 games at once hold in memory."""

from __future__ import annotations

from collections import defaultdict

from envs.bench.memory import footprint_mib
from envs.bench.stats import median


def cost_by_players(measurements) -> list[dict]:
    """Per env and player count, over the measured configurations with that
    count: the median of their median microseconds per agent-step and per
    joint step, and ``relative``: µs per agent-step over that of the env's
    smallest measured player count."""
    groups: dict[tuple[str, int], list] = defaultdict(list)
    for m in measurements:
        d = m.driver
        if d.env_id is not None and d.players is not None:
            groups[(d.env_id, d.players)].append(m)
    order = {e: i for i, e in enumerate(dict.fromkeys(k[0] for k in groups))}
    rows = []
    for (env_id, players), ms in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        rows.append({
            "env_id": env_id,
            "players": players,
            "configurations": len(ms),
            "us_per_agent_step": median([1e6 / m.median("agent_steps_per_s") for m in ms]),
            "us_per_joint_step": median([1e6 / m.median("joint_steps_per_s") for m in ms]),
        })
    base: dict[str, float] = {}
    for r in rows:
        base.setdefault(r["env_id"], r["us_per_agent_step"])
        r["relative"] = r["us_per_agent_step"] / base[r["env_id"]]
    return rows


def memory_rows(configs, many: int = 1000, seed: int = 0) -> list[dict]:
    """Per configuration: MiB of one env after reset, and of ``many`` envs reset at once."""
    rows = []
    for cfg in configs:
        one = footprint_mib(cfg, 1, seed)
        lots = footprint_mib(cfg, many, seed)
        rows.append({"env_id": cfg.env_id, "kwargs": dict(cfg.kwargs), "one_env_mib": one,
                     "games": many, "many_envs_mib": lots, "per_env_of_many_mib": lots / many})
    return rows
