"""Exceptions shared by every Kitchen Arena environment.

All of them subclass :class:`ValueError` so that callers who only know the
standard library can still catch them, while callers who want to tell the
cases apart can catch the precise class.
"""

from __future__ import annotations


class KitchenArenaError(ValueError):
    """Base class of every error raised on bad input to an environment."""


class ConfigError(KitchenArenaError):
    """An unknown configuration keyword or a value outside what is allowed."""


class IllegalActionError(KitchenArenaError):
    """An agent submitted an action that its mask does not allow.

    Raised before anything is applied, so the game state is left untouched.
    The message names the agent, the action index and name, why it is illegal
    and which actions were legal.
    """

    def __init__(self, agent: str, action: object, action_name: str, reason: str, legal: list[str] | None = None):
        self.agent = agent
        self.action = action
        self.action_name = action_name
        self.reason = reason
        self.legal = list(legal or [])
        shown = ", ".join(self.legal[:12])
        if len(self.legal) > 12:
            shown += f", ... ({len(self.legal)} legal in all)"
        msg = f"illegal action for {agent}: {action} ({action_name}): {reason}"
        if legal is not None:
            msg += f". Legal now: [{shown}]"
        self._legal_arg = None if legal is None else list(legal)
        super().__init__(msg)

    def __reduce__(self):
        # Pickles (across worker processes: AgileRL, RLlib, SB3 subprocess envs) with every field,
        # so the receiving side sees the same message instead of a constructor TypeError.
        return (type(self), (self.agent, self.action, self.action_name, self.reason, self._legal_arg))


class ActionFormatError(KitchenArenaError, TypeError):
    """``step`` got something that is not a joint action: the parallel form takes a
    dict ``{agent: action index}`` with one entry per live agent."""


class SnapshotError(KitchenArenaError):
    """A snapshot (``to_dict`` output) that does not fit the engine or config."""


class DataError(KitchenArenaError):
    """A card data file that does not match the rulebook's component counts."""
