"""Ray RLlib as a second training backend (``python -m training train --backend rllib``).

The same validated config as the SB3 path (:func:`training.config.load_config`,
:func:`training.trainer.check_run`: the same errors, the same destination checks), trained with
RLlib's PPO (new API stack) and the masked module of :mod:`envs.integrations.rllib`, and saved as
a checkpoint in the project's own format, so ``evaluate``, ``tournament`` and ``watch`` play it
through ``actor.npz`` unchanged.

How the config maps:

* env: each RLlib env is :class:`ArenaMultiAgentEnv`, one copy of the bridge's own
  :class:`training.copies.CopyGroup` (one env copy): the other seats are played inside it by the
  project's frozen policies (``seats.others``: random, heuristic, noop, checkpoint:DIR), the
  learner's seats rotate per episode as ``seats.rotation`` says, the reward is the bridge's
  :class:`~training.copies.RewardRule` (team/own, scale, win bonus, loss penalty) and the
  observation is the bridge's encoded vector (:class:`training.obs.SeatEncoder`: normalised as
  ``training.normalize_observations`` says, seat one-hot), beside the action mask. RLlib sees
  only the learner slots (``learner_0`` ..), all mapped to one shared policy (a cooperative team:
  every seat).
* ``training.workers`` = the number of RLlib env runners (remote sampling actors; the driver
  learns); ``training.env_copies`` = env copies in all, ``ceil(env_copies / workers)`` per runner;
  ``total_timesteps`` (agent steps), ``seed``, ``torch_threads``, ``progress_bar`` (a line per
  iteration), ``checkpoint_every`` (saved at the first iteration end past each multiple).
* ``algorithm``: learning_rate -> lr, gamma, gae_lambda -> lambda_, clip_range -> clip_param,
  ent_coef -> entropy_coeff, vf_coef -> vf_loss_coeff, n_epochs -> num_epochs, batch_size ->
  minibatch_size, n_steps -> train_batch_size_per_learner = n_steps x env copies (RLlib counts a
  multi-agent batch in env steps: n_steps x env copies x learner seats agent steps, SB3's
  rollout), max_grad_norm -> grad_clip (global norm), net_arch/activation -> the
  module's fcnet_hiddens/fcnet_activation (separate actor and critic networks, as SB3's).
  RLlib's KL loss and value clipping, which SB3's PPO does not have, are off.
* keys with no RLlib meaning here (:data:`UNSUPPORTED`: ``target_kl``, ``normalize_advantage:
  false``, ``init_from``, ``device`` other than cpu, ``action_sampler`` other than exact,
  ``worker_timeout_s``) are refused by :func:`check_supported` before Ray starts.

At the end the trained module's actor (actor encoder + pi head) is written as ``actor.npz``
(:class:`training.actor.NumpyActor`), the whole module's weights as ``rllib_module.npz`` (plain
arrays, hashed in the metadata as its ``model_file``), and ``metadata.json`` with algorithm
``"rllib-ppo"``; then the config's evaluation runs and its table is printed as for SB3. RLlib's
own (pickled) checkpoints are never written or read. ``--resume`` of an RLlib-backend run reads
only ``rllib_module.npz`` (its hash verified, ``allow_pickle=False``, names and shapes checked)
and the counters in ``metadata.json``; the optimizer state (Adam moments) restarts.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import shutil
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Callable

import numpy as np

from envs.core.errors import ConfigError, KitchenArenaError
from envs.core.inputs import check_archive, first_line, loads_json, output_file_problem

from training import checkpoints as ck
from training.config import SCHEMA, public, to_yaml
from training.copies import POOL, BridgeSettings, CopyGroup

ALGORITHM = "rllib-ppo"
MODULE_FILE = "rllib_module.npz"
OPTIMIZER_FILE = "rllib_optimizer.npz"
POLICY_ID = "shared"
ENV_NAME = "kitchen_arena/training_bridge"
_ENV_COUNTER = itertools.count()
#: every bridge env alive in this process (the driver or one env runner): the self-play pool's
#: snapshots reach them through :func:`_add_snapshot_here`
_LIVE_ENVS: "weakref.WeakSet" = weakref.WeakSet()
EPISODES_KEY = "kitchen_arena/episodes"

#: config keys with no RLlib meaning in this backend (yet): key -> why
UNSUPPORTED = {
    "algorithm.target_kl": "SB3's early stop of an update has no RLlib PPO counterpart",
    "algorithm.normalize_advantage": "RLlib's PPO always standardises advantages",
    "training.device": "the RLlib backend learns on the CPU only",
    "training.action_sampler": "RLlib's PPO draws its actions with its own distribution classes",
    "training.init_from": "starting from an SB3 checkpoint's weights is the SB3 backend's (its module is another network)",
    "training.worker_timeout_s": "it stops the SB3 bridge's worker processes; RLlib's env runners have their own "
                                 "timeouts",
}


# ---------------------------------------------------------------------- config checks
def _defaults() -> dict:
    return SCHEMA.defaults()


def _diff_keys(section: str, cfg: dict) -> list[str]:
    d = _defaults()[section]
    return [f"{section}.{k}" for k, v in cfg[section].items() if v != d[k]]


def check_supported(cfg: dict, plan: Any, resume: bool = False, address: str | None = None) -> None:
    """ConfigError naming the first key that the RLlib backend cannot honour (before Ray starts)."""

    def refuse(key: str, value: Any, why: str) -> None:
        raise ConfigError(f"config key {key}: {value!r} is not supported by the RLlib backend (yet): {why}; "
                          f"remove it or train with --backend sb3")

    check_address(address)
    a, t = cfg["algorithm"], cfg["training"]
    if a["target_kl"] is not None:
        refuse("algorithm.target_kl", a["target_kl"], UNSUPPORTED["algorithm.target_kl"])
    if not a["normalize_advantage"]:
        refuse("algorithm.normalize_advantage", False, UNSUPPORTED["algorithm.normalize_advantage"])
    if t["init_from"] is not None:
        refuse("training.init_from", t["init_from"], UNSUPPORTED["training.init_from"])
    if t["device"] != "cpu":
        refuse("training.device", t["device"], UNSUPPORTED["training.device"])
    if t["action_sampler"] != "exact":
        refuse("training.action_sampler", t["action_sampler"], UNSUPPORTED["training.action_sampler"])
    if t["worker_timeout_s"] is not None:
        refuse("training.worker_timeout_s", t["worker_timeout_s"], UNSUPPORTED["training.worker_timeout_s"])
    runners, per = env_runner_layout(cfg)
    most = ck.MAX_SEED - runners * per  # RLlib seeds runner w with seed + w, and its copy i with that + i
    if t["seed"] is not None and t["seed"] > most:
        raise ConfigError(f"config key training.seed: {t['seed']} is not allowed with the RLlib backend and "
                          f"{runners} env runner(s) x {per} copies: RLlib seeds each runner and copy with the seed "
                          f"plus its index, which must stay within 2**32 - 1; allowed: 0..{most}")
    if resume and ck.is_checkpoint(plan.checkpoint_dir):
        meta = ck.read_metadata(plan.checkpoint_dir)
        if meta["algorithm"] != ALGORITHM:
            raise ConfigError(f"--resume: {plan.checkpoint_dir} was trained with {meta['algorithm']!r}, not by the "
                              f"RLlib backend ({ALGORITHM!r}); resume it with --backend sb3")
        ck.verify_file(plan.checkpoint_dir, meta)  # a changed or truncated file is refused before Ray starts


def env_runner_layout(cfg: dict) -> tuple[int, int]:
    """``(num_env_runners, num_envs_per_env_runner)`` of a config."""
    t = cfg["training"]
    runners = int(t["workers"])
    return runners, max(1, math.ceil(int(t["env_copies"]) / runners))


def describe(cfg: dict, plan: Any, address: str | None = None) -> str:
    runners, per = env_runner_layout(cfg)
    a = cfg["algorithm"]
    env_steps = a["n_steps"] * runners * per
    batch = env_steps * plan.learners
    return "\n".join([
        f"backend      RLlib PPO (new API stack) on {'the Ray cluster at ' + address if address else 'a local Ray instance'}",
        f"sampling     {runners} env runner(s) x {per} env copies x {plan.learners} learner slot(s); "
        f"train batch {batch:,} agent steps, minibatch {minibatch(a['batch_size'], env_steps)}, "
        f"{a['n_epochs']} epoch(s)",
    ])


def minibatch(batch_size: int, env_steps: int) -> int:
    """RLlib's ``minibatch_size``: ``algorithm.batch_size``, at most the train batch RLlib compares
    it with (``train_batch_size_per_learner``, in env steps). Bounded by the agent steps
    instead, a cooperative game's minibatch could exceed it, and ``build_algo`` then failed with
    RLlib's traceback after ``--dry-run`` had called the config valid."""
    return min(int(batch_size), int(env_steps))


_ADDRESS = re.compile(r"(?:ray://)?\[?[A-Za-z0-9_.:-]+?\]?:(\d{1,5})")


def check_address(address: str | None) -> None:
    """``--address``: None (a local instance), ``auto`` or ``[ray://]HOST:PORT``; anything else (an
    empty string started a local instance unannounced) is a ConfigError."""
    if address is None or address == "auto":
        return
    m = _ADDRESS.fullmatch(address)
    if not m or not 1 <= int(m.group(1)) <= 65535:
        raise ConfigError(f"--address {address!r} is not allowed; allowed: HOST:PORT of a Ray cluster's head (what "
                          f"`ray start --head` prints, e.g. 10.0.0.5:6379), ray://HOST:PORT, or auto")


def probe_address(address: str, timeout_s: float = 10.0) -> None:
    """A TCP connection to ``HOST:PORT`` within ``timeout_s`` before ``ray.init``, which retries a
    cluster that is not there for ever (a run waited until it was killed)."""
    import socket

    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise KitchenArenaError(f"--address {address!r}: could not connect to a Ray cluster there within "
                                f"{timeout_s:g} s ({e.strerror or e}); start one with `ray start --head` and give the "
                                f"address it prints") from None


# ---------------------------------------------------------------------- the env
def _gym():
    import gymnasium as gym

    return gym


def _env_class():
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    gym = _gym()

    class ArenaMultiAgentEnv(MultiAgentEnv):
        """One bridge copy (:class:`~training.copies.CopyGroup` of one env) as an RLlib
        ``MultiAgentEnv``: the agents are the learner slots ``learner_0`` .. (the seats they
        sit in rotate per episode; the seat is in the observation's one-hot), every other seat
        is played inside. Observations: ``{"observation": the bridge's encoded vector,
        "action_mask": int8}``."""

        def __init__(self, config: Any = None):
            super().__init__()
            config = config or {}
            settings: BridgeSettings = config["settings"]
            worker = int(getattr(config, "worker_index", 0) or 0)
            self.copy_index = worker * 10_000 + next(_ENV_COUNTER)
            self.group = CopyGroup(settings, [self.copy_index])
            enc = self.group.encoder
            self.possible_agents = [f"learner_{j}" for j in range(self.group.k)]
            self.agents = list(self.possible_agents)
            space = gym.spaces.Dict({
                "observation": enc.space,
                "action_mask": gym.spaces.Box(0, 1, (enc.n_actions,), np.int8),
            })
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: gym.spaces.Discrete(enc.n_actions) for a in self.possible_agents}
            self._noop = np.zeros(enc.n_actions, dtype=np.int8)
            self._noop[0] = 1
            self._pending = None
            # as the trainer's plan says: only a game with seats beside the learner's draws from the pool
            self.uses_pool = POOL in settings.seating.others and self.group.k < len(self.group.agents)
            for name, state in config.get("pool") or ():  # the pool as it was when this runner was (re)built
                self.group.add_snapshot(name, state)
            _LIVE_ENVS.add(self)

        def _obs(self, obs: np.ndarray, masks: np.ndarray) -> dict:
            return {a: {"observation": obs[j], "action_mask": masks[j].astype(np.int8)}
                    for j, a in enumerate(self.agents)}

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            if self.uses_pool and not self.group.pool:
                raise KitchenArenaError("the self-play pool of this env runner is empty: the driver adds the "
                                        "learner's first snapshot before sampling starts")
            if seed is not None or self._pending is None:
                obs, masks = self.group.reset([int(seed)] if seed is not None else None)
            else:  # the bridge has already dealt the next game (its own generator continues)
                obs, masks = self._pending
            self._pending = None
            return self._obs(obs, masks), {a: {} for a in self.agents}

        def step(self, action_dict: dict):
            actions = np.asarray([int(action_dict.get(a, 0)) for a in self.agents], dtype=np.int64)
            obs, rewards, dones, infos, masks = self.group.step(actions)
            rew = {a: float(rewards[j]) for j, a in enumerate(self.agents)}
            if not dones[0]:
                false = {a: False for a in self.agents}
                return (self._obs(obs, masks), rew, {**false, "__all__": False}, {**false, "__all__": False},
                        {a: {} for a in self.agents})
            self._pending = (obs, masks)
            terminated = not infos[0]["TimeLimit.truncated"]
            last = {a: {"observation": infos[j]["terminal_observation"].astype(np.float32), "action_mask": self._noop}
                    for j, a in enumerate(self.agents)}
            info = {a: {"win": float(infos[j]["win"]), "score": float(infos[j]["score"])}
                    for j, a in enumerate(self.agents)}
            return (last, rew, {**{a: terminated for a in self.agents}, "__all__": terminated},
                    {**{a: not terminated for a in self.agents}, "__all__": not terminated}, info)

    return ArenaMultiAgentEnv


def _make_env(config: Any):
    return _env_class()(config)


def _add_snapshot_here(name: str, state: dict, env_runner: Any = None) -> int:
    """Add a frozen learner snapshot to the pool of every bridge env in this process; how many."""
    envs_here = list(_LIVE_ENVS)
    for env in envs_here:
        if env.uses_pool:
            env.group.add_snapshot(name, state)
    return len(envs_here)


def _on_episode_end(*, episode: Any, metrics_logger: Any = None, prev_episode_chunks: list | None = None,
                    **kwargs: Any) -> None:
    """RLlib callback: one ``(return, win, score, length)`` item per finished game, as the SB3
    backend's :class:`training.callbacks.EpisodeStatsCallback` records (the first learner slot's)."""
    if metrics_logger is None:
        return
    infos = episode.get_infos(-1)
    info = infos.get("learner_0") if isinstance(infos, dict) else None
    if not info or "win" not in info:
        return  # cut by the rollout fragment, not a finished game
    chunks = [c.agent_episodes["learner_0"] for c in [*(prev_episode_chunks or []), episode]
              if "learner_0" in c.agent_episodes]  # a game cut by rollout fragments arrives in chunks
    metrics_logger.log_value(EPISODES_KEY, (float(sum(c.get_return() for c in chunks)), float(info["win"]),
                                            float(info["score"]), int(sum(len(c) for c in chunks))),
                             reduce="item_series")


def _map_to_shared(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    return POLICY_ID


def learning_rate(cfg: dict, plan: Any, done: int = 0) -> float | list:
    """RLlib's ``lr``: the constant, or SB3's linear schedule ``lr x (1 - agent steps / total)`` as
    RLlib's piecewise-linear ``[[env steps, lr], ...]`` over this run's env steps (one env step =
    one agent step per learner slot), from where a resumed run ``done`` agent steps in continues."""
    a, total = cfg["algorithm"], int(cfg["training"]["total_timesteps"])
    lr = float(a["learning_rate"])
    if a["lr_schedule"] == "constant":
        return lr
    left = max(0, total - int(done))
    return [[0, lr * left / total], [max(1, math.ceil(left / plan.learners)), 0.0]]


def build_config(cfg: dict, plan: Any, pool: list | None = None, done: int = 0):
    """The RLlib ``PPOConfig`` of a (checked) config; ``pool``: ``(name, actor state)`` snapshots
    every env starts with (the self-play pool); ``done``: agent steps a resumed run has behind it."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.tune.registry import register_env

    from envs.integrations.rllib import module_spec

    register_env(ENV_NAME, _make_env)
    a, t = cfg["algorithm"], cfg["training"]
    runners, per = env_runner_layout(cfg)
    batch = a["n_steps"] * runners * per  # env steps (x learner slots = agent steps)
    config = (
        PPOConfig()
        .framework("torch")
        .environment(ENV_NAME, env_config={"settings": plan.settings, "pool": list(pool or ())},
                     disable_env_checking=True)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=per, rollout_fragment_length="auto",
                     num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=_map_to_shared)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY_ID: module_spec(list(a["net_arch"]), a["activation"])}))
        .training(lr=learning_rate(cfg, plan, done), gamma=a["gamma"], lambda_=a["gae_lambda"], clip_param=a["clip_range"],
                  entropy_coeff=a["ent_coef"], vf_loss_coeff=a["vf_coef"], num_epochs=a["n_epochs"],
                  minibatch_size=minibatch(a["batch_size"], batch), train_batch_size_per_learner=batch,
                  grad_clip=a["max_grad_norm"], grad_clip_by="global_norm", use_kl_loss=False,
                  vf_clip_param=1e10)
        .debugging(seed=t["seed"])
        .callbacks(on_episode_end=_on_episode_end)
        # an env runner that fails fails the command (RLlib's default restarts it forever)
        .fault_tolerance(restart_failed_env_runners=False, ignore_env_runner_failures=False)
    )
    return config


# ---------------------------------------------------------------------- export
def module_state(module: Any) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def actor_of(module: Any):
    """The module's actor (its actor encoder's MLP, then the pi head) as a :class:`NumpyActor`."""
    import torch.nn as nn

    from training.actor import NumpyActor

    enc = module.encoder
    actor_net = getattr(enc, "actor_encoder", enc)
    layers, activation = [], None
    for m in actor_net.modules():
        if isinstance(m, nn.Linear):
            layers.append((m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()))
        elif type(m).__name__ in ("Tanh", "ReLU"):
            if activation not in (None, type(m).__name__):
                raise ValueError("mixed activations are not supported")
            activation = type(m).__name__
        elif isinstance(m, (nn.Sequential, nn.Identity)) or m is actor_net or not list(m.parameters()):
            continue
        elif not list(m.children()):
            raise ValueError(f"cannot export a {type(m).__name__} of the actor encoder to numpy")
    heads = [m for m in module.pi.modules() if isinstance(m, nn.Linear)]
    if len(heads) != 1:
        raise ValueError(f"the pi head has {len(heads)} linear layers; only a single linear head is exported")
    head = (heads[0].weight.detach().cpu().numpy().copy(), heads[0].bias.detach().cpu().numpy().copy())
    return NumpyActor(layers, activation or "Tanh", head)


def save_rllib_checkpoint(directory: str | Path, module: Any, plan: Any, cfg: dict, *, timesteps: int,
                          iterations: int, episodes: int, complete: bool, extra: dict | None = None) -> dict:
    """``actor.npz`` + ``rllib_module.npz`` + ``metadata.json`` in the project's format."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    actor = actor_of(module)
    tmp = d / (ck.ACTOR_FILE + ".tmp")
    actor.save_npz(tmp)
    os.replace(tmp, d / ck.ACTOR_FILE)
    tmp = d / (MODULE_FILE + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **module_state(module))
    os.replace(tmp, d / MODULE_FILE)
    t = cfg["training"]
    hyper = dict(cfg["algorithm"])
    meta = {"format": ck.FORMAT, "format_version": ck.FORMAT_VERSION}
    meta.update(ck.env_description(plan.env_spec, t["normalize_observations"]))
    meta.update({
        "algorithm": ALGORITHM,
        "hyperparameters": hyper,
        "policy_kwargs": {"net_arch": list(hyper["net_arch"]), "activation": hyper["activation"]},
        "timesteps": int(timesteps),
        "counters": {"num_timesteps": int(timesteps), "n_updates": int(iterations), "episode_num": int(episodes)},
        "seed": t["seed"],
        "complete": bool(complete),
        "versions": _versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "training_config": public(cfg),
        "evaluation": None,
        "model_file": MODULE_FILE,
        "model_sha256": ck.sha256_of(d / MODULE_FILE),
        "actor_file": ck.ACTOR_FILE,
        "actor_sha256": ck.sha256_of(d / ck.ACTOR_FILE),
        "backend": "rllib",
        "description": cfg.get("description"),
        "learner_seats": plan.learners,
        "reward": plan.reward_mode,
        "kind": "cooperative" if plan.cooperative else "competitive",
        "pretrain": None,
    })
    meta.update(extra or {})
    text = json.dumps(meta, indent=2) + "\n"
    tmp = d / (ck.METADATA_FILE + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, d / ck.METADATA_FILE)
    tmp = d / "config.yaml.tmp"
    tmp.write_text(to_yaml(cfg), encoding="utf-8")
    tmp.replace(d / "config.yaml")
    return meta


def _linears(module: Any) -> list:
    import torch.nn as nn

    return [m for m in module.modules() if isinstance(m, nn.Linear)]


def sb3_policy_to_module_state(policy: Any, module: Any) -> dict:
    """The weights of an SB3 ``MlpPolicy`` (separate actor and critic MLPs, as the bridge builds
    them) in the RLlib module's names: actor MLP -> ``encoder.actor_encoder``, ``action_net`` ->
    ``pi``, critic MLP -> ``encoder.critic_encoder``, ``value_net`` -> ``vf``; layer by layer, every
    shape checked. Used to start RLlib PPO from the behaviour-cloned policy of ``pretrain``."""
    import torch

    enc = module.encoder
    pairs = [(policy.mlp_extractor.policy_net, enc.actor_encoder), (policy.action_net, module.pi),
             (policy.mlp_extractor.value_net, enc.critic_encoder), (policy.value_net, module.vf)]
    state = {k: v.detach().clone() for k, v in module.state_dict().items()}
    names = {id(p): n for n, p in module.named_parameters()}
    for src, dst in pairs:
        a, b = _linears(src), _linears(dst)
        if len(a) != len(b):
            raise ValueError(f"the SB3 policy has {len(a)} linear layers where the RLlib module has {len(b)}")
        for la, lb in zip(a, b):
            for pa, pb in ((la.weight, lb.weight), (la.bias, lb.bias)):
                if tuple(pa.shape) != tuple(pb.shape):
                    raise ValueError(f"layer shapes differ: SB3 {tuple(pa.shape)} vs RLlib {tuple(pb.shape)}")
                state[names[id(pb)]] = pa.detach().cpu().clone().to(torch.float32)
    return state


def save_optimizer_state(directory: Path, learner_group: Any) -> tuple[str, str]:
    """The learner's optimizer state (Adam's moments and step counts) as plain arrays in
    ``rllib_optimizer.npz``: ``<optimizer>/state/<param>/<name>`` arrays and, per optimizer, its
    ``module_id`` and JSON ``param_groups`` as strings. Returns (file, sha256)."""
    state = learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
    arrays: dict[str, np.ndarray] = {}
    for opt_name, opt in state.items():
        arrays[f"{opt_name}/module_id"] = np.asarray(str(opt["module_id"]))
        arrays[f"{opt_name}/param_groups"] = np.asarray(json.dumps(opt["state"]["param_groups"]))
        for idx, entries in opt["state"]["state"].items():
            for k, v in entries.items():
                arrays[f"{opt_name}/state/{int(idx)}/{k}"] = np.asarray(v)
    tmp = directory / (OPTIMIZER_FILE + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
    os.replace(tmp, directory / OPTIMIZER_FILE)
    return OPTIMIZER_FILE, ck.sha256_of(directory / OPTIMIZER_FILE)


def load_optimizer_state(directory: Path, meta: dict, learner_group: Any, module: Any) -> dict:
    """The optimizer state of ``rllib_optimizer.npz`` (its SHA-256 checked against the metadata,
    ``allow_pickle=False``), checked against the learner's own optimizer (names, parameter count,
    shapes), in the structure ``learner_group.set_state`` takes."""
    d = Path(directory)
    path = ck.contained_file(d, meta["optimizer_file"], "optimizer file")
    where = f"checkpoint {str(d)!r}: {meta['optimizer_file']}"
    if not path.is_file():
        raise ck.CheckpointError(f"{where} is listed in the metadata but missing")
    digest = ck.sha256_of(path)
    if digest != meta.get("optimizer_sha256"):
        raise ck.CheckpointError(f"{where} is corrupt or was modified: its SHA-256 is {digest[:16]}..., the metadata "
                                 f"records {str(meta.get('optimizer_sha256'))[:16]}...; refusing to load it")
    check_archive(path, where, ck.CheckpointError)
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as e:  # noqa: BLE001
        raise ck.CheckpointError(f"{where} does not load: {e}") from e
    current = learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
    out: dict = {}
    try:
        for opt_name, opt in current.items():
            groups = [{k: tuple(v) if isinstance(v, list) and k != "params" else v for k, v in g.items()}
                      for g in loads_json(str(arrays[f"{opt_name}/param_groups"]), f"{opt_name}/param_groups",
                                          ValueError)]  # JSON made Adam's betas a list
            entries: dict = {}
            prefix = f"{opt_name}/state/"
            for key, v in arrays.items():
                if key.startswith(prefix):
                    idx, name = key[len(prefix):].split("/", 1)
                    entries.setdefault(int(idx), {})[name] = float(v) if v.ndim == 0 and name == "step" else v
            shapes = [tuple(p.shape) for p in module.parameters()]  # the optimizer's parameters, in order
            for i, e in entries.items():
                if not 0 <= i < len(shapes) or any(np.shape(v) not in ((), shapes[i]) for v in e.values()):
                    raise ValueError(f"the optimizer state of parameter {i} does not fit the module the config builds")
            if len(groups) != len(opt["state"]["param_groups"]):
                raise ValueError(f"{len(groups)} parameter groups, the learner's optimizer has "
                                 f"{len(opt['state']['param_groups'])}")
            out[opt_name] = {"module_id": str(arrays[f"{opt_name}/module_id"]),
                             "state": {"state": entries, "param_groups": groups}}
    except (KeyError, ValueError, json.JSONDecodeError) as e:
        raise ck.CheckpointError(f"{where}: {e}; resume with the same algorithm section") from e
    if set(k.split("/", 1)[0] for k in arrays) != set(current):
        raise ck.CheckpointError(f"{where} holds optimizers {sorted(set(k.split('/', 1)[0] for k in arrays))}, "
                                 f"the learner has {sorted(current)}")
    return out


def load_module_state(directory: str | Path, meta: dict, module: Any) -> dict:
    """The module weights of an RLlib-backend checkpoint (``rllib_module.npz``, its hash verified,
    plain arrays read with ``allow_pickle=False``), checked against ``module``'s own names and
    shapes; torch tensors ready for ``load_state_dict``."""
    import torch

    d = Path(directory)
    ck.verify_file(d, meta)
    path = ck.contained_file(d, meta["model_file"], "model file")
    check_archive(path, f"checkpoint {str(d)!r}: {meta['model_file']}", ck.CheckpointError)
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as e:  # noqa: BLE001
        raise ck.CheckpointError(f"checkpoint {str(d)!r}: {meta['model_file']} does not load: {e}") from e
    want = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    have = {k: tuple(v.shape) for k, v in arrays.items()}
    if want != have:
        diff = sorted(set(want) ^ set(have)) or sorted(k for k in want if want[k] != have[k])
        raise ck.CheckpointError(f"checkpoint {str(d)!r}: {meta['model_file']} does not fit the module the config "
                                 f"builds (differing entries: {diff[:4]}); resume with the same algorithm section")
    want_types = {k: v.dtype for k, v in module.state_dict().items()}
    for k, v in arrays.items():  # (NaN, 1e300 in float64, int, bool and complex arrays had loaded)
        if v.dtype.kind != "f" or str(v.dtype) != str(want_types[k]).removeprefix("torch."):
            raise ck.CheckpointError(f"checkpoint {str(d)!r}: {meta['model_file']}: {k!r} holds {v.dtype} values; "
                                     f"allowed: {str(want_types[k]).removeprefix('torch.')}, as the module's")
        if not np.isfinite(v).all():
            raise ck.CheckpointError(f"checkpoint {str(d)!r}: {meta['model_file']}: {k!r} holds non-finite values "
                                     f"(NaN or infinity); a checkpoint's weights are finite numbers")
    return {k: torch.as_tensor(v) for k, v in arrays.items()}


def _versions() -> dict:
    import ray

    try:
        v = ck.library_versions()
    except ImportError:
        v = {}
    v["ray"] = ray.__version__
    return v


# ---------------------------------------------------------------------- training
def _lifetime(result: dict, key: str) -> int:
    v = (result.get("env_runners") or {}).get(key, 0)
    if isinstance(v, dict):
        v = sum(v.values())
    return int(v or 0)


def _ray_logs() -> str:
    try:
        import ray

        return str(Path(ray._private.worker._global_node.get_session_dir_path()) / "logs")
    except Exception:  # noqa: BLE001 - a private path; the default place otherwise
        return "/tmp/ray/session_latest/logs"


def _learner_module(algo: Any) -> Any:
    """The module as the learner holds it (the driver's copy, synchronised inference-only after each
    iteration, has a stale critic): the learner's weights loaded into that copy."""
    import torch

    module = algo.get_module(POLICY_ID)
    weights = algo.learner_group.get_weights(module_ids=[POLICY_ID])[POLICY_ID]
    module.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in weights.items()}, strict=True)
    return module


def _snapshot_everywhere(algo: Any, name: str, state: dict) -> None:
    """Add a snapshot to the self-play pool of every env on every env runner (and the driver's)."""
    from functools import partial

    counts = algo.env_runner_group.foreach_env_runner(partial(_add_snapshot_here, name, state),
                                                      local_env_runner=True)
    if not sum(int(c or 0) for c in counts):
        raise KitchenArenaError("the self-play snapshot reached no env: no env runner holds a bridge env")


def _pretrain_sb3(cfg: dict, plan: Any, log: Callable[[str], None]) -> tuple[Any, dict]:
    """Behaviour cloning exactly as the SB3 backend does it (:func:`training.pretrain.pretrain`, on
    an SB3 ``MaskablePPO`` policy of the same architecture in the same bridge); returns the fitted
    policy and the summary recorded in the metadata. Its ``pretrain/*`` TensorBoard scalars go to
    the run directory."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from training.pretrain import pretrain
    from training.trainer import _ppo_kwargs
    from training.vec_env import MultiAgentVecEnv

    t = cfg["training"]
    venv = MultiAgentVecEnv(plan.settings, t["env_copies"], 1)
    try:
        kwargs, policy_kwargs = _ppo_kwargs(cfg)
        model = MaskablePPO("MlpPolicy", venv, seed=t["seed"], device="cpu", verbose=0, policy_kwargs=policy_kwargs,
                            **kwargs)
        model.set_logger(configure(str(plan.run_dir), ["tensorboard"]))
        summary = pretrain(model, plan.settings, cfg, log)
        model.logger.close()
        return model.policy, summary
    finally:
        venv.close()


def _games(value: Any) -> list[tuple]:
    """The ``(return, win, score, length)`` games of one iteration (RLlib reduces a series of one
    item to the item itself)."""
    if value is None or len(value) == 0:
        return []
    if isinstance(value[0], (int, float, np.number)):
        return [tuple(value)]
    return [tuple(g) for g in value]


def _record(logger: Any, result: dict, episodes: list[tuple], pool: int | None, rate: float, steps: int) -> None:
    """One TensorBoard record per iteration, under the SB3 backend's tags where they mean the same."""
    if episodes:
        arr = np.asarray(episodes, dtype=np.float64)
        logger.record("rollout/ep_rew_mean", float(arr[:, 0].mean()))
        logger.record("rollout/win_rate", float(arr[:, 1].mean()))
        logger.record("rollout/score", float(arr[:, 2].mean()))
        logger.record("rollout/ep_len_mean", float(arr[:, 3].mean()))
    learner = ((result.get("learners") or {}).get(POLICY_ID)) or {}
    for ours, theirs in (("policy_gradient_loss", "policy_loss"), ("value_loss", "vf_loss"),
                         ("entropy_loss", "entropy"), ("explained_variance", "vf_explained_var"),
                         ("loss", "total_loss"), ("learning_rate", "default_optimizer_learning_rate")):
        v = learner.get(theirs)
        if isinstance(v, (int, float, np.floating)) and not math.isnan(float(v)):
            logger.record(f"train/{ours}", -float(v) if ours == "entropy_loss" else float(v))
    logger.record("time/fps", rate)
    if pool is not None:
        logger.record("self_play/pool_size", pool)
    logger.dump(step=steps)


def train_rllib(cfg: dict, address: str | None = None, resume: bool = False, overwrite: bool = False,
                log: Callable[[str], None] = print, num_cpus: int | None = None):
    """Train ``cfg`` (validated) with RLlib; returns a :class:`training.trainer.TrainResult`.

    Everything is checked before Ray starts (:func:`training.trainer.check_run`, then
    :func:`check_supported`, the hashes of a resumed run's files and its self-play pool). Without
    ``address`` a local Ray instance is started and shut down; with one, the command connects to
    that cluster and disconnects at the end."""
    from training.trainer import check_run, run_lock

    cfg["_backend"] = "rllib"  # (the commands the run prints, to resume or reproduce it, name the backend)
    plan, resumed = check_run(cfg, resume, overwrite)
    check_supported(cfg, plan, resume, address)
    with run_lock(plan):  # as the SB3 backend: one train of a run name at a time
        plan, resumed = check_run(cfg, resume, overwrite)  # again, now that no other run can be writing it
        return _train_rllib_locked(cfg, plan, resumed, address, resume, overwrite, log, num_cpus)


def _train_rllib_locked(cfg: dict, plan: Any, resumed: dict | None, address: str | None, resume: bool,
                        overwrite: bool, log: Callable[[str], None], num_cpus: int | None):
    from stable_baselines3.common.logger import configure

    from training.obs import SeatEncoder
    from training.plotting import plot_curve, read_curve, write_curve
    from training.pool import SnapshotStore
    from training.trainer import TrainResult, _evaluate_or_stop

    ckpt_dir, run_dir = plan.checkpoint_dir, plan.run_dir
    if (resumed is not None and int(resumed["timesteps"]) >= cfg["training"]["total_timesteps"]
            and resumed.get("complete") and resumed.get("evaluation") is None):
        # stopped during its final evaluation (Ctrl-C): the checkpoint is complete, evaluate it alone
        log(f"{ckpt_dir} is complete with no evaluation (the last run was stopped during it): evaluating it")
        return _evaluate_or_stop(cfg, plan, ckpt_dir, TrainResult(ckpt_dir, resumed, False, 0.0), log)
    if resumed is not None and int(resumed["timesteps"]) >= cfg["training"]["total_timesteps"]:
        log(f"nothing to do: {ckpt_dir} already has {int(resumed['timesteps']):,} timesteps "
            f"(training.total_timesteps is {cfg['training']['total_timesteps']:,}); nothing was changed. "
            f"To train further, raise it: --set training.total_timesteps=N --resume")
        return TrainResult(ckpt_dir, resumed, False, 0.0)
    import ray
    import torch

    t, sp = cfg["training"], cfg["self_play"]
    torch.set_num_threads(t["torch_threads"])
    store, restored = None, []
    if plan.uses_pool:
        enc = SeatEncoder.for_env(plan.env_spec.make(), plan.settings.normalize)
        store = SnapshotStore(run_dir / "pool", sp["pool_size"], enc.size, enc.n_actions)
        if resumed is not None:
            restored = [(f"snapshot@{n}", a.state())  # verified before Ray starts
                        for n, a in store.restore(int(resumed["timesteps"]))]
    if resumed is not None and resumed.get("optimizer_file"):
        ck.contained_file(ckpt_dir, resumed["optimizer_file"], "optimizer file")
    log(plan.describe())
    log(describe(cfg, plan, address))
    runners, _ = env_runner_layout(cfg)
    if address:
        probe_address(address)
        try:
            ray.init(address=address, log_to_driver=False)  # an existing cluster: its resources are its own
        except (ConnectionError, RuntimeError) as e:
            raise KitchenArenaError(f"--address {address!r}: could not connect to a Ray cluster there "
                                    f"({type(e).__name__}: {first_line(e)}); start one "
                                    f"with `ray start --head` and give the address it prints") from e
    else:
        # address="local": always a new instance of our own, never a cluster found on the machine
        ray.init(address="local", num_cpus=num_cpus or runners + 1, include_dashboard=False, log_to_driver=False)
    algo = None
    t0 = time.perf_counter()
    interrupted = False
    curve: list[tuple] = read_curve(ckpt_dir / "curve.csv") if resumed is not None else []
    try:
        algo = build_config(cfg, plan, restored, int(resumed["timesteps"]) if resumed is not None else 0).build_algo()
        module = algo.get_module(POLICY_ID)
        base = {"steps": 0, "episodes": 0, "iterations": 0, "seconds": 0.0}
        pretrained = None
        if overwrite:  # only now, with everything checked and built: the old run goes
            for p in (ckpt_dir, run_dir):
                if p.is_dir():
                    shutil.rmtree(p)
        weights, restored_from = None, None
        if resumed is not None:
            weights = load_module_state(ckpt_dir, resumed, module)
            restored_from = "module weights from " + resumed["model_file"]
            pretrained = resumed.get("pretrain")
        elif cfg["pretrain"]["steps"] > 0:
            try:
                policy, pretrained = _pretrain_sb3(cfg, plan, log)
            except KeyboardInterrupt:
                log("interrupted during behaviour cloning: nothing was saved (no PPO step yet)")
                return TrainResult(ckpt_dir, {}, True, time.perf_counter() - t0)
            weights = sb3_policy_to_module_state(policy, module)
            log(f"behaviour-cloned weights loaded into the RLlib module ({len(weights)} tensors)")
        if weights is not None:
            algo.learner_group.set_weights({POLICY_ID: weights})
            if resumed is not None and resumed.get("optimizer_file"):
                algo.learner_group.set_state({"learner": {"optimizer": load_optimizer_state(
                    ckpt_dir, resumed, algo.learner_group, module)}})
                restored_from += " and the optimizer state from " + resumed["optimizer_file"]
            algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                               inference_only=True, timeout_seconds=60.0)
            got = algo.learner_group.get_weights(module_ids=[POLICY_ID])[POLICY_ID]
            bad = [k for k, v in weights.items() if not np.array_equal(np.asarray(got[k]), v.numpy())]
            if bad:
                raise ck.CheckpointError(f"the weights of {restored_from or 'behaviour cloning'} did not reach the "
                                         f"learner ({bad[:4]})")
        if resumed is not None:
            c = resumed.get("counters") or {}
            base = {"steps": int(resumed["timesteps"]), "episodes": int(c.get("episode_num", 0)),
                    "iterations": int(c.get("n_updates", 0)), "seconds": float(resumed.get("training_seconds") or 0)}
            log(f"resuming from {ckpt_dir} at {base['steps']:,} agent steps ({restored_from}"
                + (f"; {len(restored)} self-play snapshot(s)" if store is not None else "") + ")")
        steps, episodes, iterations = base["steps"], base["episodes"], base["iterations"]
        pool_size = len(restored)
        next_snapshot = None
        if store is not None:
            if not restored:  # the learner's first weights (cloned ones after pretrain) start the pool
                actor = actor_of(_learner_module(algo))
                _snapshot_everywhere(algo, f"snapshot@{steps}", actor.state())
                store.save(steps, actor)
                pool_size = 1
            next_snapshot = steps + int(sp["snapshot_every"])
        run_dir.mkdir(parents=True, exist_ok=True)
        logger = configure(str(run_dir), ["tensorboard"])
        t_train = time.perf_counter()
        every = int(t["checkpoint_every"])
        next_save = (steps // every + 1) * every if every else None

        def save(complete: bool) -> dict:
            seconds = time.perf_counter() - t_train
            ckpt_dir.mkdir(parents=True, exist_ok=True)
            opt_file, opt_sha = save_optimizer_state(ckpt_dir, algo.learner_group)
            return save_rllib_checkpoint(
                ckpt_dir, _learner_module(algo), plan, cfg, timesteps=steps, iterations=iterations,
                episodes=episodes, complete=complete,
                extra={"training_seconds": round(base["seconds"] + time.perf_counter() - t0, 1),
                       "steps_per_second": round((steps - base["steps"]) / max(1e-9, seconds), 1),
                       "pretrain": pretrained, "optimizer_file": opt_file, "optimizer_sha256": opt_sha,
                       "rllib": {"num_env_runners": runners, "num_envs_per_env_runner": env_runner_layout(cfg)[1],
                                 "address": address or None}})

        try:
            while steps < t["total_timesteps"]:
                try:
                    result = algo.train()
                except ray.exceptions.RayError as e:
                    raise KitchenArenaError(
                        f"an RLlib env runner failed while sampling ({type(e).__name__}); the traceback is in the "
                        f"Ray worker logs (worker-*.err under {_ray_logs()}); the last checkpoint, if any, is "
                        f"unchanged") from e
                iterations += 1
                steps = base["steps"] + _lifetime(result, "num_agent_steps_sampled_lifetime")
                episodes = base["episodes"] + _lifetime(result, "num_episodes_lifetime")
                games = _games((result.get("env_runners") or {}).get(EPISODES_KEY))
                curve += [(int(steps), float(g[0]), float(g[1]), float(g[2]), int(g[3])) for g in games]
                rate = (steps - base["steps"]) / max(1e-9, time.perf_counter() - t_train)
                if next_snapshot is not None and steps >= next_snapshot:
                    actor = actor_of(_learner_module(algo))
                    _snapshot_everywhere(algo, f"snapshot@{steps}", actor.state())
                    store.save(steps, actor)
                    pool_size = min(pool_size + 1, int(sp["pool_size"]))
                    next_snapshot = steps + int(sp["snapshot_every"])
                _record(logger, result, games, pool_size if store is not None else None, rate, steps)
                if t["progress_bar"]:
                    ret = (result.get("env_runners") or {}).get("episode_return_mean")
                    log(f"  iteration {iterations}: {steps:,}/{t['total_timesteps']:,} agent steps "
                        f"({rate:,.0f}/s), episodes {episodes:,}"
                        + (f", mean return {ret:.3g}" if isinstance(ret, (int, float)) and not math.isnan(ret) else ""))
                if next_save is not None and steps >= next_save and steps < t["total_timesteps"]:
                    save(False)  # training.checkpoint_every: at the first iteration end past each multiple
                    write_curve(ckpt_dir / "curve.csv", curve)
                    next_save = (steps // every + 1) * every
        except KeyboardInterrupt:
            interrupted = True
        seconds = time.perf_counter() - t_train
        meta = save(not interrupted)
        logger.close()
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    write_curve(ckpt_dir / "curve.csv", curve)
    plot_curve(curve, ckpt_dir / "learning_curve.png",
               f"{plan.env_spec.label()} - {cfg['name']} ({'team' if plan.cooperative else 'learner'}, RLlib)")
    done = steps - base["steps"]
    log(f"trained {done:,} agent steps in {seconds:.0f} s ({done / max(seconds, 1e-9):,.0f} steps/s) with RLlib; "
        f"checkpoint {ckpt_dir}")
    result = TrainResult(ckpt_dir, meta, interrupted, time.perf_counter() - t0)
    if interrupted:
        log("interrupted: checkpoint saved; continue it with the same command and --resume")
        return result
    return _evaluate_or_stop(cfg, plan, ckpt_dir, result, log)  # (Ctrl-C in it: one line, --resume evaluates)


# ---------------------------------------------------------------------- benchmark
def bench_rllib(cfg: dict, runners: int, steps: int) -> dict:
    """End-to-end training throughput of the RLlib backend with ``runners`` env runners (the
    config's env copies split over them): agent steps/s over whole ``algo.train()`` iterations
    (sampling and learning) until ``steps`` agent steps; Ray start and algorithm build timed apart."""
    import ray
    import torch

    from training.trainer import plan_run

    cfg = json.loads(json.dumps(cfg))
    cfg["training"]["workers"] = runners
    plan = plan_run(cfg)
    check_supported(cfg, plan)
    torch.set_num_threads(cfg["training"]["torch_threads"])
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=runners + 1, include_dashboard=False, log_to_driver=False)
    algo = None
    try:
        algo = build_config(cfg, plan).build_algo()
        if plan.uses_pool:  # the learner's first weights, as a run starts
            _snapshot_everywhere(algo, "snapshot@0", actor_of(_learner_module(algo)).state())
        setup = time.perf_counter() - t0
        n, t = 0, time.perf_counter()
        learn = total = 0.0
        while n < steps:
            result = algo.train()
            n = _lifetime(result, "num_agent_steps_sampled_lifetime")
            timers = result.get("timers") or {}
            learn += float(timers.get("learner_update_timer", 0.0))
            total += float(timers.get("training_iteration", 0.0))
        return {"runners": runners, "agent_steps": n, "seconds": time.perf_counter() - t,
                "steps_per_s": n / (time.perf_counter() - t), "setup_seconds": setup,
                "learn_share": learn / total if total else float("nan")}
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()


def run_bench(config: str | None, runner_counts: list[int], steps: int, sb3_workers: list[int], repeat: int = 1,
              log: Callable[[str], None] = print) -> list[dict]:
    """SB3 (``training.bench.bench_train``, the same config) and the RLlib backend, interleaved."""
    from training.bench import bench_train
    from training.config import load_config
    from training.trainer import plan_run

    # every check before the first measurement: a config the RLlib backend refuses failed only
    # after the SB3 measurements, in a traceback
    cfg = load_config(config, check=lambda c: check_supported(c, plan_run(c)))
    rows: list[dict] = []
    for _ in range(repeat):
        for w in sb3_workers:
            rate = bench_train(cfg, w, steps)
            rows.append({"backend": "sb3", "processes": w, "steps_per_s": rate})
            log(f"sb3, {w} process(es): {rate:,.0f} agent steps/s")
        for r in runner_counts:
            res = bench_rllib(cfg, r, steps)
            rows.append({"backend": "rllib", "processes": r, **res})
            log(f"rllib, {r} env runner(s): {res['steps_per_s']:,.0f} agent steps/s "
                f"({res['agent_steps']:,} in {res['seconds']:.1f} s; Ray start + build {res['setup_seconds']:.1f} s; "
                f"the learner's update {res['learn_share']:.0%} of an iteration)")
    return rows


def build_parser():
    """The command line of ``python -m training.rllib_backend`` (the benchmark)."""
    import argparse

    from envs.core.inputs import int_at_least
    from training.cli import _counts  # the training CLI's checks: a bad value names what is allowed

    p = argparse.ArgumentParser(prog="python -m training.rllib_backend",
                                description="benchmark: SB3 vs the RLlib backend on one config (agent steps/s)")
    p.add_argument("--config", default="configs/wok_star_rllib.yaml")
    p.add_argument("--runners", type=_counts, default=[1, 2], help="comma-separated RLlib env runner counts")
    p.add_argument("--sb3-workers", type=_counts, default=[2], help="comma-separated SB3 bridge process counts")
    p.add_argument("--timesteps", type=int_at_least(1), default=16384, help="agent steps per measurement")
    p.add_argument("--repeat", type=int_at_least(1), default=1)
    p.add_argument("--json", help="write the rows to this file")
    return p


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    problem = a.json is not None and output_file_problem(a.json, "--json")
    if problem:  # before minutes of measurements, not after them
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        rows = run_bench(a.config, a.runners, a.timesteps, a.sb3_workers, a.repeat)
    except KitchenArenaError as e:  # a config it refuses: one line, no traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":  # spawned workers import this module again: guarded
    # run the module's importable copy: Ray pickles functions of __main__ by value (each with
    # its own globals, so the env runners' pool registry would not be the one snapshots reach)
    from training.rllib_backend import main as _main

    raise SystemExit(_main())
