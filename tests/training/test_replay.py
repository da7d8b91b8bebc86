"""Replays (training/replay.py): the round trip over every configuration, the strict
reader's refusals, ``--save-games`` of evaluate / tournament / watch, ``watch --replay``
and the commands of docs/replays.md."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core.policy import RandomLegalPolicy
from training import replay as R
from training.envspec import EnvSpec
from training.evaluation import play_games, saving_games
from training.policies import make_policy

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = envs.test_configurations()
#: per configuration: seed 0 played by random-legal policies, seed 1 by the heuristic in every seat
PLAYS = (("random", 0), ("heuristic", 1))


def _game(e: int = 1) -> str:
    return envs.ENV_IDS[e]


def _spec(env_id: str, **kw) -> EnvSpec:
    return EnvSpec.resolve(env_id, kw or envs.get_env_module(env_id).DOC_CONFIGURATION)


def _run(*args, cwd=ROOT, check=True):
    p = subprocess.run([sys.executable, "-m", "training", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def _record(spec: EnvSpec, policy: str, seed: int):
    """One recorded game through ``record(env)``, with every observation, reward and flag seen live."""
    env = R.record(spec.make(), spec, {a: policy for a in spec.make().possible_agents})
    pols = {a: (RandomLegalPolicy(seed + i) if policy == "random" else make_policy(policy, spec))
            for i, a in enumerate(env.possible_agents)}
    obs, _ = env.reset(seed=seed)
    seen = [copy.deepcopy(obs)]
    while env.agents:
        out = env.step({a: pols[a].act(obs[a], a, env) for a in env.agents})
        obs = out[0]
        seen.append(copy.deepcopy(out[:4]))
    assert len(env.replays) == 1
    return env.replays[0], seen


def _same_obs(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k]["observation"], b[k]["observation"]) and np.array_equal(a[k]["action_mask"],
                                                                                    b[k]["action_mask"]) for k in a)


# ---------------------------------------------------------------------- the round trip
@pytest.mark.parametrize("conf", CONFIGS, ids=[c.name for c in CONFIGS])
def test_round_trip_reproduces_every_observation_reward_and_the_outcome(conf, tmp_path):
    spec = EnvSpec.resolve(conf.env_id, conf.kwargs)
    for policy, seed in PLAYS:
        data, seen = _record(spec, policy, seed)
        assert data["end"]["status"] == "terminated" and data["end"]["ticks"] == len(seen) - 1
        path = R.save(tmp_path / f"{policy}.json", data)
        loaded = R.load(path)  # validated and replayed (legality, outcome, returns, digest)
        assert loaded == json.loads(json.dumps(data))
        steps = []
        result = R.iter_replay(loaded, on_reset=lambda env: steps.append(
            {a: env.observe(a) for a in env.agents}))
        for tick in result:
            steps.append(tick.result[:4])
        assert _same_obs(steps[0], seen[0])
        assert len(steps) == len(seen)
        for live, again in zip(seen[1:], steps[1:]):
            assert _same_obs(live[0], again[0])
            assert live[1:] == again[1:]  # rewards, terminations, truncations
        env = spec.make()
        assert R.replay(loaded, env).outcome == loaded["outcome"] == json.loads(json.dumps(env.outcome()))


def test_round_trip_counts_cover_every_game_and_player_count():
    games = {(c.env_id, c.kwargs.get("players")) for c in CONFIGS}
    assert {e for e, _ in games} == set(envs.available_env_ids())
    for e in envs.available_env_ids():
        counts = {p for g, p in games if g == e}
        low, high = (int(x) for x in envs.get_env_module(e).SUMMARY["players"].split("-"))
        assert counts == set(range(low, high + 1)), (e, counts)


def test_jsonl_holds_many_games_in_order(tmp_path):
    spec = _spec(_game(2))
    games = [_record(spec, "random", s)[0] for s in range(3)]
    R.save(tmp_path / "g.jsonl", games)
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 3
    assert [g["seed"] for g in R.load_all(tmp_path / "g.jsonl")] == [0, 1, 2]
    assert R.load(tmp_path / "g.jsonl", game=2)["seed"] == 1
    with pytest.raises(R.ReplayError, match=r"holds 3 games; choose one with --game K \(1\.\.3\)"):
        R.load(tmp_path / "g.jsonl")
    with pytest.raises(R.ReplayError, match=r"allowed: 1\.\.3"):
        R.load(tmp_path / "g.jsonl", game=4)
    # a kill while the third game was saved leaves its line cut: the first two still load (the whole
    # file had been refused for it), and the cut one is refused, named
    text = (tmp_path / "g.jsonl").read_text()
    (tmp_path / "cut.jsonl").write_text(text[:len(text) - 40])
    assert R.load(tmp_path / "cut.jsonl", game=1)["seed"] == 0
    with pytest.raises(R.ReplayError, match=r"cut.jsonl line 3: "):
        R.load(tmp_path / "cut.jsonl", game=3)
    with pytest.raises(R.ReplayError, match=r"cut.jsonl line 3: "):
        R.load_all(tmp_path / "cut.jsonl")


def test_a_stopped_game_replays_as_stopped():
    spec = _spec(_game(0))
    env = spec.make()
    rec = R.Recorder(spec, 4, {a: "noop" for a in env.possible_agents})
    obs, infos = env.reset(seed=4)
    rec.on_reset(obs, infos)
    for _ in range(5):
        joint = {a: 0 for a in env.agents}
        rec.on_step(joint, env.step(joint))
    data = rec.finish(env)
    assert data["end"] == {"ticks": 5, "status": "stopped", "returns": data["end"]["returns"]}
    assert R.replay(R.parse(rec.to_json())).status == "stopped"


def test_truncated_games_and_replaced_illegal_actions_replay(tmp_path):
    env_id = _game(1)
    spec = EnvSpec.resolve(env_id, {"players": 2, "max_ticks": 12, "illegal_action": "noop"})
    env = R.record(spec.make(), spec)
    last = env.action_space(env.possible_agents[0]).n - 1
    env.reset(seed=3)
    replaced = 0
    while env.agents:  # always the last action index: illegal, so the env plays its default instead
        infos = env.step({a: last for a in env.agents})[4]
        replaced += sum(i["illegal_replaced"] for i in infos.values())
    data = env.replays[0]
    assert replaced > 0 and data["end"]["status"] == "truncated" and data["end"]["ticks"] == 12
    assert "illegal_action" not in data["options"] and data["options"]["max_ticks"] == 12
    assert all(x != last for row in data["actions"] for x in row)  # the applied actions are recorded
    assert set(data["seats"].values()) == {"?"}
    assert R.replay(R.parse(R.dumps(data))).status == "truncated"
    with pytest.raises(R.ReplayError, match=r"not the replay's .* \(differs in \['max_ticks'\]"):
        R.replay(data, EnvSpec.resolve(env_id, {"players": 2}).make())


# ---------------------------------------------------------------------- refusals
@pytest.fixture(scope="module")
def good():
    return _record(_spec(_game(2)), "random", 7)[0]


def _refused(d, tmp_path, match, name="bad.json"):
    path = tmp_path / name
    path.write_text(d if isinstance(d, str) else json.dumps(d), encoding="utf-8")
    with pytest.raises(R.ReplayError, match=match):
        R.load(path)
    return path


def test_another_env_version_is_refused_naming_both_versions(good, tmp_path):
    game = R.game_name(good["env_id"])
    for v in (R.env_version(good["env_id"]) + 1, max(0, R.env_version(good["env_id"]) - 1)):
        d = {**good, "env_id": f"{game}_v{v}", "env_version": v}
        _refused(d, tmp_path, re.escape(f"recorded on {game}_v{v} (env version {v}), but this checkout has "
                                        f"{good['env_id']} (env version {good['env_version']})"))
    _refused({**good, "env_version": good["env_version"] + 1}, tmp_path, "does not match env_id")
    _refused({**good, "env_id": "nosuchgame_v1"}, tmp_path, r"unknown env 'nosuchgame_v1'; registered")


def test_an_illegal_action_is_refused_naming_tick_agent_and_legal_actions(good, tmp_path):
    spec = R.validate(good)
    env = spec.make()
    k = len(good["actions"]) // 2
    for tick in R.iter_replay(good, env):
        if tick.tick == k - 1:
            break
    agent = good["agents"][1]
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    legal = env.action_table.names([int(i) for i in np.flatnonzero(mask)])
    d = copy.deepcopy(good)
    d["actions"][k][1] = bad
    path = _refused(d, tmp_path, re.escape(f"tick {k}, agent {agent}: the recorded action {bad} "
                                           f"({env.action_table.name(bad)}) is not legal now"))
    with pytest.raises(R.ReplayError) as e:
        R.load(path)
    assert str(legal) in str(e.value)
    p = _run("watch", "--replay", path, check=False)  # the command refuses it too, in one line
    assert p.returncode == 2 and f"tick {k}, agent {agent}" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert p.stdout == ""  # refused before anything is drawn


def test_a_changed_legal_action_or_outcome_does_not_reproduce(good, tmp_path):
    spec = R.validate(good)
    env = spec.make()
    for tick in R.iter_replay(good, env):
        if tick.tick == 2:
            break
    agent = good["agents"][0]
    legal = [int(i) for i in np.flatnonzero(env.observe(agent)["action_mask"]) if i != good["actions"][3][0]]
    d = copy.deepcopy(good)
    d["actions"][3][0] = legal[0]  # another legal action: a later one no longer fits, or the trajectory differs
    _refused(d, tmp_path, r"does not reproduce the recorded|is not legal now")
    _refused({**good, "digest": "0" * 64}, tmp_path, "does not reproduce the recorded digest")
    d = copy.deepcopy(good)
    d["outcome"]["winners"] = [] if d["outcome"]["winners"] else [agent]
    _refused(d, tmp_path, "does not reproduce the recorded outcome")
    d = copy.deepcopy(good)
    d["end"]["returns"][agent] += 1.0
    _refused(d, tmp_path, "does not reproduce the recorded end.returns")
    d = copy.deepcopy(good)
    d["actions"] = d["actions"][:-1]
    d["end"]["ticks"] -= 1
    _refused(d, tmp_path, "does not reproduce the recorded end.status: recorded 'terminated', replayed 'stopped'")
    d = copy.deepcopy(good)
    d["actions"].append([0] * len(d["agents"]))
    d["end"]["ticks"] += 1
    _refused(d, tmp_path, "the game ended after tick")


def test_truncated_or_garbled_files_are_refused(good, tmp_path):
    text = R.dumps(good)
    _refused(text[: len(text) // 2], tmp_path, r"not valid JSON .* truncated or damaged")
    _refused(text.replace('"actions": [', '"actions": [[', 1), tmp_path, "not valid JSON")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe" + text.encode()[:50])
    with pytest.raises(R.ReplayError, match="not UTF-8"):
        R.load(tmp_path / "bin.json")
    _refused(text.replace('"seed": 7', '"seed": NaN'), tmp_path, "NaN is not allowed")
    _refused(text.replace('"seed": 7', '"seed": 7, "seed": 8'), tmp_path, "'seed' appears twice")
    _refused(text.replace('"seed": 7', '"seed": ' + "[" * 100_000 + "]" * 100_000), tmp_path,
             "nested too deeply are not allowed")
    _refused(text.replace('"seed": 7', '"seed": ' + "7" * 5000), tmp_path, "an integer of more than 4,300 digits")
    _refused("[1, 2]", tmp_path, "a replay is a JSON object, got array")
    with pytest.raises(R.ReplayError, match="no such file"):
        R.load(tmp_path / "missing.json")
    _refused(R.dumps(good, lines=False) + "\n\n", tmp_path, "line 2: empty line", name="x.jsonl")
    _refused(R.dumps(good, lines=False) + "\n{", tmp_path, "line 2: not valid JSON", name="y.jsonl")


@pytest.mark.parametrize("key, value, match", [
    ("seed", "7", "seed must be an integer, got string"),
    ("seed", True, "seed must be an integer, got boolean"),
    ("seed", -1, "seed -1 is negative"),
    ("env_version", 1.0, "env_version must be an integer, got number"),
    ("format", "other", "format is 'other'; allowed: 'kitchen-arena-replay'"),
    ("format_version", 2, "format_version 2 is not supported; this reader reads format_version 1"),
    ("options", [], "options must be an object"),
    ("agents", ["a", "b"], "are not the seats of"),
    ("seats", {}, r"seats: missing keys"),
    ("digest", "abc", "digest must be 64 lowercase hex digits"),
    ("end", {"ticks": 0}, r"end: missing keys \['status', 'returns'\]"),
    ("package_version", 1, "package_version must be a string"),
])
def test_wrong_types_are_refused(good, tmp_path, key, value, match):
    _refused({**good, key: value}, tmp_path, match)


def test_unknown_missing_keys_bad_actions_and_bad_options_are_refused(good, tmp_path):
    _refused({**good, "comment": "x"}, tmp_path, r"unknown keys \['comment'\]; the keys are exactly")
    d = dict(good)
    del d["seed"]
    _refused(d, tmp_path, r"missing keys \['seed'\]")
    for bad, match in ((1.0, "action 1.0 is not an action index"), (True, "action True is not an action index"),
                       (10 ** 6, r"action 1000000 is not an action index; allowed: integers 0\.\.")):
        d = copy.deepcopy(good)
        d["actions"][4][2] = bad
        _refused(d, tmp_path, f"tick 4, agent {good['agents'][2]}: {match}")
    d = copy.deepcopy(good)
    d["actions"][4] = d["actions"][4][:-1]
    _refused(d, tmp_path, r"actions\[4\] \(tick 4\) must be an array of")
    _refused({**good, "options": {**good["options"], "players": 99}}, tmp_path, "options not valid for")
    _refused({**good, "options": {**good["options"], "no_such_option": 1}}, tmp_path, "options not valid for")
    _refused({**good, "options": {**good["options"], "render_mode": "ansi"}}, tmp_path, "not recorded in a replay")
    d = copy.deepcopy(good)
    d["end"]["returns"][good["agents"][0]] = "1"
    _refused(d, tmp_path, "must be a finite number")


# ---------------------------------------------------------------------- --save-games
def test_evaluate_save_games_from_worker_processes_replays_to_the_recorded_outcomes(tmp_path):
    env_id = _game(1)
    spec = _spec(env_id, players=3)
    out = tmp_path / "games"
    p = _run("evaluate", "heuristic", "--env", env_id, "--env-set", "players=3", "--against", "random",
             "--games", 40, "--workers", 2, "--save-games", out, "--json", tmp_path / "e.json")
    assert f"saved 40 games to {out}/ (one file per game)" in p.stdout
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"{i + 1:06d}_{env_id}_seed{i}.json" for i in range(40)]
    games = [R.load(f) for f in files]  # each replays to its recorded outcome
    agents = games[0]["agents"]
    for g in games:  # the focus rotates over the seats
        assert g["seats"] == {a: "heuristic" if a == agents[g["seed"] % 3] else "random" for a in agents}
    # the same figures as the evaluation itself: win share of the focus seat
    wins = [sum(1 for a in g["outcome"]["winners"] if g["seats"][a] == "heuristic") / len(g["outcome"]["winners"])
            if g["outcome"]["winners"] else 0.0 for g in games]
    row = json.loads((tmp_path / "e.json").read_text())["rows"][0]
    assert row["win_rate"] == pytest.approx(sum(wins) / 40)
    assert row["length_mean"] == pytest.approx(np.mean([g["end"]["ticks"] for g in games]))
    # in one process: the same replays, byte for byte (independent of the worker count)
    seen = []
    with saving_games(lambda recs: seen.extend(r.replay for r in recs)):
        from training.evaluation import play_games_parallel
        play_games_parallel(spec, "heuristic", "random", range(40), workers=1)
    assert [R.dumps(g) for g in seen] == [f.read_text() for f in files]
    assert play_games(spec, "heuristic", "random", [0])[0].replay is None  # nothing recorded outside saving_games


def test_saving_games_records_its_own_threads_games_only():
    """``saving_games`` was the whole process's: a thread recording its evaluation got the games of
    another thread's evaluation too (and that one recorded replays it never asked for)."""
    import threading

    from training.evaluation import play_games_parallel

    spec = EnvSpec.resolve(_game(2))
    seen, other = [], []
    started, recorded = threading.Event(), threading.Event()

    def elsewhere():
        started.wait(10)
        other.extend(play_games_parallel(spec, "heuristic", "random", [500, 501], workers=1))
        recorded.set()

    t = threading.Thread(target=elsewhere)
    t.start()
    with saving_games(lambda recs: seen.extend(recs)):
        started.set()
        recorded.wait(60)  # the other thread's games are played while this block is open
        play_games_parallel(spec, "heuristic", "random", [0, 1, 2], workers=1)
    t.join(10)
    assert [r.seed for r in seen] == [0, 1, 2]
    assert len(other) == 2 and all(r.replay is None for r in other)


def test_tournament_save_games_jsonl(tmp_path):
    env_id = _game(2)
    out = tmp_path / "t.jsonl"
    p = _run("tournament", "random", "heuristic", "--env", env_id, "--env-set", "players=3", "--games", 3,
             "--workers", 1, "--save-games", out)
    assert "saved 6 games" in p.stdout  # P > 2: both directions of the pairing
    games = R.load_all(out)
    assert [g["seed"] for g in games] == [0, 1, 2] * 2
    assert [sorted(g["seats"].values()).count("random") for g in games] == [1] * 3 + [2] * 3


def test_watch_save_games_and_watch_replay_draw_the_same_pictures(tmp_path):
    env_id = _game(0)
    out = tmp_path / "w"
    live = _run("watch", "heuristic", "random", "--env", env_id, "--env-set", "players=2", "--seed", 5,
                "--save-games", out)
    files = list(out.iterdir())
    assert len(files) == 1 and R.load(files[0])["seats"] == dict(zip(R.load(files[0])["agents"],
                                                                      ["heuristic", "random"]))
    again = _run("watch", "--replay", files[0])
    frames_live = live.stdout.split("\n-- step ")[1:]
    frames_again = again.stdout.split("\n-- step ")[1:]
    assert len(frames_live) == R.load(files[0])["end"]["ticks"]
    last_live, _, tail_live = frames_live[-1].partition("\n== game over")
    last_again, _, tail_again = frames_again[-1].partition("\n== game over")
    assert frames_live[:-1] == frames_again[:-1] and last_live == last_again
    assert tail_live.split("\n")[0] == tail_again.split("\n")[0]  # the same outcome line
    assert "replay reproduced the recorded outcome" in again.stdout
    # the dealt table is the first picture of both
    assert live.stdout.split("\n", 1)[1].split("\n-- step ")[0] == again.stdout.split("\n", 1)[1].split("\n-- step ")[0]
    start = _run("watch", "--replay", files[0], "--from", 10, "--every", 5).stdout
    assert start.split("\n")[1].startswith("-- step 10 --") and "\n-- step 15 --" in start
    assert "\n-- step 11 --" not in start and "\n-- step 9 --" not in start
    ticks = R.load(files[0])["end"]["ticks"]
    p = _run("watch", "--replay", files[0], "--from", ticks + 1, check=False)
    assert p.returncode == 2 and f"--from {ticks + 1}: " in p.stderr and f"allowed: 0..{ticks}" in p.stderr


@pytest.mark.parametrize("args, match", [
    (["watch", "--replay", "x.json", "heuristic"], "policies cannot be given with a replay"),
    (["watch", "--replay", "x.json", "--seed", "0"], "--seed cannot be given with a replay"),
    (["watch", "--env", "E", "heuristic", "--from", "3"], "--from is for a replay"),
    (["watch"], "watch needs the policies"),
    (["watch", "--replay", "x.json"], "no such file"),
    (["evaluate", "random", "--env", "E", "--save-games", "no/such/dir/games"], "does not exist"),
])
def test_bad_save_games_and_replay_options_exit_2_with_one_line(args, match, tmp_path):
    args = [_game(1) if a == "E" else a for a in args]
    p = _run(*args, cwd=tmp_path, check=False)
    assert p.returncode == 2 and match in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_save_games_refuses_a_non_empty_directory_before_playing(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "old.json").write_text("{}")
    p = _run("watch", "random", "--env", _game(1), "--save-games", tmp_path / "g", check=False)
    assert p.returncode == 2 and "is not empty" in p.stderr and "-- step" not in p.stdout


def test_watch_and_play_that_refuse_their_input_leave_the_save_games_target_as_it_was(tmp_path, capsys):
    """``watch`` and ``play`` emptied an existing ``--save-games FILE.jsonl`` (and made a new DIR) before
    they built their policies and seats: a refused command had lost the games saved there before. A
    command that plays still writes the file anew."""
    from training.cli import main

    old = tmp_path / "games.jsonl"
    old.write_text('{"an earlier": "game"}\n')
    fm = "frying_master_v1"
    misfit = ["watch", "checkpoint:" + str(ROOT / "checkpoints" / "frying_master" / "main"), "--env", fm,
              "--env-set", "players=3", "--delay", "0"]
    for args in (misfit, ["play", "--env", fm, "--seat", "chef_7"]):
        for target in (old, tmp_path / "newdir"):
            assert main(args + ["--save-games", str(target)]) == 2
            assert old.read_text() == '{"an earlier": "game"}\n'
            assert not (tmp_path / "newdir").exists()
    capsys.readouterr()
    assert main(["watch", "random", "--env", fm, "--delay", "0", "--max-steps", "3", "--save-games", str(old)]) == 0
    lines = old.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["env_id"] == fm


# ---------------------------------------------------------------------- the doc
def _doc() -> str:
    return (ROOT / "docs" / "replays.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", ["docs/replays.md", "README.md"])
def test_the_docs_commands_run_as_written(doc, tmp_path):
    """Every replay command of docs/replays.md, and README's save-and-replay lines, in a fresh
    directory in order (a save, then its replay)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    commands = [line.split("  #")[0].strip() for b in blocks for line in b.splitlines()
                if line.startswith("python -m training")]
    if doc == "README.md":
        commands = [c for c in commands if "--save-games" in c or "--replay" in c]
        assert len(commands) >= 2
    else:
        assert len(commands) >= 6
    for line in commands:
        ids = re.findall(r"--env (\S+)", line)
        assert all(i in envs.ENV_IDS for i in ids), f"the doc names an env id not in the registry: {line}"
        p = _run(*shlex.split(line)[3:], cwd=tmp_path, check=False)
        assert p.returncode == 0, f"{line}\n{p.stderr}"
        if "--replay" in line:
            assert "replay reproduced the recorded outcome" in p.stdout


def test_the_docs_python_snippet_runs_and_the_format_table_lists_every_key(tmp_path, monkeypatch):
    text = _doc()
    code = re.findall(r"```python\n(.*?)```", text, re.S)
    assert code
    monkeypatch.chdir(tmp_path)
    for c in code:
        exec(compile(c, "docs/replays.md", "exec"), {})
    table_keys = re.findall(r"^\| `([a-z_]+)` \|", text, re.M)
    assert [k for k in table_keys if k in R.KEYS] == list(R.KEYS)


def test_a_recorder_refuses_seats_that_are_not_its_env_specs():
    """A Recorder made for a 3-player spec recorded a 4-player game without a word (the replay
    then failed validation); an unknown seat in ``seat_labels`` was dropped silently."""
    env_id = _game(1)
    three = EnvSpec.resolve(env_id, {"players": 3})
    with pytest.raises(R.ReplayError, match=r"seat_labels names \['nobody'\], not seats of"):
        R.Recorder(three, 0, {"nobody": "x"})
    four = EnvSpec.resolve(env_id, {"players": 4}).make()
    obs, infos = four.reset(seed=0)
    with pytest.raises(R.ReplayError, match=r"the game's agents .* are not the seats of"):
        R.Recorder(three, 0).on_reset(obs, infos)


def _one_replay() -> dict:
    spec = _spec(_game(1))
    return _record(spec, "random", 0)[0]


def test_a_replays_values_past_its_limits_are_refused_naming_the_limit(tmp_path, monkeypatch):
    """``options`` or ``outcome`` nested 400 deep raised a bare ``RecursionError``; an escape sequence
    in a seat label reached the terminal through ``watch``; a game of 12 million ticks was parsed and
    checked tick by tick (1.46 GB, 35 s) before its count was refused; a directory was "no such file"."""
    good = _one_replay()
    R.validate(good)
    deep: list = []
    for _ in range(400):
        deep = [deep]
    many = [0] * (R.MAX_VALUE_COUNT + 1)
    cases = [({**good, "options": {**good["options"], "players": deep}}, "options must map option names to JSON "
              "values; it is nested deeper than 16 levels; allowed: at most 16"),
             ({**good, "outcome": {**good["outcome"], "x": deep}}, "outcome must hold JSON values only; it is nested"),
             ({**good, "outcome": {**good["outcome"], "x": many}}, "holds more than 100,000 values"),
             ({**good, "seats": {**good["seats"], good["agents"][0]: "\x1b]0;title\x07\x1b[2J"}},
              "allowed: printable text of at most 1000 characters"),
             ({**good, "seats": {**good["seats"], good["agents"][0]: "x" * 1001}}, "printable text of at most 1000"),
             ({**good, "actions": [good["actions"][0]] * 100_000, "end": {**good["end"], "ticks": 100_000}},
              "100,000 ticks recorded; a game of"),
             ({**good, "format": "y" * 100_000}, "format is 'yyyy")]
    for bad, says in cases:
        with pytest.raises(R.ReplayError) as caught:
            R.validate(bad)
        assert says in str(caught.value) and len(str(caught.value)) < 1000, str(caught.value)[:300]
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(good) + "\n")
    monkeypatch.setattr(R, "MAX_GAME_BYTES", 1000)
    with pytest.raises(R.ReplayError, match=r"line 1: [\d,]+ characters for one game; the longest game's replay is "
                                            r"read up to 1,000 characters"):
        R.load_all(path)
    with pytest.raises(R.ReplayError, match="is a directory"):
        R.load_all(tmp_path)


# ---------------------------------------------------------------------- the fourth audit's doors
def test_a_game_cut_by_max_cycles_is_recorded_with_max_ticks_and_replays_cut_there(tmp_path):
    """``max_cycles`` (PettingZoo's name for ``max_ticks``) was dropped from the record, so the game it
    cut replayed uncut and ``watch --replay`` refused the file ``--save-games`` had just written."""
    spec = EnvSpec.resolve(_game(2), {"players": 3, "max_cycles": 10})
    data, _ = _record(spec, "random", 0)
    assert data["end"]["status"] == "truncated" and data["end"]["ticks"] == 10
    assert data["options"]["max_ticks"] == 10 and "max_cycles" not in data["options"]
    path = tmp_path / "cut.json"
    path.write_text(R.dumps(data), encoding="utf-8")
    assert R.replay(R.load(path)).status == "truncated"


def test_numbers_beyond_a_float_and_flags_in_place_of_numbers_are_refused(good, tmp_path):
    """An integer of 400 digits had ended the reader in a bare ``OverflowError``; ``false`` in place of
    a recorded ``0`` had passed as the same outcome (``==`` takes the one for the other)."""
    big = 10 ** 400
    _refused({**good, "options": {**good["options"], "round_limit": big}}, tmp_path, "an integer beyond a float's range")
    d = copy.deepcopy(good)
    d["outcome"]["rounds"] = big
    _refused(d, tmp_path, r"outcome must hold JSON values only; it holds an integer beyond a float's range")
    d = copy.deepcopy(good)
    d["end"]["returns"][good["agents"][0]] = big
    _refused(d, tmp_path, r"end.returns\['player_0'\] must be a finite number")
    _refused(R.dumps(good).replace('"outcome": {', '"outcome": {"x": 1e400, ', 1), tmp_path, "a non-finite number")
    d = copy.deepcopy(good)
    seat, key = next((a, k) for a, b in d["outcome"]["breakdown"].items() for k, v in b.items()
                     if type(v) is int and v in (0, 1))
    d["outcome"]["breakdown"][seat][key] = bool(d["outcome"]["breakdown"][seat][key])
    _refused(d, tmp_path, "does not reproduce the recorded outcome")
    p = _run("watch", "--replay", _refused({**good, "options": {**good["options"], "round_limit": big}}, tmp_path,
                                           "beyond"), "--delay", "0", check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_options_the_env_refuses_together_and_odd_version_digits_are_replay_errors(good, tmp_path):
    seats = len(good["agents"])
    _refused({**good, "options": {**good["options"], "render_viewer": f"player_{seats}"}}, tmp_path,
             rf"bad.json: options not valid for {good['env_id']}: .*render_viewer='player_{seats}' is not at this table")
    game = R.game_name(good["env_id"])
    for odd in ("01", "\u0661"):  # a leading zero, an Arabic-Indic digit one: not the version 1 they read as
        _refused({**good, "env_id": f"{game}_v{odd}"}, tmp_path, "is not an env id <game>_vN")
    with pytest.raises(R.ReplayError, match=r"is a directory; give one of its replay files: .*bad\.json"):
        R.load(tmp_path)
    for name in ("b.json", "c.jsonl"):  # three files: all named, no "..."
        (tmp_path / name).write_text("{}")
    with pytest.raises(R.ReplayError) as e:
        R.load(tmp_path)
    assert str(e.value).count(".json") == 3 and "..." not in str(e.value)
    (tmp_path / "d.json").write_text("{}")
    with pytest.raises(R.ReplayError, match=r"c\.jsonl', \.\.\.$"):
        R.load(tmp_path)
