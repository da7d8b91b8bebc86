"""The PettingZoo recipe of docs/integrations.md runs as written (the full PettingZoo suite
over every configuration: tests/conformance/)."""

from __future__ import annotations

import pytest

import envs
from tests.integrations.helpers import recipe


def test_recipe_runs_as_written():
    exec(compile(recipe("pettingzoo"), "docs/integrations.md#pettingzoo", "exec"), {"__name__": "pz_recipe"})


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_the_unmasked_utilities_recipe_runs_as_written(env_id, capsys):
    """PettingZoo's utilities that sample without the mask, with ``illegal_action="noop"`` (and a
    stand-in module for ``max_cycles_test``), for every game (the recipe's import names one);
    with the default ``"raise"`` they fail."""
    from pettingzoo.test import state_test

    from envs.core.errors import IllegalActionError

    code = recipe("pettingzoo-unmasked")
    assert "from envs import frying_master_v1 as m" in code
    exec(compile(code.replace("frying_master_v1", env_id), "docs/integrations.md#pettingzoo-unmasked", "exec"),
         {"__name__": "pz_unmasked_recipe"})
    m = envs.get_env_module(env_id)
    with pytest.raises(IllegalActionError):
        for _ in range(20):  # (a sample is legal now and then)
            state_test(m.env(), m.parallel_env())
