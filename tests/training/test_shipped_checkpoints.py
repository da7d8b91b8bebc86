"""Every shipped checkpoint under checkpoints/ loads against its env and plays legal actions.

Loading verifies the metadata, both SHA-256 hashes and that the checkpoint fits
the env as it is now (env id, seats, observation size and layout, number of
actions): a game change that breaks a checkpoint fails here. Each checkpoint
then plays a few seeded games in every seat of an env that raises on an
illegal action. Learning quality is measured by ``python -m training
evaluate`` (checkpoints/README.md), not here.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import envs
from envs.core.play import play_episode
from training.checkpoints import CheckpointWarning, load_actor, read_metadata, trained_env_spec
from training.policies import make_policy

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent for p in (ROOT / "checkpoints").glob("*/*/metadata.json"))
GAMES = 3


def test_every_present_game_ships_a_main_checkpoint():
    games = {EnvGame(eid) for eid in envs.available_env_ids()}
    shipped = {p.parent.name for p in SHIPPED if p.name == "main"}
    assert games <= shipped, f"no checkpoints/<game>/main for {sorted(games - shipped)}"


def EnvGame(env_id: str) -> str:
    base, _, ver = env_id.rpartition("_v")
    return base if base and ver.isdigit() else env_id


@pytest.mark.parametrize("directory", SHIPPED, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED])
def test_shipped_checkpoint_loads_and_plays_only_legal_actions(directory):
    meta = read_metadata(directory)
    assert meta["complete"], "a shipped checkpoint is a finished run"
    assert meta["evaluation"] and meta["evaluation"]["rows"], "a shipped checkpoint carries its evaluation summary"
    spec = trained_env_spec(meta)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)  # trained with this env's options and version
        load_actor(directory, spec)  # hashes and the env's layout
        policy = make_policy(f"checkpoint:{directory}", spec)
    env = spec.make(illegal_action="raise")
    for seed in range(GAMES):
        result = play_episode(env, {a: policy for a in env.possible_agents}, seed=seed)
        assert result.terminated or result.truncated
        assert result.steps > 0
    env.close()
