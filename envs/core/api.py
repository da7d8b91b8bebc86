"""PettingZoo-family entry points for a game.

Each ``envs/<game>_vN.py`` does::

    raw_env = WokStarEnv                         # the unwrapped ParallelEnv class
    env, parallel_env = make_entry_points(raw_env, WokStarAECEnv)

``parallel_env(**kwargs)`` is the ParallelEnv itself; ``env(**kwargs)`` is the
game's native AEC env (:class:`~envs.core.aec_env.TickAECEnv`: each action is
checked when it is submitted) in PettingZoo's standard
``OrderEnforcingWrapper`` (:class:`~envs.core.aec_env.OrderEnforcing`: a refused
``reset`` leaves it as it was). No ``AssertOutOfBoundsWrapper``: the env checks
every action itself, with explicit errors that ``python -O`` does not remove.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from envs.core.aec_env import OrderEnforcing, TickAECEnv
from envs.core.tick_env import TickParallelEnv


def make_entry_points(raw_cls: type[TickParallelEnv], aec_cls: type[TickAECEnv] | None = None
                      ) -> tuple[Callable[..., Any], Callable[..., TickParallelEnv]]:
    """``(env, parallel_env)`` for ``raw_cls``. ``aec_cls`` is the game's AEC class (a
    :class:`TickAECEnv` subclass with ``parallel_cls = raw_cls``, defined beside it so that it
    pickles); without one (test toys) it is made here and set on ``raw_cls``'s module."""
    if aec_cls is None:
        aec_cls = type(raw_cls.__name__ + "AEC", (TickAECEnv,),
                       {"parallel_cls": raw_cls, "metadata": raw_cls.metadata, "__module__": raw_cls.__module__})
        setattr(sys.modules[raw_cls.__module__], aec_cls.__name__, aec_cls)
    if aec_cls.parallel_cls is not raw_cls:
        raise TypeError(f"{aec_cls.__name__}.parallel_cls is not {raw_cls.__name__}")

    def parallel_env(**kwargs: Any) -> TickParallelEnv:
        return raw_cls(**kwargs)

    def env(**kwargs: Any):
        return OrderEnforcing(aec_cls(**kwargs))

    name = raw_cls.metadata["name"]
    parallel_env.__doc__ = f"The {name} ParallelEnv. Keyword options: see docs or {raw_cls.__name__}.config_spec()."
    env.__doc__ = (f"The {name} native AEC env ({aec_cls.__name__} in envs.core.aec_env.OrderEnforcing, PettingZoo's "
                   "OrderEnforcingWrapper mended); the same keyword options as parallel_env.")
    return env, parallel_env
