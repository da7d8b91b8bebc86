"""The native PettingZoo ``AECEnv`` of every game: agents submit one at a time.

``<game>_vN.env(**options)`` is this class over the game's engine (through the
game's :class:`~envs.core.tick_env.TickParallelEnv`, which it owns), wrapped
only in PettingZoo's ``OrderEnforcingWrapper``. It is not PettingZoo's
``parallel_to_aec`` conversion:

* **Each action is checked when it is submitted.** ``step(action)`` checks the
  action of ``agent_selection`` against that agent's mask at once. With
  ``illegal_action="raise"`` (default) an illegal action raises
  :class:`~envs.core.errors.IllegalActionError` naming the agent, the action
  and why, nothing is buffered and the same agent chooses again; the env is
  never wedged. With ``"noop"`` the action is replaced by the game's default
  legal action (``engine.default_action``) and ``infos[agent]
  ["illegal_replaced"]`` says so. The checks are explicit code, not
  ``assert``: ``python -O`` changes nothing.
* **One cycle is one tick.** Every live agent submits once per tick, in seat
  order (``possible_agents``); the tick resolves when the last one submits,
  with the same seeded conflict resolution as the parallel form. Observations
  do not change until then (nothing at the table moves until the tick
  resolves).
* **When rewards arrive.** A tick's rewards arrive when it resolves, for every
  agent at once, and accumulate in ``_cumulative_rewards``; an agent's
  accumulated reward is reset when it next acts, so ``last()`` at its turn
  gives everything it earned since its previous action (PettingZoo's
  convention). The last tick's rewards are read by each agent at its final
  ``last()`` before it steps out with ``None``.
* ``infos`` have the fixed schema of the parallel form (``INFO_KEYS``) from
  ``reset`` on and are refreshed when a tick resolves; ``last_step_details()``
  and ``outcome()`` give the words and the result.
* The episode ends for every agent at once (termination at the game's end,
  truncation at ``max_ticks``/``max_cycles``); each agent then steps ``None``
  and leaves ``agents``, as PettingZoo's dead-step convention requires.

Its ``unwrapped`` is this object, with the attributes PettingZoo's wrappers
(``TerminateIllegalWrapper``, ``OrderEnforcingWrapper``, ...) use:
``rewards``, ``_cumulative_rewards``, ``terminations``, ``truncations``,
``infos``, ``agents``, ``agent_selection``, ``_accumulate_rewards``,
``_deads_step_first``. It pickles and deep-copies like the parallel form.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.tick_env import TickParallelEnv


class TickAECEnv(AECEnv):
    """Base of every game's AEC env; a game sets ``parallel_cls`` (its ParallelEnv class)."""

    parallel_cls: ClassVar[type[TickParallelEnv]]
    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human"], "name": "abstract", "is_parallelizable": True,
                                "render_fps": 1}

    def __init__(self, **kwargs: Any):
        super().__init__()
        self.par = self.parallel_cls(**kwargs)
        self.metadata = copy.deepcopy(self.par.metadata)  # its own: wrappers edit it (CaptureStdoutWrapper)
        self.render_mode = self.par.render_mode
        self.possible_agents = list(self.par.possible_agents)
        self.observation_spaces = {a: self.par.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.par.action_space(a) for a in self.possible_agents}
        self.state_space = self.par.state_space
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict] = {}
        self.agent_selection: str | None = None
        self._order: list[str] = []       # the live agents of the current tick, in seat order
        self._pos = 0                      # index in _order of agent_selection
        self._joint: dict[str, int] = {}   # actions submitted this tick (all checked)
        self._replaced: dict[str, str] = {}
        self._obs: dict[str, dict] = {}

    # ------------------------------------------------------------------ spaces and views
    def observation_space(self, agent: str):
        return self.observation_spaces[self.par.known_agent(agent)]

    def action_space(self, agent: str):
        return self.action_spaces[self.par.known_agent(agent)]

    @property
    def engine(self):
        """The rules engine of the current game (``None`` before ``reset``)."""
        return self.par.engine

    @property
    def illegal_action(self) -> str:
        return self.par.illegal_action

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        self.par.known_agent(agent)
        if agent not in self._obs:
            if self.par.engine is None:
                return None
            self._obs[agent] = self.par.observe(agent)
        o = self._obs[agent]
        return {"observation": o["observation"].copy(), "action_mask": o["action_mask"].copy()}

    def state(self) -> np.ndarray:
        return self.par.state()

    def last_step_details(self) -> dict[str, dict]:
        """The words behind the last resolved tick's infos (see ``TickParallelEnv.last_step_details``)."""
        return self.par.last_step_details()

    def outcome(self) -> dict:
        return self.par.outcome()

    def snapshot(self) -> dict:
        """The engine's JSON snapshot. Only between ticks (no action of the current tick submitted yet)."""
        if self._joint:
            raise RuntimeError(f"{self.metadata['name']}: snapshot() in the middle of a tick "
                               f"({sorted(self._joint)} have submitted); snapshot between ticks")
        return self.par.snapshot()

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        obs, infos = self.par.reset(seed=seed, options=options)
        self._obs = dict(obs)
        self.agents = list(self.par.agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = infos
        self._skip_agent_selection = None
        self._begin_tick()

    def _begin_tick(self) -> None:
        self._order = list(self.par.agents)
        self._pos = 0
        self._joint = {}
        self._replaced = {}
        self.agent_selection = self._order[0] if self._order else None

    def _over(self) -> RuntimeError:
        return RuntimeError(f"{self.metadata['name']}: the episode is over (every agent has stepped out with "
                            "None); call reset()")

    def last(self, observe: bool = True):
        if self.par.engine is not None and not self.agents:
            raise self._over()
        return super().last(observe)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if agent is None or self.par.engine is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before step()")
        if not self.agents:
            raise self._over()
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        act, why = self.par.engine.check_one(agent, action, self.par.illegal_action)  # raises: nothing changed
        self._joint[agent] = act
        if why is not None:
            self._replaced[agent] = why
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._pos + 1 < len(self._order):
            self._pos += 1
            self.agent_selection = self._order[self._pos]
            return
        self._resolve_tick()

    def _resolve_tick(self) -> None:
        obs, rewards, terms, truncs, infos = self.par._step_validated(self._joint, self._replaced)
        self._obs = dict(obs)
        for a in self.agents:
            self.rewards[a] = float(rewards.get(a, 0.0))
            self.terminations[a] = bool(terms.get(a, False))
            self.truncations[a] = bool(truncs.get(a, False))
            if a in infos:
                self.infos[a] = infos[a]
        self._accumulate_rewards()
        if self.par.agents:
            self._begin_tick()
        else:
            self._joint, self._replaced = {}, {}
            self.agent_selection = self.agents[0]
            self._skip_agent_selection = None
            self._deads_step_first()

    # ------------------------------------------------------------------ rendering
    def render(self):
        return self.par.render()

    def render_text(self) -> str:
        return self.par.render_text()

    def close(self) -> None:
        self.par.close()

    def __str__(self) -> str:
        return self.metadata["name"]


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, with two doors mended: a ``reset`` the env refuses
    (a bad seed, options or snapshot) leaves the wrapper as it was (PettingZoo's marks itself
    reset before it calls the env, so a refused first reset let ``step`` and ``last`` through to
    an env that had no game), and ``last`` after the episode says so."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        had_reset, had_updated = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset, self._has_updated = had_reset, had_updated
            raise

    def __str__(self) -> str:
        """The env's name, as PettingZoo's own wrapper prints its games (it drops its prefix only
        for its exact class)."""
        return str(self.env)

    def last(self, observe: bool = True):
        """PettingZoo's ``last``; once every agent has stepped out, the env's "the episode is over;
        call reset()" rather than a bare ``KeyError``."""
        if self._has_reset and not self.env.agents and isinstance(self.unwrapped, TickAECEnv):
            raise self.unwrapped._over()
        return super().last(observe)
