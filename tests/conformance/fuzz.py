"""Seeded random-legal-play fuzzing of an env configuration."""

from __future__ import annotations

import json

import numpy as np

from envs import EnvConfiguration
from envs.core.seeding import make_rng


def _check_obs(env, obs, agent, where):
    space = env.observation_space(agent)
    o = obs[agent]
    assert o["action_mask"].dtype == np.int8 and o["action_mask"].shape == space["action_mask"].shape, where
    if not space.contains(o):
        bad = env.encoder.layout.out_of_bounds(o["observation"])
        raise AssertionError(f"{where}: observation of {agent} leaves its space; fields out of bounds: {bad}; "
                             f"dtype {o['observation'].dtype}, shape {o['observation'].shape}")
    assert o["action_mask"].any(), f"{where}: live agent {agent} has no legal action"


def fuzz(cfg: EnvConfiguration, games: int, seed0: int = 0, checks_per_game: int = 4) -> dict:
    """Play ``games`` full games with random legal actions, asserting the invariants.

    Returns statistics (steps per game) for the caller to report.
    """
    module = cfg.module()
    bound = int(module.max_episode_steps(**cfg.kwargs))
    env = cfg.parallel_env()
    engine_cls = env.engine_cls
    lengths = []
    for g in range(games):
        seed = seed0 + g
        rng = make_rng(10_000 + seed)
        obs, infos = env.reset(seed=seed)
        check_at = set(int(x) for x in rng.integers(0, max(2, bound // 20), size=checks_per_game))
        steps = 0
        history = []
        terminated = truncated = False
        first_snap = json.dumps(env.snapshot(), sort_keys=True)
        while env.agents:
            where = f"{cfg.name} seed={seed} step={steps}"
            for a in env.agents:
                _check_obs(env, obs, a, where)
            seats = np.full((len(env.possible_agents), env.encoder.layout.size), np.nan, dtype=np.float32)
            env.encoder.observe_seats(env.engine, seats)  # the batched env's one gather for every seat
            masks = np.full((len(env.possible_agents), env.action_table.n), -1, dtype=np.int8)
            env.engine.masks_into(masks)  # and its one copy of every seat's mask
            for k, a in enumerate(env.possible_agents):
                if a in obs:
                    assert np.array_equal(seats[k], obs[a]["observation"]), f"{where}: observe_seats row {k} != {a}'s"
                    assert np.array_equal(masks[k], obs[a]["action_mask"]), f"{where}: masks_into row {k} != {a}'s"
            state = env.state()
            assert env.state_space.contains(state), f"{where}: state() leaves state_space"
            actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[rng.integers(int(obs[a]["action_mask"].sum()))])
                       for a in env.agents}
            history.append(actions)
            if steps in check_at:
                snap = json.loads(json.dumps(env.snapshot()))  # through real JSON
                twin = engine_cls.from_dict(snap)
                clone = env.engine.clone()
                before = env.engine.to_dict()
                obs, rew, term, trunc, infos = env.step(actions)
                r_twin = twin.step(actions)
                assert twin.to_dict() == env.engine.to_dict(), f"{where}: snapshot round-trip diverged"
                assert r_twin.rewards == {a: rew[a] for a in rew} or not rew, f"{where}: rewards diverged after restore"
                assert clone.to_dict() == before, f"{where}: clone() shares state with the original"
            else:
                obs, rew, term, trunc, infos = env.step(actions)
            for a, info in infos.items():
                assert not info["illegal_replaced"], f"{where}: legal action flagged illegal for {a}"
            steps += 1
            terminated = any(term.values())
            truncated = any(trunc.values())
            assert steps <= bound, f"{where}: game exceeded its documented bound of {bound} steps"
        assert terminated and not truncated, f"{cfg.name} seed={seed}: ended by truncation after {steps} steps"
        out = env.engine.outcome()
        assert set(out["winners"]) <= set(env.possible_agents) and set(out["scores"]) == set(env.possible_agents)
        lengths.append(steps)
        if g == 0:
            # Determinism: the same seed and the same actions give the same trajectory.
            replay = cfg.parallel_env()
            replay.reset(seed=seed)
            assert json.dumps(replay.snapshot(), sort_keys=True) == first_snap, f"{cfg.name}: reset(seed) not deterministic"
            for actions in history:
                replay.step(actions)
            assert replay.snapshot() == env.snapshot(), f"{cfg.name}: replay of seed {seed} diverged"
    return {"games": games, "mean_steps": float(np.mean(lengths)), "max_steps": int(max(lengths)), "bound": bound}
