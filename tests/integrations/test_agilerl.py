"""AgileRL 2.58: our parallel envs through AgileRL's own PettingZoo vector env and IPPO.

The path a user takes (docs/integrations.md, AgileRL section): each worker of
``agilerl.vector.pz_async_vec_env.AsyncPettingZooVecEnv`` builds
``envs.integrations.agilerl.parallel_env(env_id, ...)`` (our env with
``mask_in_infos=True`` and the flat ``observation`` Box as each agent's
observation, since AgileRL reads masks from infos only), and
``envs.integrations.agilerl.MaskedIPPO`` (AgileRL's IPPO with its numpy-mask
reader fixed) acts and learns with one shared network per group of homogeneous
agents. The envs keep ``illegal_action="raise"``, so any action outside the
mask would fail the run.

AgileRL lives in its own venv (it pins tensordict==0.13.0; TorchRL needs
newer): run this file with that venv's python.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from tests.integrations.helpers import recipe, require

agilerl = require("agilerl")

import torch  # noqa: E402  (after the skip: torch comes with AgileRL's venv)
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv  # noqa: E402

import envs  # noqa: E402
from envs.core.errors import IllegalActionError  # noqa: E402
from envs.integrations.agilerl import FlatObservationEnv, MaskedIPPO, parallel_env  # noqa: E402

torch.set_num_threads(1)

NUM_ENVS = 2
NET = {"encoder_config": {"hidden_size": [32]}, "head_config": {"hidden_size": [32]}}


def small(env_id: str) -> dict:
    """The fewest players the env allows, default options."""
    mod = envs.get_env_module(env_id)
    return {"players": min(int(c["players"]) for c in mod.TEST_CONFIGURATIONS)}


def make_vec(env_id: str, **extra) -> AsyncPettingZooVecEnv:
    config = {**small(env_id), **extra}
    return AsyncPettingZooVecEnv([lambda: parallel_env(env_id, **config) for _ in range(NUM_ENVS)])


def make_agent(vec: AsyncPettingZooVecEnv) -> MaskedIPPO:
    return MaskedIPPO(
        [vec.single_observation_space(a) for a in vec.agents],
        [vec.single_action_space(a) for a in vec.agents],
        agent_ids=list(vec.agents),
        batch_size=256, update_epochs=1, lr=1e-3, net_config=NET,
    )


def seed_all(seed: int) -> None:
    torch.manual_seed(seed)
    np.random.seed(seed)  # IPPO.learn shuffles minibatches with numpy's global generator


# ---------------------------------------------------------------------- rollout + learn, real game end
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_ippo_plays_masked_to_the_real_end_and_learns(env_id):
    """IPPO acts from info["action_mask"] in AgileRL's worker processes until every
    worker's game has really ended (terminated, no truncation), every action within
    the mask; one learn step on that rollout gives finite losses and moves both
    the shared actor and the shared critic."""
    seed_all(0)
    mod = envs.get_env_module(env_id)
    bound = mod.max_episode_steps(**small(env_id))
    vec = make_vec(env_id)
    try:
        agents = list(vec.agents)
        # Homogeneous agents share one actor and one critic (AgileRL groups by the prefix before "_").
        space = vec.single_observation_space(agents[0])
        inner = mod.parallel_env(**small(env_id)).observation_space(agents[0])["observation"]
        assert space == inner and space.dtype == np.float32
        agent = make_agent(vec)
        groups = {agent.get_group_id(a) for a in agents}
        assert len(groups) == 1 and list(agent.actors) == list(groups) == list(agent.critics)

        obs, info = vec.reset(seed=11)
        assert set(obs) == set(agents) and all(obs[a].shape == (NUM_ENVS, *space.shape) for a in agents)
        fields = [{a: [] for a in agents} for _ in range(6)]  # states, actions, log_probs, rewards, dones, values
        done = {a: np.zeros(NUM_ENVS) for a in agents}
        ended = np.zeros(NUM_ENVS, dtype=int)
        steps = 0
        while ended.min() == 0:
            assert steps <= bound, f"{env_id}: no game end within the documented bound {bound}"
            action, log_prob, _, value = agent.get_action(obs=obs, infos=info)
            for a in agents:
                mask = info[a]["action_mask"]
                assert mask.shape == (NUM_ENVS, vec.single_action_space(a).n)
                for i in range(NUM_ENVS):
                    assert mask[i, int(action[a][i])] == 1, f"{a} env {i}: action {action[a][i]} not in its mask"
            next_obs, reward, term, trunc, info = vec.step(action)
            steps += 1
            for store, src in zip(fields, (obs, action, log_prob, reward, done, value)):
                for a in agents:
                    store[a].append(src[a])
            for i in range(NUM_ENVS):
                t = {bool(term[a][i]) for a in agents}
                assert len(t) == 1, "agents terminate together"
                assert not any(bool(trunc[a][i]) for a in agents)
                if t == {True}:
                    ended[i] += 1
                    # the worker reset by itself: the infos are the new game's
                    assert all(int(info[a]["tick"][i]) == 0 for a in agents)
            done = {a: np.logical_or(term[a], trunc[a]).astype(float) for a in agents}
            obs = next_obs

        actor0 = [p.detach().clone() for p in agent.actors.parameters()]
        critic0 = [p.detach().clone() for p in agent.critics.parameters()]
        states, actions, log_probs, rewards, dones, values = fields
        losses = agent.learn((states, actions, log_probs, rewards, dones, values, obs, done))
        assert set(losses) == groups and all(np.isfinite(v) for v in losses.values()), losses
        assert any(not torch.equal(b, p) for b, p in zip(actor0, agent.actors.parameters()))
        assert any(not torch.equal(b, p) for b, p in zip(critic0, agent.critics.parameters()))
        assert all(torch.isfinite(p).all() for p in agent.actors.parameters())
    finally:
        vec.close()
    assert not any(p.is_alive() for p in vec.processes)


# ---------------------------------------------------------------------- errors reach the parent
@pytest.mark.filterwarnings("ignore::UserWarning")  # AgileRL logs the worker's traceback as warnings
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_illegal_action_in_a_worker_reaches_the_parent_with_its_reason(env_id):
    """AgileRL's vec env re-raises a worker's error in the parent as ``type(err)(err)``:
    the user must get our IllegalActionError with its message (agent, action, reason),
    not a constructor TypeError."""
    rng = np.random.default_rng(3)
    vec = make_vec(env_id)
    try:
        _, info = vec.reset(seed=5)
        bad_agent = vec.agents[0]
        actions = {}
        for a in vec.agents:
            masks = info[a]["action_mask"]
            actions[a] = np.array([int(rng.choice(np.flatnonzero(masks[i]))) for i in range(NUM_ENVS)])
        bad = int(np.flatnonzero(info[bad_agent]["action_mask"][1] == 0)[0])
        actions[bad_agent][1] = bad  # illegal in worker 1 only; worker 0's step is fine
        with pytest.raises(IllegalActionError) as caught:
            vec.step(actions)
        err = caught.value
        assert type(err) is IllegalActionError
        assert err.agent == bad_agent and err.action == bad and err.reason
        text = str(err)
        assert text.startswith(f"illegal action for {bad_agent}: {bad} (")
        assert err.reason in text and "Legal now: [" in text
        assert "missing" not in text and "positional argument" not in text
    finally:
        vec.close()
    assert not any(p.is_alive() for p in vec.processes)


# ---------------------------------------------------------------------- the env AgileRL steps
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_flat_env_keeps_mask_in_infos_and_copies_mid_game(env_id):
    """What the workers run, in-process: the observation is the flat Box, the mask is in
    the infos at reset and every step; a pickled or deep-copied env continues the game
    exactly like the original."""
    env = parallel_env(env_id, **small(env_id))
    assert isinstance(env, FlatObservationEnv)
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(6):
        for a in env.agents:
            assert env.observation_space(a).contains(obs[a])
            assert info[a]["action_mask"].dtype == np.int8
        obs, _, _, _, info = env.step({a: int(rng.choice(np.flatnonzero(info[a]["action_mask"]))) for a in env.agents})
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    joint = {a: int(rng.choice(np.flatnonzero(info[a]["action_mask"]))) for a in env.agents}
    want = env.step(joint)
    for c in copies:
        got = c.step(joint)
        for a in env.possible_agents:
            np.testing.assert_array_equal(got[0][a], want[0][a])
            np.testing.assert_array_equal(got[4][a]["action_mask"], want[4][a]["action_mask"])
            assert got[1][a] == want[1][a]
    with pytest.raises(ValueError, match="mask_in_infos"):
        parallel_env(env_id, mask_in_infos=False, **small(env_id))


def test_masked_ippo_reads_numpy_masks_where_agilerl_ippo_cannot():
    """The reason MaskedIPPO exists: AgileRL 2.58's IPPO.extract_action_masks fails on
    numpy masks (``None in [array]``); ours stacks them, one tensor per agent group."""
    from agilerl.algorithms import IPPO

    env_id = envs.ENV_IDS[0]
    env = parallel_env(env_id, **small(env_id))
    _, info = env.reset(seed=0)
    vec_info = {a: {"action_mask": np.stack([info[a]["action_mask"]] * NUM_ENVS)} for a in env.agents}
    spaces_ = ([env.observation_space(a) for a in env.agents], [env.action_space(a) for a in env.agents])
    ours = MaskedIPPO(*spaces_, agent_ids=list(env.agents), net_config=NET)
    (group, masks), = ours.extract_action_masks(vec_info).items()
    assert masks.shape == (len(env.agents), NUM_ENVS, env.action_space(env.agents[0]).n)
    assert torch.equal(masks[0, 0], torch.as_tensor(info[env.agents[0]]["action_mask"], dtype=torch.float32))
    assert ours.extract_action_masks({a: {} for a in env.agents}) == {group: None}
    try:
        IPPO(*spaces_, agent_ids=list(env.agents), net_config=NET).extract_action_masks(vec_info)
    except ValueError:
        pass  # AgileRL's own reader still has the bug: MaskedIPPO is needed
    else:
        pytest.fail("AgileRL's IPPO.extract_action_masks now reads numpy masks: MaskedIPPO can go "
                    "(update envs/integrations/agilerl.py and the AgileRL recipe)")


# ---------------------------------------------------------------------- the documented recipe
def test_recipe_runs_as_documented():
    torch.set_num_threads(1)
    namespace: dict = {"__name__": "agilerl_recipe"}
    exec(compile(recipe("agilerl"), "docs/integrations.md#agilerl", "exec"), namespace)
    torch.set_num_threads(1)
