"""Ray RLlib (new API stack: RLModule, Learner, EnvRunner) over Kitchen Arena.

RLlib wraps PettingZoo envs itself (``ray.rllib.env.wrappers.pettingzoo_env``:
``ParallelPettingZooEnv`` over ``parallel_env()``, ``PettingZooEnv`` over the
AEC ``env()``); nothing here replaces those wrappers. What RLlib lacks is a
PPO module that reads PettingZoo's observation dict (``"observation"``,
``"action_mask"``): RLlib's example ``ActionMaskingTorchRLModule`` expects the
key ``"observations"``. This module ships:

* :class:`MaskedPPOTorchRLModule`: RLlib's ``DefaultPPOTorchRLModule`` (its
  encoder, pi and value heads, built by :class:`MaskedPPOCatalog` for the
  ``"observation"`` Box) whose forward passes feed ``obs["observation"]`` to
  the networks and set the logits of illegal actions (``obs["action_mask"] ==
  0``) to ``FLOAT_MIN``, so sampling, argmax, log-probabilities and entropy
  only ever see legal actions; the value function reads the same observation. Its
  action distribution, :class:`MaskedTorchCategorical`, is RLlib's ``TorchCategorical``
  normalised without torch's slow ``exp`` on those ``FLOAT_MIN`` logits (the same bits).
* :func:`make_env` / :func:`register`: the RLlib env (either wrapper form) and
  its ``ray.tune.registry.register_env`` name.
* :func:`masked_ppo_config`: a ``PPOConfig`` with the env registered, one
  policy shared by every agent (parameter sharing) and the masked module
  (:func:`module_spec`: its ``RLModuleSpec``).
* :func:`greedy_actions`: argmax of the masked logits of a module for a dict
  of PettingZoo observations (to play a trained module in our envs).

Usage::

    import ray, envs
    from envs.integrations.rllib import masked_ppo_config
    ray.init(num_cpus=2, include_dashboard=False)
    config = masked_ppo_config(envs.ENV_IDS[0], {"players": 2}).training(train_batch_size_per_learner=512)
    algo = config.build_algo()
    result = algo.train()

RLlib's env pre-check (``check_multiagent_environments``, run by every EnvRunner unless
``disable_env_checking``) steps the env once with actions sampled from the *unmasked*
``Discrete`` space. Under our default ``illegal_action="raise"`` such an action is refused
(``IllegalActionError``; with hundreds of actions and a handful legal, the check fails nearly
every time), so :func:`masked_ppo_config` turns the check off for ``"raise"`` envs: the masked
module never submits an illegal action (if it did, sampling would raise at once), and
PettingZoo's own API tests cover the env. With ``illegal_action="noop"`` the check passes and
stays on (the env then replaces an illegal action and flags ``infos[agent]["illegal_replaced"]``).
"""

from __future__ import annotations

import functools
from typing import Any, Mapping, Sequence

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.rllib.models.utils import get_activation_fn
from ray.tune.registry import register_env
from torch.distributions import Categorical
from torch.distributions import Distribution as TorchDistributionBase

import envs
from envs.core.inputs import checked_int
from envs.integrations.torch_ops import normalized_logits

OBS_KEY = "observation"
MASK_KEY = "action_mask"
FORMS = ("parallel", "aec")
DEFAULT_POLICY_ID = "shared"

__all__ = [
    "MaskedPPOCatalog", "MaskedPPOTorchRLModule", "make_env", "env_name", "register", "masked_ppo_config",
    "module_spec", "greedy_actions", "FORMS", "DEFAULT_POLICY_ID",
]


# ---------------------------------------------------------------------- the module
def _check_dict_space(space: gym.Space) -> None:
    if not (isinstance(space, gym.spaces.Dict) and OBS_KEY in space.spaces and MASK_KEY in space.spaces):
        raise ValueError(
            f"the masked PPO module needs PettingZoo's observation space Dict({{{OBS_KEY!r}: Box, "
            f"{MASK_KEY!r}: Box(0, 1, (A,), int8)}}); got {space}"
        )


class MaskedTorchCategorical(TorchCategorical):
    """RLlib's ``TorchCategorical`` whose torch ``Categorical`` is normalised without ``exp``'s slow
    path on the masked logits (``FLOAT_MIN``): the same distribution, bit for bit (its logits,
    probabilities, samples, log-probabilities, entropy, KL and their gradients), built the way
    ``Categorical.__init__`` builds it, with :func:`envs.integrations.torch_ops.normalized_logits`
    for the normalisation. At Wok Star's 991 actions the stock normalisation of a learner's
    minibatch costs about 31 us a row, forward and backward (``docs/performance.md``, "Sixth
    increment")."""

    def _get_torch_distribution(self, logits: torch.Tensor | None = None, probs: torch.Tensor | None = None):
        if logits is None or logits.dim() < 1:
            return super()._get_torch_distribution(logits=logits, probs=probs)
        dist = Categorical.__new__(Categorical)  # Categorical.__init__(logits=logits, validate_args=False):
        dist.logits = normalized_logits(logits)
        dist._param = dist.logits
        dist._num_events = dist._param.size()[-1]
        batch_shape = dist._param.size()[:-1] if dist._param.ndimension() > 1 else torch.Size()
        TorchDistributionBase.__init__(dist, batch_shape, validate_args=False)
        return dist


class MaskedPPOCatalog(PPOCatalog):
    """RLlib's ``PPOCatalog`` for a PettingZoo ``Dict`` observation space: the encoder and heads
    are built for the ``"observation"`` Box; the action mask is not a network input; the action
    distribution is :class:`MaskedTorchCategorical` (torch; the action space is ``Discrete``)."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space, model_config_dict: dict, **kwargs):
        _check_dict_space(observation_space)
        super().__init__(observation_space[OBS_KEY], action_space, model_config_dict, **kwargs)

    def get_action_dist_cls(self, framework: str):
        if framework == "torch" and isinstance(self.action_space, gym.spaces.Discrete):
            return MaskedTorchCategorical
        return super().get_action_dist_cls(framework)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module over PettingZoo's ``{"observation", "action_mask"}`` dict.

    The module keeps the env's ``Dict`` observation space (so it checkpoints and restores like any
    RLModule); its networks see ``obs["observation"]``; every forward pass (inference,
    exploration, train) sets the logits of masked actions to ``FLOAT_MIN``. A row with no legal
    action at all (never produced by our envs) is left unmasked rather than turned into NaNs.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        if kwargs.get("catalog_class") is None:
            kwargs["catalog_class"] = MaskedPPOCatalog
        super().__init__(*args, **kwargs)

    def setup(self):
        _check_dict_space(self.observation_space)
        super().setup()

    # -- helpers
    @staticmethod
    def _split(batch: Mapping[str, Any]) -> tuple[dict, Any]:
        """A shallow copy of ``batch`` whose OBS is the observation vector, and the mask. The
        caller's batch is never modified. A batch without the mask is refused (an unmasked
        forward pass would propose illegal actions), e.g. after a connector flattened the dict."""
        obs = batch[Columns.OBS]
        if not (isinstance(obs, Mapping) and OBS_KEY in obs and MASK_KEY in obs):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs batch[{Columns.OBS!r}] as a dict with {OBS_KEY!r} and {MASK_KEY!r} "
                f"(PettingZoo's observation, unflattened); got {type(obs).__name__}"
                + (f" with keys {sorted(obs)}" if isinstance(obs, Mapping) else "")
            )
        inner = dict(batch)
        inner[Columns.OBS] = obs[OBS_KEY]
        return inner, obs[MASK_KEY]

    @staticmethod
    def _mask_logits(out: dict, mask: Any) -> dict:
        logits = out[Columns.ACTION_DIST_INPUTS]
        if not torch.is_tensor(mask):
            mask = torch.as_tensor(np.asarray(mask))
        if tuple(mask.shape) != tuple(logits.shape):  # a (A,) or (B, 1) mask would broadcast to every row
            raise ValueError(f"MaskedPPOTorchRLModule: the action mask has shape {tuple(mask.shape)}; allowed: "
                             f"{tuple(logits.shape)} (one row of {logits.shape[-1]} entries per observation)")
        legal = mask.to(torch.bool)
        legal = legal | ~legal.any(dim=-1, keepdim=True)
        out[Columns.ACTION_DIST_INPUTS] = torch.where(legal, logits, torch.full_like(logits, FLOAT_MIN))
        return out

    # -- forward passes (``_forward`` serves inference and exploration)
    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        inner, mask = self._split(batch)
        return self._mask_logits(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        inner, mask = self._split(batch)
        return self._mask_logits(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None):
        inner, _ = self._split(batch)
        return super().compute_values(inner, embeddings)


# ---------------------------------------------------------------------- envs
def make_env(env_id: str, env_kwargs: Mapping[str, Any] | None = None, form: str = "parallel") -> MultiAgentEnv:
    """Our env in RLlib's own PettingZoo wrapper: ``ParallelPettingZooEnv(parallel_env(**kw))``
    (``form="parallel"``: every live agent acts each step) or ``PettingZooEnv(env(**kw))``
    (``form="aec"``: one agent per step)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}; got {form!r}")
    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise ValueError(f"env_kwargs must be a dict of the env's options (or None); got a {type(env_kwargs).__name__}")
    mod = envs.get_env_module(env_id)
    kw = dict(env_kwargs or {})
    if form == "parallel":
        return ParallelPettingZooEnv(mod.parallel_env(**kw))
    if form == "aec":
        return PettingZooEnv(mod.env(**kw))
    raise ValueError(f"form must be one of {FORMS}; got {form!r}")


def _env_creator(env_id: str, form: str, env_config: Mapping[str, Any]) -> MultiAgentEnv:
    # ``env_config`` is RLlib's EnvContext: a dict of the env kwargs (plus worker attributes).
    return make_env(env_id, dict(env_config), form)


def env_name(env_id: str, form: str = "parallel") -> str:
    """The ``register_env`` name of an env id and wrapper form, e.g. ``kitchen_arena/wok_star_v1/parallel``."""
    return f"kitchen_arena/{env_id}/{form}"


def register(env_id: str, form: str = "parallel") -> str:
    """``ray.tune.registry.register_env`` the env (kwargs come from the config's ``env_config``);
    returns its name for ``PPOConfig().environment(name, env_config=...)``."""
    envs.get_env_module(env_id)  # unknown ids fail here, not in a worker
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}; got {form!r}")
    name = env_name(env_id, form)
    register_env(name, functools.partial(_env_creator, env_id, form))
    return name


def _map_to(policy_id: str, agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    return policy_id


def module_spec(hidden: Sequence[int] = (64, 64), activation: str = "tanh", vf_share_layers: bool = False,
                **model_config: Any) -> RLModuleSpec:
    """An ``RLModuleSpec`` of :class:`MaskedPPOTorchRLModule` with RLlib's ``DefaultModelConfig``
    (``hidden`` = ``fcnet_hiddens``; more ``DefaultModelConfig`` fields as keywords)."""
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence) or not all(
            isinstance(h, int) and not isinstance(h, bool) and h >= 1 for h in hidden):
        raise ValueError(f"hidden={hidden!r} is not allowed; allowed: a sequence of layer sizes, integers >= 1 "
                         f"(e.g. (64, 64))")
    try:
        get_activation_fn(activation, framework="torch")
    except (ValueError, TypeError) as e:  # RLlib's own reading of the name
        raise ValueError(f"activation={activation!r} is not allowed: {e}") from None
    cfg = DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation=activation,
                             vf_share_layers=vf_share_layers, **model_config)
    return RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=cfg)


def masked_ppo_config(env_id: str, env_kwargs: Mapping[str, Any] | None = None, *, form: str = "parallel",
                      num_env_runners: int = 0, hidden: Sequence[int] = (64, 64), seed: int | None = 0,
                      policy_id: str = DEFAULT_POLICY_ID, check_env: bool | None = None) -> PPOConfig:
    """A ``PPOConfig`` (new API stack, torch) for one of our envs, ready for ``.training(...)`` and
    ``.build_algo()``:

    * the env registered with :func:`register` (``form`` "parallel" or "aec"), ``env_kwargs`` as
      its ``env_config``;
    * one policy ``policy_id`` that every agent maps to (parameter sharing; our agents' spaces
      are equal);
    * :class:`MaskedPPOTorchRLModule` with ``fcnet_hiddens=hidden``;
    * ``num_env_runners`` sampling actors (0: sample in the driver), ``seed`` for
      ``.debugging(seed=...)`` (None: unseeded);
    * RLlib's env pre-check on iff ``check_env`` (default: on unless the env raises on illegal
      actions, ``illegal_action="raise"``, our default: the check samples unmasked actions).
    """
    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise ValueError(f"env_kwargs must be a dict of the env's options (or None); got a {type(env_kwargs).__name__}")
    checked_int(num_env_runners, "num_env_runners", 0)  # 0: sample in the driver
    checked_int(seed, "seed", 0, allow_none=True)
    env_kwargs = dict(env_kwargs or {})
    name = register(env_id, form)
    if check_env is None:
        check_env = env_kwargs.get("illegal_action", "raise") != "raise"
    config = (
        PPOConfig()
        .framework("torch")
        .environment(name, env_config=env_kwargs, disable_env_checking=not check_env)
        .env_runners(num_env_runners=num_env_runners)
        .multi_agent(policies={policy_id}, policy_mapping_fn=functools.partial(_map_to, policy_id))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={policy_id: module_spec(hidden)}))
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


# ---------------------------------------------------------------------- acting
def greedy_actions(module: RLModule, observations: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, int]:
    """``{agent: argmax of the masked logits}`` of ``module.forward_inference`` for a dict of
    PettingZoo observations (``parallel_env().step``/``reset`` output, or one agent's ``observe``)."""
    if not isinstance(observations, Mapping):
        raise ValueError(f"greedy_actions takes {{agent: observation}} (parallel_env's reset/step output); got a "
                         f"{type(observations).__name__}")
    agents = list(observations)
    if not agents:
        return {}
    for a in agents:
        o = observations[a]
        if not (isinstance(o, Mapping) and OBS_KEY in o and MASK_KEY in o):
            raise ValueError(f"greedy_actions: observations[{a!r}] must be a PettingZoo observation dict with "
                             f"{OBS_KEY!r} and {MASK_KEY!r}; got {type(o).__name__}"
                             + (f" with keys {sorted(o)}" if isinstance(o, Mapping) else ""))
    batch = {Columns.OBS: {
        OBS_KEY: torch.as_tensor(np.stack([observations[a][OBS_KEY] for a in agents]), dtype=torch.float32),
        MASK_KEY: torch.as_tensor(np.stack([observations[a][MASK_KEY] for a in agents])),
    }}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return {a: int(i) for a, i in zip(agents, torch.argmax(logits, dim=-1).tolist())}
