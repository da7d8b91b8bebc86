"""``python -m training play``: driven by scripted input, in a subprocess for each game and in-process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import envs
from envs.core.errors import ActionParseError
from envs.core.text import legal_actions
from training.envspec import EnvSpec
from training.play import GameObserver, play

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
IDS = envs.available_env_ids()
REALTIME = [e for e in IDS if envs.get_env_module(e).raw_env.realtime]
TURN_BASED = [e for e in IDS if not envs.get_env_module(e).raw_env.realtime]


def _seat(env_id: str, k: int = 0) -> str:
    return envs.get_env_module(env_id).parallel_env().possible_agents[k]


def _run(args, stdin: str, timeout: float = 240):
    return subprocess.run([sys.executable, "-m", "training", "play", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env=ENV, timeout=timeout)


@pytest.mark.parametrize("env_id", IDS)
def test_scripted_input_bad_answers_are_explained_and_eof_stops_the_game(env_id):
    seat = _seat(env_id)
    r = _run(["--env", env_id, "--seat", seat, "--seed", "2"], "bogus\n99\n?\n0\n0\n1\n")
    out = r.stdout
    assert r.returncode == 1, r.stderr
    assert f"Legal actions for {seat}" in out and re.search(r"^  \[0\] \S+", out, re.M)
    assert f"You are {seat}" in out
    assert "not allowed:" in out and "'bogus' is not a legal action" in out and "short indices are 0.." in out
    assert f"{seat} plays " in out  # the game went on after the bad input
    assert "== input ended (end of input)" in out and "no outcome" in out
    if env_id in REALTIME:
        assert "The clock stops while you decide" in out and "the clock is stopped while you decide" in out


@pytest.mark.parametrize("env_id", IDS)
def test_a_whole_game_played_from_scripted_input_ends_with_the_outcome(env_id):
    seat = _seat(env_id, 1)
    r = _run(["--env", env_id, "--seat", seat, "--others", "random", "--seed", "1"], "0\n" * 20000)
    assert r.returncode == 0, r.stderr + r.stdout[-2000:]
    assert re.search(r"== game over after \d+ steps \((terminated|truncated)\): winners .*; scores \{", r.stdout)
    assert r.stdout.count(f"Legal actions for {seat}") >= 3


class Responder:
    """Answers each decision of the game by the name of an action from the menu it just saw
    (upper case, extra spaces: names are read case- and space-insensitively); the first answer is
    nonsense; after ``stop_after`` decisions, end of input."""

    def __init__(self, stop_after: int | None = None, pick: int = -1):
        self.cond = threading.Condition()
        self.text: list[str] = []
        self.asked = self.given = 0
        self.menu: list[str] = []
        self.stop_after, self.pick = stop_after, pick
        self.answers: list[str] = []

    def write(self, s: str) -> None:
        with self.cond:
            self.text.append(s)
            if "Legal actions for" in s or s.startswith("not allowed:"):
                self.menu = re.findall(r"^  \[\d+\] (.+)$", s, re.M)
                self.asked += 1
                self.cond.notify_all()

    def readline(self) -> str:
        with self.cond:
            if not self.cond.wait_for(lambda: self.asked > self.given, timeout=30):
                return ""
            self.given += 1
            if self.stop_after is not None and len(self.answers) >= self.stop_after:
                return ""
            answer = "fly me to the moon" if self.given == 1 else "  " + self.menu[self.pick].upper() + " "
            self.answers.append(answer)
            return answer + "\n"


class Recorder(GameObserver):
    def __init__(self):
        self.events = []

    def on_reset(self, env, seed, obs=None, infos=None):
        self.events.append(("reset", seed))

    def on_step(self, env, joint, result=None):
        self.events.append(("step", dict(joint)))

    def on_end(self, env, outcome, reason):
        self.events.append(("end", outcome, reason))


@pytest.mark.parametrize("env_id", IDS)
def test_names_typed_by_the_person_are_played_and_observers_see_the_whole_game(env_id):
    seat = _seat(env_id)
    spec = EnvSpec.resolve(env_id)
    resp, rec = Responder(), Recorder()
    result = play(spec, [seat], ["random"], seed=5, stdin=resp, write=resp.write, observers=[rec])
    out = "\n".join(resp.text)
    assert result.reason in ("terminated", "truncated") and result.exit_code == 0
    assert result.decisions == len(resp.answers) - 1 > 0  # every answer but the nonsense one was a decision
    assert "not allowed: " in out and f"{seat} plays " in out and "== game over" in out
    kinds = [e[0] for e in rec.events]
    assert kinds[0] == "reset" and kinds[-1] == "end" and kinds.count("step") == result.steps
    assert rec.events[-1][1] == result.outcome
    # the observers' joint actions replay the game exactly
    env = spec.make()
    env.reset(seed=5)
    for e in rec.events[1:-1]:
        env.step(e[1])
    assert not env.agents and env.unwrapped.engine.outcome() == result.outcome


def test_two_people_at_one_table_and_the_same_input_gives_the_same_game():
    env_id = TURN_BASED[0] if TURN_BASED else IDS[0]
    seats = [_seat(env_id, 0), _seat(env_id, 2)]
    games = []
    for _ in range(2):
        resp, rec = Responder(stop_after=12, pick=0), Recorder()
        result = play(EnvSpec.resolve(env_id), seats, ["heuristic"], seed=9, stdin=resp, write=resp.write,
                      observers=[rec])
        assert result.reason == "stopped" and result.exit_code == 1 and rec.events[-1] == ("end", None, "stopped")
        out = "\n".join(resp.text)
        assert all(f"Legal actions for {s}" in out for s in seats)
        games.append(rec.events)
    assert games[0] == games[1]


@pytest.mark.parametrize("env_id", REALTIME)
def test_wall_clock_plays_noop_for_a_person_who_does_not_answer(env_id):
    seat = _seat(env_id)
    p = subprocess.Popen([sys.executable, "-m", "training", "play", "--env", env_id, "--seat", seat,
                          "--env-set", "seconds_per_tick=0.25", "--wall-clock", "--seed", "3"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT, env=ENV)
    try:
        time.sleep(6.0)  # start-up, then ticks of 0.25 s without an answer
        out, err = p.communicate("", timeout=60)  # closes stdin: end of input
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 1, err
    assert "--wall-clock: the clock runs, one tick every 0.25 s" in out
    assert out.count(f"(no answer in time: {seat} plays noop this tick)") >= 2
    assert "== input ended (end of input)" in out


@pytest.mark.parametrize("args, match", [
    (["--seat", "nobody"], "--seat 'nobody': no such seat"),
    (["--seat", "{0}", "--seat", "{0}"], "a seat is given twice"),
    (["--seat", "{0}", "--others", "random", "random", "random", "random", "random"], "one per other seat"),
    (["--seat", "{0}", "--others", "grandmaster"], "unknown policy spec 'grandmaster'"),
    (["--seat", "{0}", "--env-set", "players=99"], "players"),
])
def test_bad_options_exit_2_with_what_is_allowed(args, match):
    env_id = IDS[0]
    r = _run(["--env", env_id, *[a.format(_seat(env_id)) for a in args]], "")
    assert r.returncode == 2 and match in r.stderr, r.stderr


@pytest.mark.skipif(not TURN_BASED, reason="no turn-based game")
def test_wall_clock_is_refused_for_a_turn_based_game():
    env_id = TURN_BASED[0]
    r = _run(["--env", env_id, "--seat", _seat(env_id), "--wall-clock"], "")
    assert r.returncode == 2 and "turn-based" in r.stderr


def test_play_needs_a_seat_and_an_env():
    r = _run(["--env", IDS[0]], "")
    assert r.returncode == 2 and "--seat" in r.stderr
    r = _run(["--seat", "chef_0"], "")
    assert r.returncode == 2 and "--env is required" in r.stderr


def test_quit_stops_the_game():
    env_id = IDS[-1]
    r = _run(["--env", env_id, "--seat", _seat(env_id)], "QUIT\n0\n")
    assert r.returncode == 1 and "== input ended (QUIT)" in r.stdout


def test_ctrl_c_stops_the_game_with_a_message():
    import select
    import signal

    env_id = IDS[-1]
    seat = _seat(env_id)
    # a terminal's Ctrl-C reaches a process whose SIGINT is not ignored; a test process may have inherited
    # SIG_IGN (which exec keeps), so the child starts with the default disposition, as from a shell
    p = subprocess.Popen([sys.executable, "-m", "training", "play", "--env", env_id, "--seat", seat],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT, env=ENV, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = b""
        deadline = time.monotonic() + 120
        while f"{seat}> ".encode() not in seen:  # the prompt ends without a newline
            ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(p.stdout.fileno(), 4096) if ready else b""
            assert chunk and time.monotonic() < deadline, "the command ended before asking"
            seen += chunk
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)  # stdin stays open until it has stopped: the interrupt, not an end of input, stops it
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 1 and "== input ended (interrupted: Ctrl-C)" in out and "Traceback" not in err


@pytest.mark.parametrize("env_id", REALTIME)
def test_wall_clock_answers_in_time_are_played_and_ticks_keep_the_pace(env_id):
    seat = _seat(env_id)
    spec = EnvSpec.resolve(env_id, {"seconds_per_tick": 0.25})
    resp, rec = Responder(stop_after=5, pick=0), Recorder()
    start = time.monotonic()
    result = play(spec, [seat], ["random"], seed=2, wall_clock=True, stdin=resp, write=resp.write, observers=[rec])
    elapsed = time.monotonic() - start
    out = "\n".join(resp.text)
    assert result.reason == "stopped" and 1 <= result.decisions <= 4  # the first answer was nonsense; a busy
    # machine may let a tick pass before an answer arrives (then noop, counted in timeouts)
    assert "the clock runs: answer within this tick (0.25 s)" in out and f"{seat} plays " in out
    assert result.steps >= 2 and elapsed >= 0.25 * result.steps - 0.05  # one tick per 0.25 s, not faster


def _player_counts():
    out = []
    for env_id in IDS:
        counts = sorted({c.kwargs.get("players") for c in envs.test_configurations(env_id)} - {None})
        out += [(env_id, n) for n in counts]
    return out


@pytest.mark.parametrize("env_id, players", _player_counts())
def test_play_at_every_player_count(env_id, players):
    spec = EnvSpec.resolve(env_id, {"players": players})
    agents = spec.make().possible_agents
    assert len(agents) == players
    resp = Responder(stop_after=4, pick=-1)
    result = play(spec, [agents[-1]], ["random"], seed=players, stdin=resp, write=resp.write)
    out = "\n".join(resp.text)
    assert result.decisions >= 1 and f"You are {agents[-1]}" in out and f"{agents[-1]} plays " in out


@pytest.mark.parametrize("env_id", IDS)
def test_play_save_games_writes_a_replay_that_reproduces_the_game(env_id, tmp_path):
    """``play --save-games``: the human-played game is saved as a replay; it loads (strictly
    validated) and replays to the recorded outcome; a game stopped by end of input is saved too."""
    from training.replay import load, replay

    seat = _seat(env_id, 1)
    out = tmp_path / "games.jsonl"
    r = _run(["--env", env_id, "--seat", seat, "--others", "random", "--seed", "2", "--save-games", str(out)],
             "0\n" * 20000)
    assert r.returncode == 0, r.stderr + r.stdout[-2000:]
    data = load(out, 1)
    assert data["seed"] == 2 and data["seats"][seat] == "human" and data["end"]["status"] == "terminated"
    result = replay(data)  # raises unless every observation, reward and the outcome come back the same
    assert result.status == "terminated" and result.ticks == len(data["actions"]) > 0
    stopped = tmp_path / "stopped.jsonl"
    r = _run(["--env", env_id, "--seat", seat, "--seed", "2", "--save-games", str(stopped)], "0\n" * 3)
    assert r.returncode == 1
    assert load(stopped, 1)["end"]["status"] == "stopped"


def test_a_signed_or_quoted_number_is_a_menu_number_never_an_action_index():
    """``+2`` and a number in backticks were read as action-table indices (another move than the
    menu's [2]); ``-1`` is no menu number."""
    from training.play import choose

    env_id = next(e for e in IDS if e.startswith("waroong_wars"))
    env = envs.get_env_module(env_id).parallel_env(players=3)
    env.reset(seed=1)
    agent = env.agents[0]
    legal = legal_actions(env, agent)
    assert len(legal) >= 3 and [i for i, _ in legal] != list(range(len(legal)))  # menu numbers are not indices
    for answer in ("2", "+2", "`2`", " '2' ", "\"2\""):
        assert choose(env, agent, answer, legal) == legal[2][0], answer
    for answer in ("-1", f"+{len(legal)}", "`99`"):
        with pytest.raises(ActionParseError, match=rf"short indices are 0\.\.{len(legal) - 1}"):
            choose(env, agent, answer, legal)


def test_closed_or_undecodable_input_is_the_end_or_one_bad_answer():
    """With stdin closed (``sys.stdin`` None) the reader thread died with an ``AttributeError``
    traceback and the game waited for ever; a line of bytes that are not UTF-8 was taken for the
    end of the input."""
    env_id = next(e for e in IDS if e.startswith("waroong_wars"))
    seat = _seat(env_id)
    closed = subprocess.run([sys.executable, "-c", "import sys; sys.stdin.close(); sys.stdin = None; "
                             "from training.cli import main; raise SystemExit(main(sys.argv[1:]))",
                             "play", "--env", env_id, "--seat", seat, "--seed", "1"],
                            capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=120)
    assert closed.returncode == 1 and "Traceback" not in closed.stderr
    assert "== input ended (end of input)" in closed.stdout
    bad = subprocess.run([sys.executable, "-m", "training", "play", "--env", env_id, "--seat", seat, "--seed", "1"],
                         input=b"\xff\xfe\n0\n", capture_output=True, cwd=ROOT, timeout=120,
                         env={**ENV, "PYTHONIOENCODING": "utf-8:strict"})
    out = bad.stdout.decode("utf-8", "replace")
    assert "not allowed:" in out and f"{seat} plays " in out  # refused, asked again, then the 0 was played


def test_a_digit_or_letter_outside_ascii_or_a_control_character_is_no_answer():
    """``"１"`` (full width), ``"٠"`` (Arabic-Indic) and ``"𝟎"`` were played as menu numbers, a name
    with the Kelvin sign (which lowercases to k) as the name, and ``"0\\x1f"`` as ``0``: str.strip and
    str.isdecimal take them. A text agent's reply went the same way (``"Action: ٠"`` was ``noop``)."""
    from envs.core.text import parse_action
    from training.play import choose

    env_id = next(e for e in IDS if e.startswith("waroong_wars"))
    env = envs.get_env_module(env_id).parallel_env(players=3)
    env.reset(seed=1)
    agent = env.agents[0]
    legal = legal_actions(env, agent)
    name = legal[1][1]
    assert "k" in name  # draft_pick(...)
    for answer in ("\uff11", "\u0660", "\U0001d7ce", "0\x1f", "\x1c1", name.replace("k", "\u212a"), "1\x00"):
        with pytest.raises(ActionParseError, match="control character or a character outside ASCII"):
            choose(env, agent, answer, legal)
        with pytest.raises(ActionParseError, match="control character or a character outside ASCII"):
            parse_action(env, agent, answer)
    assert choose(env, agent, " 1\t\r\n", legal) == legal[1][0] and parse_action(env, agent, f" {name}\n") == legal[1][0]


def test_what_play_and_watch_print_shows_escape_sequences_as_text(tmp_path):
    """A seat's label (a checkpoint path), a typed line and a replay's file name reached the terminal raw:
    an escape sequence retitled and cleared it. Printed now as their escapes."""
    from envs.core.inputs import printable, terminal_text
    from training.watch import watch

    assert printable("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07" and printable("plain text") == "plain text"
    assert terminal_text("line\x1b]0;T\x07\nnext") == "line\\x1b]0;T\\x07\nnext"
    import shutil
    import warnings

    root = Path(__file__).resolve().parents[2]
    odd = tmp_path / "fm\x1b[2J\x1b]0;PWN\x07" / "main"  # a checkpoint whose path holds escape sequences
    shutil.copytree(root / "checkpoints" / "frying_master" / "main", odd)
    out: list[str] = []
    with warnings.catch_warnings():  # (the checkpoint's trained options differ from the env's: a warning)
        warnings.simplefilter("ignore")
        watch(EnvSpec.resolve("frying_master_v1", {"players": 2}), [f"checkpoint:{odd}", "heuristic"], seed=0,
              max_steps=1, out=out.append, clear=False)
    text = "\n".join(out)
    assert "\\x1b[2J\\x1b]0;PWN\\x07/main" in text and "\x1b" not in text
    from training.replay import Recorder, validate

    spec = EnvSpec.resolve(IDS[1])
    env = spec.make()
    rec = Recorder(spec, 0, {a: "checkpoint:fm\x1b[2J\x1b]0;PWN\x07" for a in env.possible_agents})
    obs, infos = env.reset(seed=0)
    rec.on_reset(obs, infos)
    data = rec.finish(env)
    assert all(label == "checkpoint:fm\\x1b[2J\\x1b]0;PWN\\x07" for label in data["seats"].values())
    validate(data)  # the replay a recorder writes is one the reader takes


def test_a_failing_policy_leaves_the_game_saved_as_stopped_and_ctrl_c_is_one_line(monkeypatch, capsys):
    """``play --save-games`` lost the game when a text agent failed (``stopped`` games are saved on
    Ctrl-C, end of input and ``quit``); ``watch`` and the other commands printed a traceback on Ctrl-C."""
    import training.cli as cli
    from training.play import play_game, HumanSeats

    class Failing:
        calls = 0

        def reset(self, seed=None):
            pass

        def act(self, obs, agent, env=None):
            Failing.calls += 1
            if Failing.calls > 3:
                raise RuntimeError("the agent's server went away")
            return int(obs["action_mask"].nonzero()[0][0])

    spec = EnvSpec.resolve(IDS[1])
    env = spec.make()
    rec = Recorder()
    with pytest.raises(RuntimeError, match="went away"):
        play_game(env, HumanSeats([], None, lambda s: None), {a: Failing() for a in env.possible_agents}, seed=0,
                  observers=[rec], write=lambda s: None)
    assert rec.events[-1] == ("end", None, "stopped") and [e[0] for e in rec.events].count("step") >= 1

    class Interrupting:
        def __enter__(self):
            raise KeyboardInterrupt

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(cli, "_Warnings", Interrupting)
    assert cli.main(["list"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "interrupted (Ctrl-C)" and "Traceback" not in err


def test_the_persons_clock_starts_after_the_other_seats_have_chosen():
    """With a slow policy in a seat asked before the person's (a text agent of 1.5 s) and 1 s ticks, the
    person's window had been used up before their decision was shown, every tick: the deadline was set
    before the other seats were asked. Now it is set once they have chosen."""
    from training.play import HumanSeats, play_game

    env_id = next(e for e in REALTIME if e.startswith("frying"))
    env = EnvSpec.resolve(env_id, {"seconds_per_tick": 0.25}).make()
    person = env.possible_agents[1]  # (the other seat comes first in seat order)
    events: list[tuple] = []

    class Slow:
        def reset(self, seed=None):
            pass

        def act(self, obs, agent, env=None):
            events.append(("policy", time.monotonic()))
            return int(obs["action_mask"].nonzero()[0][0])

    class Person(HumanSeats):
        def ask(self, env, agent, deadline):
            events.append(("person", deadline))
            legal = legal_actions(env, agent)
            return legal[0][0]

    play_game(env, Person([person], None, lambda s: None, wall_clock=True, seconds_per_tick=0.25),
              {a: Slow() for a in env.possible_agents if a != person}, seed=0, write=lambda s: None, max_steps=3)
    others = len(env.possible_agents) - 1
    assert [k for k, _ in events] == (["policy"] * others + ["person"]) * 3, events
    for tick in range(3):
        block = events[tick * (others + 1):(tick + 1) * (others + 1)]
        deadline, chosen_at = block[-1][1], max(t for _, t in block[:-1])
        assert deadline - 0.25 >= chosen_at  # the window opens after the other seats have chosen
