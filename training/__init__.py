"""Training and evaluation of agents on the Kitchen Arena environments.

Built on stable-baselines3 / sb3-contrib (MaskablePPO) and the env registry
(``envs``). Command line: ``python -m training {train,evaluate,tournament,watch,list,schema}``;
docs: ``docs/training.md``.

Modules:

* :mod:`training.vec_env` - ``MultiAgentVecEnv``: ParallelEnv copies as one SB3 VecEnv
  (one slot per learner seat, masks, other seats played inside, worker processes);
* :mod:`training.copies`, :mod:`training.seating`, :mod:`training.obs` - its parts;
* :mod:`training.policies` - policy spec strings (random, heuristic, noop, checkpoint:DIR);
* :mod:`training.checkpoints` - save/verify/load checkpoints with metadata and SHA-256;
* :mod:`training.config`, :mod:`training.schema` - validated YAML configs;
* :mod:`training.trainer`, :mod:`training.callbacks`, :mod:`training.plotting` - a run;
* :mod:`training.evaluation`, :mod:`training.tournament`, :mod:`training.stats` - measuring;
* :mod:`training.watch` - a game in the terminal.
"""

__version__ = "0.1.0"

#: import names of the ``train`` extra (pyproject.toml) -> their pip names
TRAIN_EXTRA = {"yaml": "pyyaml", "torch": "torch", "stable_baselines3": "stable-baselines3",
               "sb3_contrib": "sb3-contrib", "tensorboard": "tensorboard", "tqdm": "tqdm", "rich": "rich",
               "matplotlib": "matplotlib"}
INSTALL_HINT = "install the train extra: pip install -e '.[train]' (in a checkout; installed from a wheel: pip install '<the wheel>[train]')"


def missing_extra_message(error: ModuleNotFoundError) -> str | None:
    """The one-line message for a missing module of the ``train`` extra (None for any other module)."""
    root = (error.name or "").partition(".")[0]
    if root not in TRAIN_EXTRA:
        return None
    return (f"python -m training needs the package {TRAIN_EXTRA[root]!r} (module {root!r} is not installed), "
            f"part of the train extra; {INSTALL_HINT}")


def require_modules(*names: str) -> None:
    """Raise ModuleNotFoundError (named) unless each module of the train extra
    can be imported; checked without importing, before a long command starts."""
    import importlib.util

    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # e.g. sys.modules[name] is None
            found = False
        if not found:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

# Lazy exports (importing ``training`` stays cheap: no torch until used).
_EXPORTS = {
    "MultiAgentVecEnv": "training.vec_env",
    "BridgeSettings": "training.copies",
    "RewardRule": "training.copies",
    "SeatingRule": "training.seating",
    "EnvSpec": "training.envspec",
    "make_policy": "training.policies",
    "load_config": "training.config",
    "train": "training.trainer",
    "evaluate": "training.evaluation",
    "run_tournament": "training.tournament",
    "load_checkpoint": "training.checkpoints",
    "load_policy": "training.policies",
    "CheckpointError": "training.checkpoints",
}


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'training' has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
