"""A group of env copies stepped together, with the non-learning seats played inside.

:class:`CopyGroup` is the work of one worker process (or of the main process
when the bridge runs without workers). It owns several copies of one
ParallelEnv and exposes their learner seats as flat *slots*: per step it takes
one action per slot, asks the other seats' policies for theirs (frozen
snapshots batched per snapshot), steps every copy, and returns per slot the
encoded observation, reward, done flag, info and action mask, resetting
finished copies as SB3 expects (``terminal_observation`` in the info).

The copies are one :class:`envs.vector.BatchedEnv`: it steps them, stacks
their observations and masks into ``(copies, seats, ...)`` arrays (from which
the learner slots are gathered and normalised in one vectorised operation)
and auto-resets finished games (continuing each game's own generator).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.inputs import checked_number, shown
from envs.core.policy import Policy
from envs.vector import BatchedEnv

from training.actor import NumpyActor
from training.envspec import EnvSpec
from training.obs import SeatEncoder
from training.policies import ActorPolicy, make_policy
from training.seating import SeatingRule

POOL = "pool"
#: :class:`RewardRule`'s modes
REWARD_MODES = ("team", "own")


@dataclass(frozen=True)
class RewardRule:
    """How a slot's reward is computed from the env's per-seat rewards.

    ``team``: the mean of every seat's reward this tick (cooperative play);
    ``own``: the seat's own reward. Then times ``scale``; at a terminal (not
    truncated) end, plus ``win_bonus`` times the seat's win share (cooperative:
    1 if the team won; competitive: 1/k when k players share the win) and
    minus ``loss_penalty`` if the share is 0.
    """

    mode: str = "own"
    scale: float = 1.0
    win_bonus: float = 0.0
    loss_penalty: float = 0.0

    def __post_init__(self) -> None:
        """Checked as the config's ``training.reward*`` keys are (a rule built in Python had played an
        unknown mode as ``own`` and passed a NaN scale on to SB3)."""
        if self.mode not in REWARD_MODES:
            raise ValueError(f"RewardRule.mode={shown(self.mode)} is not allowed; allowed: one of {REWARD_MODES} "
                             f"(the config's 'auto' is resolved to one of them by the game)")
        checked_number(self.scale, "RewardRule.scale", 0, low_exclusive=True)
        checked_number(self.win_bonus, "RewardRule.win_bonus")
        checked_number(self.loss_penalty, "RewardRule.loss_penalty")


@dataclass(frozen=True)
class BridgeSettings:
    """Everything a worker needs to build its copies (picklable)."""

    env_spec: EnvSpec
    seating: SeatingRule
    reward: RewardRule
    cooperative: bool
    normalize: bool = True
    seed: int = 0


def win_share(outcome: dict, agent: str, cooperative: bool) -> float:
    winners = list(outcome.get("winners", []))
    if agent not in winners:
        return 0.0
    return 1.0 if cooperative else 1.0 / len(winners)


class _Copy:
    def __init__(self, index: int, row: int, env):
        self.index = index  # the copy's number in the whole bridge (seeds derive from it)
        self.row = row  # its row in this group's batch
        self.env = env
        self.rng = np.random.default_rng([0, index])
        self.episode = -1
        self.learners: list[str] = []
        self.others: dict[str, tuple[str, Policy]] = {}
        self.seeded = False
        self.group: "CopyGroup | None" = None

    @property
    def obs(self) -> dict[str, dict]:
        """The PettingZoo-style observation dicts of the copy's live seats (views
        of the group's stacked arrays), for scripted policies: built when read."""
        return self.group._obs_dicts(self)


class CopyGroup:
    """Copies ``copy_indices`` of the env described by ``settings``."""

    def __init__(self, settings: BridgeSettings, copy_indices: list[int]):
        self.settings = settings
        spec = settings.env_spec
        self.batch = BatchedEnv(spec.env_id, len(copy_indices), env_fn=spec.make)
        self.copies = [_Copy(i, row, env) for row, (i, env) in enumerate(zip(copy_indices, self.batch.envs))]
        for c in self.copies:
            c.group = self
        self._slots: tuple[np.ndarray, np.ndarray] | None = None  # (rows, seats) of the learner slots
        self._obs_cache: dict[int, dict] = {}
        env0 = self.copies[0].env
        self.agents = list(env0.possible_agents)
        self.encoder = SeatEncoder.for_env(env0, settings.normalize)
        self._obs = np.zeros((len(self.copies), len(self.agents), self.encoder.obs_dim), dtype=np.float32)
        self._masks = np.zeros((len(self.copies), len(self.agents), self.encoder.n_actions), dtype=np.int8)
        self.k = min(settings.seating.learners, len(self.agents))
        self.n_slots = len(self.copies) * self.k
        self.pool: list[ActorPolicy] = []
        self._scripted: dict[tuple[int, str, str], Policy] = {}
        self._noop_mask = np.zeros(self.encoder.n_actions, dtype=bool)
        self._noop_mask[0] = True
        self._teachers: dict[tuple[int, str], tuple[int, Policy]] = {}  # (copy, seat) -> (episode, policy)
        self.student: NumpyActor | None = None

    # ------------------------------------------------------------------ self-play pool
    def add_snapshot(self, name: str, actor_state: dict) -> None:
        pol = ActorPolicy(NumpyActor.from_state(actor_state), self.encoder, deterministic=False, name=name)
        self.pool.append(pol)
        del self.pool[: max(0, len(self.pool) - self.settings.seating.pool_size)]

    def pool_names(self) -> list[str]:
        return [p.name for p in self.pool]

    # ------------------------------------------------------------------ episodes
    def _policy_for(self, c: _Copy, agent: str, key: str) -> tuple[str, Policy]:
        seed = int(c.rng.integers(2**31))
        if key == POOL:
            pol = self.pool[self.settings.seating.draw_snapshot(len(self.pool), c.rng)]
            return pol.name, pol
        # one scripted policy object per (copy, seat, spec), as they may keep
        # per-game state; one shared object per checkpoint (stateless, batched)
        cache_key = (-1, "", key) if key.startswith("checkpoint") else (c.index, agent, key)
        pol = self._scripted.get(cache_key)
        if pol is None:
            pol = make_policy(key, self.settings.env_spec, seed)
            self._scripted[cache_key] = pol
        pol.reset(seed)
        return getattr(pol, "name", key) if key.startswith("checkpoint") else key, pol

    def _seed_copy(self, c: _Copy, seed: int | None) -> int | None:
        """Seed the copy's own generator; returns the seed its env resets with."""
        if seed is not None:
            c.rng = np.random.default_rng([seed, 0x5EA7])
            c.seeded = True
        elif not c.seeded:  # never seeded: derive from the run seed so runs repeat
            seed = self.settings.seed * 100_003 + c.index
            c.rng = np.random.default_rng([seed, 0x5EA7])
            c.seeded = True
        return seed

    def _begin_episode(self, c: _Copy) -> None:
        """Draw the new game's learner seats and other players (its env was just reset)."""
        c.episode += 1
        rule = self.settings.seating
        c.learners = rule.learner_seats(self.agents, c.index, c.episode, c.rng)
        c.others = {}
        for a in self.agents:
            if a not in c.learners:
                c.others[a] = self._policy_for(c, a, rule.draw_other(c.rng))
        self._slots = None

    def reset(self, seeds: list[int | None] | None = None):
        seeds = seeds or [None] * len(self.copies)
        env_seeds = []
        for c, s in zip(self.copies, seeds):
            c.episode = -1 if s is not None else c.episode
            env_seeds.append(self._seed_copy(c, s))
        obs, masks, _ = self.batch.reset(env_seeds)
        self._set_arrays(obs, masks)
        for c in self.copies:
            self._begin_episode(c)
        return self._slot_obs(), self._slot_masks()

    def _set_arrays(self, obs: np.ndarray, masks: np.ndarray) -> None:
        """Keep the batch's stacked arrays (the copies' observation dicts,
        :attr:`_Copy.obs`, are views of them built when a scripted policy reads them)."""
        self._obs, self._masks = obs, masks
        self._obs_cache = {}

    def _obs_dicts(self, c: _Copy) -> dict[str, dict]:
        d = self._obs_cache.get(c.row)
        if d is None:
            r, obs, masks, alive = c.row, self._obs, self._masks, self.batch.alive
            d = self._obs_cache[c.row] = {a: {"observation": obs[r, p], "action_mask": masks[r, p]}
                                          for p, a in enumerate(self.agents) if alive[r, p]}
        return d

    def _slot_index(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, seats)`` of every learner slot (kept until a copy's learner seats change)."""
        if self._slots is None:
            rows = [c.row for c in self.copies for _ in c.learners]
            seats = [self.encoder.seat_of[a] for c in self.copies for a in c.learners]
            self._slots = np.asarray(rows, dtype=np.intp), np.asarray(seats, dtype=np.intp)
        return self._slots

    # ------------------------------------------------------------------ observations
    def _encode(self, c: _Copy, agent: str) -> np.ndarray:
        return self.encoder.encode(c.obs[agent]["observation"], self.encoder.seat_of[agent])

    def _slot_obs(self) -> np.ndarray:
        """Every learner slot's policy vector, gathered and encoded at once."""
        return self._encode_rows(*self._slot_index())

    def _encode_rows(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The policy vectors of seats ``seats`` of batch rows ``rows``, encoded at once
        (the same float32 operations as :meth:`SeatEncoder.encode`, row by row)."""
        return self.encoder.encode_rows(self._obs[rows, seats], seats)

    def _slot_masks(self) -> np.ndarray:
        rows, seats = self._slot_index()
        out = self._masks[rows, seats].astype(bool)
        out[~self.batch.alive[rows, seats]] = self._noop_mask
        return out

    def describe(self) -> list[dict]:
        """Per copy: the learner's seats and who plays the others (for logs and tests)."""
        return [{"copy": c.index, "episode": c.episode, "learners": list(c.learners),
                 "others": {a: name for a, (name, _) in c.others.items()}} for c in self.copies]

    # ------------------------------------------------------------------ stepping
    def _other_actions(self) -> list[dict[str, int]]:
        joints: list[dict[str, int]] = [{} for _ in self.copies]
        batches: dict[int, tuple[ActorPolicy, list[tuple[int, str]]]] = {}
        for ci, c in enumerate(self.copies):
            others = c.others
            if not others:
                continue
            for a in c.env.agents:
                if a in others:
                    _, pol = others[a]
                    if isinstance(pol, ActorPolicy):
                        batches.setdefault(id(pol), (pol, []))[1].append((ci, a))
                    else:
                        joints[ci][a] = int(pol.act(c.obs[a], a, c.env))
        enc = self.encoder
        for pol, rows in batches.values():
            r_idx = np.array([self.copies[ci].row for ci, _ in rows], dtype=np.intp)
            s_idx = np.array([enc.seat_of[a] for _, a in rows], dtype=np.intp)
            xs = self._encode_rows(r_idx, s_idx)
            logits = pol.actor.logits(xs)
            # each row sampled with its copy's generator: independent of batching
            picks = _sample_rows(logits, self._masks[r_idx, s_idx], [self.copies[ci].rng for ci, _ in rows],
                                 pol.deterministic)
            for (ci, a), act in zip(rows, picks):
                joints[ci][a] = act
        return joints

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions).reshape(-1)
        if actions.shape[0] != self.n_slots:
            raise ValueError(f"expected {self.n_slots} actions (one per slot), got {actions.shape[0]}")
        joints = self._other_actions()
        seat_of = self.encoder.seat_of
        alive = self.batch.alive.copy()  # the seats acting in this step
        rows, seats = self._slot_index()  # this game's learner slots (a new game draws new ones)
        joint = np.zeros((len(self.copies), len(self.agents)), dtype=np.int64)
        for ci, j_ci in enumerate(joints):
            for a, act in j_ci.items():
                joint[ci, seat_of[a]] = act
        live = alive[rows, seats]
        joint[rows[live], seats[live]] = actions[live]
        obs, masks, rew, term, _, game_infos = self.batch.step(joint)
        self._set_arrays(obs, masks)
        rr = self.settings.reward
        if rr.mode == "team":  # the mean reward of the seats that acted
            p = len(self.agents)
            team = rew.sum(axis=1) / p  # = np.mean of each row, bit for bit, where every seat acted
            for ci in np.flatnonzero(alive.sum(axis=1) != p).tolist():
                team[ci] = float(np.mean(rew[ci][alive[ci]])) if alive[ci].any() else 0.0
            slot_rewards = team[rows] * rr.scale
        else:
            slot_rewards = rew[rows, seats] * rr.scale
        dones = np.zeros(self.n_slots, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.n_slots)]
        for ci, game in enumerate(game_infos):
            if "final_observation" not in game:
                continue
            # the batch has already dealt the next game
            c = self.copies[ci]
            terminated = bool(term[ci].any())
            outcome = game["outcome"]
            i = ci * self.k
            for j, a in enumerate(c.learners):
                share = win_share(outcome, a, self.settings.cooperative)
                if terminated:
                    slot_rewards[i + j] = float(slot_rewards[i + j]) + (
                        rr.win_bonus * share - (rr.loss_penalty if share == 0.0 else 0.0))
                dones[i + j] = True
                infos[i + j] = {
                    "terminal_observation": self.encoder.encode(game["final_observation"][seat_of[a]], seat_of[a]),
                    "TimeLimit.truncated": not terminated,
                    "seat": a,
                    "learner_index": j,
                    "win": share,
                    "score": float(outcome.get("scores", {}).get(a, 0.0)),
                    "others": sorted({name for name, _ in c.others.values()}),
                    # what this seat can know of it: a game cut before its end hides the others' cards
                    "outcome": game.get("outcomes_seen", {}).get(a, outcome),
                }
            self._begin_episode(c)
        return self._slot_obs(), slot_rewards.astype(np.float32), dones, infos, self._slot_masks()

    def set_student(self, actor_state: dict | None) -> None:
        """The network that acts in :meth:`teacher_step` (DAgger); None: the teacher acts."""
        self.student = None if actor_state is None else NumpyActor.from_state(actor_state)

    def teacher_step(self, teacher: str, teacher_share: float = 1.0):
        """One step labelled by a scripted ``teacher`` (a policy spec) in every
        learner seat (behaviour-cloning data, :mod:`training.pretrain`).

        The teacher chooses an action for every live learner seat; that action
        is played, unless a student was set (:meth:`set_student`): then each
        seat plays the student's most likely legal action, or the teacher's
        with probability ``teacher_share`` (DAgger: the learner's own states,
        the teacher's labels). Returns ``(labels, played, step results)``: the
        teacher's action per slot (``noop`` for a seat that has left the game),
        the action played and what :meth:`step` returns; a teacher whose label was not played is
        told so (``Policy.overruled``: a teacher that remembers its own actions corrects them). One teacher object per copy and seat,
        reset at the start of each of the copy's games with a seed from the
        copy's generator, so the data depend only on the seeds (not on the
        worker split)."""
        labels = np.zeros(self.n_slots, dtype=np.int64)
        i = 0
        for ci, c in enumerate(self.copies):
            live = set(c.env.agents)
            for j, a in enumerate(c.learners):
                if a in live:
                    labels[i + j] = int(self._teacher(ci, c, a, teacher).act(c.obs[a], a, c.env))
            i += self.k
        if self.student is None:
            return labels, labels, self.step(labels)
        played = self.student.act(self._slot_obs(), self._slot_masks(), deterministic=True).astype(np.int64)
        i = 0
        for ci, c in enumerate(self.copies):
            live = set(c.env.agents)
            for j in range(self.k):
                if teacher_share > 0 and c.rng.random() < teacher_share:
                    played[i + j] = labels[i + j]
                a = c.learners[j]
                if a in live and played[i + j] != labels[i + j]:
                    self._teacher(ci, c, a, teacher).overruled(a, int(labels[i + j]), int(played[i + j]))
            i += self.k
        return labels, played, self.step(played)

    def _teacher(self, ci: int, c: _Copy, agent: str, spec: str) -> Policy:
        episode, pol = self._teachers.get((ci, agent), (None, None))
        if pol is None:
            pol = make_policy(spec, self.settings.env_spec)
        if episode != c.episode:
            pol.reset(int(c.rng.integers(2**31)))
            self._teachers[(ci, agent)] = (c.episode, pol)
        return pol

    def close(self) -> None:
        self.batch.close()


def _sample_rows(logits: np.ndarray, masks: np.ndarray, rngs: list, deterministic: bool) -> list[int]:
    """:func:`_sample` of every row at once (row ``r`` draws from ``rngs[r]``, in row order):
    the same float64 operations element by element, so the same actions."""
    z = np.where(masks.astype(bool), logits.astype(np.float64), -np.inf)
    if not np.isfinite(z).any(axis=1).all():
        raise ValueError("an observation has no legal action in its mask")
    if not deterministic:
        n = z.shape[1]
        u = np.clip(np.stack([rng.random(n) for rng in rngs]), 1e-300, 1.0 - 1e-16)
        z = z - np.log(-np.log(u))
    return z.argmax(axis=1).tolist()


def _sample(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator, deterministic: bool) -> int:
    z = np.where(mask.astype(bool), logits.astype(np.float64), -np.inf)
    if not np.isfinite(z).any():
        raise ValueError("an observation has no legal action in its mask")
    if not deterministic:
        u = np.clip(rng.random(z.shape), 1e-300, 1.0 - 1e-16)
        z = z - np.log(-np.log(u))
    return int(np.argmax(z))
