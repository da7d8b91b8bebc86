"""Policies named by spec strings, usable anywhere a policy is.

=================================  ==============================================================
spec                               policy
=================================  ==============================================================
``random``                         uniformly random legal action (``RandomLegalPolicy``)
``heuristic``                      the game's scripted ``HeuristicPolicy`` (``envs.<id>``)
``heuristic?style=NAME``           the same with one of the game's styles (Wok Star: ``HeuristicPolicy.styles``)
``heuristic?recall=world``         Waroong Wars: its own face-down picks read from its hand in the engine, not
                                   from a memory of the actions it chose (``HeuristicPolicy.recalls``): a
                                   behaviour-cloning teacher labelling a student's DAgger games
``noop``                           always ``noop`` (index 0): a player who does nothing
``checkpoint:DIR``                 a trained checkpoint (greedy: most likely legal action)
``checkpoint:DIR?deterministic=false``  the same, sampling from its masked distribution
``checkpoint:DIR?strict=true``     refuse any env-option or package-version difference
``DIR``                            shorthand for ``checkpoint:DIR`` if DIR holds metadata.json
``text:MODULE:CALLABLE``           a text agent: ``CALLABLE(prompt) -> reply`` (``training.text_agent``)
``text:MODULE:CALLABLE?retries=N`` the same, asking again at most N times (default 2) before ``noop``
``planner``                        the search player (:mod:`envs.core.search`): 100 ms per decision
``planner?ms=50&samples=8``        its options: ``ms`` or ``sims`` (the budget per decision),
                                   ``samples``, ``rollout`` (``heuristic``, ``random`` or
                                   ``checkpoint:DIR``), ``others``, ``play``, ``horizon``, ``arms``, ``widen``,
                                   ``z``, ``rule``, ``width``, ``value`` (``checkpoint:DIR``: its critic),
                                   ``drafters`` (``checkpoint:DIR``: Waroong Wars' other drafters modelled
                                   as the heuristic or it), ``seed`` (docs/search.md)
=================================  ==============================================================

Every spec resolves to an :class:`envs.core.policy.Policy` (``act(observation,
agent, env)``). Trained policies see the same flat vector as in training
(:mod:`training.obs`) and act through :class:`~training.actor.NumpyActor`,
read from the checkpoint's ``actor.npz`` (nothing is unpickled).

In one's own loop::

    policy = load_policy("checkpoints/wok_star/main")
    env = policy.env_spec.make()                     # the env and options it was trained with
    action = policy.act(observation, agent)          # observation = the env's dict for that agent
    x = policy.model_input(observation, agent)       # the vector SB3's model.predict expects
"""

from __future__ import annotations

import os
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from envs.core.errors import ConfigError
from envs.core.inputs import checked_seed, shown
from envs.core.policy import Policy, RandomLegalPolicy
from envs.core.search import CONFIDENCE_Z, RULES, WIDEN
from envs.core.seeding import make_rng

from training.actor import NumpyActor
from training.envspec import EnvSpec
from training.obs import SeatEncoder

BASELINES = ("random", "heuristic", "noop")
SPEC_HELP = ("random | heuristic[?style=NAME|recall=world] | noop | checkpoint:DIR[?deterministic=false][&strict=true] "
             "(DIR = checkpoints/<game>/<name>) | text:MODULE:CALLABLE[?retries=N] | "
             "planner[?ms=100|sims=N][&samples=16][&rollout=heuristic|random|checkpoint:DIR][&others=POLICY][&play=POLICY]"
             "[&horizon=0|N|score|round][&arms=game|all][&widen=random|prior][&z=1.5][&rule=z|t][&width=K][&value=checkpoint:DIR]"
             "[&drafters=checkpoint:DIR][&seed=N]")
#: the planner spec's options (docs/search.md)
PLANNER_OPTIONS = ("ms", "sims", "samples", "rollout", "others", "play", "horizon", "arms", "widen", "z", "rule", "width", "value", "drafters", "seed")


@dataclass(frozen=True)
class PolicySpec:
    """A parsed spec string."""

    kind: str                      # random | heuristic | noop | checkpoint | text | planner
    path: str | None = None
    options: dict = field(default_factory=dict)
    text: str = ""

    @property
    def label(self) -> str:
        if self.kind == "text":
            return f"text:{self.path}"
        if self.kind == "heuristic":  # the options that differ from the defaults (style=default, recall=memory)
            shown = sorted((k, v) for k, v in self.options.items() if (k, v) not in (("style", "default"), ("recall", "memory")))
            return "heuristic" + ("?" + "&".join(f"{k}={v}" for k, v in shown) if shown else "")
        if self.kind == "planner":
            return self.text
        if self.kind != "checkpoint":
            return self.kind
        p = Path(self.path)
        short = "/".join(p.parts[-2:]) if len(p.parts) >= 2 else str(p)
        suffix = "" if self.options.get("deterministic", True) else " (sampled)"
        return f"checkpoint:{short}{suffix}"

    @property
    def identity(self) -> tuple:
        """What decides how the spec plays, for "the same policy listed twice": a checkpoint by its
        resolved directory (two checkpoints that share a label's last two path parts are two
        policies), a planner by its options with the defaults written out (``sims=4&samples=2`` and
        ``samples=2&sims=4``, or ``planner`` and ``planner?ms=100``, are one policy)."""
        if self.kind == "checkpoint":
            return ("checkpoint", _resolved(self.path), self.options.get("deterministic", True))
        if self.kind == "planner":
            o = {**({} if "sims" in self.options else {"ms": 100.0}), **PLANNER_DEFAULTS, **self.options}
            return ("planner", tuple(sorted((k, _resolved_value(v)) for k, v in o.items())))
        if self.kind == "text":
            return ("text", self.path, self.options.get("retries"))
        return (self.label,)


#: the planner options' defaults that do not depend on the game (docs/search.md, "Options")
#: (:func:`make_planner` reads them from here)
PLANNER_DEFAULTS = {"samples": 16, "rollout": "heuristic", "arms": "game", "widen": "random", "z": CONFIDENCE_Z,
                    "rule": "z"}


def _resolved(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))


def _resolved_value(v):
    """A planner option's value, a checkpoint in it by its resolved directory."""
    if isinstance(v, str) and v.startswith("checkpoint:"):
        return "checkpoint:" + _resolved(v[len("checkpoint:"):])
    return v  # (parsed already: ms and z as floats, counts as ints, as their defaults)


def parse_spec(text: str) -> PolicySpec:
    """Parse a policy spec string; ConfigError lists the syntax if it is wrong."""
    if not isinstance(text, str):
        raise ConfigError(f"a policy spec is a string; got {type(text).__name__} {shown(text, 60)}; allowed: {SPEC_HELP}")
    if not text.strip():
        raise ConfigError(f"policy spec {text!r} is empty; allowed: {SPEC_HELP}")
    s = text.strip()
    if s in BASELINES:
        return PolicySpec(s, text=s)
    if s.startswith("text:"):
        return _parse_text_spec(text, s)
    if s.startswith("heuristic?"):
        return _parse_heuristic_spec(text, s)
    if s == "planner" or s.startswith("planner?"):
        return _parse_planner_spec(text, s)
    if s.startswith("checkpoint:"):
        body = s[len("checkpoint:"):]
    elif os.path.isfile(os.path.join(s.split("?")[0], "metadata.json")):
        body = s
    else:
        raise ConfigError(f"unknown policy spec {text!r}; allowed: {SPEC_HELP}")
    path, mark, query = body.partition("?")
    if not path:
        raise ConfigError(f"policy spec {text!r} names no checkpoint directory; allowed: {SPEC_HELP}")
    if mark and not query:
        raise ConfigError(f"policy spec {text!r}: nothing after '?'; allowed options: deterministic, strict")
    options: dict[str, bool] = {}
    for k, v in _fields(text, query, "deterministic, strict"):
        if k not in ("deterministic", "strict"):
            raise ConfigError(f"policy spec {text!r}: unknown option {k!r}; allowed: deterministic, strict")
        if k in options:
            raise ConfigError(f"policy spec {text!r}: option {k!r} given twice; give each option once")
        if v.lower() not in ("true", "false"):
            raise ConfigError(f"policy spec {text!r}: {k}={v!r}; allowed: true or false")
        options[k] = v.lower() == "true"
    return PolicySpec("checkpoint", path, options, text=s)


def named_checkpoints(text: str) -> list[PolicySpec]:
    """The checkpoints a spec plays from: a ``checkpoint:`` spec itself, a planner's
    ``rollout``/``others``/``play``/``value``/``drafters`` checkpoints (in that order), none else."""
    ps = parse_spec(text)
    if ps.kind == "checkpoint":
        return [ps]
    if ps.kind == "planner":
        return [parse_spec(v) for k, v in ps.options.items()
                if isinstance(v, str) and v.startswith("checkpoint:")]
    return []


def first_duplicate(specs) -> tuple[str, str] | None:
    """The first two of ``specs`` (strings; None skipped) that are one policy (:attr:`PolicySpec.identity`)."""
    parsed = [parse_spec(s) for s in specs if s is not None]
    return next(((a.text, b.text) for i, a in enumerate(parsed) for b in parsed[i + 1:] if a.identity == b.identity),
                None)


_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"


def _fields(text: str, query: str, allowed: str) -> list[tuple[str, str]]:
    """A spec's options after its ``?``, ``KEY=VALUE`` joined by ``&``, each value taken as written
    (a ``+`` in a checkpoint's path had become a space, and ``%31`` the digit 1, as in a URL); a
    ``?`` with nothing after it, or a field without ``=``, is refused naming the ``allowed`` options."""
    if not query:
        return []
    out = []
    for field_ in query.split("&"):
        k, sep, v = field_.partition("=")
        if not sep or not k:
            raise ConfigError(f"policy spec {text!r}: {field_!r} is not KEY=VALUE; allowed options: {allowed}")
        out.append((k, v))
    return out


def _ascii_int(v: str) -> bool:
    """Whether ``v`` is written with the digits 0-9 only (``str.isdecimal`` takes any script's digits)."""
    return v.isascii() and v.isdecimal()


def _ascii_float(v: str) -> float:
    """``v`` as a number written plainly (``1``, ``2.5``, ``1e3``), else NaN (``float`` takes ``1_0``,
    other scripts' digits and ``inf``)."""
    import re

    return float(v) if re.fullmatch(r"[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?", v) else float("nan")


def _parse_text_spec(text: str, s: str) -> PolicySpec:
    """``text:MODULE:CALLABLE[?retries=N]`` (a text agent, see :mod:`training.text_agent`)."""
    import re

    from training.text_agent import MAX_RETRIES

    target, _, query = s[len("text:"):].partition("?")
    module, sep, attr = target.partition(":")
    if not sep or not re.fullmatch(_DOTTED, module) or not re.fullmatch(_DOTTED, attr):
        raise ConfigError(f"policy spec {text!r}: a text agent is text:MODULE:CALLABLE (dotted Python names, "
                          f"e.g. text:my_agents:reply); allowed: {SPEC_HELP}")
    options: dict[str, int] = {}
    if "?" in s and not query:
        raise ConfigError(f"policy spec {text!r}: nothing after '?'; allowed options: retries")
    for k, v in _fields(text, query, "retries"):
        if k != "retries":
            raise ConfigError(f"policy spec {text!r}: unknown option {k!r}; allowed: retries")
        if k in options:
            raise ConfigError(f"policy spec {text!r}: option {k!r} given twice; give each option once")
        if not _ascii_int(v) or len(v) > 20 or int(v) > MAX_RETRIES:
            raise ConfigError(f"policy spec {text!r}: retries={v!r}; allowed: an integer 0..{MAX_RETRIES}")
        options[k] = int(v)
    return PolicySpec("text", target, options, text=s)


def _parse_heuristic_spec(text: str, s: str) -> PolicySpec:
    """``heuristic?style=NAME``, ``heuristic?recall=world`` (each checked against the game's
    heuristic when the policy is made)."""
    options: dict[str, str] = {}
    if s == "heuristic?":
        raise ConfigError(f"policy spec {text!r}: nothing after '?'; allowed options: style, recall")
    for k, v in _fields(text, s[len("heuristic?"):], "style, recall"):
        if k not in ("style", "recall"):
            raise ConfigError(f"policy spec {text!r}: unknown option {k!r}; allowed: style, recall")
        if k in options:
            raise ConfigError(f"policy spec {text!r}: option {k!r} given twice; give each option once")
        if not v:
            raise ConfigError(f"policy spec {text!r}: {k} is empty; allowed: a name, e.g. heuristic?style=soloist "
                              "or heuristic?recall=world")
        options[k] = v
    return PolicySpec("heuristic", options=options, text=s)


def _parse_planner_spec(text: str, s: str) -> PolicySpec:
    """``planner[?ms=..|sims=..][&samples=..][&rollout=..][&others=..][&play=..][&horizon=..][&arms=..][&widen=..][&z=..][&rule=..][&width=..][&value=..][&drafters=..][&seed=..]``
    (the search player, :mod:`envs.core.search`; default: ``ms=100&samples=16&rollout=heuristic``,
    ``others`` the rollout policy)."""
    _, _, query = s.partition("?")
    if "?" in s and not query:
        raise ConfigError(f"policy spec {text!r}: nothing after '?'; allowed options: {', '.join(PLANNER_OPTIONS)}")
    options: dict = {}
    for k, v in _fields(text, query, ", ".join(PLANNER_OPTIONS)):
        if k not in PLANNER_OPTIONS:
            raise ConfigError(f"policy spec {text!r}: unknown option {k!r}; allowed: {', '.join(PLANNER_OPTIONS)}")
        if k in options:
            raise ConfigError(f"policy spec {text!r}: option {k!r} given twice; give each option once")
        options[k] = _planner_option(text, k, v)
    if "ms" in options and "sims" in options:
        raise ConfigError(f"policy spec {text!r}: give ms (a time budget) or sims (a simulation budget), not both")
    if options.get("others") == "drafters" and "drafters" not in options:
        raise ConfigError(f"policy spec {text!r}: others=drafters plays each other seat as the drafter the drafters' "
                          f"rule reads it to be, so it needs drafters=checkpoint:DIR (the trained drafter beside the "
                          f"heuristic)")
    return PolicySpec("planner", None, options, text=s)


def _planner_option(text: str, k: str, v: str):
    names_checkpoint = v.startswith("checkpoint:") and len(v) > len("checkpoint:")
    if names_checkpoint and "?" in v:  # (its sampled form drew from an unseeded generator: runs differed)
        raise ConfigError(f"policy spec {text!r}: {k}={v!r}; a checkpoint inside the planner takes no options (it "
                          f"plays its most likely legal move); allowed: checkpoint:DIR")
    if k in ("rollout", "others", "play"):
        if v in ("heuristic", "random") or names_checkpoint or (k == "others" and v == "drafters"):
            return v
        also = " or drafters (each other seat as the drafter the drafters' rule reads it to be)" if k == "others" else ""
        raise ConfigError(f"policy spec {text!r}: {k}={v!r}; allowed: heuristic, random or checkpoint:DIR{also}")
    if k == "drafters":
        if names_checkpoint:
            return v
        raise ConfigError(f"policy spec {text!r}: drafters={v!r}; allowed: checkpoint:DIR (a trained checkpoint of "
                          f"this env whose drafting the determinisations weigh beside the heuristic's; Waroong Wars)")
    if k == "value":
        if names_checkpoint:
            return v
        raise ConfigError(f"policy spec {text!r}: value={v!r}; allowed: checkpoint:DIR (a trained checkpoint of this "
                          f"env, whose critic values the simulations cut before the game's end)")
    if k == "ms":
        ms = _ascii_float(v)
        if not 0 < ms <= 600_000:  # nan fails too
            raise ConfigError(f"policy spec {text!r}: ms={v!r}; allowed: a number of milliseconds in (0, 600000]")
        return ms
    if k == "horizon" and v in ("score", "round"):
        return v
    if k == "z":
        z = _ascii_float(v)
        if not 0 <= z <= 10:  # nan fails too
            raise ConfigError(f"policy spec {text!r}: z={v!r}; allowed: a number in [0, 10] (standard errors a paired "
                              f"gain over the rollout policy's choice must exceed)")
        return z
    if k == "widen":
        if v in WIDEN:
            return v
        raise ConfigError(f"policy spec {text!r}: widen={v!r}; allowed: random (the rollout policy's choice, noop, "
                          f"then a seeded random order) or prior (the rollout policy's preference order)")
    if k == "rule":
        if v in RULES:
            return v
        raise ConfigError(f"policy spec {text!r}: rule={v!r}; allowed: z (a gain must exceed z standard errors) or "
                          f"t (the Student-t quantile at z's level, with the paired worlds less one degrees of freedom)")
    if k == "arms":
        if v in ("game", "all"):
            return v
        raise ConfigError(f"policy spec {text!r}: arms={v!r}; allowed: game (the game's choice of decisions and "
                          f"moves to search) or all (every decision, every legal move)")
    low, high = {"sims": (1, 10 ** 7), "samples": (1, 10 ** 5), "horizon": (0, 10 ** 7), "width": (2, 10 ** 4),
                 "seed": (0, 2 ** 63 - 1)}[k]
    if not _ascii_int(v) or len(v) > 20 or not low <= int(v) <= high:
        extra = ", score or round" if k == "horizon" else ""
        raise ConfigError(f"policy spec {text!r}: {k}={v!r}; allowed: an integer {low}..{high}{extra}")
    return int(v)


def make_planner(ps: PolicySpec, env_spec: EnvSpec, seed: int | None = None) -> Policy:
    """The search player of a ``planner`` spec on ``env_spec``'s game (:mod:`envs.core.search`),
    its rollouts by the heuristic, random legal play or a checkpoint."""
    import importlib

    from envs.core.search import Planner, PlannerPolicy, Rollout, SearchBudget, SeatModels

    o = ps.options
    env = env_spec.make()
    raw = env.unwrapped
    game = env_spec.env_id.rsplit("_v", 1)[0]
    search_support = importlib.import_module(f"envs.{game}.determinize")  # determinize, search_arms

    def rollout_of(kind: str) -> Rollout:
        if kind.startswith("checkpoint:"):
            actor = load_checkpoint_policy(parse_spec(kind), env_spec)
            return Rollout(lambda: actor, raw.encoder.observe)
        if kind == "random":
            return Rollout(lambda: RandomLegalPolicy(0))
        cls = getattr(env_spec.module(), "HeuristicPolicy", None)
        if cls is None:
            raise ConfigError(f"{env_spec.env_id} has no HeuristicPolicy; use random or checkpoint:DIR "
                              f"for the planner's rollout and others")
        # the game's own form of it for simulations where it has one (determinize.rollout_policy)
        return Rollout(getattr(search_support, "rollout_policy", cls), at_table=cls)

    if "drafters" in o and getattr(search_support, "DrafterModel", None) is None:
        raise ConfigError(f"policy spec {ps.text!r}: drafters= models the other seats' drafting, which "
                          f"{env_spec.env_id} does not have; it is for waroong_wars")
    roll = rollout_of(o.get("rollout", PLANNER_DEFAULTS["rollout"]))
    if "others" in o:  # the other seats' model in the simulations (default: the rollout policy)
        mine = roll
        if o["others"] == "drafters":  # each seat the kind of drafter a determinisation draws for it
            others = SeatModels([rollout_of("heuristic"), rollout_of(o["drafters"])])
        else:
            others = rollout_of(o["others"])
        roll = Rollout(mine.make, mine.observe, mine.at_table, others=others)
    budget = SearchBudget(ms=None if "sims" in o else o.get("ms", 100.0), sims=o.get("sims"),
                          samples=o.get("samples", PLANNER_DEFAULTS["samples"]),
                          horizon=o.get("horizon", search_support.HORIZON))
    spec_seed = o.get("seed")
    arms = None if o.get("arms", PLANNER_DEFAULTS["arms"]) == "all" else search_support.search_arms
    determinize = search_support.determinize
    if "drafters" in o:  # the other drafters modelled as the heuristic or this checkpoint (Waroong Wars)
        model_cls = search_support.DrafterModel  # (checked above)
        determinize = partial(determinize, drafters=_drafter_model(model_cls, o["drafters"], env_spec, raw),
                              **({"kinds": True} if o.get("others") == "drafters" else {}))
    planner = Planner(determinize, roll, budget, cooperative=env_spec.kind == "cooperative",
                      seed=spec_seed if seed is None else seed, max_ticks=raw.max_ticks, arms=arms,
                      remember=getattr(search_support, "remember", None), round_of=search_support.round_of,
                      widen=o.get("widen", PLANNER_DEFAULTS["widen"]), z=o.get("z", PLANNER_DEFAULTS["z"]),
                      width=o.get("width"), rule=o.get("rule", PLANNER_DEFAULTS["rule"]), play=rollout_of(o["play"]) if "play" in o else None,
                      leaf=load_checkpoint_critic(o["value"][len("checkpoint:"):], env_spec, raw.encoder.observe)
                      if "value" in o else None)
    env.close()
    pol = PlannerPolicy(planner, env_spec.raw_cls().engine_cls.ENGINE_NAME, name=ps.label, seed=spec_seed)
    if seed is not None:
        pol.reset(seed)
    return pol


def _drafter_model(model_cls, kind: str, env_spec: EnvSpec, raw: Any):
    """A checkpoint as a drafter for the drafters' rule (``envs.waroong_wars.determinize.DrafterModel``):
    its logits for the observations that ``raw``'s encoding makes of public views (with the seat's
    picks where the env's observation shows them), rows of one seat in one batch."""
    actor = load_checkpoint_policy(parse_spec(kind), env_spec)
    encoding = raw.encoder
    own = bool(getattr(encoding, "own_picks", False))

    def observe(view, picks):
        return encoding.encode_view(view, tuple(picks) if own else None)

    def logits(x, seat):
        return actor.actor.logits(actor.encoder.encode_rows(x, seat))

    slices = encoding.layout.slices
    return model_cls(observe, logits, key=kind, slices={"pack": slices["pack"], "customers": slices["customers"]})


def spec_checker(text: str) -> str | None:
    """For config schemas: None if ``text`` parses and may be named in a config, else the problem. A
    text agent may not: it imports and calls the Python code it names, and a config is a file that
    may come from anywhere (nothing a file names is executed; give a text agent on the command line
    of ``evaluate``, ``tournament``, ``watch`` or ``play``, or build the seat in Python)."""
    try:
        spec = parse_spec(text)
    except ConfigError as e:
        return str(e)
    if spec.kind == "text":
        return (f"policy spec {text!r}: a text agent imports and runs the code it names, so a config cannot "
                f"name one (nothing a file names is executed); allowed in a config: random, heuristic, noop, "
                f"checkpoint:DIR, planner; give a text agent on the command line (evaluate, tournament, watch, "
                f"play) or in Python")
    return None


class NoopPolicy(Policy):
    """``noop`` (index 0): a player who does nothing. Where a game allows no ``noop`` (a Waroong
    Wars player who must decide: a drafter who has not picked, the player on their Cooking turn)
    it plays what ``illegal_action="noop"`` plays there, the game's documented
    ``engine.default_action`` (``end_turn`` on a Cooking turn, else the lowest legal index),
    which reads only the mask and the phase."""

    name = "noop"

    def act(self, observation, agent, env=None) -> int:
        mask = observation["action_mask"]
        if mask[0]:
            return 0
        engine = getattr(getattr(env, "unwrapped", env), "engine", None)
        if engine is not None:
            return int(engine.default_action(agent))
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action")
        return int(legal[0])


class ActorPolicy(Policy):
    """A trained network acting for any seat of one env (its seat in the one-hot)."""

    def __init__(self, actor: NumpyActor, encoder: SeatEncoder, deterministic: bool = True,
                 name: str = "trained", seed: int | None = None, env_spec: EnvSpec | None = None):
        self.actor = actor
        self.encoder = encoder
        self.env_spec = env_spec  # the env it plays (a checkpoint's policy: the one it was loaded for)
        self.deterministic = deterministic
        self.name = name
        self.rng = make_rng(seed)

    @property
    def forced_moves_free(self) -> bool:
        """Deterministic: a single legal action is the masked arg-max, found without the network."""
        return self.deterministic

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = make_rng(seed)

    def model_input(self, observation: dict, agent: str) -> np.ndarray:
        """The flat float32 vector the network reads for ``agent``'s env observation
        (``{"observation", "action_mask"}``): what ``MaskablePPO.predict`` of the
        same checkpoint expects (see :mod:`training.obs`)."""
        return self.encoder.encode_observation(observation, agent, where=self.name)

    def act(self, observation: dict, agent: str, env: Any = None) -> int:
        """The action for ``agent``: the most likely legal one (or a sample
        from the masked distribution, with ``deterministic=False``)."""
        x = self.model_input(observation, agent)
        mask = self.encoder.mask_of(observation, where=self.name)
        if self.deterministic and np.count_nonzero(mask) == 1:  # the arg-max of one legal action
            return int(np.flatnonzero(mask)[0])
        return int(self.actor.act(x[None], mask[None], self.deterministic, self.rng)[0])

    def preferences(self, observation: dict, agent: str, env: Any = None) -> np.ndarray:
        """The network's logits over every action for ``agent``, illegal ones ``-inf`` (the
        search player's ``widen=prior`` opens its arms in this order)."""
        x = self.model_input(observation, agent)
        mask = self.encoder.mask_of(observation, where=self.name).astype(bool)
        logits = self.actor.logits(x[None])[0].astype(np.float64)
        return np.where(mask, logits, -np.inf)

    def act_batch(self, xs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for already-encoded observations (used inside the vec env)."""
        return self.actor.act(xs, masks, self.deterministic, self.rng)


def load_checkpoint_policy(spec: PolicySpec, env_spec: EnvSpec | None = None) -> ActorPolicy:
    """The checkpoint's policy, verified (hashes, env) before use."""
    from training.checkpoints import load_actor, trained_env_spec

    actor, meta = load_actor(spec.path, env_spec, strict=spec.options.get("strict", False))
    env_spec = env_spec or trained_env_spec(meta)
    return ActorPolicy(actor, _checkpoint_encoder(env_spec, meta), spec.options.get("deterministic", True),
                       name=spec.label, env_spec=env_spec)


def _checkpoint_encoder(env_spec: EnvSpec, meta: dict) -> SeatEncoder:
    """The observation encoding a checkpoint's networks read, on ``env_spec``'s env."""
    return SeatEncoder.for_env(env_spec.make(), bool(meta["observation"].get("normalized", True)))


def load_checkpoint_critic(directory: str | os.PathLike, env_spec: EnvSpec,
                           observe: Callable[[Any, str], np.ndarray]) -> Callable[[Any, str], float]:
    """A checkpoint's critic as the search player's learned value (``planner?value=checkpoint:DIR``):
    ``leaf(engine, agent)`` = the critic's estimate of ``agent``'s return from ``engine``'s state,
    through ``agent``'s observation (``observe``: the env's encoder) as the network reads it.

    The critic is not in ``actor.npz``: the checkpoint is loaded as a resumed training run is
    (:func:`training.checkpoints.load_checkpoint`: hashes and env checked, only tensors read from
    ``model.zip``, nothing unpickled), and its value network copied out into numpy."""
    from training.checkpoints import CheckpointError, load_checkpoint

    model, meta = load_checkpoint(directory, env_spec)
    critic = NumpyActor.critic_from_sb3_policy(model.policy)
    del model
    if not all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in critic.layers + [critic.head]):
        raise CheckpointError(f"{directory}: its critic holds non-finite weights (NaN or infinity); "
                              f"value= needs a checkpoint whose value network is all finite numbers")
    encoder = _checkpoint_encoder(env_spec, meta)

    def leaf(engine: Any, agent: str) -> float:
        x = encoder.encode(observe(engine, agent), encoder.seat_of[agent])
        return float(critic.logits(x[None])[0, 0])

    return leaf


def load_policy(directory: str | os.PathLike, env: Any = None, *, deterministic: bool = True,
                strict: bool = False, seed: int | None = None) -> ActorPolicy:
    """A checkpoint as a policy for one's own loop: ``policy.act(observation, agent)``.

    ``directory`` is a checkpoint directory (``checkpoints/<game>/<name>``);
    ``env`` is the env it will play (an :class:`~training.envspec.EnvSpec`, an
    env id string for that env's default options, or None for the env and
    options it was trained with; ``policy.env_spec`` makes it). The
    checkpoint is verified as every ``checkpoint:`` spec is (hashes, plain
    file names, the env's layout; see :func:`training.checkpoints.load_actor`).
    ``deterministic=False`` samples from the masked distribution with a
    generator seeded by ``seed``."""
    if isinstance(env, str):
        env_spec: EnvSpec | None = EnvSpec.resolve(env)
    elif env is None or isinstance(env, EnvSpec):
        env_spec = env
    else:
        raise TypeError(f"load_policy: env must be an EnvSpec, an env id or None, not {type(env).__name__}")
    for name, value in (("deterministic", deterministic), ("strict", strict)):
        if not isinstance(value, (bool, np.bool_)):  # bool("false") is True
            raise TypeError(f"load_policy: {name}={shown(value, 60)} (a {type(value).__name__}) is not allowed; "
                            f"allowed: True or False")
    spec = PolicySpec("checkpoint", str(directory), {"deterministic": bool(deterministic), "strict": bool(strict)},
                      text=f"checkpoint:{directory}")
    pol = load_checkpoint_policy(spec, env_spec)
    pol.reset(seed)
    return pol


def make_policy(spec: str | PolicySpec, env_spec: EnvSpec, seed: int | None = None) -> Policy:
    """A fresh policy object for ``spec`` on ``env_spec``'s game."""
    if not isinstance(env_spec, EnvSpec):
        raise ConfigError(f"make_policy needs the EnvSpec of the env it plays (training.envspec.EnvSpec.resolve("
                          f"env_id, options)); got {type(env_spec).__name__} {shown(env_spec, 60)}")
    ps = spec if isinstance(spec, PolicySpec) else parse_spec(spec)
    if seed is not None:
        seed = checked_seed(seed)  # every kind alike (the heuristic took -1 where random refused it)
    if ps.kind == "random":
        return RandomLegalPolicy(seed)
    if ps.kind == "noop":
        return NoopPolicy()
    if ps.kind == "text":
        from training.text_agent import TextAgentPolicy, load_reply_fn

        return TextAgentPolicy(load_reply_fn(ps.path), ps.options.get("retries", 2), name=ps.label)
    if ps.kind == "planner":
        return make_planner(ps, env_spec, seed)
    if ps.kind == "heuristic":
        cls = getattr(env_spec.module(), "HeuristicPolicy", None)
        if cls is None:
            raise ConfigError(f"{env_spec.env_id} has no HeuristicPolicy; use random or a checkpoint")
        kwargs = {}
        for key, attr in (("style", "styles"), ("recall", "recalls")):
            value = ps.options.get(key)
            allowed = getattr(cls, attr, ("default",) if key == "style" else ())
            if value is not None and value not in allowed:
                raise ConfigError(f"policy spec {ps.text!r}: {env_spec.env_id}'s heuristic has no {key} {value!r}; "
                                  f"allowed: {', '.join(allowed) if allowed else '(none: this heuristic has no ' + key + ' option)'}")
            if value is not None and hasattr(cls, attr):
                kwargs[key] = value
        pol = cls(**kwargs)
        if seed is not None:
            pol.reset(seed)
        return pol
    pol = load_checkpoint_policy(ps, env_spec)
    pol.reset(seed)
    return pol
