"""One house plan for every game (docs/ARCHITECTURE.md): the same top-level modules for the same
jobs, and the rules split by rulebook section in ``rules/``, listed in order."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[1]
PLAN = {"__init__.py", "options.py", "cards.py", "actions.py", "engine.py", "legality.py", "public.py",
        "observation.py", "encoding.py", "snapshot.py", "heuristic.py", "determinize.py", "render.py", "text.py",
        "env.py"}
GAMES = [e.rsplit("_v", 1)[0] for e in envs.ENV_IDS]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_exactly_the_plans_modules(game):
    pkg = ROOT / "envs" / game
    modules = {p.name for p in pkg.glob("*.py")}
    assert modules == PLAN, f"{game}: extra {sorted(modules - PLAN)}, missing {sorted(PLAN - modules)}"
    assert (pkg / "data").is_dir() and (pkg / "rules" / "__init__.py").is_file()


@pytest.mark.parametrize("game", GAMES)
def test_rules_list_one_module_per_section_each_quoting_its_heading(game):
    rules = importlib.import_module(f"envs.{game}.rules")
    files = {p.stem for p in (ROOT / "envs" / game / "rules").glob("*.py")} - {"__init__"}
    names = [name for name, _ in rules.SECTIONS]  # (module, rulebook heading), in rulebook order
    assert sorted(names) == sorted(files), f"{game}: SECTIONS {names} vs modules {sorted(files)}"
    rulebook = ROOT.parent / "shared" / "rules" / f"{game}.txt"  # beside the project, where present
    lines = [" ".join(x.split()).lower() for x in rulebook.read_text(encoding="utf-8").splitlines()] \
        if rulebook.is_file() else None
    positions = []
    for name, full in rules.SECTIONS:
        heading = full.split(" (")[0]  # "Setup (Two Players)": the heading, without its qualifier
        doc = ast.get_docstring(ast.parse((ROOT / "envs" / game / "rules" / f"{name}.py").read_text())) or ""
        assert heading.lower() in " ".join(doc.split()).lower(), f"rules/{name}.py's docstring lacks {heading!r}"
        if lines is not None:  # a heading line of the rulebook ("Optional Rules: Player Powers": its last part)
            found = [i for i, x in enumerate(lines) if x in (heading.lower(), heading.split(": ")[-1].lower())]
            assert found, f"{heading!r} is not a heading line of the {game} rulebook"
            positions.append(found[0])
    assert positions == sorted(positions), f"{game}: SECTIONS are not in rulebook order"


def test_the_architecture_doc_lists_the_plan():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for module in PLAN:
        assert f"`{module}`" in text or f"`{module}`," in text, module
