"""Memory figures, all from :mod:`tracemalloc` (Python and numpy allocations).

* :func:`episode_peak_mib`: the peak of memory allocated during one
  ``reset`` + one random-legal episode of an already built env (a separate,
  untimed pass: tracing slows allocation several-fold).
* :func:`footprint_mib`: memory still held by ``count`` envs of one
  configuration, each built and reset, kept alive together.
"""

from __future__ import annotations

import gc
import tracemalloc
from contextlib import contextmanager
from dataclasses import dataclass

from envs.core.seeding import make_rng

MIB = 1024 * 1024


@dataclass
class Traced:
    current_bytes: int = 0
    peak_bytes: int = 0

    @property
    def current_mib(self) -> float:
        return self.current_bytes / MIB

    @property
    def peak_mib(self) -> float:
        return self.peak_bytes / MIB


@contextmanager
def traced():
    """Trace allocations inside the block; the yielded :class:`Traced` holds,
    after the block, the bytes still allocated and the peak, both relative to
    the block's start (works whether or not tracing was already on)."""
    was_tracing = tracemalloc.is_tracing()
    gc.collect()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    box = Traced()
    try:
        yield box
    finally:
        current, peak = tracemalloc.get_traced_memory()
        box.current_bytes, box.peak_bytes = current - base, peak - base
        if not was_tracing:
            tracemalloc.stop()


def episode_peak_mib(driver, seed: int = 0) -> float:
    env = driver.make()
    rng = make_rng(seed)
    with traced() as t:
        driver.episode(env, rng, seed)
    return t.peak_mib


def footprint_mib(cfg, count: int, seed: int = 0) -> float:
    """MiB held by ``count`` envs of ``cfg`` (an ``envs.EnvConfiguration``),
    each reset with its own seed. One env is built and reset first, untraced,
    so one-time module caches are not charged to the envs."""
    if count < 1:
        raise ValueError("count must be at least 1")
    warm = cfg.parallel_env()
    warm.reset(seed=seed)
    del warm
    held = []
    with traced() as t:
        for i in range(count):
            env = cfg.parallel_env()
            env.reset(seed=seed + i)
            held.append(env)
        del env
        gc.collect()
    del held
    return t.current_mib
