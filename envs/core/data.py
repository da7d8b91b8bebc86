"""Loading card data files shipped inside a game package.

Data files are JSON (``envs/<game>/data/*.json``). Each file carries a
``"reconstructed"`` note saying which parts are not printed in the rulebook.
Loaders check counts against the rulebook with :func:`check_count` and raise
:class:`~envs.core.errors.DataError` on any mismatch.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from envs.core.errors import DataError


def load_json(package: str, name: str) -> Any:
    """Read ``name`` from the ``data`` folder of ``package`` (e.g. ``"envs.wok_star"``)."""
    try:
        text = resources.files(package).joinpath("data", name).read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise DataError(f"{package}: data file data/{name} is missing") from e
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(f"{package}: data/{name} is not valid JSON: {e}") from e


def check_count(what: str, actual: int, expected: int) -> None:
    """Raise DataError unless ``actual == expected`` (a rulebook component count)."""
    if actual != expected:
        raise DataError(f"{what}: found {actual}, the rulebook says {expected}")


def require(condition: bool, message: str) -> None:
    """Raise DataError with ``message`` unless ``condition`` holds."""
    if not condition:
        raise DataError(message)


def require_keys(what: str, record: dict, keys: list[str]) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise DataError(f"{what}: missing field(s) {missing}; has {sorted(record)}")
