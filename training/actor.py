"""The actor half of a trained MaskablePPO MLP policy, evaluated in numpy.

Frozen snapshots of the learner (self-play opponents) and loaded checkpoints
act through :class:`NumpyActor`: the policy network's weights copied out of
torch. It needs no torch in worker processes, is several times faster than a
torch forward pass for one observation, and pickles as plain arrays. Its
logits match SB3's to float32 rounding (a test checks it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "ELU": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
    "LeakyReLU": lambda x: np.where(x > 0, x, 0.01 * x),
}


class NumpyActor:
    """Masked categorical policy: MLP layers, then the action head."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str,
                 head: tuple[np.ndarray, np.ndarray]):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unsupported activation {activation!r}; supported: {sorted(_ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w.T, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        self.head = (np.ascontiguousarray(head[0].T, dtype=np.float32), np.asarray(head[1], dtype=np.float32))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_sb3_policy(cls, policy: Any) -> "NumpyActor":
        """Copy the actor out of a ``MaskableActorCriticPolicy`` with a flat Box input."""
        import torch.nn as nn

        extractor = type(policy.pi_features_extractor).__name__ if hasattr(policy, "pi_features_extractor") \
            else type(policy.features_extractor).__name__
        if extractor != "FlattenExtractor":
            raise ValueError(f"only FlattenExtractor policies can be exported to numpy, not {extractor}")
        layers, activation = [], None
        for module in policy.mlp_extractor.policy_net:
            if isinstance(module, nn.Linear):
                layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
            else:
                name = type(module).__name__
                if activation not in (None, name):
                    raise ValueError("mixed activations are not supported")
                activation = name
        head = (policy.action_net.weight.detach().cpu().numpy().copy(), policy.action_net.bias.detach().cpu().numpy().copy())
        return cls(layers, activation or "Tanh", head)

    def state(self) -> dict:
        """Plain-array form (picklable; what travels to worker processes)."""
        return {"layers": [(w.T.copy(), b) for w, b in self.layers], "activation": self.activation,
                "head": (self.head[0].T.copy(), self.head[1])}

    @classmethod
    def from_state(cls, state: dict) -> "NumpyActor":
        return cls(state["layers"], state["activation"], state["head"])

    def save_npz(self, path) -> None:
        """Plain ``.npz`` (no pickle): ``w0, b0, w1, b1, ..., head_w, head_b, activation``."""
        arrays = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.T
            arrays[f"b{i}"] = b
        arrays["head_w"], arrays["head_b"] = self.head[0].T, self.head[1]
        arrays["activation"] = np.array(self.activation)
        with open(path, "wb") as f:
            np.savez(f, **arrays)

    @classmethod
    def load_npz(cls, path) -> "NumpyActor":
        with np.load(path, allow_pickle=False) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(z[f"w{i}"], z[f"b{i}"]) for i in range(n)]
            return cls(layers, str(z["activation"]), (z["head_w"], z["head_b"]))

    # ------------------------------------------------------------------ acting
    def logits(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        for w, b in self.layers:
            h = self._act(h @ w + b)
        return h @ self.head[0] + self.head[1]

    def act(self, x: np.ndarray, masks: np.ndarray, deterministic: bool = True,
            rng: np.random.Generator | None = None) -> np.ndarray:
        """Actions for a batch ``x`` (B, d) with legal-action ``masks`` (B, A).

        Deterministic: the most likely legal action. Otherwise a sample from
        the masked softmax, drawn with ``rng`` (Gumbel-max), so results are
        reproducible from the caller's seed."""
        logits = self.logits(np.atleast_2d(x)).astype(np.float64)
        legal = np.atleast_2d(masks).astype(bool)
        if not legal.any(axis=1).all():
            raise ValueError("an observation has no legal action in its mask")
        logits = np.where(legal, logits, -np.inf)
        if not deterministic:
            if rng is None:
                raise ValueError("sampling needs an rng")
            u = rng.random(logits.shape)
            logits = logits - np.log(-np.log(np.clip(u, 1e-300, 1.0 - 1e-16)))
        return np.argmax(logits, axis=1)
