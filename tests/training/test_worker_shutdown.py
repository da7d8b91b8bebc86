"""An evaluation's worker processes end with the command that started them: stopped by SIGTERM
(the command exits 143 after ending its pool) or killed outright (each worker asked the kernel
for SIGTERM when its parent ends), never left playing their games out, orphaned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _evaluate_with_workers():
    """A slow evaluation on 2 worker processes (each with a long chunk of planner games), once both
    workers play: (process, the workers' pids)."""
    cmd = [sys.executable, "-m", "training", "evaluate", "planner?ms=200", "--env", "frying_master_v1",
           "--games", "60", "--workers", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        kids = {k for k in _children(proc.pid)
                if "spawn_main" in Path(f"/proc/{k}/cmdline").read_bytes().decode(errors="replace")}
        if len(kids) >= 2:
            time.sleep(3)  # the workers have started their chunks
            return proc, kids
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("the evaluation did not start its 2 workers within 120 s")


def _gone(pids: set[int], within_s: float) -> set[int]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    return {p for p in pids if _alive(p)}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_an_evaluations_workers_end_with_it(sig):
    proc, workers = _evaluate_with_workers()
    try:
        proc.send_signal(sig)
        rc = proc.wait(timeout=30)
        assert rc == (128 + signal.SIGTERM if sig == signal.SIGTERM else -signal.SIGKILL)
        left = _gone(workers, within_s=10)
        assert not left, f"worker processes {sorted(left)} still run after the command ended"
    finally:
        for p in workers:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


def test_an_evaluation_whose_worker_dies_stops_with_an_error_naming_it():
    """``multiprocessing.Pool.map`` waits for ever for the chunk of a worker that died (the OOM
    killer, a kill): ``evaluate --workers 2`` and ``tournament`` hung with nothing on stderr. The
    pool is now one that breaks: a WorkerError names the death, the other worker is ended."""
    import multiprocessing as mp
    import threading

    from envs.core.workers import WorkerError
    from training.envspec import EnvSpec
    from training.evaluation import play_games_parallel

    spec = EnvSpec.resolve("frying_master_v1", {"players": 2})
    out: dict = {}

    def run():
        try:
            out["records"] = play_games_parallel(spec, "heuristic", "random", range(400), workers=2)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(mp.active_children()) < 2:
        time.sleep(0.05)
    workers = mp.active_children()
    assert len(workers) >= 2, "the pool's workers did not start"
    time.sleep(1.0)  # each has taken its chunk
    os.kill(workers[0].pid, signal.SIGKILL)
    t.join(60)
    assert not t.is_alive(), "the evaluation still waits for the dead worker's chunk"
    err = out.get("error")
    assert isinstance(err, WorkerError) and err.died, out
    assert "an evaluation worker process died before it finished its games" in str(err)
    # (how it ended is named where the pool still holds the process: "... killed by SIGKILL")
    assert not _gone({w.pid for w in workers}, within_s=10)


def test_a_dead_bridge_worker_ends_train_with_one_line_and_a_checkpoint(tmp_path, monkeypatch, capsys):
    """A bridge worker that died (or stopped answering) ended ``train`` in a 45-line traceback, and
    the model it had trained was not saved; Ctrl-C on the same run saved it."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.callbacks import BaseCallback

    import training.trainer as trainer
    from envs.core.workers import WorkerError
    from training.checkpoints import read_metadata
    from training.cli import main

    class Dies(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 600:
                raise WorkerError("bridge worker 4242 died (exit code -9, killed by SIGKILL) before it answered",
                                  label="bridge worker", pid=4242, exitcode=-9, died=True)
            return True

    real = trainer.train
    monkeypatch.setattr(trainer, "train", lambda cfg, **kw: real(cfg, **{**kw, "extra_callbacks": [Dies()]}))
    rc = main(["train", "--quiet", "--set", "training.total_timesteps=2048", "--set", "evaluation.games=2",
               "--set", f"output.checkpoints={tmp_path / 'ck'}", "--set", f"output.runs={tmp_path / 'runs'}",
               "--set", "name=dies"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith("error: bridge worker 4242 died") and "the checkpoint was saved at" in err[0]
    meta = read_metadata(tmp_path / "ck" / "frying_master" / "dies")
    assert meta["complete"] is False and meta["timesteps"] >= 600
