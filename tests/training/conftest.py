"""Fixtures of the training tests.

``toy_registry`` installs the test-only toy envs (``toy_v0``: competitive,
``toy_coop_v0``: cooperative) as registered, present envs for one test.
``toy_checkpoint`` / ``coop_checkpoint`` train a tiny model once per session
(the registry is patched only while training) and return its directory.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import pytest

import envs
from tests.training import toy_coop_v0, toy_v0

TOYS = {"toy_v0": toy_v0, "toy_coop_v0": toy_coop_v0}


@contextmanager
def registered_toys():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(envs, "ENV_IDS", tuple(envs.ENV_IDS) + tuple(TOYS))
        for name, module in TOYS.items():
            mp.setitem(sys.modules, f"envs.{name}", module)
        yield TOYS


@pytest.fixture
def toy_registry():
    """``envs.toy_v0`` and ``envs.toy_coop_v0`` become registered, present envs."""
    with registered_toys() as toys:
        yield toys


def toy_config(tmp, env_id="toy_v0", **sections) -> dict:
    """A raw config dict for a tiny, fast run writing under ``tmp``."""
    raw = {
        "name": "tiny",
        "env": {"id": env_id, "options": {"players": 2}},
        "algorithm": {"n_steps": 32, "batch_size": 64, "n_epochs": 2, "net_arch": [16, 16]},
        "training": {"total_timesteps": 1024, "env_copies": 4, "workers": 1, "progress_bar": False, "seed": 3},
        "self_play": {"snapshot_every": 256, "pool_size": 3},
        "evaluation": {"games": 12, "workers": 1},
        "output": {"checkpoints": str(tmp / "checkpoints"), "runs": str(tmp / "runs")},
    }
    for k, v in sections.items():
        if isinstance(v, dict) and isinstance(raw.get(k), dict):
            raw[k] = {**raw[k], **v}
        else:
            raw[k] = v
    return raw


def _train_once(tmp, env_id):
    from training.config import load_config
    from training.trainer import train

    with registered_toys():
        res = train(load_config(raw=toy_config(tmp, env_id)), log=lambda s: None)
    return res.checkpoint_dir


@pytest.fixture(scope="session")
def toy_checkpoint(tmp_path_factory):
    return _train_once(tmp_path_factory.mktemp("toyck"), "toy_v0")


@pytest.fixture(scope="session")
def coop_checkpoint(tmp_path_factory):
    return _train_once(tmp_path_factory.mktemp("coopck"), "toy_coop_v0")
