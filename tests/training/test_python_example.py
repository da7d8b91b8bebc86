"""docs/training.md, "Using the pieces from Python": the example runs as written, saved as a script.

It is run as ``python my_run.py`` in a fresh process (so its worker processes are spawned from a
script file, which needs the main guard), with only ``STEPS`` and ``GAMES`` made small, torch
offered 4 threads by the environment (the example must set the command line's 1), and its
checkpoint written under a temporary directory (``OUT`` is relative).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[2]

# Records, at the end of the script's own process (not its spawned workers), torch's thread count.
SITECUSTOMIZE = '''
import atexit, os, sys

def _report():
    if sys.argv and sys.argv[0].endswith("my_run.py") and "torch" in sys.modules:
        with open(os.environ["EXAMPLE_REPORT"], "w") as f:
            f.write(str(sys.modules["torch"].get_num_threads()))

atexit.register(_report)
'''


def example_code() -> str:
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    section = text.split("## Using the pieces from Python", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    assert m, "the section has a python block"
    return m.group(1)


def test_the_python_example_runs_as_a_script_at_cli_speed_and_saves_and_evaluates(tmp_path):
    code = example_code()
    env_id = re.search(r'EnvSpec\.resolve\("([^"]+)"', code).group(1)
    assert env_id in envs.ENV_IDS, f"the example names {env_id!r}, not a registered env"
    if env_id not in envs.available_env_ids():
        pytest.skip(f"{env_id} is not present in this checkout")
    small, n = re.subn(r"^STEPS = .*$", "STEPS = 256", code, flags=re.M)
    small, m = re.subn(r"^GAMES = .*$", "GAMES = 20", small, flags=re.M)
    assert n == m == 1, "the example keeps its sizes in STEPS = ... and GAMES = ... lines"
    out_dir = re.search(r'^OUT = "([^"]+)"', code, re.M).group(1)
    assert not Path(out_dir).is_absolute()
    (tmp_path / "my_run.py").write_text(small, encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    report = tmp_path / "threads.txt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "EXAMPLE_REPORT": str(report),
           "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
    r = subprocess.run([sys.executable, "my_run.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert report.read_text() == "1", "the example sets torch's threads as the command line does"
    ckpt = tmp_path / out_dir
    meta = json.loads((ckpt / "metadata.json").read_text())
    assert meta["complete"] and meta["timesteps"] >= 256 and meta["env_id"] == env_id
    assert meta["hyperparameters"]["net_arch"] == meta["policy_kwargs"]["net_arch"]
    label = "checkpoint:" + "/".join(Path(out_dir).parts[-2:])
    assert f"| {label} | vs random | 20 |" in r.stdout and f"| {label} | vs heuristic | 20 |" in r.stdout
