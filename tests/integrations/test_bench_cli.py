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
