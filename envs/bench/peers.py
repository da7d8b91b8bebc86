"""PettingZoo's own games, played by the same harness, for a ratio that a
noisy machine cannot fake: ``connect_four_v3`` (classic, AEC) and
``knights_archers_zombies`` (butterfly, parallel, vector observations).

* connect_four_v3: ``for agent in env.agent_iter()``, the acting agent's
  observation and mask from ``env.last()``, a random legal action from the
  mask (``None`` once it is done, as the AEC protocol requires). Every
  ``env.step`` call counts as one agent-step and one joint step, the closing
  ``None`` steps too (cheap steps: this favours the peer).
* knights_archers_zombies (``_v11`` with ``obs_method="vector"`` where
  PettingZoo ships it, else ``_v10`` with ``vector_state=True``):
  ``parallel_env``, a uniformly random action for every live agent each step;
  agent-steps = live agents summed over steps.

Both import pygame; without it :func:`load_peers` raises
:class:`PeersUnavailable` naming the ``bench`` extra.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
import warnings
from dataclasses import dataclass

from envs.bench.errors import Unavailable
from envs.bench.harness import Driver, Episode, random_legal

INSTALL_HINT = 'pip install -e ".[bench]" in a checkout; installed from a wheel: pip install "<the wheel>[bench]"'

#: The issue's targets: our agent-steps/s at least this many times the peer's.
TARGETS = {"connect_four": 3.0, "knights_archers_zombies": 5.0}


class PeersUnavailable(Unavailable):
    pass


@dataclass
class Peer:
    """A peer env's driver, the ratio target against it, and its episodes per
    timed run (connect four games are short, knights-archers-zombies long:
    each count makes a run last tens to hundreds of milliseconds)."""

    driver: Driver
    target: float
    games: int


def _import(name: str):
    """Import one module (the seam tests replace to simulate a missing pygame)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(name)


def play_aec_episode(env, rng, seed, clock=time.perf_counter, max_joint_steps=None) -> Episode:
    t0 = clock()
    env.reset(seed=seed)
    t1 = clock()
    steps = 0
    for _agent in env.agent_iter():
        if max_joint_steps is not None and steps >= max_joint_steps:
            break
        obs, _, terminated, truncated, _ = env.last()
        action = None if (terminated or truncated) else random_legal(obs["action_mask"], rng)
        env.step(action)
        steps += 1
    t2 = clock()
    return Episode(steps, steps, t1 - t0, t2 - t1)


def play_unmasked_parallel_episode(env, rng, seed, clock=time.perf_counter, max_joint_steps=None) -> Episode:
    t0 = clock()
    env.reset(seed=seed)
    t1 = clock()
    n_actions = {a: env.action_space(a).n for a in env.possible_agents}
    agent_steps = joint_steps = 0
    while env.agents:
        if max_joint_steps is not None and joint_steps >= max_joint_steps:
            break
        actions = {a: int(rng.integers(n_actions[a])) for a in env.agents}
        agent_steps += len(actions)
        env.step(actions)
        joint_steps += 1
    t2 = clock()
    return Episode(agent_steps, joint_steps, t1 - t0, t2 - t1)


def _kaz() -> tuple[object, str, dict]:
    for version, kwargs in (("v11", {"obs_method": "vector"}), ("v10", {"vector_state": True})):
        name = f"pettingzoo.butterfly.knights_archers_zombies_{version}"
        if importlib.util.find_spec(name) is not None:
            return _import(name), f"knights_archers_zombies_{version}", kwargs
    raise PeersUnavailable("this PettingZoo has neither knights_archers_zombies_v11 nor _v10")


def load_peers() -> list[Peer]:
    """The two peer drivers with their targets; :class:`PeersUnavailable`
    (with the install hint) when they cannot be imported."""
    try:
        c4 = _import("pettingzoo.classic.connect_four_v3")
        kaz, kaz_id, kaz_kwargs = _kaz()
    except ImportError as e:
        what = "pygame is not installed" if (e.name or "").split(".")[0] == "pygame" else f"import failed: {e}"
        raise PeersUnavailable(
            f"--peers needs PettingZoo's connect_four_v3 and knights_archers_zombies, which need pygame "
            f"({what}). Install the bench extra: {INSTALL_HINT}") from e
    return [
        Peer(Driver(name="connect_four_v3", make=c4.env, episode=play_aec_episode, players=2,
                    env_id="connect_four_v3"), TARGETS["connect_four"], games=50),
        Peer(Driver(name=kaz_id, make=lambda: kaz.parallel_env(**kaz_kwargs), episode=play_unmasked_parallel_episode,
                    players=4, env_id=kaz_id, kwargs=dict(kaz_kwargs)), TARGETS["knights_archers_zombies"], games=3),
    ]
