"""The registry: every env, its configurations, machine-readable."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import envs
from envs.__main__ import registry


def test_registry_lists_every_env_with_configurations_covering_player_counts():
    reg = registry()
    assert list(reg["envs"]) == list(envs.ENV_IDS)
    expected_players = {"wok_star_v1": {2, 3, 4}, "frying_master_v1": {2, 3, 4}, "waroong_wars_v1": {3, 4, 5}}
    for env_id, entry in reg["envs"].items():
        players = {c.get("players") for c in entry["configurations"]}
        assert players == expected_players[env_id], env_id
        # every configuration is distinct and constructible
        assert len({json.dumps(c, sort_keys=True) for c in entry["configurations"]}) == len(entry["configurations"])
        assert all(v > 0 for v in entry["max_episode_steps"].values())


def test_registry_command_prints_json():
    out = subprocess.run([sys.executable, "-m", "envs", "--env", "waroong_wars_v1"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert "players" in data["envs"]["waroong_wars_v1"]["options"]


def test_unknown_env_id_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown environment 'chess_v0'"):
        envs.get_env_module("chess_v0")
    with pytest.raises(AttributeError):
        envs.not_a_game_v0  # noqa: B018
