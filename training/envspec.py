"""Which environment, with which options: a picklable recipe for env copies.

Training and evaluation run env copies in worker processes, so they pass an
:class:`EnvSpec` (env id, the module that implements it, the keyword options)
rather than env objects. The registry (``envs.get_env_module``) resolves the
module once, in the parent; workers import it by name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Mapping

import envs
from envs.core.errors import ConfigError
from envs.core.tick_env import INTERFACE_OPTIONS

#: Core options the trainer controls itself; a config may not set them.
RESERVED_ENV_OPTIONS = ("render_mode",)


class EnvUnavailableError(ConfigError):
    """The config names an environment that is not present in this checkout."""


def _module_for(env_id: str) -> ModuleType:
    """The registered module of ``env_id`` or a clear error."""
    if env_id not in envs.ENV_IDS:
        raise EnvUnavailableError(
            f"unknown environment {env_id!r}; registered: {list(envs.ENV_IDS)}; "
            f"present in this checkout: {envs.available_env_ids()}"
        )
    if env_id not in envs.available_env_ids():
        raise EnvUnavailableError(
            f"environment {env_id!r} is registered but not present in this checkout "
            f"(no module envs/{env_id}.py yet); present: {envs.available_env_ids() or 'none'}"
        )
    return envs.get_env_module(env_id)


@dataclass(frozen=True)
class EnvSpec:
    """An env id, its module's import name and its keyword options."""

    env_id: str
    module_name: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def resolve(cls, env_id: str, options: Mapping[str, Any] | None = None) -> "EnvSpec":
        """Look ``env_id`` up in the registry and validate ``options`` with the
        env's own ConfigSpec (an unknown or bad option raises ConfigError)."""
        module = _module_for(env_id)
        options = dict(options or {})
        for k in RESERVED_ENV_OPTIONS:
            if k in options:
                raise ConfigError(f"env option {k!r} is set by the commands themselves (watch and play draw the "
                                  f"table), not by a config or --env-set; allowed: the env's other options")
        spec = cls(env_id, module.__name__, options)
        spec.raw_cls().config_spec().resolve(options)  # validate now, with the env's message
        return spec

    def module(self) -> ModuleType:
        return importlib.import_module(self.module_name)

    def raw_cls(self):
        return self.module().raw_env

    def make(self, **extra: Any):
        """A new ParallelEnv with these options (``extra`` overrides)."""
        return self.module().parallel_env(**{**self.options, **extra})

    def with_options(self, **changes: Any) -> "EnvSpec":
        return EnvSpec.resolve(self.env_id, {**self.options, **changes}) if self.env_id in envs.ENV_IDS \
            else EnvSpec(self.env_id, self.module_name, {**self.options, **changes})

    @property
    def kind(self) -> str:
        """'cooperative' or 'competitive' (from the module's SUMMARY)."""
        summary = getattr(self.module(), "SUMMARY", {}) or {}
        kind = summary.get("kind", "competitive")
        if kind not in ("cooperative", "competitive"):
            raise ConfigError(f"{self.env_id}: SUMMARY['kind'] is {kind!r}; expected 'cooperative' or 'competitive'")
        return kind

    @property
    def game(self) -> str:
        """The game's name without the version suffix (``wok_star_v1`` -> ``wok_star``)."""
        base, _, ver = self.env_id.rpartition("_v")
        return base if base and ver.isdecimal() else self.env_id

    def resolved_options(self) -> dict[str, Any]:
        """Every option of the env (defaults filled in) as plain JSON-able data."""
        cfg = self.raw_cls().config_spec().resolve(dict(self.options))
        return {k: v for k, v in cfg.items() if k not in RESERVED_ENV_OPTIONS and k not in INTERFACE_OPTIONS
                and not (k == "max_cycles" and v is None)}

    def compact(self) -> "EnvSpec":
        """The same env with options equal to the env's defaults left out."""
        defaults = self.raw_cls().config_spec().defaults()
        return EnvSpec(self.env_id, self.module_name,
                       {k: v for k, v in self.options.items() if k not in defaults or defaults[k] != v})

    def label(self) -> str:
        inner = ",".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.env_id}[{inner}]" if inner else self.env_id
