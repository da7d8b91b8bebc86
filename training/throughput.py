"""Rollout throughput: MaskablePPO through the bridge next to PPO on CartPole.

``python -m envs.bench --training`` (or :func:`run_throughput`) measures, with
the same settings for every row (``n_steps``, ``n_envs`` vectorised slots, an
MLP of the same size, one torch thread, CPU):

* each game: sb3-contrib ``MaskablePPO`` learning on the training bridge
  (:class:`training.vec_env.MultiAgentVecEnv`, single process: ``workers=1``,
  so it compares with CartPole's in-process ``DummyVecEnv``), the game's
  ``configs/<game>_quick.yaml`` env and seating (the non-learning seats are
  played by their policies inside the bridge, as in training);
* ``CartPole-v1``: stable-baselines3 ``PPO`` on a ``DummyVecEnv``.

The figure is *rollout frames per second*: ``n_steps * n_envs`` divided by
the wall time of ``collect_rollouts`` (policy forward passes included, the
gradient update excluded), timed with SB3 callbacks (``_on_rollout_start`` /
``_on_rollout_end``), median over the rollouts after the first (warm-up).
The ratio game / CartPole is the issue's measure of whether env cost limits
training (target: at least 0.6).

Next to it, *end-to-end steps per second*: the frames learned divided by the
wall time of the whole ``learn`` call (every rollout and every gradient
update, ``n_epochs=1`` over one batch of ``n_steps * n_envs``), for the game
on 1 and more processes and for CartPole, measured in the same run.

And *the learner alone*: the same learner on a :func:`record_bridge` trajectory
of the game replayed by a VecEnv that costs nothing to step (the same spaces,
masks, episode ends and infos). Its rollout frames/s bound what any speed-up of
the game and the bridge could give; one minus the ratio of the two is the
game's (and the bridge's) share of a rollout.
"""

from __future__ import annotations

import functools
import statistics
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import numpy as np

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
GAMES = ("wok_star_v1", "frying_master_v1", "waroong_wars_v1")
SETTINGS = {"n_steps": 128, "n_envs": 16, "net_arch": [64, 64], "rollouts": 4}
QUICK_SETTINGS = {"n_steps": 32, "n_envs": 4, "net_arch": [32, 32], "rollouts": 2}


def _rollout_timer():
    from stable_baselines3.common.callbacks import BaseCallback

    class RolloutTimer(BaseCallback):
        """Wall time of every ``collect_rollouts`` call."""

        def __init__(self):
            super().__init__()
            self.times: list[float] = []
            self._t0 = 0.0

        def _on_rollout_start(self) -> None:
            self._t0 = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.times.append(time.perf_counter() - self._t0)

        def _on_step(self) -> bool:
            return True

    return RolloutTimer()


def _fps(times: list[float], frames: int) -> float:
    kept = times[1:] if len(times) > 1 else times  # the first rollout warms up
    return frames / statistics.median(kept)


def quiet_logger(model) -> None:
    """A logger that writes nothing, set before ``learn``: SB3's default made an empty
    ``SB3-<time>`` folder in the temporary directory on every ``learn`` (dozens a benchmark run)."""
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))


def _learn(model, s: dict, n_envs: int, timer=None) -> tuple[float, float]:
    """(rollout fps, end-to-end fps) of ``model.learn`` over ``s["rollouts"]`` rollouts (``timer``: the
    rollout timer callback, a fresh :func:`_rollout_timer` by default)."""
    timer = timer or _rollout_timer()
    frames = s["n_steps"] * n_envs
    quiet_logger(model)
    t0 = time.perf_counter()
    model.learn(frames * s["rollouts"], callback=timer)
    wall = time.perf_counter() - t0
    return _fps(timer.times, frames), model.num_timesteps / wall


def cartpole_fps(s: dict) -> float:
    return cartpole_figures(s)[0]


def cartpole_figures(s: dict) -> tuple[float, float]:
    """(rollout fps, end-to-end fps) of PPO on CartPole-v1."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    venv = make_vec_env("CartPole-v1", n_envs=s["n_envs"], seed=0)
    model = PPO("MlpPolicy", venv, n_steps=s["n_steps"], batch_size=s["n_steps"] * s["n_envs"], n_epochs=1,
                policy_kwargs={"net_arch": list(s["net_arch"])}, seed=0, device="cpu")
    figures = _learn(model, s, s["n_envs"])
    venv.close()
    return figures


def bridge_fps(env_id: str, s: dict, workers: int = 1) -> tuple[float, int, int]:
    """(rollout fps, learner slots, env copies) for one game, the copies
    stepped by ``workers`` processes (1: all in this process)."""
    f = bridge_figures(env_id, s, workers)
    return f["rollout_fps"], f["n_envs"], f["env_copies"]


def bridge_figures(env_id: str, s: dict, workers: int = 1, sampler: str = "exact", timer=None) -> dict:
    """``rollout_fps``, ``train_fps`` (end to end), ``n_envs`` (learner slots) and
    ``env_copies`` for one game, the copies stepped by ``workers`` processes, the learner
    drawing with ``sampler`` (``training.action_sampler``, :mod:`training.sampling`)."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from training.actor import NumpyActor
    from training.config import load_config
    from training.sampling import use_sampler
    from training.trainer import plan_run
    from training.vec_env import MultiAgentVecEnv

    game = env_id.rsplit("_v", 1)[0]
    cfg = load_config(CONFIG_DIR / f"{game}_quick.yaml")
    plan = plan_run(cfg)
    copies = max(1, s["n_envs"] // plan.learners)
    torch.set_num_threads(1)
    venv = VecMonitor(MultiAgentVecEnv(plan.settings, copies, workers))
    try:
        n_envs = venv.num_envs
        model = _learner(s, venv)
        use_sampler(model, sampler)
        if plan.uses_pool:
            venv.venv.add_snapshot("snapshot@0", NumpyActor.from_sb3_policy(model.policy).state())
        rollout, train = _learn(model, s, n_envs, timer)
        return {"rollout_fps": rollout, "train_fps": train, "n_envs": n_envs, "env_copies": copies}
    finally:
        venv.close()


@functools.cache
def _replay_vec_env():
    """The class ``ReplayVecEnv`` (built on first use: SB3 is imported only then)."""
    from stable_baselines3.common.vec_env import VecEnv

    class ReplayVecEnv(VecEnv):
        """A VecEnv that costs nothing to step: it hands out a recorded trajectory of the bridge
        (observations, rewards, dones, infos, masks), step after step, from the start again after
        the last. The actions are ignored. What the learner does with it is what it does with the
        bridge: the same spaces, the same masks, the same episode ends and infos."""

        def __init__(self, rec: dict, observation_space, action_space):
            self.rec, self.t, self.length = rec, 0, len(rec["obs"])
            super().__init__(rec["obs"].shape[1], observation_space, action_space)

        def reset(self):
            self.t = 0
            return self.rec["obs"][0].copy()

        def step_async(self, actions) -> None:
            pass

        def step_wait(self):
            self.t = (self.t + 1) % self.length
            r, t = self.rec, self.t
            return r["obs"][t].copy(), r["rewards"][t].copy(), r["dones"][t].copy(), [dict(i) for i in r["infos"][t]]

        def action_masks(self) -> np.ndarray:
            return self.rec["masks"][self.t].copy()

        def env_method(self, method_name: str, *args, indices=None, **kwargs):
            if method_name != "action_masks":
                raise AttributeError(f"ReplayVecEnv supports env_method('action_masks') only, not {method_name!r}")
            masks = self.rec["masks"][self.t]
            return list(masks.copy() if indices is None else masks[list(self._get_indices(indices))])

        def has_attr(self, attr_name: str) -> bool:
            return attr_name in ("action_masks", "render_mode")

        def get_attr(self, attr_name: str, indices=None):
            if attr_name == "render_mode":
                return [None for _ in self._get_indices(indices)]
            if attr_name == "action_masks":
                return [(lambda t=self.t, i=i: self.rec["masks"][t][i].copy()) for i in self._get_indices(indices)]
            raise AttributeError(f"ReplayVecEnv slots expose only 'action_masks' and 'render_mode', not {attr_name!r}")

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            raise AttributeError(f"ReplayVecEnv: setting {attr_name!r} on slots is not supported (nothing can be set)")

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False for _ in self._get_indices(indices)]

        def close(self) -> None:
            pass

    return ReplayVecEnv


def record_trajectory(settings, copies: int, steps: int, seed: int = 0,
                      pool_snapshot: Callable[[object], dict] | None = None) -> tuple[dict, object, object]:
    """``steps`` steps of the training bridge (:class:`training.vec_env.MultiAgentVecEnv` of
    ``settings`` with ``copies`` env copies, one process), every learner slot drawing a uniformly
    random legal action (seeded by ``seed``); ``pool_snapshot(venv)`` gives the state of the
    snapshot the pool's seats play, where the seating has a pool. Returns ``(record,
    observation_space, action_space)``: ``record`` holds ``obs``, ``masks``, ``rewards``, ``dones``
    (arrays with the step first, the reset as step 0) and ``infos`` (a list per step)."""
    from training.vec_env import MultiAgentVecEnv

    venv = MultiAgentVecEnv(settings, copies, 1)
    try:
        if pool_snapshot is not None:
            venv.add_snapshot("snapshot@0", pool_snapshot(venv))
        venv.seed(seed)
        rng = np.random.default_rng(seed)
        n = venv.num_envs
        rec = {"obs": [venv.reset()], "masks": [venv.action_masks()], "rewards": [np.zeros(n, np.float32)],
               "dones": [np.zeros(n, bool)], "infos": [[{} for _ in range(n)]]}
        for _ in range(steps):
            masks = rec["masks"][-1]
            obs, rewards, dones, infos = venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
            for key, value in zip(("obs", "rewards", "dones", "infos", "masks"),
                                  (obs, rewards, dones, infos, venv.action_masks())):
                rec[key].append(value)
        spaces = (venv.observation_space, venv.action_space)
    finally:
        venv.close()
    return {k: (v if k == "infos" else np.stack(v)) for k, v in rec.items()}, *spaces


def record_bridge(env_id: str, s: dict, steps: int | None = None, seed: int = 0) -> tuple[dict, object, object]:
    """:func:`record_trajectory` of the game's quick config (its seating, ``s["n_envs"]`` learner
    slots), ``steps`` steps (default ``s["n_steps"]``), the pool's seats (where the seating has a
    pool) playing the snapshot that :func:`bridge_figures` gives them."""
    from training.actor import NumpyActor
    from training.config import load_config
    from training.trainer import plan_run

    game = env_id.rsplit("_v", 1)[0]
    plan = plan_run(load_config(CONFIG_DIR / f"{game}_quick.yaml"))
    snapshot = (lambda venv: NumpyActor.from_sb3_policy(_learner(s, venv).policy).state()) if plan.uses_pool else None
    return record_trajectory(plan.settings, max(1, s["n_envs"] // plan.learners),
                             s["n_steps"] if steps is None else steps, seed, snapshot)


def replay_env(record: dict, observation_space, action_space):
    """A :class:`ReplayVecEnv` (an SB3 VecEnv that costs nothing to step) of a
    :func:`record_trajectory` record."""
    return _replay_vec_env()(record, observation_space, action_space)


def learner_alone_figures(env_id: str, s: dict, sampler: str = "exact") -> dict:
    """What :func:`bridge_figures`' learner costs by itself: the same MaskablePPO learner, settings
    and draw, on a :class:`ReplayVecEnv` of the game's bridge (:func:`record_bridge`), which costs
    nothing to step. Its ``rollout_fps`` is the most that any speed-up of the game and the bridge
    could give ``bridge_figures``' rollout; ``train_fps`` likewise end to end."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from training.sampling import use_sampler

    rec, observation_space, action_space = record_bridge(env_id, s)
    torch.set_num_threads(1)
    venv = VecMonitor(replay_env(rec, observation_space, action_space))
    model = _learner(s, venv)
    use_sampler(model, sampler)
    rollout, train = _learn(model, s, venv.num_envs)
    return {"rollout_fps": rollout, "train_fps": train, "n_envs": venv.num_envs}


#: The rows of :func:`rollout_breakdown`'s table, in print order: (key, label). ``rollout``,
#: ``learner_side``, ``rest_of_batched_step`` and ``bridge_own`` are derived; the others are timed.
BREAKDOWN_ROWS = (
    ("rollout", "the whole step"),
    ("learner_side", "the learner's side (policy, draw, buffer)"),
    ("env_step", "the bridge's env step"),
    ("other_seats", "· the other seats' policies"),
    ("engines", "· the engines' steps"),
    ("observer", "· the batch observer"),
    ("rest_of_batched_step", "· the rest of the batched step"),
    ("bridge_own", "· the bridge's own work"),
)


@contextmanager
def _timing(targets: list[tuple[object, str, str]], totals: dict[str, float]):
    """Within the block, every ``(owner, attribute, key)`` of ``targets`` (a class and a method name)
    adds its calls' wall time to ``totals[key]``; every attribute is put back as it was after it
    (an inherited method is removed from the class again)."""
    saved = []
    try:
        for owner, attr, key in targets:
            own = attr in vars(owner)
            original = getattr(owner, attr)
            saved.append((owner, attr, own, vars(owner).get(attr)))

            def timed(*args, _f=original, _key=key, **kwargs):
                t0 = time.perf_counter()
                try:
                    return _f(*args, **kwargs)
                finally:
                    totals[_key] += time.perf_counter() - t0

            setattr(owner, attr, timed)
        yield
    finally:
        for owner, attr, own, original in reversed(saved):
            if own:
                setattr(owner, attr, original)
            else:
                delattr(owner, attr)


def rollout_breakdown(env_id: str, s: dict) -> dict:
    """Where one process's rollout through the bridge spends its time: microseconds per batched step
    of the bridge (``n_envs`` slots), over the rollouts after the first (warm-up), by the keys of
    :data:`BREAKDOWN_ROWS` (and ``batched_step``).

    Timed (timers around the methods, a few tenths of a microsecond a call): ``env_step``
    (``training.copies.CopyGroup.step``), ``other_seats`` (``CopyGroup._other_actions``),
    ``batched_step`` (``envs.vector.BatchedEnv.step``), ``engines`` (the game's
    ``engine.step_validated``) and ``observer`` (its batch observer's ``observe``). Derived:
    ``rest_of_batched_step`` (the batch's own work, and the per-game observations of games that end
    or are too few for the observer), ``bridge_own`` (the bridge's work around the batch: actions in,
    rewards, infos and policy vectors out), ``learner_side`` (the policy's forward pass, the draw, the
    rollout buffer, SB3's bookkeeping) and ``rollout``, the whole step."""
    from envs.vector.batched import BatchedEnv
    from training.copies import CopyGroup

    probe = BatchedEnv(env_id, 1)
    probe.reset(seed=0)
    engine_cls, observer_cls = type(probe.envs[0].engine), type(probe._observer)
    probe.close()
    totals = {key: 0.0 for key in ("env_step", "other_seats", "batched_step", "engines", "observer")}
    rollouts: list[float] = []

    class Zeroing(type(_rollout_timer())):  # the rollout timer, which also drops the warm-up's part times
        def _on_rollout_end(self) -> None:
            super()._on_rollout_end()
            rollouts.append(self.times[-1])
            if len(rollouts) == 1 and s["rollouts"] > 1:
                for key in totals:
                    totals[key] = 0.0

    targets = [(CopyGroup, "step", "env_step"), (CopyGroup, "_other_actions", "other_seats"),
               (BatchedEnv, "step", "batched_step"), (engine_cls, "step_validated", "engines")]
    if observer_cls is not type(None):  # (a game without a batch observer: its part stays 0)
        targets.append((observer_cls, "observe", "observer"))
    with _timing(targets, totals):
        bridge_figures(env_id, s, 1, timer=Zeroing())
    kept = rollouts[1:] if len(rollouts) > 1 else rollouts  # (a single rollout is all there is)
    steps = s["n_steps"] * len(kept)
    us = {key: totals[key] / steps * 1e6 for key in totals}
    us["rollout"] = sum(kept) / steps * 1e6
    us["rest_of_batched_step"] = us["batched_step"] - us["engines"] - us["observer"]
    us["bridge_own"] = us["env_step"] - us["batched_step"] - us["other_seats"]
    us["learner_side"] = us["rollout"] - us["env_step"]
    return us


def _learner(s: dict, venv):
    """The measured learner: MaskablePPO with :class:`training.sampling.MaskablePolicy`, ``s``'s
    settings, one epoch over one batch of the rollout, seed 0, CPU."""
    from sb3_contrib import MaskablePPO

    from training.sampling import MaskablePolicy

    n_envs = venv.num_envs
    return MaskablePPO(MaskablePolicy, venv, n_steps=s["n_steps"], batch_size=s["n_steps"] * n_envs, n_epochs=1,
                       policy_kwargs={"net_arch": list(s["net_arch"])}, seed=0, device="cpu")


def run_throughput(log: Callable[[str], None] = print, quick: bool = False,
                   games: tuple[str, ...] = GAMES, workers: tuple[int, ...] = (1, 2)) -> list[dict]:
    """Measure every game and CartPole (CartPole first and last, so drift shows);
    print a markdown table; return its rows. The ratio uses the single-process
    figure (``workers=1``, like CartPole's DummyVecEnv); other worker counts
    are shown next to it (what training with both cores gets)."""
    s = dict(QUICK_SETTINGS if quick else SETTINGS)
    before, before_train = cartpole_figures(s)
    rows = []
    for env_id in games:
        f = bridge_figures(env_id, s, 1)
        row = {"env": env_id, "rollout_fps": f["rollout_fps"], "train_fps": f["train_fps"], "n_envs": f["n_envs"],
               "env_copies": f["env_copies"], "by_workers": {1: f["rollout_fps"]}, "train_by_workers": {1: f["train_fps"]}}
        fc = bridge_figures(env_id, s, 1, sampler="cdf")
        row["cdf_rollout_fps"], row["cdf_train_fps"] = fc["rollout_fps"], fc["train_fps"]
        for sampler, key in (("exact", "learner_alone_fps"), ("cdf", "cdf_learner_alone_fps")):
            row[key] = learner_alone_figures(env_id, s, sampler)["rollout_fps"]
        for w in workers:
            if w != 1:
                fw = bridge_figures(env_id, s, w)
                row["by_workers"][w], row["train_by_workers"][w] = fw["rollout_fps"], fw["train_fps"]
        row["breakdown_us"] = rollout_breakdown(env_id, s)
        rows.append(row)
    after, after_train = cartpole_figures(s)
    cart = float(np.mean([before, after]))
    cart_train = float(np.mean([before_train, after_train]))
    log(f"Rollout throughput: n_steps={s['n_steps']}, n_envs={s['n_envs']}, MLP {s['net_arch']}, "
        f"1 torch thread, single process; CartPole-v1 PPO {before:,.0f} fps before and {after:,.0f} after the games")
    log("")
    extra = [w for w in workers if w != 1]
    log("| env | algorithm | slots x copies | rollout frames/s | ratio to CartPole | target >= 0.6 |"
        + "".join(f" frames/s, {w} processes |" for w in extra) + " action_sampler=cdf: frames/s, ratio |"
        + " the learner alone: frames/s, ratio (cdf: frames/s, ratio) | the game's share of the rollout |")
    log("|---|---|---|---|---|---|" + "---|" * len(extra) + "---|---|---|")
    log(f"| CartPole-v1 | PPO | {s['n_envs']} x 1 | {cart:,.0f} | 1.00 | |" + " |" * len(extra) + " | | |")
    for r in rows:
        r["ratio_to_cartpole"] = r["rollout_fps"] / cart
        r["target_met"] = r["ratio_to_cartpole"] >= 0.6
        r["train_ratio_to_cartpole"] = r["train_fps"] / cart_train
        r["learner_alone_ratio"] = r["learner_alone_fps"] / cart
        r["cdf_learner_alone_ratio"] = r["cdf_learner_alone_fps"] / cart
        r["game_share"] = max(0.0, 1.0 - r["rollout_fps"] / r["learner_alone_fps"])
        log(f"| {r['env']} | MaskablePPO | {r['n_envs']} x {r['env_copies']} | {r['rollout_fps']:,.0f} | "
            f"{r['ratio_to_cartpole']:.2f} | {'met' if r['target_met'] else 'missed'} |"
            + "".join(f" {r['by_workers'][w]:,.0f} |" for w in extra)
            + f" {r['cdf_rollout_fps']:,.0f}, {r['cdf_rollout_fps'] / cart:.2f} |"
            + f" {r['learner_alone_fps']:,.0f}, {r['learner_alone_ratio']:.2f} "
            f"({r['cdf_learner_alone_fps']:,.0f}, {r['cdf_learner_alone_ratio']:.2f}) | {r['game_share']:.0%} |")
    log("")
    log("The learner alone: the same MaskablePPO learner, settings and draw on a recorded trajectory of the "
        "game's bridge replayed at no cost (training.throughput.learner_alone_figures): the most that any "
        "speed-up of the game and the bridge could give the rollout. The game's share: 1 - rollout / learner alone.")
    log("")
    log("Where a rollout's batched step goes, one process (microseconds per batched step of the bridge, the "
        "rollouts after the first; timers around the calls, training.throughput.rollout_breakdown):")
    log("")
    log("| part |" + "".join(f" {r['env']} |" for r in rows))
    log("|---|" + "---|" * len(rows))
    for key, label in BREAKDOWN_ROWS:
        log(f"| {label} |" + "".join(f" {r['breakdown_us'][key]:,.0f} |" for r in rows))
    log(f"| CartPole-v1's whole step (PPO) | {s['n_envs'] / cart * 1e6:,.0f} |" + " |" * (len(rows) - 1))
    log("")
    log(f"End to end (rollouts and updates, n_epochs=1, {s['rollouts']} rollouts, the first included): learner steps/s")
    log("")
    log("| env | 1 process | ratio to CartPole |" + "".join(f" {w} processes |" for w in extra))
    log("|---|---|---|" + "---|" * len(extra))
    log(f"| CartPole-v1 (PPO, DummyVecEnv) | {cart_train:,.0f} | 1.00 |" + " |" * len(extra))
    for r in rows:
        log(f"| {r['env']} | {r['train_fps']:,.0f} | {r['train_ratio_to_cartpole']:.2f} |"
            + "".join(f" {r['train_by_workers'][w]:,.0f} |" for w in extra))
    rows.append({"env": "CartPole-v1", "rollout_fps": cart, "n_envs": s["n_envs"], "before": before, "after": after,
                 "train_fps": cart_train, "train_before": before_train, "train_after": after_train, "settings": s})
    return rows


def full_config_figures(game: str, workers: int, rollouts: int = 2) -> dict:
    """End-to-end learner steps/s (rollouts and updates, MaskablePPO, the config's own
    algorithm settings, copies, seating and torch threads) of ``configs/<game>_full.yaml`` with
    ``workers`` processes stepping copies, over ``rollouts`` rollouts; and the hours its
    ``total_timesteps`` take at that rate (the PPO stage only; warm starts come on top)."""
    from training.bench import bench_train
    from training.config import load_config
    from training.trainer import plan_run

    cfg = load_config(CONFIG_DIR / f"{game}_full.yaml")
    plan = plan_run(cfg)
    slots = cfg["training"]["env_copies"] * plan.learners
    steps = cfg["algorithm"]["n_steps"] * slots * rollouts
    fps = bench_train(cfg, workers, steps)
    total = cfg["training"]["total_timesteps"]
    return {"game": game, "workers": workers, "slots": slots, "train_fps": fps, "total_timesteps": total,
            "ppo_hours": total / fps / 3600}


def cartpole_like_full_config(game: str, rollouts: int = 2) -> float:
    """End-to-end steps/s of SB3 PPO on CartPole-v1 (``DummyVecEnv``) with the same settings as
    ``configs/<game>_full.yaml``: its algorithm options, as many vectorised envs as the config
    has learner slots, its torch threads."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    from training.config import load_config
    from training.trainer import _ppo_kwargs, plan_run

    cfg = load_config(CONFIG_DIR / f"{game}_full.yaml")
    plan = plan_run(cfg)
    slots = cfg["training"]["env_copies"] * plan.learners
    torch.set_num_threads(cfg["training"]["torch_threads"])
    kwargs, pk = _ppo_kwargs(cfg)
    venv = make_vec_env("CartPole-v1", n_envs=slots, seed=0)
    try:
        model = PPO("MlpPolicy", venv, seed=0, device="cpu", policy_kwargs=pk, **kwargs)
        quiet_logger(model)
        t0 = time.perf_counter()
        model.learn(cfg["algorithm"]["n_steps"] * slots * rollouts)
        return model.num_timesteps / (time.perf_counter() - t0)
    finally:
        venv.close()


def run_full_configs(log: Callable[[str], None] = print, games: tuple[str, ...] = GAMES,
                     workers: tuple[int, ...] = (1, 2), rollouts: int = 2) -> list[dict]:
    """Every game's full config end to end on each number of processes, next to CartPole PPO with
    the same settings measured in the same run; a markdown table; its rows."""
    rows = []
    for env_id in games:
        game = env_id.rsplit("_v", 1)[0]
        cart = cartpole_like_full_config(game, rollouts)
        figs = {w: full_config_figures(game, w, rollouts) for w in workers}
        rows.append({"env": env_id, "cartpole_fps": cart, "by_workers": figs})
    log(f"End to end, each game's configs/<game>_full.yaml ({rollouts} rollouts of n_steps x slots, updates included, "
        "the first rollout too), learner steps/s; CartPole-v1 PPO with the same algorithm settings and slots; "
        "hours: total_timesteps at that rate (PPO stage only)")
    log("")
    log("| env | slots | CartPole PPO, same settings |" + "".join(f" {w} process{'es' if w > 1 else ''} (x CartPole, hours) |"
                                                        for w in workers))
    log("|---|---|---|" + "---|" * len(workers))
    for r in rows:
        cells = "".join(f" {f['train_fps']:,.0f} ({f['train_fps'] / r['cartpole_fps']:.2f}, {f['ppo_hours']:.1f} h) |"
                        for f in r["by_workers"].values())
        log(f"| {r['env']} | {next(iter(r['by_workers'].values()))['slots']} | {r['cartpole_fps']:,.0f} |{cells}")
    return rows
