"""Generate the tables in the docs from the code's own tables.

    python -m envs.docs            # rewrite the generated blocks in place
    python -m envs.docs --check    # exit 1 if any block is out of date

A generated block sits between ``<!-- BEGIN GENERATED: key -->`` and
``<!-- END GENERATED: key -->``. In ``docs/<game>.md`` the keys are
``options``, ``sizes``, ``observation``, ``state`` and ``actions``; in
``README.md`` the key ``envs`` holds the table of environments. Each game
module gives ``SUMMARY`` (players, kind, timing) and ``DOC_CONFIGURATION``
(the keyword options whose observation/action tables are printed).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import envs

ROOT = Path(__file__).resolve().parent.parent


def _sizes(cfg: envs.EnvConfiguration) -> tuple[int, int, int]:
    env = cfg.parallel_env()
    return env.encoder.layout.size, env.action_table.n, env.encoder.state_layout.size


def game_blocks(env_id: str) -> dict[str, str]:
    m = envs.get_env_module(env_id)
    doc_kw = dict(getattr(m, "DOC_CONFIGURATION", {}))
    env = m.parallel_env(**doc_kw)
    shown = ", ".join(f"{k}={v!r}" for k, v in doc_kw.items()) or "defaults"
    rows = ["| configuration | observation | actions | state |", "|---|---|---|---|"]
    seen = set()
    for cfg in envs.test_configurations(env_id):
        o, a, s = _sizes(cfg)
        key = (o, a, s, tuple(sorted((k, v) for k, v in cfg.kwargs.items() if k in ("players",))))
        if key in seen:
            continue
        seen.add(key)
        kw = ", ".join(f"{k}={v!r}" for k, v in cfg.kwargs.items())
        rows.append(f"| {kw} | {o} | {a} | {s} |")
    return {
        "options": m.raw_env.config_spec().markdown(),
        "sizes": "Sizes per configuration (distinct ones):\n\n" + "\n".join(rows),
        "observation": f"Shown for {shown}.\n\n" + env.encoder.layout.markdown(),
        "state": f"Shown for {shown}.\n\n" + env.encoder.state_layout.markdown("State vector (`state()`)"),
        "actions": f"Shown for {shown}.\n\n" + env.action_table.markdown(),
    }


def size_range(values) -> str:
    """``"lo-hi"`` over every configuration (``"n"`` when all are equal)."""
    values = sorted(set(values))
    return str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"


def readme_blocks() -> dict[str, str]:
    rows = [
        "| env | game | players | kind | timing | observation | actions |",
        "|---|---|---|---|---|---|---|",
    ]
    for env_id in envs.available_env_ids():
        m = envs.get_env_module(env_id)
        s = m.SUMMARY
        sizes = [_sizes(c)[:2] for c in envs.test_configurations(env_id)]
        obs, act = (size_range(x[i] for x in sizes) for i in (0, 1))
        rows.append(f"| `{env_id}` | {s['game']} | {s['players']} | {s['kind']} | {s['timing']} | {obs} | {act} |")
    return {"envs": "\n".join(rows)}


_BLOCK = re.compile(r"(<!-- BEGIN GENERATED: (?P<key>[\w-]+) -->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=key) -->)", re.S)


def render(text: str, blocks: dict[str, str]) -> str:
    def sub(m: re.Match) -> str:
        key = m.group("key")
        if key not in blocks:
            return m.group(0)
        return m.group(1) + blocks[key].rstrip("\n") + "\n" + m.group(4)

    return _BLOCK.sub(sub, text)


def targets(only: list[str] | None = None) -> list[tuple[Path, dict[str, str]]]:
    out = [] if only else [(ROOT / "README.md", readme_blocks())]
    for env_id in only or envs.available_env_ids():
        game = env_id.rsplit("_v", 1)[0]
        out.append((ROOT / "docs" / f"{game}.md", game_blocks(env_id)))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs.docs")
    p.add_argument("--check", action="store_true", help="only report out-of-date blocks")
    p.add_argument("--env", action="append", choices=list(envs.ENV_IDS), help="only this game's docs (skips README)")
    args = p.parse_args(argv)
    stale, missing = [], []
    for path, blocks in targets(args.env):
        if not path.exists():
            missing.append(str(path))
            continue
        text = path.read_text(encoding="utf-8")
        new = render(text, blocks)
        if new != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if missing:  # a doc the blocks belong in is gone: nothing can bring it up to date
        print("error: missing docs (each holds generated blocks): " + ", ".join(missing), file=sys.stderr)
        return 2
    if args.check:
        if stale:
            print("out of date (run `python -m envs.docs`): " + ", ".join(stale), file=sys.stderr)
            return 1
        print("up to date: every generated block matches")
        return 0
    print("updated: " + (", ".join(stale) if stale else "nothing to change"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
