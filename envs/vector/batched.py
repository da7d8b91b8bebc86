"""N games of one environment in one process, as stacked numpy arrays.

    from envs.vector import BatchedEnv
    venv = BatchedEnv("frying_master_v1", num_games=64, env_kwargs={"players": 3})
    obs, masks, infos = venv.reset(seed=0)        # game i is seeded 0 + i
    while True:
        actions = my_policy(obs, masks)            # (N, P) ints, legal under masks
        obs, masks, rewards, terminated, truncated, infos = venv.step(actions)

Shapes (``N`` games, ``P`` seats = ``len(possible_agents)``, ``D`` observation
size, ``A`` actions): ``obs`` ``(N, P, D)`` float32, ``masks`` ``(N, P, A)``
int8, ``rewards`` ``(N, P)`` float64 (the env's floats, unrounded), ``terminated`` / ``truncated`` ``(N, P)``
bool. Seat ``p`` is ``possible_agents[p]``. ``alive`` ``(N, P)`` bool (read-only) marks
the seats that act in the current state; a seat that is not alive gets a
zero observation and a mask with only ``noop`` (index 0), and its action is
ignored.

Auto-reset (same step, as SB3's VecEnv does it): when game ``i`` ends on a
step, that step's ``rewards[i]``, ``terminated[i]`` and ``truncated[i]``
describe the end, while ``obs[i]`` and ``masks[i]`` are already the first
observation of the next game; ``infos[i]`` then holds ``final_observation``
``(P, D)``, ``final_action_mask`` ``(P, A)``, ``outcome`` (the engine's: the game's record, as a
referee sees it), ``episode_return`` ``(P,)`` and ``episode_length`` (steps); a game cut before its
end (truncated) also has ``outcomes_seen`` ``{agent: outcome}``, what each seat can know of it
(``engine.outcome_seen_by``: Waroong Wars' face-down customers stay uncounted for the other seats). A game is
reseeded only by ``reset(seed=...)``; an auto-reset continues the game's own
generator, so a batch replays exactly from the seeds given to ``reset``.

A game changed between steps from outside the batch (``envs[i].restore(snapshot)``,
``envs[i].reset()``, ``envs[i].step(...)``, or its engine changed and
``engine.invalidate_masks()`` called, as the engine documents) is read again before the next
step checks its actions (and by ``random_actions``); the arrays returned before the change
still show the old state. A game reset or restored that way starts its ``episode_return`` and
``episode_length`` again (they count the batch's steps); a game left with no seat to act
(restored to a finished game) is refused by ``step`` until it is reset.

Arrays are returned fresh on every call (safe to keep in a rollout buffer).
``with BatchedEnv(...) as venv:`` closes it at the end of the block.
A batch is not thread-safe: step it from one thread at a time. At most
``MAX_BATCH_GAMES`` (100,000) games; ``env_fn`` must build a new Kitchen Arena
ParallelEnv on every call, all of one configuration (checked). It copies and
pickles mid-game; the process form (``ProcessBatchedEnv``) refuses to.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Iterator, Mapping, Sequence

import numpy as np

import envs
from envs.core.config import differing_options
from envs.core.inputs import checked_int, shown
from envs.core.tick_env import TickParallelEnv

_NONE: dict = {}  # no action replaced (shared, never written)
_CLOSED = "this BatchedEnv is closed; build a new one"
_SMALL_BATCH = 40  # seats up to which the legality check loops in Python (the loop costs as much at about 40)
_WORDWISE_FROM = 8192  # mask entries (wide rows) from which random_legal_actions reads a word at a time


def seeds_for(seed: int | Sequence[int | None] | None, num_games: int) -> list[int | None]:
    """Per-game seeds: an int ``s`` gives ``s, s+1, ...``; a sequence is used
    as is (its length must be ``num_games``); None leaves every game unseeded.
    Every seed is checked (an integer >= 0) before any game is reset."""
    allowed = f"give None, one int, or a sequence of exactly {num_games} ints or None (one per game)"
    if seed is None:
        return [None] * num_games
    if isinstance(seed, np.ndarray) and seed.ndim == 0:  # a numpy scalar array: its value
        seed = seed.item()
    if _is_int(seed):
        if seed < 0:
            raise ValueError(f"seed={shown(int(seed))} is not allowed: seeds are non-negative integers; {allowed}")
        return [int(seed) + i for i in range(num_games)]
    if isinstance(seed, (str, bytes)) or not isinstance(seed, (Sequence, np.ndarray)):
        raise ValueError(f"seed={shown(seed)} (a {type(seed).__name__}) is not allowed; {allowed}")
    seeds = list(seed)
    if len(seeds) != num_games:
        raise ValueError(f"got {len(seeds)} seeds for {num_games} games; {allowed}")
    for i, s in enumerate(seeds):
        if s is not None and not _is_int(s):
            raise ValueError(f"seed {shown(s)} (a {type(s).__name__}) for game {i} is not allowed; {allowed}")
        if s is not None and s < 0:
            raise ValueError(f"seed {shown(int(s))} for game {i} is not allowed: seeds are non-negative integers; {allowed}")
    return [None if s is None else int(s) for s in seeds]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def env_options(env_kwargs: Any) -> dict:
    """A copy of ``env_kwargs`` (None: no options); ValueError if it is not a mapping whose keys are
    option names (a key that was no string reached the env as a bare ``TypeError``)."""
    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise ValueError(f"env_kwargs must be a dict of the env's options, got a {type(env_kwargs).__name__}")
    out = dict(env_kwargs or {})
    for key in out:
        if not isinstance(key, str):
            raise ValueError(f"env_kwargs key {shown(key)} (a {type(key).__name__}) is not allowed: env_kwargs maps "
                             f"the env's option names (strings) to their values")
    return out


def action_array(actions: Any, num_games: int, num_seats: int) -> np.ndarray:
    """``np.asarray(actions)``, or a ValueError saying what is allowed where numpy cannot make
    one array of it (rows of different lengths, objects that are not numbers)."""
    try:
        return np.asarray(actions)
    except (ValueError, TypeError) as e:
        raise ValueError(f"actions must be an array of integers of shape (num_games, num_seats) = "
                         f"{(num_games, num_seats)}; got {shown(actions)}, which is not one array ({e})") from None


#: the most games one vector env holds (each is a whole env: 10**9 of them built until memory ran
#: out, and the process form's shared arrays for 10**12 asked for 21.8 TiB)
MAX_BATCH_GAMES = 100_000


def check_count(name: str, value: Any, most: int | None = None) -> int:
    """``value`` as an int if it is an integer >= 1 (and <= ``most``): :func:`envs.core.inputs.checked_int`."""
    return checked_int(value, name, 1, most)


def random_legal_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per mask row (``masks[..., A]`` -> ``[...]``;
    a row with no legal action gets 0).

    A large batch of wide, sparse masks (rows of 128 actions or more, as Wok
    Star's 991 and Waroong Wars' 300-404 with a few legal, and 8,192 entries
    or more) is read eight bytes at a time: only the non-zero words are
    expanded to legal indices, then each row picks one of its own with one
    uniform draw (a quarter of the cost of a key per action at 64 games,
    which the benchmark's draw over every mask of a batch felt). Otherwise
    (narrow rows as Frying Master's 55, or a few games, where the fixed cost
    of those steps is larger) each action gets a uniform float32 key, illegal
    ones pushed below every legal one."""
    a = masks.shape[-1]
    if a < 128 or masks.size < _WORDWISE_FROM:
        keys = rng.random(masks.shape, dtype=np.float32)
        keys[masks == 0] = -1.0
        return keys.argmax(axis=-1)
    flat = np.ascontiguousarray(masks).reshape(-1)
    n = flat.size // a
    if flat.dtype.itemsize == 1 and flat.size % 8 == 0:
        words = np.flatnonzero(flat.view(np.uint64))
        within = np.flatnonzero(flat.reshape(-1, 8)[words])
        legal = words[within >> 3] * 8 + (within & 7)
    else:
        legal = np.flatnonzero(flat)
    counts = np.bincount(legal // a, minlength=n)
    first = np.cumsum(counts) - counts
    pick = first + (rng.random(n) * counts).astype(np.intp)
    out = np.zeros(n, dtype=np.intp)
    some = counts > 0
    out[some] = legal[pick[some]] - np.flatnonzero(some) * a
    return out.reshape(masks.shape[:-1])


def _check_games(games: list) -> None:
    """The games an ``env_fn`` built: each a Kitchen Arena ParallelEnv of its own, all of one
    configuration (class, seats, spaces, and every option: one that leaves the spaces alone
    still changes what the game's batch observer writes). The same env returned every time was
    stepped N times a batch step; games of other player counts failed later in numpy."""
    for i, e in enumerate(games):
        if not isinstance(e, TickParallelEnv):
            raise TypeError(f"env_fn built a {type(e).__name__} for game {i}; allowed: a Kitchen Arena ParallelEnv "
                            f"(a <game>_vN.parallel_env(...))")
    if len({id(e) for e in games}) != len(games):
        raise ValueError("env_fn returned the same env object for several games; each game needs an env of its own "
                         "(build a new one on every call)")

    def shape_of(e) -> tuple:
        a = e.possible_agents[0]
        return (type(e).__name__, list(e.possible_agents), e.observation_space(a)["observation"].shape,
                int(e.action_space(a).n), e.illegal_action)

    first = shape_of(games[0])
    for i, e in enumerate(games[1:], 1):
        if shape_of(e) != first:
            raise ValueError(f"game {i} is not of game 0's configuration ((class, agents, observation shape, actions, "
                             f"illegal_action) {shape_of(e)} against {first}); a batch holds games of one configuration")
        if e.config != games[0].config:  # (options that leave the spaces alone: a game's observer serves one config)
            differ = differing_options(e.config, games[0].config)
            raise ValueError(f"game {i} is not of game 0's configuration: options {differ} differ "
                             f"({shown({k: e.config.get(k) for k in differ})} against "
                             f"{shown({k: games[0].config.get(k) for k in differ})}); a batch holds games of one "
                             f"configuration")


def random_action_inputs(rng: Any, masks: Any, shape: tuple[int, int, int]) -> np.ndarray:
    """``masks`` as an array, checked with ``rng`` for the vector envs' ``random_actions``: a numpy
    ``Generator`` and masks of the batch's shape (a ``(2, 3)`` mask was answered ``[0 1]``, a
    missing generator was an ``AttributeError``)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"random_actions needs a numpy Generator (np.random.default_rng(seed)); got "
                        f"{type(rng).__name__}")
    m = np.asarray(masks)
    if m.shape != shape:
        raise ValueError(f"masks must have shape (num_games, num_seats, actions) = {shape}; got {m.shape}")
    if m.dtype.kind not in "biu":
        raise ValueError(f"masks must be 0/1 integers or booleans (as the vector env returns them: int8); got dtype "
                         f"{m.dtype}")
    if m.dtype.kind != "b" and m.size and (m.min() < 0 or m.max() > 1):
        raise ValueError(f"masks must hold only 0 (illegal) and 1 (legal); got values from {int(m.min())} to "
                         f"{int(m.max())}")
    return m


def all_live_legal(masks_flat: np.ndarray, rows: np.ndarray, acts: np.ndarray, alive: np.ndarray) -> bool:
    """Whether every live seat's action of ``acts`` ``(N, P)`` is in range and legal under
    ``masks_flat`` ``(N * P, A)`` (``rows`` = ``arange(N * P)``): one gather and one reduction,
    the common case of a batch's legality check (False: look closer, to say which is wrong)."""
    flat = acts.reshape(-1)
    if flat.min() < 0 or flat.max() >= masks_flat.shape[1]:
        return False
    legal = masks_flat[rows, flat]
    return bool(legal.all() or not ((legal == 0).reshape(acts.shape) & alive).any())


def read_only(arr: np.ndarray) -> np.ndarray:
    """A view of ``arr`` that refuses writes (``arr`` itself stays writable)."""
    view = arr.view()
    view.flags.writeable = False
    return view


def _fast_path_serves(env) -> bool:
    """Whether :meth:`BatchedEnv._step_fast` gives exactly what ``env.step`` gives:
    a Kitchen Arena env with the core's own step and observation, compact infos,
    no masks in infos and no human rendering."""
    cls = type(env)
    return (isinstance(env, TickParallelEnv) and cls.step is TickParallelEnv.step
            and cls._step_validated is TickParallelEnv._step_validated and cls._observe is TickParallelEnv._observe
            and not env.verbose_infos and not env.mask_in_infos and env.render_mode != "human")


class AgentInfos(Mapping):
    """One game's per-agent infos of a step, as ``env.step`` returns them
    (``{agent: {"tick", "action", "blocked", "illegal_replaced"}}``), built
    only when read (training reads them rarely; building them every step
    cost as much as a game's bookkeeping)."""

    __slots__ = ("_joint", "_replaced", "_blocked", "_tick", "_built")

    def __init__(self, joint: Mapping[str, int], replaced: Collection[str], blocked: Collection[str], tick: int):
        """``replaced``, ``blocked``: the agents whose action was replaced (illegal) or blocked
        (the engine's mappings to the reason, or any collection of the names: only membership is read)."""
        self._joint, self._replaced, self._blocked, self._tick = joint, replaced, blocked, tick
        self._built: dict | None = None

    def _dict(self) -> dict:
        if self._built is None:
            tick, blocked, replaced = self._tick, self._blocked, self._replaced
            self._built = {a: {"tick": tick, "action": act, "blocked": a in blocked, "illegal_replaced": a in replaced}
                           for a, act in self._joint.items()}
        return self._built

    def __getitem__(self, agent: str) -> dict:
        return self._dict()[agent]

    def __iter__(self) -> Iterator[str]:
        return iter(self._joint)

    def __len__(self) -> int:
        return len(self._joint)

    def __repr__(self) -> str:
        return repr(self._dict())

    def __reduce__(self):
        return (AgentInfos, (self._joint, self._replaced, self._blocked, self._tick))


class BatchedEnv:
    """``num_games`` copies of one ParallelEnv stepped together (see module doc)."""

    def __init__(self, env_id: str, num_games: int, env_kwargs: Mapping[str, Any] | None = None,
                 env_fn: Callable[[], Any] | None = None):
        """``env_id`` names a registered env built with ``env_kwargs``; or
        ``env_fn`` (a no-argument factory of a Kitchen Arena ParallelEnv, e.g.
        a game outside the registry) builds each game, ``env_id`` then only
        names it."""
        num_games = check_count("num_games", num_games, MAX_BATCH_GAMES)
        self.env_id = env_id
        self.env_kwargs = env_options(env_kwargs)
        if env_fn is not None and not callable(env_fn):
            raise TypeError(f"env_fn={shown(env_fn)} (a {type(env_fn).__name__}) is not allowed: give a function of "
                            f"no arguments that builds one Kitchen Arena ParallelEnv, or None (env_id and env_kwargs)")
        if env_fn is None:
            module = envs.get_env_module(env_id)
            kwargs = self.env_kwargs
            env_fn = lambda: module.parallel_env(**kwargs)  # noqa: E731
        elif self.env_kwargs:
            raise ValueError(f"env_kwargs={shown(self.env_kwargs)} with env_fn: the factory builds each game, so "
                             f"these options would be shown and not used; give them to the factory")
        self.envs = []
        try:
            for _ in range(num_games):
                self.envs.append(env_fn())
            _check_games(self.envs)
        except BaseException:  # (the games built so far are closed: a factory may hold resources)
            for env in self.envs:
                close = getattr(env, "close", None)
                if callable(close):
                    try:
                        close()
                    except Exception:  # noqa: BLE001 - the first error is the one to report
                        pass
            raise
        env0 = self.envs[0]
        self.possible_agents: list[str] = list(env0.possible_agents)
        self.num_games = len(self.envs)
        self.num_seats = len(self.possible_agents)
        space = env0.observation_space(self.possible_agents[0])
        self.obs_size = int(space["observation"].shape[0])
        self.n_actions = int(env0.action_space(self.possible_agents[0]).n)
        self.observation_space = space
        self.action_space = env0.action_space(self.possible_agents[0])
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        n, p = self.num_games, self.num_seats
        self._obs = np.zeros((n, p, self.obs_size), dtype=np.float32)
        self._masks = np.zeros((n, p, self.n_actions), dtype=np.int8)
        self._alive = np.zeros((n, p), dtype=bool)  # (``alive``: a read-only view of it)
        self._returns = np.zeros((n, p), dtype=np.float64)
        self._clock = 0  # batched steps so far; game i's episode started at step _started_at[i]
        self._started_at = [0] * n
        self._stamps: list[tuple] = [(None, 0)] * n  # game i's engine and its edits as of its row (_stamp)
        self._started = False
        self._closed = False
        self._fast = all(_fast_path_serves(e) for e in self.envs)
        self._make_views()
        self._flat_rows = np.arange(n * p)
        self._shape = (n, p)
        self._noop = env0.illegal_action == "noop"
        #: every seat's observations and masks of many games at once, where the game has it
        self._observer = env0.encoder.batch_observer(self.num_games) if self._fast else None

    def _use_buffers(self, obs: np.ndarray, masks: np.ndarray, alive: np.ndarray) -> None:
        """Keep the observations, masks and ``alive`` in these arrays from now on
        (e.g. views of shared memory, :mod:`envs.vector.process`); their current
        values are copied over."""
        obs[...] = self._obs
        masks[...] = self._masks
        alive[...] = self._alive
        self._obs, self._masks, self._alive = obs, masks, alive
        self._make_views()

    @property
    def alive(self) -> np.ndarray:
        """``(N, P)`` bool: the seats that act in the current state (a read-only view of the batch's
        own array, which every step updates in place: the legality check reads it, so a write from
        outside, ``alive[:] = False``, had let illegal actions through; copy it to keep or change it)."""
        return self._alive_view

    @property
    def num_agent_slots(self) -> int:
        return self.num_games * self.num_seats

    # ------------------------------------------------------------------ internals
    def _write(self, i: int, obs: Mapping[str, Mapping[str, np.ndarray]], live: Sequence[str]) -> None:
        """Store game ``i``'s observations of the seats ``live`` (others: zeros, noop-only)."""
        o_arr, m_arr, alive, seat = self._obs[i], self._masks[i], self._alive[i], self._seat
        partial = len(live) != self.num_seats
        if partial:  # some seats sit out: clear them first
            o_arr[:] = 0.0
            m_arr[:] = 0
            m_arr[:, 0] = 1
        alive[:] = not partial
        for a in live:
            s = seat[a]
            o_arr[s] = obs[a]["observation"]
            m_arr[s] = obs[a]["action_mask"]
            alive[s] = True

    def _reset_game(self, i: int, seed: int | None) -> dict:
        env = self.envs[i]
        obs, info = env.reset(seed=seed)
        self._returns[i] = 0.0
        self._started_at[i] = self._clock
        self._write(i, obs, env.agents)
        engine = env.engine
        self._stamps[i] = (engine, engine._edits, engine.tick)
        return info

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | Sequence[int | None] | None = None):
        """Start a game in every slot. Returns ``(obs, masks, infos)``."""
        infos = self._reset_arrays(seed)
        return self._obs.copy(), self._masks.copy(), infos

    def _reset_arrays(self, seed) -> list[dict]:
        """:meth:`reset` leaving the observations and masks in the batch's own arrays."""
        if self._closed:
            raise RuntimeError(_CLOSED)
        seeds = seeds_for(seed, self.num_games)
        infos = [self._reset_game(i, s) for i, s in enumerate(seeds)]
        self._started = True
        self._stamp()
        return infos

    def _stamp(self) -> None:
        """Note each game's engine, its count of outside changes (``invalidate_masks``) and its tick as
        of the rows just written, so that :meth:`_reread_changed` finds a game changed between steps.
        (The fast path notes each game it steps; a game it starts again is noted by :meth:`_reset_game`.)"""
        self._stamps = [(e.engine, e.engine._edits, e.engine.tick) for e in self.envs]

    def _reread_changed(self) -> None:
        """A game changed outside the batch since its row was written (``envs[i].restore(...)``,
        ``envs[i].reset()``, ``envs[i].step(...)``, its engine changed and ``invalidate_masks()``
        called): its row is read again from the env, so that the step checks its actions against its
        real masks (the fast path had applied them unchecked: a Waroong Wars pack count went to -1;
        a step made outside changed no note until the tick joined them). A game with a new engine
        (reset or restored) starts its episode's return and length again. A game with no seat left
        to act (restored to a finished game, or played to its end outside) is refused, before any
        game steps: stepping it had reported an end without its flags, or stepped the games before
        it and then raised."""
        now = [(e.engine, e.engine._edits, e.engine.tick) for e in self.envs]
        if now == self._stamps:  # (one list comparison: engines compare by identity)
            return
        over = None
        for i, (e, was, stamp) in enumerate(zip(self.envs, self._stamps, now)):
            if stamp != was:
                live = list(e.agents)
                if not live:  # (its row stays as it was, and so does its note: refused until it is reset)
                    over = i if over is None else over
                    continue
                self._write(i, {a: e.observe(a) for a in live}, live)
                if e.engine is not was[0]:  # a new game: its return and length count from here
                    self._returns[i] = 0.0
                    self._started_at[i] = self._clock
                self._stamps[i] = stamp
        if over is not None:
            raise RuntimeError(f"game {over} has no seat left to act: it was changed outside the batch (restored to "
                               f"a finished game, or stepped to its end); reset it (envs[{over}].reset(...)) or the "
                               f"batch (reset()) before step(); no game was stepped")

    def step(self, actions: np.ndarray):
        """One joint step of every game. ``actions``: ``(N, P)`` integers
        (entries of seats that are not alive are ignored). Returns ``(obs,
        masks, rewards, terminated, truncated, infos)``; ``infos[i]`` is a dict
        per game: ``agents`` (the env's per-agent infos, a read-only mapping
        built when first read) and, at an episode end, the final-observation
        entries of the module doc."""
        rewards, terminated, truncated, infos = self._advance(actions)
        return self._obs.copy(), self._masks.copy(), rewards, terminated, truncated, infos

    def _advance(self, actions: np.ndarray, checked: bool = False):
        """:meth:`step` leaving the observations and masks in the batch's own
        arrays (no copies); returns ``(rewards, terminated, truncated, infos)``.
        ``checked``: the caller has already checked the batch against these
        masks as :meth:`_check_legal` does (:class:`ProcessBatchedEnv` checks
        the whole batch once, before any shard steps)."""
        if not self._started:
            raise RuntimeError(_CLOSED if self._closed else "call reset() before step()")
        acts = actions if type(actions) is np.ndarray else action_array(actions, self.num_games, self.num_seats)
        if acts.shape != self._shape:
            raise ValueError(f"actions must have shape (num_games, num_seats) = {(self.num_games, self.num_seats)}, "
                             f"got {acts.shape}")
        if acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers (indices into Discrete({self.n_actions})), got dtype {acts.dtype}")
        if not checked:
            self._reread_changed()
            self._check_legal(acts)
        if self._fast:
            return self._step_fast(acts)
        out = self._step_reference(acts)
        self._stamp()
        return out

    def _step_fast(self, acts: np.ndarray):
        """:meth:`step` with the engines directly: each game's joint action goes
        to ``engine.step_validated`` (with ``illegal_action="raise"`` the batch
        was checked against the masks already; with ``"noop"`` the engine's
        ``validate`` replaces illegal actions), and every live seat's observation
        and mask are written straight into the stacked arrays (when every seat
        acts, the observations with the encoder's ``observe_seats``: one gather
        for all seats; from the observer's ``min_games`` such games that do not end this step, the
        game's batch observer, ``encoder.batch_observer``, writes all of them at once). The env's own
        state (``agents``, its last step) is kept as ``env.step`` leaves it, so
        its methods (``last_step_details``, ``observe``, ``state``) and the
        per-game reference path (:meth:`_step_reference`) agree with it exactly
        (tests/vector holds the two equal)."""
        n, p = self.num_games, self.num_seats
        zeros = [0.0] * p
        rew_rows: list[list[float]] = []
        ends: list[tuple[int, list[int], bool]] = []  # (game, its acting seats, terminated)
        any_reward = nonzero = False  # a reward row built; one with a value that is not 0
        infos: list[dict] = []
        ended: list[tuple[int, dict]] = []
        act_list = acts.tolist()
        seat = self._seat
        o_all, m_all, alive_all, game_rows = self._obs, self._masks, self._alive, self._rows
        noop = self._noop
        stamps = self._stamps
        observer = self._observer
        if observer is not None and n < observer.min_games:  # (too few games ever: each written in the loop)
            observer = None
        rows: list[int] = []  # games whose seats the observer writes after the loop
        engines: list = []
        for i, env in enumerate(self.envs):
            row = act_list[i]
            acting = env.agents
            engine = env.engine
            joint = {a: row[seat[a]] for a in acting}
            if noop:
                joint, replaced = engine.validate(joint, "noop")
            else:
                replaced = _NONE
            result = engine.step_validated(joint)
            stamps[i] = (engine, engine._edits, engine.tick)  # (what _reread_changed compares: this step is ours)
            term = engine.done
            trunc = (not term) and engine.tick >= env.max_ticks
            over = term or trunc
            env._last_step = (joint, replaced, result, over)
            rew = result.rewards
            if rew:
                r_row = zeros.copy()
                for a in acting:
                    r_row[seat[a]] = float(rew.get(a, 0.0))
                rew_rows.append(r_row)
                any_reward = True
                if not nonzero and r_row != zeros:  # (== compares 0.0 and -0.0 equal, as adding them does)
                    nonzero = True
            else:
                rew_rows.append(zeros)
            game_info: dict[str, Any] = {"agents": AgentInfos(joint, replaced, result.blocked, engine.tick)}
            if over:
                write = acting
                env.agents = []
                ends.append((i, [seat[a] for a in acting], term))
            else:
                write = env.agents = engine.live_agents()
            if len(write) == p:
                if len(acting) != p:  # (else every seat was alive already)
                    alive_all[i] = True
                if observer is not None and not over:
                    rows.append(i)
                    engines.append(engine)
                    infos.append(game_info)
                    continue  # (its observations and masks are written after the loop; it did not end)
                o_arr, m_arr = game_rows[i]
                env.encoder.observe_seats(engine, o_arr)  # engine.agents: agent_ids(config), as possible_agents
                engine.masks_into(m_arr)
            else:  # some seats sit out: zeros, noop only
                o_arr, m_arr = game_rows[i]
                observe, mask = env.encoder.observe, engine.action_mask
                o_arr[:] = 0.0
                m_arr[:] = 0
                m_arr[:, 0] = 1
                alive_row = alive_all[i]
                alive_row[:] = False
                for a in write:
                    s = seat[a]
                    o_arr[s] = observe(engine, a)
                    m_arr[s] = mask(a)
                    alive_row[s] = True
            if over:  # record the end; the next game starts once returns are summed
                if trunc:  # noop is legal in the final masks, as after a game's end
                    for a in write:
                        m_arr[seat[a], 0] = 1
                game_info.update(final_observation=o_arr.copy(), final_action_mask=m_arr.copy(),
                                 outcome=engine.outcome())
                if not term:  # cut before the game's end: what each seat can know of it (outcome_seen_by)
                    game_info["outcomes_seen"] = {a: engine.outcome_seen_by(a) for a in write}
                ended.append((i, game_info))
            infos.append(game_info)
        if observer is not None and len(rows) >= observer.min_games:
            observer.observe(rows, engines, o_all, m_all)
        else:  # too few games for the batch's fixed cost: one by one
            for i, engine in zip(rows, engines):
                o_arr, m_arr = game_rows[i]
                self.envs[i].encoder.observe_seats(engine, o_arr)
                engine.masks_into(m_arr)
        rewards = np.array(rew_rows, dtype=np.float64) if any_reward else np.zeros((n, p), dtype=np.float64)
        terminated = np.zeros((n, p), dtype=bool)
        truncated = np.zeros((n, p), dtype=bool)
        for i, seats, term in ends:  # the acting seats of a game that ended get its end flag
            (terminated if term else truncated)[i, seats] = True
        if nonzero:  # (adding zeros would change nothing: returns are never -0.0)
            self._returns += rewards
        self._end_step(ended)
        return rewards, terminated, truncated, infos

    def _step_reference(self, acts: np.ndarray):
        """:meth:`step` through each game's PettingZoo ``env.step`` and its dicts (the
        readable definition; used for envs the fast path does not serve: another
        ``step``, verbose infos, masks in infos, human rendering)."""
        n, p = self.num_games, self.num_seats
        rew_rows = [[0.0] * p for _ in range(n)]
        term_rows = [[False] * p for _ in range(n)]
        trunc_rows = [[False] * p for _ in range(n)]
        infos: list[dict] = []
        ended: list[tuple[int, dict]] = []
        act_list = acts.tolist()
        seat = self._seat
        for i, env in enumerate(self.envs):
            row = act_list[i]
            joint = {a: row[seat[a]] for a in env.agents}
            obs, rew, term, trunc, info = env.step(joint)
            r_row, te_row, tr_row = rew_rows[i], term_rows[i], trunc_rows[i]
            for a, r in rew.items():
                s = seat[a]
                r_row[s] = r
                te_row[s] = term[a]
                tr_row[s] = trunc[a]
            game_info: dict[str, Any] = {"agents": info}
            if env.agents:
                if len(env.agents) > len(obs):  # a seat that sat out acts again (``step`` observed the others)
                    obs = {**obs, **{a: env.observe(a) for a in env.agents if a not in obs}}
                self._write(i, obs, env.agents)
            else:  # the game ended on this step: record it, start the next once returns are summed
                self._write(i, obs, list(obs))
                game_info.update(final_observation=self._obs[i].copy(), final_action_mask=self._masks[i].copy(),
                                 outcome=env.engine.outcome())
                if not any(term.values()):  # cut before the game's end (as the fast path)
                    game_info["outcomes_seen"] = {a: env.engine.outcome_seen_by(a) for a in obs}
                ended.append((i, game_info))
            infos.append(game_info)
        rewards = np.array(rew_rows, dtype=np.float64)
        terminated = np.array(term_rows, dtype=bool)
        truncated = np.array(trunc_rows, dtype=bool)
        self._returns += rewards
        self._end_step(ended)
        return rewards, terminated, truncated, infos

    def _end_step(self, ended) -> None:
        """The step's clock tick, and each game that ended: its return and length in its info, then
        auto-reset (both paths of :meth:`step`)."""
        self._clock += 1
        for i, game_info in ended:
            game_info.update(episode_return=self._returns[i].copy(), episode_length=self._clock - self._started_at[i])
            self._reset_game(i, None)

    def _check_legal(self, acts: np.ndarray) -> None:
        """With ``illegal_action="raise"``, refuse the whole batch before any
        game steps if one live seat's action is out of range or illegal, with
        the env's own error (it names the agent, the action, why, and what is
        legal): a failed step changes nothing. (With ``"noop"`` each env
        replaces illegal actions itself and flags them in its infos.)"""
        if self._noop:
            return
        n = self.n_actions
        if acts.size <= _SMALL_BATCH:  # a few seats: a plain loop is cheaper than numpy's calls
            masks, alive = self._masks_flat, self._alive.ravel().tolist()
            for k, a in enumerate(acts.ravel().tolist()):
                if alive[k] and not (0 <= a < n and masks.item(k, a)):
                    break
            else:
                return
        elif all_live_legal(self._masks_flat, self._flat_rows, acts, self._alive):
            return
        legal = np.take_along_axis(self._masks, np.clip(acts, 0, n - 1)[..., None], -1)[..., 0]
        wrong = self._alive & ((legal == 0) | (acts < 0) | (acts >= n))
        if wrong.any():
            i = int(np.argwhere(wrong)[0][0])
            env = self.envs[i]
            env.engine.validate({a: int(acts[i, self._seat[a]]) for a in env.agents}, "raise")
            p = int(np.argwhere(wrong)[0][1])  # not reached: validate raised
            raise ValueError(f"game {i}, {self.possible_agents[p]}: action {int(acts[i, p])} is not legal now")

    def random_actions(self, rng: np.random.Generator, masks: np.ndarray | None = None) -> np.ndarray:
        """Uniformly random legal actions ``(N, P)`` for ``masks`` (default: the current ones, a game
        changed outside the batch read again first, as :meth:`step` reads it)."""
        shape = (self.num_games, self.num_seats, self.n_actions)
        if masks is None and self._started:
            self._reread_changed()
        return random_legal_actions(rng, random_action_inputs(rng, self._masks if masks is None else masks, shape))

    def close(self) -> None:
        """Close every game's env; the batch then refuses ``reset`` and ``step``, as
        :class:`ProcessBatchedEnv` does (closing twice is harmless)."""
        self._closed = True
        self._started = False
        for env in self.envs:
            env.close()

    #: attributes that are views of the batch's arrays, made again after a copy or an unpickling
    #: (pickle and deepcopy give a view a buffer of its own: a copy's legality check read the masks
    #: as they were when it was copied, and its games were written where nothing read them)
    _VIEWS = ("_masks_flat", "_rows", "_alive_view")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self._VIEWS}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_views()

    def _make_views(self) -> None:
        """The views of :data:`_VIEWS`: the masks one row per seat (``_masks_flat``), and each game's
        ``(observations, masks)`` (``_rows``), and ``alive``'s read-only view; the arrays are written in
        place only."""
        self._masks_flat = self._masks.reshape(self.num_games * self.num_seats, self.n_actions)
        self._rows = list(zip(self._obs, self._masks))
        self._alive_view = read_only(self._alive)

    def __enter__(self) -> "BatchedEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BatchedEnv({self.env_id!r}, num_games={self.num_games}, env_kwargs={self.env_kwargs})"
