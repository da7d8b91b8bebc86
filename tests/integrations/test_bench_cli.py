"""``python -m envs.bench.integrations`` runs and reports every library it is asked for."""

from __future__ import annotations

import json

from tests.integrations.helpers import require

require("tianshou")

from envs.bench.integrations.__main__ import main  # noqa: E402


def test_the_integrations_benchmark_reports_a_row_per_env(tmp_path, capsys):
    out = tmp_path / "rows.json"
    assert main(["--steps", "30", "--library", "tianshou", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    import envs

    assert [r["env_id"] for r in rows] == list(envs.ENV_IDS)
    assert all(r["agent_steps_per_s"] > 0 and r["raw_agent_steps_per_s"] > 0 for r in rows)
    assert capsys.readouterr().out.count("agent-steps/s through the wrapper") == len(envs.ENV_IDS)


def test_bad_arguments_are_refused_before_anything_is_measured(tmp_path, capsys, monkeypatch):
    """``--steps 0`` (and negative counts) ended in each library's traceback; a ``--json`` that could
    not be written was found after every row had been measured, and lost them; a library named
    twice was measured twice; a run that measured nothing exited 0."""
    import pytest

    import envs.bench.integrations.tianshou as lib

    measured = []
    monkeypatch.setattr(lib, "measure", lambda env_id, steps: measured.append(env_id) or {})
    for args, says in ((["--steps", "0"], "--steps: 0 is not allowed; allowed: an integer >= 1"),
                       (["--steps", "-5"], "allowed: an integer >= 1"),
                       (["--library", "tianshou", "--library", "tianshou"], "--library tianshou is given twice"),
                       (["--json", str(tmp_path / "no" / "such" / "dir.json")], "does not exist"),
                       (["--json", str(tmp_path)], "is a directory")):
        with pytest.raises(SystemExit) as e:
            main(["--library", "tianshou"] + args)
        assert e.value.code == 2 and says in capsys.readouterr().err
    assert measured == []
    import envs.bench.integrations.__main__ as command

    monkeypatch.setitem(command.IMPORTS, "tianshou", "no_such_module_here")  # as if tianshou were not installed
    assert main(["--library", "tianshou"]) == 2
    assert "nothing measured" in capsys.readouterr().err


def test_a_failed_write_of_the_json_leaves_the_earlier_file_whole(tmp_path):
    """The results were written straight into the target: a full disk, a file-size limit or a kill while
    writing left the earlier results cut short. They are now written beside it and renamed over it."""
    import subprocess
    import sys

    out = tmp_path / "keep.json"
    out.write_text('{"note": "an earlier good run"}\n')
    script = ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024)); "
              "from envs.bench.report import write_json; "
              f"write_json({{'rows': ['x' * 100] * 100}}, {str(out)!r})")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "File too large" in p.stderr
    assert out.read_text() == '{"note": "an earlier good run"}\n'
    assert [f.name for f in tmp_path.iterdir()] == ["keep.json"]  # no temporary file left
    from envs.bench.report import write_json

    write_json({"rows": [1]}, str(out))
    assert json.loads(out.read_text()) == {"rows": [1]}
