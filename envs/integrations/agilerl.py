"""What AgileRL (2.58) needs from us: a flat observation, and a working mask reader.

AgileRL's multi-agent algorithms read the legal-action mask from
``info["action_mask"]`` and refuse an observation that holds one
(``IPPO.get_action`` asserts "AgileRL requires action masks to be defined in
the information dictionary"). Our envs put the mask in both places, so
:func:`parallel_env` strips it from the observation: each agent observes the
flat ``Box(float32, (n,))`` that is our ``observation`` entry, and the mask
travels in its infos (``mask_in_infos=True``, always on here).

AgileRL 2.58's ``IPPO.extract_action_masks`` tests ``None in group_masks`` on
a list of numpy masks, which raises "The truth value of an array ... is
ambiguous" for every mask longer than one action (any real env, vectorised or
not). :class:`MaskedIPPO` is ``agilerl.algorithms.IPPO`` with that one method
written with ``is None`` checks; everything else is AgileRL's.

Usage::

    from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv
    from envs.integrations.agilerl import MaskedIPPO, parallel_env

    vec = AsyncPettingZooVecEnv([lambda: parallel_env(env_id, players=2) for _ in range(4)])
    agent = MaskedIPPO([vec.single_observation_space(a) for a in vec.agents],
                       [vec.single_action_space(a) for a in vec.agents], agent_ids=vec.agents)

``parallel_env`` needs only PettingZoo, so AgileRL's worker processes never
import AgileRL (or torch) to build an env; :class:`MaskedIPPO` is created on
first use and needs AgileRL installed.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseParallelWrapper

import envs

__all__ = ["FlatObservationEnv", "MaskedIPPO", "parallel_env"]


class FlatObservationEnv(BaseParallelWrapper):
    """Our parallel env with each observation reduced to its ``observation`` Box.

    The mask is in ``infos[agent]["action_mask"]`` at every reset and step (the
    wrapped env must be built with ``mask_in_infos=True``; :func:`parallel_env`
    does that). Everything else (agents, spaces of actions, ``state()``,
    ``render()``, pickling, rewards, terminations, the fixed infos schema) is
    the wrapped env's.
    """

    def __init__(self, env):
        super().__init__(env)
        if not getattr(env.unwrapped, "mask_in_infos", False):
            raise ValueError("FlatObservationEnv needs an env built with mask_in_infos=True "
                             "(AgileRL reads the mask from infos); use envs.integrations.agilerl.parallel_env")
        self._flat_spaces = {a: env.observation_space(a)["observation"] for a in env.possible_agents}

    def observation_space(self, agent: str) -> spaces.Box:
        return self._flat_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        obs, infos = self.env.reset(seed=seed, options=options)
        return {a: o["observation"] for a, o in obs.items()}, infos

    def step(self, actions):
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        return {a: o["observation"] for a, o in obs.items()}, rewards, terms, truncs, infos

    # pickle / deepcopy: BaseParallelWrapper forwards unknown attributes to the env, so
    # spell out the state (the wrapped env pickles itself, mid-game included).
    def __getstate__(self) -> dict:
        return {"env": self.env}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["env"])


def parallel_env(env_id: str, **kwargs: Any) -> FlatObservationEnv:
    """``envs.get_env_module(env_id).parallel_env(**kwargs, mask_in_infos=True)``
    with flat observations: the env to hand to AgileRL's ``AsyncPettingZooVecEnv``."""
    if "mask_in_infos" in kwargs and kwargs["mask_in_infos"] is not True:  # (0, "no" or None had become True)
        raise ValueError(f"AgileRL reads the action mask from infos: mask_in_infos must stay True (or be left out); "
                         f"got {kwargs['mask_in_infos']!r}")
    kwargs["mask_in_infos"] = True
    return FlatObservationEnv(envs.get_env_module(env_id).parallel_env(**kwargs))


# ---------------------------------------------------------------------- IPPO with the mask fix
def _make_masked_ippo() -> type:
    import numpy as np
    import torch
    from agilerl.algorithms import IPPO
    from agilerl.typing import coerce_action_mask

    class MaskedIPPO(IPPO):
        """``agilerl.algorithms.IPPO`` whose ``extract_action_masks`` works with numpy masks.

        AgileRL 2.58 checks ``None in group_masks``, which compares each numpy mask with
        ``None`` element-wise and raises for any mask of more than one action. This is the
        same method with identity checks; the masks it returns are AgileRL's (one
        ``(agents in group, envs, actions)`` tensor per group, or ``None``).
        """

        def extract_action_masks(self, infos):
            collected: dict[str, list] = {group_id: [] for group_id in self.observation_space}
            for agent_id, info in infos.items():
                if isinstance(info, dict):
                    group_id = self.get_group_id(agent_id) if self.has_grouped_agents() else agent_id
                    collected[group_id].append(coerce_action_mask(info.get("action_mask", None)))
            masks: dict[str, torch.Tensor | None] = {}
            for group_id in self.observation_space:
                group_masks = collected[group_id]
                if not group_masks or any(m is None for m in group_masks):
                    assert all(m is None for m in group_masks), (
                        "If action masks are provided for any agents, they must be provided for all agents."
                    )
                    masks[group_id] = None
                else:
                    masks[group_id] = torch.Tensor(np.array(group_masks))
            return masks

    MaskedIPPO.__module__ = __name__
    MaskedIPPO.__qualname__ = "MaskedIPPO"
    return MaskedIPPO


def __getattr__(name: str):
    if name == "MaskedIPPO":
        cls = _make_masked_ippo()
        globals()["MaskedIPPO"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
