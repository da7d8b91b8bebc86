"""Scripted text agents (no network) for the tests: callables from a prompt to a reply.

Each records the prompts it got in ``PROMPTS`` (module state, reset by the tests)."""

from __future__ import annotations

import re

PROMPTS: list[str] = []


def _legal(prompt: str) -> list[str]:
    part = prompt.split("# Your legal actions (index: name)\n", 1)[1].split("\n\n", 1)[0]
    return [line.split(": ", 1)[1] for line in part.splitlines() if re.match(r"^\d+: ", line)]


def good(prompt: str) -> str:
    """Thinks aloud, then names the last legal action on an Action line."""
    PROMPTS.append(prompt)
    return f"Let me look at the table.\nAction: {_legal(prompt)[-1]}"


def bad_then_good(prompt: str) -> str:
    """Answers nonsense until the prompt says the previous reply was unusable."""
    PROMPTS.append(prompt)
    if "could not be used" not in prompt:
        return "I would like to fly to the moon."
    return _legal(prompt)[-1].upper()


def always_bad(prompt: str) -> str:
    PROMPTS.append(prompt)
    return "Action: juggle(knives=3)"


NOT_CALLABLE = 42
