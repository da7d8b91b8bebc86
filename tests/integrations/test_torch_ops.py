"""envs.integrations.torch_ops: ``logsumexp`` without ``exp``'s slow path on underflowing entries
must be torch's own, value and gradient, bit for bit (the SB3 learner's policy and the RLlib
module rest on it); ``multinomial_one`` must draw what ``torch.multinomial(probs, 1, True)`` draws
from the same generator state, and leave the generator where torch leaves it."""

from __future__ import annotations

import math

import pytest

from tests.integrations.helpers import require

torch = require("torch")

from envs.integrations import torch_ops  # noqa: E402
from envs.integrations.torch_ops import (  # noqa: E402
    FAST_LOGSUMEXP_FROM, _exp_bounds, _exponentials, logsumexp, multinomial_one, normalized_logits,
)


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


def _warm_torchs_logsumexp(dtype: torch.dtype) -> None:
    """Torch's own ``logsumexp``, called once before it is the reference: its first call in a
    process now and then gives a value a couple of units in the last place off the one every
    later call gives (measured: row 8 of ``_hard_logits(float32, 0)``, 8.616714 against 8.616713,
    in 4 of 40 pytest processes; the second and third calls agreed in all 40)."""
    x = _hard_logits(dtype, 0)
    x.logsumexp(dim=-1, keepdim=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_logsumexp_is_torchs_value_and_gradient_bit_for_bit(dtype):
    _warm_torchs_logsumexp(dtype)
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

    _warm_torchs_logsumexp(torch.float32)
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


def _count_sparse_readings(monkeypatch) -> list:
    """A list that gets one entry for each draw :func:`multinomial_one` reads from the positive
    entries itself (the others are torch's own draw)."""
    sparse: list = []
    real = torch_ops._argmax_ratios
    monkeypatch.setattr(torch_ops, "_argmax_ratios", lambda *a: sparse.append(1) or real(*a))
    return sparse


def _both_draws(probs: torch.Tensor, seed: int):
    """``torch.multinomial(probs, 1, True)`` and :func:`multinomial_one` from the same default
    generator state, each with the next numbers the generator gives after it (or the error)."""
    out = []
    for draw in (lambda p: torch.multinomial(p, 1, True), multinomial_one):
        torch.manual_seed(seed)
        try:
            got = draw(probs)
        except RuntimeError as e:
            got = str(e)
        out.append((got, torch.rand(4)))
    return out


def _masked_probs(rng, rows: int, width: int, legal: float, scale: float) -> torch.Tensor:
    logits = torch.from_numpy(rng.normal(size=(rows, width)).astype("float32") * scale)
    mask = rng.random((rows, width)) < legal
    mask[range(rows), rng.integers(0, width, rows)] = True
    return torch.softmax(torch.where(torch.from_numpy(mask), logits, torch.tensor(-1e8)), dim=-1)


def test_multinomial_one_draws_torchs_actions_and_leaves_its_generator_alike(monkeypatch):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(7)
    assert torch_ops._torch_draws_so()  # this torch makes its exponentials as the module reads it
    sparse = _count_sparse_readings(monkeypatch)
    for case in range(600):
        rows, width = int(rng.integers(1, 40)), int(rng.choice([1, 2, 55, 300, 991]))
        probs = _masked_probs(rng, rows, width, float(rng.choice([0.01, 0.05, 0.5, 1.0])),
                              float(rng.choice([0.1, 1.0, 5.0, 30.0])))
        if case % 5 == 0:  # weights that are not normalised, down to subnormal ratios
            probs = probs * float(rng.choice([1e-40, 1e-20, 1e20]))
        elif case % 5 == 1:  # huge equal weights: ratios overflow to +inf, a tie the first index wins
            probs = (probs > 0).float() * 3e38
        (a, after_a), (b, after_b) = _both_draws(probs, int(rng.integers(2 ** 40)))
        assert torch.equal(a, b) and a.dtype == b.dtype and a.shape == b.shape, case
        assert torch.equal(after_a, after_b), case
    assert len(sparse) > 80  # 115 of the 600 cases with this seed


def _sparse_batch() -> torch.Tensor:
    """16 rows of Wok Star's 991 actions with a few positive weights each: the sparse reading's case."""
    probs = torch.zeros(16, 991)
    probs[:, ::200] = 0.2
    assert probs.numel() >= torch_ops.SPARSE_DRAW_FROM
    assert torch.count_nonzero(probs) * torch_ops.SPARSE_DRAW_SHARE <= probs.numel()
    return probs


def test_multinomial_one_refuses_what_torch_refuses_with_its_error_and_draws_nothing(monkeypatch):
    sparse = _count_sparse_readings(monkeypatch)
    probs = _sparse_batch()
    assert _both_draws(probs, 3)[0][0].shape == (16, 1) and sparse  # the sparse reading, when nothing is wrong
    sparse.clear()
    bad = {"negative": probs.clone().index_put_((torch.tensor([1]), torch.tensor([3])), torch.tensor(-0.1)),
           "nan": probs.clone().index_put_((torch.tensor([0]), torch.tensor([0])), torch.tensor(math.nan)),
           "inf": probs.clone().index_put_((torch.tensor([2]), torch.tensor([200])), torch.tensor(math.inf)),
           "a zero row": probs.clone().index_fill_(0, torch.tensor([5]), 0.0)}
    for name, p in bad.items():
        (a, after_a), (b, after_b) = _both_draws(p, 3)
        assert isinstance(a, str) and a == b, name
        assert torch.equal(after_a, after_b), name
    assert not sparse


def test_multinomial_one_leaves_other_forms_to_torch(monkeypatch):
    sparse = _count_sparse_readings(monkeypatch)
    wide = torch.cat([_sparse_batch(), _sparse_batch()], dim=1)  # 16 x 1,982, so that every view below is large
    dense = torch.rand(16, 991) + 0.01  # every entry positive: torch's draw is the cheaper
    for p in (wide.double(), wide[:, ::2], wide[0].repeat(3), wide.t().contiguous().t(), dense):
        (a, after_a), (b, after_b) = _both_draws(p, 11)
        assert torch.equal(a, b) and torch.equal(after_a, after_b)
    assert not sparse


def test_multinomial_one_reads_a_zero_uniform_as_torch_does():
    """A uniform of exactly 0 (one double in 2**53) makes an exponential 0: on a positive entry torch's
    ratio is +inf and wins; on an entry of probability 0 it is 0/0, NaN, which torch's argmax takes.
    Both are read by the dense fallback; the sparse reading returns None for them."""
    np = pytest.importorskip("numpy")
    probs = torch.tensor([[0.0, 0.5, 0.0, 0.5], [0.25, 0.25, 0.0, 0.5]])
    p = probs.numpy()
    pos = np.flatnonzero(p > 0)
    u = np.full(p.shape, 0.5)
    u[0, 2] = 0.0  # an entry of probability 0
    assert torch_ops._argmax_ratios(p, pos, u) is None
    q = torch.from_numpy(_exponentials(u.reshape(-1)).reshape(p.shape))
    assert torch.argmax(probs / q, dim=-1).tolist() == [2, 3]  # row 0: torch's argmax takes the NaN
    u = np.full(p.shape, 0.5)
    u[1, 3] = 0.0  # a positive entry: ratio +inf, the row's draw
    assert torch_ops._argmax_ratios(p, pos, u) is None


def test_exponentials_are_torchs_own():
    """Torch's CPU ``exponential_`` of float32 entries is ``-log1p(-u)`` of the double uniforms that
    ``uniform_`` draws from the same generator, with the C library's ``log1p``."""
    g, h = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    q = torch.empty(50_000).exponential_(generator=g)
    u = torch.empty(50_000, dtype=torch.float64).uniform_(generator=h)
    assert torch.equal(q, torch.from_numpy(_exponentials(u.numpy())))
    assert torch.equal(g.get_state(), h.get_state())
    # before the rounding to float32, to the last bit of the double (numpy's or torch's vectorised
    # log1p differs there from the C library's in about one double in twelve)
    q64 = torch.empty(50_000, dtype=torch.float64).exponential_(generator=g)
    u64 = torch.empty(50_000, dtype=torch.float64).uniform_(generator=h)
    assert torch.equal(q64, torch.from_numpy(torch_ops._exponential_doubles(u64.numpy())))
