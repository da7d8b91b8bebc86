"""Repository-level promises: packaging, CI and README agree."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- test-command -->\s*```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert m, "README.md must hold the test command in a block after <!-- test-command -->"
    return m.group(1).strip()


def test_ci_runs_exactly_the_readme_test_command():
    readme_cmd = _readme_test_command().splitlines()[-1].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_lines = [line.strip() for line in ci.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert ci_lines[-1] == readme_cmd, f"CI runs {ci_lines[-1]!r}, README says {readme_cmd!r}"
    assert "torch==2.13.0" in ci and "torch==2.13.0" in _readme_test_command()


def test_ci_runs_the_agilerl_tests_in_their_own_venv_with_the_integrations_required():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- agilerl-test-command -->\s*```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert m, "README.md must hold the AgileRL test command after <!-- agilerl-test-command -->"
    readme_test = m.group(1).strip().splitlines()[-1].split("/bin/python", 1)[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_test in ci and '-e ".[dev,agilerl]"' in ci and '-e ".[dev,agilerl]"' in m.group(1)
    assert "KA_REQUIRE_INTEGRATIONS=1" in ci and "integrations]" in ci and "integrations]" in _readme_test_command()


def test_pyproject_declares_the_promised_packaging():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    proj = meta["project"]
    assert proj["name"] == "kitchen-arena" and proj["requires-python"] == ">=3.10"
    names = lambda deps: {re.split(r"[<>=\[ ]", d)[0].lower() for d in deps}
    assert names(proj["dependencies"]) == {"gymnasium", "pettingzoo", "numpy"}
    train = names(proj["optional-dependencies"]["train"])
    assert {"stable-baselines3", "sb3-contrib", "torch", "tensorboard", "matplotlib", "pyyaml"} <= train
    assert {"tqdm", "rich"} & train
    assert {"pytest", "hypothesis"} <= names(proj["optional-dependencies"]["dev"])
    for dep in proj["dependencies"] + sum(proj["optional-dependencies"].values(), []):
        assert ">=" in dep and "<" not in dep.replace("<=", ""), f"{dep}: use a tested lower bound, no upper cap"


def test_a_license_file_matches_the_declared_license():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = meta["project"]["license"]
    declared = declared["text"] if isinstance(declared, dict) else declared
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert declared == "MIT" and text.startswith("MIT License") and "Permission is hereby granted" in text
