"""The PettingZoo recipe of docs/integrations.md runs as written (the full PettingZoo suite
over every configuration: tests/conformance/)."""

from __future__ import annotations

from tests.integrations.helpers import recipe


def test_recipe_runs_as_written():
    exec(compile(recipe("pettingzoo"), "docs/integrations.md#pettingzoo", "exec"), {"__name__": "pz_recipe"})
