"""envs.integrations.torch_ops: ``logsumexp`` without ``exp``'s slow path on underflowing entries
must be torch's own, value and gradient, bit for bit (the SB3 learner's policy and the RLlib
module rest on it)."""

from __future__ import annotations

import math

import pytest

from tests.integrations.helpers import require

torch = require("torch")

from envs.integrations.torch_ops import FAST_LOGSUMEXP_FROM, _exp_bounds, logsumexp, normalized_logits  # noqa: E402


def _hard_logits(dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Rows a masked normalisation meets, and the edge cases of ``exp``: -1e8 for masked entries
    (most of a row), a row with one entry left, entries whose shifted ``exp`` is subnormal or
    just normal, a row of -inf, a row with +inf, a row with NaN."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(16, 300, generator=g, dtype=dtype) * 4
    keep = torch.rand(16, 300, generator=g) < 0.05
    keep[:, 0] = True
    x = torch.where(keep, x, torch.tensor(-1e8, dtype=dtype))
    normal, zero = _exp_bounds(dtype)
    x[1, :] = -1e8
    x[1, 5] = 0.3  # one entry left
    x[2, 1:40] = x[2, 0] + torch.linspace(zero - 3.0, normal + 3.0, 39, dtype=dtype)  # across the subnormal zone
    x[3, :] = -math.inf
    x[4, 3] = math.inf
    x[5, 9] = math.nan
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_logsumexp_is_torchs_value_and_gradient_bit_for_bit(dtype):
    for seed in range(4):
        x = _hard_logits(dtype, seed)
        grad_out = torch.randn(16, 300, generator=torch.Generator().manual_seed(100 + seed), dtype=dtype)
        grad_lse = grad_out[:, :1]
        results = []
        for lse in (lambda t: t.logsumexp(dim=-1, keepdim=True), logsumexp):
            leaf = x.clone().requires_grad_(True)
            out = leaf - lse(leaf)  # the normalisation the policy does
            out.backward(grad_out)
            alone = x.clone().requires_grad_(True)  # its own gradient: the subnormal entries show here
            lse(alone).backward(grad_lse)
            results.append((lse(x), out.detach(), leaf.grad, alone.grad))
        for ref, got in zip(*results):
            assert torch.equal(torch.nan_to_num(ref, nan=7.0), torch.nan_to_num(got, nan=7.0))
            assert torch.equal(ref.isnan(), got.isnan())
    # the subnormal zone really is one: exp there is neither 0 nor a normal float
    normal, zero = _exp_bounds(dtype)
    tiny = torch.finfo(dtype).smallest_normal
    assert torch.tensor(zero, dtype=dtype).exp() == 0 and torch.tensor(normal, dtype=dtype).exp() >= tiny
    assert 0 < torch.tensor(normal - 2.0, dtype=dtype).exp() < tiny


def test_normalized_logits_takes_each_path_and_gives_torchs_bits():
    """Below :data:`FAST_LOGSUMEXP_FROM` entries (or the caller's count of the underflowing ones)
    torch's own normalisation, from it :func:`logsumexp`; the same bits either way."""
    calls = []
    real = torch.Tensor.logsumexp

    def spy(self, *args, **kwargs):
        calls.append(self.numel())
        return real(self, *args, **kwargs)

    small, big = _hard_logits(torch.float32, 0)[:2], torch.cat([_hard_logits(torch.float32, k) for k in range(4)])
    # (logits, the caller's count of underflowing entries, whether torch's own is expected)
    for x, count, torchs in ((small, None, True), (big, None, False), (big, 0, True), (small, 10 ** 6, False)):
        expected = x - real(x, dim=-1, keepdim=True)
        calls.clear()
        torch.Tensor.logsumexp = spy
        try:
            got = normalized_logits(x, count)
        finally:
            torch.Tensor.logsumexp = real
        assert torch.equal(expected.isnan(), got.isnan())
        assert torch.equal(torch.nan_to_num(expected, nan=7.0), torch.nan_to_num(got, nan=7.0))
        assert bool(calls) == torchs
    assert small.numel() < FAST_LOGSUMEXP_FROM <= big.numel()
