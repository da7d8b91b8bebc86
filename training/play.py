"""``python -m training play``: a person takes one or more seats in the terminal.

Every other seat is played by a policy spec (``random``, ``heuristic``, a
checkpoint, a text agent). At each of a person's decisions the terminal shows
the table as that player sees it (:func:`envs.core.text.player_view`, never
more) and the legal actions by name, each with a short index; the person
answers with the short index or the name (case and spaces ignored). Bad input
is answered with what is allowed and the same decision is asked again. A
decision with a single legal action (a player who can only wait) is played
without asking.

Real-time games (Wok Star, Frying Master): by default the clock stops while
the person decides (one step is one tick of ``seconds_per_tick`` seconds of
table time, however long the person thinks). With ``wall_clock=True`` the
game runs one tick every ``seconds_per_tick`` seconds of wall time, and a
person who has not answered by the end of the tick plays ``noop`` for it.

The game ends with the outcome (exit status 0). End of input (EOF), Ctrl-C or ``quit``
stops the game with a message (exit status 1).

:func:`play_game` is the one loop: it sees every reset, every joint action
and the end, and passes them to its ``observers`` (:class:`GameObserver`),
which is where ``--save-games`` records a replay.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TextIO

from envs.core.errors import ActionParseError, ConfigError
from envs.core.inputs import terminal_text
from envs.core.text import legal_actions, normalize, parse_action, player_view

from training.envspec import EnvSpec
from training.policies import make_policy, parse_spec

#: exit status of a game stopped by end of input or ``quit``
EXIT_STOPPED = 1
QUIT_WORDS = ("quit", "exit")


class GameObserver:
    """Sees the whole game as :func:`play_game` plays it (a replay recorder subclasses it)."""

    def on_reset(self, env: Any, seed: int | None, obs: Any = None, infos: Any = None) -> None:
        """After ``obs, infos = env.reset(seed=seed)``."""

    def on_step(self, env: Any, joint: Mapping[str, int], result: tuple | None = None) -> None:
        """After ``result = env.step(joint)`` (``joint``: every live agent's action index;
        ``result``: the 5-tuple ``step`` returned)."""

    def on_end(self, env: Any, outcome: Mapping[str, Any] | None, reason: str) -> None:
        """Once, at the end: ``reason`` is ``terminated``, ``truncated`` or ``stopped`` (input ended;
        ``outcome`` is None then)."""


class ReplayObserver(GameObserver):
    """``play --save-games``: records the game as a replay (:class:`training.replay.Recorder`) and
    hands it to ``saver`` (a :class:`training.replay.GameSaver`) at the end, a stopped game too."""

    def __init__(self, env_spec: Any, saver: Any, humans: Sequence[str] = ()):
        self.env_spec, self.saver, self.recorder, self.humans = env_spec, saver, None, set(humans)

    def on_reset(self, env: Any, seed: int | None, obs: Any = None, infos: Any = None) -> None:
        from training.replay import Recorder

        labels = {a: ("human" if a in self.humans else "policy") for a in env.possible_agents}
        self.recorder = Recorder(self.env_spec, 0 if seed is None else int(seed), labels)
        self.recorder.on_reset(obs, infos)

    def on_step(self, env: Any, joint: Mapping[str, int], result: tuple | None = None) -> None:
        self.recorder.on_step(joint, result)

    def on_end(self, env: Any, outcome: Mapping[str, Any] | None, reason: str) -> None:
        self.saver.add(self.recorder.finish(env))


class InputEnded(Exception):
    """The person's input ended (EOF) or they typed ``quit``."""


@dataclass
class PlayResult:
    seed: int | None
    steps: int
    reason: str                     # terminated | truncated | stopped
    outcome: dict[str, Any] | None
    decisions: int = 0              # decisions the person(s) answered
    timeouts: int = 0               # wall clock: ticks a person played noop for not answering
    returns: dict[str, float] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_STOPPED if self.reason == "stopped" else 0


class LineSource:
    """Lines of the person's input, read by a background thread (so the wall clock can time out)."""

    def __init__(self, stream: TextIO):
        isatty = getattr(stream, "isatty", None)
        #: piped input is not echoed by a terminal: the game echoes it, so a transcript shows the answers
        self.echo = not (callable(isatty) and isatty())
        self._q: queue.Queue = queue.Queue()
        self._ended = False
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: TextIO | None) -> None:
        """Each line, until the input ends (also: no input at all, ``sys.stdin`` None when it was
        closed). A console's bytes are decoded leniently (``errors="replace"``), so a line that is
        not valid text is one bad answer, asked again, not the end of the input."""
        try:
            raw = getattr(stream, "buffer", None)
            if raw is not None:
                encoding = getattr(stream, "encoding", None) or "utf-8"
                for line in iter(raw.readline, b""):
                    self._q.put(line.decode(encoding, errors="replace").rstrip("\r\n"))
            elif stream is not None:
                for line in iter(stream.readline, ""):
                    self._q.put(line.rstrip("\r\n"))
        except (OSError, ValueError, LookupError):
            pass
        self._q.put(None)

    def get(self, timeout: float | None = None) -> str | None:
        """The next line; ``None`` if none came within ``timeout`` seconds; raises InputEnded at EOF."""
        if self._ended:
            raise InputEnded("end of input")
        try:
            line = self._q.get(timeout=timeout) if timeout is None or timeout > 0 else self._q.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            self._ended = True
            raise InputEnded("end of input")
        return line


def legal_menu(legal: Sequence[tuple[int, str]]) -> str:
    """The legal actions, one a line: ``  [k] name`` (k: the short index the person may type)."""
    return "\n".join(f"  [{k}] {name}" for k, (_, name) in enumerate(legal))


def choose(env: Any, agent: str, text: str, legal: Sequence[tuple[int, str]]) -> int:
    """The action index a person's answer names: a short index of ``legal`` or an action name
    (see :func:`envs.core.text.parse_action`). Raises ActionParseError with what is allowed."""
    s = text.strip(" \t\r\n")
    # A number, also signed or quoted (`2`, +2), is a menu number, never an action-table index
    # (which parse_action would read it as: +2 played another move than 2).
    number = s.strip("`'\"").strip(" \t\r\n")
    digits = number[1:] if number[:1] in "+-" else number
    if digits.isascii() and digits.isdecimal():  # the digits 0-9 ("１" and "٠" are decimals too: refused,
        # by parse_action, with control characters and other letters outside ASCII)
        k = int(digits) if len(digits) <= 18 else len(legal)
        if number[:1] != "-" and k < len(legal):
            return legal[k][0]
        raise ActionParseError(agent, text, [n for _, n in legal],
                               f"short indices are 0..{len(legal) - 1}; or type the action's name")
    return parse_action(env, agent, s)


class HumanSeats:
    """The person (or people) at the keyboard: asks for each decision of the seats they hold."""

    def __init__(self, agents: Sequence[str], lines: LineSource, write: Callable[[str], None],
                 wall_clock: bool = False, seconds_per_tick: float = 1.0, realtime: bool = True):
        self.agents = list(agents)
        self.lines = lines
        self.write = write
        self.wall_clock = wall_clock
        self.seconds_per_tick = seconds_per_tick
        self.realtime = realtime
        self.decisions = 0
        self.timeouts = 0

    def ask(self, env: Any, agent: str, deadline: float | None) -> int:
        legal = legal_actions(env, agent)
        if len(legal) == 1:
            return legal[0][0]
        raw = env.unwrapped
        clock = ""
        if self.realtime:
            clock = (f"the clock runs: answer within this tick ({self.seconds_per_tick:g} s) or you play noop"
                     if self.wall_clock else "the clock is stopped while you decide")
        self.write(f"\n===== {agent} to decide (tick {raw.engine.tick}){'; ' + clock if clock else ''} =====\n"
                   f"{player_view(env, agent)}\n"
                   f"Legal actions for {agent} (type the number in brackets or the name):\n{legal_menu(legal)}")
        while True:
            self.write(f"{agent}> ")
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            line = self.lines.get(timeout)
            if line is None:  # wall clock: no answer in time
                self.timeouts += 1
                indices = [i for i, _ in legal]
                action = 0 if 0 in indices else int(raw.engine.default_action(agent))
                self.write(f"\n(no answer in time: {agent} plays {raw.action_table.name(action)} this tick)")
                return action
            if self.lines.echo:
                self.write(line)
            if normalize(line) in QUIT_WORDS:
                raise InputEnded(line.strip())
            if normalize(line) in ("?", "help", "h"):
                self.write(f"{player_view(env, agent)}\nLegal actions:\n{legal_menu(legal)}")
                continue
            try:
                action = choose(env, agent, line, legal)
            except ActionParseError as e:
                self.write(f"not allowed: {e}\n(type the number in brackets, the exact name, ? to see the "
                           f"table again, or quit)\n{legal_menu(legal)}")
                continue
            self.decisions += 1
            self.write(f"{agent} plays {raw.action_table.name(action)}")
            return action


def play_game(env: Any, humans: HumanSeats, policies: Mapping[str, Any], seed: int | None = 0,
              observers: Sequence[GameObserver] = (), write: Callable[[str], None] = print,
              max_steps: int | None = None) -> PlayResult:
    """Play one game: ``humans`` answers for its seats, ``policies`` maps every other seat to a
    policy. Every reset, joint action and the end go to ``observers``."""
    raw = env.unwrapped
    obs, reset_infos = env.reset(seed=seed)
    for i, p in enumerate(dict.fromkeys(policies.values())):
        p.reset(None if seed is None else seed * 1000 + i)
    for o in observers:
        o.on_reset(env, seed, obs, reset_infos)
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    reason = "stopped"
    try:
        while env.agents and (max_steps is None or steps < max_steps):
            # the other seats first, then the person's clock starts: a slow policy (a text agent of 1.5 s)
            # had used up the person's whole window, every tick
            chosen = {a: int(policies[a].act(obs[a], a, env)) for a in env.agents if a not in humans.agents}
            deadline = time.monotonic() + raw.seconds_per_tick if humans.wall_clock else None
            for a in env.agents:
                if a in humans.agents:
                    chosen[a] = humans.ask(env, a, deadline)
            joint = {a: chosen[a] for a in env.agents}
            if deadline is not None:
                time.sleep(max(0.0, deadline - time.monotonic()))
            result = env.step(joint)
            obs, rew, term, trunc, infos = result
            steps += 1
            for a, r in rew.items():
                returns[a] += float(r)
            for o in observers:
                o.on_step(env, joint, result)
            for a in humans.agents:
                if a in infos and infos[a].get("blocked"):
                    why = raw.last_step_details().get(a, {}).get("blocked_reason", "")
                    write(f"({a}: {raw.action_table.name(joint[a])} was blocked: {why})")
            if not env.agents:
                reason = "terminated" if any(term.values()) else "truncated"
    except (InputEnded, KeyboardInterrupt) as e:
        why = str(e) if isinstance(e, InputEnded) else "interrupted: Ctrl-C"
        write(f"\n== input ended ({why}) at tick {raw.engine.tick} after {steps} steps: the game is stopped, "
              f"no outcome ==")
        for o in observers:
            o.on_end(env, None, "stopped")
        return PlayResult(seed, steps, "stopped", None, humans.decisions, humans.timeouts, returns)
    except Exception:  # a policy failed (a text agent's error): the game so far is kept as stopped, then the error
        for o in observers:
            try:
                o.on_end(env, None, "stopped")
            except Exception:  # noqa: BLE001 - the policy's error is the one to report
                pass
        raise
    if reason == "stopped":  # max_steps reached
        write(f"\n== stopped after {steps} steps (max_steps) ==")
        for o in observers:
            o.on_end(env, None, "stopped")
        return PlayResult(seed, steps, "stopped", None, humans.decisions, humans.timeouts, returns)
    outcome = raw.engine.outcome()
    for o in observers:
        o.on_end(env, outcome, reason)
    winners = outcome.get("winners", [])
    shown_scores = outcome.get("scores", {})
    if not raw.engine.done and humans.agents:  # cut before the end: the scores the person's seat can know
        seen = [raw.engine.outcome_seen_by(a).get("scores", {}) for a in humans.agents]
        shown_scores = seen[0] if all(x == seen[0] for x in seen) else \
            {a: seen[0][a] for a in seen[0] if all(x.get(a) == seen[0][a] for x in seen)}
    write(f"\n== game over after {steps} steps ({reason}): winners {', '.join(winners) or 'none'}; "
          f"scores {shown_scores} ==")
    return PlayResult(seed, steps, reason, outcome, humans.decisions, humans.timeouts, returns)


def assign_others(agents: Sequence[str], seats: Sequence[str], others: Sequence[str]) -> dict[str, str]:
    """The policy spec of every seat no person takes: one spec for all, or one per seat in seat order."""
    if not seats:
        raise ConfigError(f"--seat: name at least one seat to play; seats: {list(agents)}")
    for s in seats:
        if s not in agents:
            raise ConfigError(f"--seat {s!r}: no such seat; seats: {list(agents)}")
    if len(set(seats)) != len(seats):
        raise ConfigError(f"--seat: a seat is given twice ({list(seats)}); give each seat once")
    rest = [a for a in agents if a not in seats]
    specs = list(others) or ["heuristic"]
    if not rest:
        if others:
            raise ConfigError(f"--others: every seat is taken by a person ({list(seats)}); there is no other seat")
        return {}
    from training.watch import assign_seats

    return assign_seats(rest, specs, "--others: give one spec for all other seats or one per other seat in seat order")


def _print(text: str) -> None:
    """Print; a prompt (ending in ``"> "``) stays on the line the person types on."""
    print(terminal_text(text), end="" if text.endswith("> ") else "\n", flush=True)  # (a typed escape stays text)


def play(env_spec: EnvSpec, seats: Sequence[str], others: Sequence[str] = (), seed: int = 0,
         wall_clock: bool = False, stdin: TextIO | None = None, write: Callable[[str], None] | None = None,
         observers: Sequence[GameObserver] = ()) -> PlayResult:
    """The ``play`` command: check everything, then :func:`play_game`."""
    out = write or _print
    env = env_spec.make()
    raw = env.unwrapped
    if wall_clock and not raw.realtime:
        raise ConfigError(f"--wall-clock: {env_spec.env_id} is turn-based (no clock to run); "
                          f"it is for the real-time games")
    assignment = assign_others(env.possible_agents, seats, others)
    for spec in dict.fromkeys(assignment.values()):
        parse_spec(spec)
    policies = {a: make_policy(s, env_spec) for a, s in assignment.items()}
    lines = LineSource(stdin if stdin is not None else sys.stdin)
    humans = HumanSeats(seats, lines, out, wall_clock, raw.seconds_per_tick, raw.realtime)
    who = "  ".join([f"{a}=you" for a in seats] + [f"{a}={parse_spec(s).label}" for a, s in assignment.items()])
    out(f"{env_spec.label()}  seed {seed}  {who}")
    if raw.realtime:
        out(f"Real-time game: one step is one tick of {raw.seconds_per_tick:g} s of table time. "
            + (f"--wall-clock: the clock runs, one tick every {raw.seconds_per_tick:g} s; a seat that has not "
               f"answered in time plays noop." if wall_clock else
               "The clock stops while you decide (--wall-clock runs it in wall time)."))
    out("Answer with the number in brackets or the action's name; ? shows the table again; quit (or end of "
        "input) stops the game.")
    return play_game(env, humans, policies, seed, observers, out)
