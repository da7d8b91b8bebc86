"""TorchRL: ``torchrl.envs.libs.pettingzoo.PettingZooWrapper`` over both forms of every game.

What a TorchRL user writes is TorchRL's own wrapper and nothing of ours:
``PettingZooWrapper(env=mod.parallel_env(...) or mod.env(...), use_mask=True,
categorical_actions=True)``. These tests check that ``check_env_specs`` passes,
the groups, done and info tensors TorchRL builds, that a ``MaskedCategorical``
policy only ever takes legal actions across auto-resets, that the AEC form
plays the same game as the parallel form, one PPO update, batched envs, and
the recipe in the docs as written.
"""

from __future__ import annotations

import math

import pytest

from tests.integrations.helpers import recipe, require

torchrl = require("torchrl")

import torch  # noqa: E402
from tensordict.nn import TensorDictModule, TensorDictSequential  # noqa: E402
from torchrl.envs import SerialEnv  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import MarlGroupMapType, check_env_specs  # noqa: E402
from torchrl.modules import MLP, MaskedCategorical, MultiAgentMLP, ProbabilisticActor  # noqa: E402

import envs  # noqa: E402
from envs.core.errors import IllegalActionError  # noqa: E402
from envs.core.tick_env import INFO_KEYS  # noqa: E402

torch.set_num_threads(1)

# TorchRL warns on every wrapper that it was tested with PettingZoo 1.24.3 (we run 1.27).
pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested:UserWarning")

FORMS = ("parallel", "aec")
#: The smallest table of each game (Waroong Wars needs three players).
SMALL = dict(zip(envs.ENV_IDS, ({"players": 2}, {"players": 2}, {"players": 3})))
#: The option that truncates a game after N ticks (PettingZoo's name; ``max_ticks`` is ours, the same).
TRUNCATE = "max_cycles"


def make_pz(env_id: str, form: str, **extra):
    mod = envs.get_env_module(env_id)
    kw = {**SMALL[env_id], **extra}
    return mod.parallel_env(**kw) if form == "parallel" else mod.env(**kw)


def wrap(env_id: str, form: str, seed: int = 0, return_state: bool = False, **extra) -> PettingZooWrapper:
    """TorchRL's wrapper over our env (``extra``: our env's options)."""
    return PettingZooWrapper(env=make_pz(env_id, form, **extra), use_mask=True, categorical_actions=True,
                             return_state=return_state, seed=seed)


def masked_actor(env, seed: int = 0, groups=None) -> TensorDictSequential:
    """One ``MaskedCategorical`` ``ProbabilisticActor`` over a small MLP per group (the user's path)."""
    torch.manual_seed(seed)
    actors = []
    for g in groups or env.group_map:
        obs_key = (g, "observation", "observation")
        n_actions = env.full_action_spec[g, "action"].space.n
        net = TensorDictModule(MLP(in_features=env.observation_spec[obs_key].shape[-1], out_features=n_actions,
                                   num_cells=[32]), in_keys=[obs_key], out_keys=[(g, "logits")])
        actors.append(ProbabilisticActor(net, in_keys={"logits": (g, "logits"), "mask": (g, "action_mask")},
                                         out_keys=[(g, "action")], distribution_class=MaskedCategorical,
                                         return_log_prob=True))
    return TensorDictSequential(*actors)


def true_mask(env: PettingZooWrapper, agent: str) -> torch.Tensor:
    """The env's own current mask of ``agent`` (the truth TorchRL must copy)."""
    return torch.as_tensor(env._env.unwrapped.observe(agent)["action_mask"]).bool()


# --------------------------------------------------------------------------- specs and structure
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_check_env_specs(env_id, form):
    env = wrap(env_id, form)
    assert env.parallel is (form == "parallel")
    check_env_specs(env, seed=0)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_groups_done_and_info_tensors(env_id, form):
    env = wrap(env_id, form, return_state=True)
    pz = env._env.unwrapped
    agents = list(pz.possible_agents)
    if form == "parallel":
        prefix = agents[0].rsplit("_", 1)[0]
        assert prefix in ("chef", "player")
        assert all(a.rsplit("_", 1)[0] == prefix for a in agents)
        assert env.group_map == {prefix: agents}  # grouped by name, seat order kept
    else:
        assert env.group_map == {a: [a] for a in agents}  # TorchRL's AEC default: one group per agent
    n_actions = pz.action_space(agents[0]).n
    expected_done = {"done", "terminated", "truncated"} | {(g, k) for g in env.group_map
                                                           for k in ("done", "terminated", "truncated")}
    assert set(env.done_keys) == expected_done

    def check_masks(out):  # the exposed action mask of each acting agent is the env's own mask
        for g, members in env.group_map.items():
            for i, a in enumerate(members):
                if out[g, "mask"][i]:
                    assert torch.equal(out[g, "action_mask"][i], true_mask(env, a)), a

    td = env.reset()
    assert torch.equal(td["state"], torch.as_tensor(pz.state()))  # return_state: the global state
    check_masks(td)
    nxt = env.step(env.rand_action(td))["next"]
    assert torch.equal(nxt["state"], torch.as_tensor(pz.state()))
    check_masks(nxt)
    for out in (td, nxt):
        assert out["state"].shape == pz.state_space.shape
        for key in ("done", "terminated", "truncated"):
            assert out[key].dtype == torch.bool and out[key].shape == (1,) and not out[key].any()
        for g, members in env.group_map.items():
            n = len(members)
            obs = out[g, "observation", "observation"]
            space = pz.observation_space(members[0])["observation"]
            assert obs.dtype == torch.float32 and obs.shape == (n, *space.shape)
            assert set(out[g, "observation"].keys()) == {"observation"}  # the mask moved out of the observation
            assert out[g, "action_mask"].dtype == torch.bool and out[g, "action_mask"].shape == (n, n_actions)
            assert out[g, "mask"].dtype == torch.bool and out[g, "mask"].shape == (n,)
            assert set(out[g, "info"].keys()) == set(INFO_KEYS)
            for k in INFO_KEYS:
                assert isinstance(out[g, "info", k], torch.Tensor) and out[g, "info", k].shape == (n,)
            for key in ("done", "terminated", "truncated"):
                assert out[g, key].dtype == torch.bool and out[g, key].shape == (n, 1) and not out[g, key].any()

    def stacked(out, key):  # (n_agents, ...) in seat order, whatever the grouping
        return torch.cat([out[(g, *key)] for g in env.group_map])

    if form == "parallel":  # every agent acted; the tick resolved
        assert stacked(nxt, ("mask",)).all()
        assert stacked(nxt, ("info", "tick")).tolist() == [1.0] * len(agents)
    else:  # seat 0 submitted; seat 1 is to move; the tick resolves when the last seat submits
        assert stacked(td, ("mask",)).tolist() == [i == 0 for i in range(len(agents))]
        assert stacked(nxt, ("mask",)).tolist() == [i == 1 for i in range(len(agents))]
        assert stacked(nxt, ("info", "tick")).tolist() == [0.0] * len(agents)


# --------------------------------------------------------------------------- rollouts
def _check_legal(td, env) -> None:
    """Every acting agent's action was legal per the action_mask TorchRL exposed at that step."""
    groups = env.group_map if isinstance(env, PettingZooWrapper) else env
    for g in groups:
        taken = td[g, "action"].unsqueeze(-1)
        legal = td[g, "action_mask"].gather(-1, taken).squeeze(-1)
        acting = td[g, "mask"]
        assert legal[acting].all(), f"illegal actions taken by group {g}"
        assert (td["next", g, "info", "illegal_replaced"] == 0).all()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_masked_policy_rollout_across_auto_reset(env_id, form):
    ticks = 5
    env = wrap(env_id, form, seed=1, **{TRUNCATE: ticks})
    agents = list(env._env.unwrapped.possible_agents)
    n = len(agents)
    per_tick = 1 if form == "parallel" else n
    steps = (2 * ticks + 3) * per_tick  # two whole (truncated) episodes and part of a third
    policy = masked_actor(env, seed=1)
    td = env.rollout(steps, policy, break_when_any_done=False)
    assert td.batch_size == (steps,)
    _check_legal(td, env)
    for g in env.group_map:
        assert torch.isfinite(td[g, "action_log_prob"]).all()

    # Episode ends inside the rollout, where the schedule says, with every agent done together.
    ends = td["next", "done"].squeeze(-1).nonzero().squeeze(-1).tolist()
    assert ends == [ticks * per_tick - 1, 2 * ticks * per_tick - 1]
    assert td["next", "truncated"][ends].all() and not td["next", "terminated"][ends].any()
    for g in env.group_map:
        assert td["next", g, "done"][ends].all() and td["next", g, "truncated"][ends].all()

    # The tick each decision was taken at: 0..ticks-1, starting again after each auto-reset.
    tick_at = [(k // per_tick) % ticks for k in range(steps)]
    if form == "parallel":
        (g,) = env.group_map
        assert td[g, "mask"].all()  # every agent acts every tick
        assert td[g, "info", "tick"].tolist() == [[float(t)] * n for t in tick_at]
        # The action the env applied (its infos) is the action the policy chose.
        assert torch.equal(td["next", g, "info", "action"].long(), td[g, "action"])
    else:
        acting = torch.stack([td[a, "mask"].squeeze(-1) for a in agents], dim=-1)  # (steps, n)
        assert (acting.sum(-1) == 1).all()  # exactly one agent moves per step
        assert acting.float().argmax(-1).tolist() == [k % n for k in range(steps)]  # in seat order
        for a in agents:
            assert td[a, "info", "tick"].squeeze(-1).tolist() == [float(t) for t in tick_at]
        # When a tick resolves (the last seat submits), each agent's info holds the action it submitted.
        for k in range(n - 1, steps, n):
            for i, a in enumerate(agents):
                assert td["next", a, "info", "action"][k].item() == td[a, "action"][k - (n - 1) + i].item()


@pytest.mark.parametrize("form", FORMS)
def test_whole_game_to_termination(form):
    env_id = envs.ENV_IDS[0]  # the shortest game under random play
    env = wrap(env_id, form, seed=0)
    mod = envs.get_env_module(env_id)
    n = len(env._env.unwrapped.possible_agents)
    bound = mod.max_episode_steps(**SMALL[env_id]) * (1 if form == "parallel" else n)
    td = env.rollout(bound, masked_actor(env), break_when_any_done=True)
    _check_legal(td, env)
    assert len(td) < bound
    assert td["next", "terminated"][-1].item() and not td["next", "truncated"][-1].item()
    assert not td["next", "done"][:-1].any()
    for g in env.group_map:
        assert td["next", g, "terminated"][-1].all()
    outcome = env.outcome()  # TorchRL forwards unknown attributes to our env
    assert {"winners", "scores"} <= set(outcome)
    for g in env.group_map:
        assert torch.isfinite(td["next", g, "reward"]).all()


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_aec_plays_the_same_game_as_parallel(env_id):
    """Same seed, same deterministic masked policy: the AEC form's observation after each resolved
    tick and its rewards equal the parallel form's, step for step."""
    ticks = 10
    par = wrap(env_id, "parallel", seed=3, **{TRUNCATE: ticks})
    aec = wrap(env_id, "aec", seed=3, **{TRUNCATE: ticks})
    (g,) = par.group_map
    agents = par.group_map[g]
    n = len(agents)
    score = torch.rand(par.full_action_spec[g, "action"].space.n, generator=torch.Generator().manual_seed(0))

    def best_legal(env):
        def policy(td):
            for grp in env.group_map:
                td[grp, "action"] = torch.where(td[grp, "action_mask"], score, -1.0).argmax(-1)
            return td
        return policy

    tp = par.rollout(ticks, best_legal(par), break_when_any_done=True)
    ta = aec.rollout(ticks * n, best_legal(aec), break_when_any_done=True)
    assert tp.batch_size == (ticks,) and ta.batch_size == (ticks * n,)
    assert tp["next", "truncated"][-1].item() and ta["next", "truncated"][-1].item()
    for i, a in enumerate(agents):
        resolved = slice(n - 1, None, n)
        assert torch.equal(ta["next", a, "observation", "observation"][resolved, 0],
                           tp["next", g, "observation", "observation"][:, i])
        assert torch.equal(ta["next", a, "reward"][resolved, 0], tp["next", g, "reward"][:, i])
        assert torch.equal(ta[a, "action"][i::n, 0], tp[g, "action"][:, i])
        others = [k for k in range(ticks * n) if k % n != n - 1]
        assert (ta["next", a, "reward"][others] == 0).all()  # rewards arrive when the tick resolves


@pytest.mark.parametrize("form", FORMS)
def test_illegal_action_raises_or_is_replaced(form):
    env_id = envs.ENV_IDS[1]
    env = wrap(env_id, form)
    td = env.reset()
    g = next(g for g in env.group_map if td[g, "mask"].any())
    i = int(td[g, "mask"].float().argmax())
    illegal = (~td[g, "action_mask"][i]).nonzero()
    assert len(illegal), "the test needs an illegal action at reset"
    bad = env.rand_action(td.clone())
    bad[g, "action"][i] = int(illegal[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)
    env.step(env.rand_action(td.clone()))  # the env is not wedged: a legal step goes through

    lenient = wrap(env_id, form, illegal_action="noop")
    td = lenient.reset()
    bad = lenient.rand_action(td.clone())
    bad[g, "action"][i] = int(illegal[0])
    out = lenient.step(bad)["next"]
    if form == "parallel":
        assert out[g, "info", "illegal_replaced"][i].item() == 1.0
    else:  # the AEC infos are refreshed when the tick resolves: finish the tick with legal actions
        while out[g, "info", "tick"][i].item() == 0:
            out = lenient.step(lenient.rand_action(out.clone()))["next"]
        assert out[g, "info", "illegal_replaced"][i].item() == 1.0


def test_aec_grouped_by_name():
    """With ``group_map`` the AEC agents stack in one group; ``mask`` marks the agent to move."""
    env_id = envs.ENV_IDS[2]
    pz = make_pz(env_id, "aec", **{TRUNCATE: 3})
    agents = list(pz.possible_agents)
    env = PettingZooWrapper(env=pz, use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=0)
    check_env_specs(env, seed=0)
    (g,) = env.group_map
    assert env.group_map[g] == agents
    td = env.rollout(3 * len(agents) * 2, masked_actor(env), break_when_any_done=False)
    _check_legal(td, env)
    assert (td[g, "mask"].sum(-1) == 1).all()
    assert td["next", "done"].sum().item() == 2


# --------------------------------------------------------------------------- training and batching
@pytest.mark.filterwarnings("ignore:.*WeightUpdater.*:DeprecationWarning",
                            "ignore:The env passed to Collector is missing transforms:FutureWarning")
def test_ppo_update_with_collector():
    """The MARL PPO path of TorchRL's tutorials: Collector, MultiAgentMLP actor (MaskedCategorical)
    and critic, GAE, ClipPPOLoss; one update changes the parameters, every number is finite."""
    from torchrl.collectors import Collector
    from torchrl.objectives import ClipPPOLoss, ValueEstimators

    torch.manual_seed(0)
    env = wrap(envs.ENV_IDS[0], "parallel", seed=0)
    (g,) = env.group_map
    n = len(env.group_map[g])
    obs_key = (g, "observation", "observation")
    n_obs = env.observation_spec[obs_key].shape[-1]
    n_act = env.full_action_spec[g, "action"].space.n
    net = TensorDictModule(MultiAgentMLP(n_obs, n_act, n, centralized=False, share_params=True, depth=1, num_cells=32),
                           in_keys=[obs_key], out_keys=[(g, "logits")])
    actor = ProbabilisticActor(net, in_keys={"logits": (g, "logits"), "mask": (g, "action_mask")},
                               out_keys=[(g, "action")], distribution_class=MaskedCategorical, return_log_prob=True)
    critic = TensorDictModule(MultiAgentMLP(n_obs, 1, n, centralized=True, share_params=True, depth=1, num_cells=32),
                              in_keys=[obs_key], out_keys=[(g, "state_value")])
    loss = ClipPPOLoss(actor, critic, entropy_coeff=0.01)
    loss.set_keys(reward=(g, "reward"), action=(g, "action"), value=(g, "state_value"),
                  done=(g, "done"), terminated=(g, "terminated"))
    loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
    opt = torch.optim.Adam(loss.parameters(), lr=1e-3)

    collector = Collector(env, actor, frames_per_batch=160, total_frames=160)
    batches = 0
    for data in collector:
        batches += 1
        _check_legal(data, env)
        assert data["next", "terminated"].sum() >= 1  # whole games end inside the batch
        with torch.no_grad():
            loss.value_estimator(data, params=loss.critic_network_params,
                                 target_params=loss.target_critic_network_params)
        assert torch.isfinite(data[loss.tensor_keys.advantage]).all()
        before = [p.detach().clone() for p in actor.parameters()]
        out = loss(data)
        total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
        assert math.isfinite(total.item())
        opt.zero_grad()
        total.backward()
        opt.step()
        assert any(not torch.equal(b, p) for b, p in zip(before, actor.parameters()))
    collector.shutdown()
    assert batches == 1


def test_serial_env_batches_games():
    """TorchRL's batched env over two copies: stacked tensors, each copy resets on its own. (A batched
    env's own ``rand_action`` ignores the copies' masks, so a batched rollout needs a masked policy.)"""
    env_id = envs.ENV_IDS[2]
    benv = SerialEnv(2, lambda: wrap(env_id, "parallel", **{TRUNCATE: 4}))
    benv.set_seed(0)
    groups = list(wrap(env_id, "parallel").group_map)
    td = benv.rollout(10, masked_actor(benv, groups=groups), break_when_any_done=False)
    assert td.batch_size == (2, 10)
    n = SMALL[env_id]["players"]
    for g in groups:
        assert td[g, "action_mask"].shape[:3] == (2, 10, n)
    _check_legal(td, groups)
    assert td["next", "done"].squeeze(-1).sum(-1).tolist() == [2, 2]
    benv.close()


# --------------------------------------------------------------------------- docs and benchmark
def test_recipe_runs_as_written():
    code = recipe("torchrl")
    assert "envs.ENV_IDS" in code and "PettingZooWrapper" in code
    exec(compile(code, "<torchrl recipe>", "exec"), {"__name__": "torchrl_recipe"})


def test_measure_runs():
    from envs.bench.integrations.torchrl import measure

    for form in FORMS:
        r = measure(envs.ENV_IDS[0], steps=30, seed=0, form=form)
        assert r["library"] == "torchrl" and r["env_id"] == envs.ENV_IDS[0] and r["steps"] == 30
        assert r["agent_steps"] == (30 * SMALL[envs.ENV_IDS[0]]["players"] if form == "parallel" else 30)
        assert r["agent_steps_per_s"] > 0 and r["raw_agent_steps_per_s"] > 0
