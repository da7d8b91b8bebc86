"""A text agent: any function from a prompt to a reply, playing as a policy.

The policy spec ``text:MODULE:CALLABLE`` (options ``?retries=N``, default 2)
imports ``CALLABLE`` from ``MODULE`` (a module on the Python path: your own
code, run as you named it) and plays it. For each decision the callable gets
one string, the prompt (:func:`envs.core.text.prompt`: the rules summary, the
table as that player sees it, what its legal actions mean, the legal actions as
``index: name``), and
returns a reply string. The adapter reads the action from the reply
(:func:`extract_action`: the whole reply as an index or exact name, or a line
``Action: NAME``); an unusable reply is answered by asking again, the prompt
followed by what was wrong (the legal names), at most ``retries`` times; then
the agent plays ``noop`` (or, where ``noop`` is not legal -- a Waroong Wars
drafter -- the game's default action). A decision with one legal action only
is played without asking (counted as ``forced``).

Counts, as attributes and in :meth:`TextAgentPolicy.counts`: ``ok`` (the first
reply was usable), ``retried`` (a later reply was), ``fell_back`` (none was:
``noop`` played), ``forced`` and ``replies`` (calls of the callable). See
docs/language_agents.md.
"""

from __future__ import annotations

import copy
import importlib
import re
from typing import Any, Callable

from envs.core.errors import ActionParseError, ConfigError, KitchenArenaError
from envs.core.policy import Policy
from envs.core.text import legal_actions, parse_action, prompt

#: the most retries a spec may ask for
MAX_RETRIES = 10

#: The head of a line ``Action: ...`` (markdown's ``*``, ``_``, ``#``, ``>``, ``-`` around it allowed;
#: ``[^\S\n]``: a space that is not a line break, so the head stays within its line). The value
#: after it is cut out in :func:`_value`. A single pattern for both, whose spaces could cross lines
#: and whose lazy value sat before a trailing class, backtracked quadratically: a reply of 32,000
#: line breaks took 4.7 s, and a megabyte would take hours.
_ACTION_HEAD = re.compile(r"^(?:[^\S\n]|[*_#>-])*action(?:[^\S\n]|[*_])*[:=]", re.I | re.M)
_LEAD = re.compile(r"[\s*_]*")
#: the most ``Action:`` lines of one reply tried, from its last (a reply of 10,000 took 5.9 s)
MAX_ACTION_LINES = 64


def _value(reply: str, start: int, stop: int) -> str:
    """The value of the ``Action:`` head ending at ``start``: after spaces (line breaks too), ``*``
    and ``_``, the rest of that line, without spaces, ``*``, ``_`` and ``.`` at its end and quotes
    round it. It is looked for before ``stop`` (the next head), so a reply is read once."""
    i = _LEAD.match(reply, start, stop).end()
    j = reply.find("\n", i, stop)
    j = stop if j < 0 else j
    while j > i and (reply[j - 1].isspace() or reply[j - 1] in "*_."):
        j -= 1
    return reply[i:j].strip("`'\"").strip()


def extract_action(env: Any, agent: str, reply: Any) -> int:
    """The legal action a reply names: the whole reply (an index or an exact name),
    else the last line ``Action: NAME`` (or ``Action: INDEX``) that names a legal one (of the
    last :data:`MAX_ACTION_LINES` such lines).
    Raises :class:`ActionParseError` (listing the legal names) if there is none."""
    try:
        return parse_action(env, agent, reply)
    except ActionParseError as first:
        if not isinstance(reply, str):
            raise
        error = first
    heads = [m.end() for m in _ACTION_HEAD.finditer(reply)]
    for k in range(len(heads) - 1, max(-1, len(heads) - 1 - MAX_ACTION_LINES), -1):  # the last ones only
        candidate = _value(reply, heads[k], heads[k + 1] if k + 1 < len(heads) else len(reply))
        try:
            return parse_action(env, agent, candidate)
        except ActionParseError as e:
            error = e
    raise error


class TextAgentPolicy(Policy):
    """Plays ``reply_fn(prompt) -> reply`` (see the module docstring)."""

    def __init__(self, reply_fn: Callable[[str], Any], retries: int = 2, name: str = "text"):
        if not callable(reply_fn):
            raise ConfigError(f"a text agent needs a callable (prompt -> reply), got {type(reply_fn).__name__}")
        if not isinstance(retries, int) or isinstance(retries, bool) or not 0 <= retries <= MAX_RETRIES:
            raise ConfigError(f"text agent retries={retries!r}; allowed: an integer 0..{MAX_RETRIES}")
        self.reply_fn = reply_fn
        self.retries = retries
        self.name = name
        self.ok = self.retried = self.fell_back = self.forced = self.replies = 0
        self.last_error: str | None = None

    def __deepcopy__(self, memo: dict) -> "TextAgentPolicy":
        """A copy with its own counts that shares the callable (a model client is not copied:
        evaluation copies a policy once per seat)."""
        twin = copy.copy(self)
        memo[id(self)] = twin
        return twin

    def counts(self) -> dict[str, int]:
        return {"ok": self.ok, "retried": self.retried, "fell_back": self.fell_back, "forced": self.forced,
                "replies": self.replies}

    def act(self, observation: Any, agent: str, env: Any = None) -> int:
        if env is None:
            raise ValueError("a text agent reads the table through the env: call act(observation, agent, env)")
        raw = getattr(env, "unwrapped", env)
        legal = legal_actions(raw, agent)
        if len(legal) == 1:
            self.forced += 1
            return legal[0][0]
        base = prompt(raw, agent)
        text = base
        for attempt in range(self.retries + 1):
            try:
                reply = self.reply_fn(text)
            except (OSError, KitchenArenaError):
                raise  # a network or file failure, or one of ours: the caller (the command) names it as it is
            except Exception as e:  # noqa: BLE001 - any other failure of the user's callable stops the game, named
                raise ConfigError(f"text agent {self.name}: its callable failed on the prompt: {type(e).__name__}: "
                                  f"{e} (a text agent is a callable taking the prompt string and returning the "
                                  f"reply)") from e
            self.replies += 1
            try:
                action = extract_action(raw, agent, reply)
            except ActionParseError as e:
                self.last_error = str(e)
                text = (f"{base}\n\nYour previous reply could not be used: {e}\n"
                        "Reply again with exactly one legal action: Action: NAME")
                continue
            if attempt == 0:
                self.ok += 1
            else:
                self.retried += 1
            return action
        self.fell_back += 1
        indices = [i for i, _ in legal]
        return 0 if 0 in indices else int(raw.engine.default_action(agent))


def load_reply_fn(target: str) -> Callable[[str], Any]:
    """``MODULE:CALLABLE`` imported; a ConfigError says what is missing."""
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise ConfigError(f"text agent {target!r}: no module {e.name!r} on the Python path "
                          f"(give text:MODULE:CALLABLE, MODULE importable from here)") from None
    except Exception as e:  # noqa: BLE001 - a syntax error in it, or an error its import raised
        raise ConfigError(f"text agent {target!r}: importing module {module_name!r} failed: {type(e).__name__}: {e}") \
            from e
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"text agent {target!r}: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigError(f"text agent {target!r}: {attr!r} is a {type(obj).__name__}, not a callable "
                          f"(prompt -> reply)")
    return obj


def scripted_reply(prompt_text: str) -> str:
    """A scripted text agent (no model, no network; the docs and tests play it): it reads the
    legal actions from the prompt (the ``index: name`` lines after ``# Your legal actions``)
    and answers ``Action: NAME`` with the last one listed, or ``noop`` if that is all there is."""
    listed = prompt_text.split("# Your legal actions", 1)[-1].split("\n\n", 2)
    names = [line.split(": ", 1)[1] for line in (listed[1] if len(listed) > 1 else "").splitlines()
             if re.match(r"^\d+: ", line)]
    if not names:
        names = [line.split(": ", 1)[1] for line in prompt_text.splitlines() if re.match(r"^\d+: ", line)]
    return f"I choose this.\nAction: {names[-1] if names else 'noop'}"
