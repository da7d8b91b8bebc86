"""Stable-Baselines3 / sb3-contrib ``MaskablePPO`` on top of SuperSuit's vec-env chain.

The standard SuperSuit recipe turns one PettingZoo ``ParallelEnv`` into an SB3
``VecEnv`` whose slots are the seats of several games (parameter sharing: one
policy plays every seat)::

    venv = supersuit.pettingzoo_env_to_vec_env_v1(par_env)        # one slot per agent
    venv = supersuit.concat_vec_envs_v1(venv, n_games, num_cpus=0,
                                        base_class="stable_baselines3")

That chain cannot feed ``MaskablePPO`` by itself (sb3-contrib issues #49 and
#279): ``MaskablePPO`` asks ``venv.has_attr("action_masks")`` and
``venv.env_method("action_masks")``, which SuperSuit's ``SB3VecEnvWrapper``
forwards to a gymnasium vector env that has neither, and the masks sit inside
the ``Dict`` observation that ``MlpPolicy`` cannot take. It also cannot be
seeded through SB3 (``venv.seed`` fails the same way) and it merges
termination and truncation into ``dones`` without SB3's
``TimeLimit.truncated`` flag.

:class:`ActionMaskVecEnv` goes on top of that chain and fixes all of it::

    venv = ActionMaskVecEnv(venv)
    model = MaskablePPO("MlpPolicy", venv, seed=0).learn(10_000)
    actions, _ = model.predict(obs, action_masks=venv.action_masks())

* observations are the plain ``"observation"`` Box (``(num_envs, n)`` float32),
  so ``MlpPolicy`` applies; the masks are served by :meth:`action_masks`
  (``(num_envs, A)`` bool), which ``MaskablePPO`` reads through
  ``sb3_contrib.common.maskable.utils.get_action_masks`` before every step.
  The mask is not also fed to the network: ``MaskablePPO`` already removes the
  illegal logits, and our observations already encode the state that decides
  legality, so a ``MultiInputPolicy`` over the Dict would only add a wide
  int8 input (991 columns in Wok Star) for nothing;
* ``seed(s)`` (what ``MaskablePPO(seed=s)`` calls) makes the next ``reset``
  deal game ``g`` with seed ``s + g`` (with ``num_cpus>1``: every game its own
  seed too, which SuperSuit's own multiprocessing reset does not guarantee);
  SuperSuit's auto-resets then continue each game's own generator, so a
  seeded run is reproducible;
* at an episode end SuperSuit has already reset the game (the returned
  observation is the new game's first); ``infos[i]["terminal_observation"]``
  is converted to the Box form, ``infos[i]["terminal_action_mask"]`` holds the
  last mask, and ``infos[i]["TimeLimit.truncated"]`` is set (true for a
  ``max_cycles`` truncation, false for the game's real end) so that
  ``MaskablePPO`` bootstraps truncated episodes like it does under
  ``DummyVecEnv``.

Known SuperSuit behaviours this cannot undo: on an episode's last step the
per-agent infos' ``tick``/``action``/``blocked``/``illegal_replaced`` are those
of the *new* game's reset (SuperSuit merges reset infos over step infos); and
every seat must stay live the whole game (true of all Kitchen Arena games).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from envs.core.errors import IllegalActionError
from envs.core.inputs import checked_int, shown

__all__ = ["ActionMaskVecEnv", "EXPECTED_METHOD_NAME", "checked_indices", "checked_seed"]

#: The method name sb3-contrib's ``get_action_masks`` / ``is_masking_supported`` look for.
EXPECTED_METHOD_NAME = "action_masks"


class ActionMaskVecEnv(VecEnvWrapper):
    """Serve a SuperSuit SB3 vec env of Kitchen Arena seats to ``MaskablePPO``.

    :param venv: ``supersuit.concat_vec_envs_v1(..., base_class="stable_baselines3")`` of
        ``supersuit.pettingzoo_env_to_vec_env_v1(parallel_env)`` (any SB3 ``VecEnv`` whose
        observations are ``Dict(observation=Box, action_mask=Box)`` works; seeding and the
        ``TimeLimit.truncated`` flag need SuperSuit's wrapper underneath).
    """

    def __init__(self, venv: VecEnv, illegal_action: str | None = None):
        """``illegal_action``: the games' own option (``"raise"`` or ``"noop"``), for the check of
        each step's actions; None: read from the chain where it can be (SuperSuit's in-process
        chain), else ``"raise"`` (the envs' default)."""
        if not isinstance(venv, VecEnv):
            raise TypeError(
                f"ActionMaskVecEnv wraps a stable_baselines3 VecEnv; got {type(venv).__name__}. "
                "Build it with supersuit.concat_vec_envs_v1(..., base_class='stable_baselines3')"
            )
        space = venv.observation_space
        if not (isinstance(space, spaces.Dict) and {"observation", "action_mask"} <= set(space.spaces)):
            raise TypeError(
                "ActionMaskVecEnv expects Dict observations with 'observation' and 'action_mask' "
                f"(a Kitchen Arena parallel_env through SuperSuit); got {space}"
            )
        if not isinstance(venv.action_space, spaces.Discrete):
            raise TypeError(f"ActionMaskVecEnv expects a Discrete action space; got {venv.action_space}")
        self._closed = False  # (before SB3's constructor, which asks get_attr("render_mode"))
        self._waiting = False  # step_async() handed the actions on, step_wait() not yet called
        super().__init__(venv, observation_space=space["observation"])
        self.n_actions = int(venv.action_space.n)
        # SuperSuit's SB3VecEnvWrapper keeps the gymnasium vector env (ConcatVecEnv or
        # ProcConcatVec) as .venv: stepping and resetting that directly keeps terminations
        # apart from truncations and lets reset take a seed.
        self._gym_venv = _supersuit_inner(venv)
        self._next_seed: int | None = None
        self._next_options: dict | None = None
        self._masks = np.ones((self.num_envs, self.n_actions), dtype=bool)
        self.reset_infos: list[dict] = [{} for _ in range(self.num_envs)]
        if illegal_action not in (None, "raise", "noop"):
            raise ValueError(f"ActionMaskVecEnv: illegal_action={illegal_action!r} is not allowed; allowed: None "
                             f"(read it from the chain), 'raise' or 'noop' (the games' own option)")
        chain = _illegal_action_of(self._gym_venv)
        if illegal_action is not None and chain is not None and illegal_action != chain:
            raise ValueError(f"ActionMaskVecEnv: illegal_action={illegal_action!r} but the chain's games were built "
                             f"with illegal_action={chain!r}; give {chain!r} or leave it out (it is read from the "
                             f"chain): with the wrong one an action a game refuses would move the games before it")
        self._check_masks = (illegal_action or chain or "raise") == "raise"
        self._reset_done = False

    # ------------------------------------------------------------------ masks
    def action_masks(self) -> np.ndarray:
        """The legal-action masks of the current observations: ``(num_envs, A)`` bool."""
        self._usable()
        return self._masks.copy()

    def has_attr(self, attr_name: str) -> bool:
        if attr_name in (EXPECTED_METHOD_NAME, "render_mode"):
            return True
        try:
            return bool(self.venv.has_attr(attr_name))
        except AttributeError:  # SuperSuit's chain has no has_attr
            return False

    def _slots(self, indices: VecEnvIndices) -> list[int]:
        return checked_indices(self, indices, "ActionMaskVecEnv")

    def _forwarded(self, call: str, name: str, run):
        """``run()`` (a call SuperSuit's chain may not forward), its AttributeError named."""
        try:
            return run()
        except AttributeError as e:
            raise AttributeError(f"ActionMaskVecEnv.{call}({name!r}): SuperSuit's vec env chain does not forward it "
                                 f"({e}); this wrapper answers {EXPECTED_METHOD_NAME!r} and 'render_mode' itself; "
                                 f"ask the PettingZoo env before wrapping it") from None

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        self._usable()
        slots = self._slots(indices)
        if attr_name == "render_mode":  # SB3 asks at construction; SuperSuit's chain cannot answer
            mode = getattr(self.venv, "render_mode", None)
            return [mode for _ in slots]
        return self._forwarded("get_attr", attr_name, lambda: self.venv.get_attr(attr_name, slots))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._usable()
        slots = self._slots(indices)
        return self._forwarded("set_attr", attr_name, lambda: self.venv.set_attr(attr_name, value, slots))

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        self._usable()
        slots = self._slots(indices)
        if method_name == EXPECTED_METHOD_NAME:
            return [self._masks[i].copy() for i in slots]
        return self._forwarded("env_method", method_name,
                               lambda: self.venv.env_method(method_name, *method_args, indices=slots, **method_kwargs))

    # ------------------------------------------------------------------ seeding
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset``: game ``g`` of the chain is dealt with seed ``seed + g``
        (SuperSuit's numbering; under ``num_cpus>1`` game ``j`` of the worker whose first slot
        is ``k`` gets ``seed + k + j``, see :func:`_reset_gym_venv`). ``None``: the games'
        generators carry on. Returns one entry per slot, as SB3's ``VecEnv.seed``: the seed of
        the slot's game. Under ``num_cpus>1`` the chain does not show how many slots a game has,
        so every entry is None (SB3's word for "not known")."""
        self._usable()
        self._next_seed = checked_seed(seed, "ActionMaskVecEnv")
        sizes = _game_sizes(self._gym_venv)
        if seed is None or sizes is None or sum(sizes) != self.num_envs:
            return [None] * self.num_envs
        return [int(seed) + g for g, size in enumerate(sizes) for _ in range(size)]

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """Options for the next ``reset`` (passed to every game's ``reset``; SuperSuit takes one dict).
        Checked here, where a refusal changes nothing: None or a dict (the games know the key
        ``"snapshot"``), or a list of equal ones. A snapshot is restored into a copy of the first
        game first (SuperSuit's in-process chain); under ``num_cpus>1`` no game is at hand to
        check it on, and a snapshot a worker refused would end that worker for good, so snapshots
        are refused there."""
        self._usable()
        if isinstance(options, list):
            if any(o != options[0] for o in options):
                raise ValueError("ActionMaskVecEnv.set_options: SuperSuit's chain passes one options dict to every "
                                 "game; allowed: None, a dict, or a list of equal dicts")
            options = options[0] if options else None
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"ActionMaskVecEnv.set_options: options={shown(options)} is not allowed; allowed: None "
                             f"or a dict (the games' known key: 'snapshot'), or a list of equal ones")
        if options is not None and "snapshot" in options:
            game = _first_game(self._gym_venv)
            if game is None:
                raise ValueError("ActionMaskVecEnv.set_options: a snapshot cannot be checked before SuperSuit's "
                                 "worker processes read it (num_cpus>1), and one they refused would end them for "
                                 "good; reset from snapshots on the in-process chain (num_cpus=0)")
            copy.deepcopy(game).restore(options["snapshot"], in_progress=True)  # SnapshotError, nothing changed
        self._next_options = None if options is None else dict(options)

    # ------------------------------------------------------------------ reset / step
    def reset(self) -> VecEnvObs:
        self._usable()
        if self._waiting:  # (SuperSuit's workers would answer the reset with the step's answer: every later
            # answer one behind, the masks served stale)
            raise RuntimeError("ActionMaskVecEnv: step_async() was called and step_wait() was not: call step_wait() "
                               "before reset()")
        seed, options = self._next_seed, self._next_options
        self._next_seed = self._next_options = None
        if self._gym_venv is not None:
            obs, infos = _reset_gym_venv(self._gym_venv, seed, options)
            self.venv.reset_infos = infos
        else:
            if seed is not None:
                self.venv.seed(seed)
            if options is not None:
                self.venv.set_options(options)
            obs = self.venv.reset()
            infos = getattr(self.venv, "reset_infos", [{} for _ in range(self.num_envs)])
        self.reset_infos = list(infos)
        self._reset_done = True
        return self._split(obs)

    def _usable(self) -> None:
        if self._closed:
            raise RuntimeError("this ActionMaskVecEnv is closed; build a new one")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._waiting = False
        super().close()

    def step_async(self, actions: np.ndarray) -> None:
        """Check the slots' actions, then hand them on. SuperSuit steps the games one after
        another, so an action a game refuses would leave the games before it a tick ahead:
        here a bad batch is refused before any game moves (count, integers, range, and with
        ``illegal_action="raise"`` the masks of the last observations)."""
        self._usable()
        if not self._reset_done:
            raise RuntimeError("ActionMaskVecEnv: call reset() before step()")
        if self._waiting:
            raise RuntimeError("ActionMaskVecEnv: step_async() was called and step_wait() was not: call step_wait() "
                               "before sending new actions")
        try:
            acts = np.asarray(actions)
        except (ValueError, TypeError) as e:
            raise ValueError(f"ActionMaskVecEnv: actions must be {self.num_envs} integers (one per slot); "
                             f"numpy cannot make one array of them ({e})") from None
        n = self.n_actions
        if acts.shape != (self.num_envs,):
            raise ValueError(f"ActionMaskVecEnv: actions must have shape ({self.num_envs},) (one per slot), "
                             f"got {acts.shape}")
        if acts.dtype.kind not in "iu":
            raise ValueError(f"ActionMaskVecEnv: actions must be integers (indices into Discrete({n})), "
                             f"got dtype {acts.dtype}")
        out = (acts < 0) | (acts >= n)
        wrong = out | (~self._masks[np.arange(self.num_envs), np.clip(acts, 0, n - 1)] if self._check_masks else False)
        if np.any(wrong):
            i = int(np.flatnonzero(wrong)[0])
            why = (f"out of range: valid indices are 0..{n - 1}" if out[i] else
                   f"not legal now (legal: {np.flatnonzero(self._masks[i]).tolist()})")
            raise IllegalActionError(f"ActionMaskVecEnv slot {i}: action {int(acts[i])} is {why}; no game was stepped")
        super().step_async(acts.astype(np.int64, copy=False))
        self._waiting = True

    def step_wait(self) -> VecEnvStepReturn:
        """The step's answer. Refused without a ``step_async`` before it (SB3's chain had sent the
        last batch again, unchecked against the masks it had since left) and after ``close()``."""
        self._usable()
        if not self._waiting:
            raise RuntimeError("ActionMaskVecEnv: step_wait() without step_async(): send the actions first")
        self._waiting = False
        if self._gym_venv is not None:
            obs, rewards, terms, truncs, infos = self._gym_venv.step_wait()
            terms = np.asarray(terms, dtype=bool)
            truncs = np.asarray(truncs, dtype=bool)
            dones = terms | truncs
        else:
            obs, rewards, dones, infos = self.venv.step_wait()
            dones = np.asarray(dones, dtype=bool)
            terms = truncs = None
        infos = list(infos)
        for i in np.flatnonzero(dones):
            info = dict(infos[i])  # ProcConcatVec shares one {} between slots: never edit in place
            final = info.get("terminal_observation")
            if isinstance(final, dict):
                info["terminal_observation"] = np.asarray(final["observation"])
                info["terminal_action_mask"] = np.asarray(final["action_mask"]).astype(bool)
            if truncs is not None:
                info["TimeLimit.truncated"] = bool(truncs[i] and not terms[i])
            infos[i] = info
        return self._split(obs), np.asarray(rewards, dtype=np.float32), dones, infos

    def _split(self, obs: dict) -> np.ndarray:
        self._masks = np.asarray(obs["action_mask"]).astype(bool)
        return np.asarray(obs["observation"])


# ---------------------------------------------------------------------- SB3's arguments, checked
def checked_indices(venv: VecEnv, indices: VecEnvIndices, owner: str) -> list[int]:
    """SB3's ``indices`` (None, an int or a sequence of ints) as slot numbers, each in range (SB3's
    own ``_get_indices`` passes any value on, and a slot past the end answered ``[None]``)."""
    out = list(VecEnv._get_indices(venv, indices))  # SB3's reading (a subclass may route its own here)
    for i in out:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < venv.num_envs:
            raise IndexError(f"{owner}: slot index {i!r} is not allowed; allowed: 0..{venv.num_envs - 1}")
    return [int(i) for i in out]


def checked_seed(seed: Any, owner: str) -> int | None:
    """``VecEnv.seed``'s argument: None or an integer >= 0 (refused at once, not at the next
    ``reset``, which would keep failing)."""
    return checked_int(seed, f"{owner}.seed", 0, allow_none=True)


# ---------------------------------------------------------------------- SuperSuit internals
def _game_sizes(gym_venv) -> list[int] | None:
    """The slot count of each game of SuperSuit's in-process chain (``ConcatVecEnv`` of one
    ``MarkovVectorEnv`` per game), in slot order; None where the chain does not show it."""
    try:
        sizes = [int(v.num_envs) for v in gym_venv.vec_envs]
    except (AttributeError, TypeError, ValueError):
        return None
    return sizes or None


def _first_game(gym_venv):
    """The first game's own env (unwrapped) in SuperSuit's in-process chain, or None."""
    try:
        game = gym_venv.vec_envs[0].par_env.unwrapped
    except (AttributeError, IndexError, TypeError):
        return None
    return game if callable(getattr(game, "restore", None)) else None


def _illegal_action_of(gym_venv) -> str | None:
    """The games' ``illegal_action`` read from SuperSuit's in-process chain (``ConcatVecEnv`` of
    ``MarkovVectorEnv`` of the parallel env), or None (its multiprocessing chain hides it)."""
    try:
        mode = gym_venv.vec_envs[0].par_env.unwrapped.illegal_action
    except (AttributeError, IndexError, TypeError):
        return None
    return mode if mode in ("raise", "noop") else None


def _supersuit_inner(venv: VecEnv):
    """The gymnasium vector env under SuperSuit's ``SB3VecEnvWrapper``, or None."""
    try:
        from supersuit.vector.sb3_vector_wrapper import SB3VecEnvWrapper
    except ImportError:  # pragma: no cover - supersuit is how this wrapper is meant to be used
        return None
    if isinstance(venv, SB3VecEnvWrapper):
        return venv.venv
    return None


def _reset_gym_venv(gym_venv, seed: int | None, options: dict | None):
    """``gym_venv.reset(seed=seed, options=options)`` -> ``(obs, per-slot infos)``, mending two
    things SuperSuit's multiprocessing ``ProcConcatVec.reset`` gets wrong:

    * seeds: it gives worker ``w`` the seed ``seed + w`` and that worker's ``ConcatVecEnv`` gives
      its game ``j`` the seed ``seed + w + j``, so with more games than workers two games get the
      same seed and are dealt identically. Here worker ``w`` gets ``seed + first_slot(w)`` (the
      index of its first slot), so every game has its own seed;
    * infos: it returns the workers' compressed info lists, not one dict per slot."""
    try:
        from supersuit.vector.multiproc_vec import ProcConcatVec, decompress_info, numpy_deepcopy
    except ImportError:  # pragma: no cover
        ProcConcatVec = None
    if ProcConcatVec is not None and isinstance(gym_venv, ProcConcatVec):
        needed = ("pipes", "idx_starts", "_receive_info", "observations_buffers")
        if all(hasattr(gym_venv, n) for n in needed):
            for w, pipe in enumerate(gym_venv.pipes):
                pipe.send(("reset", (None if seed is None else seed + gym_venv.idx_starts[w], options)))
            compressed = gym_venv._receive_info()
            infos = [dict(i) for i in decompress_info(gym_venv.num_envs, gym_venv.idx_starts, compressed)]
            return numpy_deepcopy(gym_venv.observations_buffers), infos
        warnings.warn("ActionMaskVecEnv: unknown SuperSuit ProcConcatVec layout; resetting through its own "
                      "reset (games may share seeds)")
    obs, infos = gym_venv.reset(seed=seed, options=options)
    if not (isinstance(infos, list) and len(infos) == gym_venv.num_envs and all(isinstance(i, dict) for i in infos)):
        infos = [{} for _ in range(gym_venv.num_envs)]
    return obs, [dict(i) for i in infos]
