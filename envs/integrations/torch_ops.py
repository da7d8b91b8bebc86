"""What torch's CPU kernels lack for masked logits (used by the SB3 learner's policy,
``training/sampling.py``, and the RLlib module, :mod:`envs.integrations.rllib`).

A masked action's logit is set to a huge negative number (sb3-contrib: -1e8; RLlib:
``FLOAT_MIN``) and the row is normalised with ``logsumexp``. On this project's CPU build
torch's ``exp`` takes a slow path for every result that underflows: about 35 ns an entry
against 0.4 ns (2,048 x 991 equal entries: 0.6-0.9 ms for arguments down to -86, 72 ms at -88
to -100). A row of Wok Star's 991 actions with a few legal is almost all such entries.
:func:`logsumexp` gives ``torch.logsumexp(x, dim=-1, keepdim=True)``'s value and gradient bit
for bit, and calls ``exp`` only where the result is a normal float (plus the rare subnormal
ones), setting the entries that underflow to the 0 that ``exp`` gives them. Torch computes
``exp`` entry by entry, and the sum sees the same values in the same places
(``docs/performance.md``, "Sixth increment"; ``tests/integrations/test_torch_ops.py`` holds
it equal to torch's).

:func:`multinomial_one` is ``torch.multinomial(probs, 1, True)`` bit for bit, from the same
state of the same generator, with the exponential computed only where a probability is
positive: torch draws one exponential for every entry of every row (about 17 ns each, 270 us
for 16 rows of Wok Star's 991 actions), though an entry of probability 0 can never be drawn
(``docs/performance.md``, "Twelfth increment").
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch as th

#: Entries underflowing in ``exp`` (masked actions) from which :func:`logsumexp` is worth its
#: fixed cost of about a dozen tensor operations; below, torch's own is the cheaper. Measured in
#: the SB3 rollout's forward pass of 16 rows, it gains 60 us a call at Wok Star's 991 actions
#: (about 15,500 masked) and loses 25 us at 300 actions (about 4,600 masked). So a rollout step
#: of Frying Master or Waroong Wars stays with torch's, and every update's batch takes this one.
#: Only on the CPU: the slow path is the CPU kernel's.
FAST_LOGSUMEXP_FROM = 8192


def _exp_bounds(dtype: th.dtype) -> tuple[float, float]:
    """(``normal``, ``zero``) for ``dtype``: ``exp(x)`` is a normal float for ``x >= normal``
    and exactly 0 for ``x < zero`` (below the log of the smallest subnormal, with a margin)."""
    info = th.finfo(dtype)
    return math.ceil(math.log(info.smallest_normal)) + 1.0, math.floor(math.log(info.smallest_normal * info.eps)) - 6.0


def _exp_shifted(z: th.Tensor) -> th.Tensor:
    """``z.exp()`` bit for bit, for ``z`` of a logsumexp (at most about 0): ``exp`` is taken on
    the entries whose result is a normal float (and on the rare subnormal ones), the entries
    that underflow are set to the 0 that ``exp`` gives them, without its slow path."""
    normal, zero = _exp_bounds(z.dtype)
    out = z.clamp(min=normal).exp_()  # exact where z >= normal; NaN stays NaN
    low = z < normal
    out.masked_fill_(low, 0.0)
    sub = low.logical_and_(z >= zero)  # subnormal results: exp itself, on those entries only
    if sub.any():
        out[sub] = z[sub].exp()
    return out


class _LogSumExp(th.autograd.Function):
    """``torch.logsumexp(x, dim=-1, keepdim=True)``: the same value and the same gradient
    (``grad * exp(x - result)``), bit for bit, with :func:`_exp_shifted` for the ``exp``."""

    @staticmethod
    def forward(ctx, x: th.Tensor) -> th.Tensor:
        maxes = x.amax(dim=-1, keepdim=True)
        maxes = maxes.masked_fill(maxes.abs() == math.inf, 0)
        out = _exp_shifted(x - maxes).sum(dim=-1, keepdim=True).log_().add_(maxes)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: th.Tensor) -> th.Tensor:
        x, out = ctx.saved_tensors
        return grad * _exp_shifted(x - out)


def logsumexp(x: th.Tensor) -> th.Tensor:
    """``x.logsumexp(dim=-1, keepdim=True)`` for a floating tensor with a last dimension,
    value and gradient bit for bit, without ``exp``'s slow path on entries that underflow
    (masked logits): see the module doc."""
    return _LogSumExp.apply(x)


def normalized_logits(logits: th.Tensor, underflowing: int | None = None) -> th.Tensor:
    """``logits - logits.logsumexp(dim=-1, keepdim=True)`` (what ``torch.distributions.Categorical``
    stores as its ``logits``), bit for bit: by :func:`logsumexp` on the CPU from
    :data:`FAST_LOGSUMEXP_FROM` ``underflowing`` entries (the masked ones, where the caller
    knows them; else the count of all entries stands in for them), else by torch's."""
    count = logits.numel() if underflowing is None else underflowing
    if logits.device.type == "cpu" and count >= FAST_LOGSUMEXP_FROM:
        return logits - logsumexp(logits)
    return logits - logits.logsumexp(dim=-1, keepdim=True)


#: Entries (rows x actions) from which :func:`multinomial_one` reads the positive ones itself, and
#: the share of them that may be positive (one in this many at most); otherwise torch's own draw is
#: the cheaper. Measured for 16 and 64 rows, one core (``docs/performance.md``, "Twelfth increment"):
#: at 16 x 991 with 6 legal a row, 100 us against torch's 286; at 16 x 300 with 2.3 legal, 45 against
#: 94; at 16 x 128, 41 against 46; at Frying Master's 16 x 55 with 13 legal, 51 against 26.
SPARSE_DRAW_FROM = 2048
SPARSE_DRAW_SHARE = 8


def _exponentials(u: np.ndarray) -> np.ndarray:
    """The float32 exponentials that torch's CPU ``exponential_`` (rate 1) makes of the double
    uniforms ``u`` it draws: ``-log1p(-u)`` by the C library's ``log1p`` (``math.log1p``, the
    function torch's kernel calls; numpy's and torch's vectorised ``log1p`` differ from it in the
    last bit of about one double in twelve), rounded to float32."""
    return _exponential_doubles(u).astype(np.float32)


def _exponential_doubles(u: np.ndarray) -> np.ndarray:
    """``-log1p(-u)`` in double precision, by the C library's ``log1p``: what torch's
    ``exponential_`` computes before it rounds to the tensor's dtype (a float64 tensor keeps it)."""
    log1p = math.log1p
    return np.array([-log1p(-x) for x in u.tolist()], dtype=np.float64)


@lru_cache(maxsize=1)
def _torch_draws_so() -> bool:
    """Whether this torch's ``exponential_`` of a float32 tensor is what :func:`_exponentials`
    makes of the double uniforms ``uniform_`` draws from the same generator, using the same
    numbers of it (checked once, on a private generator; else :func:`multinomial_one` is
    ``torch.multinomial`` itself)."""
    g, h = th.Generator().manual_seed(20261206), th.Generator().manual_seed(20261206)
    q = th.empty(4099, dtype=th.float32).exponential_(generator=g)
    u = th.empty(4099, dtype=th.float64).uniform_(generator=h)
    return bool(th.equal(g.get_state(), h.get_state())) and bool(np.array_equal(q.numpy(), _exponentials(u.numpy())))


def _argmax_ratios(probs: np.ndarray, pos: np.ndarray, u: np.ndarray) -> np.ndarray | None:
    """Each row's ``argmax(probs / exponentials(u))`` (the first of equal maxima), weighing only the
    positive entries: an entry of probability 0 has the ratio 0 and a positive one a positive
    ratio, so it is the same index; None where that cannot be read so (a row whose every ratio
    underflows to 0, a uniform of exactly 0 making an exponential 0: the caller then computes
    every ratio as torch does)."""
    if not u.all():
        return None
    rows, width = probs.shape
    flat = probs.reshape(-1)
    with np.errstate(over="ignore"):  # a huge weight's ratio is +inf, as torch's
        ratios = (flat[pos] / _exponentials(u.reshape(-1)[pos])).tolist()
    best, out = [0.0] * rows, [-1] * rows
    for p, r in zip(pos.tolist(), ratios):
        row = p // width
        if r > best[row]:
            best[row], out[row] = r, p - row * width
    if -1 in out:
        return None
    return np.array(out, dtype=np.int64)


def multinomial_one(probs: th.Tensor) -> th.Tensor:
    """``torch.multinomial(probs, 1, True)`` (one draw per row of a 2-D float32 CPU tensor of
    non-negative weights, shape ``(rows, 1)``), bit for bit, from the default generator, which it
    leaves in the same state. Torch draws it as ``argmax(probs / q)`` with ``q`` one exponential
    per entry, each made from a double uniform; this draws the same uniforms (``uniform_``, about
    a fifth of the cost) and makes the exponentials of the positive entries only. Anything else
    (another dtype, device or shape, weights torch refuses, which it refuses with its own error
    before it draws) is ``torch.multinomial`` itself."""
    if (probs.dtype != th.float32 or probs.dim() != 2 or probs.device.type != "cpu"
            or not probs.is_contiguous() or probs.numel() < SPARSE_DRAW_FROM or not _torch_draws_so()):
        return th.multinomial(probs, 1, True)
    probs = probs.detach()
    lo, hi = th.aminmax(probs)
    p = probs.numpy()
    positive = p > 0
    if not (float(lo) >= 0.0 and float(hi) < math.inf) or not positive.any(axis=1).all():
        return th.multinomial(probs, 1, True)  # torch's own error, no number drawn
    pos = np.flatnonzero(positive)
    if pos.size * SPARSE_DRAW_SHARE > p.size:
        return th.multinomial(probs, 1, True)
    u = th.empty(p.shape, dtype=th.float64).uniform_().numpy()
    out = _argmax_ratios(p, pos, u)
    if out is None:
        q = th.from_numpy(_exponentials(u.reshape(-1)).reshape(p.shape))
        return th.argmax(probs / q, dim=-1, keepdim=True)
    return th.from_numpy(out).reshape(-1, 1)
