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


@pytest.mark.parametrize("hash_seed", ["0", "987654321"])
def test_every_trajectory_is_the_same_under_another_string_hash_seed(hash_seed):
    """"The same seed and the same actions give the same trajectory, in any process": a fresh
    interpreter with a fixed ``PYTHONHASHSEED`` (which orders sets of strings differently) plays
    every configuration to its golden digest (each pytest process draws its own hash seed too)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    p = subprocess.run([sys.executable, "-m", "envs.trajectory"], cwd=Path(__file__).resolve().parents[2], env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert f"{len(CONFIGS)}/{len(CONFIGS)} configurations match" in p.stdout
