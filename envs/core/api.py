"""PettingZoo-family entry points for a game.

Each ``envs/<game>_v0.py`` does::

    raw_env = WokStarEnv                    # the unwrapped ParallelEnv class
    env, parallel_env = make_entry_points(raw_env)

``parallel_env(**kwargs)`` is the ParallelEnv itself; ``env(**kwargs)`` is the
AEC form made by PettingZoo's own ``parallel_to_aec`` conversion and wrapped
in its standard ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
"""

from __future__ import annotations

from typing import Any, Callable

from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from envs.core.tick_env import TickParallelEnv


def make_entry_points(raw_cls: type[TickParallelEnv]) -> tuple[Callable[..., Any], Callable[..., TickParallelEnv]]:
    def parallel_env(**kwargs: Any) -> TickParallelEnv:
        return raw_cls(**kwargs)

    def env(**kwargs: Any):
        aec = parallel_to_aec_wrapper(raw_cls(**kwargs))
        aec = wrappers.AssertOutOfBoundsWrapper(aec)
        aec = wrappers.OrderEnforcingWrapper(aec)
        return aec

    name = raw_cls.metadata["name"]
    parallel_env.__doc__ = f"The {name} ParallelEnv. Keyword options: see docs or {raw_cls.__name__}.config_spec()."
    env.__doc__ = f"The {name} AEC env (PettingZoo's parallel_to_aec plus standard wrappers)."
    return env, parallel_env
