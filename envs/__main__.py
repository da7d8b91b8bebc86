"""``python -m envs``: the registry as JSON (env ids, summaries, configurations).

    python -m envs                 # every env and every configuration the tests cover
    python -m envs --env wok_star_v1
"""

from __future__ import annotations

import argparse
import json

import envs


def registry(env_ids: list[str] | None = None) -> dict:
    out = {"version": envs.__version__, "envs": {}}
    for env_id in env_ids or envs.available_env_ids():
        m = envs.get_env_module(env_id)
        out["envs"][env_id] = {
            "summary": dict(m.SUMMARY),
            "options": {k: {"default": o.default, "allowed": o.allowed_text(), "doc": o.doc}
                        for k, o in m.raw_env.config_spec().options.items()},
            "configurations": [c.kwargs for c in envs.test_configurations(env_id)],
            "max_episode_steps": {c.name: int(m.max_episode_steps(**c.kwargs)) for c in envs.test_configurations(env_id)},
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs", description="Print the environment registry as JSON.")
    p.add_argument("--env", action="append", choices=list(envs.ENV_IDS))
    args = p.parse_args(argv)
    print(json.dumps(registry(args.env), indent=2, default=repr))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
