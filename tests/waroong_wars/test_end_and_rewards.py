"""Ending the game, scoring, the tie-break and the rewards."""

from __future__ import annotations

import pytest

from envs import waroong_wars_v1
from tests.waroong_wars.helpers import act, cook_action, cooking_engine, counts, customer_counts, ix, menu, set_display

SIX = ["Nasi Pecel", "Tempe Penyet", "Lontong Balap", "Sate Klopo", "Semanggi", "Rujak Soto"]


def test_end_trigger_last_card_revealed_finishes_the_round_then_scores():
    eng = cooking_engine(3, turn=1)
    set_display(eng, SIX)
    eng.menu_deck = [eng.menu_deck[0]]
    eng.hands[1] = counts(rice=1, vegetable=1)
    eng.invalidate_masks()
    act(eng, 1, cook_action(eng, 0))  # reveals the last menu card
    assert eng.last_round and not eng.done
    act(eng, 1, ix(eng).end_turn)
    act(eng, 2, ix(eng).end_turn)
    assert not eng.done and eng.turn == 0  # the player after them still cooks this round
    act(eng, 0, ix(eng).end_turn)
    assert eng.done and eng.phase == "over" and eng.ended_by == "menu deck exhausted"
    assert eng.live_agents() == [] and eng.round == 1


def test_no_end_while_cards_remain_in_the_menu_deck():
    eng = cooking_engine(3)
    for _ in range(3):
        act(eng, eng.turn, ix(eng).end_turn)
    assert not eng.done and eng.round == 2 and eng.phase == "draft"


def test_round_limit_ends_the_game():
    eng = cooking_engine(3, round_limit=1)
    for _ in range(3):
        act(eng, eng.turn, ix(eng).end_turn)
    assert eng.done and eng.ended_by == "round limit"


def test_score_counts_menus_customers_and_tokens():
    eng = cooking_engine(3)
    eng.piles[0] = [menu("Lontong Balap"), menu("Rujak Soto")]
    eng.customers[0] = customer_counts(primadona=1, preman=1, maling=1)
    eng.tokens[0] = 4
    assert eng.score(0) == 3 + 9 + (4 - 1 + 1) + 4


def _finished(piles, tokens=(0, 0, 0)):
    eng = cooking_engine(3)
    eng.piles = [[menu(d, c) for d, c in p] for p in piles]
    eng.tokens = list(tokens)
    eng.last_round = True
    eng.invalidate_masks()
    results = [act(eng, eng.turn, ix(eng).end_turn) for _ in range(3)]
    assert eng.done
    return eng, results[-1]


def test_most_vp_wins():
    eng, res = _finished([[("Rujak Soto", 0)], [("Nasi Pecel", 0)], []])
    out = eng.outcome()
    assert out["winners"] == ["player_0"] and out["ranking"] == ["player_0", "player_1", "player_2"]
    assert out["scores"] == {"player_0": 9.0, "player_1": 2.0, "player_2": 0.0}
    assert res.rewards == {"player_0": 1.0, "player_1": 0.0, "player_2": -1.0}


def test_tie_break_goes_to_the_most_menus():
    # 5 VP each: one Nasi Rawon against Nasi Pecel + Lontong Balap.
    eng, res = _finished([[("Nasi Rawon", 0)], [("Nasi Pecel", 0), ("Lontong Balap", 0)], []])
    assert eng.outcome()["winners"] == ["player_1"]
    assert res.rewards["player_1"] == 1.0 and res.rewards["player_0"] == 0.0


def test_a_full_tie_is_a_shared_win():
    eng, res = _finished([[("Nasi Pecel", 0)], [("Nasi Pecel", 1)], [("Tempe Penyet", 0)]])
    assert eng.outcome()["winners"] == ["player_0", "player_1", "player_2"]
    assert res.rewards == {a: 0.0 for a in eng.agents}


def test_rewards_are_zero_before_the_end_by_default():
    eng = cooking_engine(3)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1)
    eng.invalidate_masks()
    res = act(eng, 0, cook_action(eng, 0))
    assert res.rewards == {a: 0.0 for a in eng.agents}


def test_vp_shaping_rewards_the_change_of_ones_own_score():
    eng = cooking_engine(3, vp_shaping=0.1)
    set_display(eng, SIX)
    eng.hands[0] = counts(rice=1, vegetable=1, unique=1, kerupuk=1)
    eng.customer_deck = eng.customer_deck[:-1] + [eng.cat.customer("foodies").index]
    eng.invalidate_masks()
    res = act(eng, 0, cook_action(eng, 2, supplement="kerupuk"))
    assert res.rewards["player_0"] == pytest.approx(0.1 * (3 + 2 + 2))
    assert res.rewards["player_1"] == 0.0


def test_vp_shaping_of_each_step_is_the_score_change_read_around_it():
    """The shaping reward of every step is ``vp_shaping`` x (score after - score before), the scores
    read afresh around the step; the engine carries one step's closing scores to the next step
    only while the state is unchanged: a state edit between steps (``invalidate_masks``) counts."""
    from envs.waroong_wars.rules import scoring

    env = waroong_wars_v1.parallel_env(players=3, vp_shaping=0.5)
    obs, _ = env.reset(seed=4)
    eng = env.unwrapped.engine
    policy = waroong_wars_v1.HeuristicPolicy()
    steps, edited = 0, 0
    while env.agents:
        if eng.phase == "cook" and steps % 3 == 0:  # a state edit between steps: one more token
            eng.tokens[1] += 1
            eng.invalidate_masks()
            edited += 1
        before = [scoring.score(eng, s) for s in range(3)]
        joint = {a: policy.act(obs[a], a, env) for a in env.agents}
        obs, rew, *_ = env.step(joint)
        after = [scoring.score(eng, s) for s in range(3)]
        rank = scoring.rank_rewards(eng) if eng.done else [0.0] * 3
        for s, a in enumerate(eng.agents):
            assert rew[a] == pytest.approx(0.5 * (after[s] - before[s]) + rank[s]), (steps, a)
        steps += 1
    assert steps > 30 and edited > 3


@pytest.mark.parametrize("shaping", [0.0, 0.2])
def test_episode_returns_are_the_ranking_plus_shaped_final_score(shaping):
    env = waroong_wars_v1.parallel_env(players=3, vp_shaping=shaping)
    obs, _ = env.reset(seed=3)
    policy = waroong_wars_v1.HeuristicPolicy()
    total = {a: 0.0 for a in env.possible_agents}
    while env.agents:
        obs, rew, term, trunc, infos = env.step({a: policy.act(obs[a], a, env) for a in env.agents})
        for a, r in rew.items():
            total[a] += r
    out = env.outcome()
    assert env.last_step_details()["player_0"]["outcome"] == out
    ranks = {a: (sum(out["scores"][a] > out["scores"][b] or (out["scores"][a] == out["scores"][b] and out["menus"][a] > out["menus"][b]) for b in total)
                 - sum(out["scores"][b] > out["scores"][a] or (out["scores"][a] == out["scores"][b] and out["menus"][b] > out["menus"][a]) for b in total)) / 2
             for a in total}
    for a in total:
        assert total[a] == pytest.approx(ranks[a] + shaping * out["scores"][a])


def test_an_episode_cut_before_the_end_shows_no_seat_the_others_face_down_customers():
    """At a truncation (``max_cycles``) the last step's ``outcome`` in the verbose infos, the batch's
    ``outcomes_seen`` and the bridge's slot info counted every seat's face-down customer cards:
    a seat was shown what only the game's end reveals. Now each seat sees the other seats' public
    scores (menus, tokens, pairs) and its own whole score; the game's record keeps the full one."""
    import numpy as np

    from envs.vector import BatchedEnv
    from envs.waroong_wars.rules import scoring

    ww = waroong_wars_v1

    kw = {"players": 3, "max_cycles": 40, "infos": "verbose"}
    env = ww.parallel_env(**kw)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        eng = env.unwrapped.engine
        obs, _, term, trunc, infos = env.step(
            {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
        if any(trunc.values()) or any(term.values()):
            break
    assert any(trunc.values()) and not eng.done
    hidden = [s for s in range(eng.n) if scoring.score(eng, s) != scoring.public_score(eng, s)]
    assert hidden, "no seat held customer points: pick another seed"
    for s, a in enumerate(eng.agents):
        seen = infos[a]["outcome"]
        for t, b in enumerate(eng.agents):
            want = scoring.score(eng, t) if t == s else scoring.public_score(eng, t)
            assert seen["scores"][b] == want
            assert ("customers" in seen["breakdown"][b]) == (t == s)
        assert seen == eng.outcome_seen_by(a)
    assert eng.outcome()["scores"] == {a: float(scoring.score(eng, s)) for s, a in enumerate(eng.agents)}

    batch = BatchedEnv("waroong_wars_v1", 2, {"players": 3, "max_cycles": 40})
    _, masks, _ = batch.reset(seed=0)
    while True:
        _, masks, _, term, trunc, infos = batch.step(batch.random_actions(rng))
        if trunc.any():
            break
    i = int(np.flatnonzero(trunc.any(axis=1))[0])
    assert set(infos[i]["outcomes_seen"]) == set(batch.possible_agents)
    for a, seen in infos[i]["outcomes_seen"].items():
        for b in batch.possible_agents:
            assert ("customers" in seen["breakdown"][b]) == (a == b)
    assert all("customers" in v for v in infos[i]["outcome"]["breakdown"].values())  # the game's record
