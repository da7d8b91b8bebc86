"""The conventions third-party libraries rely on, for every registered env (issue 11, part 1):
fixed-schema infos, pickle and deep copy, the mask is the truth, the native AEC form
(validation at submission, never wedged, ``python -O``, PettingZoo's wrappers),
``max_cycles``, a clear error for a joint action that is not a dict, and PettingZoo's
``performance_benchmark``.

The per-library tests (TorchRL, Tianshou, SB3/SuperSuit, AgileRL, RLlib) live in
``tests/integrations/``."""

from __future__ import annotations

import copy
import io
import pickle
import re
import subprocess
import sys
import textwrap
from contextlib import redirect_stdout

import numpy as np
import pytest
from pettingzoo.test import performance_benchmark
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

import envs
from envs.core.errors import ActionFormatError, ConfigError, IllegalActionError, SnapshotError
from envs.core.tick_env import INFO_KEYS

IDS = envs.available_env_ids()
#: the smallest configuration of each game (cheap whole games)
SMALL = {e: dict(envs.get_env_module(e).TEST_CONFIGURATIONS[0]) for e in IDS}
CONFIGS = envs.test_configurations()


def _module(env_id):
    return envs.get_env_module(env_id)


def _random_legal(rng, obs, agents):
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in agents}


def _check_compact(info, where):
    assert tuple(info) == INFO_KEYS, f"{where}: info keys {sorted(info)}, expected {INFO_KEYS}"
    assert type(info["tick"]) is int and type(info["action"]) is int, where
    assert type(info["blocked"]) is bool and type(info["illegal_replaced"]) is bool, where


# ---------------------------------------------------------------------------------------------- infos
@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
def test_infos_have_one_fixed_numeric_schema_at_reset_and_every_step_to_the_end(cfg):
    env = cfg.parallel_env()
    rng = np.random.default_rng(7)
    obs, infos = env.reset(seed=3)
    assert set(infos) == set(env.agents)
    for a, info in infos.items():
        _check_compact(info, f"{cfg.name} reset {a}")
    steps = 0
    while env.agents:
        acting = list(env.agents)
        obs, _, term, trunc, infos = env.step(_random_legal(rng, obs, acting))
        steps += 1
        assert set(infos) == set(acting)
        for a, info in infos.items():
            _check_compact(info, f"{cfg.name} step {steps} {a}")
    assert any(term.values()) and not any(trunc.values())
    # the words and the result stay available
    details = env.last_step_details()
    assert set(details) == set(acting)
    for a in acting:
        assert details[a]["outcome"] == env.outcome() and "action_name" in details[a]
        # after the end, noop stays legal: a wrapper that auto-resets finds a legal action
        assert obs[a]["action_mask"][0] == 1 and obs[a]["action_mask"].sum() == 1


@pytest.mark.parametrize("env_id", IDS)
def test_verbose_infos_and_mask_in_infos(env_id):
    env = _module(env_id).parallel_env(**SMALL[env_id], infos="verbose", mask_in_infos=True)
    obs, infos = env.reset(seed=1)
    for a in env.agents:
        assert {"action_name", "blocked_reason", "illegal_reason"} <= set(infos[a])
        np.testing.assert_array_equal(infos[a]["action_mask"], obs[a]["action_mask"])
    rng = np.random.default_rng(0)
    while env.agents:
        acting = list(env.agents)
        obs, _, _, _, infos = env.step(_random_legal(rng, obs, acting))
        for a in acting:
            assert set(INFO_KEYS) <= set(infos[a])
            assert infos[a]["action_name"] == env.action_table.name(infos[a]["action"])
            np.testing.assert_array_equal(infos[a]["action_mask"], obs[a]["action_mask"])
            assert infos[a]["action_mask"] is not obs[a]["action_mask"]
    assert all(infos[a]["outcome"] == env.outcome() for a in acting)


def test_outcome_and_details_need_a_game():
    env = _module(IDS[0]).parallel_env()
    with pytest.raises(RuntimeError, match="reset"):
        env.outcome()
    with pytest.raises(RuntimeError, match="reset"):
        env.last_step_details()


# ---------------------------------------------------------------------------------------------- pickle
def _play(env, rng, n):
    """n random legal steps (or fewer, if the game ends); returns what was seen."""
    seen = []
    obs = {a: env.observe(a) for a in env.agents}
    for _ in range(n):
        if not env.agents:
            break
        joint = _random_legal(rng, obs, env.agents)
        obs, rew, term, trunc, infos = env.step(joint)
        seen.append((joint, {a: o["observation"].tobytes() + o["action_mask"].tobytes() for a, o in obs.items()},
                     rew, term, trunc, infos))
    return seen


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_parallel_env_pickles_and_copies_mid_game_and_the_copy_continues_identically(env_id, how):
    env = _module(env_id).parallel_env(**SMALL[env_id])
    fresh = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert fresh.possible_agents == env.possible_agents and fresh.engine is None
    env.reset(seed=11)
    _play(env, np.random.default_rng(1), 25)
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert twin.engine is not env.engine and twin.agents == env.agents
    assert twin.snapshot() == env.snapshot()
    a = _play(env, np.random.default_rng(2), 200)
    b = _play(twin, np.random.default_rng(2), 200)
    assert a == b and len(a) > 0
    assert twin.snapshot() == env.snapshot()


@pytest.mark.parametrize("env_id", IDS)
def test_aec_env_pickles_mid_tick_and_continues_identically(env_id):
    env = _module(env_id).env(**SMALL[env_id])
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(len(env.possible_agents) * 7 + 1):  # stop in the middle of a tick
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    twin = pickle.loads(pickle.dumps(env))
    deep = copy.deepcopy(env)
    for e in (twin, deep):
        assert e.agent_selection == env.agent_selection and e.unwrapped._joint == env.unwrapped._joint

    def run(e, seed):
        r = np.random.default_rng(seed)
        out = []
        for agent in e.agent_iter(400):
            obs, rew, term, trunc, info = e.last()
            action = None if (term or trunc) else int(r.choice(np.flatnonzero(obs["action_mask"])))
            e.step(action)
            out.append((agent, obs["observation"].tobytes(), rew, term, trunc, info["tick"]))
        return out

    ref = run(env, 9)
    assert run(twin, 9) == ref and run(deep, 9) == ref


@pytest.mark.parametrize("make", [
    lambda: IllegalActionError("chef_0", 3, "serve", "no customer is waiting", ["noop", "flip"]),
    lambda: IllegalActionError("chef_0", 3, "serve", "no customer is waiting"),
    lambda: ActionFormatError("step takes a dict"),
    lambda: ConfigError("bad option"),
    lambda: SnapshotError("corrupt"),
])
def test_every_error_class_pickles_with_its_message_and_fields(make):
    err = make()
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == str(err)
    assert back.__dict__ == err.__dict__ or not err.__dict__
    # vector envs (gymnasium's AsyncVectorEnv, AgileRL's) re-raise a worker's error as type(e)(e)
    again = type(err)(err)
    assert str(again) == str(err) and isinstance(again, ValueError)
    if isinstance(err, IllegalActionError):
        assert (again.agent, again.action, again.reason, again.legal) == (err.agent, err.action, err.reason, err.legal)


def test_an_illegal_action_raised_in_a_worker_process_reaches_the_caller_with_its_reason():
    import multiprocessing as mp

    env_id = IDS[0]
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        with pytest.raises(IllegalActionError) as err:
            pool.apply(_illegal_step_in_worker, (env_id, SMALL[env_id]))
    assert err.value.agent is not None and "illegal action for" in str(err.value) and err.value.reason


def _illegal_step_in_worker(env_id, kwargs):
    env = envs.get_env_module(env_id).parallel_env(**kwargs)
    obs, _ = env.reset(seed=0)
    a = env.agents[0]
    bad = int(np.flatnonzero(obs[a]["action_mask"] == 0)[0])
    env.step({**{b: 0 for b in env.agents}, a: bad})


# ---------------------------------------------------------------------------------------------- the mask is the truth
@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
def test_an_action_is_accepted_if_and_only_if_the_mask_allows_it(cfg):
    env = cfg.parallel_env()
    rng = np.random.default_rng(5)
    obs, _ = env.reset(seed=2)
    n = env.action_table.n
    checked = 0
    step = 0
    while env.agents:
        if step % 37 == 0:
            eng = env.engine
            for a in env.agents:
                mask = eng.action_mask(a)
                for act in range(n):
                    if mask[act]:
                        assert eng.check_one(a, act) == (act, None)
                    else:
                        with pytest.raises(IllegalActionError):
                            eng.check_one(a, act)
                        replacement, why = eng.check_one(a, act, "noop")
                        assert mask[replacement] and why
                    checked += 1
                # refused at the door: the step raises and the state is untouched
                illegal = np.flatnonzero(mask == 0)
                if illegal.size:
                    before = eng.to_dict()
                    with pytest.raises(IllegalActionError, match=a):
                        env.step({**_random_legal(rng, obs, env.agents), a: int(rng.choice(illegal))})
                    assert env.engine.to_dict() == before
        obs, *_ = env.step(_random_legal(rng, obs, env.agents))
        step += 1
    assert checked > 0


@pytest.mark.parametrize("env_id", IDS)
def test_noop_mode_never_stalls_a_game_played_without_masks(env_id):
    """Unmasked random actions with illegal_action="noop": every replaced action is a legal
    default (where noop itself is not legal, the game's documented default), so games end."""
    mod = _module(env_id)
    env = mod.parallel_env(**SMALL[env_id], illegal_action="noop")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    bound = mod.max_episode_steps(**SMALL[env_id])
    steps = replaced = 0
    while env.agents:
        masks = {a: obs[a]["action_mask"] for a in env.agents}
        joint = {a: int(rng.integers(env.action_table.n)) for a in env.agents}
        obs, _, term, trunc, infos = env.step(joint)
        for a, info in infos.items():
            assert masks[a][info["action"]], f"{a} was made to play an action its mask did not allow"
            replaced += info["illegal_replaced"]
        steps += 1
    assert replaced > 0 and steps <= bound and (any(term.values()) or any(trunc.values()))


# ---------------------------------------------------------------------------------------------- AEC
@pytest.mark.parametrize("env_id", IDS)
def test_aec_checks_each_action_when_submitted_and_is_never_wedged(env_id):
    env = _module(env_id).env(**SMALL[env_id])
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(3 * len(env.possible_agents) + 1):
        agent = env.agent_selection
        obs, *_ = env.last()
        illegal = np.flatnonzero(obs["action_mask"] == 0)
        joint_before = dict(env.unwrapped._joint)
        snap = env.unwrapped.engine.to_dict()
        for bad in (int(illegal[0]), env.action_space(agent).n, -1, "1", 1.0):
            with pytest.raises(IllegalActionError) as err:
                env.step(bad)
            assert agent in str(err.value)
            # nothing buffered, nothing changed, the same agent chooses again
            assert env.agent_selection == agent and env.unwrapped._joint == joint_before
            assert env.unwrapped.engine.to_dict() == snap
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.engine.tick == 3


@pytest.mark.parametrize("env_id", IDS)
def test_aec_and_parallel_forms_play_the_same_game(env_id):
    mod = _module(env_id)
    par, aec = mod.parallel_env(**SMALL[env_id]), mod.env(**SMALL[env_id])
    obs, _ = par.reset(seed=8)
    aec.reset(seed=8)
    rng = np.random.default_rng(3)
    ret_par = dict.fromkeys(par.possible_agents, 0.0)
    ret_aec = dict.fromkeys(par.possible_agents, 0.0)
    ticks = 0
    while par.agents:
        joint = _random_legal(rng, obs, par.agents)
        for a in par.agents:  # seat order, one cycle = one tick
            assert aec.agent_selection == a
            o, r, term, trunc, _ = aec.last()
            np.testing.assert_array_equal(o["observation"], obs[a]["observation"])
            np.testing.assert_array_equal(o["action_mask"], obs[a]["action_mask"])
            ret_aec[a] += r
            aec.step(joint[a])
        obs, rew, term, trunc, infos = par.step(joint)
        ticks += 1
        for a in rew:
            ret_par[a] += rew[a]
        assert aec.unwrapped.infos == {a: infos[a] for a in aec.agents}
    assert aec.unwrapped.engine.to_dict() == par.engine.to_dict()
    # the last tick's rewards are read at each agent's final last(), then it steps out with None
    for agent in aec.agent_iter():
        o, r, term, trunc, _ = aec.last()
        assert term and not trunc
        ret_aec[agent] += r
        aec.step(None)
    assert aec.agents == [] and ret_aec == pytest.approx(ret_par) and ticks > 0


@pytest.mark.parametrize("env_id", IDS)
def test_terminate_illegal_wrapper_ends_the_game_and_blames_the_agent(env_id):
    env = TerminateIllegalWrapper(_module(env_id).env(**SMALL[env_id]), illegal_reward=-1)
    env.reset(seed=0)
    first = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    seen = {}
    for agent in env.agent_iter():
        _, r, term, trunc, _ = env.last()
        assert term
        seen[agent] = r
        env.step(None)
    assert seen[first] == -1 and all(r == 0 for a, r in seen.items() if a != first)
    assert set(seen) == set(env.possible_agents) and env.agents == []
    env.reset(seed=1)  # and it starts again
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("env_id", IDS)
def test_python_O_changes_nothing(env_id):
    """Under ``python -O`` (asserts stripped) an out-of-range action is still refused."""
    code = textwrap.dedent(f"""
        import envs
        from envs.core.errors import IllegalActionError
        mod = envs.get_env_module({env_id!r})
        for env in (mod.env(), ):
            env.reset(seed=0)
            for bad in (env.action_space(env.agent_selection).n, -1):
                try:
                    env.step(bad)
                except IllegalActionError:
                    pass
                else:
                    raise SystemExit("accepted " + str(bad))
        par = mod.parallel_env()
        par.reset(seed=0)
        try:
            par.step({{a: 10 ** 6 for a in par.agents}})
        except IllegalActionError:
            print("refused")
    """)
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "refused" in out.stdout, out.stderr


@pytest.mark.parametrize("env_id", IDS)
def test_performance_benchmark(env_id):
    buf = io.StringIO()
    with redirect_stdout(buf):
        performance_benchmark(_module(env_id).env(**SMALL[env_id]))
    turns = float(buf.getvalue().split(" turns per second")[0].split()[-1])
    assert turns > 0


# ---------------------------------------------------------------------------------------------- options and joint actions
@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("form", ["parallel", "aec"])
def test_max_cycles_truncates_after_exactly_n_ticks(env_id, form):
    mod = _module(env_id)
    n = 9
    if form == "parallel":
        env = mod.parallel_env(**SMALL[env_id], max_cycles=n)
        obs, _ = env.reset(seed=0)
        rng = np.random.default_rng(0)
        steps = 0
        while env.agents:
            obs, _, term, trunc, _ = env.step(_random_legal(rng, obs, env.agents))
            steps += 1
        assert steps == n and all(trunc.values()) and not any(term.values())
        for a in obs:  # the episode is over: noop is legal in the final masks after a truncation too
            assert obs[a]["action_mask"][0] == 1 and env.observe(a)["action_mask"][0] == 1
    else:
        env = mod.env(**SMALL[env_id], max_cycles=n)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        ended = {}
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                ended[agent] = (term, trunc)
            env.step(None if (term or trunc) else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.unwrapped.engine.tick == n
        assert ended == dict.fromkeys(env.possible_agents, (False, True))  # truncated, not terminated
    assert mod.parallel_env(**SMALL[env_id], max_ticks=n, max_cycles=n).max_ticks == n
    with pytest.raises(ConfigError, match="max_cycles"):
        mod.parallel_env(**SMALL[env_id], max_ticks=n, max_cycles=n + 1)


@pytest.mark.parametrize("env_id", IDS)
def test_a_joint_action_that_is_not_a_dict_is_a_clear_error(env_id):
    env = _module(env_id).parallel_env(**SMALL[env_id])
    env.reset(seed=0)
    snap = env.snapshot()
    for bad in ([0] * len(env.agents), np.zeros(len(env.agents), dtype=int), 0, None):
        with pytest.raises(ActionFormatError, match="dict") as err:
            env.step(bad)
        assert isinstance(err.value, TypeError) and isinstance(err.value, ValueError)
    assert env.snapshot() == snap



@pytest.mark.parametrize("env_id", IDS)
def test_an_unknown_agent_or_an_observation_before_reset_is_a_clear_error(env_id):
    """``observe`` before ``reset`` names the call to make (it was an AttributeError), and an agent
    that is not one of ``possible_agents`` is a KeyError naming them, in both forms."""
    par = _module(env_id).parallel_env(**SMALL[env_id])
    aec = _module(env_id).env(**SMALL[env_id])
    with pytest.raises(RuntimeError, match=r"call reset\(\) before observe\(\)"):
        par.observe(par.possible_agents[0])
    par.reset(seed=0)
    aec.reset(seed=0)
    snap = par.snapshot()
    for bad in ("bob", ["chef_0"], None):
        for call in (par.observation_space, par.action_space, par.observe,
                     aec.observation_space, aec.action_space, aec.observe):
            with pytest.raises(KeyError) as err:
                call(bad)
            message = err.value.args[0]
            assert "no such agent" in message and str(par.possible_agents) in message, message
    assert par.snapshot() == snap
    a = par.possible_agents[-1]
    assert par.action_space(a) is par.action_space(a) and aec.observe(a)["action_mask"].any()

# ---------------------------------------------------------------------- the rules engine used directly
@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_an_engine_built_with_new_takes_the_env_defaults_and_checks_its_config(env_id):
    """``Engine.new(config, seed)``, the rules engine without PettingZoo (planners, replays, tests):
    an option left out takes the env's default, so ``new({}, seed)`` deals the game a default env
    deals with that seed; a bad, unknown or excluded option is a ConfigError naming it (it was a bare
    KeyError from deep inside the engine)."""
    mod = envs.get_env_module(env_id)
    env = mod.parallel_env()
    env.reset(seed=5)
    cls = type(env.unwrapped.engine)
    assert cls.new({}, seed=5).to_dict() == env.unwrapped.engine.to_dict()
    players = mod.TEST_CONFIGURATIONS[-1].get("players")
    if players is not None:
        twin = mod.parallel_env(players=players)
        twin.reset(seed=6)
        assert cls.new({"players": players}, seed=6).to_dict() == twin.unwrapped.engine.to_dict()
    for bad, says in (({"players": 99}, "option players=99 is not allowed; allowed: one of"),
                      ({"players": "2"}, "option players='2' is not allowed"),
                      ({"render_mode": "ansi"}, "unknown option(s) 'render_mode'; allowed options: players"),
                      (["players"], "a config must be a dict of options, got list")):
        with pytest.raises(ConfigError, match=re.escape(f"{cls.__name__}: {says}")):
            cls.new(bad, seed=0)



@pytest.mark.parametrize("env_id", IDS)
def test_an_engine_refuses_a_joint_action_that_is_not_a_dict_and_a_mask_for_an_unknown_agent(env_id):
    """The rules engine used directly: ``step([0])`` said "illegal action for 0 ... no such agent"
    and ``action_mask("bob")`` handed out a mask (noop legal) for a seat that does not exist."""
    cls = _module(env_id).raw_env.engine_cls
    eng = cls.new({}, seed=3)
    before = eng.to_dict()
    for bad in ([0] * len(eng.agents), None, 0):
        with pytest.raises(ActionFormatError, match=f"{cls.ENGINE_NAME}: a joint action is a dict"):
            eng.step(bad)
    for bad in ("bob", 7):
        with pytest.raises(KeyError, match=re.escape(f"no such agent {bad!r}; agents are {list(eng.agents)}")):
            eng.action_mask(bad)
    assert eng.to_dict() == before
    assert eng.action_mask(eng.agents[0]).any()

def test_an_engine_config_the_rules_exclude_is_refused_by_new():
    from envs.waroong_wars.engine import WaroongEngine

    with pytest.raises(ConfigError, match="WaroongEngine: .*plain_mode"):
        WaroongEngine.new({"plain_mode": True, "character_mode": True}, seed=0)
    with pytest.raises(ConfigError, match="unknown option\\(s\\) 'own_picks'"):  # the observation's, not the rules'
        WaroongEngine.new({"own_picks": True}, seed=0)


# ---------------------------------------------------------------------------------------------- the AEC form's ends
def _played_out_aec(env_id):
    """An AEC env whose every agent has stepped out (a game cut at one tick)."""
    env = _module(env_id).env(**SMALL[env_id], max_cycles=1)
    env.reset(seed=0)
    for a in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    return env


@pytest.mark.parametrize("env_id", IDS)
def test_the_aec_form_after_its_episode_says_so_and_changes_nothing(env_id):
    """Stepping the unwrapped AEC env after every agent had stepped out raised a bare
    ``IndexError`` and still ran one more tick of the game (its engine's tick moved on, and a
    reward entry came back for an agent that had left); ``last()`` raised a bare ``KeyError``."""
    env = _played_out_aec(env_id)
    raw = env.unwrapped
    tick, snap = raw.engine.tick, raw.par.snapshot()
    for call in (lambda: raw.step(0), lambda: raw.last(), lambda: env.last()):
        with pytest.raises(RuntimeError, match=r"the episode is over .*; call reset\(\)"):
            call()
    env.step(0)  # through PettingZoo's OrderEnforcingWrapper: its warning, as for every env
    assert raw.engine.tick == tick and raw.par.snapshot() == snap
    assert raw._cumulative_rewards == {} and raw.agents == []
    env.reset(seed=1)  # and it starts again
    assert env.agents and env.last()[0] is not None


@pytest.mark.parametrize("env_id", IDS)
def test_a_refused_first_reset_leaves_the_aec_form_unreset(env_id):
    """PettingZoo's ``OrderEnforcingWrapper`` marked itself reset before the env refused the
    reset, so ``step`` then only warned and ``last`` raised an empty ``AssertionError``."""
    env = _module(env_id).env(**SMALL[env_id])
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        env.reset(seed=1.5)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(0)
    env.reset(seed=1)
    assert env.agent_selection == env.agents[0]
    assert type(pickle.loads(pickle.dumps(env))) is type(env)


@pytest.mark.parametrize("env_id", IDS)
def test_a_wrapper_that_edits_metadata_changes_only_its_own_env(env_id):
    """The AEC env shared its ``render_modes`` list with the class: each
    ``CaptureStdoutWrapper`` appended ``"ansi"`` to every later env of the game."""
    from pettingzoo.utils.wrappers import CaptureStdoutWrapper

    mod = _module(env_id)
    modes = list(mod.raw_env.metadata["render_modes"])
    for _ in range(2):
        CaptureStdoutWrapper(mod.env(**SMALL[env_id], render_mode="human"))
    assert mod.raw_env.metadata["render_modes"] == modes
    assert mod.env(**SMALL[env_id]).metadata["render_modes"] == modes
    assert mod.parallel_env(**SMALL[env_id]).metadata["render_modes"] == modes


@pytest.mark.parametrize("env_id", IDS)
def test_metadata_declares_the_render_fps_that_gymnasiums_render_check_asks_for(env_id):
    """``"human"`` was listed with no ``render_fps``: gymnasium's render checker warned, and
    PettingZoo's video wrappers fell back to 30 frames a second. One frame a tick of table time."""
    import warnings

    from gymnasium.utils.passive_env_checker import env_render_passive_checker  # gymnasium's own check

    mod = _module(env_id)
    for env in (mod.env(**SMALL[env_id], render_mode="ansi"), mod.parallel_env(**SMALL[env_id], render_mode="ansi")):
        assert env.metadata["render_fps"] == 1.0, env.metadata
        env.reset(seed=0)  # (the checker renders)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env_render_passive_checker(env)
    if "seconds_per_tick" in mod.raw_env.config_spec().names():
        env = mod.parallel_env(**SMALL[env_id], seconds_per_tick=0.5)
        assert env.metadata["render_fps"] == 2.0
        assert mod.parallel_env(**SMALL[env_id]).metadata["render_fps"] == 1.0  # the class's is untouched
        assert mod.env(**SMALL[env_id], seconds_per_tick=0.5).metadata["render_fps"] == 2.0


@pytest.mark.parametrize("env_id", IDS)
def test_reset_refuses_a_snapshot_of_a_finished_game_and_warns_of_an_ignored_seed(env_id):
    """``reset(options={"snapshot": s})`` of a game that was over returned no agents (the
    AEC form then had no agent to select); a seed given with a snapshot was dropped silently."""
    mod = _module(env_id)
    env = mod.parallel_env(**SMALL[env_id])
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.agents:
        obs, *_ = env.step(_random_legal(rng, obs, env.agents))
    finished = env.snapshot()
    for form in ("parallel", "aec"):
        fresh = mod.parallel_env(**SMALL[env_id]) if form == "parallel" else mod.env(**SMALL[env_id])
        fresh.reset(seed=5)
        raw = fresh if form == "parallel" else fresh.unwrapped
        before = raw.snapshot()
        with pytest.raises(SnapshotError, match="a snapshot of a game that is over"):
            fresh.reset(options={"snapshot": finished})
        assert raw.snapshot() == before and fresh.agents
    env.restore(finished)  # restore() still shows a finished game
    assert env.agents == [] and env.snapshot() == finished
    env.reset(seed=3)
    live = env.snapshot()
    with pytest.warns(UserWarning, match="seed=9 ignored: a snapshot carries its own generator"):
        env.reset(seed=9, options={"snapshot": live})
    assert env.snapshot() == live


@pytest.mark.parametrize("env_id", IDS)
def test_both_forms_print_the_envs_name_as_pettingzoos_games_do(env_id):
    """PettingZoo's wrapper drops its prefix only for its exact class: ``str(env())`` was
    ``OrderEnforcing<wok_star_v1>`` where PettingZoo's own games print their bare name."""
    m = envs.get_env_module(env_id)
    assert str(m.env()) == str(m.parallel_env()) == str(m.env().unwrapped) == env_id


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_numpy_strings_and_bools_are_options_as_numpy_ints_are(env_id):
    """``render_mode=np.str_("ansi")`` and ``np.True_`` for a bool option were refused while
    ``np.int64`` was taken; each now reads as Python's own value."""
    mod = _module(env_id)
    kw = {k: (np.int64(v) if type(v) is int else v) for k, v in SMALL[env_id].items()}
    env = mod.parallel_env(**kw, render_mode=np.str_("ansi"), mask_in_infos=np.True_)
    assert env.render_mode == "ansi" and type(env.render_mode) is str
    assert env.config["mask_in_infos"] is True
    with pytest.raises(ConfigError, match="option render_mode='bogus' is not allowed"):
        mod.parallel_env(**SMALL[env_id], render_mode=np.str_("bogus"))
