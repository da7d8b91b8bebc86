"""Seeded random play reproduces the recorded trajectories bit for bit.

The digests in tests/golden_trajectories.json were recorded before the speed
work; an optimisation that changes any observation, mask, reward or applied
action of any configuration fails here. Regenerate (``python -m
envs.trajectory --update``) only with a deliberate, documented rule change.
"""

import json

import pytest

import envs
from envs.trajectory import GOLDEN_PATH, digest

GOLDEN = json.loads(GOLDEN_PATH.read_text())
CONFIGS = envs.test_configurations()


def test_every_configuration_has_a_golden_digest():
    assert sorted(c.name for c in CONFIGS) == sorted(GOLDEN)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
def test_trajectory_matches_golden(cfg):
    assert digest(cfg) == GOLDEN[cfg.name], f"{cfg.name}: seeded random play no longer reproduces the recorded trajectory"
