"""Every shipped checkpoint (listed in checkpoints/MANIFEST.json) loads against its env and plays legal actions.

Only the checkpoints the manifest lists are checked: a user's own run under
``checkpoints/`` (an interrupted one included) is not a shipped checkpoint and
cannot fail these tests. Each listed checkpoint's files must match the
manifest's SHA-256 (a shipped checkpoint does not change by accident; after a
deliberate change, ``training.checkpoints.write_manifest`` rewrites it).
Loading verifies the metadata, both SHA-256 hashes and that the checkpoint
fits the env as it is now (env id, seats, observation size and layout, number
of actions): a game change that breaks a checkpoint fails here. Each
checkpoint then plays a few seeded games in every seat of an env that raises
on an illegal action. Learning quality is measured by ``python -m training
evaluate`` (checkpoints/README.md), not here.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import envs
from envs.core.play import play_episode
from training.checkpoints import (CheckpointWarning, load_actor, pending_checkpoints, read_manifest, read_metadata,
                                  shipped_checkpoints, trained_env_spec, verify_shipped)
from training.policies import make_policy

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINTS = ROOT / "checkpoints"
SHIPPED = shipped_checkpoints(CHECKPOINTS)
GAMES = 3


def EnvGame(env_id: str) -> str:
    base, _, ver = env_id.rpartition("_v")
    return base if base and ver.isdigit() else env_id


def test_every_present_game_ships_a_main_checkpoint_or_says_it_is_being_retrained():
    """A game's ``main`` checkpoint is shipped, or the manifest's ``pending`` says why not (after an
    env version change, until the retrained one lands); a pending one is not on disk half-made."""
    games = {EnvGame(eid) for eid in envs.available_env_ids()}
    shipped = {p.parent.name for p in SHIPPED if p.name == "main"}
    pending = pending_checkpoints(CHECKPOINTS)
    waiting = {name.split("/")[0] for name in pending if name.endswith("/main")}
    assert games <= shipped | waiting, (f"no checkpoints/<game>/main listed in checkpoints/MANIFEST.json for "
                                        f"{sorted(games - shipped - waiting)}")
    for name, why in pending.items():
        game = name.split("/")[0]
        assert any(e.startswith(game + "_v") and e in why for e in envs.ENV_IDS), f"{name}: {why!r} names no env version"
    for p in SHIPPED:  # and each is the checkpoint of the game its directory names
        assert EnvGame(read_metadata(p)["env_id"]) == p.parent.name


@pytest.mark.parametrize("directory", SHIPPED, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED])
def test_shipped_checkpoint_is_unchanged_loads_and_plays_only_legal_actions(directory):
    name = f"{directory.parent.name}/{directory.name}"
    verify_shipped(CHECKPOINTS, name)  # metadata.json, model.zip, actor.npz as the manifest records them
    assert set(read_manifest(CHECKPOINTS)[name]) >= {"metadata.json", "model.zip", "actor.npz"}
    meta = read_metadata(directory)
    assert meta["complete"], "a shipped checkpoint is a finished run"
    assert meta["evaluation"] and meta["evaluation"]["rows"], "a shipped checkpoint carries its evaluation summary"
    spec = trained_env_spec(meta)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)  # trained with this env's options and version
        load_actor(directory, spec)  # hashes and the env's layout
        policy = make_policy(f"checkpoint:{directory}", spec)
    env = spec.make(illegal_action="raise")
    for seed in range(GAMES):
        result = play_episode(env, {a: policy for a in env.possible_agents}, seed=seed)
        assert result.terminated or result.truncated
        assert result.steps > 0
    env.close()


def test_a_users_interrupted_run_under_checkpoints_is_not_a_shipped_checkpoint(tmp_path, toy_checkpoint, toy_registry):
    """The manifest, not a glob of checkpoints/*/*, says what is shipped: an
    unfinished run of one's own beside the shipped ones is left out."""
    import shutil

    from training.checkpoints import write_manifest

    root = tmp_path / "checkpoints"
    name = "toy/main"
    shutil.copytree(toy_checkpoint, root / name)
    write_manifest(root, [name])
    mine = root / "toy" / "mine"
    shutil.copytree(toy_checkpoint, mine)
    meta = json.loads((mine / "metadata.json").read_text())
    meta.update(complete=False, evaluation=None)  # what Ctrl-C leaves behind
    (mine / "metadata.json").write_text(json.dumps(meta))
    assert shipped_checkpoints(root) == [root / name]
    verify_shipped(root, name)


def test_the_manifests_pending_map_is_checked(tmp_path, toy_checkpoint, toy_registry):
    """A ``pending`` entry must say why (a string) and never name a shipped checkpoint too."""
    import shutil

    from training.checkpoints import CheckpointError, write_manifest

    root = tmp_path / "checkpoints"
    shutil.copytree(toy_checkpoint, root / "toy" / "main")
    write_manifest(root, ["toy/main"], {"toy/next": "retraining on toy_v1"})
    assert pending_checkpoints(root) == {"toy/next": "retraining on toy_v1"}
    data = json.loads((root / "MANIFEST.json").read_text())
    for bad, match in (({"toy/next": 3}, "must map"), ({"toy/main": "why"}, "both shipped and pending")):
        (root / "MANIFEST.json").write_text(json.dumps({**data, "pending": bad}))
        with pytest.raises(CheckpointError, match=match):
            pending_checkpoints(root)
    (root / "MANIFEST.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        pending_checkpoints(root)


def _set_value(words: list[str], key: str) -> str | None:
    """The value a train command's ``--set KEY=VALUE`` gives ``key`` (the last one wins), or None."""
    values = [words[i + 1].partition("=")[2] for i, w in enumerate(words[:-1])
              if w == "--set" and words[i + 1].partition("=")[0] == key]
    return values[-1] if values else None


@pytest.mark.parametrize("directory", SHIPPED, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED])
def test_shipped_evaluation_md_says_how_to_reproduce_it(directory):
    """Each shipped evaluation.md ends with the commands that reproduce the checkpoint and its table
    (the training config that exists, evaluate commands that parse and use the table's games and seed)."""
    import shlex

    from training.cli import build_parser

    text = (directory / "evaluation.md").read_text()
    block = text.split("Reproduce (training, then each row):", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line) for line in block.strip().splitlines()]
    trains = [w for w in commands if w[:4] == ["python", "-m", "training", "train"]]
    assert trains and commands[:len(trains)] == trains  # the training sessions first
    names = [_set_value(words, "name") for words in trains]
    assert names[-1] == "retrained"
    for i, words in enumerate(trains):
        train = build_parser().parse_args(words[3:])
        assert (ROOT / train.config).is_file()
        if i == 0:
            assert not train.resume
        elif train.resume:  # a later session of the same run
            assert names[i] == names[i - 1]
        else:  # or a fine-tuning that starts from the weights of the run before it
            assert names[i] != names[i - 1]
            assert _set_value(words, "training.init_from") == f"checkpoints/{directory.parent.name}/{names[i - 1]}"
    commands = [trains[-1]] + commands[len(trains):]
    summary = json.loads((directory / "evaluation.json").read_text())["rows"]
    for words in commands[1:]:
        args = build_parser().parse_args(words[3:])
        first_seed = int(text.split("(seeds ", 1)[1].split("..", 1)[0])
        assert args.games == summary[0]["games"] and args.seed == first_seed
    assert commands[1][4] == f"checkpoint:checkpoints/{directory.parent.name}/{directory.name}"
