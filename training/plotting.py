"""The learning-curve PNG and its CSV data."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Sequence

import numpy as np

CURVE_HEADER = ["timesteps", "episode_return", "win", "score", "length"]


#: The largest ``curve.csv`` read back (about 5 million games' rows; a run's own are far fewer).
MAX_CURVE_BYTES = 256 * 1024 * 1024


def read_curve(path: Path) -> list[tuple]:
    """The rows of a run's ``curve.csv`` (none if there is none). Anything but the header and rows of
    five finite numbers (blank lines aside) is a ``ValueError`` naming the file and line: a resumed run
    had failed with ``int()``'s message; rows of another length had been dropped without a word (and
    the resumed run then wrote the curve without them), as had a first row that was no header. The
    file is read row by row, up to :data:`MAX_CURVE_BYTES` (a large one had taken 36 times its size
    in memory)."""
    if not path.is_file():
        if path.exists() or path.is_symlink():  # (a directory had read as "no curve", and failed after training)
            raise ValueError(f"{path} is not a regular file; a learning curve is a CSV file")
        return []
    size = path.stat().st_size
    if size > MAX_CURVE_BYTES:
        raise ValueError(f"{path} is {size:,} bytes, more than a learning curve may be ({MAX_CURVE_BYTES:,})")
    out = []
    with open(path, newline="", encoding="utf-8", errors="strict") as f:
        try:
            rows = csv.reader(f)
            header = next(rows, None)
            if header != CURVE_HEADER:
                raise ValueError(f"{path} line 1: {header!r:.120} is not the header {','.join(CURVE_HEADER)}")
            for line, r in enumerate(rows, 2):
                if not r:
                    continue
                try:
                    if len(r) != 5:
                        raise ValueError
                    row = (int(r[0]), float(r[1]), float(r[2]), float(r[3]), int(r[4]))
                    if not np.isfinite(row[1:4]).all():
                        raise ValueError
                except ValueError:
                    raise ValueError(f"{path} line {line}: {r!r:.120} is not a row of {', '.join(CURVE_HEADER)} "
                                     f"(five finite numbers)") from None
                out.append(row)
        except (UnicodeDecodeError, csv.Error) as e:
            raise ValueError(f"{path}: not a CSV learning curve ({e})") from None
    return out


def write_curve(path: Path, rows: Sequence[tuple]) -> None:
    """``curve.csv``, written atomically (:func:`training.checkpoints.atomic_write_text`: a run
    killed while writing it keeps the previous one)."""
    from training.checkpoints import atomic_write_text

    text = io.StringIO(newline="")
    w = csv.writer(text)
    w.writerow(CURVE_HEADER)
    w.writerows(rows)
    atomic_write_text(Path(path), text.getvalue())


def _rolling(x: np.ndarray, k: int) -> np.ndarray:
    if x.size == 0:
        return x
    k = max(1, min(k, x.size))
    c = np.cumsum(np.insert(x, 0, 0.0))
    out = np.empty_like(x, dtype=np.float64)
    for i in range(x.size):
        lo = max(0, i - k + 1)
        out[i] = (c[i + 1] - c[lo]) / (i + 1 - lo)
    return out


def plot_curve(rows: Sequence[tuple], path: Path, title: str, window: int = 100) -> bool:
    """Episode return and win rate (rolling means) against timesteps; False if no data."""
    if not rows:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = np.asarray(rows, dtype=np.float64)
    t, ret, win = data[:, 0], data[:, 1], data[:, 2]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    a1.plot(t, ret, ".", alpha=0.15, markersize=2, color="tab:blue")
    a1.plot(t, _rolling(ret, window), color="tab:blue", label=f"mean of last {window} games")
    a1.set_ylabel("learner return per game")
    a1.legend(loc="lower right")
    a1.grid(alpha=0.3)
    a2.plot(t, _rolling(win, window), color="tab:green")
    a2.set_ylabel(f"win rate (last {window})")
    a2.set_ylim(-0.02, 1.02)
    a2.set_xlabel("timesteps")
    a2.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
