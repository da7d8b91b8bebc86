"""The text agent (``text:MODULE:CALLABLE``) with scripted callables: no network."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.core.errors import ActionParseError, ConfigError
from envs.core.play import play_episode
from envs.core.text import legal_actions, parse_action
from tests.envs_text import scripted_agents
from training.envspec import EnvSpec
from training.policies import make_policy, parse_spec
from training.text_agent import TextAgentPolicy, extract_action

MOD = "tests.envs_text.scripted_agents"


def _decision_state(env_id: str):
    """An env and an agent with more than one legal action."""
    env = envs.get_env_module(env_id).parallel_env()
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        for a in env.agents:
            legal = legal_actions(env, a)
            if len(legal) > 1:
                return env, a, legal
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})


@pytest.fixture(autouse=True)
def _clear():
    scripted_agents.PROMPTS.clear()


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_good_reply_is_played_at_once(env_id):
    env, agent, legal = _decision_state(env_id)
    pol = make_policy(f"text:{MOD}:good", EnvSpec.resolve(env_id))
    assert isinstance(pol, TextAgentPolicy) and pol.retries == 2
    assert pol.act(env.observe(agent), agent, env) == legal[-1][0]
    assert pol.counts() == {"ok": 1, "retried": 0, "fell_back": 0, "forced": 0, "replies": 1}
    (p,) = scripted_agents.PROMPTS
    assert "# Rules" in p and f"You are {agent}" in p and all(f"{i}: {n}" in p for i, n in legal)


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_long_bad_reply_is_quoted_in_part_and_kept_whole(env_id):
    """A person's pasted text or a model's long answer: the error (and so a text agent's next prompt)
    quotes its first 200 characters and says how long it was; the error keeps all of it."""
    from envs.core.errors import ActionParseError

    env, agent, legal = _decision_state(env_id)
    reply = "I think " + "very " * 2000 + "hard"
    with pytest.raises(ActionParseError) as e:
        parse_action(env, agent, reply)
    assert e.value.text == reply
    assert f"{reply[:200]!r}... ({len(reply):,} characters) is not a legal action" in str(e.value)
    assert len(str(e.value)) < 400 + sum(len(n) + 2 for _, n in legal)
    short = "nothing legal"
    with pytest.raises(ActionParseError, match=f"{short!r} is not a legal action"):
        parse_action(env, agent, short)


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_reply_of_thousands_of_digits_is_a_parse_error_not_a_crash(env_id):
    """``int()`` refuses a string of 4,300 digits or more with a bare ValueError, which went past the
    text agent's retry (it catches ActionParseError) and ended the game; padded zeros still parse."""
    from envs.core.errors import ActionParseError

    env, agent, legal = _decision_state(env_id)
    n = _raw_n_actions(env)
    for reply in ("9" * 5000, "-" + "1" * 19, "1" * 19):
        with pytest.raises(ActionParseError, match=f"no action has an index of {len(reply)} digits: indices are 0..{n - 1}"):
            parse_action(env, agent, reply)
    i = legal[-1][0]
    assert parse_action(env, agent, "0" * 30 + str(i)) == i
    with pytest.raises(ActionParseError, match=f"no action has index {n}: indices are"):
        parse_action(env, agent, str(n))


def _raw_n_actions(env) -> int:
    return getattr(env, "unwrapped", env).action_table.n

@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_a_bad_reply_is_retried_with_the_error_appended(env_id):
    env, agent, legal = _decision_state(env_id)
    pol = make_policy(f"text:{MOD}:bad_then_good", EnvSpec.resolve(env_id))
    assert pol.act(env.observe(agent), agent, env) == legal[-1][0]
    assert (pol.ok, pol.retried, pol.fell_back, pol.replies) == (0, 1, 0, 2)
    first, second = scripted_agents.PROMPTS
    assert second.startswith(first) and "could not be used" in second
    assert all(n in second.split("could not be used", 1)[1] for _, n in legal)  # the error lists the legal names


@pytest.mark.parametrize("env_id", envs.available_env_ids())
@pytest.mark.parametrize("retries", [0, 2, 3])
def test_always_bad_falls_back_to_noop_after_the_retries(env_id, retries):
    env, agent, legal = _decision_state(env_id)
    pol = make_policy(f"text:{MOD}:always_bad?retries={retries}", EnvSpec.resolve(env_id))
    fallback = 0 if legal[0][0] == 0 else env.engine.default_action(agent)  # noop where it is legal
    if envs.get_env_module(env_id).raw_env.realtime:
        assert fallback == 0
    assert pol.act(env.observe(agent), agent, env) == fallback
    assert pol.act(env.observe(agent), agent, env) == fallback
    assert (pol.ok, pol.retried, pol.fell_back, pol.replies) == (0, 0, 2, 2 * (retries + 1))
    assert "juggle" in pol.last_error and "not a legal action" in pol.last_error


def test_fallback_where_noop_is_not_legal_is_the_default_action():
    env_id = next(e for e in envs.available_env_ids() if not envs.get_env_module(e).raw_env.realtime)
    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=0)
    agent = next(a for a in env.agents if not env.engine.action_mask(a)[0])  # a drafter must pick
    pol = TextAgentPolicy(scripted_agents.always_bad, retries=1)
    action = pol.act(env.observe(agent), agent, env)
    assert action == env.engine.default_action(agent) != 0 and pol.fell_back == 1
    env.step({a: action if a == agent else env.engine.default_action(a) for a in env.agents})  # legal


def test_a_single_legal_action_is_played_without_asking():
    env_id = next(e for e in envs.available_env_ids() if not envs.get_env_module(e).raw_env.realtime)
    env = envs.get_env_module(env_id).parallel_env()
    obs, _ = env.reset(seed=0)
    pol = TextAgentPolicy(scripted_agents.good)
    while not any(len(legal_actions(env, a)) == 1 for a in env.agents):
        obs, *_ = env.step({a: pol.act(obs[a], a, env) for a in env.agents})
    agent = next(a for a in env.agents if len(legal_actions(env, a)) == 1)
    before = pol.counts()
    assert pol.act(obs[agent], agent, env) == legal_actions(env, agent)[0][0]
    assert pol.forced == before["forced"] + 1 and pol.replies == before["replies"]


def test_extract_action_reads_the_whole_reply_or_the_last_action_line():
    env, agent, legal = _decision_state(envs.available_env_ids()[0])
    i, name = legal[-1]
    assert extract_action(env, agent, name) == i
    assert extract_action(env, agent, f"  {i} ") == i
    assert extract_action(env, agent, f"Thinking...\nAction: noop\nOn second thought:\n**Action:** `{name}`.") == i
    assert extract_action(env, agent, f"action = {name}") == i
    with pytest.raises(Exception, match="not a legal action"):
        extract_action(env, agent, "I pass.\nAction: dance")
    assert parse_action(env, agent, name) == i
    # the value may stand on the line after the head, and an empty head gives way to an earlier one
    assert extract_action(env, agent, f"Action:\n\n  **{name}**  \n") == i
    assert extract_action(env, agent, f"Action: {name}\nAction:") == i


def test_a_reply_of_long_blank_runs_is_read_in_one_pass():
    """The ``Action:`` pattern's spaces could cross lines and its lazy value sat before a
    trailing class: a reply of 32,000 line breaks took 4.7 s and the time grew with the square
    of the length (these replies would take minutes each). No clock here: each is refused or read
    as before, in one pass."""
    env, agent, legal = _decision_state(envs.available_env_ids()[0])
    i, name = legal[-1]
    for reply in ("\n" * 400_000, " \n" * 200_000, "action: a" + " " * 400_000 + "b",
                  "Action:" + " \t" * 100_000 + "x\n" * 50_000):
        with pytest.raises(ActionParseError):
            extract_action(env, agent, reply)
    assert extract_action(env, agent, "\n" * 400_000 + f"Action: {name}" + " " * 400_000 + ".") == i


@pytest.mark.parametrize("env_id", envs.available_env_ids())
def test_text_agents_play_whole_games_deterministically(env_id):
    def run():
        env = envs.get_env_module(env_id).parallel_env()
        pol = TextAgentPolicy(scripted_agents.good)
        r = play_episode(env, {a: pol for a in env.possible_agents}, seed=4)
        return r.steps, r.outcome, pol.counts()

    steps, outcome, counts = run()
    assert steps > 0 and "winners" in outcome
    assert counts["ok"] > 0 and counts["fell_back"] == counts["retried"] == 0
    assert run() == (steps, outcome, counts)


@pytest.mark.parametrize("spec, match", [
    ("text:", "text:MODULE:CALLABLE"),
    ("text:justamodule", "text:MODULE:CALLABLE"),
    ("text:a b:c", "text:MODULE:CALLABLE"),
    (f"text:{MOD}:good?retries=many", "retries='many'"),
    (f"text:{MOD}:good?retries=11", "0..10"),
    (f"text:{MOD}:good?temperature=1", "unknown option 'temperature'"),
])
def test_bad_text_specs_say_what_is_allowed(spec, match):
    with pytest.raises(ConfigError, match=match):
        parse_spec(spec)


@pytest.mark.parametrize("spec, match", [
    ("text:no_such_module_xyz:reply", "no module 'no_such_module_xyz'"),
    (f"text:{MOD}:missing", "has no 'missing'"),
    (f"text:{MOD}:NOT_CALLABLE", "not a callable"),
])
def test_text_specs_that_cannot_be_loaded_are_refused(spec, match):
    with pytest.raises(ConfigError, match=match):
        make_policy(spec, EnvSpec.resolve(envs.available_env_ids()[0]))


def test_the_spec_parses_with_its_options_and_label():
    ps = parse_spec(f"text:{MOD}:good?retries=0")
    assert (ps.kind, ps.path, ps.options, ps.label) == ("text", f"{MOD}:good", {"retries": 0}, f"text:{MOD}:good")


def test_a_copy_shares_the_callable_and_counts_on_its_own():
    import copy

    class Client:  # a stand-in for a model client that cannot be copied
        def __init__(self):
            import threading

            self.lock = threading.Lock()

        def __call__(self, prompt):
            return scripted_agents.good(prompt)

    pol = TextAgentPolicy(Client())
    twin = copy.deepcopy(pol)
    assert twin.reply_fn is pol.reply_fn
    env, agent, legal = _decision_state(envs.available_env_ids()[0])
    twin.act(env.observe(agent), agent, env)
    assert twin.ok == 1 and pol.ok == 0


def test_a_text_agent_whose_module_or_callable_fails_is_named_not_a_traceback(tmp_path, monkeypatch):
    """A module with a syntax error, or one whose import raised, was a raw traceback (only a
    missing module was named); a callable that raised ``TypeError`` at the first decision too."""
    import sys as _sys

    (tmp_path / "ka_syntax_agent.py").write_text("def reply(p):\n    return (\n")
    (tmp_path / "ka_raising_agent.py").write_text("raise RuntimeError('no key set')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    env_id = envs.available_env_ids()[0]
    spec = EnvSpec.resolve(env_id)
    for text, says in (("text:ka_syntax_agent:reply", "importing module 'ka_syntax_agent' failed: SyntaxError"),
                       ("text:ka_raising_agent:reply", "importing module 'ka_raising_agent' failed: RuntimeError: "
                                                       "no key set")):
        with pytest.raises(ConfigError, match=says):
            make_policy(text, spec)
        _sys.modules.pop(text.split(":")[1], None)
    env, agent, legal = _decision_state(env_id)
    policy = make_policy("text:os:getcwd", spec)  # takes no argument: fails on the prompt
    with pytest.raises(ConfigError, match=r"its callable failed on the prompt: TypeError"):
        policy.act(None, agent, env)

    def offline(prompt_text):
        raise ConnectionError("no network")

    with pytest.raises(ConnectionError, match="no network"):  # a network error comes through as it is
        TextAgentPolicy(offline).act(None, agent, env)


def test_only_the_last_action_lines_of_a_reply_are_tried():
    """A reply of 10,000 ``Action:`` lines naming nothing legal took 5.9 s (each line parsed)."""
    from training.text_agent import MAX_ACTION_LINES

    env, agent, legal = _decision_state(envs.available_env_ids()[0])
    i, name = legal[-1]
    many = "Action: dance\n" * 10_000
    with pytest.raises(ActionParseError):
        extract_action(env, agent, many)
    assert extract_action(env, agent, f"Action: {name}\n" + "Action: dance\n" * (MAX_ACTION_LINES - 1)) == i
    with pytest.raises(ActionParseError):
        extract_action(env, agent, f"Action: {name}\n" + "Action: dance\n" * MAX_ACTION_LINES)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_a_reply_that_is_no_text_of_any_size_is_retried_not_a_crash(env_id):
    """A reply of ``10**5000`` (``str()`` refuses it) or an object whose ``__str__`` raises had ended
    the command with a traceback while the error message was built."""

    class Raising:
        def __str__(self):
            raise RuntimeError("no str")

    env = envs.get_env_module(env_id).parallel_env()
    env.reset(seed=0)
    agent = env.agents[0]
    for reply in (10 ** 5000, Raising()):
        with pytest.raises(ActionParseError, match="a reply must be text"):
            extract_action(env, agent, reply)
    replies = iter([10 ** 5000, Raising(), "noop"])
    pol = TextAgentPolicy(lambda prompt: next(replies), retries=2)
    legal = [i for i, _ in legal_actions(env, agent)]
    assert pol.act(env.observe(agent), agent, env) in legal


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_the_text_interface_serves_the_native_aec_env(env_id):
    """``prompt``, ``legal_actions``, ``parse_action`` and a text agent raised ``AttributeError`` (no
    ``action_table``) on the AEC form, where ``player_view`` worked."""
    from envs.core.text import player_view, prompt

    mod = envs.get_env_module(env_id)
    aec, par = mod.env(), mod.parallel_env()
    aec.reset(seed=3)
    par.reset(seed=3)
    agent = aec.agent_selection
    assert legal_actions(aec, agent) == legal_actions(par, agent)
    assert prompt(aec, agent) == prompt(par, agent) and player_view(aec, agent) == player_view(par, agent)
    idx, name = legal_actions(aec, agent)[-1]
    assert parse_action(aec, agent, name) == idx == extract_action(aec, agent, f"thinking...\nAction: {name}")
    pol = TextAgentPolicy(lambda p: f"Action: {idx}")
    assert pol.act(aec.observe(agent), agent, aec) == idx
