"""Ray RLlib (new API stack) over every Kitchen Arena env.

RLlib's own PettingZoo wrappers (``ParallelPettingZooEnv`` over ``parallel_env()``,
``PettingZooEnv`` over the AEC ``env()``), registered with ``register_env``, train with RLlib's
PPO and the masked module we ship (``envs.integrations.rllib``); the trained module then plays
a greedy game in our env with ``illegal_action="raise"``. Ray runs once per module, on 2 CPUs,
without the dashboard; sampling happens in the driver (``num_env_runners=0``) except in one
test that uses a remote EnvRunner actor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.integrations.helpers import recipe, require

ray = require("ray")
torch = require("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: E402
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402

import envs  # noqa: E402
from envs.bench.harness import random_legal  # noqa: E402
from envs.core.errors import IllegalActionError  # noqa: E402
from envs.integrations import rllib as ka_rllib  # noqa: E402

torch.set_num_threads(1)

#: Episodes of the long games are cut here (``max_cycles``: RLlib sees a truncation) so that a
#: 256-step batch holds finished episodes.
TRUNCATE = 100
#: The smallest configuration of each game, keyed by the id without its version suffix (the
#: ids get renamed to ``_v1``). Wok Star plays whole games (to termination).
SMALL = {"wok_star": {"players": 2}, "frying_master": {"players": 2, "max_cycles": TRUNCATE},
         "waroong_wars": {"players": 3, "max_cycles": TRUNCATE}}
CHEAPEST = envs.ENV_IDS[0]  # Wok Star: the shortest games
LOSS_KEYS = ("total_loss", "policy_loss", "vf_loss", "entropy", "mean_kl_loss")
TRAIN = dict(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)


def small(env_id: str, **extra) -> dict:
    return {**SMALL[env_id.rsplit("_v", 1)[0]], **extra}


@pytest.fixture(scope="module")
def ray_session():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def _params(module) -> dict:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _count_illegal(*, episode, metrics_logger, **kwargs) -> None:
    """on_episode_step callback: count the infos seen and the actions our env replaced."""
    infos = episode.get_infos(-1)
    metrics_logger.log_value("ka_infos_checked", len(infos), reduce="sum")
    metrics_logger.log_value("ka_illegal_replaced", sum(bool(i.get("illegal_replaced")) for i in infos.values()),
                             reduce="sum")


def _train(config, iterations: int = 2):
    algo = config.build_algo()
    try:
        module = algo.get_module(ka_rllib.DEFAULT_POLICY_ID)
        before = _params(module)
        results = [algo.train() for _ in range(iterations)]
        module = algo.get_module(ka_rllib.DEFAULT_POLICY_ID)
        after = _params(module)
    except BaseException:
        algo.stop()
        raise
    return algo, module, before, after, results


def _check_training(env_id, before, after, results, batch=TRAIN["train_batch_size_per_learner"]):
    last = results[-1]
    stats = last["learners"][ka_rllib.DEFAULT_POLICY_ID]
    for key in LOSS_KEYS:
        assert math.isfinite(float(stats[key])), (env_id, key, stats[key])
    assert float(stats["entropy"]) > 0.0  # masked logits still leave a real distribution
    runners = last["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= len(results) * batch
    # Every agent maps to the one shared module: it got every agent-step.
    assert set(runners["num_module_steps_sampled"]) == {ka_rllib.DEFAULT_POLICY_ID}
    assert runners["num_module_steps_sampled"][ka_rllib.DEFAULT_POLICY_ID] == sum(
        runners["num_agent_steps_sampled"].values())
    assert runners.get("num_episodes_lifetime", 0) >= 1  # episodes actually ended
    assert before.keys() == after.keys()
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    assert changed, "no parameter changed after two PPO updates"
    assert all(torch.isfinite(v).all() for v in after.values())


def _greedy_parallel_game(module, env_id: str, seed: int) -> tuple[int, bool, bool]:
    env = envs.get_env_module(env_id).parallel_env(**small(env_id))  # illegal_action="raise"
    assert env.illegal_action == "raise"
    obs, _ = env.reset(seed=seed)
    steps, terms, truncs = 0, {}, {}
    while env.agents:
        actions = ka_rllib.greedy_actions(module, obs)
        assert set(actions) == set(env.agents)
        for a, act in actions.items():
            assert obs[a]["action_mask"][act] == 1, (a, act)
        obs, _rew, terms, truncs, _infos = env.step(actions)
        steps += 1
    return steps, any(terms.values()), any(truncs.values())


def _greedy_aec_game(module, env_id: str, seed: int) -> tuple[int, bool, bool]:
    env = envs.get_env_module(env_id).env(**small(env_id))
    env.reset(seed=seed)
    acted, ended = 0, (False, False)
    for agent in env.agent_iter():
        obs, _rew, term, trunc, _info = env.last()
        if term or trunc:
            ended = (term, trunc)
            env.step(None)
            continue
        act = ka_rllib.greedy_actions(module, {agent: obs})[agent]
        assert obs["action_mask"][act] == 1, (agent, act)
        env.step(act)
        acted += 1
    return acted, ended[0], ended[1]


# ---------------------------------------------------------------------- the module alone
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_masked_module_masks_every_forward_pass(env_id, tmp_path):
    par = envs.get_env_module(env_id).parallel_env(**small(env_id))
    agent = par.possible_agents[0]
    spec = ka_rllib.module_spec(hidden=(32,))
    spec.observation_space, spec.action_space = par.observation_space(agent), par.action_space(agent)
    module = spec.build()
    assert isinstance(module, ka_rllib.MaskedPPOTorchRLModule)
    assert module.observation_space is par.observation_space(agent)  # the Dict space, kept whole

    # A batch of real observations with varied masks, from seeded random legal play.
    rng = np.random.default_rng(0)
    obs, _ = par.reset(seed=0)
    rows = []
    while len(rows) < 16 and par.agents:
        rows.extend(obs[a] for a in par.agents)
        obs, *_ = par.step({a: random_legal(obs[a]["action_mask"], rng) for a in par.agents})
    mask = np.stack([r["action_mask"] for r in rows])
    assert (mask.sum(1) >= 1).all() and (mask == 0).any()
    batch = {Columns.OBS: {"observation": torch.as_tensor(np.stack([r["observation"] for r in rows])),
                           "action_mask": torch.as_tensor(mask)}}
    legal = torch.as_tensor(mask, dtype=torch.bool)

    for out in (module.forward_inference(batch), module.forward_exploration(batch), module.forward_train(batch)):
        logits = out[Columns.ACTION_DIST_INPUTS]
        assert logits.shape == mask.shape
        assert (logits[~legal] == FLOAT_MIN).all()
        assert (logits[legal] > FLOAT_MIN / 2).all() and torch.isfinite(logits[legal]).all()
    assert isinstance(batch[Columns.OBS], dict)  # the caller's batch is not modified

    dist = module.get_exploration_action_dist_cls().from_logits(module.forward_exploration(batch)[
        Columns.ACTION_DIST_INPUTS])
    torch.manual_seed(0)
    samples = torch.stack([dist.sample() for _ in range(200)])  # (200, B)
    assert legal.gather(1, samples.T).all(), "a sampled action is masked"
    assert torch.isfinite(dist.entropy()).all() and torch.isfinite(dist.logp(samples[0])).all()

    values = module.compute_values(batch)
    assert values.shape == (len(rows),) and torch.isfinite(values).all()
    with pytest.raises(ValueError, match="action_mask"):  # a flattened / mask-less batch is refused
        module.forward_inference({Columns.OBS: batch[Columns.OBS]["observation"]})

    # Gradients flow to the networks, not through the masked entries' values.
    out = module.forward_train(batch)
    loss = -module.get_train_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS]).logp(
        samples[0]).mean() + module.compute_values(batch, out[Columns.EMBEDDINGS]).pow(2).mean()
    loss.backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in module.parameters())

    # The module checkpoints with its Dict space and restores identically (RLlib's Checkpointable).
    module.save_to_path(tmp_path / "module")
    restored = RLModule.from_checkpoint(tmp_path / "module")
    assert isinstance(restored, ka_rllib.MaskedPPOTorchRLModule)
    torch.testing.assert_close(restored.forward_inference(batch)[Columns.ACTION_DIST_INPUTS],
                               module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS])


@pytest.mark.parametrize("rows, n_actions", [(64, 991), (4, 55)])
def test_masked_distribution_is_rllibs_categorical_bit_for_bit(rows, n_actions):
    """The module's action distribution against RLlib's ``TorchCategorical`` on masked logits
    (``FLOAT_MIN``, a row with one legal action): samples for a seed, log-probabilities,
    entropy, KL, their gradients; 64 x 991 takes the fast normalisation, 4 x 55 torch's."""
    g = torch.Generator().manual_seed(rows)
    raw = torch.randn(rows, n_actions, generator=g) * 3
    legal = torch.rand(rows, n_actions, generator=g) < 0.05
    legal[:, 0] = True
    legal[1] = False
    legal[1, n_actions - 1] = True
    other = torch.where(legal, torch.randn(rows, n_actions, generator=g), torch.tensor(FLOAT_MIN))
    results = []
    for cls in (ka_rllib.TorchCategorical, ka_rllib.MaskedTorchCategorical):
        leaf = raw.clone().requires_grad_(True)
        dist = cls.from_logits(torch.where(legal, leaf, torch.tensor(FLOAT_MIN)))
        torch.manual_seed(3)
        actions = dist.sample()
        logp, entropy = dist.logp(actions), dist.entropy()
        kl = cls.from_logits(other).kl(dist)
        (logp.sum() + 0.1 * entropy.sum() - kl.sum()).backward()
        results.append((actions, logp, entropy, kl, dist.to_deterministic().sample(), leaf.grad))
    for ref, got in zip(*results):
        assert torch.equal(ref, got)
    assert bool(legal[torch.arange(rows), results[1][0]].all())


def test_module_builds_the_masked_distribution():
    env = envs.get_env_module(CHEAPEST).parallel_env(**small(CHEAPEST))
    agent = env.possible_agents[0]
    module = ka_rllib.MaskedPPOTorchRLModule(observation_space=env.observation_space(agent),
                                             action_space=env.action_space(agent), model_config={})
    for get in (module.get_train_action_dist_cls, module.get_exploration_action_dist_cls,
                module.get_inference_action_dist_cls):
        assert get() is ka_rllib.MaskedTorchCategorical


def test_module_rejects_a_space_without_mask():
    import gymnasium as gym

    spec = ka_rllib.module_spec(hidden=(8,))
    spec.observation_space, spec.action_space = gym.spaces.Box(-1, 1, (4,)), gym.spaces.Discrete(3)
    with pytest.raises(ValueError, match="action_mask"):
        spec.build()


# ---------------------------------------------------------------------- RLlib's env pre-check
@pytest.mark.parametrize("form", ka_rllib.FORMS)
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_rllib_precheck_passes_with_noop_and_is_off_with_raise(env_id, form):
    wrapper = {"parallel": ParallelPettingZooEnv, "aec": PettingZooEnv}[form]
    # illegal_action="noop": RLlib's checker (one step with unmasked sampled actions) passes.
    env = ka_rllib.make_env(env_id, small(env_id, illegal_action="noop"), form)
    assert isinstance(env, wrapper)
    for space in env.action_space.values():
        space.seed(0)
    check_multiagent_environments(env)

    # illegal_action="raise" (default): the same sampled actions are refused, so the check
    # fails; masked_ppo_config therefore turns it off for such envs (and on for "noop").
    env = ka_rllib.make_env(env_id, small(env_id), form)
    for space in env.action_space.values():
        space.seed(0)
    with pytest.raises(ValueError) as err:
        check_multiagent_environments(env)
    assert isinstance(err.value.__cause__, IllegalActionError)

    obs, _ = env.reset(seed=0)
    agent = next(iter(obs))
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({a: (illegal if a == agent else 0) for a in obs})

    assert ka_rllib.masked_ppo_config(env_id, small(env_id), form=form).disable_env_checking is True
    assert ka_rllib.masked_ppo_config(env_id, small(env_id, illegal_action="noop"),
                                      form=form).disable_env_checking is False


def test_config_helper_rejects_bad_arguments():
    with pytest.raises(ValueError, match="form"):
        ka_rllib.masked_ppo_config(envs.ENV_IDS[0], form="vector")
    with pytest.raises(ValueError, match="unknown environment"):
        ka_rllib.masked_ppo_config("no_such_game_v0")
    # each returned a config, and hidden=(-1,) failed only in build_algo with torch's message
    env_id = envs.ENV_IDS[1]
    for kwargs, says in (({"num_env_runners": -1}, r"num_env_runners=-1 is not allowed; allowed: an integer >= 0"),
                         ({"num_env_runners": "a"}, r"num_env_runners='a' is not allowed"),
                         ({"seed": -1}, r"seed=-1 is not allowed; allowed: an integer >= 0 or None"),
                         ({"hidden": (-1,)}, r"hidden=\(-1,\) is not allowed; allowed: a sequence of layer sizes"),
                         ({"hidden": 64}, r"hidden=64 is not allowed")):
        with pytest.raises(ValueError, match=says):
            ka_rllib.masked_ppo_config(env_id, small(env_id), **kwargs)
    with pytest.raises(ValueError, match=r"activation='bogus' is not allowed: Unknown activation"):
        ka_rllib.module_spec(activation="bogus")
    with pytest.raises(ValueError, match="env_kwargs must be a dict of the env's options"):
        ka_rllib.make_env(env_id, "players=2")


def test_greedy_actions_and_the_module_name_a_bad_mask_or_observation():
    """A mask of the wrong width was torch's "size of tensor a must match"; a ``(A,)`` mask was
    broadcast to every row; a numpy mask an ``AttributeError``; an observation without its
    mask a bare ``KeyError``, a flat one an ``IndexError``."""
    env_id = envs.ENV_IDS[1]
    par = envs.get_env_module(env_id).parallel_env(**small(env_id))
    agent = par.possible_agents[0]
    spec = ka_rllib.module_spec(hidden=(8,))
    spec.observation_space, spec.action_space = par.observation_space(agent), par.action_space(agent)
    module = spec.build()
    obs, _ = par.reset(seed=0)
    good = ka_rllib.greedy_actions(module, obs)
    assert all(obs[a]["action_mask"][i] for a, i in good.items())
    n = par.action_space(agent).n
    rows = np.stack([obs[a]["observation"] for a in par.agents])
    masks = np.stack([obs[a]["action_mask"] for a in par.agents])
    for mask, says in ((masks[:, :-1], rf"the action mask has shape \({len(rows)}, {n - 1}\); allowed: "
                                       rf"\({len(rows)}, {n}\)"),
                       (masks[0], rf"the action mask has shape \({n},\)")):
        batch = {Columns.OBS: {"observation": torch.as_tensor(rows), "action_mask": torch.as_tensor(mask)}}
        with pytest.raises(ValueError, match=says):
            module.forward_inference(batch)
    as_numpy = {Columns.OBS: {"observation": torch.as_tensor(rows), "action_mask": masks}}
    assert module.forward_inference(as_numpy)[Columns.ACTION_DIST_INPUTS].shape == (len(rows), n)
    with pytest.raises(ValueError, match=r"observations\['chef_0'\] must be a PettingZoo observation dict"):
        ka_rllib.greedy_actions(module, {"chef_0": {"observation": rows[0]}})
    with pytest.raises(ValueError, match=r"must be a PettingZoo observation dict .* got ndarray"):
        ka_rllib.greedy_actions(module, {"chef_0": rows[0]})
    with pytest.raises(ValueError, match="greedy_actions takes"):
        ka_rllib.greedy_actions(module, [obs[agent]])


# ---------------------------------------------------------------------- PPO training
@pytest.mark.parametrize("form", ka_rllib.FORMS)
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_ppo_trains_and_plays_legal_greedy_game(ray_session, env_id, form):
    config = ka_rllib.masked_ppo_config(env_id, small(env_id), form=form, num_env_runners=0,
                                        hidden=(64, 64), seed=0).training(**TRAIN)
    assert config.env == ka_rllib.env_name(env_id, form)
    algo, module, before, after, results = _train(config)
    try:
        # illegal_action="raise" during training: one masked-out action would have crashed sampling.
        _check_training(env_id, before, after, results)
        play = _greedy_parallel_game if form == "parallel" else _greedy_aec_game
        steps, terminated, truncated = play(module, env_id, seed=1)
        assert steps > 0 and (terminated or truncated)
        if "max_cycles" in small(env_id):
            players = len(envs.get_env_module(env_id).parallel_env(**small(env_id)).possible_agents)
            assert steps <= TRUNCATE * (1 if form == "parallel" else players)
        if env_id == CHEAPEST:
            assert terminated and not truncated  # a whole game, played to its end
    finally:
        algo.stop()


def test_remote_env_runner_with_noop_env_and_precheck(ray_session):
    """One EnvRunner actor (the env creator, module and mapping fn travel to it by pickle), the
    AEC form, ``illegal_action="noop"`` with RLlib's pre-check on: the check passes and the
    masked module never needs a replacement (counted from our infos by a callback)."""
    env_id = envs.ENV_IDS[1]
    config = (ka_rllib.masked_ppo_config(env_id, small(env_id, illegal_action="noop"), form="aec",
                                         num_env_runners=1, hidden=(32,), seed=3)
              .training(**TRAIN).callbacks(on_episode_step=_count_illegal))
    assert config.disable_env_checking is False
    algo, module, before, after, results = _train(config)
    try:
        _check_training(env_id, before, after, results)
        for r in results:
            assert r["env_runners"]["ka_infos_checked"] >= TRAIN["train_batch_size_per_learner"]
            assert r["env_runners"]["ka_illegal_replaced"] == 0
        steps, terminated, truncated = _greedy_aec_game(module, env_id, seed=2)
        assert steps > 0 and (terminated or truncated)
    finally:
        algo.stop()


def test_seeded_training_is_deterministic(ray_session):
    weights = []
    for _ in range(2):
        config = ka_rllib.masked_ppo_config(CHEAPEST, small(CHEAPEST), seed=7, hidden=(32,)).training(**TRAIN)
        algo, _module, _before, after, _results = _train(config, iterations=1)
        algo.stop()
        weights.append(after)
    assert weights[0].keys() == weights[1].keys()
    for k in weights[0]:
        assert torch.equal(weights[0][k], weights[1][k]), k


# ---------------------------------------------------------------------- docs and bench
def test_recipe_runs_as_written(ray_session):
    code = recipe("rllib")
    assert "envs.ENV_IDS" in code and "assert" in code
    exec(compile(code, "<rllib recipe>", "exec"), {"__name__": "__rllib_recipe__"})


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_measure_runs(env_id):
    from envs.bench.integrations.rllib import measure

    r = measure(env_id, steps=60, seed=0)
    assert r["library"] == "rllib" and r["env_id"] == env_id and r["steps"] == 60
    assert "ParallelPettingZooEnv" in r["wrapper"]
    for key in ("agent_steps_per_s", "aec_agent_steps_per_s", "raw_agent_steps_per_s", "env_runner_agent_steps_per_s"):
        assert r[key] > 0 and math.isfinite(r[key])
