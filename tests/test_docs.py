"""The generated tables in README.md and docs/<game>.md match the code."""

from __future__ import annotations

import pytest

import envs
from envs import docs

KEYS = ("options", "sizes", "observation", "state", "actions")


@pytest.mark.parametrize("path_blocks", docs.targets(), ids=lambda pb: pb[0].name)
def test_generated_blocks_are_current(path_blocks):
    path, blocks = path_blocks
    assert path.exists(), f"{path} is missing"
    text = path.read_text(encoding="utf-8")
    for key in blocks:
        assert f"<!-- BEGIN GENERATED: {key} -->" in text, f"{path.name} lacks the generated block {key!r}"
    assert docs.render(text, blocks) == text, f"{path.name} is stale: run `python -m envs.docs`"
    for m in docs._BLOCK.finditer(text):
        if m.group("key") in blocks:
            assert m.group("body").strip(), f"{path.name}: generated block {m.group('key')!r} is empty"


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_game_doc_has_every_block_and_a_rule_table(env_id):
    game = env_id.rsplit("_v", 1)[0]
    text = (docs.ROOT / "docs" / f"{game}.md").read_text(encoding="utf-8")
    for key in KEYS:
        assert f"<!-- BEGIN GENERATED: {key} -->" in text
    assert "## Rules" in text and "## Deviations and reconstructions" in text


def _first_python_block(text: str) -> str:
    import re

    m = re.search(r"```python\n(.*?)```", text, re.S)
    assert m, "no python block"
    return m.group(1)


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_the_game_docs_opening_snippet_runs_as_written(env_id, capsys):
    game = env_id.rsplit("_v", 1)[0]
    code = _first_python_block((docs.ROOT / "docs" / f"{game}.md").read_text(encoding="utf-8"))
    exec(compile(code, f"docs/{game}.md", "exec"), {"__name__": "__doc_snippet__"})


def test_the_readme_quick_start_runs_as_written(capsys):
    text = (docs.ROOT / "README.md").read_text(encoding="utf-8")
    code = _first_python_block(text.split("## Quick start", 1)[1])
    exec(compile(code, "README.md", "exec"), {"__name__": "__doc_snippet__"})


def test_the_readme_env_table_shows_the_true_size_ranges():
    """Independently of the generator: each row's observation and action sizes are the min-max
    over every configuration of that env."""
    import re

    text = (docs.ROOT / "README.md").read_text(encoding="utf-8")
    for env_id in envs.available_env_ids():
        row = re.search(rf"^\| `{env_id}` \|.*\| ([\d-]+) \| ([\d-]+) \|$", text, re.M)
        assert row, f"README lacks a row for {env_id}"
        obs, act = set(), set()
        for cfg in envs.test_configurations(env_id):
            e = cfg.parallel_env()
            obs.add(e.observation_space(e.possible_agents[0])["observation"].shape[0])
            act.add(e.action_space(e.possible_agents[0]).n)
        for cell, values in ((row.group(1), obs), (row.group(2), act)):
            lo, _, hi = cell.partition("-")
            assert (int(lo), int(hi or lo)) == (min(values), max(values)), f"{env_id}: README says {cell}, true {sorted(values)}"


def test_the_docs_command_says_what_it_checked_and_refuses_a_missing_doc(tmp_path, monkeypatch, capsys):
    """``--check`` of an up-to-date tree printed "updated: nothing to change"; a missing doc was
    listed as "updated: ... is missing" with exit 0."""
    assert docs.main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    gone = tmp_path / "gone.md"
    monkeypatch.setattr(docs, "targets", lambda env=None: [(gone, [])])
    for argv in (["--check"], []):
        assert docs.main(argv) == 2
        assert f"error: missing docs (each holds generated blocks): {gone}" in capsys.readouterr().err


def test_every_test_the_docs_name_exists():
    """A rules table or a note that names a test by a name no test has any more (Waroong Wars' draft
    row named a test renamed when a drafter's noop became illegal) points a reader at nothing. Every
    backticked ``test_...`` name in the README, docs/ and checkpoints/README.md is a test."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    defined = set()
    for p in (root / "tests").rglob("*.py"):
        defined |= set(re.findall(r"^\s*def (test_\w+)", p.read_text(encoding="utf-8"), re.M))
    missing = {}
    for doc in [root / "README.md", root / "checkpoints" / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for name in re.findall(r"`(test_\w+)`", doc.read_text(encoding="utf-8")):
            if name not in defined:
                missing.setdefault(doc.name, []).append(name)
    assert not missing, missing


def test_the_performance_doc_counts_the_configurations_the_benchmark_measures():
    """The doc said 102 configurations (v0's count) where the benchmark measures 105."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "performance.md").read_text(encoding="utf-8")
    said = re.search(r"measures every configuration of every env \((\d+)\s+configurations", text)
    assert said and int(said.group(1)) == len(envs.test_configurations())
