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
    ``torch.multinomial``'s draw on the same probabilities: the same actions
    and the same log-probabilities as sb3-contrib's policy bit for bit, from
    the same torch generator state, so every shipped run reproduces; only the
    distribution objects and their argument checks are gone, and the draw is
    :func:`~envs.integrations.torch_ops.multinomial_one`, which draws the
    same random numbers as ``torch.multinomial`` but turns only those of the
    legal actions into exponentials (a third of the cost at 991 actions).
``cdf``
    one uniform per row against the running sum (float64) of that row's
    probabilities: the same distribution (masked actions have probability 0
    and are never drawn), one random number per row instead of one per
    action, so a different random stream: a run with ``cdf`` does not
    reproduce one made with ``exact``.

The update's ``evaluate_actions`` is written out the same way (the same
operations in the same order as sb3-contrib's distribution objects: the same
values, log-probabilities, entropies and gradients, bit for bit), for one
reason: the masked normalisation. sb3-contrib sets a masked logit to -1e8 and
normalises with ``logsumexp``, whose ``exp`` on this CPU build takes a slow path
for every result that underflows (about 35 ns an entry against 0.4 ns; at
Wok Star's 991 actions with about 2% legal, 185 us for a rollout step's 16 rows
and 64 ms for a 2,048-row update's pass and backward pass).
:func:`envs.integrations.torch_ops.logsumexp` computes ``torch.logsumexp``'s
value and gradient bit for bit without that path (``docs/performance.md``,
"Sixth increment").

Everything else (``predict``, ``get_distribution``, saving) is sb3-contrib's.
The class holds no extra weights: a checkpoint's tensors load into it or into
``MlpPolicy`` alike.
"""

from __future__ import annotations

import numpy as np
import torch as th
import torch.nn.functional as F
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from envs.integrations.torch_ops import FAST_LOGSUMEXP_FROM, multinomial_one, normalized_logits

#: The rollout draws :class:`MaskablePolicy` offers (``training.action_sampler``).
SAMPLERS = ("exact", "cdf")

#: sb3-contrib's logit for a masked action (``MaskableCategorical.apply_masking``).
_HUGE_NEG = -1e8


class MaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose rollout ``forward`` builds no distribution objects."""

    #: the rollout draw, one of :data:`SAMPLERS`; set with :func:`use_sampler`
    sampler = "exact"

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """The actor's and the critic's latent codes, as sb3-contrib's passes compute them."""
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def forward(self, obs: th.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        raw = self.action_net(latent_pi).view(-1, self.action_dist.action_dim)
        logits = raw - raw.logsumexp(dim=-1, keepdim=True)  # Categorical(logits=raw)
        if action_masks is not None:  # MaskableCategorical.apply_masking, then Categorical again
            logits, _ = _apply_masking(logits, action_masks)
        probs = F.softmax(logits, dim=-1)  # Categorical.probs
        if deterministic:
            actions = th.argmax(probs, dim=1)  # MaskableCategoricalDistribution.mode
        elif self.sampler == "exact":
            actions = multinomial_one(probs).T.reshape(-1)  # Categorical.sample: th.multinomial(probs, 1, True)
        else:
            actions = _cdf_draw(probs)
        log_prob = logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)  # Categorical.log_prob
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor,
                         action_masks: th.Tensor | np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """sb3-contrib's ``evaluate_actions`` (values, log-probabilities of ``actions``,
        entropies), its distribution objects written out as the tensor operations they
        perform, in their order, the masked normalisation without ``exp``'s slow path (module doc)."""
        latent_pi, latent_vf = self._latents(obs)
        raw = self.action_net(latent_pi).view(-1, self.action_dist.action_dim)
        logits = raw - raw.logsumexp(dim=-1, keepdim=True)  # Categorical(logits=raw): the original logits
        if action_masks is not None:  # MaskableCategorical.apply_masking
            logits, masks = _apply_masking(logits, action_masks)
        else:  # MaskableCategorical.__init__'s apply_masking(None): Categorical(logits) once more
            logits, masks = logits - logits.logsumexp(dim=-1, keepdim=True), None
        value = actions.long().unsqueeze(-1)  # Categorical.log_prob
        value, log_pmf = th.broadcast_tensors(value, logits)
        log_prob = log_pmf.gather(-1, value[..., :1]).squeeze(-1)
        values = self.value_net(latent_vf)
        probs = F.softmax(logits, dim=-1)  # Categorical.probs
        if masks is not None:  # MaskableCategorical.entropy
            p_log_p = th.where(masks, logits * probs, th.tensor(0.0, device=logits.device))
        else:  # Categorical.entropy
            p_log_p = th.clamp(logits, min=th.finfo(logits.dtype).min) * probs
        return values, log_prob, -p_log_p.sum(-1)


def _apply_masking(logits: th.Tensor, action_masks: th.Tensor | np.ndarray) -> tuple[th.Tensor, th.Tensor]:
    """``MaskableCategorical.apply_masking`` of normalised ``logits``: the masked logits
    (-1e8 where masked) normalised again (:func:`~envs.integrations.torch_ops.normalized_logits`,
    told the count of masked entries), and the boolean masks."""
    masks = th.as_tensor(action_masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
    masked = th.where(masks, logits, th.tensor(_HUGE_NEG, dtype=logits.dtype, device=logits.device))
    n = masks.numel()
    return normalized_logits(masked, n - int(masks.count_nonzero()) if n >= FAST_LOGSUMEXP_FROM else 0), masks


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
