"""From a PettingZoo observation dict to the flat vector a policy network reads.

Every env's observation is ``{"observation": Box(float32, (n,)), "action_mask":
Box(int8, (A,))}``. The learner sees one flat ``Box`` of size ``n + P`` (``P``
= number of seats):

* ``observation``, rescaled to [0, 1] with the bounds the env declares
  (``(x - low) / (high - low)`` where both bounds are finite and differ;
  unchanged elsewhere), unless ``normalize=False``;
* the seat's identity: a one-hot over ``env.possible_agents``.

The mask is not part of the vector: it reaches MaskablePPO through
``action_masks()`` (training) or the ``action_mask`` entry (acting).
The encoding is stateless, so a checkpoint needs no running statistics; its
metadata records the bounds' SHA-256 and loading refuses a changed layout.

This vector, not ``obs["observation"]``, is what a checkpoint's SB3 model
reads: ``model.predict(obs["observation"])`` fails on the shape (``n`` vs
``n + P``), and would be wrong even if it did not (unscaled, no seat). Build it
with :meth:`SeatEncoder.encode_observation` (or
``training.policies.load_policy(DIR).model_input(obs, agent)``) and pass the
mask as ``action_masks=obs["action_mask"].astype(bool)``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping

import numpy as np
from gymnasium import spaces

from envs.core.inputs import shown


class SeatEncoder:
    """Encodes one env's observations for any of its seats."""

    def __init__(self, obs_space: spaces.Dict, agents: list[str], normalize: bool = True):
        box = obs_space["observation"]
        self.agents = list(agents)
        self.seat_of = {a: i for i, a in enumerate(self.agents)}
        self.obs_dim = int(np.prod(box.shape))
        self.n_actions = int(obs_space["action_mask"].shape[0])
        self.normalize = bool(normalize)
        low = np.asarray(box.low, dtype=np.float64).reshape(-1)
        high = np.asarray(box.high, dtype=np.float64).reshape(-1)
        self.raw_low, self.raw_high = low.astype(np.float32), high.astype(np.float32)
        scalable = np.isfinite(low) & np.isfinite(high) & (high > low)
        self.offset = np.where(scalable & self.normalize, low, 0.0).astype(np.float32)
        self.scale = np.where(scalable & self.normalize, 1.0 / np.where(scalable, high - low, 1.0), 1.0).astype(np.float32)
        n = len(self.agents)
        self.size = self.obs_dim + n
        if self.normalize:
            lo = np.where(scalable, 0.0, low)
            hi = np.where(scalable, 1.0, high)
        else:
            lo, hi = low, high
        self.space = spaces.Box(
            np.concatenate([lo, np.zeros(n)]).astype(np.float32),
            np.concatenate([hi, np.ones(n)]).astype(np.float32),
            dtype=np.float32,
        )
        self._eye = np.eye(n, dtype=np.float32)

    @classmethod
    def for_env(cls, env, normalize: bool = True) -> "SeatEncoder":
        agent = env.possible_agents[0]
        return cls(env.observation_space(agent), env.possible_agents, normalize)

    def encode(self, observation: np.ndarray, seat: int) -> np.ndarray:
        """The flat float32 vector for seat index ``seat``."""
        x = (np.asarray(observation, dtype=np.float32).reshape(-1) - self.offset) * self.scale
        return np.concatenate([x, self._eye[seat]])

    def encode_rows(self, observations: np.ndarray, seats) -> np.ndarray:
        """:meth:`encode` of many observations at once, ``(rows, obs_dim)``, row ``i`` for seat index
        ``seats[i]`` (or one seat index for every row): the same float32 operations, row by row."""
        x = (np.asarray(observations, dtype=np.float32) - self.offset) * self.scale
        eye = self._eye[np.broadcast_to(np.asarray(seats, dtype=np.intp), (len(x),))]
        return np.concatenate([x, eye], axis=1).astype(np.float32, copy=False)

    def encode_agent(self, obs: dict, agent: str) -> np.ndarray:
        return self.encode(obs["observation"], self.seat_of[agent])

    def encode_observation(self, obs: dict, agent: str, where: str = "encoder") -> np.ndarray:
        """The model input for ``agent``'s env observation, checked: ``obs`` is the
        env's ``{"observation", "action_mask"}`` dict of the right size and
        ``agent`` one of the seats (else a ValueError saying what is allowed)."""
        if agent not in self.seat_of:
            raise ValueError(f"{where}: unknown agent {agent!r}; allowed: one of {self.agents}")
        x = self._entry(obs, "observation", self.obs_dim, where)
        out = self.encode(x, self.seat_of[agent])
        if not math.isfinite(out.sum()):  # (a NaN or an infinity anywhere makes the sum one)
            raise ValueError(f"{where}: observation holds a value that is not a finite number (NaN, an infinity, "
                             f"or one past float32's range); allowed: the env's observation, finite numbers")
        return out

    def mask_of(self, obs: dict, where: str = "encoder") -> np.ndarray:
        """``obs["action_mask"]`` as a boolean vector of the env's number of actions."""
        m = self._entry(obs, "action_mask", self.n_actions, where)
        kind = m.dtype.kind
        if kind == "b":
            return m
        if kind in "iu" and m.dtype.itemsize == 1:  # the env's int8: one reduction (-1 reads as 255)
            wrong = bool(m.view(np.uint8).max() > 1)
        else:
            wrong = kind not in "iuf" or bool(((m != 0) & (m != 1)).any())
        if wrong:
            bad = m[(m != 0) & (m != 1)][:3].tolist() if kind in "iuf" else m.dtype
            raise ValueError(f"{where}: action_mask holds {shown(bad, 60)}; allowed: 0 and 1 (or booleans), one "
                             f"entry per action, 1 where the action is legal")
        return m.astype(bool)

    def _entry(self, obs: dict, key: str, size: int, where: str) -> np.ndarray:
        if not isinstance(obs, Mapping) or key not in obs:
            got = sorted(obs) if isinstance(obs, Mapping) else type(obs).__name__
            raise ValueError(f"{where}: expected the env's observation dict with 'observation' and 'action_mask' "
                             f"(one agent's entry of reset()/step()), got {got}")
        a = np.asarray(obs[key])
        if a.size != size:
            raise ValueError(f"{where}: {key} has {a.size} entries; allowed: {size} (this env's "
                             f"{'observation size' if key == 'observation' else 'number of actions'})")
        return a.reshape(-1)

    def bounds_sha256(self) -> str:
        """Fingerprint of the declared observation bounds (layout changes alter it)."""
        h = hashlib.sha256()
        h.update(self.raw_low.tobytes())
        h.update(self.raw_high.tobytes())
        return h.hexdigest()
