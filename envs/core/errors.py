"""Exceptions shared by every Kitchen Arena environment.

All of them subclass :class:`ValueError` so that callers who only know the
standard library can still catch them, while callers who want to tell the
cases apart can catch the precise class.
"""

from __future__ import annotations

from envs.core.inputs import shown as _shown


def _short(name: object) -> object:
    """An agent's name for a message: a plain short string as it is, anything else as :func:`shown`."""
    return name if isinstance(name, str) and len(name) <= 100 and name.isprintable() else _shown(name)


_UNSET = object()


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

    def __init__(self, agent: object, action: object = _UNSET, action_name: str = "", reason: str = "",
                 legal: list[str] | None = None):
        if action is _UNSET:
            # Rebuilt from one argument: vector envs (gymnasium's AsyncVectorEnv, AgileRL's
            # AsyncPettingZooVecEnv) re-raise a worker's error as ``type(err)(err)``.
            src = agent
            if isinstance(src, IllegalActionError):
                self.agent, self.action, self.action_name = src.agent, src.action, src.action_name
                self.reason, self.legal, self._legal_arg = src.reason, list(src.legal), src._legal_arg
            else:
                self.agent = self.action = self.action_name = self.reason = None
                self.legal, self._legal_arg = [], None
            super().__init__(str(src))
            return
        self.agent = agent
        self.action = action
        self.action_name = action_name
        self.reason = reason
        self.legal = list(legal or [])
        shown = ", ".join(self.legal[:12])
        if len(self.legal) > 12:
            shown += f", ... ({len(self.legal)} legal in all)"
        # an action straight from a caller may be anything (an integer of 5,000 digits, a string of a
        # million characters, a list nested 100,000 deep): shown short, and never failing
        what = action if isinstance(action, str) and action in ("-", "?") else _shown(action)
        msg = f"illegal action for {_short(agent)}: {what} ({action_name}): {reason}"
        if legal is not None:
            msg += f". Legal now: [{shown}]"
        self._legal_arg = None if legal is None else list(legal)
        super().__init__(msg)

    def __reduce__(self):
        # Pickles (across worker processes: AgileRL, RLlib, SB3 subprocess envs) with every field,
        # so the receiving side sees the same message instead of a constructor TypeError.
        if self.reason is None:  # the message-only form
            return (type(self), (str(self),))
        return (type(self), (self.agent, self.action, self.action_name, self.reason, self._legal_arg))


class ActionFormatError(KitchenArenaError, TypeError):
    """``step`` got something that is not a joint action: the parallel form takes a
    dict ``{agent: action index}`` with one entry per live agent."""


class SnapshotError(KitchenArenaError):
    """A snapshot (``to_dict`` output) that does not fit the engine or config."""


class DataError(KitchenArenaError):
    """A card data file that does not match the rulebook's component counts."""


#: How much of a text reply an :class:`ActionParseError` quotes (the ``text`` field keeps all of it).
QUOTE_CHARS = 200


class ActionParseError(KitchenArenaError):
    """A text reply (a person's input, a language model's answer) that names no
    legal action. The message quotes the text (its first :data:`QUOTE_CHARS`
    characters) and lists the legal names;
    ``agent``, ``text`` and ``legal`` (the legal names, in index order) are
    kept as fields."""

    def __init__(self, agent: object, text: object = _UNSET, legal: list[str] | None = None, reason: str = ""):
        if text is _UNSET:
            # Rebuilt from one argument (the message, or another ActionParseError), as vector envs re-raise.
            src = agent
            if isinstance(src, ActionParseError):
                self.agent, self.text, self.legal, self.reason = src.agent, src.text, list(src.legal), src.reason
            else:
                self.agent = self.text = None
                self.legal, self.reason = [], ""
            super().__init__(str(src))
            return
        self.agent = agent
        self.text = text
        self.legal = list(legal or [])
        self.reason = reason
        why = f" ({reason})" if reason else ""
        said = text if isinstance(text, str) else _shown(text)  # (str() of 10**5000, or a raising __str__, failed)
        quoted = repr(said) if len(said) <= QUOTE_CHARS else f"{said[:QUOTE_CHARS]!r}... ({len(said):,} characters)"
        msg = (f"{agent}: {quoted} is not a legal action{why}; give the index or the exact name of one "
               f"of the legal actions: [{', '.join(self.legal)}]")
        super().__init__(msg)

    def __reduce__(self):
        if self.text is None and self.agent is None:  # the message-only form
            return (type(self), (str(self),))
        return (type(self), (self.agent, self.text, self.legal, self.reason))
