"""Our agent-steps/s over each peer's, against the issue's targets.

Peers are timed before and after our configurations. The denominator is the
faster of the two peer medians (the conservative choice: a peer that sped up
or slowed down while we ran cannot flatter our ratio).
"""

from __future__ import annotations


def peer_rate(before: float | None, after: float | None) -> float:
    """The conservative peer agent-steps/s: the higher of before and after."""
    rates = [r for r in (before, after) if r is not None]
    if not rates:
        raise ValueError("no peer measurement")
    return max(rates)


def drift(before: float | None, after: float | None) -> float | None:
    """Relative change of the peer from before to after (0.05 = 5 % faster after)."""
    if before is None or after is None or before == 0:
        return None
    return after / before - 1.0


def ratio_rows(ours: list[tuple[str, float]], peers: list[dict]) -> list[dict]:
    """``ours``: (configuration name, agent-steps/s); ``peers``: dicts with
    ``name``, ``target``, ``before``, ``after`` (agent-steps/s medians, either
    may be None). One row per configuration with, per peer, the ratio and
    whether it meets the target."""
    rows = []
    for name, rate in ours:
        vs = {}
        for p in peers:
            denom = peer_rate(p.get("before"), p.get("after"))
            ratio = rate / denom
            vs[p["name"]] = {"peer_agent_steps_per_s": denom, "ratio": ratio, "target": p["target"],
                             "met": ratio >= p["target"]}
        rows.append({"configuration": name, "agent_steps_per_s": rate, "vs": vs})
    return rows


def met_counts(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """Per peer: (configurations that meet its target, configurations)."""
    out: dict[str, tuple[int, int]] = {}
    for row in rows:
        for peer, v in row["vs"].items():
            met, total = out.get(peer, (0, 0))
            out[peer] = (met + int(v["met"]), total + 1)
    return out
