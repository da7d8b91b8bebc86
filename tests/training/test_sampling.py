"""training.sampling: the learner's policy class and its two rollout draws.

``exact`` must give sb3-contrib's own masked policy's actions, values and
log-probabilities bit for bit (every shipped run's reproduction rests on it);
``cdf`` must draw only legal actions, with the policy's probabilities. The
update's ``evaluate_actions`` must give sb3-contrib's values and gradients bit
for bit (its ``logsumexp``: tests/integrations/test_torch_ops.py).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from envs.integrations.torch_ops import FAST_LOGSUMEXP_FROM  # noqa: E402
from training.sampling import SAMPLERS, MaskablePolicy, _cdf_draw, use_sampler  # noqa: E402

N_ACTIONS = 991  # Wok Star's action space: the case the lean draw exists for


def _pair(n_actions: int = N_ACTIONS, obs_dim: int = 12):
    obs_space = spaces.Box(0.0, 1.0, (obs_dim,), np.float32)
    act_space = spaces.Discrete(n_actions)
    torch.manual_seed(3)
    ref = MaskableActorCriticPolicy(obs_space, act_space, lambda _: 1e-3, net_arch=[16, 16])
    ours = MaskablePolicy(obs_space, act_space, lambda _: 1e-3, net_arch=[16, 16])
    ours.load_state_dict(ref.state_dict())
    return ref, ours


def _batch(rng: np.random.Generator, rows: int, n_actions: int, obs_dim: int = 12, density: float = 0.05):
    obs = torch.as_tensor(rng.random((rows, obs_dim), dtype=np.float32))
    masks = rng.random((rows, n_actions)) < density
    masks[np.arange(rows), rng.integers(0, n_actions, rows)] = True  # every row has a legal action
    masks[0, :] = False
    masks[0, 7] = True  # one row with a single legal action
    return obs, masks


@pytest.mark.parametrize("deterministic", [False, True])
def test_exact_draw_is_sb3_contribs_bit_for_bit(deterministic):
    ref, ours = _pair()
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, masks = _batch(rng, 16, N_ACTIONS)
        torch.manual_seed(seed)
        a_ref, v_ref, lp_ref = ref(obs, deterministic=deterministic, action_masks=masks)
        state_ref = torch.random.get_rng_state()
        torch.manual_seed(seed)
        a, v, lp = ours(obs, deterministic=deterministic, action_masks=masks)
        assert a.dtype == a_ref.dtype and a.shape == a_ref.shape
        assert torch.equal(a, a_ref) and torch.equal(v, v_ref) and torch.equal(lp, lp_ref)
        assert torch.equal(torch.random.get_rng_state(), state_ref)  # the same draws were consumed
        assert masks[np.arange(16), a.numpy()].all()


def test_exact_draw_without_masks_is_sb3_contribs():
    ref, ours = _pair(n_actions=30)
    obs, _ = _batch(np.random.default_rng(1), 8, 30)
    torch.manual_seed(0)
    expected = ref(obs)
    torch.manual_seed(0)
    got = ours(obs)
    assert all(torch.equal(x, y) for x, y in zip(got, expected))


@pytest.mark.parametrize("n_actions, masked", [(N_ACTIONS, True), (55, True), (30, False)])
def test_evaluate_actions_is_sb3_contribs_with_the_same_gradients(n_actions, masked):
    """The update's evaluation: values, log-probabilities, entropies and every parameter's
    gradient of a PPO-like loss, bit for bit (991 actions: the masked normalisation by
    :func:`logsumexp`; 55: by torch's, below the threshold)."""
    ref, ours = _pair(n_actions)
    rng = np.random.default_rng(5)
    for _ in range(3):
        obs, masks = _batch(rng, 64, n_actions)
        assert ((~masks).sum() >= FAST_LOGSUMEXP_FROM) == (n_actions == N_ACTIONS)
        actions = torch.as_tensor([rng.choice(np.flatnonzero(row)) for row in masks]).float()
        outs, grads = [], []
        for policy in (ref, ours):
            policy.zero_grad()
            values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks if masked else None)
            loss = (log_prob * torch.linspace(-1, 1, 64)).mean() + values.square().mean() - 0.01 * entropy.mean()
            loss.backward()
            outs.append((values, log_prob, entropy))
            grads.append([p.grad.clone() for p in policy.parameters()])
        assert all(torch.equal(x, y) for x, y in zip(*outs))
        assert all(torch.equal(x, y) for x, y in zip(*grads))


@pytest.mark.parametrize("game", ["frying_master", "wok_star"])
def test_training_with_the_exact_draw_learns_the_same_weights_as_sb3_contrib(game):
    """The whole training stream: MaskablePPO with MlpPolicy and with MaskablePolicy, same seed,
    same env, end with the same parameters (Wok Star: 991 actions, a few legal)."""
    from sb3_contrib import MaskablePPO

    from training.actor import NumpyActor
    from training.config import load_config
    from training.throughput import CONFIG_DIR
    from training.trainer import plan_run
    from training.vec_env import MultiAgentVecEnv

    plan = plan_run(load_config(CONFIG_DIR / f"{game}_quick.yaml"))
    params = []
    for policy in ("MlpPolicy", MaskablePolicy):
        venv = MultiAgentVecEnv(plan.settings, 2, 1)
        try:
            model = MaskablePPO(policy, venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
                                policy_kwargs={"net_arch": [16, 16]})
            if plan.uses_pool:
                venv.add_snapshot("snapshot@0", NumpyActor.from_sb3_policy(model.policy).state())
            model.learn(128)
            params.append([p.detach().clone() for p in model.policy.parameters()])
        finally:
            venv.close()
    assert len(params[0]) == len(params[1])
    assert all(torch.equal(x, y) for x, y in zip(*params))


def test_cdf_draws_only_legal_actions_with_the_policys_probabilities():
    ref, ours = _pair(n_actions=40)
    use_sampler(type("M", (), {"policy": ours})(), "cdf")
    obs, masks = _batch(np.random.default_rng(2), 4, 40, density=0.3)
    with torch.no_grad():
        dist = ref.get_distribution(obs, action_masks=masks)
        probs = dist.distribution.probs.numpy().astype(np.float64)
    draws = 4000
    counts = np.zeros((4, 40))
    torch.manual_seed(0)
    with torch.no_grad():
        for _ in range(draws):
            a, _, lp = ours(obs, action_masks=masks)
            counts[np.arange(4), a.numpy()] += 1
            assert torch.allclose(lp.exp(), torch.as_tensor(probs[np.arange(4), a.numpy()], dtype=torch.float32))
    assert not counts[~masks].any()  # no masked action ever
    assert counts[0, 7] == draws  # the only legal action of row 0
    # every other row: its frequencies within 5 standard errors of the probabilities
    freq = counts[1:] / draws
    se = np.sqrt(probs[1:] * (1 - probs[1:]) / draws) + 1e-9
    assert (np.abs(freq - probs[1:]) <= 5 * se + 1e-3).all()


def test_cdf_draw_never_runs_past_the_last_positive_weight():
    probs = torch.zeros(3, 10)
    probs[0, 9] = 1.0  # the last entry
    probs[1, 0] = 1.0  # the first
    probs[2, 4] = probs[2, 5] = 0.5
    torch.manual_seed(0)
    for _ in range(200):
        a = _cdf_draw(probs).numpy()
        assert a[0] == 9 and a[1] == 0 and a[2] in (4, 5)


def test_cdf_draw_is_deterministic_for_a_seed():
    _, ours = _pair()
    ours.sampler = "cdf"
    obs, masks = _batch(np.random.default_rng(4), 16, N_ACTIONS)
    torch.manual_seed(11)
    first = ours(obs, action_masks=masks)[0]
    torch.manual_seed(11)
    assert torch.equal(first, ours(obs, action_masks=masks)[0])


def test_use_sampler_refuses_what_it_cannot_do_and_changes_nothing():
    ref, ours = _pair(n_actions=5)
    model = type("M", (), {"policy": ours})()
    with pytest.raises(ValueError, match="allowed are exact, cdf"):
        use_sampler(model, "gumbel")
    assert ours.sampler == "exact"
    with pytest.raises(ValueError, match="MaskablePolicy"):
        use_sampler(type("M", (), {"policy": ref})(), "cdf")


def test_config_key_is_checked():
    from envs.core.errors import ConfigError
    from training.config import SCHEMA, load_config

    # config.py spells the allowed values itself (it does not import torch): they must be SAMPLERS
    assert SCHEMA.keys["training"].kind.keys["action_sampler"].kind.choices == SAMPLERS
    assert load_config(None)["training"]["action_sampler"] == "exact"
    assert load_config(None, ["training.action_sampler=cdf"])["training"]["action_sampler"] == "cdf"
    with pytest.raises(ConfigError, match="exact"):
        load_config(None, ["training.action_sampler=gumbel"])
