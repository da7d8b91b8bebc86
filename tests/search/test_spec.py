"""The ``planner`` policy spec: parsing, every option checked with what is allowed, the policy it makes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from envs.core.errors import ConfigError
import envs
from envs.core.policy import RandomLegalPolicy
from envs.core.search import Planner, PlannerPolicy, Rollout, SearchBudget
from training.envspec import EnvSpec
from training.policies import PLANNER_OPTIONS, SPEC_HELP, make_policy, parse_spec, spec_checker

ROOT = Path(__file__).resolve().parents[2]


def test_planner_specs_parse_with_their_options():
    assert parse_spec("planner").kind == "planner" and parse_spec("planner").options == {}
    ps = parse_spec("planner?ms=50&samples=8&rollout=random&horizon=score&seed=3")
    assert ps.options == {"ms": 50.0, "samples": 8, "rollout": "random", "horizon": "score", "seed": 3}
    assert ps.label == "planner?ms=50&samples=8&rollout=random&horizon=score&seed=3"
    assert parse_spec("planner?sims=8&horizon=20").options == {"sims": 8, "horizon": 20}
    assert parse_spec("planner?sims=8&horizon=round").options == {"sims": 8, "horizon": "round"}
    assert parse_spec("planner?rollout=checkpoint:checkpoints/wok_star/main").options["rollout"] == \
        "checkpoint:checkpoints/wok_star/main"
    assert "planner" in SPEC_HELP and spec_checker("planner?sims=4") is None


@pytest.mark.parametrize("spec, names", [
    ("planner?depth=3", ["'depth'", "ms, sims, samples, rollout, others, play, horizon, arms, widen, z, rule, width, value, "
                         "drafters, seed"]),
    ("planner?play=greedy", ["play='greedy'", "heuristic, random or checkpoint:DIR"]),
    ("planner?play=checkpoint:", ["play='checkpoint:'"]),
    ("planner?value=critic", ["value='critic'", "checkpoint:DIR"]),
    ("planner?value=checkpoint:", ["value='checkpoint:'", "checkpoint:DIR"]),
    ("planner?drafters=heuristic", ["drafters='heuristic'", "checkpoint:DIR", "Waroong Wars"]),
    ("planner?drafters=checkpoint:", ["drafters='checkpoint:'", "checkpoint:DIR"]),
    ("planner?z=-1", ["z='-1'", "[0, 10]"]),
    ("planner?z=lots", ["z='lots'", "[0, 10]"]),
    ("planner?widen=best", ["widen='best'", "random", "prior"]),
    ("planner?others=greedy", ["others='greedy'", "heuristic, random or checkpoint:DIR", "or drafters"]),
    ("planner?others=drafters", ["others=drafters", "needs drafters=checkpoint:DIR"]),
    ("planner?rollout=drafters", ["rollout='drafters'", "heuristic, random or checkpoint:DIR"]),
    ("planner?play=drafters", ["play='drafters'", "heuristic, random or checkpoint:DIR"]),
    ("planner?arms=some", ["arms='some'", "game", "all"]),
    ("planner?ms=0", ["ms='0'", "(0, 600000]"]),
    ("planner?ms=fast", ["ms='fast'", "milliseconds"]),
    ("planner?ms=nan", ["ms='nan'"]),
    ("planner?sims=0", ["sims='0'", "1..10000000"]),
    ("planner?samples=-2", ["samples='-2'", "an integer 1.."]),
    ("planner?rollout=greedy", ["rollout='greedy'", "heuristic, random or checkpoint:DIR"]),
    ("planner?rollout=checkpoint:", ["rollout='checkpoint:'"]),
    ("planner?horizon=soon", ["horizon='soon'", "score or round"]),
    ("planner?seed=x", ["seed='x'"]),
    ("planner?width=1", ["width='1'", "an integer 2..10000"]),
    ("planner?ms=50&sims=8", ["ms", "sims", "not both"]),
    ("planner?sims=8&sims=9", ["'sims' given twice"]),
    ("planner?", ["nothing after '?'"]),
    ("planner?sims", ["planner?sims"]),
    # a checkpoint inside the planner plays its most likely move (its sampled form drew unseeded)
    ("planner?rollout=checkpoint:checkpoints/frying_master/main?deterministic=false",
     ["takes no options", "allowed: checkpoint:DIR"]),
    ("planner?others=checkpoint:checkpoints/frying_master/main?strict=true", ["takes no options"]),
    # values as written: digits 0-9 only, no percent-decoding, no underscores in numbers
    ("planner?sims=%31", ["sims='%31'", "an integer 1.."]),
    ("planner?sims=\uff11", ["sims='\uff11'", "an integer 1.."]),
    ("planner?ms=1_0", ["ms='1_0'", "(0, 600000]"]),
    ("planner?ms=inf", ["ms='inf'"]),
    ("planner?z=1_5", ["z='1_5'", "[0, 10]"]),
])
def test_a_bad_planner_spec_names_the_problem_and_what_is_allowed(spec, names):
    with pytest.raises(ConfigError) as e:
        parse_spec(spec)
    for name in names:
        assert name in str(e.value)
    assert spec_checker(spec) == str(e.value)


def test_every_documented_option_is_accepted():
    values = {"ms": "20", "sims": "4", "samples": "2", "rollout": "heuristic", "others": "random", "play": "random",
              "horizon": "5",
              "arms": "all", "widen": "prior", "z": "1", "rule": "t", "width": "3", "value": "checkpoint:x",
              "drafters": "checkpoint:x", "seed": "1"}
    assert set(values) == set(PLANNER_OPTIONS)
    for k, v in values.items():
        assert k in parse_spec(f"planner?{k}={v}").options


def test_make_policy_builds_the_planner_with_its_budget_and_rollout():
    spec = EnvSpec.resolve("frying_master_v1")
    pol = make_policy("planner?sims=6&samples=3&horizon=score&rollout=random", spec, seed=1)
    assert isinstance(pol, PlannerPolicy)
    pl = pol.planner
    assert pl.budget == SearchBudget(ms=None, sims=6, samples=3, horizon="score")
    assert not pl.cooperative and pl.max_ticks == spec.make().unwrapped.max_ticks
    assert type(pl.rollout.make()).__name__ == "RandomLegalPolicy"
    default = make_policy("planner", spec).planner
    assert default.budget == SearchBudget(ms=100.0, sims=None, samples=16, horizon=0)
    assert type(default.rollout.make()).__name__ == "HeuristicPolicy"
    assert make_policy("planner", EnvSpec.resolve("wok_star_v1")).planner.cooperative
    from envs.frying_master.determinize import search_arms
    assert default.arms is search_arms  # the game's choice of decisions and moves, by default
    assert make_policy("planner?arms=all", spec).planner.arms is None  # every decision, every move


def test_others_gives_the_other_seats_their_own_rollout_policy():
    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    from training.checkpoints import read_metadata, trained_env_spec

    spec = trained_env_spec(read_metadata(ckpt))
    pl = make_policy(f"planner?sims=4&rollout=checkpoint:{ckpt}&others=heuristic", spec).planner
    assert pl.rollout.observe is not None  # the deciding seat: the checkpoint, reading observations
    assert pl.rollout.others is not None and pl.rollout.others.observe is None
    assert pl.rollout.others.make().recall == "world"  # the game's simulation form of the heuristic
    assert pl.root.others is None  # at the table the rollout policy plays the deciding seat only
    assert make_policy("planner?sims=4", spec).planner.rollout.others is None  # default: one policy for all


def test_others_drafters_plays_each_other_seat_as_the_kind_of_drafter_its_world_names():
    """``others=drafters``: the other seats' model in the simulations is the heuristic or the drafters'
    checkpoint, per seat, as each determinisation names it (``sim_models``, drawn by the drafters' rule:
    the determinisation is asked for it); the deciding seat plays the rollout policy. The world a
    simulation runs on keeps its kinds (its clone carries them)."""
    from envs.core.search import SeatModels
    from training.checkpoints import read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    spec = trained_env_spec(read_metadata(ckpt))
    pol = make_policy(f"planner?sims=6&samples=2&horizon=round&rollout=random&others=drafters&drafters=checkpoint:{ckpt}",
                      spec, seed=0)
    pl = pol.planner
    assert pl.determinize.keywords["kinds"] is True
    others = pl.rollout.others
    assert isinstance(others, SeatModels) and len(others.rollouts) == 2
    assert others.rollouts[0].observe is None and others.rollouts[0].make().recall == "world"  # the heuristic
    assert others.rollouts[1].observe is not None  # the checkpoint, reading observations
    assert "kinds" not in make_policy(f"planner?sims=4&drafters=checkpoint:{ckpt}", spec).planner.determinize.keywords
    env = spec.make()
    env.reset(seed=3)
    eng = env.unwrapped.engine
    agent = eng.live_agents()[0]
    named = {a: k for a, k in zip([a for a in eng.agents if a != agent], (1, 0))}
    real_determinize = pl.determinize

    def determinize(*args, **kwargs):
        world = real_determinize(*args, **kwargs)
        assert set(world.sim_models) == set(named) and set(world.sim_models.values()) <= {0, 1}
        world.sim_models = dict(named)
        world.clone = lambda: type(world).from_dict(world.to_dict())  # a copy of the state alone, as the core's
        return world

    pl.determinize = determinize
    calls: list = []
    for i, r in enumerate(others.rollouts):
        def spy(engine, who, me=None, real=r.act, i=i):
            calls.append((who, i, engine is not eng))
            return real(engine, who)
        r.act = spy
    pol.act({"action_mask": eng.action_mask(agent)}, agent, env)
    assert pl.stats["simulations"] == 6 and calls
    assert all(who != agent and i == named[who] and simulated for who, i, simulated in calls), calls[:5]
    assert {i for _, i, _ in calls} == {0, 1}


def test_drafters_model_waroong_wars_other_drafters_by_a_checkpoint_and_no_other_game():
    """``drafters=checkpoint:DIR``: the determinisations weigh that checkpoint's drafting beside the
    heuristic's (Waroong Wars); a game without a draft refuses it, naming the game it is for."""
    from envs.waroong_wars.determinize import DRAFTER_PRIOR, DrafterModel, determinize

    ckpt = ROOT / "checkpoints" / "waroong_wars" / "memory"
    from training.checkpoints import read_metadata, trained_env_spec

    spec = trained_env_spec(read_metadata(ckpt))
    pl = make_policy(f"planner?sims=4&drafters=checkpoint:{ckpt}", spec).planner
    assert pl.determinize.func is determinize
    model = pl.determinize.keywords["drafters"]
    assert isinstance(model, DrafterModel) and model.share == DRAFTER_PRIOR and model.key == f"checkpoint:{ckpt}"
    assert make_policy("planner?sims=4", spec).planner.determinize is determinize  # default: the heuristic's rule
    for extra in ("", "&others=drafters"):
        with pytest.raises(ConfigError, match="frying_master_v1 does not have; it is for waroong_wars"):
            make_policy(f"planner?sims=4&drafters=checkpoint:{ckpt}{extra}", EnvSpec.resolve("frying_master_v1"))


def test_play_sets_the_move_at_the_table_apart_from_the_simulations_policy():
    """``play``: the policy of the seat's unsearched moves and of the arm a search must beat; the
    simulations stay the rollout policy's."""
    from training.checkpoints import read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "wok_star" / "partners_ft3"
    spec = trained_env_spec(read_metadata(ckpt))
    pl = make_policy(f"planner?sims=4&play=checkpoint:{ckpt}", spec).planner
    assert pl.root.observe is not None  # at the table: the checkpoint, reading observations
    assert type(pl.rollout.make()).__name__ == "HeuristicPolicy" and pl.rollout.observe is None
    default = make_policy("planner?sims=4", spec).planner
    assert default.root.observe is None and type(default.root.make()).__name__ == "HeuristicPolicy"


def test_with_play_the_planner_plays_that_policy_where_it_does_not_search_and_beats_it_to_deviate():
    """A recording ``play`` policy: asked at the table for every decision (never in a simulation);
    an unsearched decision plays its move; a searched one plays it unless another arm is clearly
    better (z=10: never)."""
    from envs.core.policy import Policy

    asked: list[str] = []
    simulated: list[str] = []

    class Recording(Policy):
        def __init__(self, log, action=None):
            self.log, self.action, self.inner = log, action, RandomLegalPolicy(0)

        def act(self, observation, agent, env=None):
            self.log.append(agent)
            mask = observation["action_mask"]
            if self.action is not None:
                return self.action(mask)
            return self.inner.act(observation, agent, env)

    from envs.frying_master.determinize import determinize

    last_legal = lambda mask: int(np.flatnonzero(mask)[-1])
    env = envs.get_env_module("frying_master_v1").parallel_env(players=3)
    env.reset(seed=3)
    eng = env.unwrapped.engine
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 1)
    planner = Planner(determinize, Rollout(lambda: Recording(simulated)), SearchBudget(ms=None, sims=6, samples=2,
                                                                                       horizon=30),
                      z=10.0, play=Rollout(lambda: Recording(asked, last_legal)))
    move = planner.decide(eng, agent)  # arms=None: every decision searched, the play policy's move first
    assert move == last_legal(eng.action_mask(agent))
    assert asked == [agent] and planner.stats["simulations"] == 6 and simulated  # simulations: the rollout's
    game_arms = Planner(determinize, Rollout(lambda: Recording(simulated)), SearchBudget(ms=None, sims=6, samples=2),
                        arms=lambda engine, a, first, legal: [first], play=Rollout(lambda: Recording(asked, last_legal)))
    simulated.clear()
    assert game_arms.decide(eng, agent) == last_legal(eng.action_mask(agent))  # not searched: play's move
    assert not simulated and game_arms.stats["searched"] == 0


def test_with_others_the_rollout_policy_plays_only_the_deciding_seat_in_the_simulations():
    """Two recording policies: every simulated move of the deciding seat is the rollout policy's,
    every other seat's the ``others`` policy's."""
    from envs.core.policy import Policy

    seen: dict[str, set] = {"mine": set(), "others": set()}

    class Recording(Policy):
        def __init__(self, key):
            self.key, self.inner = key, RandomLegalPolicy(0)

        def act(self, observation, agent, env=None):
            seen[self.key].add(agent)
            return self.inner.act(observation, agent, env)

    from envs.frying_master.determinize import determinize

    env = envs.get_env_module("frying_master_v1").parallel_env(players=3)
    env.reset(seed=3)
    eng = env.unwrapped.engine
    roll = Rollout(lambda: Recording("mine"), others=Rollout(lambda: Recording("others")))
    planner = Planner(determinize, roll, SearchBudget(ms=None, sims=6, samples=2, horizon=30))
    agent = next(a for a in eng.live_agents() if len(eng.legal_actions(a)) > 1)
    planner.decide(eng, agent)
    assert planner.stats["simulations"] == 6
    assert seen["mine"] == {agent}
    assert seen["others"] == set(eng.agents) - {agent}
    with pytest.raises(ValueError, match="others of its own"):
        Rollout(lambda: Recording("mine"), others=roll)


def test_the_planner_takes_each_games_memory_round_and_simulation_policy():
    import importlib

    for env_id in envs.ENV_IDS:
        mod = importlib.import_module(f"envs.{env_id.rsplit('_v', 1)[0]}.determinize")
        pl = make_policy("planner?sims=4&horizon=round", EnvSpec.resolve(env_id)).planner
        assert pl.round_of is mod.round_of and pl.remember is getattr(mod, "remember", None)
        assert pl.budget.horizon == "round"
    ww = make_policy("planner", EnvSpec.resolve("waroong_wars_v1")).planner
    # simulations recall each seat's picks from their world; at the table the heuristic remembers
    assert ww.rollout.make().recall == "world" and ww.root.make().recall == "memory"
    with pytest.raises(ValueError, match="round_of"):
        Planner(lambda *a: None, Rollout(RandomLegalPolicy), SearchBudget(ms=None, sims=2, horizon="round"))


def test_a_checkpoint_rollout_reads_observations():
    from training.checkpoints import read_metadata, trained_env_spec

    ckpt = ROOT / "checkpoints" / "frying_master" / "main"
    spec = trained_env_spec(read_metadata(ckpt))  # the env it was trained on
    pol = make_policy(f"planner?sims=2&rollout=checkpoint:{ckpt}", spec)
    assert pol.planner.rollout.observe is not None
    env = spec.make()
    obs, _ = env.reset(seed=0)
    a = pol.act(obs["chef_0"], "chef_0", env)
    assert obs["chef_0"]["action_mask"][a]


@pytest.mark.parametrize("kwargs, word", [
    ({"ms": None, "sims": None}, "exactly one"), ({"ms": 5, "sims": 5}, "exactly one"), ({"ms": -1}, "ms"),
    ({"ms": None, "sims": 0}, "sims"), ({"samples": 0}, "samples"), ({"horizon": -1}, "horizon"),
    ({"horizon": "later"}, "horizon"),
])
def test_a_search_budget_refuses_bad_values(kwargs, word):
    with pytest.raises(ValueError, match=word):
        SearchBudget(**kwargs)


def test_option_values_are_taken_as_written():
    """``parse_qsl`` had read the options as a URL's: a ``+`` in a checkpoint's path became a space
    (the checkpoint "did not exist"), ``%31`` the digit 1."""
    assert parse_spec("planner?rollout=checkpoint:/tmp/ck+plus").options["rollout"] == "checkpoint:/tmp/ck+plus"
    assert parse_spec("checkpoint:/tmp/ck+plus?deterministic=false").path == "/tmp/ck+plus"
    assert parse_spec("planner?ms=2.5e1&z=.5").options == {"ms": 25.0, "z": 0.5}
    for bad, says in (("heuristic?", "nothing after '?'"), ("checkpoint:/tmp/x?", "nothing after '?'"),
                      ("heuristic?style", "is not KEY=VALUE"), ("checkpoint:/tmp/x?=true", "is not KEY=VALUE"),
                      ("text:m:f?", "nothing after '?'")):
        with pytest.raises(ConfigError, match=re.escape(says)):
            parse_spec(bad)


def test_the_same_policy_is_known_by_what_decides_its_play():
    """The tournament's "listed twice" check compared labels: the same planner written two ways ran as
    two entrants, and two checkpoints whose paths end alike were refused as one."""
    same = [("planner?sims=4&samples=2", "planner?samples=2&sims=4"), ("planner", "planner?ms=100"),
            ("planner", "planner?samples=16&rollout=heuristic&z=1.5&rule=z&arms=game&widen=random"),
            ("checkpoint:checkpoints/frying_master/main", f"checkpoint:{ROOT}/checkpoints/frying_master/main"),
            ("planner?rollout=checkpoint:checkpoints/frying_master/main",
             f"planner?rollout=checkpoint:{ROOT}/checkpoints/frying_master/../frying_master/main")]
    differ = [("planner?sims=4", "planner?sims=5"), ("planner", "planner?sims=100"),
              ("checkpoint:checkpoints/frying_master/main", "checkpoint:/elsewhere/frying_master/main"),
              ("checkpoint:checkpoints/frying_master/main", "checkpoint:checkpoints/frying_master/main?deterministic=false")]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        for a, b in same:
            assert parse_spec(a).identity == parse_spec(b).identity, (a, b)
        for a, b in differ:
            assert parse_spec(a).identity != parse_spec(b).identity, (a, b)


def test_a_tournament_refuses_one_planner_written_twice_and_keeps_two_checkpoints_of_one_name(tmp_path, monkeypatch):
    import shutil

    from training.tournament import run_tournament

    monkeypatch.chdir(ROOT)
    spec = EnvSpec.resolve("frying_master_v1", {"players": 2, "mode": "drawn", "round_shaping": 0.05})
    with pytest.raises(ConfigError, match="the same policy is listed twice: 'planner\\?sims=4&samples=2' and "
                                          "'planner\\?samples=2&sims=4'"):
        run_tournament(spec, ["planner?sims=4&samples=2", "planner?samples=2&sims=4"], games=1)
    other = tmp_path / "frying_master" / "main"
    shutil.copytree(ROOT / "checkpoints" / "frying_master" / "main", other)
    result = run_tournament(spec, ["checkpoint:checkpoints/frying_master/main", f"checkpoint:{other}"], games=1)
    assert len(result.standings) == 2
    assert set(result.policies) == {"checkpoint:checkpoints/frying_master/main", f"checkpoint:{other}"}
