"""What every game's batch observer test checks: the batch's arrays equal each game's own."""

from __future__ import annotations

import numpy as np


def reference_arrays(encoder, engines):
    """Every seat's observation and mask of each engine, game by game (``encoder.observe``, ``action_mask``)."""
    obs = np.stack([np.stack([encoder.observe(e, a) for a in e.agents]) for e in engines])
    masks = np.stack([np.stack([e.action_mask(a) for a in e.agents]) for e in engines])
    return obs, masks


def batch_arrays(observer, encoder, engines, rows=None, size=None):
    """What ``observer.observe`` writes for ``engines`` into rows ``rows`` (default: 0, 1, ...) of
    arrays of ``size`` rows (default: one per engine), the other rows left at -7."""
    rows = list(range(len(engines))) if rows is None else rows
    size = len(engines) if size is None else size
    e0 = engines[0]
    n = len(e0.agents)
    obs = np.full((size, n, encoder.layout.size), -7, dtype=np.float32)
    masks = np.full((size, n, len(e0.action_mask(e0.agents[0]))), -7, dtype=np.int8)
    observer.observe(rows, engines, obs, masks)
    return obs, masks


def check_batch(observer, encoder, engines):
    """The batch's arrays of ``engines`` equal each game's, float32 bytes and int8 entries."""
    obs, masks = batch_arrays(observer, encoder, engines)
    ref_obs, ref_masks = reference_arrays(encoder, engines)
    np.testing.assert_array_equal(obs, ref_obs)
    assert obs.tobytes() == ref_obs.tobytes()
    np.testing.assert_array_equal(masks, ref_masks)
    return obs, masks
