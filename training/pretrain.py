"""Behaviour cloning: warm-start the learner from a scripted teacher before PPO.

A run with ``pretrain.steps > 0`` does, before MaskablePPO learns:

1. **Collect** (:func:`collect`): ``steps`` learner samples of seeded play in
   the bridge (:class:`~training.vec_env.MultiAgentVecEnv`, same env copies,
   seating and reward rule as the PPO phase), with the teacher (a policy spec,
   by default the game's ``heuristic``) in every learner seat: cooperative
   games, every seat; competitive games, the learner's (rotating) seat, against
   the configured opponent mix ``seats.others``, where ``pool`` seats are
   played by the teacher (the pool is still empty; its first snapshot will be
   the cloned policy). Each sample is what PPO will see: the flat observation
   with the seat one-hot, the legal-action mask and the teacher's action, plus
   the discounted return of the bridge's reward from that step to the end of
   the game (``algorithm.gamma``; samples of a game unfinished when collection
   stops have none).
2. **Fit** (:func:`fit`): the MaskablePPO policy by masked cross-entropy,
   ``-log pi(teacher action | obs, mask)`` through the policy's own
   ``evaluate_actions(obs, actions, action_masks)``, plus (``value: true``)
   ``vf_coef`` x the squared error of the value head against those returns, so
   PPO starts with a critic that knows the teacher's returns instead of one
   whose errors would scramble the cloned policy in the first updates. Adam
   with its own state (PPO's optimizer starts fresh), ``epochs`` passes of
   shuffled minibatches, gradient clipping at ``algorithm.max_grad_norm``. A
   ``holdout`` share of the games' samples is kept out to measure agreement.
3. **DAgger** (``dagger_rounds``, after the first fit): the clone plays
   ``dagger_steps`` learner steps (its most likely legal action; the teacher's
   with probability ``dagger_teacher_share``) while the teacher labels every
   state reached; the samples join the earlier ones and the policy is refit
   for ``dagger_epochs`` passes over all of them. A clone's small errors lead
   it into states its teacher never visits; this teaches it what to do there.
   The teacher only labels, so its choice should depend on the current state
   only (a teacher that remembers its own earlier actions labels as if it had
   played them: Waroong Wars' ``heuristic`` remembers its face-down picks;
   ``heuristic?recall=world`` reads them from the seat's hand, the student's).
4. Log ``pretrain/*`` to TensorBoard per epoch (loss, value loss, accuracy on
   the training samples and the holdout) and per DAgger round (the clone's win
   rate and agreement in its own games), and record the summary in the
   checkpoint's metadata (``pretrain``).

*Accuracy* counts only decisions: samples with two or more legal actions (a
forced move teaches nothing and would inflate it). Everything is seeded: the
data by the copies' generators (seed ``training.seed + 7919``, DAgger round
``r`` adds ``1009 r``; away from the PPO phase's), the shuffling by
``training.seed``, torch by SB3's seeding.

Why not the ``imitation`` package: its current release (1.0.1) pins
gymnasium 0.29 and stable-baselines3 2.2, which would downgrade both and pull
~40 more packages; masked cross-entropy and DAgger on MaskablePPO's own
policy, in the bridge the PPO phase uses, are the ~250 lines below.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from training.copies import POOL, BridgeSettings

COLLECT_SEED_OFFSET = 7919


@dataclass
class Demonstrations:
    """Teacher samples in time-major order (``steps x slots``)."""

    obs: np.ndarray            # (N, d) float32: the bridge's flat observation
    masks: np.ndarray          # (N, ceil(A / 8)) uint8: np.packbits of the legal-action masks
    n_actions: int
    actions: np.ndarray        # (N,) int64: the teacher's actions (the labels)
    played: np.ndarray         # (N,) int64: the actions played (the teacher's, or the student's in DAgger rounds)
    rewards: np.ndarray        # (N,) float32: the bridge's reward of the step
    dones: np.ndarray          # (N,) bool: the step ended the game
    returns: np.ndarray        # (N,) float32: discounted return to the end of the game
    has_return: np.ndarray     # (N,) bool: the game ended before collection stopped
    game_id: np.ndarray        # (N,) int64: which game (copy, episode) a sample belongs to
    games: int                 # finished games (counted once per game)
    teacher_win_rate: float    # win share of whoever played the learner seats in those games
    outside_mask: int          # teacher actions the mask excluded (noop is always accepted; added to the mask)
    seconds: float

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    @classmethod
    def concat(cls, parts: list["Demonstrations"]) -> "Demonstrations":
        """Several collections as one (DAgger's aggregate); game ids stay distinct."""
        if len(parts) == 1:
            return parts[0]
        cat = {k: np.concatenate([getattr(p, k) for p in parts])
               for k in ("obs", "masks", "actions", "played", "rewards", "dones", "returns", "has_return")}
        games = np.concatenate([p.game_id + (r << 40) for r, p in enumerate(parts)])
        n_games = sum(p.games for p in parts)
        win = sum(p.teacher_win_rate * p.games for p in parts if p.games) / n_games if n_games else float("nan")
        return cls(n_actions=parts[0].n_actions, game_id=games, games=n_games, teacher_win_rate=win,
                   outside_mask=sum(p.outside_mask for p in parts), seconds=sum(p.seconds for p in parts), **cat)

    def mask_rows(self, idx: np.ndarray) -> np.ndarray:
        return np.unpackbits(self.masks[idx], axis=1, count=self.n_actions).astype(bool)

    def decisions(self) -> np.ndarray:
        """Per sample: two or more legal actions (in chunks: the unpacked masks can be large)."""
        return np.concatenate([self.mask_rows(np.arange(i, min(i + 65_536, len(self)))).sum(axis=1) >= 2
                               for i in range(0, len(self), 65_536)] or [np.zeros(0, bool)])


def collection_settings(settings: BridgeSettings, teacher: str) -> BridgeSettings:
    """The bridge settings for collection: ``pool`` seats go to the teacher."""
    others = dict(settings.seating.others)
    if POOL in others:
        w = others.pop(POOL)
        others[teacher] = others.get(teacher, 0.0) + w
    return replace(settings, seating=replace(settings.seating, others=others))


def collect(settings: BridgeSettings, teacher: str, samples: int, n_copies: int, workers: int, seed: int,
            gamma: float, progress: bool = False, student: dict | None = None,
            teacher_share: float = 1.0, timeout_s: float | None = None) -> Demonstrations:
    """``samples`` learner samples labelled by ``teacher`` (see the module
    docstring). With a ``student`` (a NumpyActor state) the student plays the
    learner seats (the teacher with probability ``teacher_share``) and the
    teacher only labels: a DAgger round. ``timeout_s``: the bridge's (``training.worker_timeout_s``)."""
    from training.vec_env import MultiAgentVecEnv

    t0 = time.perf_counter()
    venv = MultiAgentVecEnv(collection_settings(settings, teacher), n_copies, workers, timeout_s=timeout_s)
    try:
        if student is not None:
            venv.set_student(student)
        n_slots = venv.num_envs
        steps = max(1, math.ceil(samples / n_slots))
        venv.seed(seed)
        obs = venv.reset()
        d, A = obs.shape[1], venv.action_space.n
        all_obs = np.empty((steps, n_slots, d), dtype=np.float32)
        all_masks = np.empty((steps, n_slots, (A + 7) // 8), dtype=np.uint8)
        actions = np.empty((steps, n_slots), dtype=np.int64)
        played = np.empty((steps, n_slots), dtype=np.int64)
        rewards = np.empty((steps, n_slots), dtype=np.float32)
        dones = np.empty((steps, n_slots), dtype=bool)
        episode = np.zeros(n_slots, dtype=np.int64)
        game = np.empty((steps, n_slots), dtype=np.int64)
        wins: list[float] = []
        outside = 0
        bar = _bar(steps * n_slots, "collecting teacher play", progress)
        for t in range(steps):
            masks = venv.action_masks()
            act, played[t], (nxt, rew, done, infos) = venv.teacher_step(teacher, teacher_share)
            bad = ~masks[np.arange(n_slots), act]
            if bad.any():
                outside += int(bad.sum())
                masks[np.flatnonzero(bad), act[bad]] = True
            all_obs[t], all_masks[t], actions[t], rewards[t], dones[t] = obs, np.packbits(masks, axis=1), act, rew, done
            game[t] = np.arange(n_slots) * 1_000_003 + episode
            episode += done
            wins += [float(i["win"]) for i, dn in zip(infos, done) if dn and i.get("learner_index", 0) == 0]
            obs = nxt
            if bar is not None:
                bar.update(n_slots)
        if bar is not None:
            bar.close()
    finally:
        venv.close()
    returns = np.zeros((steps, n_slots), dtype=np.float32)
    has_return = np.zeros((steps, n_slots), dtype=bool)
    g = np.zeros(n_slots, dtype=np.float64)
    known = np.zeros(n_slots, dtype=bool)
    for t in range(steps - 1, -1, -1):
        g = np.where(dones[t], 0.0, g)
        known = known | dones[t]
        g = rewards[t] + gamma * g
        returns[t], has_return[t] = g, known
    n = steps * n_slots
    return Demonstrations(all_obs.reshape(n, d), all_masks.reshape(n, -1), int(A), actions.reshape(n),
                          played.reshape(n), rewards.reshape(n), dones.reshape(n), returns.reshape(n), has_return.reshape(n),
                          game.reshape(n), len(wins),
                          float(np.mean(wins)) if wins else float("nan"), outside, time.perf_counter() - t0)


def _bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm ships with the training extras
        return None
    return tqdm(total=total, desc=desc, unit="sample", leave=False)


def split_games(demos: Demonstrations, holdout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sample indices ``(train, holdout)``: whole games go to the holdout (so it
    measures agreement on games the fit never saw), each game by a hash of its
    id and ``seed``, so a game keeps its side as DAgger rounds add data."""
    if holdout <= 0:
        return np.arange(len(demos)), np.zeros(0, dtype=np.int64)
    with np.errstate(over="ignore"):
        h = (demos.game_id.astype(np.uint64) + np.uint64(seed)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(31)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
    held = (h % np.uint64(1_000_000)).astype(np.float64) < holdout * 1_000_000
    return np.flatnonzero(~held), np.flatnonzero(held)


def agreement(policy, demos: Demonstrations, idx: np.ndarray, batch: int = 4096) -> tuple[float, float]:
    """``(accuracy on decisions, mean negative log-likelihood)`` of ``policy``'s
    most likely legal action against the teacher's, over samples ``idx``."""
    import torch as th

    if len(idx) == 0:
        return float("nan"), float("nan")
    hits = decisions = 0
    nll = 0.0
    with th.no_grad():
        for s in range(0, len(idx), batch):
            b = idx[s:s + batch]
            masks = demos.mask_rows(b)
            obs = th.as_tensor(demos.obs[b], device=policy.device)
            act = th.as_tensor(demos.actions[b], device=policy.device)
            dist = policy.get_distribution(obs, action_masks=masks)
            nll -= float(dist.log_prob(act).sum())
            pred = dist.distribution.probs.argmax(dim=1).cpu().numpy()
            choice = masks.sum(axis=1) >= 2
            hits += int((pred[choice] == demos.actions[b][choice]).sum())
            decisions += int(choice.sum())
    return (hits / decisions if decisions else float("nan")), nll / len(idx)


def fit(model, demos: Demonstrations, epochs: int, batch_size: int, learning_rate: float, value: bool,
        holdout: float, seed: int, log: Callable[[str], None] = print, first_epoch: int = 1) -> dict:
    """Fit ``model.policy`` to ``demos`` (see the module docstring); returns the summary."""
    import torch as th

    policy = model.policy
    train_idx, hold_idx = split_games(demos, holdout, seed)
    rng = np.random.default_rng([seed, 0xB0C, first_epoch])
    probe = rng.permutation(train_idx)[: max(len(hold_idx), 20_000)]
    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    vf_coef, max_norm = float(model.vf_coef), float(model.max_grad_norm)
    returns = th.as_tensor(demos.returns, device=policy.device)
    has_return = th.as_tensor(demos.has_return, device=policy.device)
    history = []
    t0 = time.perf_counter()
    policy.set_training_mode(True)
    for epoch in range(first_epoch, first_epoch + epochs):
        order = rng.permutation(train_idx)
        tot_pi = tot_v = 0.0
        nb = 0
        for s in range(0, len(order), batch_size):
            b = np.sort(order[s:s + batch_size])
            obs = th.as_tensor(demos.obs[b], device=policy.device)
            act = th.as_tensor(demos.actions[b], device=policy.device)
            values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=demos.mask_rows(b))
            loss_pi = -log_prob.mean()
            loss = loss_pi
            loss_v = th.zeros(())
            if value:
                known = has_return[b]
                if bool(known.any()):
                    loss_v = ((values.flatten()[known] - returns[b][known]) ** 2).mean()
                    loss = loss + vf_coef * loss_v
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), max_norm)
            optimizer.step()
            tot_pi += loss_pi.item()
            tot_v += loss_v.item()
            nb += 1
        policy.set_training_mode(False)
        acc, _ = agreement(policy, demos, probe)
        hold_acc, hold_nll = agreement(policy, demos, hold_idx)
        policy.set_training_mode(True)
        row = {"epoch": epoch, "loss": tot_pi / max(nb, 1), "value_loss": tot_v / max(nb, 1), "accuracy": acc,
               "holdout_accuracy": hold_acc, "holdout_nll": hold_nll}
        history.append(row)
        for k, v in row.items():
            if k != "epoch" and not (isinstance(v, float) and math.isnan(v)):
                model.logger.record(f"pretrain/{k}", v)
        model.logger.dump(step=epoch)
        log(f"  behaviour cloning epoch {epoch}: loss {row['loss']:.4f}, value loss {row['value_loss']:.4f}, "
            f"accuracy {acc:.1%}, holdout {hold_acc:.1%}")
    policy.set_training_mode(False)
    last = history[-1] if history else {}
    return {"epochs": epochs, "train_samples": int(len(train_idx)), "holdout_samples": int(len(hold_idx)),
            "loss": _r(last.get("loss")), "value_loss": _r(last.get("value_loss")) if value else None,
            "accuracy": _r(last.get("accuracy")), "holdout_accuracy": _r(last.get("holdout_accuracy")),
            "holdout_nll": _r(last.get("holdout_nll")), "fit_seconds": round(time.perf_counter() - t0, 1),
            "history": [{k: _r(v) for k, v in h.items()} for h in history]}


def _r(x, nd: int = 5):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), nd) if isinstance(x, float) else x


def pretrain(model, settings: BridgeSettings, cfg: dict, log: Callable[[str], None] = print) -> dict:
    """Collect and fit as ``cfg['pretrain']`` says (then the DAgger rounds);
    returns the summary recorded in the checkpoint's metadata."""
    from training.actor import NumpyActor

    p, t = cfg["pretrain"], cfg["training"]
    gamma = cfg["algorithm"]["gamma"]
    log(f"behaviour cloning: collecting {p['steps']:,} samples of {p['teacher']} play ...")
    demos = collect(settings, p["teacher"], p["steps"], t["env_copies"], t["workers"],
                    t["seed"] + COLLECT_SEED_OFFSET, gamma, t["progress_bar"], timeout_s=t["worker_timeout_s"])
    decisions = float(np.mean(demos.decisions())) if len(demos) else 0.0
    log(f"  {len(demos):,} samples ({decisions:.0%} decisions) from {demos.games} finished games in "
        f"{demos.seconds:.0f} s; teacher win rate {demos.teacher_win_rate:.1%}")
    stats = fit(model, demos, p["epochs"], p["batch_size"], p["learning_rate"], p["value"], p["holdout"],
                t["seed"], log)
    summary = {"teacher": p["teacher"], "samples": len(demos), "decision_share": round(decisions, 4),
               "games": demos.games, "teacher_win_rate": _r(demos.teacher_win_rate, 4),
               "teacher_actions_outside_mask": demos.outside_mask, "collect_seconds": round(demos.seconds, 1),
               "batch_size": p["batch_size"], "learning_rate": p["learning_rate"], "value": p["value"], **stats}
    rounds = []
    parts = [demos]
    epoch = p["epochs"] + 1
    for r in range(1, p["dagger_rounds"] + 1):
        student = NumpyActor.from_sb3_policy(model.policy).state()
        log(f"DAgger round {r}/{p['dagger_rounds']}: the clone plays {p['dagger_steps']:,} steps, the teacher labels ...")
        new = collect(settings, p["teacher"], p["dagger_steps"], t["env_copies"], t["workers"],
                      t["seed"] + COLLECT_SEED_OFFSET + 1009 * r, gamma, t["progress_bar"], student, p["dagger_teacher_share"],
                      timeout_s=t["worker_timeout_s"])
        choice = new.decisions()
        on_policy = float(np.mean(new.played[choice] == new.actions[choice])) if choice.any() else float("nan")
        log(f"  the clone won {new.teacher_win_rate:.1%} of {new.games} games and agreed with the teacher on "
            f"{on_policy:.1%} of its own decisions ({new.seconds:.0f} s)")
        model.logger.record("pretrain/dagger_win_rate", new.teacher_win_rate)
        model.logger.record("pretrain/dagger_on_policy_accuracy", on_policy)
        model.logger.dump(step=epoch)
        parts.append(new)
        aggregate = Demonstrations.concat(parts)
        st = fit(model, aggregate, p["dagger_epochs"], p["batch_size"], p["learning_rate"], p["value"],
                 p["holdout"], t["seed"], log, first_epoch=epoch)
        epoch += p["dagger_epochs"]
        rounds.append({"round": r, "samples": len(new), "games": new.games, "clone_win_rate": _r(new.teacher_win_rate, 4),
                       "clone_on_policy_accuracy": _r(on_policy, 4), "collect_seconds": round(new.seconds, 1),
                       "aggregate_samples": len(aggregate), "holdout_accuracy": st["holdout_accuracy"],
                       "accuracy": st["accuracy"], "fit_seconds": st["fit_seconds"]})
        summary["history"] += st["history"]
        for k in ("loss", "value_loss", "accuracy", "holdout_accuracy", "holdout_nll"):
            summary[k] = st[k]
    if rounds:
        summary["dagger"] = {"rounds": rounds, "teacher_share": p["dagger_teacher_share"], "epochs": p["dagger_epochs"]}
    return summary
