"""Render a seeded game, played by chosen policies, in the terminal; or a saved
replay (:func:`watch_replay`), with the same text picture."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Mapping, Sequence

from envs.core.errors import ConfigError
from envs.core.inputs import terminal_text
from envs.core.play import EpisodeResult

from training.envspec import EnvSpec
from training.policies import make_policy, parse_spec

CLEAR = "\x1b[2J\x1b[H"


def assign_seats(agents: Sequence[str], specs: Sequence[str], what: str = "give one policy for all seats or one "
                 "per seat") -> dict[str, str]:
    """One spec for every seat: a single spec fills all seats; otherwise one per seat in order
    (``what`` opens the error: the command's own words for it)."""
    if len(specs) == 1:
        return {a: specs[0] for a in agents}
    if len(specs) != len(agents):
        raise ConfigError(f"{what} ({len(agents)}: {list(agents)}), got {len(specs)}")
    return dict(zip(agents, specs))


def _framer(write: Callable[[str], None], clear: bool, delay: float) -> Callable[[str], None]:
    def frame(text: str) -> None:
        write((CLEAR if clear else "") + terminal_text(text))
        if delay > 0:
            time.sleep(delay)
    return frame


def _step_frame(env: Any, steps: int, infos: Mapping[str, dict]) -> str:
    """The frame after step ``steps``: who did what, then the table."""
    details = env.unwrapped.last_step_details()
    acted = ", ".join(f"{a}: {details[a]['action_name']}" + (" (blocked)" if infos[a].get("blocked") else "")
                      for a in infos)
    return f"-- step {steps} --  {acted}\n{env.render()}"


def _game_over(env: Any, steps: int, status: str, returns: Mapping[str, float]) -> str:
    outcome = env.engine.outcome()
    winners = outcome.get("winners", [])
    return (f"== game over after {steps} steps ({status})"
            f": winners {winners or 'none'}; scores {outcome.get('scores', {})}; "
            f"returns {{{', '.join(f'{a}: {r:g}' for a, r in returns.items())}}}")


def watch(env_spec: EnvSpec, specs: Sequence[str], seed: int = 0, delay: float = 0.0, clear: bool | None = None,
          every: int = 1, max_steps: int | None = None, out: Callable[[str], None] | None = None,
          on_replay: Callable[[dict], None] | None = None) -> EpisodeResult:
    """Play one game with seed ``seed``, printing the table every ``every`` steps;
    ``on_replay`` (e.g. ``GameSaver.add``) gets the game's replay at the end."""
    write = out or (lambda s: print(s, flush=True))
    if clear is None:
        clear = out is None and sys.stdout.isatty()
    env = env_spec.make(render_mode="ansi")
    seats = assign_seats(env.possible_agents, specs)
    policies = {a: make_policy(seats[a], env_spec) for a in env.possible_agents}
    obs, infos = env.reset(seed=seed)
    rec = None
    if on_replay is not None:
        from training.replay import Recorder

        rec = Recorder(env_spec, seed, {a: parse_spec(s).label for a, s in seats.items()})
        rec.on_reset(obs, infos)
    for i, p in enumerate(policies.values()):
        p.reset(seed * 1000 + i)
    header = "  ".join(f"{a}={parse_spec(s).label}" for a, s in seats.items())
    frame = _framer(write, clear, delay)
    frame(f"{env_spec.label()}  seed {seed}  {header}\n{env.render()}")
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    terminated = truncated = False
    while env.agents and (max_steps is None or steps < max_steps):
        actions = {a: policies[a].act(obs[a], a, env) for a in env.agents}
        result = env.step(actions)
        if rec is not None:
            rec.on_step(actions, result)
        obs, rew, term, trunc, infos = result
        steps += 1
        for a, r in rew.items():
            returns[a] += r
        terminated, truncated = any(term.values()), any(trunc.values())
        if steps % every == 0 or not env.agents:
            frame(_step_frame(env, steps, infos))
    status = 'terminated' if terminated else 'truncated' if truncated else 'stopped'
    write(terminal_text(_game_over(env, steps, status, returns)))
    if rec is not None:
        on_replay(rec.finish(env))
    return EpisodeResult(seed, steps, terminated, truncated, returns, env.engine.outcome())


def watch_replay(data: Mapping[str, Any], delay: float = 0.0, clear: bool | None = None, every: int = 1,
                 start: int = 0, out: Callable[[str], None] | None = None, source: str = "replay") -> EpisodeResult:
    """Replay a saved game (a replay validated by :func:`training.replay.load`) tick by tick
    with the same picture as :func:`watch`: the table after tick ``start`` first (0: as
    dealt), then every ``every`` ticks and the last. The replay is checked as it goes
    (every action legal when its tick comes, the recorded outcome reproduced at the
    end: :class:`~training.replay.ReplayError` otherwise)."""
    from training.replay import ReplayError, iter_replay, validate

    write = out or (lambda s: print(s, flush=True))
    if clear is None:
        clear = out is None and sys.stdout.isatty()
    spec = validate(data, source)
    ticks = len(data["actions"])
    if not 0 <= start <= ticks:
        raise ReplayError(f"--from {start}: {source} has {ticks} ticks; allowed: 0..{ticks}")
    env = spec.make(render_mode="ansi", illegal_action="raise")
    header = "  ".join(f"{a}={label}" for a, label in data["seats"].items())
    frame = _framer(write, clear, delay)
    returns = {a: 0.0 for a in data["agents"]}
    title = f"{spec.compact().label()}  seed {data['seed']}  {header}  (replay of {source}, {ticks} ticks)"
    status = "stopped"

    def dealt(_env) -> None:
        if start == 0:
            frame(f"{title}\n{env.render()}")

    for tick in iter_replay(data, env, source, on_reset=dealt):
        steps = tick.tick + 1
        _, rew, term, trunc, infos = tick.result
        for a, r in rew.items():
            returns[a] += r
        status = "terminated" if any(term.values()) else "truncated" if any(trunc.values()) else status
        if steps == start:
            frame(f"{title}\n" + _step_frame(env, steps, infos))
        elif steps > start and ((steps - start) % every == 0 or steps == ticks):
            frame(_step_frame(env, steps, infos))
    write(terminal_text(_game_over(env, ticks, status, returns)))
    write(terminal_text(f"== replay reproduced the recorded outcome, returns and trajectory digest ({source})"))
    return EpisodeResult(int(data["seed"]), ticks, status == "terminated", status == "truncated", returns,
                         env.engine.outcome())
