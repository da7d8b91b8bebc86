"""A search player for every game: determinised Monte-Carlo search at the root (UCB1).

Each searched decision of one seat (:class:`Planner`, :class:`PlannerPolicy`):

1. **Determinise.** Up to ``samples`` full engines are drawn from the game's
   ``envs/<game>/determinize.py`` (``determinize(engine, viewer, rng, own_actions, memory)``): every
   hidden part of the state (deck orders, face-down cards, other players' hands, the engine's
   generator) re-sampled consistently with what the deciding seat has seen, never read from
   the true state. Sample ``k`` is drawn the first time a simulation needs it (progressive
   per-sample determinisation); world ``m`` is sample ``m mod samples`` with its own seed.
2. **Select** the arms worth searching: by default the game's choice (``search_arms`` of its
   determinize.py: the decisions with a real choice and their candidate moves; any other
   decision is the rollout policy's move, unsearched), each next simulation to the open arm
   played least; with ``arms=all`` every legal action, by UCB1
   (mean value + ``c * sqrt(ln N / n_a)``) over the
   *active* legal actions. Progressive widening: the arms open one at a time, the rollout
   policy's own choice first, then ``noop``, then the rest in a seeded random order (``widen=
   "prior"``: the rest in the rollout policy's preference order, :meth:`Rollout.preferences`), so that
   about ``1 + sqrt(N)`` arms are active after ``N`` simulations (every arm once the budget
   allows); an arm is tried once before UCB1 ranks it.
3. **Simulate** on ``sample.clone()`` with a fresh generator (the future chance events):
   the deciding seat plays the arm this tick, every other live seat (partners, opponents,
   simultaneous movers) plays the rollout policy, and from the next tick on every seat
   plays the rollout policy, to the end of the game (or ``horizon`` ticks). With an ``others``
   model (:class:`Rollout`), the other seats play that policy instead and the rollout policy
   plays the deciding seat only; with :class:`SeatModels` as that model, each other seat plays
   the model its world names (a determinisation's ``sim_models``).
4. **Value** from ``outcome()`` (:meth:`Planner.value`): cooperative, the team's (win 1, plus
   a small share for the income); competitive, the seat's own (its share of the win, its rank
   by score among the players and its score margin over the best other; at a ``horizon`` cut,
   rank and margin). With a learned ``leaf`` value (``value=checkpoint:DIR``: a trained
   checkpoint's critic), a simulation cut before the game's end is worth ``LEAF_WEIGHT`` of the
   critic's estimate for the seat and the rest of that rank-and-margin value.

Every arm's ``m``-th simulation plays the same world ``m`` (determinisation ``m mod samples``
and one generator seed): common random numbers, so that arms differ by their action, not by
luck. The decision is the rollout policy's own choice (asked once per decision, of the real table,
through policy objects that never play in a simulation, so a policy that remembers, such as
Waroong Wars' drafter, remembers the real game) unless another arm beats it on the worlds both
played by more than ``CONFIDENCE_Z`` standard errors of the paired differences (a policy
improvement step that noise alone rarely triggers; ``rule="t"``: the Student-t quantile at that
level instead, :func:`t_quantile`). ``width`` caps the arms a decision weighs at the first few of
the opening order. A seat with
one legal action plays it without search. With a simulation budget (``sims``) a decision
depends only on the seed, the public information and the seat's own past actions; a time
budget (``ms``) stops on the clock. Pure Python and numpy: no PettingZoo here.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache, partial
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from envs.core.engine import NOOP, GameEngine
from envs.core.policy import Policy, table_engine
from envs.core.seeding import make_rng

#: ``determinize(engine, viewer, rng, own_actions, memory) -> engine``: see each game's determinize.py
Determinizer = Callable[[GameEngine, str, np.random.Generator, Sequence[int], Sequence[Any]], GameEngine]
#: ``remember(engine, viewer) -> item | None``: what a perfect memory keeps of this moment, public
#: to ``viewer`` (each game's determinize.py may define it; the items reach ``determinize``)
Remember = Callable[[GameEngine, str], Any]
#: ``search_arms(engine, agent, first, legal) -> arms``: the root actions worth searching (each
#: game's determinize.py); ``first`` (the rollout policy's choice) leads, fewer than two: no search
ArmChooser = Callable[[GameEngine, str, int, Sequence[int]], Sequence[int]]
#: ``round_of(engine) -> int``: which round (or day) the game is in (each game's determinize.py);
#: the ``horizon="round"`` cut is where it changes
RoundOf = Callable[[GameEngine], int]
#: the order in which progressive widening opens the arms after the rollout policy's own choice:
#: ``random`` (``noop`` next, then a seeded random order) or ``prior`` (the rollout policy's
#: preference order, where it has one: a trained checkpoint's logits, Waroong Wars' heuristic's
#: pick values; else ``random``'s)
WIDEN = ("random", "prior")
#: UCB1's exploration constant for values in about [0, 1]
EXPLORATION = 0.7
#: how many standard errors a paired gain over the rollout policy's own choice must exceed
CONFIDENCE_Z = 1.5
#: how the paired rule reads ``z`` (:meth:`Planner._choose`): ``z``, a gain must exceed ``z``
#: standard errors; ``t``, it must exceed the Student-t quantile with ``k - 1`` degrees of freedom
#: (``k`` paired worlds) at the one-sided level that ``z`` has under the normal curve
#: (:func:`t_quantile`): stricter where few worlds were played (the standard error is itself
#: an estimate then), the same as ``z`` on many
RULES = ("z", "t")
#: a rollout that has not ended after this many ticks is valued where it stands
ROLLOUT_TICK_CAP = 20_000
#: with a learned ``leaf`` value, its share of a cut simulation's worth (the rest: rank and margin).
#: Half and half: measured on 3-player Waroong Wars at the rounds' ends (docs/search.md), the
#: critic of ``waroong_wars/memory`` and the rank-and-margin value have about the same spread, and
#: the even blend ranked the final results within 0.004 AUC of the better of the two at every round
#: and above both at rounds 3 and 4 (it did not make the play measurably better: docs/search.md).
LEAF_WEIGHT = 0.5
#: ``leaf(engine, agent) -> float``: a learned estimate of ``agent``'s result from ``engine``'s state
#: (:func:`training.policies.load_checkpoint_critic`), read where a simulation is cut
Leaf = Callable[[GameEngine, str], float]


def t_cdf(t: float, df: int) -> float:
    """Student's t distribution function at ``t >= 0`` with ``df >= 1`` (an integer) degrees of
    freedom: the closed form of integer ``df`` (a finite sum of powers of cos(atan(t / sqrt(df))))."""
    theta = math.atan(t / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    term = acc = 1.0
    if df % 2:
        if df == 1:
            return 0.5 + theta / math.pi
        for j in range(2, df - 1, 2):
            term *= cos2 * j / (j + 1)
            acc += term
        return 0.5 + (theta + sin * math.cos(theta) * acc) / math.pi
    for j in range(1, df - 2, 2):
        term *= cos2 * j / (j + 1)
        acc += term
    return 0.5 + 0.5 * sin * acc


@lru_cache(maxsize=4096)
def t_quantile(z: float, df: int) -> float:
    """The Student-t quantile with ``df`` degrees of freedom at the level ``Phi(z)`` that ``z``
    (>= 0) has under the normal curve (bisection of :func:`t_cdf`; from 1,000 degrees of freedom
    on, ``z`` itself: the two differ by less than 0.3% there for ``z`` up to 3)."""
    if df >= 1000 or z == 0:
        return z
    p = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    lo, hi = 0.0, max(1.0, 2.0 * z)
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class SearchBudget:
    """Per searched decision: a time budget (``ms``) or a simulation budget (``sims``), never both;
    ``samples`` determinisations; ``horizon``: how far a rollout runs: ``0`` to the end of the
    game, ``N`` at most N ticks, ``"score"`` until a player's score changes (Frying Master: the
    round's Gold Spatulas; Waroong Wars: a menu cooked; Wok Star: a customer served),
    ``"round"`` until the round ends (Frying Master and Waroong Wars: a round; Wok Star: a day)."""

    ms: float | None = 100.0
    sims: int | None = None
    samples: int = 16
    horizon: int | str = 0

    def __post_init__(self) -> None:
        if (self.ms is None) == (self.sims is None):
            raise ValueError(f"a search budget is ms or sims, exactly one (got ms={self.ms!r}, sims={self.sims!r})")
        if self.ms is not None and not (isinstance(self.ms, (int, float)) and self.ms > 0):
            raise ValueError(f"ms must be a number > 0, got {self.ms!r}")
        names = (("sims", 1), ("samples", 1)) + (() if self.horizon in ("score", "round") else (("horizon", 0),))
        for name, low in names:
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < low):
                raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")


class _Table:
    """What a policy reads of an env (``env.unwrapped.engine``), over a bare engine."""

    __slots__ = ("engine",)

    def __init__(self, engine: GameEngine):
        self.engine = engine

    @property
    def unwrapped(self) -> "_Table":
        return self


class Rollout:
    """The policy every seat plays inside the simulations: one :class:`Policy` per seat
    (scripted policies may keep per-seat state), fed the seat's action mask and, when
    ``observe`` is given (a trained policy), its observation vector."""

    def __init__(self, make: Callable[[], Policy], observe: Callable[[GameEngine, str], np.ndarray] | None = None,
                 at_table: Callable[[], Policy] | None = None, others: "Rollout | SeatModels | None" = None):
        if others is not None and others.others is not None:
            raise ValueError("the others' rollout policy cannot have others of its own")
        self.make = make
        self.observe = observe
        self.at_table = at_table  # the same policy's form for the real table (default: ``make``)
        #: the policy the *other* seats play in the simulations (the opponent or partner model);
        #: ``None``: this one plays every seat
        self.others = others
        self.policies: dict[str, Policy] = {}
        self._seats: dict[str, int] = {}  # each policy's seat number (its seed's part)
        self._seed: int | None = None  # the episode's seed, for the policies made during it

    def reset(self, seed: int | None) -> None:
        """A new episode for every seat's policy (``None``: keep the generators; scripted
        policies forget what they remembered of the last one). Seat ``p``'s policy is seeded
        ``seed * 1000 + p``, also when it is made during the episode: one made then had kept
        its maker's seed (``random``: 0), so a planner's first game played otherwise than the same
        game after another one."""
        if seed is not None:  # (None, a simulation's start: the episode's seed stays, for policies made later)
            self._seed = seed
        for agent, p in self.policies.items():
            p.reset(None if seed is None else self._seat_seed(agent))
        if self.others is not None:
            self.others.reset(None if seed is None else seed + 1)

    def _seat_seed(self, agent: str) -> int | None:
        return None if self._seed is None else self._seed * 1000 + self._seats[agent]

    def fresh(self) -> "Rollout":
        """Another rollout of the same policies, with policy objects of its own."""
        return Rollout(self.make, self.observe, self.at_table, None if self.others is None else self.others.fresh())

    def table(self) -> "Rollout":
        """The same policy as it plays at the real table (``at_table``, when the simulations'
        form reads what only a simulated world may show, such as a seat's own face-down cards);
        at the table it plays the deciding seat only, so ``others`` is not kept."""
        return Rollout(self.at_table or self.make, self.observe)

    def act(self, engine: GameEngine, agent: str, me: str | None = None) -> int:
        """``agent``'s move; with an ``others`` model, only the deciding seat ``me`` plays this
        policy and every other seat plays ``others``."""
        if self.others is not None and agent != me:
            return self.others.act(engine, agent)
        p = self.policies.get(agent)
        if p is not None and p.forced_moves_free:  # one legal action: played without observing
            mask = engine.action_mask(agent)
            if np.count_nonzero(mask) == 1:
                return int(np.flatnonzero(mask)[0])
        p, obs = self._seat(engine, agent)
        mask = obs["action_mask"]
        a = int(p.act(obs, agent, _Table(engine)))
        return a if 0 <= a < mask.size and mask[a] else engine.default_action(agent)

    def overruled_by_search(self, agent: str, chosen: int, played: int) -> None:
        """``agent``'s policy chose ``chosen`` and the search played ``played`` (``Policy.overruled_by_search``):
        a policy that remembers its own moves corrects that memory (the Waroong Wars heuristic had kept
        the pick it chose, and reckoned every later pick of the round with a hand the seat did not hold)."""
        p = self.policies.get(agent)
        if p is not None:
            p.overruled_by_search(agent, chosen, played)

    def _seat(self, engine: GameEngine, agent: str) -> tuple[Policy, dict[str, np.ndarray]]:
        """``agent``'s policy object (made on first use) and what it is fed: the action mask and,
        with ``observe``, the observation vector."""
        p = self.policies.get(agent)
        if p is None:
            p = self.policies[agent] = self.make()
            self._seats[agent] = engine.agents.index(agent)
            if self._seed is not None:
                p.reset(self._seat_seed(agent))
        obs = {"action_mask": engine.action_mask(agent)}
        if self.observe is not None:
            obs["observation"] = self.observe(engine, agent)
        return p, obs

    def preferences(self, engine: GameEngine, agent: str) -> np.ndarray | None:
        """How much this policy prefers each action for ``agent`` (higher: more; a trained
        policy's logits), or ``None`` when the policy has no such scores (``preferences`` of
        the policy object: :class:`training.policies.ActorPolicy`, Waroong Wars' heuristic at its
        picks), never changing what the policy remembers."""
        p, obs = self._seat(engine, agent)
        if getattr(p, "preferences", None) is None:
            return None
        prefs = p.preferences(obs, agent, _Table(engine))
        return None if prefs is None else np.asarray(prefs, dtype=np.float64)


class SeatModels:
    """The other seats' models in the simulations by kind (an ``others`` of :class:`Rollout`): a
    determinisation may name each other seat's kind in its ``sim_models`` (``{agent: index into
    rollouts}``, drawn with the world from what the deciding seat has seen, as Waroong Wars' drafters'
    rule reads each seat's drafting); a seat it does not name plays ``rollouts[0]``."""

    others = None

    def __init__(self, rollouts: Sequence[Rollout]):
        self.rollouts = tuple(rollouts)
        if not self.rollouts or any(r.others is not None for r in self.rollouts):
            raise ValueError("SeatModels needs at least one rollout, none with others of its own")

    def reset(self, seed: int | None) -> None:
        for i, r in enumerate(self.rollouts):
            r.reset(None if seed is None else seed + 1000 * i)

    def fresh(self) -> "SeatModels":
        return SeatModels([r.fresh() for r in self.rollouts])

    def act(self, engine: GameEngine, agent: str) -> int:
        kinds = getattr(engine, "sim_models", None)
        return self.rollouts[kinds.get(agent, 0) if kinds else 0].act(engine, agent)


class Planner:
    """Determinised flat Monte-Carlo search with UCB1 at the root (see the module docstring).

    ``determinize``: the game's determinisation; ``rollout``: the simulations' policy;
    ``cooperative``: value the team's outcome (Wok Star) instead of the seat's own;
    ``max_ticks``: the env's truncation tick (rollouts stop there too); ``arms``: the game's
    choice of the root actions worth searching (``search_arms`` of its determinize.py: only the
    decisions with a real choice are searched, over their candidates, :meth:`_balanced`), or
    ``None``: every decision with two legal actions or more, over all of them (UCB1); ``play``:
    the policy of the seat's moves at the real table (its unsearched decisions and the arm a search
    must beat), when it is not the rollout policy (``None``: the rollout policy's)."""

    def __init__(self, determinize: Determinizer, rollout: Rollout, budget: SearchBudget, *,
                 cooperative: bool = False, seed: int | None = 0, max_ticks: int | None = None,
                 clock: Callable[[], float] = time.thread_time, arms: ArmChooser | None = None,
                 remember: Remember | None = None, round_of: RoundOf | None = None, widen: str = "random",
                 z: float = CONFIDENCE_Z, leaf: Leaf | None = None, width: int | None = None, rule: str = "z",
                 play: Rollout | None = None):
        if widen not in WIDEN:
            raise ValueError(f"widen must be one of {', '.join(WIDEN)}, got {widen!r}")
        if isinstance(z, bool) or not isinstance(z, (int, float)) or not 0 <= z <= 10:
            raise ValueError(f"z must be a number in [0, 10], got {z!r}")
        if rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
        if width is not None and (isinstance(width, bool) or not isinstance(width, int) or width < 2):
            raise ValueError(f"width must be an integer >= 2 (the most arms a decision searches) or None, got {width!r}")
        if budget.horizon == "round" and round_of is None:
            raise ValueError("horizon='round' needs the game's round_of (its determinize.py)")
        self.determinize = determinize
        self.remember = remember
        self.round_of = round_of
        self.arms = arms
        self.widen = widen
        self.z = float(z)  # the paired gain over the rollout policy's choice must exceed z standard errors
        self.rule = rule  # how the threshold is read: z standard errors, or the Student-t quantile at z's level
        self.width = width  # the most arms a decision searches, the first in the opening order (None: all)
        self.leaf = leaf  # a learned value where a simulation is cut (None: rank and margin only)
        self.rollout = rollout
        # the move at the table where the planner does not search, and the arm a search must beat: the
        # rollout policy's own (never in a simulation), or ``play``'s when given
        self.root = (rollout if play is None else play).table()
        self.budget = budget
        self.cooperative = bool(cooperative)
        self.max_ticks = max_ticks
        self.clock = clock
        self.rng = make_rng(seed)
        self.stats: dict[str, float] = {"decisions": 0, "searched": 0, "simulations": 0, "seconds": 0.0}

    def reseed(self, seed: int) -> None:
        self.rng = make_rng(seed)
        self.rollout.reset(seed)
        self.root.reset(seed)

    # ------------------------------------------------------------------ one decision
    def decide(self, engine: GameEngine, agent: str, own_actions: Sequence[int] = (),
               memory: Sequence[Any] = ()) -> int:
        """The action for ``agent`` in ``engine``'s state (read through the determinisation only;
        ``own_actions`` and ``memory``: what this seat did and saw before, for the determinisation)."""
        self.stats["decisions"] += 1
        legal = np.flatnonzero(engine.action_mask(agent))
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action")
        if legal.size == 1:
            return int(legal[0])
        start = self.clock()
        b = self.budget
        deadline = None if b.ms is None else start + b.ms / 1000.0
        legal_list = [int(a) for a in legal]
        prior = self._prior(engine, agent)  # before the move: a policy may remember the moves it makes
        if self.arms is None:
            first = self.root.act(engine, agent)
            arms = self._order(first, legal_list, prior)
            widen = True
        else:
            first = self.root.act(engine, agent)
            arms = self._game_arms(engine, agent, first, legal_list)
            if len(arms) < 2:
                return first
            arms = self._order(first, arms, prior)
            widen = False
        if self.width is not None:
            arms = arms[:self.width]
        n = np.zeros(len(arms))
        w = np.zeros(len(arms))
        vals: list[list[float]] = [[] for _ in arms]
        worlds: list[tuple[GameEngine, int]] = []
        i = 0
        while True:
            if b.sims is not None and i >= b.sims:
                break
            if deadline is not None and i > 0 and self.clock() >= deadline:
                break
            j = self._select(n, w, i) if widen else self._balanced(n, i)
            m = int(n[j])  # this arm's m-th visit plays world m, as every arm's does (common random numbers)
            while m >= len(worlds):
                k = len(worlds) % b.samples
                sample = self.determinize(engine, agent, self.rng, tuple(own_actions), tuple(memory)) \
                    if k == len(worlds) \
                    else worlds[k][0]
                worlds.append((sample, int(self.rng.integers(2 ** 63))))
            v = self._simulate(*worlds[m], agent, arms[j])
            n[j] += 1
            w[j] += v
            vals[j].append(v)
            i += 1
        self.stats["searched"] += 1
        self.stats["simulations"] += i
        self.stats["seconds"] += self.clock() - start
        chosen = arms[self._choose(vals, self.z, self.rule)]
        if chosen != first:  # the table policy remembers what it chose (a drafter its face-down picks)
            self.root.overruled_by_search(agent, first, chosen)
        return chosen

    def _game_arms(self, engine: GameEngine, agent: str, first: int, legal: list[int]) -> list[int]:
        """The game's candidates (``search_arms``), checked: legal, distinct, ``first`` leading."""
        arms = [int(a) for a in self.arms(engine, agent, first, legal)]
        ok = set(legal)
        if arms and (arms[0] != first or len(set(arms)) != len(arms) or not ok.issuperset(arms)):
            raise ValueError(f"search_arms gave {arms} for {agent}: they must be distinct legal actions "
                             f"({sorted(ok)}) led by the rollout policy's choice {first}")
        return arms

    @staticmethod
    def _choose(vals: list[list[float]], z: float = CONFIDENCE_Z, rule: str = "z") -> int:
        """The arm to play: the rollout policy's own choice (arm 0) unless another arm beats it on
        the worlds both played by more than ``z`` (default ``CONFIDENCE_Z``) standard errors of the paired
        differences (with ``rule="t"``: more than the Student-t quantile at ``z``'s level with ``k - 1``
        degrees of freedom, ``k`` the worlds both played; :data:`RULES`) (the largest such gain wins;
        ties: the earlier arm)."""
        best, gain = 0, 0.0
        base = np.asarray(vals[0])
        for j in range(1, len(vals)):
            k = min(len(base), len(vals[j]))
            if k < 2:
                continue
            d = np.asarray(vals[j][:k]) - base[:k]
            mean = float(d.mean())
            se = float(d.std(ddof=1)) / math.sqrt(k)
            if mean > (t_quantile(z, k - 1) if rule == "t" else z) * se and mean > gain + 1e-12:
                best, gain = j, mean
        return best

    def _prior(self, engine: GameEngine, agent: str) -> np.ndarray | None:
        """With ``widen="prior"``, the rollout policy's preferences at the real table (public
        information only, as its move), else ``None``."""
        return self.root.preferences(engine, agent) if self.widen == "prior" else None

    def _order(self, first: int, candidates: Sequence[int], prior: np.ndarray | None = None) -> list[int]:
        """The order in which the arms open: the rollout policy's own choice (public information
        only), then the rollout policy's preference order (``prior``, with ``widen="prior"``), or
        ``noop`` and the rest in a seeded random order."""
        if prior is not None:  # the rollout policy's preference order (the first its own choice; ties: lower index)
            rest = sorted((a for a in candidates if a != first), key=lambda a: (-prior[a], a))
            return [first] + rest
        rest = [a for a in candidates if a != first and a != NOOP]
        rest = [rest[i] for i in self.rng.permutation(len(rest))]
        head = [first] + ([NOOP] if NOOP in candidates and first != NOOP else [])
        return head + rest

    @staticmethod
    def _balanced(n: np.ndarray, i: int) -> int:
        """The game's arms: opened one at a time as in :meth:`_select` (about ``1 + sqrt(N)`` after
        ``N`` simulations), each next simulation to the open arm played least (the earlier on a
        tie), so that open arms play the same worlds and the paired rule has equal samples."""
        active = min(len(n), 1 + int(math.isqrt(i)))
        return int(np.argmin(n[:active]))

    @staticmethod
    def _select(n: np.ndarray, w: np.ndarray, i: int) -> int:
        active = min(len(n), 1 + int(math.isqrt(i)))
        for j in range(active):
            if n[j] == 0:
                return j
        log_n = math.log(i)
        ucb = w[:active] / n[:active] + EXPLORATION * np.sqrt(log_n / n[:active])
        return int(np.argmax(ucb))

    def _simulate(self, sample: GameEngine, seed: int, agent: str, action: int) -> float:
        sim = sample.clone()
        models = getattr(sample, "sim_models", None)
        if models is not None:  # the determinisation's kind of each other seat (SeatModels): kept with the world
            sim.sim_models = models
        sim.rng = make_rng(seed)  # the future chance events of this world
        self.rollout.reset(None)  # a simulation is an episode of its own: nothing remembered from the last
        act = partial(self.rollout.act, me=agent)  # with an ``others`` model, it plays ``agent`` only
        joint = {a: (action if a == agent else act(sim, a)) for a in sim.live_agents()}
        sim.step(joint)
        # The rollout's own moves are legal by construction (Rollout.act: each seat's mask, else its
        # default action), so the later steps skip the engine's check of them (as BatchedEnv does).
        step = sim.step_validated
        horizon = self.budget.horizon
        stop = sim.tick + ROLLOUT_TICK_CAP
        if isinstance(horizon, int) and horizon:
            stop = min(stop, sim.tick + horizon)
        if self.max_ticks is not None:
            stop = min(stop, self.max_ticks)
        if horizon == "round":
            at = self.round_of(sample)
            while not sim.done and sim.tick < stop and self.round_of(sim) == at:
                step({a: act(sim, a) for a in sim.live_agents()})
            return self._worth(sim, sim.outcome(), agent)
        if horizon == "score":
            before = sample.outcome()["scores"]
            while not sim.done and sim.tick < stop:
                out = sim.outcome()
                if out["scores"] != before:
                    return self._worth(sim, out, agent)
                step({a: act(sim, a) for a in sim.live_agents()})
        while not sim.done and sim.tick < stop:
            step({a: act(sim, a) for a in sim.live_agents()})
        return self._worth(sim, sim.outcome(), agent)

    def _worth(self, sim: GameEngine, outcome: Mapping[str, Any], agent: str) -> float:
        """A simulation's worth where it stopped: :meth:`value`, blended with the learned ``leaf``
        value (``LEAF_WEIGHT``) where it was cut before the game's end."""
        v = self.value(outcome, agent, sim.done)
        if self.leaf is None or sim.done:
            return v
        return (1.0 - LEAF_WEIGHT) * v + LEAF_WEIGHT * float(self.leaf(sim, agent))

    def value(self, outcome: Mapping[str, Any], agent: str, done: bool) -> float:
        """A simulation's worth to ``agent`` (about 0..1; see the module docstring)."""
        scores = outcome["scores"]
        if self.cooperative:
            s = float(scores[agent])
            return (1.0 if outcome["winners"] else 0.0) + 0.2 * s / (abs(s) + 100.0)
        mine = float(scores[agent])
        others = [float(v) for a, v in scores.items() if a != agent]
        rank = (sum(mine > o for o in others) + 0.5 * sum(mine == o for o in others)) / max(1, len(others))
        # The finer score: the last round's points where the outcome reports rounds (Frying Master),
        # else the game's score; as a margin over the best other player, in -1..1.
        rounds = outcome.get("round_totals")
        fine = rounds[-1] if rounds else scores
        f_mine = float(fine[agent])
        f_best = max(float(v) for a, v in fine.items() if a != agent) if len(fine) > 1 else 0.0
        margin = (f_mine - f_best) / (abs(f_mine) + abs(f_best) + 1.0)
        if not done:
            return 0.8 * rank + 0.2 * (margin + 1.0) / 2.0
        winners = outcome["winners"]
        win = 1.0 / len(winners) if agent in winners else 0.0
        return 0.7 * win + 0.2 * rank + 0.1 * (margin + 1.0) / 2.0


class PlannerPolicy(Policy):
    """:class:`Planner` as a :class:`Policy` for any seat of one game (``act(observation,
    agent, env)`` reads ``env.unwrapped.engine`` through the determinisation only). It
    remembers the actions it chose for each seat this episode and what the game's ``remember``
    kept at each of its decisions (the game's determinisation may use them, e.g. a drafter's
    face-down picks and the packs it saw); ``reset`` forgets them and reseeds."""

    def __init__(self, planner: Planner, engine_name: str, name: str = "planner", seed: int | None = None):
        """``engine_name``: the game it plays (its engine's ``ENGINE_NAME``), checked against the
        env at every decision."""
        self.planner = planner
        self.name = name
        self.engine_name = engine_name
        self.seed = seed  # the spec's seed, mixed with each episode's
        self.own_actions: dict[str, list[int]] = {}
        self.memory: dict[str, list[Any]] = {}  # per seat, what the game's ``remember`` kept
        self._tick: dict[str, int] = {}  # per seat, the game tick of its last decision

    def reset(self, seed: int | None = None) -> None:
        self.own_actions = {}
        self.memory = {}
        self._tick = {}
        if seed is not None:
            base = 0 if self.seed is None else self.seed
            self.planner.reseed(int(np.random.SeedSequence([base, int(seed)]).generate_state(1)[0]))

    def act(self, observation: Mapping[str, np.ndarray], agent: str, env: Any = None) -> int:
        engine = table_engine(env, self.engine_name, "planner")  # given, reset, of its game
        tick = int(engine.tick)
        if tick == 0 or tick < self._tick.get(agent, -1):
            # a new game without reset() (a PettingZoo loop calls none): the last one's actions and
            # memories would grow for ever and be read as this game's (a round's items by its number)
            self.own_actions.pop(agent, None)
            self.memory.pop(agent, None)
        self._tick[agent] = tick
        mine = self.own_actions.setdefault(agent, [])
        seen = self.memory.setdefault(agent, [])
        if self.planner.remember is not None:
            item = self.planner.remember(engine, agent)
            if item is not None:
                seen.append(item)
        a = self.planner.decide(engine, agent, mine, seen)
        mask = observation["action_mask"]
        if not mask[a]:  # the env's mask and the engine's agree; kept as the last word
            raise ValueError(f"the planner chose {a} for {agent}, which the mask does not allow")
        mine.append(a)
        return a

    def overruled(self, agent: str, chosen: int, played: int) -> None:
        """The seat played ``played``, not the ``chosen`` action: remember that one (a DAgger
        teacher's determinisations then place the picks the seat really made)."""
        mine = self.own_actions.get(agent)
        if not mine or mine[-1] != chosen:
            raise ValueError(f"overruled({agent!r}, {chosen}, {played}): {chosen} is not the last action "
                             f"this planner chose for {agent}")
        mine[-1] = int(played)
        self.planner.root.overruled_by_search(agent, int(chosen), int(played))
