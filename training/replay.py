"""Replays: one JSON object per game, enough to play it again bit for bit.

A replay records the env (id, version, options), the seed and the joint
action of every tick, plus what the game came to (the outcome, how it ended,
every seat's return and a SHA-256 digest of every observation, mask, reward
and termination flag). :func:`replay` deals the same game again, checks every
recorded action against the mask when its tick comes, and refuses the file
unless the outcome, the ending, the returns and the digest are reproduced
exactly. The format is documented in docs/replays.md.

Recording, in any loop that calls ``env.reset(seed=...)`` / ``env.step(joint)``::

    rec = Recorder(env_spec, seed, {"chef_0": "heuristic", "chef_1": "random"})
    obs, infos = env.reset(seed=seed); rec.on_reset(obs, infos)
    while env.agents:
        result = env.step(joint); rec.on_step(joint, result)
    data = rec.finish(env)            # the replay (a dict); rec.to_json() is its text
    save(path, data)                  # .json: this game; .jsonl: appended as one line

or wrap the env (``record(env, env_spec, seat_labels)``) and read
``.replays``. Reading: :func:`load` / :func:`load_all` (strict: exact keys,
types, the env id in the registry, options valid for the env, and each game
replayed: every action legal, the result reproduced); :func:`iter_replay`
steps through a game tick by tick (``watch --replay``).

Nothing from a file is executed or unpickled: replays are read with
``json.loads`` (no NaN, no duplicate keys) and checked field by field.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

import envs
from envs.core.errors import ConfigError, IllegalActionError, KitchenArenaError
from envs.core.inputs import check_writable, loads_json, printable, shown
from envs.core.tick_env import INTERFACE_OPTIONS

from training.envspec import EnvSpec

FORMAT = "kitchen-arena-replay"
FORMAT_VERSION = 1
#: the keys of a replay, exactly
KEYS = ("format", "format_version", "env_id", "env_version", "options", "seed", "agents", "seats", "actions",
        "outcome", "end", "digest", "package_version")
END_KEYS = ("ticks", "status", "returns")
STATUSES = ("terminated", "truncated", "stopped")
#: env options a replay does not carry: how the env talks, and illegal_action (a replay holds only
#: applied, legal actions and is always replayed with illegal_action="raise")
NOT_RECORDED = tuple(INTERFACE_OPTIONS) + ("illegal_action", "max_cycles")
#: the largest replay file read (bytes)
MAX_FILE_BYTES = 256 * 1024 * 1024


class ReplayError(KitchenArenaError):
    """A replay that cannot be read or does not replay (the message says what and where)."""


def package_version() -> str:
    from training import __version__

    return str(__version__)


def env_version(env_id: str) -> int | None:
    """N of an env id ``<game>_vN`` (None if the id has no version suffix)."""
    base, sep, ver = env_id.rpartition("_v")
    return int(ver) if sep and base and re.fullmatch(r"0|[1-9][0-9]{0,17}", ver) else None


def game_name(env_id: str) -> str:
    return env_id.rsplit("_v", 1)[0]


# ---------------------------------------------------------------------- recording
def _digest_obs(h, agents: Sequence[str], obs: Mapping[str, Any]) -> None:
    for a in agents:
        if a in obs:
            o = obs[a]
            h.update(a.encode())
            h.update(np.ascontiguousarray(o["observation"], dtype=np.float32).tobytes())
            h.update(np.ascontiguousarray(o["action_mask"], dtype=np.int8).tobytes())


def _digest_step(h, agents: Sequence[str], result: tuple) -> None:
    obs, rew, term, trunc, _ = result
    _digest_obs(h, agents, obs)
    for a in agents:
        if a in rew:
            h.update(struct.pack("<d??", float(rew[a]), bool(term[a]), bool(trunc[a])))


def jsonable(x: Any) -> Any:
    """``x`` with numpy scalars as Python numbers and mapping keys as strings (JSON-ready)."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def recorded_options(env_spec: EnvSpec) -> dict[str, Any]:
    """The env options a replay records: every game option, defaults filled in (``max_cycles``,
    PettingZoo's name for ``max_ticks``, as ``max_ticks``: a game cut by it replays cut there)."""
    resolved = env_spec.resolved_options()
    out = {k: jsonable(v) for k, v in resolved.items() if k not in NOT_RECORDED}
    if out.get("max_ticks") is None and resolved.get("max_cycles") is not None:
        out["max_ticks"] = jsonable(resolved["max_cycles"])
    return out


class Recorder:
    """Records one game as it is played (see the module docstring).

    ``seat_labels`` maps every seat to the label of who played it (a policy
    spec's label, ``human``, ...); missing seats are recorded as ``"?"``."""

    def __init__(self, env_spec: EnvSpec, seed: int, seat_labels: Mapping[str, str] | None = None):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ReplayError(f"a replay needs the game's seed, an integer >= 0; got {shown(seed, 60)}")
        self.env_spec = env_spec
        self.seed = int(seed)
        # printable, and short enough for the reader (a label with an escape sequence, a checkpoint
        # path's, had been recorded as it was, and the replay was then refused by watch --replay)
        self.seat_labels = {a: _label_kept(label) for a, label in dict(seat_labels or {}).items()}
        self.seats = list(env_spec.make().possible_agents)
        unknown = [a for a in self.seat_labels if a not in self.seats]
        if unknown:
            raise ReplayError(f"Recorder: seat_labels names {unknown}, not seats of {env_spec.label()}; "
                              f"allowed: {self.seats}")
        self.agents: list[str] | None = None
        self.actions: list[list[int]] = []
        self.returns: dict[str, float] = {}
        self.status = "stopped"
        self._hash = hashlib.sha256()
        self.data: dict | None = None

    def on_reset(self, obs: Mapping[str, Any], infos: Any = None) -> None:
        """After ``env.reset(seed=self.seed)``: ``obs`` as reset returned it."""
        if self.agents is not None:
            raise ReplayError("Recorder.on_reset: this recorder already holds a game; use one Recorder per game")
        if list(obs) != self.seats:
            raise ReplayError(f"Recorder.on_reset: the game's agents {list(obs)} are not the seats of "
                              f"{self.env_spec.label()} ({self.seats}) this recorder was made for; record a game "
                              f"with a Recorder of its own env spec")
        self.agents = list(obs)
        self.returns = dict.fromkeys(self.agents, 0.0)
        _digest_obs(self._hash, self.agents, obs)

    def on_step(self, joint: Mapping[str, Any], result: tuple) -> None:
        """After ``result = env.step(joint)``: records the actions applied (``infos[a]["action"]``,
        which differs from ``joint`` only where ``illegal_action="noop"`` replaced one)."""
        if self.agents is None:
            raise ReplayError("Recorder.on_step before on_reset: call on_reset with the observations of env.reset")
        if self.data is not None:
            raise ReplayError("Recorder.on_step after finish: the game is recorded")
        obs, rew, term, trunc, infos = result
        if sorted(rew) != sorted(self.agents):
            raise ReplayError(f"Recorder.on_step: the step's agents {sorted(rew)} are not the seats "
                              f"{self.agents}; a replay records games in which every seat acts every tick")
        self.actions.append([int(infos[a]["action"]) if "action" in infos.get(a, {}) else int(joint[a])
                             for a in self.agents])
        for a in self.agents:
            self.returns[a] += float(rew[a])
        _digest_step(self._hash, self.agents, result)
        if any(term.values()):
            self.status = "terminated"
        elif any(trunc.values()):
            self.status = "truncated"

    def finish(self, env: Any) -> dict:
        """The replay of the game ``env`` just played (the outcome from ``env.outcome()``);
        a game not over yet is recorded as ``stopped``."""
        if self.agents is None:
            raise ReplayError("Recorder.finish before on_reset: nothing was recorded")
        if self.data is None:
            raw = getattr(env, "unwrapped", env)
            self.data = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "env_id": self.env_spec.env_id,
                "env_version": env_version(self.env_spec.env_id),
                "options": recorded_options(self.env_spec),
                "seed": self.seed,
                "agents": list(self.agents),
                "seats": {a: str(self.seat_labels.get(a, "?")) for a in self.agents},
                "actions": [list(x) for x in self.actions],
                "outcome": jsonable(raw.outcome()),
                "end": {"ticks": len(self.actions), "status": self.status, "returns": dict(self.returns)},
                "digest": self._hash.hexdigest(),
                "package_version": package_version(),
            }
        return self.data

    def to_json(self) -> str:
        if self.data is None:
            raise ReplayError("Recorder.to_json before finish(env)")
        return dumps(self.data)


class RecordingEnv:
    """An env that records every game played on it: ``reset(seed=...)`` starts a
    recording (a seed is required), ``step`` feeds it; a game is finished when it
    ends, at the next ``reset`` or at ``close``/``finish()``. ``.replays``: the
    finished games, in the order played. Everything else is the env's."""

    def __init__(self, env: Any, env_spec: EnvSpec, seat_labels: Mapping[str, str] | None = None):
        self.env = env
        self.env_spec = env_spec
        self.seat_labels = dict(seat_labels or {})
        self.replays: list[dict] = []
        self._rec: Recorder | None = None

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.finish()
        if seed is None or options:
            raise ReplayError("a recorded game starts with reset(seed=S) (an integer seed, no options): "
                              "a replay deals the game again from its seed")
        rec = Recorder(self.env_spec, seed, self.seat_labels)  # its checks before the game is dealt
        obs, infos = self.env.reset(seed=seed)
        self._rec = rec
        self._rec.on_reset(obs, infos)
        return obs, infos

    def step(self, joint):
        result = self.env.step(joint)
        if self._rec is not None:
            self._rec.on_step(joint, result)
            if not self.env.agents:
                self.finish()
        return result

    def finish(self) -> None:
        if self._rec is not None:
            self.replays.append(self._rec.finish(self.env))
            self._rec = None

    def close(self) -> None:
        self.finish()
        self.env.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)


def record(env: Any, env_spec: EnvSpec, seat_labels: Mapping[str, str] | None = None) -> RecordingEnv:
    """``env`` wrapped so that every game played on it is recorded (:class:`RecordingEnv`)."""
    return RecordingEnv(env, env_spec, seat_labels)


# ---------------------------------------------------------------------- writing
def dumps(data: Mapping[str, Any], lines: bool = True) -> str:
    """The JSON text of a replay: with ``lines``, one key per line and one tick per
    line; otherwise one line (a JSON-lines entry)."""
    if not lines:
        return json.dumps(data, separators=(",", ":"), allow_nan=False)
    parts = []
    for k, v in data.items():
        if k == "actions":
            body = ",\n".join("    " + json.dumps(x, separators=(",", ":")) for x in v)
            text = "[\n" + body + "\n  ]" if v else "[]"
        else:
            text = json.dumps(v, allow_nan=False)
        parts.append(f"  {json.dumps(k)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def is_jsonl(path: str | os.PathLike) -> bool:
    return str(path).endswith(".jsonl")


def save(path: str | os.PathLike, data: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> Path:
    """Write one replay to ``path`` (``.json``), or one or more to a JSON-lines file
    (``.jsonl``: one game per line, the file replaced)."""
    p = Path(path)
    games = [data] if isinstance(data, Mapping) else list(data)
    if is_jsonl(p):
        text = "".join(dumps(g, lines=False) + "\n" for g in games)
    elif len(games) == 1:
        text = dumps(games[0])
    else:
        raise ReplayError(f"{p}: {len(games)} games go into a .jsonl file (one per line), not one .json file")
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ReplayError(f"could not write the replay {str(p)!r}: {e.strerror or e}") from e
    return p


class GameSaver:
    """Where ``--save-games TARGET`` puts games: TARGET ending in ``.jsonl`` is one JSON-lines file
    (written anew, one game per line, in the order played); any other TARGET is a directory (created
    if missing, which must be empty) holding one file per game, ``NNNNNN_<env id>_seed<S>.json``
    numbered in the order played. :meth:`check` runs before any game is played and changes nothing:
    the file is emptied (the directory made) when the first game is written, or by :meth:`finish`
    (a command that refused its input after the check had emptied an earlier file)."""

    def __init__(self, target: str | os.PathLike, flag: str = "--save-games"):
        self.target = Path(target)
        self.flag = flag
        self.count = 0
        self.files: list[Path] = []
        self._opened = False

    def check(self) -> "GameSaver":
        t, flag = self.target, self.flag
        if is_jsonl(t):
            if t.is_dir():
                raise ReplayError(f"{flag} {str(t)!r} is a directory; a .jsonl target is a file")
            if not t.parent.is_dir():
                raise ReplayError(f"{flag} {str(t)!r}: the directory {str(t.parent)!r} does not exist")
            try:
                if t.exists():
                    with t.open("a", encoding="utf-8"):  # writable, and left as it is
                        pass
                else:
                    check_writable(t.parent)
            except OSError as e:
                raise ReplayError(f"{flag} {str(t)!r} could not be written: {e.strerror or e}") from e
        else:
            if t.exists() and not t.is_dir():
                raise ReplayError(f"{flag} {str(t)!r} is a file; give a directory (one file per game) "
                                  f"or a name ending in .jsonl (one JSON-lines file)")
            if t.suffix.lower() == ".json":  # (a directory of that name had been made)
                raise ReplayError(f"{flag} {str(t)!r} names a .json file, one game's replay; give a directory (one "
                                  f"file per game) or a name ending in .jsonl (every game in one JSON-lines file)")
            if t.is_dir() and any(t.iterdir()):
                raise ReplayError(f"{flag} {str(t)!r} is not empty; give a new or empty directory")
            if not t.parent.is_dir():
                raise ReplayError(f"{flag} {str(t)!r}: the directory {str(t.parent)!r} does not exist")
            try:
                check_writable(t)
            except OSError as e:
                raise ReplayError(f"{flag} {str(t)!r} could not be written: {e.strerror or e}") from e
        return self

    def _open(self) -> None:
        """Empty the file, or make the directory: once, at the first game (or :meth:`finish`)."""
        if self._opened:
            return
        if is_jsonl(self.target):
            self.target.write_text("", encoding="utf-8")
        else:
            self.target.mkdir(exist_ok=True)
        self._opened = True

    def finish(self) -> None:
        """After the command's games: the target is written anew even if no game was played."""
        try:
            self._open()
        except OSError as e:
            raise ReplayError(f"{self.flag} {str(self.target)!r} could not be written: {e.strerror or e}") from e

    def add(self, data: Mapping[str, Any]) -> None:
        self.count += 1
        try:
            self._open()
            if is_jsonl(self.target):
                with self.target.open("a", encoding="utf-8") as f:
                    f.write(dumps(data, lines=False) + "\n")
                if not self.files:
                    self.files.append(self.target)
            else:
                seed = str(data["seed"])  # (a seed of 300 digits had made a name the system refused)
                seed = seed if len(seed) <= 40 else f"{seed[:20]}-{len(seed)}digits"
                p = self.target / f"{self.count:06d}_{data['env_id']}_seed{seed}.json"
                p.write_text(dumps(data), encoding="utf-8")
                self.files.append(p)
        except OSError as e:
            raise ReplayError(f"{self.flag} {str(self.target)!r}: a game could not be written: "
                              f"{e.strerror or e}") from e

    def summary(self) -> str:
        shown_target = printable(self.target)
        where = f"{shown_target} (JSON lines)" if is_jsonl(self.target) else f"{shown_target}/ (one file per game)"
        return f"saved {self.count} game{'s' if self.count != 1 else ''} to {where}"


# ---------------------------------------------------------------------- reading
def parse(text: str, where: str = "replay") -> Any:
    """JSON text to data, strictly: no NaN/Infinity, no duplicate keys, nothing nested past the
    reader's limits (:func:`envs.core.inputs.loads_json`)."""
    return loads_json(text, where, ReplayError, damaged="; the file is truncated or damaged")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    """A finite JSON number that a float holds (an integer of 310 digits is not one: it had raised
    a bare ``OverflowError``)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _type(x: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "integer", float: "number"}.get(type(x), type(x).__name__)


def _keys(d: Mapping, expected: Sequence[str], where: str) -> None:
    unknown = [k for k in d if k not in expected]
    missing = [k for k in expected if k not in d]
    if unknown or missing:
        parts = ([f"unknown keys {unknown}"] if unknown else []) + ([f"missing keys {missing}"] if missing else [])
        raise ReplayError(f"{where}: {'; '.join(parts)}; the keys are exactly {list(expected)}")


#: what a replay's ``options`` and ``outcome`` may hold: nesting levels, and values in all
#: (the games' own outcomes nest 3 levels and hold a few hundred values)
MAX_VALUE_DEPTH = 16
MAX_VALUE_COUNT = 100_000
#: the longest line of a JSON-lines replay (and the largest ``.json`` replay) parsed: the longest
#: game of the shipped configurations is about 0.3 MB (Wok Star, 4 chefs: 86,096 action entries);
#: a 96 MB line of 12 million ticks had taken 1.46 GB and 35 s before its tick count was refused
MAX_GAME_BYTES = 16 * 1024 * 1024
#: the longest seat label (a policy spec's label)
MAX_LABEL_CHARS = 1000


def _json_problem(x: Any) -> str | None:
    """Why ``x`` is not a plain JSON value a replay may hold (``None``: it is one): a value that
    is not JSON, nesting past :data:`MAX_VALUE_DEPTH`, or more than :data:`MAX_VALUE_COUNT` values.
    Walked without recursion (400 levels had raised a bare ``RecursionError``)."""
    stack = [(x, 1)]
    count = 0
    while stack:
        v, depth = stack.pop()
        count += 1
        if count > MAX_VALUE_COUNT:
            return f"holds more than {MAX_VALUE_COUNT:,} values; allowed: at most {MAX_VALUE_COUNT:,}"
        if v is None or isinstance(v, (str, bool)) or _is_num(v):
            continue
        if isinstance(v, (list, dict)):
            if depth >= MAX_VALUE_DEPTH:
                return f"is nested deeper than {MAX_VALUE_DEPTH} levels; allowed: at most {MAX_VALUE_DEPTH}"
            if isinstance(v, dict):
                if not all(isinstance(k, str) for k in v):
                    return "has a key that is not a string"
                stack.extend((w, depth + 1) for w in v.values())
            else:
                stack.extend((w, depth + 1) for w in v)
            continue
        if isinstance(v, int):
            return "holds an integer beyond a float's range; allowed: numbers of at most about 308 digits"
        if isinstance(v, float):
            return "holds a non-finite number; allowed: finite numbers"
        return f"holds a {_type(v)}, which is not a JSON value"
    return None


def _env_spec_of(d: Mapping, where: str) -> EnvSpec:
    env_id, version = d["env_id"], d["env_version"]
    if env_version(env_id) is None:
        raise ReplayError(f"{where}: env_id {shown(env_id, 80)} is not an env id <game>_vN; registered: {list(envs.ENV_IDS)}")
    if version != env_version(env_id):
        raise ReplayError(f"{where}: env_version {version} does not match env_id {shown(env_id, 80)} "
                          f"(version {env_version(env_id)})")
    if env_id not in envs.ENV_IDS:
        same = [e for e in envs.ENV_IDS if game_name(e) == game_name(env_id)]
        if same:
            raise ReplayError(f"{where}: recorded on {env_id} (env version {version}), but this checkout has "
                              f"{', '.join(f'{e} (env version {env_version(e)})' for e in same)}; a replay plays "
                              f"only on the env version it was recorded on")
        raise ReplayError(f"{where}: unknown env {shown(env_id, 80)}; registered: {list(envs.ENV_IDS)}")
    if env_id not in envs.available_env_ids():
        raise ReplayError(f"{where}: env {env_id!r} is registered but not present in this checkout")
    options = d["options"]
    bad = [k for k in options if k in NOT_RECORDED]
    if bad:
        raise ReplayError(f"{where}: options {bad} are not recorded in a replay (how the env talks, not the game); "
                          f"the replayer sets them")
    try:
        return EnvSpec.resolve(env_id, options)
    except ConfigError as e:
        raise ReplayError(f"{where}: options not valid for {env_id}: {e}") from None


def validate(d: Any, where: str = "replay") -> EnvSpec:
    """Check a replay's structure (exact keys, types, the env and its options,
    the seats and the range of every action); returns the env it plays.
    Legality is checked by :func:`replay`."""
    if not isinstance(d, dict):
        raise ReplayError(f"{where}: a replay is a JSON object, got {_type(d)}")
    if "format" in d and d["format"] != FORMAT:
        raise ReplayError(f"{where}: format is {shown(d['format'], 80)}; allowed: {FORMAT!r}")
    if "format_version" in d and d["format_version"] != FORMAT_VERSION:
        raise ReplayError(f"{where}: format_version {shown(d['format_version'], 40)} is not supported; "
                          f"this reader reads format_version {FORMAT_VERSION}")
    _keys(d, KEYS, where)
    types = {"format": (str, "a string"), "format_version": (_is_int, "an integer"), "env_id": (str, "a string"),
             "env_version": (_is_int, "an integer"), "options": (dict, "an object"), "seed": (_is_int, "an integer"),
             "agents": (list, "an array"), "seats": (dict, "an object"), "actions": (list, "an array"),
             "outcome": (dict, "an object"), "end": (dict, "an object"), "digest": (str, "a string"),
             "package_version": (str, "a string")}
    for k, (t, what) in types.items():
        ok = t(d[k]) if callable(t) and not isinstance(t, type) else isinstance(d[k], t)
        if not ok:
            raise ReplayError(f"{where}: {k} must be {what}, got {_type(d[k])} {shown(d[k], 60)}")
    if d["seed"] < 0:
        raise ReplayError(f"{where}: seed {d['seed']} is negative; allowed: an integer >= 0")
    why = _json_problem(d["options"])
    if why is not None:
        raise ReplayError(f"{where}: options must map option names to JSON values; it {why}")
    spec = _env_spec_of(d, where)
    try:
        env = spec.make()
    except ConfigError as e:  # options each allowed, but not together (the env's own checks)
        raise ReplayError(f"{where}: options not valid for {d['env_id']}: {e}") from None
    seats = list(env.possible_agents)
    if len(d["actions"]) > env.max_ticks:  # (before any tick is read)
        raise ReplayError(f"{where}: {len(d['actions']):,} ticks recorded; a game of {spec.label()} lasts at most "
                          f"{env.max_ticks:,} (max_ticks)")
    if d["agents"] != seats:
        raise ReplayError(f"{where}: agents {shown(d['agents'], 200)} are not the seats of {spec.label()}: {seats}")
    _keys(d["seats"], seats, f"{where}: seats")
    for a, label in d["seats"].items():
        if not isinstance(label, str):
            raise ReplayError(f"{where}: seats[{a!r}] must be a string (who played the seat), got {_type(label)}")
        if len(label) > MAX_LABEL_CHARS or not label.isprintable():  # (shown by watch: an escape sequence in a
            # label had retitled and cleared the terminal, and printed lines of its own)
            raise ReplayError(f"{where}: seats[{a!r}] is {shown(label, 60)}; allowed: printable text of at most "
                              f"{MAX_LABEL_CHARS} characters (no control characters)")
    n = env.action_table.n
    for t, joint in enumerate(d["actions"]):
        if not isinstance(joint, list) or len(joint) != len(seats):
            raise ReplayError(f"{where}: actions[{t}] (tick {t}) must be an array of {len(seats)} action indices, "
                              f"one per seat in agents order {seats}; got {_type(joint)} {shown(joint, 80)}")
        for a, x in zip(seats, joint):
            if not _is_int(x) or not 0 <= x < n:
                raise ReplayError(f"{where}: tick {t}, agent {a}: action {shown(x, 40)} is not an action index; "
                                  f"allowed: integers 0..{n - 1}")
    end = d["end"]
    _keys(end, END_KEYS, f"{where}: end")
    if not _is_int(end["ticks"]) or end["ticks"] != len(d["actions"]):
        raise ReplayError(f"{where}: end.ticks {shown(end['ticks'], 40)} must be the number of recorded ticks "
                          f"({len(d['actions'])})")
    if end["status"] not in STATUSES:
        raise ReplayError(f"{where}: end.status {shown(end['status'], 60)}; allowed: {list(STATUSES)}")
    if not isinstance(end["returns"], dict):
        raise ReplayError(f"{where}: end.returns must be an object {{agent: number}}, got {_type(end['returns'])}")
    _keys(end["returns"], seats, f"{where}: end.returns")
    for a, r in end["returns"].items():
        if not _is_num(r):
            raise ReplayError(f"{where}: end.returns[{a!r}] must be a finite number, got {_type(r)} {shown(r, 40)}")
    why = _json_problem(d["outcome"])
    if why is not None:
        raise ReplayError(f"{where}: outcome must hold JSON values only; it {why}")
    if not re.fullmatch(r"[0-9a-f]{64}", d["digest"]):
        raise ReplayError(f"{where}: digest must be 64 lowercase hex digits (SHA-256), got {shown(d['digest'], 80)}")
    return spec


@dataclass
class Tick:
    """One replayed tick: ``tick`` (0-based index into ``actions``), the joint action,
    and what ``env.step`` returned."""

    tick: int
    joint: dict[str, int]
    result: tuple


@dataclass
class ReplayResult:
    ticks: int
    status: str
    returns: dict[str, float]
    outcome: dict


def iter_replay(d: Mapping, env: Any = None, where: str = "replay",
                on_reset: Callable[[Any], None] | None = None) -> Iterator[Tick]:
    """Play the replay ``d`` (validated here) tick by tick on ``env`` (default: a new env
    of the replay's spec; one given must be of that spec), yielding a :class:`Tick`
    after every step (``on_reset(env)`` is called once the game is dealt). An action that is not legal when its tick comes raises
    :class:`ReplayError` naming the tick, the agent and the legal actions; so does a
    game that ends before its actions do. The result is checked at the end (see
    :func:`replay`); a generator closed early checks nothing more."""
    spec = validate(d, where)
    env = env if env is not None else spec.make(illegal_action="raise")
    raw = getattr(env, "unwrapped", env)
    want = recorded_options(spec)
    have = {k: jsonable(raw.config.get(k)) for k in want}
    if getattr(raw, "metadata", {}).get("name") != spec.raw_cls().metadata["name"] or have != want:
        diff = sorted(k for k in want if have.get(k) != want[k])
        raise ReplayError(f"{where}: the env given to replay on is not the replay's {spec.env_id} with its options "
                          f"(differs in {diff or 'the game'})")
    seats = list(d["agents"])
    h = hashlib.sha256()
    obs, _ = env.reset(seed=d["seed"])
    _digest_obs(h, seats, obs)
    if on_reset is not None:
        on_reset(env)
    returns = dict.fromkeys(seats, 0.0)
    status = "stopped"
    names = raw.action_table
    for t, row in enumerate(d["actions"]):
        if not env.agents:
            raise ReplayError(f"{where}: the game ended after tick {t - 1} ({status}) but the replay has "
                              f"{len(d['actions'])} ticks")
        if sorted(env.agents) != sorted(seats):
            raise ReplayError(f"{where}: tick {t}: the live agents {env.agents} are not all the seats {seats}")
        joint = dict(zip(seats, row))
        for a in seats:
            try:
                raw.engine.check_one(a, joint[a], "raise")
            except IllegalActionError as e:
                legal = names.names(raw.engine.legal_actions(a))
                raise ReplayError(f"{where}: tick {t}, agent {a}: the recorded action {joint[a]} "
                                  f"({names.name(joint[a])}) is not legal now ({e.reason}); legal: {legal}") from None
        result = env.step(joint)
        _digest_step(h, seats, result)
        for a in seats:
            returns[a] += float(result[1][a])
        if any(result[2].values()):
            status = "terminated"
        elif any(result[3].values()):
            status = "truncated"
        yield Tick(t, joint, result)
    _check_end(d, where, status, returns, jsonable(raw.outcome()), h.hexdigest())


def _check_end(d: Mapping, where: str, status: str, returns: dict, outcome: dict, digest: str) -> None:
    end = d["end"]
    norm = parse(json.dumps(outcome, allow_nan=False))
    checks = [("end.status", end["status"], status), ("outcome", d["outcome"], norm),
              ("end.returns", end["returns"], returns), ("digest", d["digest"], digest)]
    for what, recorded, replayed in checks:
        if recorded != replayed or not _same_kinds(recorded, replayed):
            raise ReplayError(f"{where}: the replay does not reproduce the recorded {what}: recorded "
                              f"{shown(recorded, 200)}, replayed {shown(replayed, 200)}")


def _same_kinds(a: Any, b: Any) -> bool:
    """``a`` and ``b`` (equal by ``==``) hold booleans in the same places: ``==`` takes ``false`` for
    ``0`` and ``true`` for ``1``, and a replay's numbers are numbers, its flags flags."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, dict):
        return all(_same_kinds(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return all(_same_kinds(v, w) for v, w in zip(a, b))
    return True


def replay(d: Mapping, env: Any = None, where: str = "replay") -> ReplayResult:
    """Replay ``d`` to its end and check that it reproduces the recorded ending, outcome,
    returns and digest exactly (else :class:`ReplayError`)."""
    for _ in iter_replay(d, env, where):
        pass
    return ReplayResult(len(d["actions"]), d["end"]["status"], dict(d["end"]["returns"]), dict(d["outcome"]))


def _read(path: str | os.PathLike) -> str:
    p = Path(path)
    if not p.is_file():
        why = "is a directory" if p.is_dir() else "is not a regular file" if p.exists() else "no such file"
        if p.is_dir():
            files = sorted(f.name for f in p.iterdir() if f.suffix in (".json", ".jsonl") and f.is_file())
            why += ("; give one of its replay files: " + ", ".join(repr(str(p / f)) for f in files[:3]) +
                    (", ..." if len(files) > 3 else "")) if files else "; give a replay file (.json or .jsonl)"
        raise ReplayError(f"replay {str(p)!r}: {why}")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise ReplayError(f"replay {str(p)!r}: {p.stat().st_size} bytes; the largest replay file read is "
                          f"{MAX_FILE_BYTES} bytes")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ReplayError(f"replay {str(p)!r}: not UTF-8 text; a replay is a JSON file") from None


def _label_kept(label: Any) -> str:
    """A seat's label as a replay keeps it: :func:`envs.core.inputs.printable`, at most
    :data:`MAX_LABEL_CHARS` characters."""
    text = printable(label)
    return text if len(text) <= MAX_LABEL_CHARS else text[:MAX_LABEL_CHARS - 3] + "..."


def _game_text(text: str, where: str) -> str:
    """One game's JSON text, refused before it is parsed if it is longer than any game's replay."""
    if len(text) > MAX_GAME_BYTES:
        raise ReplayError(f"{where}: {len(text):,} characters for one game; the longest game's replay is read up to "
                          f"{MAX_GAME_BYTES:,} characters")
    return text


def _jsonl_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a JSON-lines replay file, one game each (the final newline dropped)."""
    lines = _read(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise ReplayError(f"{path}: the JSON-lines file holds no game")
    return lines


def _jsonl_game(path: str | os.PathLike, lines: list[str], k: int) -> tuple[str, Any]:
    """Game ``k`` (1-based) of a JSON-lines file's ``lines``, parsed: ``(where, data)``."""
    where = f"{path} line {k}"
    line = lines[k - 1]
    if not line.strip():
        raise ReplayError(f"{where}: empty line; a JSON-lines replay file holds one game per line")
    return where, parse(_game_text(line, where), where)


def load_all(path: str | os.PathLike, verify: bool = True) -> list[dict]:
    """Every game of a replay file (``.jsonl``: one per line; otherwise one JSON object),
    each validated and, with ``verify``, replayed (see :func:`replay`)."""
    if is_jsonl(path):
        lines = _jsonl_lines(path)
        games = [_jsonl_game(path, lines, k) for k in range(1, len(lines) + 1)]
    else:
        games = [(str(path), parse(_game_text(_read(path), str(path)), str(path)))]
    for where, g in games:
        if verify:
            replay(g, where=where)
        else:
            validate(g, where)
    return [g for _, g in games]


def load(path: str | os.PathLike, game: int | None = None, verify: bool = True) -> dict:
    """One game of a replay file: the file's only game, or game ``game`` (1-based line of a
    ``.jsonl``); validated and, with ``verify``, replayed."""
    if not is_jsonl(path) or game is None:  # (the whole file: a damaged line is named, whichever it is)
        games = load_all(path, verify=False)
        if len(games) != 1:
            raise ReplayError(f"{path} holds {len(games)} games; choose one with --game K (1..{len(games)})")
        if game is not None and (not _is_int(game) or game != 1):
            raise ReplayError(f"{path}: --game {game!r} is not a game of the file; allowed: 1 "
                              f"(a .json file holds one)")
        d, where = games[0], (f"{path} line 1" if is_jsonl(path) else str(path))
    else:  # only the chosen line is read as JSON: a cut or damaged other line (a kill while saving) is not its
        lines = _jsonl_lines(path)
        if _is_int(game) is False or not 1 <= game <= len(lines):
            raise ReplayError(f"{path}: --game {game!r} is not a game of the file; allowed: 1..{len(lines)}")
        where, d = _jsonl_game(path, lines, game)
    if verify:
        replay(d, where=where)
    else:
        validate(d, where)
    return d
