"""The command lines' doors found by the fourth audit round: a ``--sweep`` whose planner rolls out a
checkpoint, line-ups that play nothing, policies listed twice, outputs that name a directory or lie
among the saved games, escape sequences in the lines a command prints, empty names, and the Event
cost measurement's and the clock's own checks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import envs
from envs.core.inputs import int_at_least
from training.cli import main

ROOT = Path(__file__).resolve().parents[2]
WOK = envs.ENV_IDS[0]
FRY = envs.ENV_IDS[1]
CKPT = ROOT / "checkpoints" / "wok_star" / "main"  # a 2-player Wok Star chef


def _run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_a_sweep_reads_a_planners_checkpoint_that_misfits_one_combination_as_an_n_a_row(tmp_path, capsys):
    """The planner's ``rollout=checkpoint:DIR`` was not checked per combination: the sweep played the
    first one, then failed on the next with its games lost (a ``--save-games`` file left half written)."""
    out = tmp_path / "rows.json"
    rc, _, err = _run(capsys, "evaluate", "random", "--env", WOK, "--games", 1, "--workers", 1, "--sweep",
                      "players=2,3", "--against", f"planner?sims=1&samples=1&rollout=checkpoint:{CKPT}",
                      "--json", out)
    assert rc == 0, err
    rows = json.loads(out.read_text())["rows"]
    assert [r["games"] for r in rows] == [1, 0]
    assert "does not fit" in rows[1]["note"] and "players=3" in rows[1]["note"]


def test_a_sweep_whose_line_up_plays_no_combination_is_refused_before_any_game(tmp_path, capsys):
    """Every row had been n/a and the command had exited 0, having played nothing."""
    out = tmp_path / "rows.json"
    rc, _, err = _run(capsys, "evaluate", "random", "--env", WOK, "--games", 1, "--workers", 1, "--sweep",
                      "players=3,4", "--against", f"checkpoint:{CKPT}", "--json", out)
    assert rc == 2 and "can play none of the --sweep combinations" in err and not out.exists()


@pytest.mark.parametrize("argv, said", [
    (["crossplay", "random", "heuristic", "random", "--env", WOK], "the chefs list one policy twice"),
    (["crossplay", "random", "--partners", "heuristic", "--partners", "heuristic", "--env", WOK],
     "--partners list one policy twice"),
    (["evaluate", "random", "--env", WOK, "--against", "heuristic", "--against", "heuristic"],
     "--against lists one policy twice"),
    (["evaluate", "random", "--env", WOK, "--team", "--env-set", "difficulty=extra_spicy", "--sweep",
      "difficulty=mild,medium"], "'difficulty' is given by --env-set and swept by --sweep"),
])
def test_a_policy_listed_twice_or_an_option_set_and_swept_is_refused(capsys, argv, said):
    rc, out, err = _run(capsys, *argv, "--games", 1, "--workers", 1)
    assert rc == 2 and said in err and "evaluated" not in err and out == ""


def test_outputs_that_name_a_directory_or_lie_among_the_saved_games_are_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "saved").mkdir()
    base = ["evaluate", "random", "--env", WOK, "--games", 1, "--workers", 1, "--team"]
    cases = [
        (["--json", "nodir/"], "names a directory (it ends with '/')"),  # (a file 'nodir' had been written)
        (["--json", "afile/x.json"], "'afile' is a file, not a directory"),
        (["--save-games", "saved", "--json", "saved/000001_x.json"], "lies in the --save-games directory"),
        (["--save-games", "games.json"], "names a .json file, one game's replay"),  # (a directory had been made)
    ]
    for extra, said in cases:
        rc, out, err = _run(capsys, *base, *extra)
        assert rc == 2 and said in err and out == "", (extra, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "saved"] and not any((tmp_path / "saved").iterdir())


def test_the_lines_a_command_prints_show_escape_sequences_as_text(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, out, _ = _run(capsys, "watch", "random", "--env", FRY, "--max-steps", 2, "--delay", 0, "--save-games",
                      "r\x1b]0;T\x07.jsonl")
    assert rc == 0 and "saved 1 game to r\\x1b]0;T\\x07.jsonl" in out and "\x1b" not in out.split("saved")[-1]
    rc, out, _ = _run(capsys, "evaluate", "random", "--env", WOK, "--games", 1, "--workers", 1, "--team",
                      "--markdown", "a\x1b[2Jb.md")
    assert rc == 0 and "wrote a\\x1b[2Jb.md" in out and "\x1b" not in out
    rc, out, _ = _run(capsys, "list", "--checkpoints", ROOT / "checkpoints" / "wok_star")
    assert rc == 0 and "holds checkpoints itself; give its parent" in out


@pytest.mark.parametrize("argv", [["train", "--dry-run", "--config", ""], ["watch", "--replay", ""],
                                  ["watch", "random", "--env", ""], ["schema", "--update", " "],
                                  ["list", "--configs", ""], ["list", "--checkpoints", ""]])
def test_an_empty_name_is_refused(capsys, argv):
    """``--config ''`` had read the current directory, ``--env ''`` been taken as not given, ``schema
    --update ''`` ignored, ``list --configs ''`` listed the defaults."""
    rc, out, err = _run(capsys, *argv)
    flag = next(a for a in argv if a.startswith("--") and a != "--dry-run")
    assert rc == 2 and f"{flag} is empty; give" in err and out == ""


def test_a_count_is_written_in_ascii_digits():
    parse = int_at_least(1)
    assert parse("12") == 12 and parse(" 3 ") == 3
    for text in ("\u0661", "1_000", "٣"):  # int() takes each of them
        with pytest.raises(argparse.ArgumentTypeError, match="is not an integer"):
            parse(text)


def test_the_event_cost_measurement_checks_its_input_before_measuring(tmp_path, capsys):
    from envs.wok_star.rules.events import main as events_main

    for argv, said in ((["--games", "0"], "0 is not allowed"), (["--games", "-5", "--event", "nosuch"], "not allowed"),
                       (["--event", "nosuch"], "invalid choice: 'nosuch'"), (["--players", "9"], "invalid choice: 9"),
                       (["--seed", "-1"], "-1 is not allowed"), (["--json", str(tmp_path / "no" / "x.json")],
                                                                 "does not exist")):
        with pytest.raises(SystemExit) as e:
            events_main(["--measure", *argv])
        assert e.value.code == 2 and said in capsys.readouterr().err, argv
    out = tmp_path / "rows.json"
    assert events_main(["--measure", "--games", "1", "--event", "lucky_cat", "--json", str(out)]) == 0
    assert [r["event"] for r in json.loads(out.read_text())] == ["none", "lucky_cat"]


def test_the_clock_refuses_interface_options_in_set(capsys):
    """``--set render_mode="human"`` had drawn every tick to the terminal inside the timing."""
    from envs.clock import main as clock_main

    with pytest.raises(SystemExit) as e:
        clock_main(["--games", "1", "--game", "wok_star", "--set", 'render_mode="human"'])
    assert e.value.code == 2 and "how the env talks, not the game" in capsys.readouterr().err


def test_a_saved_game_of_a_huge_seed_gets_a_file_name_the_system_takes(tmp_path):
    from training.replay import GameSaver

    saver = GameSaver(tmp_path / "games").check()
    saver.add({"env_id": WOK, "seed": 10 ** 300})
    (name,) = [p.name for p in (tmp_path / "games").iterdir()]
    assert name == f"000001_{WOK}_seed{'1' + '0' * 19}-301digits.json"


def test_measurement_counts_have_an_upper_bound(capsys):
    """``bench --timesteps 10**26`` and ``tests.search.speed --seconds 1e300`` had started measuring for
    ever (the header announced 10**26 steps)."""
    from tests.search.speed import main as speed_main

    for argv, said in ((["bench", "--timesteps", str(10 ** 26)], "<= 1000000000"),
                       (["bench", "--repeat", str(10 ** 26)], "<= 1000")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2 and said in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        speed_main(["--seconds", "1e300"])
    assert e.value.code == 2 and "<= 3600" in capsys.readouterr().err
