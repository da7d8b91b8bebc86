"""``--training``: SB3 rollout frames/s through the training bridge, next to
SB3 PPO on CartPole-v1 (all in ``training.throughput.run_throughput``, which
prints its own table and returns its rows). Imported only when asked for."""

from __future__ import annotations

from typing import Any, Callable

from envs.bench.errors import Unavailable

INSTALL_HINT = 'pip install -e ".[train]" in a checkout; installed from a wheel: pip install "<the wheel>[train]"'


class TrainingUnavailable(Unavailable):
    pass


def load_training() -> Callable[..., list[dict[str, Any]]]:
    try:
        from training.throughput import CONFIG_DIR, run_throughput
    except ImportError as e:
        raise TrainingUnavailable(explain(e)) from e
    if not CONFIG_DIR.is_dir():  # an installed package has no configs/ (they are the checkout's)
        raise TrainingUnavailable(f"--training and --training-full read the games' configs in {CONFIG_DIR}, which "
                                  f"is not there: run it from a checkout of the project (git clone; pip install -e "
                                  f"\".[train]\")")
    return run_throughput


def explain(e: ImportError) -> str:
    """Why ``--training`` cannot run: this checkout lacks the module, or the
    train extra (torch, SB3, ...) is not installed."""
    name = e.name or ""
    if name.split(".")[0] == "training":
        return f"--training needs training/throughput.py, which is not in this checkout ({e})"
    return f"--training needs the train extra ({name or e} is not installed): {INSTALL_HINT}"
