"""Stable-Baselines3 + sb3-contrib MaskablePPO through SuperSuit's vec-env chain.

The chain under test is the documented one (docs/integrations.md)::

    ActionMaskVecEnv(supersuit.concat_vec_envs_v1(
        supersuit.pettingzoo_env_to_vec_env_v1(<game>.parallel_env(**config)),
        n_games, num_cpus=..., base_class="stable_baselines3"))

Most checks replay the run on a "shadow": one plain ``parallel_env`` per game of
the chain, dealt with the same seed and stepped with the same actions. Every
observation, mask, reward, done flag, terminal observation and truncation flag
the chain hands SB3 must equal what the shadow games produce; since our envs
use ``illegal_action="raise"`` (the default), any illegal action would also
raise in the chain or in the shadow.
"""

from __future__ import annotations


import re

import numpy as np
import pytest

from tests.integrations.helpers import recipe, require

supersuit = require("supersuit")
sb3_contrib = require("sb3_contrib")
stable_baselines3 = require("stable_baselines3")
torch = require("torch")

import envs  # noqa: E402
import gymnasium  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from envs.core.errors import IllegalActionError  # noqa: E402
from envs.integrations.sb3 import ActionMaskVecEnv  # noqa: E402

torch.set_num_threads(1)

N_GAMES = 2


def small_config(env_id: str) -> dict:
    return dict(envs.get_env_module(env_id).TEST_CONFIGURATIONS[0])  # the fewest players, default options


def make_venv(env_id: str, n_games: int = N_GAMES, num_cpus: int = 0, **extra) -> ActionMaskVecEnv:
    par = envs.get_env_module(env_id).parallel_env(**small_config(env_id), **extra)
    venv = supersuit.pettingzoo_env_to_vec_env_v1(par)
    venv = supersuit.concat_vec_envs_v1(venv, n_games, num_cpus=num_cpus, base_class="stable_baselines3")
    return ActionMaskVecEnv(venv)


class Shadow:
    """The chain's games played directly: game ``g`` owns slots ``g*P .. g*P+P-1``."""

    def __init__(self, env_id: str, seeds: list[int], **extra):
        mod = envs.get_env_module(env_id)
        self.envs = [mod.parallel_env(**small_config(env_id), **extra) for _ in seeds]
        self.agents = self.envs[0].possible_agents
        self.P = len(self.agents)
        self.obs = [e.reset(seed=s)[0] for e, s in zip(self.envs, seeds)]
        self.terminations = 0
        self.truncations = 0

    def observations(self) -> np.ndarray:
        return np.stack([o[a]["observation"] for o in self.obs for a in self.agents])

    def masks(self) -> np.ndarray:
        return np.stack([o[a]["action_mask"] for o in self.obs for a in self.agents]).astype(bool)

    def check_before(self, obs: np.ndarray, masks: np.ndarray) -> None:
        n_actions = self.envs[0].action_space(self.agents[0]).n
        assert masks.dtype == bool and masks.shape == (len(self.envs) * self.P, n_actions)
        np.testing.assert_array_equal(masks, self.masks())
        np.testing.assert_array_equal(obs, self.observations())

    def step_and_check(self, actions, new_obs, rewards, dones, infos) -> None:
        """Step the shadow games with ``actions`` and compare with the chain's step results."""
        actions = np.asarray(actions).reshape(-1)
        assert self.masks()[np.arange(actions.size), actions].all(), "an illegal action was submitted"
        for g, env in enumerate(self.envs):
            joint = {a: int(actions[g * self.P + k]) for k, a in enumerate(self.agents)}
            obs, rew, term, trunc, info = env.step(joint)
            over = not env.agents
            for k, a in enumerate(self.agents):
                i = g * self.P + k
                assert rewards[i] == np.float32(rew[a])
                assert bool(dones[i]) == over
                if over:
                    np.testing.assert_array_equal(infos[i]["terminal_observation"], obs[a]["observation"])
                    np.testing.assert_array_equal(infos[i]["terminal_action_mask"], obs[a]["action_mask"].astype(bool))
                    assert infos[i]["TimeLimit.truncated"] is bool(trunc[a] and not term[a])
                    if term[a]:
                        assert obs[a]["action_mask"][0] == 1  # noop stays legal in a finished game's mask
                else:
                    assert infos[i] == info[a]  # the fixed-schema infos pass through untouched
            if over:
                self.terminations += all(term.values())
                self.truncations += all(trunc.values()) and not any(term.values())
                self.obs[g], _ = env.reset()  # SuperSuit auto-resets without a seed: the generator carries on
            else:
                self.obs[g] = obs
        np.testing.assert_array_equal(new_obs, self.observations())


class ShadowCallback(BaseCallback):
    """Checks every step MaskablePPO takes against the shadow games."""

    def __init__(self, shadow: Shadow):
        super().__init__()
        self.shadow = shadow
        self.steps = 0

    def _on_step(self) -> bool:
        loc = self.locals
        masks = np.asarray(loc["action_masks"])
        self.shadow.check_before(loc["obs_tensor"].cpu().numpy(), masks)  # what the policy saw and was masked with
        self.shadow.step_and_check(loc["actions"], loc["new_obs"], loc["rewards"], loc["dones"], loc["infos"])
        self.steps += 1
        return True


def params(model) -> list:
    return [p.detach().clone() for p in model.policy.parameters()]


def small_ppo(venv, seed: int = 0, n_steps: int = 64) -> MaskablePPO:
    return MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=64, n_epochs=1, seed=seed, device="cpu",
                       policy_kwargs={"net_arch": [32, 32]})


# ---------------------------------------------------------------------- the wrapper itself
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_masks_and_box_observations(env_id):
    venv = make_venv(env_id)
    inner = venv.venv
    assert isinstance(inner.observation_space, gymnasium.spaces.Dict)  # what SuperSuit hands on
    assert venv.observation_space == inner.observation_space["observation"]
    assert is_masking_supported(venv) and is_masking_supported(VecMonitor(venv))
    venv.seed(7)
    obs = venv.reset()
    shadow = Shadow(env_id, [7 + g for g in range(N_GAMES)])
    assert obs.shape == (venv.num_envs,) + venv.observation_space.shape and obs.dtype == np.float32
    shadow.check_before(obs, get_action_masks(venv))
    np.testing.assert_array_equal(get_action_masks(VecMonitor(venv)), venv.action_masks())
    assert [m.shape for m in venv.env_method("action_masks", indices=[1, 2])] == [(venv.action_space.n,)] * 2
    assert len(venv.reset_infos) == venv.num_envs
    assert set(venv.reset_infos[0]) == {"tick", "action", "blocked", "illegal_replaced"}
    venv.close()


def test_rejects_a_chain_not_built_for_sb3():
    par = envs.get_env_module(envs.ENV_IDS[0]).parallel_env(**small_config(envs.ENV_IDS[0]))
    gym_venv = supersuit.concat_vec_envs_v1(supersuit.pettingzoo_env_to_vec_env_v1(par), 1, base_class="gymnasium")
    with pytest.raises(TypeError, match="stable_baselines3"):
        ActionMaskVecEnv(gym_venv)


@pytest.mark.parametrize("end", ["game_end", "max_cycles"])
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_random_legal_play_matches_the_games_across_episode_ends(env_id, end):
    """Uniformly random legal actions (from ``action_masks()``) until every game has ended twice
    (its real end, or a ``max_cycles`` truncation): the chain equals the games played directly."""
    extra = {"max_cycles": 9} if end == "max_cycles" else {}
    venv = make_venv(env_id, **extra)
    venv.seed(11)
    obs = venv.reset()
    shadow = Shadow(env_id, [11 + g for g in range(N_GAMES)], **extra)
    rng = np.random.default_rng(0)
    ends = np.zeros(N_GAMES, dtype=int)
    for _ in range(5000):
        masks = venv.action_masks()
        shadow.check_before(obs, masks)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        shadow.step_and_check(actions, obs, rewards, dones, infos)
        ends += dones.reshape(N_GAMES, -1).all(axis=1)
        if (ends >= 2).all():
            break
    venv.close()
    assert (ends >= 2).all(), f"games did not end: {ends}"
    if end == "max_cycles":
        assert shadow.truncations >= 2 * N_GAMES and shadow.terminations == 0
    else:
        assert shadow.terminations >= 2 * N_GAMES and shadow.truncations == 0


# ---------------------------------------------------------------------- MaskablePPO
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_maskable_ppo_learns_with_the_env_masks(env_id):
    # max_cycles=48: every game crosses episode ends within the 128 ticks of learning (Wok Star
    # and Waroong Wars often by their real end, Frying Master's ~300-tick games by truncation).
    venv = make_venv(env_id, max_cycles=48)
    model = small_ppo(venv, seed=0)
    shadow = Shadow(env_id, [0 + g for g in range(N_GAMES)], max_cycles=48)  # MaskablePPO(seed=0) -> venv.seed(0)
    callback = ShadowCallback(shadow)
    before = params(model)
    model.learn(total_timesteps=2 * 64 * venv.num_envs, callback=callback)
    assert callback.steps == 128
    assert shadow.terminations + shadow.truncations >= N_GAMES
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters())), "learn() changed nothing"

    venv.seed(5)
    obs = venv.reset()
    shadow = Shadow(env_id, [5 + g for g in range(N_GAMES)], max_cycles=48)
    for _ in range(10):
        masks = get_action_masks(venv)
        shadow.check_before(obs, masks)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(venv.num_envs), actions].all()
        obs, rewards, dones, infos = venv.step(actions)
        shadow.step_and_check(actions, obs, rewards, dones, infos)
    venv.close()


def test_seeded_learning_is_reproducible():
    env_id = envs.ENV_IDS[0]
    runs = []
    for _ in range(2):
        venv = make_venv(env_id)
        model = small_ppo(venv, seed=3, n_steps=32)
        model.learn(total_timesteps=2 * 32 * venv.num_envs)
        runs.append(params(model))
        venv.close()
    assert all(torch.equal(a, b) for a, b in zip(*runs))


def test_multiprocessing_chain_num_cpus_2():
    """``num_cpus=2``: SuperSuit pickles the env into two worker processes. Every game gets its
    own seed (worker ``w`` is seeded with ``seed + its first slot``, games ``j`` of it ``+ j``)
    and MaskablePPO's steps equal the shadow games'."""
    env_id = envs.ENV_IDS[0]
    n_games = 4
    venv = make_venv(env_id, n_games=n_games, num_cpus=2, max_cycles=12)
    procs = venv.venv.venv.procs
    assert len(procs) == 2
    P = venv.num_envs // n_games
    per_worker = n_games // 2
    seed = 20
    seeds = [seed + w * per_worker * P + j for w in range(2) for j in range(per_worker)]
    assert len(set(seeds)) == n_games
    try:
        model = small_ppo(venv, seed=seed, n_steps=32)
        callback = ShadowCallback(Shadow(env_id, seeds, max_cycles=12))
        before = params(model)
        model.learn(total_timesteps=32 * venv.num_envs, callback=callback)
        assert callback.steps == 32 and callback.shadow.terminations + callback.shadow.truncations >= n_games
        assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    finally:
        venv.close()
    for p in procs:
        p.join(timeout=10)
    assert not any(p.is_alive() for p in procs)


# ---------------------------------------------------------------------- the docs' recipe
def test_recipe_runs():
    code = recipe("sb3")
    assert "ActionMaskVecEnv" in code and "MaskablePPO" in code and "assert" in code
    exec(compile(code, "docs recipe: sb3", "exec"), {"__name__": "__recipe__"})


# ---------------------------------------------------------------------- the wrapper's doors
@pytest.mark.parametrize("num_cpus", [0, 2])
def test_a_bad_batch_is_refused_before_any_game_moves(num_cpus):
    """SuperSuit steps the games one after another: an illegal action in game 1 raised only after
    game 0 had moved a tick (``num_cpus=0``), or killed a worker for good (``num_cpus=2``: every
    later call a ``BrokenPipeError``); a short, float or ``(n, 1)`` batch got numpy's message."""
    env_id = envs.ENV_IDS[1]  # Frying Master: its chefs have illegal moves from the first tick
    venv, twin = make_venv(env_id, num_cpus=num_cpus), make_venv(env_id, num_cpus=num_cpus)
    try:
        for v in (venv, twin):
            v.seed(3)
            v.reset()
        masks = venv.action_masks()
        legal = np.array([np.flatnonzero(r)[0] for r in masks])
        bad = legal.copy()
        slot = next(i for i in range(venv.num_envs) if i >= 2 and (~masks[i]).any())
        bad[slot] = np.flatnonzero(~masks[slot])[0]
        for acts, says in ((bad, f"ActionMaskVecEnv slot {slot}: action {bad[slot]} is not legal now"),
                           (legal[:-1], f"must have shape ({venv.num_envs},)"),
                           (legal.reshape(-1, 1), f"must have shape ({venv.num_envs},)"),
                           (legal.astype(float), "must be integers"),
                           (np.full(venv.num_envs, venv.n_actions), "out of range")):
            with pytest.raises((ValueError, IllegalActionError), match=re.escape(says)):
                venv.step(acts)
        # nothing moved: the chain plays on exactly as an untouched twin
        for _ in range(3):
            obs, rewards, dones, _ = venv.step(legal)
            tobs, trewards, tdones, _ = twin.step(legal)
            assert np.array_equal(obs, tobs) and np.array_equal(rewards, trewards)
            legal = np.array([np.flatnonzero(r)[0] for r in venv.action_masks()])
    finally:
        venv.close()
        twin.close()


def test_noop_games_take_illegal_actions_and_bad_arguments_are_named():
    """With ``illegal_action="noop"`` games replace illegal actions themselves (read from the
    chain); ``seed(-3)`` / ``seed(1.7)`` were stored and failed every later ``reset`` (or were cut
    to 1), slot 99 answered ``[None]``, a call SuperSuit does not forward failed inside it, and
    the closed wrapper played on."""
    env_id = envs.ENV_IDS[1]
    venv = make_venv(env_id, illegal_action="noop")
    venv.reset()
    masks = venv.action_masks()
    venv.step(np.array([np.flatnonzero(~r)[0] if (~r).any() else 0 for r in masks]))  # replaced by the games
    for bad in (-3, 1.7, True, "1"):
        with pytest.raises(ValueError, match=r"ActionMaskVecEnv\.seed=.* is not allowed; allowed: an integer >= 0 or None"):
            venv.seed(bad)
    venv.reset()  # the refused seeds were not kept
    with pytest.raises(IndexError, match=rf"slot index 99 is not allowed; allowed: 0\.\.{venv.num_envs - 1}"):
        venv.get_attr("render_mode", indices=[99])
    with pytest.raises(IndexError, match="slot index 99"):
        venv.env_method("action_masks", indices=[99])
    with pytest.raises(AttributeError, match=r"get_attr\('possible_agents'\): SuperSuit's vec env chain does not "
                                             r"forward it"):
        venv.get_attr("possible_agents")
    assert venv.has_attr("render_mode") and venv.has_attr("action_masks")
    with pytest.raises(ValueError, match="illegal_action='bogus' is not allowed"):
        ActionMaskVecEnv(venv.venv, illegal_action="bogus")
    venv.close()
    for call in (venv.reset, lambda: venv.step(np.zeros(venv.num_envs, dtype=int))):
        with pytest.raises(RuntimeError, match="this ActionMaskVecEnv is closed"):
            call()


@pytest.mark.parametrize("num_cpus", [0, 2])
def test_the_step_pairing_is_kept_and_a_closed_chain_answers_nothing(num_cpus):
    """``reset`` while a step was pending had read the step's answer as the reset's under
    ``num_cpus>1`` (every later answer one behind: the masks served stale, a worker killed by the
    next illegal action); ``step_wait`` without ``step_async`` had sent the last batch again,
    unchecked against the masks since; and a closed chain still served masks, attributes and steps."""
    env_id = envs.ENV_IDS[1]
    venv, twin = make_venv(env_id, num_cpus=num_cpus), make_venv(env_id, num_cpus=num_cpus)
    try:
        for v in (venv, twin):
            v.seed(0)
            v.reset()
        legal = np.array([np.flatnonzero(r)[0] for r in venv.action_masks()])
        venv.step_async(legal)
        with pytest.raises(RuntimeError, match=r"step_wait\(\) before reset\(\)"):
            venv.reset()
        with pytest.raises(RuntimeError, match=r"step_wait\(\) before sending new actions"):
            venv.step_async(legal)
        got = venv.step_wait()
        want = twin.step(legal)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(venv.action_masks(), twin.action_masks())
        with pytest.raises(RuntimeError, match=r"step_wait\(\) without step_async\(\)"):
            venv.step_wait()
        for v in (venv, twin):  # both play on alike
            v.seed(1)
            v.reset()
        np.testing.assert_array_equal(venv.action_masks(), twin.action_masks())
    finally:
        venv.close()
        twin.close()
    for call in (venv.action_masks, lambda: venv.env_method("action_masks"), lambda: venv.get_attr("render_mode"),
                 lambda: venv.seed(0), venv.step_wait, lambda: get_action_masks(venv)):
        with pytest.raises(RuntimeError, match="this ActionMaskVecEnv is closed"):
            call()
    venv.close()  # again: harmless


def test_seed_returns_the_seed_each_slot_was_dealt_with():
    """``seed(s)`` returned ``s + slot`` where slot ``i``'s game is dealt ``s + i // P``; under
    ``num_cpus>1`` the chain does not show a game's slots, so SB3's "not known" (None) is returned."""
    env_id = envs.ENV_IDS[1]
    venv = make_venv(env_id, n_games=3)
    try:
        got = venv.seed(10)
        obs = venv.reset()
        shadow = Shadow(env_id, [10, 11, 12])
        assert got == [10 + i // shadow.P for i in range(venv.num_envs)]
        for i, s in enumerate(got):  # the seed returned for a slot deals that slot's observation
            alone = Shadow(env_id, [s])
            np.testing.assert_array_equal(obs[i], alone.observations()[i % shadow.P])
        assert venv.seed(None) == [None] * venv.num_envs
    finally:
        venv.close()
    multi = make_venv(env_id, n_games=2, num_cpus=2)
    try:
        assert multi.seed(3) == [None] * multi.num_envs
    finally:
        multi.close()


def test_illegal_action_given_against_the_chains_own_is_refused():
    """``illegal_action="noop"`` over games built with ``"raise"`` was taken: the masks went
    unchecked, and an illegal action moved the games before the one that refused it."""
    env_id = envs.ENV_IDS[1]
    for games, given in (("raise", "noop"), ("noop", "raise")):
        venv = make_venv(env_id, illegal_action=games)
        try:
            with pytest.raises(ValueError, match=rf"illegal_action='{given}' but the chain's games were built with "
                                                 rf"illegal_action='{games}'"):
                ActionMaskVecEnv(venv.venv, illegal_action=given)
            assert ActionMaskVecEnv(venv.venv, illegal_action=games)._check_masks == (games == "raise")
        finally:
            venv.close()


@pytest.mark.parametrize("num_cpus", [0, 2])
def test_set_options_checks_what_the_next_reset_would_pass_on(num_cpus):
    """``set_options`` stored anything, even on a closed wrapper: the next ``reset`` refused it,
    and under ``num_cpus>1`` the refusal ended SuperSuit's workers for good (the chain broken).
    Now a bad value is refused when given, and the chain plays on as before."""
    from envs.core.errors import SnapshotError

    env_id = envs.ENV_IDS[1]
    venv, twin = make_venv(env_id, num_cpus=num_cpus), make_venv(env_id, num_cpus=num_cpus)
    par = envs.get_env_module(env_id).parallel_env(**small_config(env_id))
    par.reset(seed=4)
    good = par.snapshot()
    try:
        for bad in (42, "snapshot", [{"snapshot": good}, {}]):
            with pytest.raises(ValueError, match="set_options"):
                venv.set_options(bad)
        if num_cpus == 0:
            with pytest.raises(SnapshotError):
                venv.set_options({"snapshot": {"not": "a snapshot"}})
            venv.set_options({"snapshot": good})  # a good one is taken: every game starts from it
            obs = venv.reset()
            np.testing.assert_array_equal(obs, np.tile(Shadow(env_id, [4]).observations(), (N_GAMES, 1)))
        else:
            with pytest.raises(ValueError, match="a snapshot cannot be checked before SuperSuit's worker processes"):
                venv.set_options({"snapshot": good})
        for v in (venv, twin):  # the refused options were not kept: both chains play on alike
            v.seed(2)
            v.reset()
        np.testing.assert_array_equal(venv.action_masks(), twin.action_masks())
    finally:
        venv.close()
        twin.close()
    with pytest.raises(RuntimeError, match="this ActionMaskVecEnv is closed"):
        venv.set_options(None)
