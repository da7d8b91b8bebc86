"""Integration tests run the real third-party libraries.

``require("torchrl")`` imports a library or skips the test module when it is
not installed (a user who installed only some extras can still run the
suite). CI sets ``KA_REQUIRE_INTEGRATIONS=1``: then a missing library fails
the test instead of skipping it, so a broken install step cannot hide behind a
green run. ``KA_REQUIRE_INTEGRATIONS`` may also list the libraries that must
be present, comma-separated (the AgileRL run lives in its own venv).
"""

from __future__ import annotations

import importlib
import os

import pytest


#: the pyproject extra that installs each importable library
EXTRAS = {"ray": "rllib", "supersuit": "supersuit", "sb3_contrib": "supersuit", "tianshou": "tianshou",
          "torchrl": "torchrl", "tensordict": "torchrl", "agilerl": "agilerl", "torch": "train",
          "stable_baselines3": "train"}


def _required(name: str) -> bool:
    flag = os.environ.get("KA_REQUIRE_INTEGRATIONS", "").strip()
    if flag in ("", "0"):
        return False
    if flag == "1":
        return name != "agilerl"  # AgileRL pins a tensordict that TorchRL cannot share: its own venv
    return name in {s.strip() for s in flag.split(",")}


def require(name: str):
    """Import ``name`` (a top-level module) or skip; fail instead where it is required."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if _required(name):
            raise AssertionError(f"{name} is required here (KA_REQUIRE_INTEGRATIONS) but does not import: {e}") from e
        extra = EXTRAS.get(name, name)
        pytest.skip(f"{name} not installed (pip install -e '.[{extra}]')", allow_module_level=True)


def recipe(name: str) -> str:
    """The python block right after ``<!-- recipe: name -->`` in ``docs/integrations.md``: the
    recipe a user copies, which the library's test runs as written."""
    import re
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
    marker = f"<!-- recipe: {name} -->"
    m = re.search(re.escape(marker) + r"\s*```python\n(.*?)\n```", path.read_text(encoding="utf-8"), re.S)
    assert m, f"{path.name}: no python block right after {marker}"
    return m.group(1) + "\n"
