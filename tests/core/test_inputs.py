"""The readers every file door goes through (``envs/core/inputs.py``): JSON, YAML sizes and zip
archives, each refused with the caller's error class and what is allowed, never a bare
``RecursionError``, a ``ValueError`` from deep inside the standard library, or a reader that runs
out of memory or time."""

from __future__ import annotations

import io
import re
import json
import struct
import zipfile

import numpy as np
import pytest

from envs.core.errors import KitchenArenaError
from envs.core.inputs import (MAX_ARCHIVE_BYTES, check_archive, check_yaml_size, count_values, loads_json,
                              read_text_file)


class Refused(KitchenArenaError):
    pass


# ---------------------------------------------------------------------- JSON
@pytest.mark.parametrize("text, match", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply are not allowed; allowed: fewer than about"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ('{"n": ' + "7" * 5_000 + "}", "an integer of more than 4,300 digits is not allowed"),
    ('{"x": NaN}', "NaN is not allowed"),
    ('{"x": -Infinity}', "-Infinity is not allowed"),
    ('{"k": 1, "k": 2}', "the key 'k' appears twice in one object"),
    ('{"k": 1', r"not valid JSON \(Expecting .* at line 1 column 8\); damaged"),
    (None, "NoneType is not allowed; allowed: JSON text"),
])
def test_json_that_the_standard_reader_fails_on_or_takes_silently_is_refused(text, match):
    with pytest.raises(Refused, match=match) as e:
        loads_json(text, "thing.json", Refused, damaged="; damaged")
    assert str(e.value).startswith("thing.json: ")
    assert e.value.__cause__ is None and (e.value.__context__ is None or e.value.__suppress_context__)  # no chain


def test_plain_json_reads_as_the_standard_reader_reads_it():
    text = json.dumps({"a": [1, 2.5, None, True, "x", {"b": []}], "c": 10 ** 30})
    assert loads_json(text, "t", Refused) == json.loads(text)
    assert loads_json(text.encode(), "t", Refused) == json.loads(text)


# ---------------------------------------------------------------------- text files
def test_a_text_file_past_the_limit_or_not_utf8_is_refused(tmp_path):
    p = tmp_path / "meta.json"
    p.write_text("x" * 101)
    with pytest.raises(Refused, match="meta: 101 bytes is not allowed; allowed: at most 100 bytes"):
        read_text_file(p, "meta", Refused, max_bytes=100)
    assert read_text_file(p, "meta", Refused, max_bytes=101) == "x" * 101
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(Refused, match="not UTF-8 text"):
        read_text_file(p, "meta", Refused)


# ---------------------------------------------------------------------- YAML expansion
def test_values_are_counted_once_per_use_as_a_reader_walks_them():
    leaf = ["x"] * 9
    assert count_values(leaf, 10**6) == 10
    shared = [leaf, leaf, leaf]  # what three aliases of one anchor load as
    assert count_values(shared, 10**6) == 31
    assert count_values({"a": shared}, 10**6) == 33
    cycle: list = []
    cycle.append(cycle)  # YAML can load `&a [*a]`: counting stops at the limit
    assert count_values(cycle, 50) == 51


def test_a_billion_laughs_is_refused_before_it_is_walked():
    level = ["lol"] * 9
    for _ in range(9):  # nine levels of nine aliases: 9**10 leaves, a few hundred objects in memory
        level = [level] * 9
    with pytest.raises(Refused, match="config.yaml: more than 100,000 values .* allowed: at most 100,000"):
        check_yaml_size(level, "config.yaml", Refused)
    small = {"a": [1, 2, 3]}
    assert check_yaml_size(small, "config.yaml", Refused) is small


# ---------------------------------------------------------------------- zip archives
def _npz(path, **arrays):
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)
    return path


def test_an_archive_that_decompresses_past_the_limit_is_refused(tmp_path):
    p = _npz(tmp_path / "a.npz", w0=np.zeros(2 ** 19, np.float32), b0=np.ones(3, np.float32))  # 2 MiB of zeros
    assert p.stat().st_size < 64 * 1024  # what a zip bomb is: small on disk
    check_archive(p, "a.npz", Refused)  # the default limit takes it
    with pytest.raises(Refused, match=r"a.npz: members that decompress to more than 1 MiB \(member 'w0.npy' alone: "
                                      r"2,097,280 bytes\) are not allowed; allowed: at most 1 MiB in all"):
        check_archive(p, "a.npz", Refused, max_bytes=1024 * 1024)
    assert MAX_ARCHIVE_BYTES == 1024 ** 3


def test_an_archive_with_too_many_members_is_refused(tmp_path):
    p = _npz(tmp_path / "m.npz", **{f"a{i}": np.zeros(1) for i in range(4)})
    check_archive(p, "m.npz", Refused, max_members=4)
    with pytest.raises(Refused, match="4 archive members are not allowed; allowed: at most 3"):
        check_archive(p, "m.npz", Refused, max_members=3)


def test_an_npy_header_declaring_more_than_its_data_is_refused_before_numpy_allocates_it(tmp_path):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 9,)})
    p = tmp_path / "lie.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("w0.npy", buf.getvalue() + struct.pack("<4f", 1, 2, 3, 4))
    with pytest.raises(Refused, match="member 'w0.npy' declares an array of 4,000,000,000 bytes in 144 bytes of data"):
        check_archive(p, "lie.npz", Refused)
    p2 = tmp_path / "bad.npz"
    with zipfile.ZipFile(p2, "w") as z:
        z.writestr("w0.npy", b"not an array")
    with pytest.raises(Refused, match="member 'w0.npy' is not a valid .npy array"):
        check_archive(p2, "bad.npz", Refused)


def test_a_deflated_archive_inside_a_pth_member_counts_towards_the_limit(tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as z:  # torch stores; a crafted file need not
        z.writestr("archive/data/0", bytes(2 * 1024 * 1024))
    p = tmp_path / "model.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("policy.pth", inner.getvalue())
    check_archive(p, "model.zip", Refused)
    with pytest.raises(Refused, match=r"model.zip \(policy.pth\): members that decompress to more than 1 MiB "
                                      r"\(member 'archive/data/0'"):
        check_archive(p, "model.zip", Refused, max_bytes=1024 * 1024)


def test_a_file_that_is_not_an_archive_is_refused(tmp_path):
    p = tmp_path / "x.npz"
    p.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(Refused, match="x.npz does not load: not a zip archive"):
        check_archive(p, "x.npz", Refused)


# ---------------------------------------------------------------------- output files of the envs commands
def test_an_output_file_that_cannot_be_written_is_named_before_any_work(tmp_path):
    from envs.core.inputs import output_file_problem

    assert output_file_problem(str(tmp_path / "x.json"), "--json") is None
    assert output_file_problem(str(tmp_path), "--json") == f"--json {str(tmp_path)!r} is a directory; give a file name"
    missing = str(tmp_path / "no" / "x.json")
    assert output_file_problem(missing, "--json").endswith(f"the directory {str(tmp_path / 'no')!r} does not exist")
    assert output_file_problem(missing, "--json", parents_made=True) is None
    long = "a/" * 3000
    assert output_file_problem(long, "--plot").startswith("--plot 'a/a/") and "File name too long" in \
        output_file_problem(long, "--plot")


@pytest.mark.parametrize("module, argv, makes_dirs", [
    ("envs.bench.cli", ["--env", "frying_master_v1", "--first", "1", "--games", "1", "--repeats", "1"], False),
    ("envs.baselines", ["--env", "frying_master_v1", "--games", "1"], False),
    ("envs.clock", ["--game", "frying_master", "--games", "1"], True),  # makes the --json file's directories
])
def test_the_envs_commands_refuse_an_output_file_they_could_not_write_before_measuring(module, argv, makes_dirs,
                                                                                       tmp_path, capsys):
    import importlib

    main = importlib.import_module(module).main
    (tmp_path / "afile").write_text("x")
    cases = [("a/" * 3000, "File name too long"), (str(tmp_path), "is a directory; give a file name")]
    if makes_dirs:  # envs.clock makes the directories: a file in their way failed only after the whole sweep
        cases.append((str(tmp_path / "afile" / "sub" / "x.json"), f"{str(tmp_path / 'afile')!r} is a file, not a "
                                                                  f"directory"))
    else:
        cases.append((str(tmp_path / "no" / "x.json"), f"the directory {str(tmp_path / 'no')!r} does not exist"))
    for target, says in cases:
        try:
            rc = main(argv + ["--json", target])
        except SystemExit as e:  # argparse's p.error
            rc = e.code
        out, err = capsys.readouterr()
        assert rc == 2 and says in err and "Traceback" not in err, err
        assert "|" not in out  # no table: nothing was measured


# ---------------------------------------------------------------------- counts and seeds on the command line
def test_int_at_least_and_seconds_say_what_is_allowed():
    import argparse

    from envs.core.inputs import int_at_least, seconds

    assert int_at_least(1)("3") == 3 and int_at_least(0, 5)("0") == 0 and seconds()("0.5") == 0.5 and seconds(zero=True)("0") == 0.0
    for parse, text, says in ((int_at_least(1), "0", "0 is not allowed; allowed: an integer >= 1"),
                              (int_at_least(0, 64), "65", "65 is not allowed; allowed: an integer >= 0 and <= 64"),
                              (int_at_least(1), "2.5", "'2.5' is not an integer"),
                              (int_at_least(1), "x" * 500, "'" + "x" * 200 + "...' is not an integer"),
                              (seconds(), "0", "0 is not allowed; allowed: a finite number of seconds > 0"),
                              (seconds(zero=True), "-1", "-1 is not allowed; allowed: a finite number of seconds >= 0"),
                              (seconds(zero=True), "inf", "inf is not allowed"),
                              (seconds(), "nan", "nan is not allowed"),
                              (seconds(), "soon", "'soon' is not a number")):
        with pytest.raises(argparse.ArgumentTypeError) as err:
            parse(text)
        assert str(err.value) == says or str(err.value).startswith(says), str(err.value)


@pytest.mark.parametrize("module, argv, says", [
    # envs.baselines --games 0 was a ZeroDivisionError traceback (exit 1); -2 printed a table of
    # "-0.0% (208.6%-0.0%)" and exited 0; --seed -1 was a ValueError traceback
    ("envs.baselines", ["--env", "frying_master_v1", "--games", "0"], "argument --games: 0 is not allowed; allowed: an integer >= 1"),
    ("envs.baselines", ["--env", "frying_master_v1", "--games", "-2"], "argument --games: -2 is not allowed"),
    ("envs.baselines", ["--env", "frying_master_v1", "--seed", "-1"], "argument --seed: -1 is not allowed; allowed: an integer >= 0"),
    # the search player's speed table ran with --seconds 0 or -1 and raised a ConfigError traceback at --sims 0
    ("tests.search.speed", ["--sims", "0"], "argument --sims: 0 is not allowed; allowed: an integer >= 1"),
    ("tests.search.speed", ["--seconds", "-1"], "argument --seconds: -1 is not allowed; allowed: a finite number of seconds > 0"),
    # envs.bench --games 99999999999999999999999 ran until it was killed; --mem-games 10**9 built envs
    # until memory ran out, after the other measurements, and lost them all
    ("envs.bench.cli", ["--games", "99999999999999999999999"], "allowed: an integer >= 1 and <= 1000000"),
    ("envs.bench.cli", ["--scaling", "--mem-games", "1000000000"], "allowed: an integer >= 1 and <= 100000"),
    ("envs.bench.cli", ["--workers", "65"], "allowed: an integer >= 1 and <= 64"),
    # an option of a measurement that is off was ignored without a word (envs.clock refused its own)
    ("envs.bench.cli", ["--vector-steps", "100"], "--vector-steps sets the --vector measurement, which is not on"),
    ("envs.bench.cli", ["--mem-games", "10"], "--mem-games sets the --scaling measurement, which is not on"),
    ("envs.clock", ["--game", "frying_master", "--games", "1", "--json", "same.png", "--plot", "same.png"],
     "--json and --plot both name 'same.png'"),
])
def test_a_count_or_seed_out_of_range_is_refused_before_any_game(module, argv, says, capsys):
    import importlib

    with pytest.raises(SystemExit) as e:
        importlib.import_module(module).main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and says in err and "Traceback" not in err, err
    assert "|" not in out


def test_shown_stays_short_and_never_fails():
    """``shown`` built the whole ``repr`` first: a list nested 3,000 deep overflowed the stack
    (a snapshot's message became "RecursionError"), an integer of 5,000 digits raised
    ``ValueError`` (past Python's 4,300-digit ``repr``), a huge list was printed whole before
    it was cut."""
    from envs.core.inputs import shown

    deep: list = []
    for _ in range(3000):
        deep = [deep]
    assert shown(deep) == "[[[[[[[...]]]]]]]"
    assert shown(10 ** 5000) == f"<an integer of {(10 ** 5000).bit_length()} bits>"
    big = shown(list(range(10 ** 6)))
    assert big.startswith("[0, 1, 2, ") and big.endswith(", ...]") and len(big) < 250

    class Broken:
        def __repr__(self):
            raise RuntimeError("no repr")

    assert "Broken" in shown(Broken())
    assert shown("bogus") == "'bogus'" and shown({"a": [1, 2]}) == "{'a': [1, 2]}"
    assert shown("x" * 500).endswith("...") and len(shown("x" * 500)) == 203
    assert shown("x" * 50, 10).endswith("...") and len(shown("x" * 50, 10)) == 13


def test_an_output_file_is_checked_writable_before_any_work_and_a_late_failure_is_one_line(tmp_path, monkeypatch,
                                                                                          capsys):
    """``--json`` into a read-only place passed the check, the whole measurement ran, and the write then
    ended in a traceback with no file; an empty ``--json ''`` was silently ignored; Ctrl-C in
    ``envs.bench``, ``envs.baselines``, ``envs.clock`` and ``tests.search.speed`` printed a traceback."""
    import errno
    import tempfile

    from envs.core.inputs import output_file_problem, run_main

    assert output_file_problem(str(tmp_path / "x.json"), "--json") is None
    assert list(tmp_path.iterdir()) == []  # the check leaves nothing behind
    assert output_file_problem("", "--json") == "--json is empty; give a file name"

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    assert output_file_problem(str(tmp_path / "x.json"), "--json").endswith(": Read-only file system")
    monkeypatch.undo()

    def interrupted():
        raise KeyboardInterrupt

    def refused():
        raise OSError(errno.EROFS, "Read-only file system", "/ro/x.json")

    assert run_main(interrupted) == 130 and run_main(refused) == 2 and run_main(lambda: 0) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["interrupted (Ctrl-C)", "error: Read-only file system: '/ro/x.json'"]


def test_checked_number_names_what_is_allowed_for_every_bad_value():
    from envs.core.inputs import checked_number

    assert checked_number(2, "x", 0, 5) == 2.0 and checked_number(np.float32(0.5), "x", 0, 1) == 0.5
    for bad, says in ((True, "x=True"), (float("nan"), "x=nan"), (10 ** 400, "x=1000"), ("1", "x='1'"), (0, "x=0"),
                      (6, "x=6")):
        with pytest.raises(ValueError, match=rf"{re.escape(says)}.* is not allowed; allowed: a finite number > 0 "
                                             r"and <= 5"):
            checked_number(bad, "x", 0, 5, low_exclusive=True)


def test_first_repeated_names_the_first_item_met_twice():
    from envs.core.inputs import first_repeated

    assert first_repeated(["a", "b", "c"]) is None and first_repeated([]) is None
    assert first_repeated(["a", "b", "b", "a"]) == "b"
    assert first_repeated(iter([3, 1, 3])) == 3
