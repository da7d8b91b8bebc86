"""The opt-in observation extension ``own_picks=True``: the memory of one's own face-down draft picks.

It must show exactly the player's own picks of this round (its own past actions), never another
player's, be cleared by a new round, leave every other entry of the observation as it is without
the option, and keep the env a valid PettingZoo env. Off by default (v1's observation and golden
digests unchanged: tests/conformance/test_golden.py).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from envs import waroong_wars_v1
from envs.core.errors import ConfigError
from envs.core.seeding import make_rng
from envs.waroong_wars.options import PLAYER_COUNTS, valid_variant_combinations
from tests.waroong_wars.helpers import CAT, TYPES, counts, ix

NT = CAT.n_types


def _block(env, agent: str, obs=None) -> list[int]:
    o = env.observe(agent)["observation"] if obs is None else obs[agent]["observation"]
    return [int(x) for x in env.encoder.layout.get(o, "own_picks")]


def _picks_env(players: int = 3, seed: int = 4, **opts):
    env = waroong_wars_v1.parallel_env(players=players, own_picks=True, **opts)
    obs, _ = env.reset(seed=seed)
    return env, obs


def _set_packs(env, packs: list[list[int]]) -> None:
    eng = env.engine
    eng.packs = [list(p) for p in packs]
    eng.invalidate_masks()


def test_after_picks_x_and_y_the_block_shows_them_and_no_other_players_picks():
    env, _ = _picks_env(3)
    a0 = ix(3).pick0
    # Explicit packs: seat i gets pack i; packs pass left (seat i receives seat i-1's pack).
    _set_packs(env, [counts(rice=2, meat=2, spice=2), counts(vegetable=3, unique=3),
                     counts(kerupuk=1, sambal=1, rice=4)])
    assert all(_block(env, a) == [0] * NT for a in env.agents), "nothing picked yet"
    rice, meat, veg, unique, sambal = (TYPES.index(t) for t in ("rice", "meat", "vegetable", "unique", "sambal"))
    obs, *_ = env.step({"player_0": a0 + meat, "player_1": a0 + unique, "player_2": a0 + sambal})
    assert _block(env, "player_0", obs) == counts(meat=1)
    assert _block(env, "player_1", obs) == counts(unique=1)
    assert _block(env, "player_2", obs) == counts(sambal=1)
    # player_0 now holds player_2's old pack (kerupuk, 4 rice); player_1 player_0's (rice, meat, spice).
    assert list(env.encoder.layout.get(obs["player_0"]["observation"], "pack")) == counts(kerupuk=1, rice=4)
    obs, *_ = env.step({"player_0": a0 + rice, "player_1": a0 + rice, "player_2": a0 + veg})
    assert _block(env, "player_0", obs) == counts(meat=1, rice=1)  # X then Y
    assert _block(env, "player_1", obs) == counts(unique=1, rice=1)
    assert _block(env, "player_2", obs) == counts(sambal=1, vegetable=1)
    # The hand itself stays hidden (face down): only the remembered picks are shown.
    lay = env.encoder.layout
    assert not lay.get(obs["player_0"]["observation"], "hand").any()
    assert lay.get(obs["player_0"]["observation"], "hand_visible") == 0


def test_other_players_picks_never_appear():
    """Mid-draft, changing what the other players have picked (their face-down hands) changes nothing in a
    player's observation; changing its own picks changes its block (the check is not vacuous)."""
    env, obs = _picks_env(3, seed=11)
    rng = make_rng(0)
    for _ in range(3):
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    eng = env.engine
    assert eng.phase == "draft" and eng.pick_no == 3
    before = {a: env.observe(a)["observation"] for a in env.agents}
    for seat in (1, 2):
        eng.hands[seat] = counts(meat=3) if eng.hands[seat] != counts(meat=3) else counts(rice=3)
    eng.invalidate_masks()
    np.testing.assert_array_equal(env.observe("player_0")["observation"], before["player_0"])
    assert _block(env, "player_1") == counts(meat=3) or _block(env, "player_1") == counts(rice=3)
    assert not np.array_equal(env.observe("player_1")["observation"], before["player_1"])


def _play_tracking(env, obs, rng):
    """Play random legal actions, replaying each seat's own picks from the applied actions; check the
    block against them at every step. Returns the number of rounds seen."""
    pick0 = ix(env.engine.n).pick0
    mine = {a: [0] * NT for a in env.possible_agents}
    rounds = {env.engine.round}
    zeros = [0] * NT
    while env.agents:
        for a in env.agents:
            expected = mine[a] if env.engine.phase == "draft" else zeros
            assert _block(env, a, obs) == expected, (a, env.engine.round, env.engine.phase)
            np.testing.assert_array_equal(obs[a]["observation"], env.encoder.reference_observe(env.engine, a))
        round_before = env.engine.round
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, _, _, _, infos = env.step(acts)
        if env.engine.round != round_before or env.engine.phase != "draft":
            mine = {a: [0] * NT for a in env.possible_agents}  # a new round clears the memory
        else:
            for a, info in infos.items():
                t = int(info["action"]) - pick0
                if 0 <= t < NT:
                    mine[a][t] += 1
        rounds.add(env.engine.round)
    return len(rounds)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_block_is_the_replay_of_own_actions_and_a_new_round_clears_it(players):
    for k, variants in enumerate(valid_variant_combinations()):
        env, obs = _picks_env(players, seed=100 * players + k, **variants)
        assert _play_tracking(env, obs, make_rng(k)) >= 2


def test_a_new_round_starts_with_an_empty_block_after_a_full_one():
    env, obs = _picks_env(3, seed=2)
    rng = make_rng(3)
    full = None
    while env.engine.round == 1:
        if env.engine.phase == "draft" and env.engine.pick_no == 4:
            full = _block(env, "player_0", obs)
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    assert full is not None and sum(full) == 4  # before the fifth choice (the sixth card is forced and ends Shopping)
    assert env.engine.phase == "draft" and env.engine.pick_no == 0
    assert all(_block(env, a, obs) == [0] * NT for a in env.agents)


def test_the_rest_of_the_observation_is_the_default_one_and_spaces_hold_it():
    plain = waroong_wars_v1.parallel_env(players=4)
    own = waroong_wars_v1.parallel_env(players=4, own_picks=True)
    lay_p, lay_o = plain.encoder.layout, own.encoder.layout
    assert lay_o.size == lay_p.size + NT and list(lay_o.slices)[-1] == "own_picks"
    assert own.engine_config == plain.engine_config  # not a rule: the engine (and its snapshots) never see it
    op, _ = plain.reset(seed=9)
    oo, _ = own.reset(seed=9)
    rng = make_rng(1)
    while plain.agents:
        for a in plain.agents:
            assert own.observation_space(a).contains(oo[a])
            np.testing.assert_array_equal(oo[a]["observation"][:lay_p.size], op[a]["observation"])
            np.testing.assert_array_equal(oo[a]["action_mask"], op[a]["action_mask"])
        acts = {a: int(rng.choice(np.flatnonzero(op[a]["action_mask"]))) for a in plain.agents}
        op, *_ = plain.step(acts)
        oo, *_ = own.step(acts)
    assert not own.agents


def test_pettingzoo_api_with_the_option():
    parallel_api_test(waroong_wars_v1.parallel_env(players=3, own_picks=True), num_cycles=300)
    api_test(waroong_wars_v1.env(players=4, own_picks=True), num_cycles=300)


def test_pickle_keeps_the_option_and_the_memory():
    env, obs = _picks_env(3, seed=5)
    rng = make_rng(2)
    for _ in range(2):
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    copy = pickle.loads(pickle.dumps(env))
    assert copy.config["own_picks"] is True
    for a in env.agents:
        assert sum(_block(copy, a)) == 2 and _block(copy, a) == _block(env, a)


def test_bad_values_are_refused_naming_the_option():
    with pytest.raises(ConfigError, match="own_picks"):
        waroong_wars_v1.parallel_env(players=3, own_picks="yes")
    from envs.waroong_wars.encoding import WaroongEncoder
    enc = waroong_wars_v1.parallel_env(players=3).encoder
    with pytest.raises(ValueError, match="own_picks"):
        WaroongEncoder({**enc.config, "own_picks": 1})
    env, _ = _picks_env(3)
    from envs.waroong_wars import public
    with pytest.raises(ValueError, match="own_picks is on"):
        env.encoder.encode_view(public.build(env.engine, 0))
    with pytest.raises(ValueError, match="one count per ingredient type"):
        env.encoder.encode_view(public.build(env.engine, 0), (0, 1))


def test_the_docs_row_and_slices_are_the_layouts():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "waroong_wars.md").read_text()
    row = waroong_wars_v1.parallel_env(players=4, own_picks=True).encoder.layout.markdown().splitlines()[-1]
    assert "`own_picks`" in row and row in doc
    for p in (3, 5):
        s = waroong_wars_v1.parallel_env(players=p, own_picks=True).encoder.layout.slices["own_picks"]
        assert f"{p} players: slice {s.start}-{s.stop - 1}" in " ".join(doc.split())
