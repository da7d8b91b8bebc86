"""Plain-text rendering helpers shared by the games' ``render()``.

Everything returns ``str`` so ``render_mode="ansi"`` can hand it back and
``"human"`` can print it. No colour codes: logs and CI stay readable.
"""

from __future__ import annotations

from typing import Iterable, Sequence


def rule(title: str = "", width: int = 72, char: str = "=") -> str:
    if not title:
        return char * width
    title = f" {title} "
    left = (width - len(title)) // 2
    return char * max(left, 2) + title + char * max(width - left - len(title), 2)


def box(title: str, lines: Iterable[str], width: int = 72) -> str:
    lines = list(lines)
    inner = max([width - 4] + [len(line) for line in lines])
    top = "+-" + (f" {title} " if title else "").ljust(inner, "-") + "-+"
    body = [f"| {line.ljust(inner)} |" for line in lines] or [f"| {''.ljust(inner)} |"]
    bottom = "+" + "-" * (inner + 2) + "+"
    return "\n".join([top, *body, bottom])


def table(rows: Sequence[Sequence[object]], header: Sequence[str] | None = None) -> str:
    """A left-aligned text table with a header underline."""
    cells = [[str(c) for c in r] for r in rows]
    if header is not None:
        cells = [[str(h) for h in header]] + cells
    if not cells:
        return ""
    widths = [max(len(r[i]) if i < len(r) else 0 for r in cells) for i in range(max(map(len, cells)))]
    out = []
    for k, r in enumerate(cells):
        out.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if k == 0 and header is not None:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def bar(value: float, maximum: float, width: int = 10, fill: str = "#", empty: str = ".") -> str:
    """``[####......]`` for value/maximum."""
    if maximum <= 0:
        return "[" + empty * width + "]"
    n = max(0, min(width, round(width * value / maximum)))
    return "[" + fill * n + empty * (width - n) + "]"


def side_by_side(blocks: Sequence[str], gap: int = 2) -> str:
    """Lay multi-line text blocks out next to each other."""
    split = [b.splitlines() or [""] for b in blocks]
    widths = [max(len(line) for line in lines) for lines in split]
    height = max(len(lines) for lines in split)
    out = []
    for i in range(height):
        parts = [(lines[i] if i < len(lines) else "").ljust(w) for lines, w in zip(split, widths)]
        out.append((" " * gap).join(parts).rstrip())
    return "\n".join(out)
