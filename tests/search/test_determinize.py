"""Each game's ``determinize``: a legal full state, the viewer's view kept, every card kind's count
kept, and nothing of the true hidden state in the result (two states that differ only in hidden
information give the same determinisations for a seed)."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.core.seeding import make_rng
from tests.search.helpers import card_multisets, deciders, determinizer, observation, positions, scramble

CONFIGS = [(c.env_id, c.kwargs) for c in envs.test_configurations()]


def _ids(item):
    env_id, kw = item
    return f"{env_id}[{','.join(f'{k}={v}' for k, v in kw.items())}]"


@pytest.mark.parametrize("config", CONFIGS, ids=[_ids(c) for c in CONFIGS])
def test_a_determinisation_is_a_legal_state_the_viewer_cannot_tell_apart(config):
    env_id, kwargs = config
    det = determinizer(env_id)
    env, states = positions(env_id, kwargs, seed=len(kwargs) + 11)
    assert states
    for k, eng in enumerate(states):
        before = eng.to_dict()
        for viewer in deciders(eng)[:2]:
            d = det(eng, viewer, make_rng(k))
            assert eng.to_dict() == before, "determinize must not change the engine it reads"
            type(eng).from_dict(d.to_dict())  # the full snapshot checks: a state the rules can reach
            assert card_multisets(env_id, d, viewer) == card_multisets(env_id, eng, viewer)
            np.testing.assert_array_equal(observation(env, d, viewer), observation(env, eng, viewer))
            np.testing.assert_array_equal(d.action_mask(viewer), eng.action_mask(viewer))
            assert d.tick == eng.tick and d.agents == eng.agents


@pytest.mark.parametrize("config", CONFIGS, ids=[_ids(c) for c in CONFIGS])
def test_states_that_differ_only_in_hidden_information_determinise_alike(config):
    env_id, kwargs = config
    det = determinizer(env_id)
    env, states = positions(env_id, kwargs, seed=len(kwargs) + 5)
    for k, eng in enumerate(states):
        viewer = deciders(eng)[0]
        other = scramble(env_id, eng, viewer, seed=100 + k)
        # the scrambled state is another truth behind the same view
        np.testing.assert_array_equal(observation(env, other, viewer), observation(env, eng, viewer))
        assert other.to_dict() != eng.to_dict()
        for seed in (0, 1):
            a = det(eng, viewer, make_rng(seed)).to_dict()
            b = det(other, viewer, make_rng(seed)).to_dict()
            assert a == b


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_determinisations_vary_with_the_seed_and_repeat_for_it(env_id):
    det = determinizer(env_id)
    kwargs = envs.test_configurations(env_id)[-1].kwargs
    env, states = positions(env_id, kwargs, seed=3, count=4)
    eng = states[-1]
    viewer = deciders(eng)[0]
    draws = [det(eng, viewer, make_rng(s)).to_dict() for s in range(6)]
    assert det(eng, viewer, make_rng(2)).to_dict() == draws[2]
    assert len({repr(d["state"]) for d in draws}) > 1, "the hidden parts must be re-sampled"


def test_waroong_wars_drafter_remembers_its_own_picks_and_nothing_else():
    from envs.waroong_wars.determinize import remembered_picks

    env = envs.get_env_module("waroong_wars_v1").parallel_env(players=3)
    env.reset(seed=4)
    eng = env.unwrapped.engine
    rng = make_rng(0)
    mine = []
    for _ in range(3):  # three draft picks by everyone
        joint = {a: int(rng.choice(eng.legal_actions(a))) for a in eng.live_agents()}
        mine.append(joint["player_0"])
        eng.step(joint)
    assert eng.phase == "draft" and eng.pick_no == 3
    assert remembered_picks(eng, 0, mine) == eng.hands[0]
    assert remembered_picks(eng, 0, mine[1:]) is None  # not every pick of the round is known
    det = determinizer("waroong_wars_v1")
    for s in range(5):
        d = det(eng, "player_0", make_rng(s), mine)
        assert d.hands[0] == eng.hands[0] and d.packs[0] == eng.packs[0]
    dealt = {tuple(det(eng, "player_0", make_rng(s)).hands[0]) for s in range(8)}
    assert len(dealt) > 1  # without the memory, its own face-down picks are dealt like any unseen card
