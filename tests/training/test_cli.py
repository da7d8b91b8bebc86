"""``python -m training``: evaluate, tournament, watch, train, list, schema; evaluation figures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import envs
from tests.training.conftest import toy_config
from training.cli import main
from training.config import load_config
from training.envspec import EnvSpec
from training.evaluation import evaluate, markdown_table
from training.stats import bradley_terry_elo, mean_ci, wilson
from training.trainer import plan_run

ROOT = Path(__file__).resolve().parents[2]


def test_evaluation_is_deterministic_for_a_seed_and_independent_of_workers(toy_checkpoint, toy_registry):
    spec = EnvSpec.resolve("toy_v0", {"players": 2})
    pol = f"checkpoint:{toy_checkpoint}?deterministic=false"
    a = evaluate(spec, pol, "random", games=40, seed=3)
    b = evaluate(spec, pol, "random", games=40, seed=3)
    c = evaluate(spec, pol, "random", games=40, seed=3, workers=2)
    assert a.to_json() == b.to_json() == c.to_json()
    d = evaluate(spec, pol, "random", games=40, seed=50)
    assert d.to_json() != a.to_json()


def test_evaluation_rotates_seats_and_counts_shared_wins(toy_registry):
    from training.evaluation import play_games

    spec = EnvSpec.resolve("toy_v0", {"players": 3})
    games = play_games(spec, "heuristic", "random", range(9))
    assert [g.focus_seats[0] for g in games] == ["p0", "p1", "p2"] * 3
    row = evaluate(spec, "heuristic", "random", games=60)
    expected = sum(1 / len(g.outcome["winners"]) for g in play_games(spec, "heuristic", "random", range(60))
                   if any(a in g.outcome["winners"] for a in g.focus_seats))
    assert row.win_rate == pytest.approx(expected / 60)
    assert row.win_ci[0] < row.win_rate < row.win_ci[1]
    assert row.games == 60 and row.score[1] < row.score[0] < row.score[2]


def test_evaluate_cli_prints_table_and_writes_json(toy_checkpoint, toy_registry, tmp_path, capsys):
    out = tmp_path / "e.json"
    rc = main(["evaluate", f"checkpoint:{toy_checkpoint}", "--against", "random", "--against", "heuristic",
               "--games", "10", "--workers", "1", "--json", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "| checkpoint:toy/tiny | vs random | 10 |" in text and "vs heuristic" in text
    rows = json.loads(out.read_text())["rows"]
    assert [r["others"] for r in rows] == ["random", "heuristic"]
    assert rows[0]["win_rate_ci95"][0] <= rows[0]["win_rate"] <= rows[0]["win_rate_ci95"][1]


def test_evaluate_sweep_marks_incompatible_configs(toy_checkpoint, toy_registry, capsys):
    rc = main(["evaluate", f"checkpoint:{toy_checkpoint}", "--sweep", "players=2,3", "--against", "random",
               "--games", "4", "--workers", "1"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "| players=2 | checkpoint:toy/tiny | vs random | 4 |" in text
    assert "players=3" in text and "n/a" in text


def test_cooperative_defaults_evaluate_team_and_heuristic_partners(coop_checkpoint, toy_registry, capsys):
    assert main(["evaluate", f"checkpoint:{coop_checkpoint}", "--games", "6", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "| checkpoint:toy_coop/tiny | whole team | 6 |" in text and "| with heuristic | 6 |" in text
    assert "cleared" in text


def test_tournament_ranks_heuristic_above_random(toy_registry, tmp_path, capsys):
    out = tmp_path / "t.json"
    rc = main(["tournament", "heuristic", "random", "noop", "--env", "toy_v0", "--env-set", "players=3",
               "--games", "30", "--workers", "1", "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    st = {s["policy"]: s for s in data["standings"]}
    assert st["random"]["elo"] == pytest.approx(1000.0)
    assert st["heuristic"]["elo"] > st["random"]["elo"] > st["noop"]["elo"]
    assert [s["policy"] for s in data["standings"]] == ["heuristic", "random", "noop"]
    text = capsys.readouterr().out
    assert "| 1 | heuristic |" in text and "Pairwise mean score" in text


def test_tournament_of_cooperative_teams(toy_registry):
    from training.tournament import run_tournament

    res = run_tournament(EnvSpec.resolve("toy_coop_v0", {"players": 2}), ["random", "heuristic"], games=20)
    assert res.policies == ["heuristic", "random"]
    assert res.standings[0].win_rate > res.standings[1].win_rate


def test_watch_renders_every_step_and_the_result(toy_registry, capsys):
    rc = main(["watch", "heuristic", "random", "--env", "toy_v0", "--seed", "4", "--no-clear"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "p0=heuristic  p1=random" in text and "-- step 1 --" in text and "pile" in text
    assert "== game over after" in text and "winners" in text


def test_watch_needs_one_spec_or_one_per_seat(toy_registry, capsys):
    assert main(["watch", "random", "random", "random", "--env", "toy_v0"]) == 2
    assert "give one policy for all seats or one per seat" in capsys.readouterr().err


def test_cli_train_with_overrides_and_dry_run(toy_registry, tmp_path, capsys):
    import yaml

    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(toy_config(tmp_path, training={"total_timesteps": 128}, evaluation={"games": 2})))
    assert main(["train", "--config", str(cfg), "--dry-run", "--set", "env.options.players=3"]) == 0
    out = capsys.readouterr().out
    assert "(valid)" in out and "toy_v0[players=3]" in out and "players: 3" in out
    assert main(["train", "--config", str(cfg), "--quiet", "--set", "name=cli"]) == 0
    assert (tmp_path / "checkpoints" / "toy" / "cli" / "metadata.json").is_file()
    assert main(["train", "--config", str(cfg), "--set", "trainig.seed=1"]) == 2
    assert "error: --set trainig.seed=1: config: unknown key 'trainig'" in capsys.readouterr().err


def test_unknown_policy_spec_is_a_clear_cli_error(toy_registry, capsys):
    assert main(["evaluate", "greedy", "--env", "toy_v0"]) == 2
    err = capsys.readouterr().err
    assert "unknown policy spec 'greedy'" in err and "checkpoint:DIR" in err


def test_list_and_schema(capsys):
    assert main(["list", "--configs", str(ROOT / "configs"), "--checkpoints", str(ROOT / "checkpoints")]) == 0
    out = capsys.readouterr().out
    assert "wok_star_v1" in out and "configs" in out
    assert main(["list", "--configs", str(ROOT / "no_such_folder")]) == 2
    assert "error: list --configs" in capsys.readouterr().err
    assert main(["schema"]) == 0
    assert "`training.total_timesteps`" in capsys.readouterr().out


def test_default_train_in_a_fresh_process_resolves_or_names_the_missing_env(tmp_path):
    """`python -m training train` (the README's main job), validated without training (outputs pointed
    at a temporary folder: --dry-run checks the destination too, and a user's own default run may exist)."""
    r = subprocess.run([sys.executable, "-m", "training", "train", "--dry-run",
                        "--set", f"output.checkpoints={tmp_path / 'ck'}", "--set", f"output.runs={tmp_path / 'runs'}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    if "frying_master_v1" in envs.available_env_ids():
        assert r.returncode == 0, r.stderr
        assert "frying_master_v1[players=2" in r.stdout
    else:
        assert r.returncode == 2
        assert "error:" in r.stderr and "'frying_master_v1' is registered but not present" in r.stderr


def test_stats_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    m, lo, hi = mean_ci([1, 2, 3, 4])
    assert m == 2.5 and hi - m == pytest.approx(1.96 * 1.2910 / 2, rel=1e-3)
    r, half = bradley_terry_elo(2, [(0, 1, 1.0)] * 75 + [(0, 1, 0.0)] * 25, anchor=1, prior_games=0.0)
    assert r[1] == 1000.0 and r[0] - r[1] == pytest.approx(400 * __import__("math").log10(3), rel=1e-6)
    r, _ = bradley_terry_elo(3, [(0, 1, 0.5), (1, 2, 0.5), (2, 0, 0.5)])
    assert r == pytest.approx([1500.0] * 3)


def test_markdown_table_formats_shares_as_percentages_and_selects_extras(toy_registry):
    row = evaluate(EnvSpec.resolve("toy_coop_v0", {"players": 2}), "heuristic", None, games=5)
    table = markdown_table([row])
    assert "cleared" in table and "100.0%" in table
    head = markdown_table([row], ["time_used", "cleared", "no_such_key"]).splitlines()[0]
    assert head.endswith("| length | time_used | cleared |") and "tokens_per_player" not in head
    assert set(row.to_json()["extras"]) == {"cleared", "time_used", "tokens_per_player"}


def test_bench_reports_each_process_count(toy_registry, tmp_path, capsys, monkeypatch):
    """Also: the header names the steps measured (``learn`` ends on a whole rollout; it had named the
    steps asked for), and SB3's default logger no longer leaves an empty ``SB3-<time>`` folder in the
    temporary directory for every measurement."""
    import tempfile

    import yaml

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(toy_config(tmp_path)))
    assert main(["bench", "--config", str(cfg), "--workers", "1,2", "--timesteps", "100"]) == 0
    assert [p.name for p in temp.iterdir() if p.name.startswith("SB3-")] == []
    out = capsys.readouterr().out.splitlines()
    cfg_ = load_config(str(cfg))
    rollout = cfg_["algorithm"]["n_steps"] * cfg_["training"]["env_copies"] * plan_run(cfg_).learners
    assert f"{-(-100 // rollout) * rollout:,} learner steps per measurement (100 asked" in out[0], out[0]
    rows = [line for line in out if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert len(rows) == 2 and all(" / " in r for r in rows)
    assert all(re.search(r"\| \d+% \|$", r) for r in rows)  # the env's share of training
    assert any(line.startswith("The learner alone (the same MaskablePPO learning from") for line in out)


def test_bench_shares_are_computed_from_the_measured_rates(monkeypatch):
    import training.bench as tb

    monkeypatch.setattr(tb, "bench_bridge", lambda cfg, w, steps: 10_000.0 * w)
    monkeypatch.setattr(tb, "bench_train", lambda cfg, w, steps: 1_000.0 * w)
    alone = iter([4_000.0, 5_000.0, 3_000.0])
    monkeypatch.setattr(tb, "bench_learner_alone", lambda cfg, steps: next(alone))
    lines = []
    rows = tb.run_bench({"algorithm": {"n_steps": 64}}, [1, 2], 256, repeat=3, log=lines.append)
    assert [r["env_share"] for r in rows] == [pytest.approx(0.75), pytest.approx(0.5)]  # 1 - train / median(alone)
    assert rows[0]["learner_alone_steps_per_s"] == [4_000.0, 5_000.0, 3_000.0]
    assert lines[2].endswith("| 75% |") and lines[3].endswith("| 50% |")
    assert "4,000 / 5,000 steps/s" in lines[-1]


def test_bench_pool_seats_play_the_same_seeded_snapshot_in_every_measurement():
    import numpy as np

    from training.bench import _pool_snapshot
    from training.config import load_config
    from training.trainer import plan_run
    from training.vec_env import MultiAgentVecEnv

    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "frying_master_quick.yaml")
    plan = plan_run(cfg)
    assert plan.uses_pool
    venv = MultiAgentVecEnv(plan.settings, 2, 1)
    try:
        first, second = _pool_snapshot(cfg, venv), _pool_snapshot(cfg, venv)
    finally:
        venv.close()
    weights = [np.concatenate([np.ravel(a) for layer in s["layers"] for a in layer] + [np.ravel(a) for a in s["head"]])
               for s in (first, second)]
    assert weights[0].size > 1000 and (weights[0] == weights[1]).all()  # seeded by the config, not by chance


# ---------------------------------------------------------------------------------------------- doors of the commands
def test_counts_past_what_a_command_can_play_are_refused_before_any_work(toy_registry, tmp_path, capsys):
    """``--games 99999999999999999999999`` was an ``OverflowError`` traceback (``10**12``: a
    ``MemoryError``), also after a whole training run (``evaluation.games``); a
    ``training.seed`` of ``2**32`` passed ``--dry-run`` and then failed in ``np.random.seed``;
    ``watch --delay 1e9`` waited for ever."""
    for argv in (["evaluate", "random", "--env", "toy_v0", "--games", "99999999999999999999999"],
                 ["tournament", "random", "heuristic", "--env", "toy_v0", "--games", "1000001"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        assert "allowed: an integer >= 1 and <= 1000000" in capsys.readouterr().err
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps(toy_config(tmp_path)))
    for item, allowed in (("training.seed=4294967296", "an integer >= 0 and <= 4294967295"),
                          ("evaluation.games=1000001", "an integer >= 1 and <= 1000000"),
                          ("training.env_copies=5000", "an integer >= 1 and <= 4096"),
                          ("'evaluation.sweep={players: [2, 2]}'".strip("'"), "listed twice; allowed: each value once")):
        assert main(["train", "--config", str(cfg), "--dry-run", "--set", item]) == 2
        assert allowed in capsys.readouterr().err
    assert main(["train", "--config", str(cfg), "--dry-run", "--set", "training.seed=4294967295"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["watch", "random", "--env", "toy_v0", "--delay", "1e9"])
    assert "allowed: a finite number of seconds >= 0 and <= 60" in capsys.readouterr().err


def test_two_outputs_naming_one_file_or_an_empty_name_are_refused_before_any_game(toy_registry, tmp_path, capsys):
    """``evaluate --json X --save-games X`` saved the games and then wrote the summary over them
    (exit 0); ``--save-games ""`` and ``--extras ",,,"`` were ignored, ``--json ""`` was called a
    directory."""
    out = tmp_path / "x.jsonl"
    (tmp_path / "link.md").symlink_to(out)  # one file by two names (a symlink had passed as another file)
    base = ["evaluate", "random", "--env", "toy_v0", "--games", "2", "--workers", "1"]
    for extra, says in ((["--json", str(out), "--save-games", str(out)], "--json and --save-games both name"),
                        (["--json", str(out), "--markdown", str(tmp_path / "." / "x.jsonl")], "--json and --markdown both name"),
                        (["--json", str(out), "--markdown", str(tmp_path / "link.md")], "--json and --markdown both name"),
                        (["--save-games", ""], "--save-games '': give a file name"),
                        (["--json", " "], "--json ' ': give a file name"),
                        (["--extras", ",,,"], "--extras ',,,' names no outcome() key")):
        assert main(base + extra) == 2
        assert says in capsys.readouterr().err
        assert not out.exists()


def test_list_shows_a_config_it_cannot_read_and_goes_on(tmp_path, capsys):
    """A ``*.yaml`` that is a directory stopped ``list --configs`` at "error: Is a directory"
    (exit 2), before the checkpoints were listed."""
    (tmp_path / "a.yaml").mkdir()
    (tmp_path / "b.yaml").write_text("env: {id: wok_star_v1}\n")
    assert main(["list", "--configs", str(tmp_path), "--checkpoints", str(ROOT / "checkpoints")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"a\.yaml\s+unreadable \(Is a directory\)", out) and "b.yaml" in out
    assert "checkpoints/wok_star/main" in out


def test_schema_update_of_a_file_that_is_not_utf8_is_refused(tmp_path, capsys):
    doc = tmp_path / "doc.md"
    doc.write_bytes(b"\xff\xfe not utf-8")
    assert main(["schema", "--update", str(doc)]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err
    assert doc.read_bytes() == b"\xff\xfe not utf-8"


def test_a_config_path_that_is_a_directory_says_so(tmp_path, capsys):
    assert main(["train", "--config", str(tmp_path), "--dry-run"]) == 2
    assert "is a directory; allowed: a YAML file" in capsys.readouterr().err


def test_bench_refuses_a_process_count_twice_or_more_processes_than_copies(toy_registry, tmp_path, capsys):
    """``--workers 1,1`` pooled both runs and printed them as two equal rows; ``--workers 8`` over 4 copies
    was labelled 8 where the bridge ran 4 processes."""
    import yaml

    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(toy_config(tmp_path)))
    for workers, says in (("1,1", "a count is given twice"), ("64", "more processes than the config's")):
        assert main(["bench", "--config", str(cfg), "--workers", workers, "--timesteps", "8"]) == 2
        assert says in capsys.readouterr().err


def test_a_tournament_gives_the_margin_over_the_heuristic_its_own_interval(toy_registry):
    """The Elo column's interval is each rating's against the anchor (random); the README had put
    it on the planner's margin over the heuristic, whose own interval is narrower. The margin is
    the same fit's difference, with the interval of that difference."""
    from training.tournament import run_tournament

    res = run_tournament(EnvSpec.resolve("toy_v0", {"players": 3}), ["random", "heuristic", "noop"], games=30,
                         workers=1)
    st = {s.policy: s for s in res.standings}
    h = st["heuristic"]
    assert h.vs_heuristic is None and st["random"].vs_heuristic is not None
    for name in ("random", "noop"):
        d, half = st[name].vs_heuristic
        assert d == pytest.approx(st[name].rating - h.rating)
        assert 0 < half
    # the interval of a difference, from the fit anchored at the heuristic
    assert st["noop"].vs_heuristic[1] != pytest.approx(st["noop"].ci95)
    text = res.markdown()
    assert "Elo above the heuristic (95% CI)" in text and "has an interval of its own" in text
    data = res.to_json()["standings"]
    assert {s["policy"]: s["elo_above_heuristic"] is None for s in data} == {"heuristic": True, "random": False,
                                                                             "noop": False}


def test_an_entrant_that_never_lost_is_marked_as_set_by_the_prior(toy_registry, monkeypatch):
    """Against an entrant that never scores, the fit has no maximum: the rating grew with the number
    of games (every pairwise score 1.0 at 20 and at 5,000 games) and nothing said so."""
    import training.tournament as T
    from training.evaluation import GameRecord

    spec = EnvSpec.resolve("toy_v0", {"players": 2})
    agents = list(spec.make().possible_agents)

    def one_sided(env_spec, a, b, seeds, workers):
        out = []
        for s in seeds:
            focus = [agents[s % 2]]
            won = focus if a == "heuristic" else [x for x in agents if x not in focus]
            out.append(GameRecord(s, focus, 10, False, {x: 0.0 for x in agents},
                                  {"winners": won, "scores": {x: float(x in won) for x in agents}}))
        return out

    monkeypatch.setattr(T, "play_games_parallel", one_sided)
    small = {s.policy: s for s in T.run_tournament(spec, ["random", "heuristic"], games=20).standings}
    large = {s.policy: s for s in T.run_tournament(spec, ["random", "heuristic"], games=800).standings}
    assert small["heuristic"].unbounded == "never lost" and small["random"].unbounded == "never won"
    assert large["heuristic"].rating > small["heuristic"].rating + 300  # the prior's, not a measurement
    text = T.run_tournament(spec, ["random", "heuristic"], games=20).markdown()
    assert "| heuristic | 1581 †" in text.replace("| 1 | ", "| ") and "heuristic never lost; random never won" in text


def test_list_outside_a_checkout_lists_what_is_there(tmp_path, monkeypatch, capsys):
    """Installed from a wheel, in a folder of one's own, ``list`` refused to list anything (no
    configs/ there), even the run the user had just trained; a folder given with its flag must
    still exist."""
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "checkpoints" / "frying_master" / "mine"
    run.mkdir(parents=True)
    (run / "metadata.json").write_text("{}")
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "frying_master_v1" in out and "(no configs/ in" in out and "checkpoints/frying_master/mine" in out
    (tmp_path / "checkpoints").rename(tmp_path / "elsewhere")
    assert main(["list"]) == 0
    assert "(no checkpoints/ in" in capsys.readouterr().out
    assert main(["list", "--checkpoints", "checkpoints"]) == 2
    assert "error: list --checkpoints 'checkpoints': no such directory" in capsys.readouterr().err
