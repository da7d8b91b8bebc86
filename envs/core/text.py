"""Text views and text actions: the table in plain words for one player, and
its legal actions by name (for language-model agents and for people playing
in the terminal).

Each game has ``envs/<game>/text.py`` with ``view(engine, agent) -> str``
(built from the game's public view, the same source as the observation: it
never shows what that player could not see at the table) and
``RULES_SUMMARY`` (a short summary of the rules). This module holds what the
games share:

* :func:`player_view` -- one player's view of the table, in words;
* :func:`legal_actions` -- ``[(index, name), ...]``, names from the game's ``ActionTable``;
* :func:`parse_action` -- an index or an exact name (case and spaces ignored)
  back to the index; anything else raises :class:`~envs.core.errors.ActionParseError`,
  whose message lists the legal names;
* :func:`rules_summary` -- the game's rules in a few lines, by env id;
* :func:`prompt` -- rules summary, view, what the legal actions' groups mean and the legal
  actions in one text (what a text agent reads).
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

import numpy as np

from envs.core.errors import ActionParseError

_SPACE = re.compile(r"\s+")
#: what is stripped around a reply (``str.strip()`` also strips control characters \x1c-\x1f)
_BLANK = " \t\r\n"
#: digits past which a reply cannot be an action's index
_MAX_INDEX_DIGITS = 18


def game_of(env_id: str) -> str:
    """The game's name of an env id (``<game>_vN`` -> ``<game>``)."""
    return env_id.rsplit("_v", 1)[0]


def text_module(env_id: str) -> ModuleType:
    """``envs.<game>.text`` of an env id."""
    import envs

    if env_id not in envs.ENV_IDS:
        raise ValueError(f"unknown environment {env_id!r}; known: {list(envs.ENV_IDS)}")
    return importlib.import_module(f"envs.{game_of(env_id)}.text")


def _raw(env: Any) -> Any:
    raw = getattr(env, "unwrapped", env)
    raw = getattr(raw, "par", raw)  # the native AEC env's parallel game (its engine and action table)
    if getattr(raw, "engine", None) is None:
        raise ValueError(f"{raw}: no game yet (call reset() first)")
    return raw


def _check_agent(raw: Any, agent: str) -> None:
    if agent not in raw.possible_agents:
        raise ValueError(f"no such agent {agent!r}; agents are {list(raw.possible_agents)}")


def player_view(env: Any, agent: str) -> str:
    """What ``agent`` sees at the table now, in plain words (never more than its observation holds)."""
    raw = _raw(env)
    _check_agent(raw, agent)
    return text_module(raw.metadata["name"]).view(raw.engine, agent)


def legal_actions(env: Any, agent: str) -> list[tuple[int, str]]:
    """``agent``'s legal actions now, ``(index, name)`` in index order (the mask is the truth)."""
    raw = _raw(env)
    _check_agent(raw, agent)
    mask = raw.engine.action_mask(agent)
    return [(int(i), raw.action_table.name(int(i))) for i in np.flatnonzero(mask)]


def normalize(text: str) -> str:
    """The form names are compared in: lower case, no white space, no quotes (so
    ``draft_pick(ingredient=rice)`` names ``draft_pick(ingredient='rice')``; every game's
    names stay distinct in this form, tested)."""
    return _SPACE.sub("", str(text)).lower().replace('"', "").replace("'", "")


def parse_action(env: Any, agent: str, text: str) -> int:
    """The index of the legal action ``text`` names: its index (``"12"``) or its
    exact name (``"prepare(ingredient='rice', method=1)"``; case, spaces and
    quotes are ignored). Raises :class:`ActionParseError` listing the legal names otherwise."""
    legal = legal_actions(env, agent)
    names = [n for _, n in legal]
    if not isinstance(text, str):
        raise ActionParseError(agent, text, names, f"a reply must be text, not {type(text).__name__}")
    s = text.strip(_BLANK).strip("`").strip(_BLANK)
    if not s:
        raise ActionParseError(agent, text, names, "the reply is empty")
    if not (s.isascii() and s.isprintable()):  # ("１" had been index 1, "\u212a" a k, "n\x1foop" noop)
        raise ActionParseError(agent, text, names, "it holds a control character or a character outside ASCII; an "
                                                   "action is an index in the digits 0-9 or an action's name")
    table = _raw(env).action_table
    if re.fullmatch(r"[+-]?[0-9]+", s):
        if len(s.lstrip("+-").lstrip("0")) > _MAX_INDEX_DIGITS:  # no index is that long (and int() refuses 4,300 digits)
            raise ActionParseError(agent, text, names, f"no action has an index of {len(s)} digits: indices are "
                                                       f"0..{table.n - 1}")
        i = int(s)
        for idx, _ in legal:
            if idx == i:
                return idx
        why = (f"index {i} is {table.name(i)}, not legal now" if 0 <= i < table.n
               else f"no action has index {i}: indices are 0..{table.n - 1}")
        raise ActionParseError(agent, text, names, why)
    key = normalize(s)
    for idx, name in legal:
        if normalize(name) == key:
            return idx
    for i in range(table.n):
        if normalize(table.name(i)) == key:
            raise ActionParseError(agent, text, names, f"{table.name(i)} (index {i}) is not legal now")
    raise ActionParseError(agent, text, names, "no action has this name")


def rules_summary(env_id: str) -> str:
    """A short summary of the rules of ``env_id``'s game (see ``docs/<game>.md`` for the whole)."""
    return text_module(env_id).RULES_SUMMARY.strip()


def legal_text(legal: list[tuple[int, str]]) -> str:
    """The legal actions one a line, ``index: name``."""
    return "\n".join(f"{i}: {n}" for i, n in legal)


def prompt(env: Any, agent: str) -> str:
    """What a text agent reads for one decision: the rules summary, the view, the meaning of each
    group of legal actions (the ``ActionTable``'s docs) and the legal actions, ``index: name``."""
    raw = _raw(env)
    legal = legal_actions(raw, agent)
    table = raw.action_table
    groups = list(dict.fromkeys(table.group_of(i).name for i, _ in legal))
    meanings = "\n".join(f"{g}: {table.group(g).doc}" for g in groups)
    return (f"# Rules ({raw.metadata['name']})\n{rules_summary(raw.metadata['name'])}\n\n"
            f"# The table as you ({agent}) see it\n{player_view(raw, agent)}\n\n"
            f"# What your actions mean\n{meanings}\n\n"
            f"# Your legal actions (index: name)\n{legal_text(legal)}\n\n"
            "Reply with one legal action, its index or its exact name, on a line of its own: Action: NAME")
