"""Named observation slices and named action indices.

One table per environment says what every observation entry and every action
index means. The encoders fill observations through it, the adapter builds
the gymnasium spaces from it, the docs are generated from it
(``python -m envs.docs``) and tests look entries up by name, so all of them
agree by construction.

This module is pure numpy: rules engines may import it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np


# --------------------------------------------------------------------------- observation


@dataclass(frozen=True)
class Field:
    """A named slice of a flat observation vector.

    ``shape`` gives the logical shape (``(n_players, 5)`` for example); the
    slice holds ``prod(shape)`` entries in C order. ``low``/``high`` bound every
    entry of the slice.
    """

    name: str
    shape: tuple[int, ...]
    low: float
    high: float
    doc: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


class ObservationLayout:
    """An ordered list of :class:`Field`, giving each one a slice of a vector."""

    def __init__(self, fields: Iterable[Field]):
        self.fields: list[Field] = []
        self.slices: dict[str, slice] = {}
        offset = 0
        for f in fields:
            if f.name in self.slices:
                raise ValueError(f"observation field {f.name!r} declared twice")
            if f.low > f.high:
                raise ValueError(f"observation field {f.name!r}: low > high")
            self.fields.append(f)
            self.slices[f.name] = slice(offset, offset + f.size)
            offset += f.size
        self.size = offset
        self.low = np.empty(self.size, dtype=np.float32)
        self.high = np.empty(self.size, dtype=np.float32)
        for f in self.fields:
            s = self.slices[f.name]
            self.low[s] = f.low
            self.high[s] = f.high
        self._by_name = {f.name: f for f in self.fields}

    def field(self, name: str) -> Field:
        return self._by_name[name]

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def set(self, buf: np.ndarray, name: str, values: Any) -> None:
        """Write ``values`` (scalar or array of the field's shape) into ``buf``."""
        s = self.slices[name]
        arr = np.asarray(values, dtype=np.float32)
        if arr.size not in (1, s.stop - s.start):
            raise ValueError(
                f"observation field {name!r} holds {s.stop - s.start} entries, got {arr.size}"
            )
        buf[s] = arr.reshape(-1) if arr.size > 1 else arr.reshape(())

    def get(self, buf: np.ndarray, name: str) -> np.ndarray:
        """Read a field back in its logical shape."""
        f = self._by_name[name]
        return np.asarray(buf[self.slices[name]]).reshape(f.shape)

    def describe(self, buf: np.ndarray) -> dict[str, np.ndarray]:
        """Every field of ``buf`` by name (for debugging and tests)."""
        return {f.name: self.get(buf, f.name) for f in self.fields}

    def out_of_bounds(self, buf: np.ndarray) -> list[str]:
        """Names of the fields whose entries leave their documented bounds."""
        bad = []
        for f in self.fields:
            v = buf[self.slices[f.name]]
            if np.any(v < f.low) or np.any(v > f.high) or not np.all(np.isfinite(v)):
                bad.append(f.name)
        return bad

    def markdown(self, title: str = "Observation vector") -> str:
        lines = [
            f"{title}: {self.size} float32 entries.",
            "",
            "| slice | field | shape | range | meaning |",
            "|---|---|---|---|---|",
        ]
        for f in self.fields:
            s = self.slices[f.name]
            idx = f"{s.start}" if s.stop - s.start == 1 else f"{s.start}-{s.stop - 1}"
            shape = "x".join(map(str, f.shape)) if f.shape else "1"
            doc = f.doc.replace("|", "\\|")
            lines.append(f"| {idx} | `{f.name}` | {shape} | [{_num(f.low)}, {_num(f.high)}] | {doc} |")
        return "\n".join(lines)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class ActionGroup:
    """A block of consecutive action indices: the cartesian product of params."""

    name: str
    doc: str
    params: tuple[tuple[str, tuple], ...]
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def range(self) -> range:
        return range(self.start, self.stop)


class ActionTable:
    """A flat ``Discrete(n)`` action set made of named, parametrised groups.

    Index 0 is always ``noop``: do nothing this tick. The core relies on it
    (``illegal_action="noop"`` substitutes it), so every game keeps it.

    >>> t = ActionTable()
    >>> g = t.add("serve", "serve the current customer")
    >>> g = t.add("prepare", "prepare an ingredient", ingredient=("pork", "rice"), method=(0, 1))
    >>> t.index("prepare", ingredient="rice", method=1)
    5
    >>> t.decode(5)
    ('prepare', {'ingredient': 'rice', 'method': 1})
    """

    NOOP = 0

    def __init__(self, noop_doc: str = "do nothing this tick"):
        self.groups: list[ActionGroup] = []
        self._by_name: dict[str, ActionGroup] = {}
        self._decoded: list[tuple[str, dict]] = []
        self._index: dict[tuple, int] = {}
        self._names: list[str] = []  # name of every index, built as groups are added
        self.add("noop", noop_doc)

    @property
    def n(self) -> int:
        return len(self._decoded)

    def __len__(self) -> int:
        return self.n

    def add(self, name: str, doc: str, **params: Sequence) -> ActionGroup:
        if name in self._by_name:
            raise ValueError(f"action group {name!r} declared twice")
        items = tuple((k, tuple(v)) for k, v in params.items())
        for k, v in items:
            if len(v) == 0:
                raise ValueError(f"action group {name!r}: parameter {k!r} has no values")
        start = self.n
        keys = [k for k, _ in items]
        for combo in itertools.product(*[v for _, v in items]):
            p = dict(zip(keys, combo))
            self._index[(name, combo)] = len(self._decoded)
            self._decoded.append((name, p))
            self._names.append(name + "(" + ", ".join(f"{k}={v!r}" for k, v in p.items()) + ")" if p else name)
        group = ActionGroup(name, doc, items, start, self.n - start)
        self.groups.append(group)
        self._by_name[name] = group
        return group

    def group(self, name: str) -> ActionGroup:
        return self._by_name[name]

    def index(self, name: str, **params: Any) -> int:
        g = self._by_name[name]
        combo = tuple(params[k] for k, _ in g.params)
        if len(params) != len(g.params):
            extra = set(params) - {k for k, _ in g.params}
            raise KeyError(f"action group {name!r} has no parameter(s) {sorted(extra)}")
        try:
            return self._index[(name, combo)]
        except KeyError:
            raise KeyError(f"action {name}{params} is not in the table") from None

    def decode(self, index: int) -> tuple[str, dict]:
        name, params = self._decoded[index]
        return name, dict(params)

    def group_of(self, index: int) -> ActionGroup:
        return self._by_name[self._decoded[index][0]]

    def name(self, index: int) -> str:
        """A readable name such as ``prepare(ingredient='rice', method=1)``."""
        i = int(index)
        if not 0 <= i < len(self._names):
            return f"<out of range: valid indices are 0..{self.n - 1}>"
        return self._names[i]

    def names(self, indices: Iterable[int]) -> list[str]:
        return [self.name(i) for i in indices]

    def mask(self) -> np.ndarray:
        """A fresh all-zero int8 mask of the table's size."""
        return np.zeros(self.n, dtype=np.int8)

    def markdown(self, full: bool = False) -> str:
        lines = [
            f"Action space: `Discrete({self.n})`.",
            "",
            "| indices | action | parameters (index order: last varies fastest) | meaning |",
            "|---|---|---|---|",
        ]
        for g in self.groups:
            idx = f"{g.start}" if g.size == 1 else f"{g.start}-{g.stop - 1}"
            ps = "; ".join(f"`{k}` in {_fmt_values(v)}" for k, v in g.params) or "-"
            doc = g.doc.replace("|", "\\|")
            lines.append(f"| {idx} | `{g.name}` | {ps} | {doc} |")
        if full:
            lines += ["", "| index | action |", "|---|---|"]
            lines += [f"| {i} | `{self.name(i)}` |" for i in range(self.n)]
        return "\n".join(lines)


def _fmt_values(values: tuple) -> str:
    if len(values) > 8:
        return "{" + ", ".join(map(repr, values[:3])) + f", ... ({len(values)} values) ... , {values[-1]!r}" + "}"
    return "{" + ", ".join(map(repr, values)) + "}"
