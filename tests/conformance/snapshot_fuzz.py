"""Damaged snapshots: a mutation fuzzer and its oracle, for every game.

``mutants(snapshot, rng, n)`` makes ``n`` damaged copies of an engine snapshot,
each with one change somewhere in it (a number pushed out of range or given the
wrong type, an item dropped or duplicated, a key deleted or added, a container
replaced by the wrong kind). ``try_restore(env, snap)`` hands one to
``env.restore`` and judges the result:

* ``"refused"``: ``SnapshotError`` and the env's game exactly as it was;
* ``"accepted"``: the snapshot loads, round-trips unchanged, and the game plays
  on (random legal steps, every observation inside its space, every reached
  state again a valid snapshot) - a damaged snapshot may still be a legal
  state (a die showing 4 instead of 3);
* anything else raises ``AssertionError`` with the mutation: a crash other
  than ``SnapshotError``, a refused snapshot that changed the env, or an
  accepted one that breaks later. That is a bad snapshot accepted.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Iterator

import numpy as np

from envs.core.errors import SnapshotError


def _paths(node: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(node, dict):
        for k in node:
            yield from _paths(node[k], prefix + (k,))
    elif isinstance(node, list):
        for i, x in enumerate(node):
            yield from _paths(x, prefix + (i,))


def _get(node: Any, path: tuple) -> Any:
    for k in path:
        node = node[k]
    return node


def _set(root: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = _get(root, path[:-1])
    parent[path[-1]] = value
    return root


def _leaf_variants(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v, 0, 1, None, "true", [v]]
    if isinstance(v, int):
        return [v + 1, v - 1, -1, -5, 999, 10 ** 6, 2 ** 70, 1.5, float(v) + 0.5, True, None, str(v), [v]]
    if isinstance(v, float):
        return [float("nan"), float("inf"), -1.0, -1e9, 1e9, True, None, "1.0"]
    if isinstance(v, str):
        return ["bogus", "", 5, None, v + "x"]
    if v is None:
        return [0, -1, "x", [], {}]
    return []


def _container_variants(v: Any, rng: np.random.Generator) -> list[Any]:
    out: list[Any] = []
    if isinstance(v, list):
        out += [[], v + v[:1] if v else [0], v[:-1] if v else [None], {"0": v}, "list"]
        if len(v) >= 2:
            i = int(rng.integers(len(v)))
            j = int(rng.integers(len(v)))
            dup = list(v)
            dup[j] = copy.deepcopy(v[i])
            out.append(dup)  # an item duplicated over another
    elif isinstance(v, dict):
        if v:
            k = list(v)[int(rng.integers(len(v)))]
            out.append({kk: vv for kk, vv in v.items() if kk != k})  # a key deleted
        out += [{**v, "zz_unknown": 1}, list(v.values()), None]
    return out


def mutants(snapshot: dict, rng: np.random.Generator, n: int) -> list[tuple[str, dict]]:
    """``n`` damaged copies of ``snapshot`` (state, tick and rng fields), each described."""
    paths = [p for p in _paths(snapshot) if p and p[0] in ("state", "tick", "rng")]
    out = []
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        path = paths[int(rng.integers(len(paths)))]
        value = _get(snapshot, path)
        variants = _leaf_variants(value) if not isinstance(value, (list, dict)) else _container_variants(value, rng)
        if not variants:
            continue
        new = variants[int(rng.integers(len(variants)))]
        if type(new) is type(value) and new == value:
            continue
        snap = copy.deepcopy(snapshot)
        _set(snap, path, new)
        where = "".join(f"[{k!r}]" if isinstance(k, str) else f"[{k}]" for k in path)
        out.append((f"{where}: {value!r:.40} -> {new!r:.40}", snap))
    return out


def _canon(d: Any) -> str:
    return json.dumps(d, sort_keys=True, allow_nan=True, default=str)


def try_restore(env, snap: dict, what: str, rng: np.random.Generator, steps: int = 12) -> str:
    """``"refused"`` or ``"accepted"`` (see the module doc); AssertionError otherwise."""
    before = env.engine.to_dict()
    agents_before = list(env.agents)
    try:
        env.restore(snap)
    except SnapshotError as e:
        assert str(e), what
        assert env.engine.to_dict() == before and env.agents == agents_before, \
            f"{what}: a refused snapshot changed the env"
        return "refused"
    except Exception as e:  # noqa: BLE001 - the oracle reports it
        raise AssertionError(f"{what}: restore raised {type(e).__name__}: {e} (not SnapshotError)") from e
    try:
        assert _canon(env.engine.to_dict()) == _canon(snap), f"{what}: accepted, but does not round-trip"
        for _ in range(steps):
            if not env.agents:
                break
            joint = {}
            for a in env.agents:
                m = env.engine.action_mask(a)
                legal = np.flatnonzero(m)
                assert legal.size, f"{what}: accepted, then {a} has no legal action"
                joint[a] = int(legal[rng.integers(legal.size)])
            obs, *_ = env.step(joint)
            for a, o in obs.items():
                space = env.observation_space(a)["observation"]
                assert space.contains(o["observation"]), \
                    f"{what}: accepted, then {a}'s observation left its space: {env.encoder.layout.out_of_bounds(o['observation'])}"
            type(env.engine).from_dict(json.loads(json.dumps(env.engine.to_dict())))
    except AssertionError:
        raise
    except SnapshotError as e:
        raise AssertionError(f"{what}: accepted, but a state reached from it is refused: {e}") from e
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what}: accepted, then play crashed: {type(e).__name__}: {e}") from e
    return "accepted"


def fuzz_snapshots(cfg, seed: int, n: int, states: int = 3) -> dict:
    """Damage ``n`` snapshots of each of ``states`` states reached by seeded random play of ``cfg``."""
    env = cfg.parallel_env()
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    counts = {"refused": 0, "accepted": 0}
    stops = [0] + sorted(int(x) for x in rng.integers(1, 80, size=states - 1))  # every game lasts longer
    step = 0
    for stop in stops:
        while step < stop and env.agents:
            joint = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            obs, *_ = env.step(joint)
            step += 1
        if not env.agents:
            break
        base = env.engine.to_dict()
        for what, snap in mutants(base, rng, n):
            counts[try_restore(env, snap, f"{cfg.name} step {step} {what}", rng)] += 1
            env.restore(base)  # back to the undamaged state
            obs = {a: env.observe(a) for a in env.agents}
    return counts
