"""Render a seeded game, played by chosen policies, in the terminal."""

from __future__ import annotations

import sys
import time
from typing import Callable, Sequence

from envs.core.errors import ConfigError
from envs.core.play import EpisodeResult

from training.envspec import EnvSpec
from training.policies import make_policy, parse_spec

CLEAR = "\x1b[2J\x1b[H"


def assign_seats(agents: Sequence[str], specs: Sequence[str]) -> dict[str, str]:
    """One spec for every seat: a single spec fills all seats; otherwise one per seat in order."""
    if len(specs) == 1:
        return {a: specs[0] for a in agents}
    if len(specs) != len(agents):
        raise ConfigError(f"give one policy for all seats or one per seat ({len(agents)}: {list(agents)}), "
                         f"got {len(specs)}")
    return dict(zip(agents, specs))


def watch(env_spec: EnvSpec, specs: Sequence[str], seed: int = 0, delay: float = 0.0, clear: bool | None = None,
          every: int = 1, max_steps: int | None = None, out: Callable[[str], None] | None = None) -> EpisodeResult:
    """Play one game with seed ``seed``, printing the table every ``every`` steps."""
    write = out or (lambda s: print(s, flush=True))
    if clear is None:
        clear = out is None and sys.stdout.isatty()
    env = env_spec.make(render_mode="ansi")
    seats = assign_seats(env.possible_agents, specs)
    policies = {a: make_policy(seats[a], env_spec) for a in env.possible_agents}
    obs, _ = env.reset(seed=seed)
    for i, p in enumerate(policies.values()):
        p.reset(seed * 1000 + i)
    header = "  ".join(f"{a}={parse_spec(s).label}" for a, s in seats.items())

    def frame(text: str) -> None:
        write((CLEAR if clear else "") + text)
        if delay > 0:
            time.sleep(delay)

    frame(f"{env_spec.label()}  seed {seed}  {header}\n{env.render()}")
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    terminated = truncated = False
    while env.agents and (max_steps is None or steps < max_steps):
        actions = {a: policies[a].act(obs[a], a, env) for a in env.agents}
        obs, rew, term, trunc, infos = env.step(actions)
        steps += 1
        for a, r in rew.items():
            returns[a] += r
        terminated, truncated = any(term.values()), any(trunc.values())
        if steps % every == 0 or not env.agents:
            details = env.unwrapped.last_step_details()
            acted = ", ".join(f"{a}: {details[a]['action_name']}" + (" (blocked)" if infos[a].get("blocked") else "")
                              for a in infos)
            frame(f"-- step {steps} --  {acted}\n{env.render()}")
    outcome = env.engine.outcome()
    winners = outcome.get("winners", [])
    write(f"== game over after {steps} steps ({'terminated' if terminated else 'truncated' if truncated else 'stopped'})"
          f": winners {winners or 'none'}; scores {outcome.get('scores', {})}; "
          f"returns {{{', '.join(f'{a}: {r:g}' for a, r in returns.items())}}}")
    return EpisodeResult(seed, steps, terminated, truncated, returns, outcome)
