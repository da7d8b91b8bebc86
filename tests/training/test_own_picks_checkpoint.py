"""A checkpoint trained with an observation-only env option (Waroong Wars' ``own_picks``) is played
with it: by evaluate, watch and tournament, whether the env comes from the checkpoint or from --env;
a checkpoint trained before the option existed still loads without a warning."""

from __future__ import annotations

import json
import shutil
import warnings

import pytest

import envs
from tests.training.conftest import toy_config
from training.checkpoints import CheckpointError, load_actor, read_metadata, trained_env_spec
from training.cli import main
from training.config import load_config
from training.envspec import EnvSpec
from training.evaluation import evaluate
from training.trainer import train

pytestmark = pytest.mark.skipif("waroong_wars_v1" not in envs.available_env_ids(),
                                reason="waroong_wars_v1 is not present in this checkout")


def _tiny(tmp, name: str, **options):
    cfg = load_config(raw=toy_config(tmp, "waroong_wars_v1", name=name,
                                     env={"id": "waroong_wars_v1", "options": {"players": 3, **options}},
                                     training={"total_timesteps": 256, "env_copies": 2},
                                     evaluation={"games": 2, "against": ["heuristic"]}))
    return train(cfg, log=lambda s: None)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ownpicks")
    return _tiny(tmp, "memory", own_picks=True), _tiny(tmp, "plain")


def test_the_checkpoint_records_the_option_and_its_own_evaluation_used_it(runs):
    mem, _ = runs
    meta = read_metadata(mem.checkpoint_dir)
    assert meta["env_config"]["own_picks"] is True
    assert trained_env_spec(meta).options["own_picks"] is True
    assert mem.rows and all(r.options.get("own_picks") is True for r in mem.rows) and "own_picks=True" in mem.table
    plain = envs.waroong_wars_v1.parallel_env(players=3).encoder
    assert meta["observation"]["raw_shape"] == [plain.layout.size + plain.cat.n_types]


def test_evaluate_watch_and_tournament_play_it_with_the_option(runs, capsys):
    ck = f"checkpoint:{runs[0].checkpoint_dir}"
    # env from the checkpoint
    assert main(["evaluate", ck, "--against", "heuristic", "--games", "2", "--workers", "1"]) == 0
    assert "own_picks=True" in capsys.readouterr().out
    # --env without the option: it comes with the checkpoint
    assert main(["evaluate", ck, "--env", "waroong_wars_v1", "--env-set", "players=3", "--against", "random",
                 "--games", "2", "--workers", "1"]) == 0
    assert "own_picks=True" in capsys.readouterr().out
    assert main(["tournament", "random", ck, "--env", "waroong_wars_v1", "--env-set", "players=3", "--games", "2",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "own_picks=True" in out and "checkpoint:" in out
    assert main(["watch", ck, "random", "heuristic", "--env", "waroong_wars_v1", "--env-set", "players=3",
                 "--delay", "0", "--no-clear", "--max-steps", "5"]) == 0
    capsys.readouterr()


def test_asking_for_the_table_without_the_option_is_a_clear_error(runs, capsys):
    ck = f"checkpoint:{runs[0].checkpoint_dir}"
    assert main(["evaluate", ck, "--env-set", "own_picks=false", "--games", "2", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "observation size" in err and "own_picks=True (trained) vs False" in err


def test_two_checkpoints_that_observe_differently_cannot_share_a_table(runs, capsys):
    mem, plain = (f"checkpoint:{r.checkpoint_dir}" for r in runs)
    assert main(["tournament", mem, plain, "--env", "waroong_wars_v1", "--env-set", "players=3", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "own_picks=True" in err and "own_picks=False" in err and "--env-set own_picks=" in err


def test_the_memory_reaches_the_trained_network(runs):
    """The trained policy's input holds the memory block (rescaled by its declared bounds), and the
    policy plays legal games with it against the heuristic."""
    import numpy as np

    from training.policies import make_policy

    spec = trained_env_spec(read_metadata(runs[0].checkpoint_dir))
    pol = make_policy(f"checkpoint:{runs[0].checkpoint_dir}", spec)
    env = spec.make()
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(2):
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    o = obs["player_0"]
    lay = env.encoder.layout
    block = lay.slices["own_picks"]
    assert o["observation"][block].sum() == 2
    x = pol.model_input(o, "player_0")
    np.testing.assert_allclose(x[block], o["observation"][block] / lay.high[block])
    row = evaluate(spec, f"checkpoint:{runs[0].checkpoint_dir}", "heuristic", games=2)
    assert row.games == 2 and row.options.get("own_picks") is True and not row.note


def test_a_checkpoint_from_before_the_option_loads_strictly_at_the_default(runs, tmp_path):
    d = tmp_path / "waroong_wars" / "old"
    shutil.copytree(runs[1].checkpoint_dir, d)
    meta = json.loads((d / "metadata.json").read_text())
    del meta["env_config"]["own_picks"]  # as written before the option existed
    (d / "metadata.json").write_text(json.dumps(meta))
    spec = EnvSpec.resolve("waroong_wars_v1", {"players": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_actor(d, spec, strict=True)
    with pytest.raises(CheckpointError, match=r"own_picks=False \(trained\) vs True"):
        load_actor(d, spec.with_options(own_picks=True))
