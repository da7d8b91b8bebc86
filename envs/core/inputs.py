"""What every file door reads through: JSON, YAML and zip archives, with limits.

A snapshot, a checkpoint, a config, a self-play pool or a replay may come from anywhere. Before
its content is checked field by field (:mod:`envs.core.snapshot`, ``training.checkpoints``,
``training.config``), the text or archive itself must be one that the readers can take without
running out of stack, memory or time. The standard readers do not promise that:

* ``json.loads`` raises ``RecursionError`` on arrays nested about a thousand deep and a bare
  ``ValueError`` on an integer of more than 4,300 digits, takes ``NaN`` and ``Infinity``, and keeps
  the last of two equal keys silently;
* PyYAML recurses once per level of nesting, and its anchors and aliases (``&a`` / ``*a``) build a
  value that a few lines expand to billions of entries (the "billion laughs"): reading, copying or
  printing it never ends;
* a zip archive (``.npz``, SB3's ``model.zip``) may decompress a few megabytes to many gigabytes,
  and an ``.npy`` header may declare an array larger than the data behind it, which numpy
  allocates before it reads.

Each function here raises the caller's error class (``SnapshotError``, ``CheckpointError``,
``ConfigError``, ``ReplayError``, ...) with what was wrong and what is allowed, before anything is
built from the input. The limits:

=========================  ==================================================================
:data:`MAX_TEXT_BYTES`     a JSON metadata, index or manifest file (16 MiB)
:data:`MAX_CONFIG_BYTES`   a YAML config file (1 MiB)
:data:`MAX_YAML_VALUES`    values in one YAML document, each alias counted once per use (100,000)
:data:`MAX_ARCHIVE_BYTES`  a zip archive's members together, uncompressed, nested ``.pth`` archives
                           included (1 GiB)
:data:`MAX_ARCHIVE_MEMBERS`  members of one zip archive (10,000)
=========================  ==================================================================

and JSON or YAML nested deeper than the interpreter's recursion allows (about 1,000 levels), a
JSON integer of more than 4,300 digits (Python's own limit), ``NaN``/``Infinity`` and a repeated
key in one JSON object. The largest shipped checkpoint archive holds a few megabytes; the
largest config a few kilobytes.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import reprlib
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

MAX_TEXT_BYTES = 16 * 1024 * 1024
MAX_CONFIG_BYTES = 1024 * 1024
MAX_YAML_VALUES = 100_000
MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024
MAX_ARCHIVE_MEMBERS = 10_000
#: the most games one command plays (``--games``, ``evaluation.games``): a million seeded games is
#: hours of play; a typo of many more digits would build its seed list until memory ran out
MAX_GAMES = 1_000_000

ErrorClass = Callable[[str], Exception]


def _mib(n: int) -> str:
    return f"{n:,} bytes" if n < 1024 * 1024 else f"{n / (1024 * 1024):g} MiB"


# ---------------------------------------------------------------------- files
def read_text_file(path: str | Path, where: str, error: ErrorClass, max_bytes: int | None = None) -> str:
    """``path``'s UTF-8 text, refused (``error``) if it is larger than ``max_bytes`` (default
    :data:`MAX_TEXT_BYTES`) or not UTF-8. A missing file raises ``FileNotFoundError`` as
    ``Path.read_text`` does (callers name it)."""
    max_bytes = MAX_TEXT_BYTES if max_bytes is None else max_bytes
    p = Path(path)
    size = p.stat().st_size
    if size > max_bytes:
        raise error(f"{where}: {size:,} bytes is not allowed; allowed: at most {_mib(max_bytes)}")
    with open(p, "rb") as f:
        raw = f.read(max_bytes + 1)  # the file may have grown since stat
    if len(raw) > max_bytes:
        raise error(f"{where}: more than {_mib(max_bytes)} is not allowed; allowed: at most {_mib(max_bytes)}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{where}: not UTF-8 text ({e.reason} at byte {e.start}); allowed: a UTF-8 text file") from None


def quoted(text: object, limit: int = 200) -> str:
    """``text`` quoted for a one-line message, cut after ``limit`` characters (a path, say)."""
    t = str(text)
    return repr(t if len(t) <= limit else t[:limit] + "...")


def checked_int(value: Any, name: str, low: int, high: int | None = None, allow_none: bool = False) -> int | None:
    """An integer argument of a Python API, checked: ``low <= value <= high`` (not a bool, a float
    or a string; numpy integers taken as ints; None only with ``allow_none``), else ``ValueError``
    naming it and what is allowed. Every Python door's count and seed goes through here."""
    if value is None and allow_none:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low
            or (high is not None and value > high)):
        allowed = f"an integer >= {low}" + (f" and <= {high:,}" if high is not None else "")
        raise ValueError(f"{name}={shown(value)} is not allowed; allowed: {allowed}" + (" or None" if allow_none else ""))
    return int(value)


def checked_number(value: Any, name: str, low: float | None = None, high: float | None = None,
                   low_exclusive: bool = False) -> float:
    """A real-number argument of a Python API, checked: finite, not a bool, in the range (``low``
    excluded with ``low_exclusive``), else ``ValueError`` naming it and what is allowed."""
    try:
        ok = (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
              and math.isfinite(value))
    except OverflowError:  # an integer past a float's range
        ok = False
    if ok and low is not None:
        ok = value > low if low_exclusive else value >= low
    if ok and high is not None:
        ok = value <= high
    if not ok:
        lo = "" if low is None else (f" > {low}" if low_exclusive else f" >= {low}")
        hi = "" if high is None else f"{' and' if lo else ''} <= {high}"
        raise ValueError(f"{name}={shown(value)} is not allowed; allowed: a finite number{lo}{hi}")
    return float(value)


def checked_games(value: Any, name: str = "games") -> int:
    """A count of games given to a Python API (``evaluate``, ``run_tournament``, ...): 1 to :data:`MAX_GAMES`."""
    return checked_int(value, name, 1, MAX_GAMES)


def checked_seed(value: Any, name: str = "seed") -> int:
    """A first seed given to a Python API (game ``g`` uses ``seed + g``): an integer >= 0."""
    return checked_int(value, name, 0)


class _Brief(reprlib.Repr):
    """``repr`` that stays short and cannot fail: containers shown to a few levels and items,
    an integer too long for ``repr`` (Python refuses past 4,300 digits) by its size."""

    def repr_int(self, x: int, level: int) -> str:
        try:
            return super().repr_int(x, level)
        except ValueError:
            return f"<an integer of {x.bit_length()} bits>"


def _brief(limit: int) -> _Brief:
    r = _Brief()
    r.maxlevel = 6
    r.maxlist = r.maxtuple = r.maxset = r.maxfrozenset = r.maxdeque = r.maxarray = r.maxdict = 40
    r.maxstring = r.maxlong = r.maxother = limit + 3
    return r


_BRIEF: dict[int, _Brief] = {}


def shown(value: object, limit: int = 200) -> str:
    """``repr(value)`` for a one-line message, cut after ``limit`` characters. It never builds
    the whole ``repr`` of a big or deeply nested value (which could exhaust the stack: a list
    nested 3,000 deep) and never fails (an integer of 5,000 digits, an object whose ``repr``
    raises): containers past 6 levels or 40 items show ``...``."""
    brief = _BRIEF.get(limit)
    if brief is None:
        brief = _BRIEF.setdefault(limit, _brief(limit))
    try:
        r = brief.repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail: name the type instead
        r = f"<a {type(value).__name__}>"
    return r if len(r) <= limit else r[:limit] + "..."


def printable(text: object, limit: int | None = None) -> str:
    """``text`` for a terminal: every character that is not printable (escape sequences, other
    control characters) written as its escape (``\\x1b``), so that a string from a file, a reply
    or a path cannot retitle, clear or write over the terminal; cut after ``limit`` characters."""
    t = str(text)
    if limit is not None and len(t) > limit:
        t = t[:limit] + "..."
    if t.isprintable():
        return t
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in t)


def terminal_text(text: object) -> str:
    """:func:`printable` line by line: the line breaks kept, every other character that is not
    printable written as its escape (what ``watch`` and ``play`` print: a seat label, a path or a
    typed line with an escape sequence had reached the terminal raw)."""
    t = str(text)
    return t if t.replace("\n", "").isprintable() else "\n".join(printable(line) for line in t.split("\n"))


def int_at_least(low: int, high: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` type: an integer ``>= low`` (and ``<= high``), else an error that says what is allowed."""
    allowed = f"an integer >= {low}" + (f" and <= {high}" if high is not None else "")

    def parse(text: str) -> int:
        t = text.strip()
        digits = t[1:] if t[:1] in "+-" else t
        most = sys.get_int_max_str_digits()
        if digits.isdecimal() and most and len(digits) > most:  # int() would refuse it as "not an integer"
            raise argparse.ArgumentTypeError(f"an integer of {len(digits):,} digits is not allowed; allowed: {allowed} "
                                             f"(at most {most:,} digits)")
        if not (digits.isascii() and digits.isdigit()):  # (int() takes '١' and '1_000' too)
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not an integer; allowed: {allowed}")
        value = int(t)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{shown(value)} is not allowed; allowed: {allowed}")
        return value
    parse.__name__ = "integer"
    return parse


def seconds(zero: bool = False, most: float | None = None) -> Callable[[str], float]:
    """An ``argparse`` type: a finite number of seconds > 0 (``>= 0`` with ``zero``; at most
    ``most`` if given), else an error that says what is allowed."""
    bound = (">= 0" if zero else "> 0") + ("" if most is None else f" and <= {most:g}")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number") from None
        if (not math.isfinite(value) or value < 0 or (value == 0 and not zero)
                or (most is not None and value > most)):
            raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: a finite number of seconds {bound}")
        return value
    parse.__name__ = "seconds"
    return parse


def run_main(main: Callable[[], int]) -> int:
    """The exit status of a command's ``main()``, with Ctrl-C one line and 130 and a file the system
    refuses to write (a read-only place) one ``error:`` line and 2, where they had been tracebacks
    (``python -m envs.bench``, ``envs.baselines``, ``envs.clock``, ``tests.search.speed``)."""
    try:
        return main()
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    except OSError as e:
        where = " -> ".join(quoted(f) for f in (e.filename, e.filename2) if f is not None)
        print(f"error: {e.strerror or type(e).__name__}{': ' + where if where else ''}", file=sys.stderr)
        return 2


def output_file_problem(target: str, flag: str, parents_made: bool = False) -> str | None:
    """Why a command could not write its output file ``target`` (given as ``flag``), checked before
    any work is done, or None: an empty name, a directory, a missing directory (unless the command
    makes it: ``parents_made``), a place the system does not let this process write (read-only:
    a file is made and removed there to know), or a path the system refuses (too long, say)."""
    if not str(target).strip():
        return f"{flag} is empty; give a file name"
    p = Path(target)
    try:
        if p.is_dir():
            return f"{flag} {quoted(target)} is a directory; give a file name"
        if str(target).endswith(("/", os.sep)):  # (Path drops the slash: a file named without it was written)
            return f"{flag} {quoted(target)} names a directory (it ends with '/'); give a file name"
        blocker = blocking_file(p.parent)  # the directories a command would make: no file in their way
        if blocker is not None:
            return f"{flag} {quoted(target)}: {quoted(blocker)} is a file, not a directory"
        if not parents_made and not p.parent.is_dir():
            return f"{flag} {quoted(target)}: the directory {quoted(p.parent)} does not exist"
        if p.exists() and not os.access(p, os.W_OK):
            return f"{flag} {quoted(target)}: the file cannot be written (no permission)"
        check_writable(p.parent)  # (a measurement had run, then failed to write)
    except OSError as e:
        return f"{flag} {quoted(target)}: {e.strerror or e}"
    return None


def first_repeated(items: Iterable[Any]) -> Any:
    """The first item of ``items`` met a second time (hashable items), or None."""
    seen: set = set()
    for x in items:
        if x in seen:
            return x
        seen.add(x)
    return None


def first_line(error: BaseException) -> str:
    """An error's first line, for a one-line message ("" for one without a message, as a
    ``KeyboardInterrupt``)."""
    return (str(error).splitlines() or [""])[0]


def atomic_write_text(path: str | Path, text: str, follow_symlink: bool = True) -> None:
    """``path`` written whole under a temporary name beside it, then renamed over the old file (through
    a symlink, its target; ``follow_symlink=False``: over the link itself): a full disk, a file-size
    limit or a kill while writing leaves the previous file as it was, where an ``open(path, "w")`` had
    left it cut short. The temporary file goes on failure."""
    target = Path(os.path.realpath(path)) if follow_symlink else Path(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if target.is_file():  # the new file keeps the old one's permissions
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def check_writable(directory: str | Path) -> None:
    """``OSError`` if this process may not write in ``directory``, or in its nearest existing ancestor
    where it does not exist yet (read-only, no permission): a file is made there and removed, which
    is the one sure test (``os.access`` says yes to root on a read-only mount of some systems)."""
    here = Path(directory)
    while not here.exists() and here != here.parent:
        here = here.parent
    fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=here)
    os.close(fd)
    os.unlink(probe)


def blocking_file(directory: str | Path) -> Path | None:
    """The file in the way of making ``directory`` (its nearest existing ancestor, where that is not
    a directory), or None. ``OSError`` (a path the system refuses) goes to the caller."""
    q = Path(directory)
    while not q.exists() and q != q.parent:
        q = q.parent
    return None if q.is_dir() else q


# ---------------------------------------------------------------------- JSON
def _no_constant(name: str):
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the key {k!r} appears twice in one object; each key may appear once")
        out[k] = v
    return out


def loads_json(text: str | bytes, where: str, error: ErrorClass, damaged: str = "") -> Any:
    """JSON text to data, strictly: no ``NaN``/``Infinity``, no key twice in one object, and a
    text nested too deeply or holding an integer of too many digits refused with ``error``
    (never a bare ``RecursionError`` or ``ValueError``). ``damaged`` is appended to the message
    of text that is not JSON at all (e.g. what a truncated file means to the reader)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise error(f"{where}: {type(text).__name__} is not allowed; allowed: JSON text (a str or bytes)")
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        if isinstance(text, str) and text.startswith("\ufeff"):  # some editors write one first (bytes: json reads it)
            raise error(f"{where}: the text starts with a byte-order mark (U+FEFF), which JSON does not allow; "
                        f"allowed: UTF-8 without one (most editors: 'UTF-8', not 'UTF-8 with BOM')") from None
        raise error(f"{where}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno}){damaged}") from None
    except RecursionError:
        raise error(f"{where}: arrays or objects nested too deeply are not allowed; allowed: fewer than about "
                    f"{sys.getrecursionlimit():,} levels") from None
    except ValueError as e:  # _no_constant, _pairs, or an integer past sys.get_int_max_str_digits()
        text_e = str(e)
        if "integer string conversion" in text_e or "Exceeds the limit" in text_e:
            raise error(f"{where}: an integer of more than {sys.get_int_max_str_digits():,} digits is not allowed") \
                from None
        raise error(f"{where}: {text_e}") from None


# ---------------------------------------------------------------------- YAML
def count_values(data: Any, limit: int) -> int:
    """How many values ``data`` holds (every container and scalar, a shared or repeated one once per
    use, as a reader that walks it sees them), counting stops past ``limit``."""
    n = 0
    stack = [data]
    while stack:
        v = stack.pop()
        n += 1
        if n > limit:
            return n
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple, set)):
            stack.extend(v)
    return n


def check_yaml_size(data: Any, where: str, error: ErrorClass, limit: int | None = None) -> Any:
    """``data`` (a loaded YAML document) unless it expands to more than ``limit`` values (default
    :data:`MAX_YAML_VALUES`)."""
    limit = MAX_YAML_VALUES if limit is None else limit
    if count_values(data, limit) > limit:
        raise error(f"{where}{': ' if where else ''}more than {limit:,} values (each anchor counted once per alias "
                    f"that uses it) is not allowed; allowed: at most {limit:,}")
    return data


# ---------------------------------------------------------------------- zip archives
def _npy_bytes(f) -> int | None:
    """The data size an ``.npy`` stream's header declares (None for an object array, which numpy's
    ``allow_pickle=False`` refuses itself)."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(f)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(f)
    if dtype.hasobject:
        return None
    return math.prod(shape) * dtype.itemsize


class _Refusal(Exception):
    """What :func:`check_archive` refuses, raised as the caller's error class once out of ``zipfile``."""


def check_archive(path: str | Path, where: str, error: ErrorClass, max_bytes: int | None = None,
                  max_members: int | None = None) -> None:
    """Refuse (``error``) a zip archive that is not one, has more than ``max_members`` members, whose
    members (with the members of a ``.pth`` archive inside it, as torch saves them) decompress to more
    than ``max_bytes`` together, or holds an ``.npy`` whose header declares more data than its member
    holds. Reading a member through ``zipfile`` never yields more than its declared size, so the check
    bounds what a reader of the archive can decompress. Defaults: :data:`MAX_ARCHIVE_BYTES`,
    :data:`MAX_ARCHIVE_MEMBERS`."""
    max_bytes = MAX_ARCHIVE_BYTES if max_bytes is None else max_bytes
    max_members = MAX_ARCHIVE_MEMBERS if max_members is None else max_members
    try:
        with zipfile.ZipFile(path) as z:
            _check_zip(z, where, max_bytes, max_members, 0)
    except _Refusal as e:
        raise error(str(e)) from None
    except zipfile.BadZipFile as e:
        raise error(f"{where} does not load: not a zip archive ({e})") from None
    except (OSError, ValueError, EOFError) as e:
        raise error(f"{where} does not load: {type(e).__name__}: {e}") from None


def _check_zip(z: zipfile.ZipFile, where: str, max_bytes: int, max_members: int, total: int) -> int:
    infos = z.infolist()
    if len(infos) > max_members:
        raise _Refusal(f"{where}: {len(infos):,} archive members are not allowed; allowed: at most "
                       f"{max_members:,}")
    for info in infos:
        total += info.file_size
        if total > max_bytes:
            raise _Refusal(f"{where}: members that decompress to more than {_mib(max_bytes)} (member "
                           f"{info.filename!r} alone: {info.file_size:,} bytes) are not allowed; allowed: at most "
                           f"{_mib(max_bytes)} in all")
    twice = first_repeated(info.filename for info in infos)
    if twice is not None:  # (a reader takes one of them: which one is the zip library's choice)
        raise _Refusal(f"{where}: member {twice!r} is in the archive twice; allowed: each member once")
    for info in infos:
        name = info.filename
        if not name.endswith(".npy") and info.file_size >= 6:
            with z.open(info) as f:
                npy = f.read(6) == b"\x93NUMPY"  # (numpy reads an array from a member of any name)
        else:
            npy = name.endswith(".npy")
        if npy:
            with z.open(info) as f:
                try:
                    declared = _npy_bytes(f)
                except ValueError as e:
                    raise _Refusal(f"{where}: member {name!r} is not a valid .npy array ({e})") from None
            if declared is not None and declared > info.file_size:
                raise _Refusal(f"{where}: member {name!r} declares an array of {declared:,} bytes in "
                               f"{info.file_size:,} bytes of data; allowed: an array no larger than the data the "
                               f"member holds")
        elif name.endswith(".pth") and info.file_size:
            with z.open(info) as f:
                head = f.read(4)
            if head == b"PK\x03\x04":  # torch's own zip format: check what torch would decompress from it
                inner = io.BytesIO(z.read(info))
                try:
                    with zipfile.ZipFile(inner) as zi:  # counted as what it holds, not twice
                        total = _check_zip(zi, f"{where} ({name})", max_bytes, max_members, total - info.file_size)
                except zipfile.BadZipFile as e:
                    raise _Refusal(f"{where}: member {name!r} is not a valid archive ({e})") from None
    return total
