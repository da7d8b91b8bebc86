"""Checking a snapshot before it is used.

A snapshot (``GameEngine.to_dict()``) may come from anywhere: a file, another
process, a user's editor. Before an engine adopts one, every game checks it
fully (types, ranges, card and component ids, no duplicates, component totals
as the rulebook counts them, phase and turn consistency) with the helpers
below; a bad value raises :class:`~envs.core.errors.SnapshotError` naming the
field (a path such as ``state.hands[2][5]``) and what is allowed.

Every helper returns the value it accepted (as the plain Python type it
names), so a game's ``load_state_dict`` reads like a schema::

    v = Checker("state")
    money = v.int(s["money"], "money", 0, 200)
    dice = v.int_list(s["dice"], "dice", low=1, high=6, length=n)

``bool`` is never accepted where an int is asked for (``True`` is an ``int``
in Python), nor an int where a bool is.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Mapping, Sequence

from envs.core.errors import SnapshotError
from envs.core.inputs import shown


def _show(value: Any) -> str:
    return shown(value, 57)


class Checker:
    """Typed checks of snapshot fields; ``root`` prefixes every field path in messages."""

    def __init__(self, root: str = "state"):
        self.root = root

    def path(self, field: str) -> str:
        return f"{self.root}.{field}" if field else self.root

    def fail(self, field: str, allowed: str, value: Any) -> SnapshotError:
        return SnapshotError(f"snapshot field {self.path(field)}: {allowed}, got {_show(value)}")

    # ------------------------------------------------------------------ scalars
    # Each check first tries the common, well-formed case cheaply (``clone()`` of a planner goes
    # through here); the full check and its message run only when something is wrong.
    def int(self, value: Any, field: str, low: int | None = None, high: int | None = None) -> int:
        """An integer (not a bool) in ``[low, high]``."""
        if type(value) is int and (low is None or value >= low) and (high is None or value <= high):
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise self.fail(field, f"must be an integer{_range(low, high)}", value)
        v = int(value)
        if (low is not None and v < low) or (high is not None and v > high):
            raise self.fail(field, f"must be an integer{_range(low, high)}", value)
        return v

    def float(self, value: Any, field: str, low: float | None = None, high: float | None = None) -> float:
        """A finite number (not a bool) in ``[low, high]``."""
        try:  # (an integer past a float's range, 10**400, is not finite either)
            finite = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise self.fail(field, f"must be a finite number{_range(low, high)}", value)
        v = float(value)
        if (low is not None and v < low) or (high is not None and v > high):
            raise self.fail(field, f"must be a finite number{_range(low, high)}", value)
        return v

    def bool(self, value: Any, field: str) -> bool:
        if value is True or value is False:
            return value
        if not isinstance(value, bool):
            raise self.fail(field, "must be true or false", value)
        return value

    def str(self, value: Any, field: str, choices: Iterable[str] | None = None) -> str:
        if not isinstance(value, str):
            raise self.fail(field, "must be a string" + (f" in {sorted(choices)}" if choices is not None else ""), value)
        if choices is not None and value not in set(choices):
            raise self.fail(field, f"must be one of {sorted(choices)}", value)
        return value

    def choice(self, value: Any, field: str, choices: Sequence[Any]) -> Any:
        """One of ``choices`` exactly (type included: ``1`` is not ``True``)."""
        for c in choices:
            if type(value) is type(c) and value == c:
                return value
        raise self.fail(field, f"must be one of {list(choices)}", value)

    def optional(self, value: Any, field: str, check, *args, **kwargs) -> Any:
        """``None`` or whatever ``check(value, field, ...)`` accepts."""
        return None if value is None else check(value, field, *args, **kwargs)

    # ------------------------------------------------------------------ containers
    def dict(self, value: Any, field: str, keys: Iterable[str] | None = None, optional: Iterable[str] = ()) -> dict:
        """A dict with string keys; with ``keys``, exactly those keys (``optional`` ones may be absent)."""
        if type(value) is dict and keys is not None and not optional and value.keys() == set(keys):
            return dict(value)
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise self.fail(field, "must be an object with string keys", value)
        if keys is not None:
            keys, optional = set(keys), set(optional)
            missing = sorted(keys - optional - set(value))
            extra = sorted(set(value) - keys)
            if missing or extra:
                raise SnapshotError(  # (a listing cut short: 100,000 unknown keys had made a message of a megabyte)
                    f"snapshot field {self.path(field)}: keys must be {sorted(keys)}"
                    + (f"; missing {shown(missing, 300)}" if missing else "")
                    + (f"; unknown {shown(extra, 300)}" if extra else "")
                )
        return dict(value)

    def list(self, value: Any, field: str, length: int | None = None, min_len: int = 0,
             max_len: int | None = None) -> list:
        """A list (a JSON array), of exactly ``length`` items or within ``[min_len, max_len]``."""
        if type(value) is list:
            k = len(value)
            if (length is None or k == length) and k >= min_len and (max_len is None or k <= max_len):
                return list(value)
        if not isinstance(value, (list, tuple)):
            raise self.fail(field, "must be a list", value)
        n = len(value)
        if length is not None and n != length:
            raise self.fail(field, f"must be a list of {length} items", value)
        if n < min_len or (max_len is not None and n > max_len):
            raise self.fail(field, f"must be a list of {min_len}..{max_len if max_len is not None else 'any'} items",
                            value)
        return list(value)

    def int_list(self, value: Any, field: str, low: int | None = None, high: int | None = None,
                 length: int | None = None, min_len: int = 0, max_len: int | None = None,
                 unique: bool = False) -> list[int]:
        if (type(value) is list and (length is None or len(value) == length) and len(value) >= min_len
                and (max_len is None or len(value) <= max_len) and set(map(type, value)) <= _INT
                and (not value or ((low is None or min(value) >= low) and (high is None or max(value) <= high)))
                and (not unique or len(set(value)) == len(value))):
            return list(value)
        items = self.list(value, field, length, min_len, max_len)
        out = [self.int(x, f"{field}[{i}]", low, high) for i, x in enumerate(items)]
        if unique:
            self.unique(out, field)
        return out

    def bool_list(self, value: Any, field: str, length: int | None = None) -> list[bool]:
        if type(value) is list and (length is None or len(value) == length) and set(map(type, value)) <= _BOOL:
            return list(value)
        items = self.list(value, field, length)
        return [self.bool(x, f"{field}[{i}]") for i, x in enumerate(items)]

    def unique(self, items: Sequence[Any], field: str) -> None:
        seen = set()
        for i, x in enumerate(items):
            key = repr(x)
            if key in seen:
                raise self.fail(f"{field}[{i}]", "must not repeat an earlier item", x)
            seen.add(key)

    def total(self, counts: Mapping[Any, int] | Sequence[int], expected: Mapping[Any, int] | Sequence[int],
              field: str, what: str = "components") -> None:
        """Component totals as the rulebook counts them: ``counts`` must equal ``expected``."""
        a = dict(counts) if isinstance(counts, Mapping) else dict(enumerate(counts))
        b = dict(expected) if isinstance(expected, Mapping) else dict(enumerate(expected))
        diff = {k: (a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b) if a.get(k, 0) != b.get(k, 0)}
        if diff:
            shown = ", ".join(f"{k}: {got} (expected {want})" for k, (got, want) in sorted(diff.items(), key=str)[:6])
            raise SnapshotError(f"snapshot field {self.path(field)}: the {what} do not add up to the game's: {shown}")

    def require(self, condition: bool, field: str, allowed: str, value: Any) -> None:
        """A consistency rule between fields: ``allowed`` says what must hold."""
        if not condition:
            raise self.fail(field, allowed, value)


_INT, _BOOL = {int}, {bool}


def _range(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f" in {low}..{high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""
