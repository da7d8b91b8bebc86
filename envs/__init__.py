"""Kitchen Arena: PettingZoo environments of cooking board games.

    from envs import wok_star_v1
    env = wok_star_v1.parallel_env(players=3)      # ParallelEnv
    aec = wok_star_v1.env(players=3)               # AEC form
    wok_star_v1.raw_env                            # the unwrapped class

The registry below lists every environment and, per environment, the
configurations the test suite and the benchmark cover. Each game module
``envs/<id>.py`` provides ``raw_env``, ``env``, ``parallel_env``,
``TEST_CONFIGURATIONS`` (a list of keyword dicts covering every player count,
mode and variant), ``max_episode_steps(**kwargs)`` (the documented bound on
the length of a game played with legal actions) and ``HeuristicPolicy``.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

#: Every environment of the project, in the order the docs list them.
ENV_IDS: tuple[str, ...] = ("wok_star_v1", "frying_master_v1", "waroong_wars_v1")


@dataclass(frozen=True)
class EnvConfiguration:
    """One configuration to test or benchmark: an env id and its keyword options."""

    env_id: str
    kwargs: dict[str, Any]

    @property
    def name(self) -> str:
        inner = ",".join(f"{k}={v}" for k, v in self.kwargs.items())
        return f"{self.env_id}[{inner}]"

    def module(self) -> ModuleType:
        return get_env_module(self.env_id)

    def parallel_env(self, **extra: Any):
        return self.module().parallel_env(**{**self.kwargs, **extra})

    def aec_env(self, **extra: Any):
        return self.module().env(**{**self.kwargs, **extra})


def available_env_ids() -> list[str]:
    """The registered environments whose module is present in this checkout."""
    return [e for e in ENV_IDS if importlib.util.find_spec(f"envs.{e}") is not None]


def get_env_module(env_id: str) -> ModuleType:
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment {env_id!r}; known: {list(ENV_IDS)}")
    return importlib.import_module(f"envs.{env_id}")


def test_configurations(env_id: str | None = None) -> list[EnvConfiguration]:
    """Every configuration of every available env (or of one env)."""
    ids = [env_id] if env_id else available_env_ids()
    out = []
    for e in ids:
        for kw in get_env_module(e).TEST_CONFIGURATIONS:
            out.append(EnvConfiguration(e, dict(kw)))
    return out


test_configurations.__test__ = False  # not a pytest test


def __getattr__(name: str) -> ModuleType:
    if name in ENV_IDS:
        return get_env_module(name)
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
