"""A small typed schema for nested YAML configs.

Every key of a training config is declared once, with its default, what is
allowed and what it means. :meth:`Section.resolve` fills defaults and raises
:class:`~envs.core.errors.ConfigError` naming the dotted key for an unknown key
(listing the allowed keys, with a "did you mean" hint) or a bad value (saying
what is allowed). :meth:`Section.markdown` renders the same table for the docs,
so they cannot drift from the code.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from envs.core.errors import ConfigError
from envs.core.inputs import shown

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$")


class Kind:
    """How one value is checked."""

    def check(self, value: Any, path: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def allowed(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def bad(self, value: Any, path: str, extra: str = "") -> ConfigError:
        msg = f"config key {path}: {shown(value)} is not allowed; allowed: {self.allowed()}"
        return ConfigError(msg + (f" ({extra})" if extra else ""))


@dataclass
class Number(Kind):
    integer: bool = False
    low: float | None = None
    high: float | None = None
    allow_none: bool = False
    low_exclusive: bool = False

    def allowed(self) -> str:
        s = "an integer" if self.integer else "a number"
        lo = None if self.low is None else (f"> {self.low}" if self.low_exclusive else f">= {self.low}")
        hi = None if self.high is None else f"<= {self.high}"
        if lo and hi:
            s += f" {lo} and {hi}"
        elif lo or hi:
            s += f" {lo or hi}"
        return s + (" or null" if self.allow_none else "")

    def check(self, value: Any, path: str) -> Any:
        if value is None:
            if self.allow_none:
                return None
            raise self.bad(value, path)
        if isinstance(value, str) and _NUMBER.match(value.strip()):
            value = float(value)  # PyYAML reads 5e4 (no dot) as a string
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self.bad(value, path)
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an integer too large for a float
            finite = False
        if not finite:  # .inf, -.inf, .nan, 1e999
            raise self.bad(value, path, "numbers must be finite")
        if self.integer:
            if isinstance(value, float) and not value.is_integer():
                raise self.bad(value, path)
            value = int(value)
        else:
            value = float(value)
        if self.low is not None and (value < self.low or (self.low_exclusive and value == self.low)):
            raise self.bad(value, path)
        if self.high is not None and value > self.high:
            raise self.bad(value, path)
        return value


@dataclass
class Flag(Kind):
    def allowed(self) -> str:
        return "true or false"

    def check(self, value: Any, path: str) -> Any:
        if isinstance(value, bool):
            return value
        raise self.bad(value, path)


@dataclass
class Text(Kind):
    allow_none: bool = False
    validator: Callable[[str], str | None] | None = None  # returns an error text or None
    description: str = "a string"

    def allowed(self) -> str:
        return self.description + (" or null" if self.allow_none else "")

    def check(self, value: Any, path: str) -> Any:
        if value is None and self.allow_none:
            return None
        if not isinstance(value, str) or not value:
            raise self.bad(value, path)
        if self.validator is not None:
            problem = self.validator(value)
            if problem:
                raise self.bad(value, path, problem)
        return value


@dataclass
class OneOf(Kind):
    choices: tuple

    def allowed(self) -> str:
        return "one of " + ", ".join(_show(c) for c in self.choices)

    def check(self, value: Any, path: str) -> Any:
        for c in self.choices:
            if type(c) is type(value) and c == value:
                return c
        raise self.bad(value, path)


@dataclass
class Either(Kind):
    """The first of several kinds that accepts the value."""

    kinds: tuple[Kind, ...]

    def allowed(self) -> str:
        return " or ".join(k.allowed() for k in self.kinds)

    def check(self, value: Any, path: str) -> Any:
        for k in self.kinds:
            try:
                return k.check(value, path)
            except ConfigError:
                continue
        raise self.bad(value, path)


@dataclass
class ListOf(Kind):
    item: Kind
    min_len: int = 0
    unique: bool = False

    def allowed(self) -> str:
        s = f"a list of ({self.item.allowed()})"
        s += f", at least {self.min_len}" if self.min_len else ""
        return s + (", each once" if self.unique else "")

    def check(self, value: Any, path: str) -> Any:
        if isinstance(value, tuple):
            value = list(value)
        if not isinstance(value, list) or len(value) < self.min_len:
            raise self.bad(value, path)
        out = [self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if self.unique:
            for i, v in enumerate(out):
                if any(type(w) is type(v) and w == v for w in out[:i]):
                    raise ConfigError(f"config key {path}[{i}]: {shown(v)} is listed twice; allowed: each value once")
        return out


@dataclass
class MapOf(Kind):
    """A mapping with free string keys (checked by ``key_check``) and typed values."""

    value: Kind
    key_description: str = "any name"
    key_check: Callable[[str], str | None] | None = None

    def allowed(self) -> str:
        return f"a mapping of {self.key_description} to ({self.value.allowed()})"

    def check(self, value: Any, path: str) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.bad(value, path)
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ConfigError(f"config key {path}: key {shown(k)} must be a string ({self.key_description})")
            if self.key_check is not None:
                problem = self.key_check(k)
                if problem:
                    raise ConfigError(f"config key {path}.{k}: {problem}")
            out[k] = self.value.check(v, f"{path}.{k}")
        return out


@dataclass
class AnyMapping(Kind):
    """A free mapping of JSON-able values (checked elsewhere, e.g. env options)."""

    description: str = "a mapping"

    def allowed(self) -> str:
        return self.description

    def check(self, value: Any, path: str) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise self.bad(value, path)
        return dict(value)


@dataclass
class Key:
    """One key of a section: its kind, default and meaning."""

    kind: Kind | "Section"
    default: Any
    doc: str


@dataclass
class Section:
    """A mapping with a fixed set of keys."""

    name: str
    keys: dict[str, Key] = field(default_factory=dict)
    doc: str = ""

    def defaults(self) -> dict:
        return {k: (v.kind.defaults() if isinstance(v.kind, Section) else _copy(v.default)) for k, v in self.keys.items()}

    def resolve(self, value: Mapping[str, Any] | None, path: str = "") -> dict:
        """Validated copy of ``value`` with every default filled in."""
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            where = path or "the config"
            raise ConfigError(f"config key {where}: expected a mapping with keys {sorted(self.keys)}, got {shown(value)}")
        unknown = [k for k in value if k not in self.keys]
        if unknown:
            k = unknown[0]
            where = f"{path}.{k}" if path else str(k)
            hint = difflib.get_close_matches(str(k), list(self.keys), n=1)
            msg = f"config: unknown key {where!r}"
            if hint:
                msg += f" (did you mean {((path + '.') if path else '') + hint[0]!r}?)"
            allowed = ", ".join(self.keys)
            msg += f"; allowed keys{(' in ' + path) if path else ''}: {allowed}"
            raise ConfigError(msg)
        out = {}
        for k, key in self.keys.items():
            sub = f"{path}.{k}" if path else k
            if isinstance(key.kind, Section):
                out[k] = key.kind.resolve(value.get(k), sub)
            else:
                out[k] = key.kind.check(_copy(value.get(k, key.default)), sub)
        return out

    def rows(self, path: str = ""):
        for k, key in self.keys.items():
            sub = f"{path}.{k}" if path else k
            if isinstance(key.kind, Section):
                yield from key.kind.rows(sub)
            else:
                yield sub, key

    def markdown(self) -> str:
        lines = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
        for sub, key in self.rows():
            doc = key.doc.replace("|", "\\|")
            allowed = key.kind.allowed().replace("|", "\\|")
            lines.append(f"| `{sub}` | `{_show(key.default)}` | {allowed} | {doc} |")
        return "\n".join(lines)


def _show(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)


def _copy(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v
