"""The actor half of a trained MaskablePPO MLP policy, evaluated in numpy.

Frozen snapshots of the learner (self-play opponents) and loaded checkpoints
act through :class:`NumpyActor`: the policy network's weights copied out of
torch. It needs no torch in worker processes, is several times faster than a
torch forward pass for one observation, and pickles as plain arrays (inside
the process boundary only: on disk it is a plain ``.npz``, read with
``allow_pickle=False`` and its shape chain checked). Its logits match SB3's to
float32 rounding (a test checks it).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.inputs import check_archive

_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "ELU": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
    "LeakyReLU": lambda x: np.where(x > 0, x, 0.01 * x),
}


_LAYER_KEY = re.compile(r"[wb](0|[1-9][0-9]*)")


def check_chain(weights: list, biases: list) -> None:
    """Each weight 2-D ``(out, in)`` with ``in`` = the previous ``out``, each bias ``(out,)``;
    the last pair is the head. Raises ValueError naming the first layer that does not fit."""
    if not weights or len(weights) != len(biases):
        raise ValueError("an actor needs a head and one bias per weight matrix")
    prev = None
    for i, (w, b) in enumerate(zip(weights, biases)):
        name = "head" if i == len(weights) - 1 else f"layer {i}"
        w_shape, b_shape = np.shape(w), np.shape(b)
        if len(w_shape) != 2 or min(w_shape) < 1:
            raise ValueError(f"actor {name}: weight shape {w_shape}; allowed: 2-D (out, in), both >= 1")
        if b_shape != (w_shape[0],):
            raise ValueError(f"actor {name}: bias shape {b_shape} does not match weight shape {w_shape} "
                             f"(expected ({w_shape[0]},))")
        if prev is not None and w_shape[1] != prev:
            raise ValueError(f"actor {name}: takes {w_shape[1]} inputs but the previous layer gives {prev}")
        prev = w_shape[0]


class NumpyActor:
    """Masked categorical policy: MLP layers, then the action head."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str,
                 head: tuple[np.ndarray, np.ndarray]):
        """``layers`` and ``head`` in torch's convention: weights ``(out, in)``, biases ``(out,)``.
        The whole shape chain is checked (each layer's input = the previous
        layer's output, the head's input = the last hidden size)."""
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unsupported activation {activation!r}; supported: {sorted(_ACTIVATIONS)}")
        check_chain([w for w, _ in layers] + [head[0]], [b for _, b in layers] + [head[1]])
        self.layers = [(np.ascontiguousarray(np.asarray(w).T, dtype=np.float32), np.asarray(b, dtype=np.float32))
                       for w, b in layers]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        self.head = (np.ascontiguousarray(np.asarray(head[0]).T, dtype=np.float32), np.asarray(head[1], dtype=np.float32))

    @property
    def n_inputs(self) -> int:
        return int((self.layers[0][0] if self.layers else self.head[0]).shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.head[0].shape[1])

    @property
    def hidden_sizes(self) -> list[int]:
        return [int(w.shape[1]) for w, _ in self.layers]

    def expect(self, n_inputs: int, n_actions: int, hidden: list[int] | None = None,
               activation: str | None = None) -> None:
        """Raise ValueError unless the network is ``n_inputs -> hidden -> n_actions`` with ``activation``."""
        problems = []
        if self.n_inputs != int(n_inputs):
            problems.append(f"input size {self.n_inputs}, expected {int(n_inputs)} (the observation vector)")
        if self.n_actions != int(n_actions):
            problems.append(f"output size {self.n_actions}, expected {int(n_actions)} (the number of actions)")
        if hidden is not None and self.hidden_sizes != [int(h) for h in hidden]:
            problems.append(f"hidden sizes {self.hidden_sizes}, expected {[int(h) for h in hidden]}")
        if activation is not None and self.activation.lower() != str(activation).lower():
            problems.append(f"activation {self.activation!r}, expected {activation!r}")
        if problems:
            raise ValueError("the actor network does not fit: " + "; ".join(problems))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_sb3_policy(cls, policy: Any) -> "NumpyActor":
        """Copy the actor out of a ``MaskableActorCriticPolicy`` with a flat Box input."""
        return cls._from_sb3(policy, "pi_features_extractor", policy.mlp_extractor.policy_net, policy.action_net)

    @classmethod
    def critic_from_sb3_policy(cls, policy: Any) -> "NumpyActor":
        """The value half of the same policy in the same form (its MLP, then the one-output value
        head): :meth:`logits` of an encoded observation is the critic's value estimate, what
        SB3's ``policy.predict_values`` gives (the search player's ``value=checkpoint:DIR``)."""
        return cls._from_sb3(policy, "vf_features_extractor", policy.mlp_extractor.value_net, policy.value_net)

    @classmethod
    def _from_sb3(cls, policy: Any, extractor_attr: str, net: Any, head_module: Any) -> "NumpyActor":
        import torch.nn as nn

        extractor = type(getattr(policy, extractor_attr, None) or policy.features_extractor).__name__
        if extractor != "FlattenExtractor":
            raise ValueError(f"only FlattenExtractor policies can be exported to numpy, not {extractor}")
        layers, activation = [], None
        for module in net:
            if isinstance(module, nn.Linear):
                layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
            else:
                name = type(module).__name__
                if activation not in (None, name):
                    raise ValueError("mixed activations are not supported")
                activation = name
        head = (head_module.weight.detach().cpu().numpy().copy(), head_module.bias.detach().cpu().numpy().copy())
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
        """Read an export written by :meth:`save_npz`: numpy's own loader with
        ``allow_pickle=False`` (an object array is refused, never unpickled),
        exactly the keys ``w0, b0, ..., head_w, head_b, activation`` (no gap, no
        extra), float arrays of finite values, a known activation and a
        consistent shape chain; anything else is a ValueError saying what."""
        check_archive(path, Path(path).name, ValueError)
        with zipfile.ZipFile(path) as zf:  # (a member of raw bytes had failed as "'bytes' object has no attribute")
            odd = [n for n in zf.namelist() if not n.endswith(".npy")]
        if odd:
            raise ValueError(f"actor archive member {odd[0]!r} is not an .npy array; allowed: w0.npy, b0.npy, ..., "
                             f"head_w.npy, head_b.npy, activation.npy")
        with np.load(path, allow_pickle=False) as z:
            files = list(z.files)
            n = len([k for k in files if _LAYER_KEY.fullmatch(k) and k.startswith("w")])
            want = [f"{p}{i}" for i in range(n) for p in ("w", "b")] + ["head_w", "head_b", "activation"]
            missing, extra = sorted(set(want) - set(files)), sorted(set(files) - set(want))
            if missing or extra:
                raise ValueError(f"actor arrays {sorted(files)}: missing {missing}, unexpected {extra}; allowed: "
                                 f"w0, b0, ..., w<n-1>, b<n-1>, head_w, head_b, activation")
            arrays = {k: z[k] for k in want}
        act = arrays.pop("activation")
        if act.shape != () or act.dtype.kind != "U":
            raise ValueError(f"actor 'activation' must be one string, not an array of {act.dtype} {act.shape}")
        for k, a in arrays.items():
            if a.dtype.kind != "f":
                raise ValueError(f"actor array {k!r} has dtype {a.dtype}; allowed: floating point")
            with np.errstate(over="ignore"):
                past = not np.isfinite(a.astype(np.float32)).all()
            if not np.isfinite(a).all() or past:
                # (float64 values past float32's range, 1e300, had passed and acted as infinities)
                raise ValueError(f"actor array {k!r} holds non-finite values (NaN or infinity) or values past "
                                 f"float32's range, in which the actor computes")
        layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
        return cls(layers, str(act), (arrays["head_w"], arrays["head_b"]))

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
        logits = self.logits(np.atleast_2d(x))
        legal = np.atleast_2d(masks).astype(bool)
        if not legal.any(axis=1).all():
            raise ValueError("an observation has no legal action in its mask")
        if deterministic:  # float32's arg-max: the float64 one's (the conversion is exact and monotone)
            return np.argmax(np.where(legal, logits, -np.inf), axis=1)
        if rng is None:
            raise ValueError("sampling needs an rng")
        logits = np.where(legal, logits.astype(np.float64), -np.inf)
        u = rng.random(logits.shape)
        return np.argmax(logits - np.log(-np.log(np.clip(u, 1e-300, 1.0 - 1e-16))), axis=1)
