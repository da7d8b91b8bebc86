"""Validated constructor options.

Every environment declares its keyword options as a :class:`ConfigSpec`.
``ConfigSpec.resolve(kwargs)`` fills defaults and raises :class:`ConfigError`
for an unknown keyword (listing every allowed keyword) or a bad value (listing
what is allowed for that keyword). The same table renders the options section
of the docs, so the docs cannot drift from the code.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from envs.core.errors import ConfigError
from envs.core.inputs import shown

_MISSING = object()


class FrozenConfig(Mapping):
    """A read-only mapping of resolved options that pickles and deep-copies
    (``types.MappingProxyType`` does neither, which made whole envs unpicklable)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a resolved config is read-only")

    def __reduce__(self):
        return (FrozenConfig, (self._data,))

    def __repr__(self) -> str:
        return f"FrozenConfig({self._data!r})"


@dataclass(frozen=True)
class Option:
    """One keyword option.

    Exactly one way of checking applies: ``choices`` (a finite set of allowed
    values), or ``kind`` ("int", "float", "bool", "str") with optional
    ``low``/``high`` bounds (inclusive). ``allow_none`` accepts ``None`` too.
    """

    name: str
    default: Any
    doc: str
    choices: tuple | None = None
    kind: str | None = None
    low: float | None = None
    high: float | None = None
    allow_none: bool = False

    def allowed_text(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        parts = {"int": "an integer", "float": "a number", "bool": "True or False", "str": "a string"}.get(
            self.kind or "", "any value"
        )
        if self.low is not None and self.high is not None:
            parts += f" in [{self.low}, {self.high}]"
        elif self.low is not None:
            parts += f" >= {self.low}"
        elif self.high is not None:
            parts += f" <= {self.high}"
        if self.allow_none:
            parts += " or None"
        return parts

    def check(self, value: Any, owner: str) -> Any:
        """Return the (normalised) value or raise ConfigError."""

        def bad() -> ConfigError:
            return ConfigError(
                f"{owner}: option {self.name}={shown(value)} is not allowed; allowed: {self.allowed_text()}"
            )

        if value is None:
            if self.allow_none or (self.choices is not None and None in self.choices):
                return None
            raise bad()
        if isinstance(value, np.bool_):  # numpy's bool and str read as Python's (as numpy ints read as int)
            value = bool(value)
        elif isinstance(value, str) and type(value) is not str:
            value = str(value)
        if self.choices is not None:
            for c in self.choices:
                if type(c) is type(value) and c == value:
                    return c
                if isinstance(c, numbers.Integral) and not isinstance(c, bool) and isinstance(
                    value, numbers.Integral
                ) and not isinstance(value, bool) and int(value) == c:
                    return c
            raise bad()
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise bad()
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise bad()
            value = int(value)
        elif self.kind == "float":
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise bad()
            try:
                value = float(value)
            except OverflowError:  # an integer past a float's range (10**400): named, not a bare OverflowError
                raise bad() from None
            if value != value:  # NaN
                raise bad()
        elif self.kind == "str":
            if not isinstance(value, str):
                raise bad()
        if self.low is not None and value < self.low:
            raise bad()
        if self.high is not None and value > self.high:
            raise bad()
        return value


class ConfigSpec:
    """An ordered set of :class:`Option` for one environment."""

    def __init__(self, owner: str, options: Iterable[Option]):
        self.owner = owner
        self.options: dict[str, Option] = {}
        for opt in options:
            if opt.name in self.options:
                raise ValueError(f"{owner}: option {opt.name!r} declared twice")
            self.options[opt.name] = opt

    def __add__(self, other: "ConfigSpec") -> "ConfigSpec":
        return ConfigSpec(self.owner, list(self.options.values()) + list(other.options.values()))

    def names(self) -> list[str]:
        return list(self.options)

    def defaults(self) -> dict[str, Any]:
        return {k: o.default for k, o in self.options.items()}

    def resolve(self, kwargs: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """Validate ``kwargs`` and return a read-only mapping with every option."""
        kwargs = dict(kwargs or {})
        unknown = [k for k in kwargs if k not in self.options]
        if unknown:
            allowed = "; ".join(f"{o.name} ({o.allowed_text()})" for o in self.options.values())
            raise ConfigError(
                f"{self.owner}: unknown option(s) {', '.join(map(repr, unknown))}; allowed options: {allowed}"
            )
        out = {}
        for name, opt in self.options.items():
            value = kwargs.get(name, opt.default)
            out[name] = opt.check(value, self.owner)
        return FrozenConfig(out)

    def markdown(self) -> str:
        lines = ["| option | default | allowed | meaning |", "|---|---|---|---|"]
        for o in self.options.values():
            doc = o.doc.replace("|", "\\|")
            lines.append(f"| `{o.name}` | `{o.default!r}` | {o.allowed_text()} | {doc} |")
        return "\n".join(lines)


#: The option of every real-time game (one step stands for this much table time): the env's and its
#: rules engine's (``GameEngine.OPTIONS``).
REALTIME_OPTIONS = ConfigSpec(
    "core",
    [Option("seconds_per_tick", 1.0, "seconds of table time one step stands for", kind="float", low=0.25, high=10.0)],
)


def engine_options(owner: str, game_options: ConfigSpec, realtime: bool, not_rules: Iterable[str] = ()) -> ConfigSpec:
    """The options a game's rules engine is configured with: the game's own options but ``not_rules``
    (the observation's or the rendering's only), and ``seconds_per_tick`` for a real-time game."""
    skip = set(not_rules)
    spec = ConfigSpec(owner, [o for o in game_options.options.values() if o.name not in skip])
    return spec + REALTIME_OPTIONS if realtime else spec


def differing_options(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The option names whose values differ between two configurations (one missing counts as
    differing), sorted: what a refusal of a mismatched config names."""
    return sorted(k for k in set(a) | set(b) if a.get(k, _MISSING) != b.get(k, _MISSING))
