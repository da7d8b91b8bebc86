"""docs/play.md and docs/language_agents.md: their commands and examples run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def _blocks(doc: str, lang: str) -> list[tuple[str, str]]:
    """(the text before, the body) of every ```lang block of a doc."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return [(text[:m.start()], m.group(1)) for m in re.finditer(rf"```{lang}\n(.*?)```", text, re.S)]


def _commands(doc: str) -> list[str]:
    return [line for _, body in _blocks(doc, "sh") for line in body.splitlines()
            if line.strip() and not line.startswith("#")]


def _run(command: str, timeout: float = 300) -> subprocess.CompletedProcess:
    # ``python`` is this interpreter (its directory first on PATH); stdin is empty (end of input)
    return subprocess.run(["bash", "-c", command], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_the_play_docs_commands_run_as_written():
    commands = _commands("play.md")
    assert sum("python -m training play" in c for c in commands) >= 5
    for c in commands:
        r = _run(c)
        assert "Traceback" not in r.stderr, (c, r.stderr)
        if "yes 0" in c:  # the transcript: a whole game
            assert r.returncode == 0 and "== game over after" in r.stdout, (c, r.stderr)
        else:  # no input: the game stops at the first decision, as the doc says for end of input
            assert r.returncode == 1 and "== input ended (end of input)" in r.stdout, (c, r.stderr)
            assert "Legal actions for" in r.stdout


def test_the_play_docs_transcript_is_what_the_command_prints():
    (command,) = [c for c in _commands("play.md") if "yes 0" in c]
    out = _run(command).stdout.splitlines()
    (_, transcript), = [b for b in _blocks("play.md", "text")]
    head, tail = transcript.rstrip("\n").split("\n...\n")
    assert out[:len(head.splitlines())] == head.splitlines()
    assert out[-len(tail.splitlines()):] == tail.splitlines()
    left_out = sum("to decide" in line for line in out) - 2
    assert f"`...`: {left_out} decisions\nleft out" in (ROOT / "docs" / "play.md").read_text(encoding="utf-8")


def test_the_language_agents_docs_python_examples_run(capsys):
    run = [body for before, body in _blocks("language_agents.md", "python")
           if not before.rstrip().endswith("<!-- not run: needs a model server -->")]
    skipped = len(_blocks("language_agents.md", "python")) - len(run)
    assert len(run) == 1 and skipped == 1
    exec(compile(run[0], "docs/language_agents.md", "exec"), {"__name__": "__doc_snippet__"})
    assert "'ok':" in capsys.readouterr().out


def test_the_language_agents_docs_commands_run():
    commands = _commands("language_agents.md")
    assert len(commands) == 3
    for c in commands:
        r = _run(c)
        assert "Traceback" not in r.stderr, (c, r.stderr)
        if " play " in c:
            assert r.returncode == 1 and "== input ended" in r.stdout, (c, r.stderr)
        else:
            assert r.returncode == 0, (c, r.stderr)
    evaluate = _run(commands[0]).stdout
    assert "| text:training.text_agent:scripted_reply | vs heuristic | 2 |" in evaluate


def test_the_model_client_example_is_valid_python_and_a_reply_function():
    (_, body), = [b for b in _blocks("language_agents.md", "python") if "OpenAI" in b[1]]
    tree = compile(body, "docs/language_agents.md", "exec", flags=0x400)  # ast only: not run
    names = [n.name for n in tree.body if n.__class__.__name__ == "FunctionDef"]
    assert names == ["reply"]
