"""Training configs: YAML files validated by :data:`SCHEMA`.

A config names the env and its options, MaskablePPO's hyperparameters, the
run (timesteps, seed, env copies, workers, reward), behaviour-cloning
warm start (``pretrain``), who sits where
(``seats``), the self-play pool, the final evaluation and where outputs go.
Every key has a default; a config file only states what differs. Unknown keys
and bad values raise :class:`~envs.core.errors.ConfigError` naming the dotted
key and what is allowed. ``--set a.b=value`` overrides parse ``value`` as
YAML (``--set training.total_timesteps=5e4``, ``--set seats.others={random: 1}``).

``python -m training train`` without ``--config`` uses the embedded default
(``training/data/default.yaml``).
"""

from __future__ import annotations

import copy
import re
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import yaml

from envs.core.errors import ConfigError
from envs.core import inputs
from envs.core.inputs import MAX_GAMES, check_yaml_size, quoted, read_text_file

from training.copies import REWARD_MODES
from training.policies import spec_checker
from training.seating import ROTATIONS
from training.schema import (AnyMapping, Either, Flag, Key, ListOf, MapOf, Number, OneOf, Section, Text)

DEFAULT_CONFIG_RESOURCE = "default.yaml"


def _others_key(k: str) -> str | None:
    return None if k == "pool" else spec_checker(k)


#: The longest run name: its lock file (``.NAME.lock``) must stay within a file name's 255 bytes.
MAX_NAME_BYTES = 200


def _printable(s: str) -> bool:
    """No control character (a NUL had ended a run in a traceback; an escape was printed raw)."""
    return all(ch.isprintable() for ch in s)


def _name_check(s: str) -> str | None:
    if ("/" in s or "\\" in s or s.startswith(".") or not _printable(s)
            or len(s.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES):
        return (f"a plain directory name (no slashes, not starting with '.', printable characters only, "
                f"1-{MAX_NAME_BYTES} bytes)")
    return None


def _dir_check(s: str) -> str | None:  # (Text refuses an empty string itself)
    if not _printable(s):
        return "a directory path (printable characters only)"
    return None


SCHEMA = Section("config", {
    "name": Key(Text(validator=_name_check, description="a run name"), "run",
                "run name: the checkpoint goes to output.checkpoints/GAME/NAME/, TensorBoard logs to output.runs/GAME/NAME/"),
    "description": Key(Text(allow_none=True), None, "free text, copied into the checkpoint's metadata"),
    "env": Key(Section("env", {
        "id": Key(Text(description="a registered env id (envs.ENV_IDS)"), "wok_star_v1", "environment id"),
        "options": Key(AnyMapping("a mapping of the env's keyword options (validated by the env)"), {},
                       "keyword options of the env (players, difficulty, ...); see docs/<game>.md"),
    }), None, ""),
    "algorithm": Key(Section("algorithm", {
        "name": Key(OneOf(("MaskablePPO",)), "MaskablePPO", "algorithm (sb3-contrib's MaskablePPO: never samples an illegal action)"),
        "learning_rate": Key(Number(low=0, low_exclusive=True, high=1), 3e-4, "Adam step size"),
        "lr_schedule": Key(OneOf(("constant", "linear")), "constant", "constant, or linear decay to 0 over the run"),
        "n_steps": Key(Number(integer=True, low=1, high=2 ** 20), 256, "rollout length per slot (rollout = n_steps x slots)"),
        "batch_size": Key(Number(integer=True, low=2), 512, "minibatch size"),
        "n_epochs": Key(Number(integer=True, low=1), 4, "passes over each rollout"),
        "gamma": Key(Number(low=0, high=1), 0.995, "discount"),
        "gae_lambda": Key(Number(low=0, high=1), 0.95, "GAE lambda"),
        "clip_range": Key(Number(low=0, low_exclusive=True, high=1), 0.2, "PPO clip range"),
        "ent_coef": Key(Number(low=0), 0.01, "entropy bonus"),
        "vf_coef": Key(Number(low=0), 0.5, "value loss weight"),
        "max_grad_norm": Key(Number(low=0, low_exclusive=True), 0.5, "gradient clipping"),
        "target_kl": Key(Number(low=0, low_exclusive=True, allow_none=True), None, "early stop an update past this KL"),
        "normalize_advantage": Key(Flag(), True, "normalise advantages per minibatch"),
        "net_arch": Key(ListOf(Number(integer=True, low=1, high=65_536), min_len=1), [128, 128],
                        "hidden layer sizes of both the policy and the value network"),
        "activation": Key(OneOf(("tanh", "relu")), "tanh", "hidden-layer activation"),
    }), None, ""),
    "training": Key(Section("training", {
        "total_timesteps": Key(Number(integer=True, low=1), 100_000,
                               "learner steps in all (one per slot per env step)"),
        "seed": Key(Number(integer=True, low=0, high=2 ** 32 - 1), 0,
                    "seeds torch, the env copies and every policy draw (numpy's legacy seed range: below 2**32)"),
        "env_copies": Key(Number(integer=True, low=1, high=4096), 8, "parallel copies of the env"),
        "workers": Key(Number(integer=True, low=1, high=64), 2,
                       "processes stepping the env copies, the main process included (1: only the main process)"),
        "torch_threads": Key(Number(integer=True, low=1, high=64), 1, "torch threads of the main process"),
        "worker_timeout_s": Key(Number(low=0, low_exclusive=True, allow_none=True), None,
                                "seconds a worker process may take to answer one step or reset before it is stopped "
                                "and the run ends with an error naming it (null: no limit; the SB3 backend's bridge)"),
        "normalize_observations": Key(Flag(), True, "rescale observations to [0, 1] by the env's declared bounds"),
        "reward": Key(OneOf(("auto", *REWARD_MODES)), "auto",
                      "team: mean of every seat's reward; own: the seat's reward; auto: team if cooperative else own"),
        "reward_scale": Key(Number(low=0, low_exclusive=True), 1.0, "multiplies the env reward"),
        "win_bonus": Key(Number(), 0.0, "added at a terminal end, times the seat's win share"),
        "loss_penalty": Key(Number(), 0.0, "subtracted at a terminal end when the seat did not win"),
        "checkpoint_every": Key(Number(integer=True, low=0), 0,
                                "also save the checkpoint every this many timesteps (0: at the end and on Ctrl-C only)"),
        "progress_bar": Key(Flag(), True, "show a progress bar with rate and ETA"),
        "device": Key(OneOf(("cpu", "auto", "cuda")), "cpu", "torch device of the learner"),
        "action_sampler": Key(OneOf(("exact", "cdf")), "exact",
                              "how rollouts draw the learner's actions: exact: torch.multinomial, the draws of "
                              "sb3-contrib's masked policy bit for bit; cdf: one uniform per row against the running "
                              "sum of its probabilities (the same distribution, a different random stream, faster with "
                              "many actions; training.sampling)"),
        "init_from": Key(Text(allow_none=True, description="a checkpoint directory"), None,
                         "start PPO from this checkpoint's policy and value weights instead of random ones (same env, "
                         "observation and action spaces, algorithm.net_arch and activation, normalize_observations; "
                         "its optimizer state and step counters are not taken); with pretrain.steps > 0 the cloning starts from "
                         "these weights; null: none"),
    }), None, ""),
    "pretrain": Key(Section("pretrain", {
        "steps": Key(Number(integer=True, low=0), 0,
                     "behaviour cloning before PPO: learner samples of teacher play to collect (one per learner seat "
                     "per env step, in the bridge with the run's seating; 0: no pretraining)"),
        "teacher": Key(Text(validator=spec_checker, description="a policy spec"), "heuristic",
                       "the policy to clone: it plays every learner seat during collection (pool seats too)"),
        "epochs": Key(Number(integer=True, low=1), 8, "passes over the collected samples"),
        "batch_size": Key(Number(integer=True, low=2), 1024, "minibatch size of the fit"),
        "learning_rate": Key(Number(low=0, low_exclusive=True, high=1), 1e-3, "Adam step size of the fit"),
        "value": Key(Flag(), True, "also fit the value head to the teacher's discounted returns (algorithm.gamma)"),
        "holdout": Key(Number(low=0, high=0.5), 0.05,
                       "share of the collected games kept out of the fit to measure agreement"),
        "dagger_rounds": Key(Number(integer=True, low=0), 0,
                             "DAgger rounds after the first fit: the clone plays, the teacher labels, refit on all data"),
        "dagger_steps": Key(Number(integer=True, low=1), 50_000, "learner samples collected per DAgger round"),
        "dagger_epochs": Key(Number(integer=True, low=1), 2, "passes over all samples so far after each DAgger round"),
        "dagger_teacher_share": Key(Number(low=0, high=1), 0.0,
                                    "chance that a learner seat plays the teacher's action rather than the clone's "
                                    "in a DAgger round (per step)"),
    }), None, ""),
    "seats": Key(Section("seats", {
        "learners": Key(Either((OneOf(("auto", "all")), Number(integer=True, low=1))), "auto",
                        "learner seats per game: all, a number, or auto (all if cooperative, else 1)"),
        "rotation": Key(OneOf(ROTATIONS), "cycle", "how the learner's seat changes from episode to episode"),
        "others": Key(MapOf(Number(low=0), key_description="'pool' or a policy spec", key_check=_others_key),
                      {"pool": 0.6, "heuristic": 0.2, "random": 0.2},
                      "weights of who plays each non-learner seat (drawn per seat per episode)"),
    }), None, ""),
    "self_play": Key(Section("self_play", {
        "snapshot_every": Key(Number(integer=True, low=1), 20_000, "add a frozen snapshot of the learner to the pool every this many timesteps"),
        "pool_size": Key(Number(integer=True, low=1), 8, "snapshots kept (the most recent)"),
        "latest_weight": Key(Number(low=0, high=1), 0.5, "chance that a pool seat plays the newest snapshot (else a uniform older one)"),
    }), None, ""),
    "evaluation": Key(Section("evaluation", {
        "games": Key(Number(integer=True, low=1, high=MAX_GAMES), 200, "seeded games per row of the final evaluation table"),
        "seed": Key(Number(integer=True, low=0), 1_000_000, "seed of the first evaluation game (game g uses seed + g)"),
        "against": Key(ListOf(Text(validator=spec_checker, description="a policy spec")), ["random", "heuristic"],
                       "opponents (competitive) or partners (cooperative cross-play) of the trained policy"),
        "baselines": Key(Flag(), True, "also evaluate the heuristic and random policies for reference"),
        "sweep": Key(MapOf(ListOf(Either((Flag(), Number(integer=True), Number(), Text())), min_len=1, unique=True),
                           key_description="an env option"), {},
                     "env options to vary in the evaluation, e.g. {difficulty: [mild, medium]}"),
        "workers": Key(Number(integer=True, low=1, high=64), 2, "processes playing evaluation games (1: only the main process)"),
        "deterministic": Key(Flag(), True, "trained policy plays its most likely legal action"),
        "extras": Key(ListOf(Text(description="an outcome() key")), [],
                      "outcome() extras shown as table columns, in order (empty: all; the JSON keeps all)"),
    }), None, ""),
    "output": Key(Section("output", {
        "checkpoints": Key(Text(validator=_dir_check, description="a directory"), "checkpoints",
                           "root of the checkpoint directories"),
        "runs": Key(Text(validator=_dir_check, description="a directory"), "runs", "root of the TensorBoard logs"),
    }), None, ""),
})


def default_config_text() -> str:
    return (Path(__file__).resolve().parent / "data" / DEFAULT_CONFIG_RESOURCE).read_text(encoding="utf-8")


class StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that repeats a key (plain
    PyYAML keeps the last one silently). Merge keys (``<<: *base``) still
    work: keys written out override merged ones, as YAML says."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base constructor names it
                    continue
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found duplicate key {key!r} (first given on line {first.line + 1}); "
                        f"each key may appear once per mapping", key_node.start_mark)
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        """YAML's integer, written with at most :data:`MAX_YAML_INT_CHARS` characters: a longer one
        (100,000 digits, or YAML 1.1's base-60 ``1:59:59:...`` of thousands of parts, which took 22 s
        to build) had reached Python's limit on integer text, or a message's ``repr``, as a traceback."""
        text = self.construct_scalar(node)
        if len(text) > MAX_YAML_INT_CHARS:
            raise YamlLimitError(f"line {node.start_mark.line + 1}: an integer written with {len(text):,} characters is "
                                 f"not allowed; allowed: at most {MAX_YAML_INT_CHARS} (no config value needs more)")
        return super().construct_yaml_int(node)


#: the longest integer a config's YAML may write (characters; 2**63 has 19 digits)
MAX_YAML_INT_CHARS = 64
StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)


class YamlLimitError(yaml.YAMLError):
    """YAML text that is valid but past a reader's limits (:mod:`envs.core.inputs`): nested too
    deeply, or expanding through anchors and aliases to more values than a config can hold."""


def yaml_load(text: str) -> Any:
    """YAML text -> data, with :class:`StrictLoader` (no duplicate keys); a text nested too deeply
    or expanding to more than :data:`envs.core.inputs.MAX_YAML_VALUES` values (a "billion laughs"
    of anchors and aliases) is a :class:`YamlLimitError`."""
    try:
        data = yaml.load(text, Loader=StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise YamlLimitError(f"sequences or mappings nested too deeply are not allowed; allowed: fewer than about "
                             f"{sys.getrecursionlimit():,} levels") from None
    return check_yaml_size(data, "", YamlLimitError)


def yaml_refusal(e: Exception) -> str:
    """Why a YAML text was refused, as one line: ``not valid YAML (...)``, or the limit it is past."""
    if isinstance(e, YamlLimitError):
        return " ".join(str(e).split())
    return f"not valid YAML ({yaml_error_text(e)})"


def parse_override(item: str) -> tuple[list[str], Any]:
    """``a.b.c=value`` -> (["a", "b", "c"], yaml-parsed value)."""
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {quoted(item)}: not KEY=VALUE (e.g. --set training.total_timesteps=20000)")
    try:
        value = yaml_load(raw) if raw.strip() else ""
    except yaml.YAMLError as e:
        raise ConfigError(f"--set {quoted(item)}: the value is {yaml_refusal(e)}") from e
    path = key.strip().split(".")
    if any(not p for p in path):
        raise ConfigError(f"--set {quoted(item)}: {key.strip()!r} is not a dotted key (e.g. training.seed)")
    return path, value


def apply_overrides(raw: dict, overrides: Iterable[str]) -> dict:
    out = copy.deepcopy(raw)
    for item in overrides:
        path, value = parse_override(item)
        node = out
        for p in path[:-1]:
            nxt = node.get(p)
            if nxt is None:
                nxt = node[p] = {}
            if not isinstance(nxt, dict):
                raise ConfigError(f"--set {quoted(item)}: {p!r} is not a section")
            node = nxt
        node[path[-1]] = value
    return out


def yaml_error_text(e: Exception) -> str:
    """A YAML error as one line: what is wrong and where (line, column)."""
    if isinstance(e, yaml.MarkedYAMLError) and e.problem:
        where = f"line {e.problem_mark.line + 1}, column {e.problem_mark.column + 1}: " if e.problem_mark else ""
        context = f" ({e.context})" if e.context and "duplicate" not in e.problem else ""
        return " ".join(f"{where}{e.problem}{context}".split())
    return " ".join(str(e).split())


def load_yaml_text(text: str, source: str) -> dict:
    try:
        raw = yaml_load(text)
    except YamlLimitError as e:
        raise ConfigError(f"{source}: {' '.join(str(e).split())}") from e
    except yaml.YAMLError as e:
        raise ConfigError(f"{source}: not valid YAML: {yaml_error_text(e)}") from e
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: a config must be a YAML mapping, got {type(raw).__name__}")
    return raw


def _resolve(data: dict, source: str, path: str | Path | None, overrides: list[str],
             check: Callable[[dict], None] | None) -> dict:
    cfg = SCHEMA.resolve(data)
    cfg["_source"] = source
    cfg["_path"] = None if path is None else str(path)
    cfg["_overrides"] = list(overrides)
    if check is not None:
        check(cfg)
    return cfg


def load_config(path: str | Path | None = None, overrides: Iterable[str] = (),
                raw: Mapping[str, Any] | None = None, check: Callable[[dict], None] | None = None) -> dict:
    """The validated config: from ``raw``, a file, or the embedded default,
    with ``overrides`` (``--set`` items) applied.

    ``check(cfg)`` (e.g. :func:`training.trainer.check_config`) runs on the
    resolved config. An error names its true source: the file (or the embedded
    default) when the file alone has it, else the ``--set`` item that brought it.
    """
    overrides = list(overrides)
    if raw is not None:
        data, source = copy.deepcopy(dict(raw)), "config"
    elif path is None:
        data, source = load_yaml_text(default_config_text(), "embedded default config"), "embedded default config"
    else:
        p = Path(path)
        if not p.is_file():
            what = "is a directory" if p.is_dir() else ("is not a regular file" if p.exists() else "not found")
            raise ConfigError(f"config file {str(p)!r} {what}; allowed: a YAML file")
        data, source = load_yaml_text(read_text_file(p, str(p), ConfigError, inputs.MAX_CONFIG_BYTES), str(p)), str(p)
    final = apply_overrides(data, overrides)  # a malformed --set item names itself
    try:
        return _resolve(final, source, path, overrides, check)
    except ConfigError as e:
        raise ConfigError(f"{_blame(data, overrides, str(e), source, path, check)}: {e}") from e


def _blame(data: dict, overrides: list[str], message: str, source: str, path, check) -> str:
    """Where an error comes from: the ``--set`` item that set the key the error
    names (the last one, which wins); else where the error first appears: the
    file alone, or after the i-th ``--set``."""
    for item in reversed(overrides):
        key = item.partition("=")[0].strip()
        if key and re.search(rf"config key {re.escape(key)}(?![\w])", message):
            return f"--set {item}"
    for i in range(len(overrides) + 1):
        try:
            with warnings.catch_warnings():  # shown by the first attempt already
                warnings.simplefilter("ignore")
                _resolve(apply_overrides(data, overrides[:i]), source, path, overrides[:i], check)
        except ConfigError as e:
            if str(e) == message:
                return source if i == 0 else f"--set {overrides[i - 1]}"
    return f"{source} with " + " ".join(f"--set {o}" for o in overrides)


def command_line(cfg: Mapping[str, Any], *extra: str) -> str:
    """The ``python -m training train`` command that reproduces ``cfg`` (for hints)."""
    import shlex

    parts = ["python", "-m", "training", "train"]
    if cfg.get("_path"):
        parts += ["--config", str(cfg["_path"])]
    for o in cfg.get("_overrides") or []:
        parts += ["--set", o]
    if cfg.get("_backend") == "rllib":  # (the default backend, sb3, goes unnamed)
        parts += ["--backend", "rllib"]
    return " ".join(shlex.quote(p) for p in parts + list(extra))


def public(cfg: Mapping[str, Any]) -> dict:
    """The config without bookkeeping keys (as saved with a checkpoint)."""
    return {k: copy.deepcopy(v) for k, v in cfg.items() if not k.startswith("_")}


def to_yaml(cfg: Mapping[str, Any]) -> str:
    return yaml.safe_dump(public(cfg), sort_keys=False)
