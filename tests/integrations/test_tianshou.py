"""Tianshou 2.0: ``tianshou.env.PettingZooEnv(<game>.env())`` in ``DummyVectorEnv`` + ``MultiAgentOffPolicyAlgorithm``.

Tianshou's standard multi-agent path (its ``test/pettingzoo/tic_tac_toe.py``):
the AEC form wrapped in ``PettingZooEnv``, one algorithm per seat, a
``Collector`` filling a ``VectorReplayBuffer`` with one transition per agent
turn. These tests collect whole games with Tianshou's masked random policy and
replay them on our ``parallel_env`` (same seed, same joint actions) to check
that Tianshou saw the game we played; they run a short DQN update for one seat
and check its masked greedy actions.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from tests.integrations.helpers import recipe, require

tianshou = require("tianshou")

import torch  # noqa: E402
from tianshou.algorithm import (  # noqa: E402
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402
from tianshou.utils.torch_utils import policy_within_training_step  # noqa: E402

import envs  # noqa: E402
from envs.core.tick_env import INFO_KEYS  # noqa: E402

torch.set_num_threads(1)

#: The smallest configuration of each game, by its position in the registry (ids get renamed).
SMALL = {envs.ENV_IDS[0]: {"players": 2}, envs.ENV_IDS[1]: {"players": 2}, envs.ENV_IDS[2]: {"players": 3}}


@pytest.fixture(autouse=True)
def _seeded_global_rng():
    """Tianshou's random policy and epsilon-greedy draw from numpy's global generator: seed it, restore it after."""
    state = np.random.get_state()
    np.random.seed(12345)
    torch.manual_seed(12345)
    # Tianshou logs a warning per finished episode because multi-agent rewards are vectors; keep the log readable.
    stats_log = logging.getLogger("tianshou.data.stats")
    level = stats_log.level
    stats_log.setLevel(logging.ERROR)
    yield
    stats_log.setLevel(level)
    np.random.set_state(state)


def _make(env_id: str, **extra):
    mod = envs.get_env_module(env_id)
    return lambda: PettingZooEnv(mod.env(**SMALL[env_id], **extra))


def _random_algorithm(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    return MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents],
        env=env,
    )


def _all(buffer: VectorReplayBuffer) -> Batch:
    """Everything in the buffer; within each env's part, in the order it was collected."""
    return buffer[buffer.sample_indices(0)]


def _assert_legal(data: Batch) -> None:
    mask = np.asarray(data.obs.mask, dtype=bool)
    act = np.asarray(data.act, dtype=np.int64)
    assert mask.ndim == 2 and len(act) == len(mask)
    illegal = np.flatnonzero(~mask[np.arange(len(act)), act])
    assert illegal.size == 0, f"illegal actions at rows {illegal[:10]}: {act[illegal[:10]]}"


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_wrapper_reset_matches_aec(env_id):
    """PettingZooEnv accepts our spaces (it asserts they are equal for every agent) and reports the
    AEC env's first observation and mask."""
    env = _make(env_id)()
    aec = env.env
    assert env.agents == aec.possible_agents
    assert env.observation_space["observation"].dtype == np.float32
    obs, info = env.reset(seed=3)
    first = aec.possible_agents[0]
    assert obs["agent_id"] == first == aec.agent_selection
    raw = aec.observe(first)
    np.testing.assert_array_equal(obs["obs"], raw["observation"])
    np.testing.assert_array_equal(np.asarray(obs["mask"], dtype=np.int8), raw["action_mask"])
    assert set(info) == set(INFO_KEYS)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_masked_random_collection_of_whole_games_replays_on_parallel_env(env_id):
    """Two whole games through DummyVectorEnv + Collector with Tianshou's masked random policy:
    every action legal, both games end by termination, the fixed infos stack into the buffer, and
    replaying each game's joint actions on our parallel_env (same seed) gives the same observations,
    masks, rewards (on the seat that closes each tick) and end."""
    make = _make(env_id)
    probe = make()
    agents = list(probe.agents)
    n = len(agents)
    seeds = [11, 12]
    venv = DummyVectorEnv([make for _ in seeds])
    venv.seed(seeds)  # env.reset(seed=s); the collector's reset then deals the next game of that generator
    buffer = VectorReplayBuffer(20_000, len(seeds))
    collector = Collector[CollectStats](_random_algorithm(probe), venv, buffer)
    collector.reset()
    stats = collector.collect(n_episode=len(seeds))
    assert stats.n_collected_episodes == len(seeds)

    data = _all(buffer)
    assert len(data) == stats.n_collected_steps
    _assert_legal(data)
    assert set(data.info.keys()) >= set(INFO_KEYS)
    assert not np.asarray(data.info.illegal_replaced).any()
    assert np.isfinite(data.rew).all() and data.rew.shape == (len(data), n)

    mod = envs.get_env_module(env_id)
    env_ids = np.asarray(data.info.env_id)
    for e, seed in enumerate(seeds):
        ep = data[np.flatnonzero(env_ids == e)]
        steps = len(ep)
        assert steps % n == 0, "every live agent acts once per tick"
        ticks = steps // n
        assert list(ep.obs.agent_id) == agents * ticks, "Tianshou's turns follow the seat order"
        done = np.asarray(ep.terminated) | np.asarray(ep.truncated)
        assert done[-1] and ep.terminated[-1] and not ep.truncated[-1] and not done[:-1].any()

        par = mod.parallel_env(**SMALL[env_id])
        par.reset(seed=seed)
        obs, _ = par.reset()
        for k in range(ticks):
            rows = slice(k * n, (k + 1) * n)
            for j, a in enumerate(agents):
                np.testing.assert_array_equal(ep.obs.obs[k * n + j], obs[a]["observation"])
                np.testing.assert_array_equal(ep.obs.mask[k * n + j], obs[a]["action_mask"].astype(bool))
            joint = dict(zip(agents, (int(x) for x in ep.act[rows]), strict=True))
            obs, rew, terms, truncs, _ = par.step(joint)
            np.testing.assert_allclose(ep.rew[k * n + n - 1], [rew[a] for a in agents])
            np.testing.assert_array_equal(ep.rew[k * n: k * n + n - 1], 0.0)  # rewards arrive once per tick
        assert all(terms.values()) and not any(truncs.values()) and par.agents == []


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_max_cycles_truncation_and_mask_in_infos_reach_tianshou(env_id):
    """``max_cycles`` truncates after that many ticks (Tianshou sees ``truncated``, not ``terminated``);
    ``mask_in_infos=True`` infos stack too, and each row's info mask is its ``obs_next`` mask."""
    make = _make(env_id, max_cycles=4, mask_in_infos=True)
    probe = make()
    n = len(probe.agents)
    venv = DummyVectorEnv([make])
    venv.seed(5)
    buffer = VectorReplayBuffer(1000, 1)
    stats = Collector[CollectStats](_random_algorithm(probe), venv, buffer).collect(n_episode=1, reset_before_collect=True)
    data = _all(buffer)
    assert stats.n_collected_episodes == 1 and len(data) == 4 * n
    assert data.truncated[-1] and not data.terminated.any() and not data.truncated[:-1].any()
    _assert_legal(data)
    info_mask = np.asarray(data.info.action_mask)
    assert info_mask.shape == (len(data), probe.action_space.n)
    np.testing.assert_array_equal(info_mask.astype(bool), np.asarray(data.obs_next.mask, dtype=bool))


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_dqn_update_for_one_seat_with_random_opponents(env_id):
    """Seat 0 learns with DQN (n-step horizon = one full cycle), the others play at random: the
    update yields finite losses and changes the Q-network; the n-step target bootstraps from the
    learner's own next observation; its masked greedy actions are legal (also where the unmasked
    argmax is not)."""
    make = _make(env_id)
    env = make()
    agents = list(env.agents)
    n = len(agents)
    learner_id = agents[0]
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[64])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.3, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.95,
        n_step_return_horizon=n,
        target_update_freq=5,
    )
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in agents[1:]]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)
    assert algorithm.get_algorithm(learner_id) is learner

    venv = DummyVectorEnv([make, make])
    venv.seed([21, 22])
    buffer = VectorReplayBuffer(4000, 2)
    collector = Collector[CollectStats](algorithm, venv, buffer, exploration_noise=True)
    collector.reset()
    with policy_within_training_step(algorithm.policy):  # the trainer's flag: eps_training applies
        collector.collect(n_step=100 * n)
    data = _all(buffer)
    _assert_legal(data)  # epsilon-greedy exploration respects the mask too

    # The n-step window of each learner transition ends on the transition just before its next turn.
    idx = buffer.sample_indices(0)
    learner_idx = idx[np.asarray(data.obs.agent_id) == learner_id]
    last = learner_idx
    for _ in range(n - 1):
        last = buffer.next(last)
    full = (last - learner_idx) % buffer.maxsize == n - 1  # windows not cut by an episode's end
    assert full.any()
    assert (buffer[last[full]].obs_next.agent_id == learner_id).all()

    before = [p.detach().clone() for p in net.parameters()]
    losses = []
    with policy_within_training_step(algorithm.policy):
        for _ in range(6):
            stats = algorithm.update(buffer=buffer, sample_size=32)
            loss_dict = stats.get_loss_stats_dict()
            assert set(loss_dict) == {f"{learner_id}/loss"}, loss_dict  # only the learner trains
            losses.append(loss_dict[f"{learner_id}/loss"])
    assert np.isfinite(losses).all()
    assert any(not torch.equal(b, p) for b, p in zip(before, net.parameters(), strict=True))

    # Greedy (eps_inference=0, no exploration noise) play: masked argmax of Q.
    eval_venv = DummyVectorEnv([make])
    eval_venv.seed(99)
    eval_buffer = VectorReplayBuffer(4000, 1)
    Collector[CollectStats](algorithm, eval_venv, eval_buffer).collect(n_step=60 * n, reset_before_collect=True)
    eval_data = _all(eval_buffer)
    _assert_legal(eval_data)
    mine = eval_data[np.asarray(eval_data.obs.agent_id) == learner_id]
    with torch.no_grad():
        out = learner.policy(Batch(obs=mine.obs, info=[None] * len(mine)))
    np.testing.assert_array_equal(out.act, mine.act)  # the collected actions are the greedy ones
    mask = np.asarray(mine.obs.mask, dtype=bool)
    assert mask[np.arange(len(mine)), out.act].all()
    raw_argmax = out.logits.argmax(dim=1).numpy()
    assert not mask[np.arange(len(mine)), raw_argmax].all(), "the mask should matter somewhere"


def test_recipe_runs():
    code = recipe("tianshou")
    assert "envs.ENV_IDS" in code
    exec(compile(code, "tianshou_recipe", "exec"), {"__name__": "tianshou_recipe"})


def test_bench_measure_smoke():
    from envs.bench.integrations.tianshou import measure

    r = measure(envs.ENV_IDS[0], steps=60, seed=1)
    assert r["library"] == "tianshou" and r["env_id"] == envs.ENV_IDS[0] and r["steps"] == 60
    for key in ("agent_steps_per_s", "collector_agent_steps_per_s", "raw_agent_steps_per_s"):
        assert r[key] > 0 and np.isfinite(r[key])
