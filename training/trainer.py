"""One training run from a validated config (``python -m training train``).

Steps: resolve the env; build the bridge (:class:`~training.vec_env.MultiAgentVecEnv`
under SB3's ``VecMonitor``); build or resume a MaskablePPO; warm-start it by
behaviour cloning when ``pretrain.steps > 0`` (:mod:`training.pretrain`; not on
``--resume``); learn with SB3's
progress bar, TensorBoard logger and the callbacks of :mod:`training.callbacks`;
save the checkpoint (also every ``checkpoint_every`` steps and on Ctrl-C);
write the learning curve; evaluate and write the evaluation table.

Outputs::

    <output.checkpoints>/<game>/<name>/model.zip, metadata.json   the checkpoint
        config.yaml            the resolved config of the run
        curve.csv, learning_curve.png
        evaluation.md, evaluation.json
    <output.runs>/<game>/<name>/   TensorBoard events; pool/ (self-play snapshots, for --resume)
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import shutil
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from envs.core.errors import ConfigError, KitchenArenaError
from envs.core.inputs import blocking_file, check_writable, first_line, shown
from envs.core.workers import WorkerError

from training import checkpoints as ck
from training.callbacks import (EpisodeStatsCallback, InterruptCallback, PeriodicSaveCallback, SelfPlayCallback,
                                SigintGuard)
from training.config import command_line, public, to_yaml
from training.copies import POOL, BridgeSettings, RewardRule
from training.envspec import EnvSpec
from training.evaluation import (Row, checkpoint_fit_error, evaluate, markdown_table, outcome_extras, summary_json,
                                 unavailable_row)
from training.plotting import plot_curve, read_curve, write_curve
from training.policies import make_policy
from training.pretrain import pretrain
from training.seating import SeatingRule


@dataclass
class RunPlan:
    """What a config resolves to, before anything is trained."""

    cfg: dict
    env_spec: EnvSpec
    cooperative: bool
    n_seats: int
    learners: int
    reward_mode: str
    uses_pool: bool
    checkpoint_dir: Path
    run_dir: Path
    settings: BridgeSettings
    sweep: list[dict] = field(default_factory=list)        # the evaluation's env-option combinations
    sweep_unplayable: dict[str, str] = field(default_factory=dict)  # combination label -> why the policy cannot

    @property
    def slots(self) -> int:
        return self.cfg["training"]["env_copies"] * self.learners

    def describe(self) -> str:
        t, p = self.cfg["training"], self.cfg["pretrain"]
        kind = "cooperative (one shared policy for the team)" if self.cooperative else "competitive"
        others = "none (the learner plays every seat)" if self.learners >= self.n_seats else \
            ", ".join(f"{k} {v:g}" for k, v in self.cfg["seats"]["others"].items())
        return "\n".join([
            f"env          {self.env_spec.label()} ({kind}, {self.n_seats} seats)",
            f"learner      {self.learners} seat(s) per game, reward={self.reward_mode}, rotation={self.cfg['seats']['rotation']}",
            f"other seats  {others}",
            f"bridge       {t['env_copies']} env copies x {self.learners} = {self.slots} slots, stepped by {t['workers']} process(es)",
            f"pretraining  " + (f"behaviour cloning of {p['teacher']}: {p['steps']:,} samples, {p['epochs']} epochs"
                                + (" (value head too)" if p["value"] else "")
                                + (f", then {p['dagger_rounds']} DAgger rounds of {p['dagger_steps']:,} samples"
                                   if p["dagger_rounds"] else "") if p["steps"] else "none"),
            *([f"start from   the weights of {t['init_from']}"] if t.get("init_from") else []),
            f"timesteps    {t['total_timesteps']:,} (seed {t['seed']})",
            f"evaluation   {self.cfg['evaluation']['games']} games per row"
            + (f"; sweep over {len(self.sweep)} combination(s): " + ", ".join(_combo_label(c) for c in self.sweep)
               if self.sweep else "")
            + "".join(f"; the trained policy cannot play {k} ({v}): an n/a row"
                      for k, v in self.sweep_unplayable.items()),
            f"checkpoint   {self.checkpoint_dir}",
            f"tensorboard  {self.run_dir}",
        ])


@dataclass
class TrainResult:
    checkpoint_dir: Path
    metadata: dict
    interrupted: bool
    seconds: float
    rows: list[Row] = field(default_factory=list)
    table: str = ""


def _combo_label(combo: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in combo.items()) or "defaults"


def sweep_combinations(sweep: dict) -> list[dict]:
    """Every combination of the swept env options (``[{}]``-free: empty when no sweep)."""
    return [dict(zip(sweep, vals)) for vals in itertools.product(*sweep.values())] if sweep else []


def _check_policy(spec: str, env_spec: EnvSpec, key: str) -> None:
    """The spec resolves to a policy that can play ``env_spec`` (a checkpoint:
    present, intact, made for this env); else ConfigError naming the key."""
    try:
        make_policy(spec, env_spec)
    except KitchenArenaError as e:
        raise ConfigError(f"config key {key}: {e}") from e


def plan_run(cfg: dict, resume: bool = False) -> RunPlan:
    """What ``cfg`` resolves to, with everything checked that can be checked
    before training: the env and its options, every sweep combination, every
    policy spec (checkpoints loaded and checked against the env), the seats,
    the evaluation's extras and the device. Nothing is written."""
    env_spec = EnvSpec.resolve(cfg["env"]["id"], cfg["env"]["options"])
    cooperative = env_spec.kind == "cooperative"
    n_seats = len(env_spec.make().possible_agents)
    lv = cfg["seats"]["learners"]
    if lv == "all" or (lv == "auto" and cooperative):
        learners = n_seats
    elif lv == "auto":
        learners = 1
    else:
        learners = int(lv)
        if learners > n_seats:
            raise ConfigError(f"config key seats.learners: {learners} is not allowed; allowed: 1..{n_seats} "
                              f"({env_spec.label()} has {n_seats} seats), 'all' or 'auto'")
    others = dict(cfg["seats"]["others"])
    if learners < n_seats:
        if not others or sum(others.values()) <= 0:
            raise ConfigError("config key seats.others: the learner leaves seats free, so seats.others needs at "
                              "least one positive weight (pool, random, heuristic, noop or checkpoint:DIR)")
        others = {k: v for k, v in others.items() if v > 0}
    uses_pool = learners < n_seats and POOL in others
    reward_mode = cfg["training"]["reward"]
    if reward_mode == "auto":
        reward_mode = "team" if cooperative else "own"
    t = cfg["training"]
    seating = SeatingRule(learners, cfg["seats"]["rotation"], others, cfg["self_play"]["pool_size"],
                          cfg["self_play"]["latest_weight"])
    settings = BridgeSettings(env_spec, seating, RewardRule(reward_mode, t["reward_scale"], t["win_bonus"],
                                                            t["loss_penalty"]),
                              cooperative, t["normalize_observations"], t["seed"])
    out = cfg["output"]
    plan = RunPlan(cfg, env_spec, cooperative, n_seats, learners, reward_mode, uses_pool,
                   Path(out["checkpoints"]) / env_spec.game / cfg["name"], Path(out["runs"]) / env_spec.game / cfg["name"],
                   settings)
    _check_plan(plan, resume)
    return plan


def init_source(cfg: dict, env_spec: EnvSpec) -> dict:
    """The metadata of ``training.init_from``'s checkpoint, checked before anything is
    written: a verified checkpoint of this env's version that fits its spaces (option
    differences that leave them alone, e.g. another difficulty, are warned about),
    with this config's network and observation scaling; ConfigError naming what differs."""
    src = Path(cfg["training"]["init_from"])
    key = "config key training.init_from"
    if not ck.is_checkpoint(src):
        raise ConfigError(f"{key}: no checkpoint at {src} (no {ck.METADATA_FILE}); allowed: a checkpoint directory, "
                          "e.g. checkpoints/wok_star/main")
    try:
        meta = ck.verify_file(src)
        ck.check_env_version(meta, f"{key} {src}")
        ck.check_env(meta, env_spec, f"{key} {src}")
        _, arch = ck.model_settings(meta, f"{key} {src}")
    except ck.CheckpointError as e:
        raise ConfigError(str(e)) from e
    if meta["algorithm"] != "MaskablePPO":
        raise ConfigError(f"{key}: {src} holds {meta['algorithm']!r}; allowed: a MaskablePPO checkpoint")
    a = cfg["algorithm"]
    want = {"net_arch": [int(h) for h in a["net_arch"]], "activation": a["activation"]}
    if arch != want:
        raise ConfigError(f"{key}: {src}'s network is {arch}, this config's is {want}; set algorithm.net_arch and "
                          "algorithm.activation to the checkpoint's")
    normalized = bool(meta["observation"].get("normalized", True))
    if normalized != cfg["training"]["normalize_observations"]:
        raise ConfigError(f"{key}: {src} was trained with normalize_observations={normalized}, this config has "
                          f"{cfg['training']['normalize_observations']}; set training.normalize_observations="
                          f"{str(normalized).lower()}")
    return meta


def _check_init_loads(cfg: dict, env_spec: EnvSpec) -> None:
    """``training.init_from``'s model loads (its metadata may agree with a model file that is not
    one), checked with the rest of the run (``--dry-run`` too) before anything is written;
    ConfigError naming the checkpoint."""
    try:
        ck.load_checkpoint(cfg["training"]["init_from"], env_spec, device="cpu")
    except ck.CheckpointError as e:
        raise ConfigError(f"config key training.init_from: {e}; allowed: a checkpoint directory whose files load "
                          f"(one saved by python -m training train, e.g. checkpoints/wok_star/main)") from e


def _start_from(model: Any, cfg: dict, env_spec: EnvSpec, log: Callable[[str], None]) -> dict:
    """Load ``training.init_from``'s policy and value weights into the fresh ``model``;
    returns what the checkpoint's metadata records of it."""
    src = cfg["training"]["init_from"]  # checked by plan_run (init_source) before anything was written
    source, meta = ck.load_checkpoint(src, env_spec, device=cfg["training"]["device"])
    model.policy.load_state_dict(source.policy.state_dict())
    log(f"starting from the weights of {src} ({int(meta['timesteps']):,} timesteps, trained for "
        f"{meta['env_id']})")
    return {"path": str(src), "model_sha256": meta["model_sha256"], "timesteps": int(meta["timesteps"]),
            "description": meta.get("description")}


def _check_plan(plan: RunPlan, resume: bool) -> None:
    cfg, env_spec = plan.cfg, plan.env_spec
    # who plays: the other seats, the teacher (cloning runs only on a fresh run), the evaluation's line-ups
    if plan.learners < plan.n_seats:
        for k in plan.settings.seating.others:
            if k != POOL:
                _check_policy(k, env_spec, f"seats.others.{k}")
    if cfg["pretrain"]["steps"] > 0 and not resume:
        _check_policy(cfg["pretrain"]["teacher"], env_spec, "pretrain.teacher")
    if cfg["training"]["init_from"] is not None and not resume:
        init_source(cfg, env_spec)
    ev = cfg["evaluation"]
    for i, o in enumerate(ev["against"]):
        _check_policy(o, env_spec, f"evaluation.against[{i}]")
    if ev["baselines"]:
        _check_policy("heuristic", env_spec, "evaluation.baselines (the heuristic)")
    # every sweep combination is a valid configuration of the env
    plan.sweep = sweep_combinations(ev["sweep"])
    base = ck.env_description(env_spec, cfg["training"]["normalize_observations"])
    for combo in plan.sweep:
        try:
            spec = env_spec.with_options(**combo)
        except KitchenArenaError as e:
            raise ConfigError(f"config key evaluation.sweep: the combination {_combo_label(combo)} is not a valid "
                              f"{env_spec.env_id} configuration: {e}") from e
        have = ck.env_description(spec, cfg["training"]["normalize_observations"])
        changed = [what for what, key in (("seats", "agents"), ("observation", "observation"),
                                          ("actions", "action_space")) if have[key] != base[key]]
        if changed:
            plan.sweep_unplayable[_combo_label(combo)] = "its " + " and ".join(changed) + " differ from training"
    if plan.sweep and len(plan.sweep_unplayable) == len(plan.sweep):
        raise ConfigError(f"config key evaluation.sweep: the trained policy could play none of its combinations "
                          f"({'; '.join(f'{k}: {v}' for k, v in plan.sweep_unplayable.items())}); sweep options "
                          f"that keep the seats, observation and actions of {env_spec.label()}")
    if ev["extras"]:
        available = outcome_extras(env_spec, ev["seed"])
        unknown = [k for k in ev["extras"] if k not in available]
        if unknown:
            raise ConfigError(f"config key evaluation.extras: {', '.join(map(repr, unknown))} "
                              f"{'is not an' if len(unknown) == 1 else 'are not'} outcome() extra"
                              f"{'' if len(unknown) == 1 else 's'} of {env_spec.env_id}; allowed: "
                              f"{', '.join(available) or 'none (this game reports no extras)'}")
    if cfg["training"]["device"] == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ConfigError("config key training.device: 'cuda' is not allowed here: torch sees no CUDA device; "
                              "allowed: 'cpu' or 'auto'")


def _ppo_kwargs(cfg: dict) -> tuple[dict, dict]:
    import torch.nn as nn

    a = cfg["algorithm"]
    lr = a["learning_rate"]
    schedule: Any = lr if a["lr_schedule"] == "constant" else (lambda progress, lr=lr: lr * progress)
    kwargs = {k: a[k] for k in ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef",
                                "vf_coef", "max_grad_norm", "target_kl", "normalize_advantage")}
    kwargs["learning_rate"] = schedule
    policy_kwargs = {"net_arch": list(a["net_arch"]), "activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[a["activation"]]}
    return kwargs, policy_kwargs


def training_commands(cfg: dict, sessions: list[dict] | None = None) -> list[str]:
    """The ``train`` commands that reproduce a checkpoint, into a run named ``retrained``: one per
    training session recorded in its metadata (``sessions``: the first, then each ``--resume``
    with its own overrides), or, where the record is missing or incomplete, the config's command."""
    if valid_sessions(sessions) and all(x["command"] for x in sessions):
        out = [f"{x['command']} --set name=retrained" for x in sessions]
        cut = [x for x in sessions[:-1] if x.get("ended") == "interrupted"]
        if cut:  # (its command trains that session to its end: the run without the interruption)
            out.insert(0, "# not this run exactly: session(s) stopped early (Ctrl-C or a kill) at "
                          + ", ".join(f"{x['to']:,}" for x in cut) + " timesteps; these commands train "
                          "each session to its end, the run as it would have been without the stop")
        return out
    return [command_line(cfg, "--set", "name=retrained")]


def valid_sessions(sessions: Any) -> bool:
    """Whether a checkpoint's ``sessions`` record (read from its metadata file) has the shape the
    trainer writes: a non-empty list of ``{"command": str or None, "from": int, "to": int}``."""
    return (isinstance(sessions, list) and bool(sessions) and all(
        isinstance(x, dict) and (x.get("command") is None or isinstance(x.get("command"), str))
        and all(isinstance(x.get(k), int) and not isinstance(x.get(k), bool) for k in ("from", "to"))
        for x in sessions))


def reproduce_commands(cfg: dict, plan: RunPlan, ckpt_dir: Path, sessions: list[dict] | None = None) -> list[str]:
    """The commands that reproduce a run's checkpoint and every row of its evaluation table: the
    training commands (:func:`training_commands`), then one ``evaluate`` per policy of
    :func:`evaluation_plan` (its line-ups in the table's order; the config's games, seed and sweep;
    the checkpoint on its own env, the baselines on the run's env)."""
    import shlex

    ev = cfg["evaluation"]
    policy = f"checkpoint:{ckpt_dir}"
    lineups: dict[str, list[str | None]] = {}
    for _, pol, others in evaluation_plan(cfg, plan.env_spec, policy):
        seen = lineups.setdefault(pol, [])
        if others not in seen:
            seen.append(others)
    common = ["--games", str(ev["games"]), "--seed", str(ev["seed"])]
    for k, values in (ev["sweep"] or {}).items():
        common += ["--sweep", f"{k}={','.join(str(v) for v in values)}"]
    if not ev["deterministic"]:
        common.append("--sample")
    env = ["--env", plan.env_spec.env_id] + [w for k, v in plan.env_spec.options.items() for w in ("--env-set", f"{k}={v}")]
    flag = "--partners" if plan.cooperative else "--against"
    out = training_commands(cfg, sessions)
    for pol, others in lineups.items():
        words = ["python", "-m", "training", "evaluate", pol] + ([] if pol == policy else env)
        if None in others:
            words.append("--team")  # (before the line-ups, as evaluate orders its rows)
        words += [w for o in others if o is not None for w in (flag, o)]
        out.append(" ".join(shlex.quote(w) for w in words + common))
    return out


def evaluation_plan(cfg: dict, env_spec: EnvSpec, policy: str) -> list[tuple[EnvSpec, str, str | None]]:
    """The rows of the end-of-training table: per swept env config, the trained
    policy (as a whole team if cooperative) with/against each ``against`` spec,
    then the baselines for reference (cooperative: the heuristic and random
    teams; competitive: random against each ``against`` spec, then the
    heuristic against random)."""
    ev = cfg["evaluation"]
    cooperative = env_spec.kind == "cooperative"
    combos = sweep_combinations(ev["sweep"]) or [{}]
    rows: list[tuple[EnvSpec, str, str | None]] = []
    for combo in combos:
        spec = env_spec.with_options(**combo) if combo else env_spec
        if cooperative:
            rows.append((spec, policy, None))
            rows += [(spec, policy, o) for o in ev["against"]]
            if ev["baselines"]:
                rows += [(spec, b, None) for b in ("heuristic", "random")]
        else:
            rows += [(spec, policy, o) for o in ev["against"]]
            if ev["baselines"]:  # random against the same opponents: where learning from scratch starts
                rows += [(spec, "random", o) for o in ev["against"]]
                rows.append((spec, "heuristic", "random"))
    return rows


def run_evaluation(plan: list[tuple[EnvSpec, str, str | None]], games: int, seed: int, workers: int,
                   deterministic: bool, log: Callable[[str], None] = print, sweep: bool = False) -> list[Row]:
    """The rows of ``plan`` (env, policy, others).

    A checkpoint that is missing or damaged, or cannot play a row's env, raises
    :class:`~training.checkpoints.CheckpointError`, except, with ``sweep``
    (the rows are combinations of swept env options), a checkpoint that
    cannot play one combination (another player count changes its input size):
    that row is an ``n/a`` row with the whole reason. CheckpointWarnings are
    not filtered here (the command line shows each once)."""
    rows = []
    for spec, pol, others in plan:
        try:
            rows.append(evaluate(spec, pol, others, games, seed, workers, deterministic))
        except ck.CheckpointError:
            reason = checkpoint_fit_error([pol, others], spec) if sweep else None
            if reason is None:  # not a misfit of this combination: a real failure
                raise
            rows.append(unavailable_row(spec, pol, others, games, f"n/a: {reason}"))
        log(f"  evaluated {rows[-1].policy} {rows[-1].lineup} on {spec.label()}")
    return rows


def _check_resume_config(meta: dict, cfg: dict) -> None:
    old = meta.get("training_config") or {}
    for section in ("env",):
        if old.get(section) != public(cfg).get(section):
            raise ConfigError(f"--resume: the config's {section} section differs from the checkpoint's "
                              f"(config: {public(cfg).get(section)}; checkpoint: {old.get(section)}); resume with "
                              f"the same env")
    normalized = (meta.get("observation") or {}).get("normalized", True)
    if bool(cfg["training"]["normalize_observations"]) != bool(normalized):  # (the run had built its workers and
        # then failed with the spaces' bounds, naming no key)
        raise ConfigError(f"--resume: training.normalize_observations is {cfg['training']['normalize_observations']} "
                          f"where the checkpoint was trained with {bool(normalized)}: the policy reads observations "
                          f"as it was trained; resume with the same value")
    if old.get("algorithm") != cfg.get("algorithm"):
        warnings.warn("--resume: the algorithm section differs from the checkpoint's; the saved model's "
                      "hyperparameters are kept", UserWarning, stacklevel=3)


_REPO_CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"


def shipped_checkpoint_dirs(roots: list[Path]) -> dict[Path, Path]:
    """Resolved directories of the shipped checkpoints -> the manifest that lists
    them (``MANIFEST.json`` in each of ``roots`` that has one: the run's
    ``output.checkpoints`` and the project's ``checkpoints/``;
    :func:`training.checkpoints.shipped_checkpoints`)."""
    out: dict[Path, Path] = {}
    for root in dict.fromkeys(Path(r).resolve() for r in roots):
        manifest = root / ck.MANIFEST_FILE
        if manifest.is_file():
            for d in ck.shipped_checkpoints(root):
                out[Path(d).resolve()] = manifest
    return out


def _unmakeable_dir(target: Path) -> str | None:
    """Why the directory ``target`` could not be made or written (a file in its path, a place this
    process may not write: a file is made and removed in its nearest existing directory), or None
    (a read-only place had passed ``--dry-run``, SB3's and RLlib's)."""
    try:
        blocker = blocking_file(target)
        if blocker is not None:
            return f"{target} cannot be made: {blocker} is a file, not a directory"
        check_writable(target)
    except OSError as e:
        return f"{target}: {e.strerror or e}"
    return None


@contextmanager
def run_lock(plan: RunPlan):
    """Hold the run's lock (``.<name>.lock`` beside its checkpoint directory) while it writes: a
    second ``train`` of the same run name at the same time is refused, where both ran to the end
    and mixed their checkpoints and self-play pools. The lock is the kernel's (``flock``): a
    killed run holds none; the file goes at the end."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Windows: no lock
        yield
        return
    lock = plan.checkpoint_dir.with_name(f".{plan.checkpoint_dir.name}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "?"
            raise ConfigError(f"another train is writing {plan.checkpoint_dir} now (process {holder}, lock {lock}); "
                              f"wait for it to end, or choose another run name (--set name=...)") from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)


def _resume_meta(plan: RunPlan, resume: bool, overwrite: bool) -> dict | None:
    """Check where the run would write, before anything is written: the
    checkpoint's metadata when resuming, else None; ConfigError if refused."""
    ckpt_dir = plan.checkpoint_dir
    if resume and overwrite:
        raise ConfigError("--resume and --overwrite contradict each other: --resume continues the checkpoint, "
                          "--overwrite replaces it; pass one of them")
    for key, target in (("output.checkpoints", ckpt_dir), ("output.runs", plan.run_dir)):
        problem = _unmakeable_dir(target)
        if problem:  # found now, not after the whole run when the checkpoint is saved
            raise ConfigError(f"{key}: {problem}")
        if overwrite and target.is_symlink():  # (its removal failed after the checkpoint's had gone)
            raise ConfigError(f"{key}: --overwrite removes {target}, which is a symlink (to {os.readlink(target)}); "
                              f"it removes no folder through a symlink: remove the link, or set {key} to the "
                              f"real folder's parent")
    pool = plan.run_dir / "pool"
    if not resume and not overwrite and not ck.is_checkpoint(ckpt_dir) and pool.is_dir() and any(pool.iterdir()):
        raise ConfigError(f"{pool} holds the self-play pool of an earlier run of this name that saved no checkpoint "
                          f"(it was stopped); a new run would play against it, so the seed would no longer decide "
                          f"the run: remove {plan.run_dir}, pass --overwrite, or choose another run name "
                          f"(--set name=...)")
    every_shipped = shipped_checkpoint_dirs([ckpt_dir.parent.parent, plan.run_dir.parent.parent, _REPO_CHECKPOINTS])
    shipped = every_shipped.get(ckpt_dir.resolve())
    for key, target in (("output.checkpoints", ckpt_dir), ("output.runs", plan.run_dir)):
        # a run's folders are never a shipped checkpoint's, inside one or holding one (output.runs pointed at
        # checkpoints/ had written TensorBoard files into a shipped folder, and --overwrite emptied it)
        t = target.resolve()
        for d, manifest in every_shipped.items():
            if (t != d or key == "output.runs") and (t == d or d in t.parents or t in d.parents):
                raise ConfigError(f"{key}: {target} would be written in the shipped checkpoint {d} (listed in "
                                  f"{manifest}); training never writes into a shipped checkpoint: choose other "
                                  f"output folders (--set {key}=...) or another run name (--set name=...)")
    exists = ck.is_checkpoint(ckpt_dir)
    if resume:
        if not exists:
            raise ConfigError(f"--resume: no checkpoint at {ckpt_dir} to resume")
        meta = ck.read_metadata(ckpt_dir)
        _check_resumed_fields(meta, ckpt_dir)
        _check_resume_config(meta, plan.cfg)
        left = plan.cfg["training"]["total_timesteps"] - int(meta["timesteps"])
        if left > 0 and shipped:
            raise ConfigError(f"--resume: {ckpt_dir} is a shipped checkpoint (listed in {shipped}); training never "
                              f"writes into it. To continue it, copy it under another name (cp -r {ckpt_dir} "
                              f"{ckpt_dir.parent / 'mine'}) and resume that one: --set name=mine --resume")
        return meta
    if shipped:
        raise ConfigError(f"checkpoint {ckpt_dir} is a shipped checkpoint (listed in {shipped}); training never "
                          f"writes into it: choose another run name (--set name=...)")
    if exists and not overwrite:
        raise ConfigError(f"checkpoint {ckpt_dir} already exists; pass --resume to continue it, --overwrite to "
                          f"replace it, or choose another run name (--set name=...)")
    if not exists and ckpt_dir.is_dir() and any(ckpt_dir.iterdir()) and not overwrite:
        raise ConfigError(f"{ckpt_dir} exists and is not a checkpoint (no {ck.METADATA_FILE}); remove it, pass "
                          f"--overwrite, or choose another run name (--set name=...)")
    return None


def _check_resumed_fields(meta: dict, ckpt_dir: Path) -> None:
    """What a resumed run reads of the checkpoint beyond the model, checked before anything is written
    (a ``training_config`` that was no mapping, a ``training_seconds`` that was no number, or a
    ``curve.csv`` row of words had ended the run in a traceback after it had started)."""
    where = f"--resume: checkpoint {ckpt_dir}"
    if not isinstance(meta.get("training_config") or {}, dict):
        raise ConfigError(f"{where}: metadata training_config is {shown(meta['training_config'], 60)}; allowed: a "
                          f"mapping (the run's config) or null")
    seconds = meta.get("training_seconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not math.isfinite(seconds) or seconds < 0):
        raise ConfigError(f"{where}: metadata training_seconds is {shown(seconds, 60)}; allowed: a number of "
                          f"seconds >= 0 or null")
    try:
        read_curve(ckpt_dir / "curve.csv")
    except (ValueError, OSError, UnicodeDecodeError, csv.Error) as e:
        raise ConfigError(f"{where}: curve.csv does not read: {e}") from None


def check_run(cfg: dict, resume: bool = False, overwrite: bool = False) -> tuple[RunPlan, dict | None]:
    """Everything ``train`` checks before it writes anything: the plan
    (:func:`plan_run`) and the destination (an existing or shipped
    checkpoint, ``--resume``). Returns the plan and, when resuming, the
    checkpoint's metadata."""
    plan = plan_run(cfg, resume=resume)
    return plan, _resume_meta(plan, resume, overwrite)


def train(cfg: dict, resume: bool = False, overwrite: bool = False, dry_run: bool = False,
          log: Callable[[str], None] = print, extra_callbacks: list | None = None) -> TrainResult | RunPlan:
    """Train as ``cfg`` says; returns the result (or the plan, with ``dry_run``).

    Everything is checked (:func:`check_run`) before anything is written; a
    refused run leaves no file behind. ``resume`` of a run with no steps left
    changes nothing and says so."""
    plan, resumed = check_run(cfg, resume, overwrite)
    if cfg["training"]["init_from"] is not None and not resume:
        _check_init_loads(cfg, plan.env_spec)  # before the run's lock: a refused run leaves nothing behind
    if dry_run:
        return plan
    with run_lock(plan):
        plan, resumed = check_run(cfg, resume, overwrite)  # again, now that no other run can be writing it
        return _train_locked(cfg, plan, resumed, resume, overwrite, log, extra_callbacks)


def _train_locked(cfg: dict, plan: RunPlan, resumed: dict | None, resume: bool, overwrite: bool,
                  log: Callable[[str], None], extra_callbacks: list | None) -> TrainResult:
    ckpt_dir, run_dir = plan.checkpoint_dir, plan.run_dir
    if resumed is not None and int(resumed["timesteps"]) >= cfg["training"]["total_timesteps"] and \
            resumed.get("complete") and resumed.get("evaluation") is None:
        log(f"{ckpt_dir} has all its {int(resumed['timesteps']):,} timesteps but no evaluation (the run was stopped "
            f"during it): evaluating it now")
        return _evaluate_or_stop(cfg, plan, ckpt_dir, TrainResult(ckpt_dir, resumed, False, 0.0), log)
    if resumed is not None and int(resumed["timesteps"]) >= cfg["training"]["total_timesteps"]:
        log(f"nothing to do: {ckpt_dir} already has {int(resumed['timesteps']):,} timesteps "
            f"(training.total_timesteps is {cfg['training']['total_timesteps']:,}; "
            f"{'complete' if resumed.get('complete') else 'not marked complete'}); nothing was changed. "
            f"To train further, raise it: --set training.total_timesteps=N --resume")
        return TrainResult(ckpt_dir, resumed, False, 0.0)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import CallbackList, ProgressBarCallback
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import VecMonitor

    from training.sampling import MaskablePolicy, use_sampler
    from training.vec_env import MultiAgentVecEnv

    t = cfg["training"]
    torch.set_num_threads(t["torch_threads"])
    log(plan.describe())
    venv = VecMonitor(MultiAgentVecEnv(plan.settings, t["env_copies"], t["workers"],
                                       timeout_s=t["worker_timeout_s"]))
    kwargs, policy_kwargs = _ppo_kwargs(cfg)
    started_from = (resumed or {}).get("init_from")
    # the commands of the sessions that made the checkpoint, for evaluation.md's reproduce block
    recorded = (resumed or {}).get("sessions")
    sessions = list(recorded) if valid_sessions(recorded) else \
        ([{"command": None, "from": 0, "to": int(resumed["timesteps"])}] if resumed else [])
    this_command = command_line(cfg, *(["--resume"] if resume else []))
    try:
        if resume:
            model, meta = ck.load_checkpoint(ckpt_dir, plan.env_spec, device=t["device"], env=venv)
            model.set_random_seed(t["seed"] + int(model.num_timesteps))
            log(f"resuming from {ckpt_dir} at {model.num_timesteps:,} timesteps")
        else:
            model = MaskablePPO(MaskablePolicy, venv, seed=t["seed"], device=t["device"], verbose=0,
                                policy_kwargs=policy_kwargs, **kwargs)
            if t["init_from"] is not None:
                started_from = _start_from(model, cfg, plan.env_spec, log)
        use_sampler(model, t["action_sampler"])
        if overwrite:  # only now, with everything checked and built: the old run goes
            for p in (ckpt_dir, run_dir):
                if p.is_dir():
                    shutil.rmtree(p)
        model.set_logger(configure(str(run_dir), ["tensorboard"]))
        stats = EpisodeStatsCallback()
        hyper = ck.model_settings(meta)[0] if resume else dict(cfg["algorithm"])  # what the model was built with
        t0 = time.perf_counter()
        earlier_seconds = float((resumed or {}).get("training_seconds") or 0.0)  # times add up across sessions
        pretrained = (meta.get("pretrain") if resume else None)
        if not resume and cfg["pretrain"]["steps"] > 0:
            try:
                pretrained = pretrain(model, plan.settings, cfg, log)
            except KeyboardInterrupt:
                log("interrupted during behaviour cloning: nothing was saved (no PPO step yet)")
                return TrainResult(ckpt_dir, {}, True, time.perf_counter() - t0)
        t_ppo = time.perf_counter()
        start_steps = int(model.num_timesteps)
        curve_path = ckpt_dir / "curve.csv"
        prior_curve = read_curve(curve_path) if resume else []  # the earlier sessions' games
        if resume:
            expected = (resumed or {}).get("curve_rows")
            if type(expected) is int and len(prior_curve) < expected:
                log(f"warning: {curve_path} holds {len(prior_curve):,} of the {expected:,} games the checkpoint was "
                    f"saved with (the run was stopped between the two writes): the learning curve misses the "
                    f"earlier sessions' last {expected - len(prior_curve):,} games")

        def save(complete: bool, evaluation: dict | None = None) -> dict:
            saved = ck.save_checkpoint(
                ckpt_dir, model, plan.env_spec, normalize=t["normalize_observations"], hyperparameters=hyper,
                policy_kwargs={"net_arch": list(hyper["net_arch"]), "activation": hyper["activation"]},
                seed=t["seed"], complete=complete, training_config=public(cfg), evaluation=evaluation,
                extra={"description": cfg.get("description"), "learner_seats": plan.learners,
                       "reward": plan.reward_mode, "kind": "cooperative" if plan.cooperative else "competitive",
                       "pretrain": pretrained, "init_from": started_from,
                       "sessions": sessions + [{"command": this_command, "from": start_steps,
                                                "to": int(model.num_timesteps),
                                                # a save before the session's end (periodic, Ctrl-C): if the
                                                # run goes on from here, this session was cut short
                                                **({} if complete else {"ended": "interrupted"})}],
                       # the games of the learning curve this checkpoint comes with (curve.csv is written
                       # just after it: a kill between the two leaves the curve behind, which --resume says)
                       "curve_rows": len(prior_curve) + len(stats.history),
                       "training_seconds": round(earlier_seconds + time.perf_counter() - t0, 1),
                       "steps_per_second": round((model.num_timesteps - start_steps) / max(1e-9, time.perf_counter() - t_ppo), 1)})
            tmp = ckpt_dir / "config.yaml.tmp"
            tmp.write_text(to_yaml(cfg), encoding="utf-8")
            tmp.replace(ckpt_dir / "config.yaml")
            for old in ("evaluation.md", "evaluation.json"):  # they describe an earlier model (a resumed run's)
                (ckpt_dir / old).unlink(missing_ok=True)
            # the learning curve with every save: a run killed after a periodic save resumes it whole
            write_curve(curve_path, prior_curve + stats.history)
            return saved

        guard = SigintGuard()
        callbacks = [stats, InterruptCallback(guard)]
        if plan.uses_pool:
            sp = SelfPlayCallback(venv.venv, cfg["self_play"]["snapshot_every"], run_dir / "pool",
                                  cfg["self_play"]["pool_size"])
            sp.prime(model)
            callbacks.append(sp)
        if t["checkpoint_every"]:
            callbacks.append(PeriodicSaveCallback(t["checkpoint_every"], lambda: save(False)))
        if t["progress_bar"]:
            callbacks.append(ProgressBarCallback())
        callbacks += list(extra_callbacks or [])
        remaining = max(0, t["total_timesteps"] - int(model.num_timesteps))
        with guard, warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*rich is experimental.*")
            if remaining:
                try:
                    model.learn(remaining, callback=CallbackList(callbacks), reset_num_timesteps=not resume,
                                tb_log_name=cfg["name"])
                except WorkerError as e:  # a bridge worker died or was stuck: the model is whole, save it
                    first = first_line(e)
                    if int(model.num_timesteps) > start_steps:
                        save(False)
                        first += (f"; the checkpoint was saved at {int(model.num_timesteps):,} timesteps "
                                  f"(continue with: {command_line(cfg, '--resume')})")
                    raise WorkerError(first, label=e.label, pid=e.pid, exitcode=e.exitcode, died=e.died,
                                      remote_type=e.remote_type, remote_message=e.remote_message) from e
        interrupted = guard.requested
        meta = save(not interrupted)
    finally:
        venv.close()
    seconds = time.perf_counter() - t0
    ppo_seconds = time.perf_counter() - t_ppo
    # learning curve (appended across --resume sessions; written with every save)
    rows_curve = prior_curve + stats.history
    plot_curve(rows_curve, ckpt_dir / "learning_curve.png",
               f"{plan.env_spec.label()} - {cfg['name']} ({'team' if plan.cooperative else 'learner'})")
    result = TrainResult(ckpt_dir, meta, interrupted, seconds)
    steps = int(model.num_timesteps) - start_steps
    bc = f" after {seconds - ppo_seconds:.0f} s of behaviour cloning" if seconds - ppo_seconds >= 1 else ""
    log(f"trained {steps:,} timesteps in {ppo_seconds:.0f} s ({steps / max(ppo_seconds, 1e-9):,.0f} steps/s){bc}; "
        f"checkpoint {ckpt_dir}")
    if interrupted:
        log(f"interrupted: checkpoint saved at {model.num_timesteps:,} timesteps; continue with: "
            f"{command_line(cfg, '--resume')}")
        return result
    return _evaluate_or_stop(cfg, plan, ckpt_dir, result, log)


def _evaluate_or_stop(cfg: dict, plan: RunPlan, ckpt_dir: Path, result: TrainResult, log) -> TrainResult:
    """:func:`evaluate_run`; Ctrl-C during it stops with one line (no traceback): the checkpoint
    stays complete without an evaluation, which ``--resume`` then runs alone."""
    try:
        return evaluate_run(cfg, plan, ckpt_dir, result, log)
    except KeyboardInterrupt:
        log(f"interrupted during the final evaluation: the checkpoint {ckpt_dir} is complete but not evaluated; "
            f"evaluate it with: {command_line(cfg, '--resume')}")
        result.interrupted = True
        return result


def evaluate_run(cfg: dict, plan: RunPlan, ckpt_dir: Path, result: TrainResult, log) -> TrainResult:
    """The end of every training run (either backend): evaluate the new checkpoint as the config
    says, write ``evaluation.md``/``.json`` beside it, record the summary in its metadata, print the table."""
    ev = cfg["evaluation"]
    log(f"evaluating ({ev['games']} games per row) ...")
    rows = run_evaluation(evaluation_plan(cfg, plan.env_spec, f"checkpoint:{ckpt_dir}"), ev["games"], ev["seed"],
                          ev["workers"], ev["deterministic"], log, sweep=bool(ev["sweep"]))
    table = markdown_table(rows, ev["extras"])
    commands = "\n".join(reproduce_commands(cfg, plan, ckpt_dir, (result.metadata or {}).get("sessions")))
    (ckpt_dir / "evaluation.md").write_text(
        f"# Evaluation of {ckpt_dir}\n\n{ev['games']} seeded games per row (seeds {ev['seed']}..), "
        f"seats rotated; 95% confidence intervals.\n\n{table}\n\nReproduce (training, then each row):\n\n"
        f"```bash\n{commands}\n```\n", encoding="utf-8")
    summary = summary_json(rows)
    (ckpt_dir / "evaluation.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    result.metadata = ck.update_metadata(ckpt_dir, evaluation=summary)
    result.rows, result.table = rows, table
    log("")
    log(table)
    return result
