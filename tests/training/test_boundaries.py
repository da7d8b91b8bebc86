"""Issue 12: the command line never hides a failure, configs are checked before anything runs,
a newcomer's path (resume, shipped checkpoints, watch, missing extras)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import envs
from envs.core.errors import ConfigError
from tests.training.conftest import toy_config
from training import checkpoints as ck
from training.cli import main
from training.config import load_config
from training.trainer import train

ROOT = Path(__file__).resolve().parents[2]
QUIET = {"log": lambda s: None}


def _files(d: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``d``: its bytes and modification time (nothing rewritten, not even identically)."""
    return {str(p.relative_to(d)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(d.rglob("*")) if p.is_file()}


def _copy_checkpoint(src: Path, root: Path, name: str = "tiny") -> Path:
    d = root / "checkpoints" / "toy" / name
    shutil.copytree(src, d)
    return d


def _write_config(tmp: Path, **sections) -> str:
    p = tmp / f"c{len(list(tmp.glob('c*.yaml')))}.yaml"
    p.write_text(yaml.safe_dump(toy_config(tmp, **sections)))
    return str(p)


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


# ---------------------------------------------------------------------- 3. the command line
def _corrupt(kind: str, d: Path) -> None:
    if kind == "actor bytes":
        b = bytearray((d / "actor.npz").read_bytes())
        b[len(b) // 2] ^= 0xFF
        (d / "actor.npz").write_bytes(bytes(b))
    elif kind == "actor missing":
        (d / "actor.npz").unlink()
    elif kind == "metadata not JSON":
        (d / "metadata.json").write_text("{not json")
    elif kind == "metadata other seats":
        meta = json.loads((d / "metadata.json").read_text())
        meta["agents"] = ["x", "y"]
        (d / "metadata.json").write_text(json.dumps(meta))
    elif kind == "empty directory":
        shutil.rmtree(d)
        d.mkdir()


@pytest.mark.parametrize("kind", ["actor bytes", "actor missing", "metadata not JSON", "metadata other seats",
                                  "empty directory"])
def test_evaluate_exits_2_with_one_error_line_for_a_damaged_checkpoint(kind, toy_checkpoint, toy_registry, tmp_path,
                                                                       capsys):
    d = _copy_checkpoint(toy_checkpoint, tmp_path)
    _corrupt(kind, d)
    rc = main(["evaluate", f"checkpoint:{d}", "--env", "toy_v0", "--against", "random", "--games", "4",
               "--workers", "1"])
    out, err = capsys.readouterr()
    assert rc == 2, out
    assert len(_error_lines(err)) == 1 and str(d) in _error_lines(err)[0]
    assert "n/a" not in out and "| vs random |" not in out  # no table pretending it was measured


def test_evaluate_exits_2_when_the_checkpoint_cannot_play_the_requested_env(toy_checkpoint, toy_registry, capsys):
    rc = main(["evaluate", f"checkpoint:{toy_checkpoint}", "--env-set", "players=3", "--against", "random",
               "--games", "4", "--workers", "1"])
    out, err = capsys.readouterr()
    assert rc == 2 and "n/a" not in out
    (line,) = _error_lines(err)
    assert "does not fit toy_v0[players=3]" in line and line.endswith("use a checkpoint trained with these options")


def test_sweep_marks_only_unplayable_combinations_with_the_whole_reason(toy_checkpoint, toy_registry, tmp_path,
                                                                        capsys):
    out_json = tmp_path / "e.json"
    rc = main(["evaluate", f"checkpoint:{toy_checkpoint}", "--sweep", "players=2,3", "--against", "random",
               "--games", "4", "--workers", "1", "--json", str(out_json)])
    assert rc == 0
    rows = json.loads(out_json.read_text())["rows"]
    assert [r["options"]["players"] for r in rows] == [2, 3]
    assert rows[0]["games"] == 4 and "note" not in rows[0]
    note = rows[1]["note"]
    assert note.startswith("n/a: checkpoint") and note.endswith("use a checkpoint trained with these options")
    assert len(note) > 120  # never cut
    # a damaged checkpoint is an error with --sweep too, not an n/a row
    d = _copy_checkpoint(toy_checkpoint, tmp_path)
    _corrupt("actor bytes", d)
    capsys.readouterr()
    assert main(["evaluate", f"checkpoint:{d}", "--env", "toy_v0", "--sweep", "players=2,3", "--games", "4",
                 "--workers", "1"]) == 2
    assert "is corrupt or was modified" in _error_lines(capsys.readouterr().err)[0]
    # and a sweep it can play none of is an error
    assert main(["evaluate", f"checkpoint:{toy_checkpoint}", "--sweep", "players=3", "--games", "4",
                 "--workers", "1"]) == 2
    assert "can play none of the --sweep combinations" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["evaluate", "{ck}", "--env", "toy_v0", "--env-set", "tokens=8", "--against", "random", "--against", "heuristic",
     "--games", "40", "--workers", "2"],
    ["tournament", "{ck}", "random", "heuristic", "--env", "toy_v0", "--env-set", "tokens=8", "--games", "40",
     "--workers", "2"],
], ids=["evaluate", "tournament"])
def test_a_checkpoint_warning_is_shown_once_per_command(argv, toy_checkpoint, toy_registry, capfd):
    """Rows, pairings, seats and spawned workers all meet the same soft difference: one warning line."""
    assert main([a.replace("{ck}", f"checkpoint:{toy_checkpoint}") for a in argv]) == 0
    err = capfd.readouterr().err  # file-descriptor level: worker processes included
    warned = [line for line in err.splitlines() if "tokens=6 (trained) vs 8" in line]
    assert warned == [f"warning: checkpoint {str(toy_checkpoint)!r}: env options differ from training: "
                      f"tokens=6 (trained) vs 8"], err


@pytest.mark.parametrize("bad,says", [
    (["--games", "0"], "argument --games: 0 is not allowed; allowed: an integer >= 1"),
    (["--seed", "-1"], "argument --seed: -1 is not allowed; allowed: an integer >= 0"),
    (["--workers", "0"], "argument --workers: 0 is not allowed; allowed: an integer >= 1 and <= 64"),
    (["--extras", "no_such"], "error: --extras: 'no_such' not among the outcome() extras of toy_v0; allowed: "),
    (["--env-set", "players=["], "error: --env-set 'players=[': the value '[' is not valid YAML"),
    (["--json", "/no/such/dir/e.json"], "error: --json '/no/such/dir/e.json': the directory '/no/such/dir' does not"),
], ids=["games", "seed", "workers", "extras", "env-set", "json"])
def test_evaluate_refuses_bad_arguments_before_playing(bad, says, toy_registry, capsys):
    try:
        rc = main(["evaluate", "random", "--env", "toy_v0", "--games", "4", "--workers", "1"] + bad)
    except SystemExit as e:  # argparse's own refusal
        rc = e.code
    out, err = capsys.readouterr()
    assert rc == 2 and says in err, err
    assert "| random |" not in out  # nothing was played


@pytest.mark.parametrize("argv", [
    ["train", "--config", "{long}"],
    ["evaluate", "checkpoint:{long}", "--env", "toy_v0", "--games", "1", "--workers", "1"],
    ["watch", "--replay", "{long}"],
], ids=["config", "checkpoint", "replay"])
def test_a_path_the_system_refuses_is_a_one_line_error_not_a_traceback(argv, toy_registry, capsys):
    """``OSError`` from the system (here a path name too long for it) ends the command with exit
    status 2 and one line saying what the system said of which path, cut to 200 characters."""
    long = "a/" * 3000
    rc = main([a.replace("{long}", long) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: File name too long: 'a/a/a/") and err.count("\n") == 1, err
    assert len(err) < 300


def test_an_os_error_without_a_path_is_one_line_of_what_the_system_said(monkeypatch, capsys):
    import errno

    from training import cli

    def full(args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cli, "cmd_schema", full)  # the parser takes the command's function when it is built
    assert cli.main(["schema"]) == 2
    assert capsys.readouterr().err == "error: [Errno 28] No space left on device\n"


def test_watch_refuses_bad_delays_and_steps(toy_registry, capsys):
    for bad in (["--delay", "nan"], ["--delay", "-1"], ["--every", "0"]):
        with pytest.raises(SystemExit) as e:
            main(["watch", "random", "--env", "toy_v0"] + bad)
        assert e.value.code == 2
        assert "is not allowed; allowed:" in capsys.readouterr().err


def test_errors_name_their_true_source(tmp_path, toy_registry):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(toy_config(tmp_path)))
    with pytest.raises(ConfigError, match=r"^--set trainig\.seed=1: config: unknown key 'trainig'"):
        load_config(path, ["training.seed=2", "trainig.seed=1"])
    with pytest.raises(ConfigError, match=r"^--set training\.env_copies=0: config key training\.env_copies"):
        load_config(path, ["training.env_copies=0"])
    bad_file = tmp_path / "bad.yaml"
    bad_file.write_text(yaml.safe_dump(toy_config(tmp_path, training={"env_copies": 0})))
    with pytest.raises(ConfigError, match=rf"^{bad_file}: config key training\.env_copies: 0"):
        load_config(bad_file, ["training.seed=1"])
    # checks beyond the schema (the env's options, policies) are attributed the same way
    from training.trainer import plan_run

    with pytest.raises(ConfigError, match=r"^--set env\.options\.players=7: .*players=7"):
        load_config(path, ["env.options.players=7"], check=plan_run)


# ---------------------------------------------------------------------- 4. configs checked before anything runs
@pytest.mark.parametrize("key,value", [("training.reward_scale", ".inf"), ("training.win_bonus", ".inf"),
                                       ("algorithm.ent_coef", ".inf"), ("training.loss_penalty", "-.inf"),
                                       ("algorithm.learning_rate", ".nan"), ("training.win_bonus", "1e999")])
def test_non_finite_numbers_are_refused(key, value, tmp_path):
    section, name = key.split(".")
    path = tmp_path / "c.yaml"
    path.write_text(f"{section}:\n  {name}: {value}\n")
    with pytest.raises(ConfigError, match=rf"config key {key}: .* is not allowed; .*numbers must be finite"):
        load_config(path)


def test_duplicate_yaml_keys_are_refused_in_files_and_set_values(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("training:\n  seed: 1\nseats: {learners: 1}\ntraining:\n  seed: 2\n")
    with pytest.raises(ConfigError,
                       match=r"line 4, column 1: found duplicate key 'training' \(first given on line 1\)"):
        load_config(path)
    path.write_text("training:\n  seed: 1\n  env_copies: 2\n  seed: 2\n")
    with pytest.raises(ConfigError, match="found duplicate key 'seed'"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"--set 'seats.others=\{random: 1, random: 2\}'.*duplicate key 'random'"):
        load_config(raw={}, overrides=["seats.others={random: 1, random: 2}"])
    # YAML merge keys are not duplicates: keys written out override merged ones
    from training.config import yaml_load

    assert yaml_load("a: &b {seed: 1, env_copies: 2}\nc:\n  <<: *b\n  seed: 3\n")["c"] == {"seed": 3, "env_copies": 2}


@pytest.mark.parametrize("override,key", [
    ("evaluation.sweep={colour: [red, blue]}", "evaluation.sweep"),
    ("evaluation.sweep={players: [2, 7]}", "evaluation.sweep"),
    ("evaluation.extras=[no_such_extra]", "evaluation.extras"),
    ("seats.others={'checkpoint:{missing}': 1}", "seats.others.checkpoint:"),
    ("evaluation.against=['checkpoint:{missing}']", "evaluation.against[0]"),
    ("pretrain.teacher=checkpoint:{missing}", "pretrain.teacher"),
], ids=["sweep-unknown-option", "sweep-bad-value", "extras", "others-checkpoint", "against-checkpoint", "teacher"])
def test_dry_run_and_train_refuse_before_writing_anything(override, key, toy_registry, tmp_path, capsys):
    override = override.replace("{missing}", str(tmp_path / "no_such_checkpoint"))
    extra = ["--set", "pretrain.steps=64"] if key == "pretrain.teacher" else []
    cfg = _write_config(tmp_path, training={"total_timesteps": 64}, evaluation={"games": 2})
    for mode in (["--dry-run"], ["--quiet"]):
        assert main(["train", "--config", cfg, "--set", override] + extra + mode) == 2
        (line,) = _error_lines(capsys.readouterr().err)
        assert line.startswith(f"error: --set {override}: config key {key}"), line
    assert not (tmp_path / "checkpoints").exists() and not (tmp_path / "runs").exists()


def test_a_refused_overwrite_keeps_the_old_checkpoint(toy_checkpoint, toy_registry, tmp_path, capsys):
    d = _copy_checkpoint(toy_checkpoint, tmp_path)
    before = _files(d)
    cfg = _write_config(tmp_path, evaluation={"sweep": {"colour": ["red"]}})
    assert main(["train", "--config", cfg, "--overwrite", "--quiet"]) == 2
    assert "evaluation.sweep" in capsys.readouterr().err
    assert _files(d) == before and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("linked", ["runs", "checkpoints"])
def test_overwrite_through_a_symlinked_folder_is_refused_before_anything_goes(toy_checkpoint, toy_registry, tmp_path,
                                                                             capsys, linked):
    """With the run's folder a symlink, ``--overwrite`` removed the old checkpoint, then failed on the link
    (``Cannot call rmtree on a symbolic link``, no path named), and nothing new was written."""
    d = _copy_checkpoint(toy_checkpoint, tmp_path)
    real = tmp_path / "elsewhere"
    if linked == "runs":
        real.mkdir()
        (tmp_path / "runs" / "toy").mkdir(parents=True)
        (tmp_path / "runs" / "toy" / "tiny").symlink_to(real)
        link = tmp_path / "runs" / "toy" / "tiny"
    else:
        shutil.move(str(d), str(real))
        d.symlink_to(real)
        link = d
    before = _files(real if linked == "checkpoints" else d)
    cfg = _write_config(tmp_path)
    assert main(["train", "--config", cfg, "--overwrite", "--quiet"]) == 2
    (line,) = _error_lines(capsys.readouterr().err)
    assert f"--overwrite removes {link}, which is a symlink" in line, line
    assert _files(real if linked == "checkpoints" else d) == before and link.is_symlink()


# ---------------------------------------------------------------------- 6. a newcomer's path
def test_resume_with_no_steps_left_changes_nothing_and_says_so(toy_checkpoint, toy_registry, tmp_path, capsys):
    d = _copy_checkpoint(toy_checkpoint, tmp_path)
    before = _files(d)
    cfg = _write_config(tmp_path)  # total_timesteps 1024 = what the checkpoint has
    assert main(["train", "--config", cfg, "--resume", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "nothing to do" in out and "nothing was changed" in out and "training.total_timesteps" in out
    assert _files(d) == before
    assert not (tmp_path / "runs").exists()


def test_training_seconds_add_up_across_resumes(toy_registry, tmp_path):
    cfg = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 128}, evaluation={"games": 2,
                                                                                             "baselines": False}))
    first = train(cfg, **QUIET)
    ck.update_metadata(first.checkpoint_dir, training_seconds=100000.0)  # as if the first session took that long
    cfg2 = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 256}, evaluation={"games": 2,
                                                                                              "baselines": False}))
    second = train(cfg2, resume=True, **QUIET)
    assert second.metadata["timesteps"] >= 256
    assert second.metadata["training_seconds"] >= 100000.0  # (the second session itself may round to 0.0 s)


def test_training_never_writes_into_a_shipped_checkpoint(toy_checkpoint, toy_registry, tmp_path, capsys):
    d = _copy_checkpoint(toy_checkpoint, tmp_path)
    ck.write_manifest(tmp_path / "checkpoints", ["toy/tiny"])
    before = _files(d)
    cfg = _write_config(tmp_path)
    for flags in ([], ["--overwrite"], ["--resume", "--set", "training.total_timesteps=2048"], ["--dry-run"]):
        assert main(["train", "--config", cfg, "--quiet"] + flags) == 2, flags
        (line,) = _error_lines(capsys.readouterr().err)
        assert "is a shipped checkpoint (listed in" in line and "--set name=" in line
    assert main(["train", "--config", cfg, "--quiet", "--resume"]) == 0  # nothing left to do: allowed, no change
    assert "nothing to do" in capsys.readouterr().out
    assert _files(d) == before and not (tmp_path / "runs").exists()


def _documented_commands(command: str) -> list[list[str]]:
    """The arguments of every documented ``python -m training <command> ...`` (README, docs/training.md, docs/search.md,
    checkpoints/README.md):
    lines of code blocks and inline code; usage lines with placeholders (``SPEC``, ``[...]``, ``<game>``)
    and bare mentions left out."""
    import re
    import shlex

    out = []
    for doc in ("README.md", "docs/training.md", "docs/search.md", "checkpoints/README.md"):
        for line in (ROOT / doc).read_text(encoding="utf-8").splitlines():
            found = re.findall(r"`(python -m training [^`]+)`", line)
            code = line.split(" && ")[-1].split("#")[0].strip()
            if code.startswith("python -m training "):
                found.append(code)
            for c in found:
                words = shlex.split(c)
                if len(words) < 4 or words[3] != command or re.search(r"SPEC|\[|<|\.\.\.|\bC\b|\bN\b", c):
                    continue
                if words[4:] not in out:
                    out.append(words[4:])
    return out


def _documented_benchmarks() -> list[tuple[str, list[str]]]:
    """Every documented benchmark command, ``(module, arguments)``: ``python -m training bench``,
    ``python -m training.rllib_backend`` and ``python -m envs.bench``, in code blocks and inline
    code (which may wrap across lines), in README.md, docs/*.md and checkpoints/README.md; a
    ``<game>`` placeholder stands for each game, other placeholders (``C``, ``W``, ``T``, ``[...]``)
    are left out. They record how the figures were measured, so they must stay runnable."""
    import re
    import shlex

    pattern = r"(?:taskset -c \d+ )?python -m (training bench|training\.rllib_backend|envs\.bench)(?![\w.])"
    out: list[tuple[str, list[str]]] = []
    for doc in [ROOT / "README.md", ROOT / "checkpoints" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        found = [" ".join(m.group(0).strip("`").split()) for m in re.finditer(rf"`{pattern}[^`]*`", text)]
        found += [line.split("#")[0].strip() for line in text.splitlines() if re.match(pattern, line.strip())]
        for c in found:
            c = re.sub(r"^taskset -c \d+ ", "", c)
            if re.search(r"\[|\.\.\.|\b[CWTN]\b", c):
                continue
            for game in (("wok_star", "frying_master", "waroong_wars") if "<game>" in c else ("",)):
                words = shlex.split(c.replace("<game>", game))
                module, args = ("training bench", words[4:]) if words[2] == "training" else (words[2], words[3:])
                if (module, args) not in out:
                    out.append((module, args))
    return out


def test_documented_benchmark_commands_parse_and_name_configs_that_load():
    """Each documented benchmark command (``_documented_benchmarks``) is accepted by its own
    parser, and the config it names loads and plans (the benchmarks themselves take minutes)."""
    from envs.bench.cli import parser as bench_parser
    from training.cli import build_parser
    from training.config import load_config
    from training.trainer import plan_run

    commands = _documented_benchmarks()
    modules = {m for m, _ in commands}
    assert modules == {"training bench", "training.rllib_backend", "envs.bench"}, modules
    assert len([c for c in commands if c[0] != "envs.bench"]) >= 8  # <game> lines count once per game
    for module, args in commands:
        if module == "envs.bench":
            bench_parser().parse_args(args)
            continue
        if module == "training bench":
            a = build_parser().parse_args(["bench", *args])
            assert a.func.__name__ == "cmd_bench"
            sets = a.set
        else:
            pytest.importorskip("ray")
            from training.rllib_backend import build_parser as rllib_parser

            a = rllib_parser().parse_args(args)
            sets = []
        assert a.config and (ROOT / a.config).is_file(), (module, args)
        load_config(ROOT / a.config, sets, check=plan_run)


def test_the_rllib_benchmark_refuses_bad_counts_naming_what_is_allowed(capsys):
    pytest.importorskip("ray")
    from training.rllib_backend import build_parser as rllib_parser

    for bad, says in ((["--runners", "1,x"], "'x' is not an integer"), (["--sb3-workers", "0"], "allowed: an integer >= 1"),
                      (["--timesteps", "-5"], "allowed: an integer >= 1")):
        with pytest.raises(SystemExit) as e:
            rllib_parser().parse_args(bad)
        assert e.value.code == 2 and says in capsys.readouterr().err
    assert rllib_parser().parse_args(["--runners", "1,2", "--sb3-workers", "1"]).runners == [1, 2]


def test_documented_train_commands_never_write_a_shipped_checkpoint():
    from training.trainer import plan_run

    shipped = set(ck.shipped_checkpoints(ROOT / "checkpoints"))
    commands = _documented_commands("train")
    assert any("training.seed=1" in c for c in commands), "docs/training.md shows a --set training.seed=1 variant"
    writes = {}  # the run directory an earlier documented command writes -> where that run starts from
    for argv in commands:
        config = ROOT / argv[argv.index("--config") + 1] if "--config" in argv else None
        sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
        cfg = load_config(config, sets)
        if cfg["env"]["id"] not in envs.available_env_ids():
            continue
        start = cfg["training"].get("init_from")
        if start and str(start) in writes:  # a chain of fine-tunings: the command that writes `start` is documented
            start = cfg["training"]["init_from"] = writes[str(start)]  # first; check this one from where that one starts
        target = ROOT / plan_run(cfg).checkpoint_dir
        assert target not in shipped, f"documented `train {' '.join(argv)}` would write {target}"
        writes[str(target.relative_to(ROOT))] = start


def test_resume_of_a_finished_shipped_run_changes_nothing(tmp_path, capsys):
    """What the docs used to show (`train --config configs/<game>_full.yaml --resume`, which "trained
    0 timesteps" and rewrote the shipped checkpoint), on a copy of each shipped run and its manifest
    entry (so that a regression cannot touch the tracked files): no step left, nothing changes."""
    shipped = {p.resolve() for p in ck.shipped_checkpoints(ROOT / "checkpoints")}
    names = []
    for config in sorted((ROOT / "configs").glob("*_full.yaml")):
        cfg = load_config(config)
        game = cfg["env"]["id"].rsplit("_v", 1)[0]
        src = (ROOT / "checkpoints" / game / cfg["name"]).resolve()
        if src in shipped and cfg["env"]["id"] in envs.available_env_ids():
            shutil.copytree(src, tmp_path / "ck" / game / cfg["name"])
            names.append((config, f"{game}/{cfg['name']}"))
    if not names:
        pytest.skip("no shipped checkpoint of a present env")
    ck.write_manifest(tmp_path / "ck", [n for _, n in names])
    for config, name in names:
        before = _files(tmp_path / "ck" / name)
        outputs = ["--set", f"output.checkpoints={tmp_path / 'ck'}", "--set", f"output.runs={tmp_path / 'runs'}"]
        assert main(["train", "--config", str(config), "--resume", "--quiet"] + outputs) == 0
        assert "nothing to do" in capsys.readouterr().out
        assert _files(tmp_path / "ck" / name) == before and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("tty,expected", [(True, 0.3), (False, None)], ids=["terminal", "piped"])
def test_watch_waits_between_frames_only_in_a_terminal(tty, expected, toy_registry, monkeypatch, capsys):
    import training.watch

    slept = []
    monkeypatch.setattr(training.watch.time, "sleep", slept.append)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert main(["watch", "heuristic", "--env", "toy_v0", "--seed", "1", "--max-steps", "3"]) == 0
    assert slept == ([expected] * 4 if expected else [])  # the first frame and three steps
    slept.clear()
    assert main(["watch", "heuristic", "--env", "toy_v0", "--max-steps", "2", "--delay", "0.05"]) == 0
    assert slept == [0.05] * 3


@pytest.mark.parametrize("blocked,argv", [("yaml", ["list"]), ("torch", ["train", "--dry-run"]),
                                          ("sb3_contrib", ["train", "--dry-run"])])
def test_a_missing_train_extra_is_named(blocked, argv):
    code = ("import runpy, sys\n"
            f"sys.modules[{blocked!r}] = None  # as if not installed\n"
            f"sys.argv = ['training'] + {argv!r}\n"
            "runpy.run_module('training', run_name='__main__', alter_sys=True)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and "Traceback" not in r.stderr, r.stderr
    assert f"module {blocked!r} is not installed" in lines[-1]
    assert lines[-1].endswith("install the train extra: pip install -e '.[train]' (in a checkout; installed from a "
                              "wheel: pip install '<the wheel>[train]')")


SMALL = {"evaluate": ["--games", "1", "--workers", "1"], "tournament": ["--games", "1", "--workers", "1"],
         "watch": ["--max-steps", "15"], "list": [], "schema": []}


def _documented_runs():
    for command, small in SMALL.items():
        for argv in _documented_commands(command):
            if command == "evaluate" and not argv or "--update" in argv:  # a bare mention; a command that writes docs
                continue
            if "--save-games" in argv or "--replay" in argv:  # they write and read files: run in a fresh
                continue                                         # directory by tests/training/test_replay.py
            yield pytest.param([command] + argv + small, id=" ".join([command] + argv)[:80])


@pytest.mark.parametrize("argv", list(_documented_runs()))
def test_documented_commands_run_as_written(argv, monkeypatch, capsys):
    """Every documented evaluate/tournament/watch/list/schema line, as written, with only its size made
    small (the last --games/--workers/--max-steps wins); from the project root, as the docs say."""
    monkeypatch.chdir(ROOT)
    pending = ck.pending_checkpoints(ROOT / "checkpoints")
    for a in argv:
        if a.startswith("checkpoint:"):
            named = a.split(":", 1)[1].split("?")[0].removeprefix("checkpoints/")
            if named in pending:  # the manifest says so: an env version change, until the retrained run lands
                pytest.skip(f"{named} is being retrained: {pending[named]}")
            meta = json.loads((ROOT / a.split(":", 1)[1] / "metadata.json").read_text())
            if meta["env_id"] not in envs.available_env_ids():
                pytest.skip(f"{meta['env_id']} is not present")
    assert main(argv) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert "error:" not in err
    if argv[0] in ("evaluate", "tournament"):
        assert "| 1 |" in out or "| rank |" in out
    if argv[0] == "watch":
        assert "== game over after" in out
