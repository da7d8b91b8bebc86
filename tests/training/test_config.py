"""Config schema: defaults, overrides, clear errors; the shipped configs and the embedded default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import envs
from envs.core.errors import ConfigError
from tests.training.conftest import toy_config
from training.config import SCHEMA, apply_overrides, load_config
from training.envspec import EnvUnavailableError
from training.trainer import plan_run

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_fill_every_key(tmp_path, toy_registry):
    cfg = load_config(raw={"env": {"id": "toy_v0"}})
    assert cfg["algorithm"]["name"] == "MaskablePPO"
    assert cfg["training"]["env_copies"] == 8 and cfg["evaluation"]["games"] == 200
    assert cfg["seats"]["learners"] == "auto"


def test_unknown_key_names_it_lists_allowed_and_suggests():
    with pytest.raises(ConfigError) as e:
        load_config(raw={"trainig": {"seed": 1}})
    msg = str(e.value)
    assert "'trainig'" in msg and "did you mean 'training'" in msg
    assert "allowed keys: name, description, env, algorithm, training, pretrain, seats" in msg


def test_unknown_nested_key_names_its_dotted_path():
    with pytest.raises(ConfigError) as e:
        load_config(raw={"algorithm": {"n_step": 64}})
    assert "'algorithm.n_step'" in str(e.value) and "did you mean 'algorithm.n_steps'" in str(e.value)


@pytest.mark.parametrize("override,key,allowed", [
    ("training.env_copies=0", "training.env_copies", "an integer >= 1"),
    ("algorithm.gamma=1.5", "algorithm.gamma", "a number >= 0 and <= 1"),
    ("algorithm.activation=sigmoid", "algorithm.activation", "one of 'tanh', 'relu'"),
    ("training.progress_bar=maybe", "training.progress_bar", "true or false"),
    ("seats.learners=none", "seats.learners", "one of 'auto', 'all' or an integer >= 1"),
    ("evaluation.against=[random, hueristic]", "evaluation.against[1]", "a policy spec"),
    ("name=a/b", "name", "a run name"),
])
def test_bad_value_names_key_and_allowed(override, key, allowed):
    with pytest.raises(ConfigError) as e:
        load_config(raw={}, overrides=[override])
    msg = str(e.value)
    assert f"config key {key}:" in msg and allowed in msg


@pytest.mark.parametrize("key, value", [("name", "a\x00b"), ("name", "a\x1b[2Jb"), ("name", "n" * 201),
                                        ("output.checkpoints", "ck\x00s"), ("output.runs", "r\nuns")])
def test_names_and_output_folders_are_printable_and_short_enough(key, value):
    """A NUL in the run name or an output folder ended ``train`` (``--dry-run`` too) in a traceback
    (``embedded null byte``); an escape sequence was printed raw to the terminal; a 300-character name
    passed ``--dry-run`` and the run then failed on its lock file's name."""
    section, _, leaf = key.rpartition(".")
    raw = {section: {leaf: value}} if section else {key: value}
    with pytest.raises(ConfigError, match=rf"config key {re.escape(key)}: .* is not allowed; allowed: .*printable"):
        load_config(raw={"env": {"id": envs.ENV_IDS[0]}, **raw})


def test_bad_policy_spec_in_others_is_rejected():
    with pytest.raises(ConfigError) as e:
        load_config(raw={"seats": {"others": {"pool": 1, "greedy": 1}}})
    assert "seats.others.greedy" in str(e.value) and "unknown policy spec" in str(e.value)


def test_bad_env_option_is_reported_by_the_env(tmp_path, toy_registry):
    cfg = load_config(raw=toy_config(tmp_path, env={"id": "toy_v0", "options": {"players": 7}}))
    with pytest.raises(ConfigError) as e:
        plan_run(cfg)
    assert "players=7" in str(e.value) and "one of 2, 3" in str(e.value)
    cfg = load_config(raw=toy_config(tmp_path, env={"id": "toy_v0", "options": {"playrs": 2}}))
    with pytest.raises(ConfigError) as e:
        plan_run(cfg)
    assert "unknown option(s) 'playrs'" in str(e.value)


def test_learners_beyond_the_seats_is_an_error(tmp_path, toy_registry):
    cfg = load_config(raw=toy_config(tmp_path, seats={"learners": 3}))
    with pytest.raises(ConfigError, match=r"seats.learners: 3 is not allowed; allowed: 1..2"):
        plan_run(cfg)


def test_learner_leaving_seats_needs_someone_for_them(tmp_path, toy_registry):
    cfg = load_config(raw=toy_config(tmp_path, seats={"learners": 1, "others": {"random": 0}}))
    with pytest.raises(ConfigError, match="seats.others needs at least one positive weight"):
        plan_run(cfg)


def test_auto_seats_and_reward_follow_the_game_kind(tmp_path, toy_registry):
    comp = plan_run(load_config(raw=toy_config(tmp_path)))
    coop = plan_run(load_config(raw=toy_config(tmp_path, "toy_coop_v0")))
    assert (comp.learners, comp.reward_mode, comp.uses_pool) == (1, "own", True)
    assert (coop.learners, coop.reward_mode, coop.uses_pool) == (2, "team", False)


def test_overrides_parse_yaml_values_and_create_sections():
    raw = apply_overrides({"training": {"seed": 1}}, ["training.seed=7", "training.total_timesteps=5e4",
                                                      "seats.others={random: 1}", "env.options.players=3"])
    assert raw["training"]["seed"] == 7 and raw["seats"]["others"] == {"random": 1}
    assert raw["env"]["options"]["players"] == 3
    cfg = load_config(raw=raw)
    assert cfg["training"]["total_timesteps"] == 50_000
    with pytest.raises(ConfigError, match="not KEY=VALUE"):
        apply_overrides({}, ["training.seed"])
    with pytest.raises(ConfigError, match="'seed' is not a section"):
        apply_overrides({"training": {"seed": 1}}, ["training.seed.x=1"])


def test_missing_file_and_non_mapping_yaml(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    p = tmp_path / "list.yaml"
    p.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must be a YAML mapping"):
        load_config(p)


def _laughs(levels: int = 9) -> str:
    """A "billion laughs": nine aliases of the level below, nine levels deep (9**10 values)."""
    text = "&a0 [" + ", ".join(["lol"] * 9) + "]"
    for i in range(1, levels):
        text = f"&a{i} [{text}, " + ", ".join([f"*a{i - 1}"] * 8) + "]"
    return text


@pytest.mark.parametrize("text, match", [
    ("env: " + "[" * 5000 + "]" * 5000 + "\n", "sequences or mappings nested too deeply are not allowed; allowed: "
                                                 "fewer than about"),
    ("evaluation:\n  sweep:\n    difficulty: " + _laughs() + "\n", "more than 100,000 values .* allowed: at most "
                                                                     "100,000"),
    ("training:\n  seed: " + _laughs() + "\n", "more than 100,000 values"),
])
def test_a_config_past_the_readers_limits_is_refused_in_a_line_not_read_for_ever(tmp_path, capsys, text, match):
    from training.cli import main

    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=f"c.yaml: {match}"):
        load_config(p)
    assert main(["train", "--config", str(p)]) == 2
    err = capsys.readouterr().err
    assert re.search(match, err) and err.count("\n") == 1, err  # one line, no traceback


def test_set_values_and_config_files_past_the_limits_are_refused(tmp_path, monkeypatch):
    from envs.core import inputs

    with pytest.raises(ConfigError, match="--set 'training.seed=.*': the value is sequences or mappings nested too "
                                          "deeply are not allowed"):
        load_config(None, ["training.seed=" + "[" * 5000 + "]" * 5000])
    with pytest.raises(ConfigError, match="the value is more than 100,000 values"):
        load_config(None, ["training.seed=" + _laughs()])
    p = tmp_path / "big.yaml"
    p.write_text("name: x  # " + "y" * 200 + "\n")
    monkeypatch.setattr(inputs, "MAX_CONFIG_BYTES", 100)
    with pytest.raises(ConfigError, match="big.yaml: 212 bytes is not allowed; allowed: at most 100 bytes"):
        load_config(p)


def test_anchors_and_aliases_within_the_limit_still_work(tmp_path, toy_registry):
    p = tmp_path / "c.yaml"
    p.write_text("name: &n anchors\ndescription: *n\nenv: {id: toy_v0, options: {players: 2}}\n"
                 "evaluation: {sweep: {players: &ps [2, 3]}}\nalgorithm: {net_arch: *ps}\n")
    cfg = load_config(p)
    assert cfg["description"] == "anchors" and cfg["algorithm"]["net_arch"] == [2, 3]


@pytest.mark.parametrize("where", ["seats.others", "evaluation.against", "pretrain.teacher"])
def test_a_config_never_names_a_text_agent_whose_module_it_would_import(tmp_path, capsys, monkeypatch, where):
    """A text agent imports and calls the code it names: a config (a file from anywhere) naming one
    is refused before anything runs, and the module it names is never imported."""
    from training.cli import main

    mod = "planted_" + where.replace(".", "_")  # a module of its own per case: an import runs its body once
    (tmp_path / f"{mod}.py").write_text(f"open({str(tmp_path / 'PAYLOAD_RAN')!r}, 'w').write('ran')\n"
                                              f"def f(prompt):\n    return 'noop'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = f"text:{mod}:f"
    value = {"seats.others": f"{{'{spec}': 1.0}}", "evaluation.against": f"['{spec}']",
             "pretrain.teacher": f"'{spec}'"}[where]
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(toy_config(tmp_path)))
    with pytest.raises(ConfigError, match=r"a text agent imports and runs the code it names, so a config cannot "
                                          r"name one"):
        load_config(p, [f"{where}={value}"])
    assert main(["train", "--config", str(p), "--set", f"{where}={value}", "--dry-run"]) == 2
    assert "a config cannot name one" in capsys.readouterr().err
    assert not (tmp_path / "PAYLOAD_RAN").exists()
    assert main(["evaluate", spec, "--env", "frying_master_v1", "--env-set", "players=2", "--games", "1",
                 "--workers", "1"]) == 0  # on the command line: the user's own choice
    assert (tmp_path / "PAYLOAD_RAN").exists()


def test_worker_timeout_s_reaches_every_bridge_a_run_builds(tmp_path, toy_registry, monkeypatch):
    """``training.worker_timeout_s`` is checked like every key and given to the bridges of a run (the
    behaviour-cloning collection's and PPO's); tests/vector holds what the timeout does."""
    from training import vec_env
    from training.trainer import train

    for bad in ("0", "-5", "forever"):
        with pytest.raises(ConfigError, match="training.worker_timeout_s"):
            load_config(raw=toy_config(tmp_path), overrides=[f"training.worker_timeout_s={bad}"])
    seen = []
    real = vec_env.MultiAgentVecEnv.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        seen.append(self.timeout_s)

    monkeypatch.setattr(vec_env.MultiAgentVecEnv, "__init__", spy)
    cfg = load_config(raw=toy_config(tmp_path, training={"total_timesteps": 128, "workers": 2, "env_copies": 2,
                                                          "worker_timeout_s": 30},
                                     pretrain={"steps": 64, "epochs": 1}, evaluation={"games": 2}))
    train(cfg, log=lambda s: None)
    assert len(seen) >= 2 and set(seen) == {30.0}, seen  # the collection's bridge and PPO's


def test_embedded_default_is_a_small_two_player_frying_master_run_from_scratch():
    """What the header of training/data/default.yaml says: Frying Master, 2 chefs, PPO from scratch (no
    warm start), one learner seat against random, heuristic and pool seats, both cores, evaluated against
    random and heuristic opponents with the baselines (random against the same opponents: the start), the
    trained policy sampling from its distribution as PPO trained it."""
    cfg = load_config()
    assert cfg["env"]["id"] == "frying_master_v1"
    assert cfg["env"]["options"]["players"] == 2
    assert cfg["pretrain"]["steps"] == 0
    assert cfg["seats"]["learners"] == 1 and set(cfg["seats"]["others"]) == {"random", "heuristic", "pool"}
    assert cfg["training"]["workers"] == 2
    assert cfg["evaluation"]["against"] == ["random", "heuristic"] and cfg["evaluation"]["baselines"]
    assert cfg["evaluation"]["deterministic"] is False
    header = (ROOT / "training" / "data" / "default.yaml").read_text().split("\nname:")[0]
    for said in ("Frying Master", "2 chefs", "PPO from scratch", "50% random, 25% the heuristic, 25% a frozen",
                 "sampling from its masked distribution (evaluation.deterministic: false)"):
        assert said in " ".join(header.replace("#", " ").split()), said
    o = cfg["seats"]["others"]
    assert (o["random"], o["heuristic"], o["pool"]) == (0.5, 0.25, 0.25)


def test_embedded_default_resolves_or_names_the_missing_env():
    cfg = load_config()
    if "frying_master_v1" in envs.available_env_ids():
        plan = plan_run(cfg)
        assert not plan.cooperative and plan.learners == 1
        from training.trainer import evaluation_plan
        rows = [(pol, others) for _, pol, others in evaluation_plan(cfg, plan.env_spec, "trained")]
        assert rows == [("trained", "random"), ("trained", "heuristic"), ("random", "random"),
                        ("random", "heuristic"), ("heuristic", "random")]
    else:
        with pytest.raises(EnvUnavailableError, match="'frying_master_v1' is registered but not present"):
            plan_run(cfg)


CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_validate(path):
    cfg = load_config(path)
    env_id = cfg["env"]["id"]
    assert env_id in envs.ENV_IDS
    game = env_id.rsplit("_v", 1)[0]
    assert path.name.startswith(game + "_"), "configs are named <game>_<purpose>.yaml"
    if env_id in envs.available_env_ids():
        plan = plan_run(cfg)  # env options valid for the env as it is now
        assert plan.checkpoint_dir.parts[-2:] == (game, cfg["name"])


def test_every_present_game_has_a_quick_and_a_full_config():
    names = {p.name for p in CONFIGS}
    for env_id in envs.available_env_ids():
        game = env_id.rsplit("_v", 1)[0]
        assert {f"{game}_quick.yaml", f"{game}_full.yaml"} <= names, f"configs missing for {env_id}"


def test_docs_hold_the_current_schema_table():
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- BEGIN GENERATED: config-schema -->\n(.*?)<!-- END GENERATED: config-schema -->", text, re.S)
    assert m, "docs/training.md must hold the config table between the config-schema markers"
    assert m.group(1).strip(), "the config table is empty: python -m training schema --update docs/training.md"
    assert m.group(1).strip() == SCHEMA.markdown().strip(), "stale: python -m training schema --update docs/training.md"


def test_the_sample_errors_in_the_docs_are_what_the_command_prints(tmp_path, capsys, monkeypatch):
    """docs/training.md shows two config errors; the second had gone stale (a prefix the command
    never prints, a bound the schema had gained). Both are printed here by the command."""
    from training.cli import main

    doc = (Path(__file__).resolve().parents[2] / "docs" / "training.md").read_text(encoding="utf-8")
    shown = [line for line in doc.splitlines() if line.startswith("error: configs/x.yaml: config")]
    assert len(shown) == 2
    (tmp_path / "configs").mkdir()
    monkeypatch.chdir(tmp_path)
    for text, line in (("trainig: {seed: 1}\n", shown[0]), ("training: {env_copies: 0}\n", shown[1])):
        (tmp_path / "configs" / "x.yaml").write_text(text)
        assert main(["train", "--config", "configs/x.yaml", "--dry-run"]) == 2
        printed = capsys.readouterr().err.strip()
        expected = line[:-len(", ...")] if line.endswith(", ...") else line  # the doc cuts a long list
        assert printed.startswith(expected), (printed, line)
