"""`python -m envs.clock`: the clock sweep of the real-time games (issue 14, "What the clock does")."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from envs import clock

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--players", "2", "--games", "3", "--seed", "7"]
WOK = ["--game", "wok_star", "--seconds-per-tick", "1,10", "--timer-seconds", "10,30"]
FRY = ["--game", "frying_master", "--seconds-per-tick", "0.5,3"]

WOK_KEYS = {"game", "env_id", "players", "seconds_per_tick", "timer_seconds", "timer_ticks", "patience_ticks",
            "options", "games", "seed", "wins", "win_rate", "win_ci95", "serves", "late_serves", "late_share",
            "customers", "unserved_share", "ticks_per_game", "ticks_max", "days_completed", "income_per_game",
            "truncated"}
FRY_KEYS = {"game", "env_id", "players", "seconds_per_tick", "countdown_ticks", "options", "heuristic_seats",
            "games", "seed", "win_rate", "win_ci95", "fair_share", "ticks_per_game", "ticks_max", "rounds",
            "rounds_per_game", "countdown_serves", "countdown_serves_per_round", "limit_share"}


def _run(tmp_path: Path, *args: str, name: str = "out.json") -> dict:
    out = tmp_path / name
    assert clock.main([*args, *TINY, "--json", str(out)]) == 0
    return json.loads(out.read_text())


def _check_interval(row: dict) -> None:
    lo, hi = row["win_ci95"]
    assert 0.0 <= lo <= row["win_rate"] <= hi <= 1.0


def test_a_tiny_wok_star_sweep_has_every_key_and_plausible_values(tmp_path, capsys):
    rows = _run(tmp_path, *WOK, "--markdown")["rows"]["wok_star"]
    assert [(r["seconds_per_tick"], r["timer_seconds"]) for r in rows] == [(1.0, 10.0), (10.0, 10.0), (1.0, 30.0),
                                                                         (10.0, 30.0)]
    for r in rows:
        assert set(r) == WOK_KEYS and r["env_id"].startswith("wok_star_v") and r["players"] == 2 and r["games"] == 3
        _check_interval(r)
        assert r["timer_ticks"] == math.ceil(r["timer_seconds"] / r["seconds_per_tick"])
        assert 0 <= r["late_serves"] <= r["serves"] <= r["customers"] and r["serves"] > 0
        assert r["late_share"] == r["late_serves"] / r["serves"]
        assert 0.0 <= r["unserved_share"] <= 1.0
        assert 0 < r["ticks_per_game"] <= r["ticks_max"] and 1 <= r["days_completed"] <= 4
        assert r["truncated"] == 0
    by = {(r["seconds_per_tick"], r["timer_seconds"]): r for r in rows}
    assert by[10.0, 10.0]["late_share"] >= by[1.0, 30.0]["late_share"]  # a one-tick timer is never kinder
    out = capsys.readouterr().out
    assert out.count("| 10 | 10 | 1 |") == 1 and "heuristic win rate (95% CI)" in out


def test_a_tiny_frying_master_sweep_has_every_key_and_plausible_values(tmp_path, capsys):
    rows = _run(tmp_path, *FRY, "--heuristic-seats", "2")["rows"]["frying_master"]
    assert [r["seconds_per_tick"] for r in rows] == [0.5, 3.0]
    assert [r["countdown_ticks"] for r in rows] == [6, 1]  # ceil(3 s / seconds_per_tick)
    for r in rows:
        assert set(r) == FRY_KEYS and r["env_id"].startswith("frying_master_v") and r["heuristic_seats"] == 2
        _check_interval(r)
        assert r["fair_share"] == 0.5 and 0 < r["ticks_per_game"] <= r["ticks_max"]
        assert 1 <= r["rounds_per_game"] <= r["players"] + 1 and r["rounds"] == round(r["rounds_per_game"] * 3)
        assert r["countdown_serves"] >= 0 and 0.0 <= r["limit_share"] <= 1.0
    assert "countdown_serves_per_round" in capsys.readouterr().out  # the plain table names its columns


def test_the_same_seed_gives_the_same_rows(tmp_path, capsys):
    a = _run(tmp_path, "--game", "all", "--seconds-per-tick", "2", "--timer-seconds", "10", name="a.json")
    b = _run(tmp_path, "--game", "all", "--seconds-per-tick", "2", "--timer-seconds", "10", name="b.json")
    assert a["rows"] == b["rows"] and set(a["rows"]) == {"wok_star", "frying_master"}


@pytest.mark.parametrize("args, message", [
    (["--game", "chess"], "invalid choice: 'chess'"),
    (["--seconds-per-tick", "0"], "every value must be a positive number"),
    (["--game", "wok_star", "--timer-seconds", "1,0"], "every value must be a positive number"),
    (["--games", "0"], "argument --games: 0 is not allowed; allowed: an integer >= 1"),
    (["--seed", "-1"], "argument --seed: -1 is not allowed; allowed: an integer >= 0"),
    # values the env refuses: its own message comes through
    (["--game", "frying_master", "--seconds-per-tick", "20"], "option seconds_per_tick=20.0 is not allowed; allowed: a number in [0.25, 10.0]"),
    (["--game", "wok_star", "--timer-seconds", "200"], "option timer_seconds=200.0 is not allowed"),
    (["--players", "5"], "option players=5 is not allowed"),
    (["--set", "difficulty=hard"], "option difficulty='hard' is not allowed"),
    (["--game", "frying_master", "--timer-seconds", "30"], "--timer-seconds applies to Wok Star only"),
    # the last of two values won silently (envs.baselines refused a repeat)
    (["--set", "difficulty='mild'", "--set", "difficulty='medium'"], "--set difficulty is given twice"),
])
def test_bad_arguments_exit_2_with_a_message(args, message):
    games = [] if "--games" in args else ["--games", "1"]
    p = subprocess.run([sys.executable, "-m", "envs.clock", *args, *games], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    errors = [line for line in p.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0], p.stderr
    assert p.stdout == ""  # nothing measured


def test_the_plot_files_are_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "figs" / "clock.png"
    assert clock.main(["--game", "all", "--seconds-per-tick", "1,5", "--timer-seconds", "30", "--players", "2",
                       "--games", "1", "--plot", str(plot)]) == 0
    for game in clock.GAMES:
        f = tmp_path / "figs" / f"clock_{game}.png"
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 10_000
    one = tmp_path / "one.png"
    assert clock.main(["--game", "frying_master", "--seconds-per-tick", "1", "--players", "2", "--games", "1",
                       "--plot", str(one)]) == 0
    assert one.read_bytes()[:4] == b"\x89PNG"


def _documented_clock_commands() -> list[str]:
    out = []
    for doc in ("README.md", "docs/wok_star.md", "docs/frying_master.md"):
        for line in (ROOT / doc).read_text(encoding="utf-8").splitlines():
            code = line.split("  #")[0].strip()
            if code.startswith("python -m envs.clock "):
                out.append(code)
    return out


def test_the_documented_clock_commands_run_as_written(tmp_path):
    """Every ``python -m envs.clock`` line of the README and the game docs, as written, with only
    the number of games made small and the plot written to a temporary file (not the docs' figure)."""
    import shlex

    commands = _documented_clock_commands()
    assert len(commands) >= 4
    for k, line in enumerate(commands):
        words = shlex.split(line)[3:]
        if "--plot" in words:
            words[words.index("--plot") + 1] = str(tmp_path / f"plot{k}.png")
        r = subprocess.run([sys.executable, "-m", "envs.clock", *words, "--games", "2"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"{line}\n{r.stderr[-2000:]}"
        assert "| s/tick |" in r.stdout, line
        if "--plot" in words:
            assert (tmp_path / f"plot{k}.png").stat().st_size > 0


def test_the_files_of_every_game_are_checked_before_the_sweep(tmp_path, capsys):
    """With ``--game all`` the plot is written once per game (``d_frying_master.png``); a ``--json`` of that
    name was overwritten by the plot after the sweep, and a directory of that name failed with a traceback
    after it; the baselines' ``--env`` given twice measured the last one only."""
    from envs import baselines
    from envs.clock import main as clock_main

    with pytest.raises(SystemExit) as e:
        clock_main(["--game", "all", "--games", "1", "--plot", str(tmp_path / "d.png"),
                    "--json", str(tmp_path / "d_frying_master.png")])
    assert e.value.code == 2 and "is the plot file of frying_master" in capsys.readouterr().err
    (tmp_path / "c_wok_star.png").mkdir()
    with pytest.raises(SystemExit) as e:
        clock_main(["--game", "all", "--games", "1", "--plot", str(tmp_path / "c.png")])
    assert e.value.code == 2 and "c_wok_star.png' is a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        baselines.main(["--env", "wok_star_v1", "--env", "frying_master_v1", "--games", "1"])
    assert e.value.code == 2 and "--env is given twice" in capsys.readouterr().err
