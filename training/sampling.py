"""The learner's policy class: sb3-contrib's masked policy with a lean rollout draw.

During a rollout SB3 calls ``policy(obs, action_masks=masks)`` once per step
(:meth:`MaskablePolicy.forward`). sb3-contrib's ``MaskableActorCriticPolicy``
builds two ``torch.distributions.Categorical`` objects per call (the raw
logits, then the masked ones), validates them, and draws with
``torch.multinomial``, which draws one exponential for *every* action of every
row: with Wok Star's 991 actions and 16 rows that is about 65 us per learner
frame, more than CartPole's whole frame (``docs/performance.md``, "Fourth
increment": the learner's draw).

:class:`MaskablePolicy` is that policy with ``forward`` written out as the
tensor operations sb3-contrib's objects perform, in the same order, with one
of two draws (``training.action_sampler``):

``exact`` (the default)
    ``torch.multinomial`` on the same probabilities: the same actions and the
    same log-probabilities as sb3-contrib's policy bit for bit, from the same
    torch generator state, so every shipped run reproduces; only the
    distribution objects and their argument checks are gone.
``cdf``
    one uniform per row against the running sum (float64) of that row's
    probabilities: the same distribution (masked actions have probability 0
    and are never drawn), one random number per row instead of one per
    action, so a different random stream: a run with ``cdf`` does not
    reproduce one made with ``exact``.

Everything else (the update's ``evaluate_actions``, ``predict``, saving) is
sb3-contrib's. The class holds no extra weights: a checkpoint's tensors load
into it or into ``MlpPolicy`` alike.
"""

from __future__ import annotations

import numpy as np
import torch as th
import torch.nn.functional as F
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

#: The rollout draws :class:`MaskablePolicy` offers (``training.action_sampler``).
SAMPLERS = ("exact", "cdf")

#: sb3-contrib's logit for a masked action (``MaskableCategorical.apply_masking``).
_HUGE_NEG = -1e8


class MaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose rollout ``forward`` builds no distribution objects."""

    #: the rollout draw, one of :data:`SAMPLERS`; set with :func:`use_sampler`
    sampler = "exact"

    def forward(self, obs: th.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = self.mlp_extractor.forward_actor(pi_features)
            latent_vf = self.mlp_extractor.forward_critic(vf_features)
        values = self.value_net(latent_vf)
        raw = self.action_net(latent_pi).view(-1, self.action_dist.action_dim)
        logits = raw - raw.logsumexp(dim=-1, keepdim=True)  # Categorical(logits=raw)
        if action_masks is not None:  # MaskableCategorical.apply_masking, then Categorical again
            masks = th.as_tensor(action_masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
            logits = th.where(masks, logits, th.tensor(_HUGE_NEG, dtype=logits.dtype, device=logits.device))
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        probs = F.softmax(logits, dim=-1)  # Categorical.probs
        if deterministic:
            actions = th.argmax(probs, dim=1)  # MaskableCategoricalDistribution.mode
        elif self.sampler == "exact":
            actions = th.multinomial(probs, 1, True).T.reshape(-1)  # Categorical.sample
        else:
            actions = _cdf_draw(probs)
        log_prob = logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)  # Categorical.log_prob
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob


def _cdf_draw(probs: th.Tensor) -> th.Tensor:
    """One action per row of ``probs`` (rows of non-negative weights, each with a positive
    entry), by inverse transform: the first index whose running sum exceeds ``u * total``."""
    cdf = probs.double().cumsum(dim=-1)
    total = cdf[:, -1:]
    u = th.rand(total.shape, dtype=th.float64, device=probs.device) * total
    u = th.minimum(u, th.nextafter(total, th.zeros_like(total)))  # strictly below the total
    return th.searchsorted(cdf, u, right=True).reshape(-1)


def use_sampler(model, sampler: str) -> None:
    """Make ``model``'s policy (a :class:`MaskablePolicy`) draw its rollout actions with
    ``sampler``; a ``ValueError`` names the allowed ones and changes nothing."""
    if sampler not in SAMPLERS:
        raise ValueError(f"action_sampler {sampler!r}: allowed are {', '.join(SAMPLERS)}")
    if not isinstance(model.policy, MaskablePolicy):
        raise ValueError(f"action_sampler needs the policy class training.sampling.MaskablePolicy, "
                         f"not {type(model.policy).__name__}")
    model.policy.sampler = sampler
