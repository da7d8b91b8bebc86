"""Playing whole episodes with a policy per seat (used by reports, bench and eval)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from envs.core.inputs import checked_int
from envs.core.policy import Policy
from envs.core.tick_env import TickParallelEnv


@dataclass
class EpisodeResult:
    seed: int | None
    steps: int
    terminated: bool
    truncated: bool
    returns: dict[str, float]
    outcome: dict[str, Any] = field(default_factory=dict)

    @property
    def winners(self) -> list[str]:
        return list(self.outcome.get("winners", []))


def play_episode(env: TickParallelEnv, policies: Mapping[str, Policy], seed: int | None = None,
                 max_steps: int | None = None, observer: Any = None) -> EpisodeResult:
    """Play one episode; ``policies`` maps every agent to its policy.

    ``observer`` (optional) sees the game as it is played: its
    ``on_reset(obs, infos)`` after the reset and ``on_step(actions, result)``
    after every step (``result``: the 5-tuple ``env.step`` returned); a
    replay recorder (``training.replay.Recorder``) is one. ``max_steps`` (None: to the end) stops
    after that many steps; 0 plays none."""
    missing = [a for a in env.possible_agents if a not in policies]
    if missing:
        raise KeyError(f"play_episode: no policy for {missing}; policies must map every agent of "
                       f"{list(env.possible_agents)} to a policy")
    max_steps = checked_int(max_steps, "play_episode: max_steps", 0, allow_none=True)
    obs, infos = env.reset(seed=seed)
    if observer is not None:
        observer.on_reset(obs, infos)
    for i, p in enumerate(dict.fromkeys(policies.values())):
        p.reset(None if seed is None else seed * 1000 + i)
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    terminated = truncated = False
    while env.agents and (max_steps is None or steps < max_steps):
        actions = {a: policies[a].act(obs[a], a, env) for a in env.agents}
        result = env.step(actions)
        if observer is not None:
            observer.on_step(actions, result)
        obs, rew, term, trunc, _ = result
        steps += 1
        for a, r in rew.items():
            returns[a] += r
        terminated = any(term.values())
        truncated = any(trunc.values())
    return EpisodeResult(seed, steps, terminated, truncated, returns, env.engine.outcome())
