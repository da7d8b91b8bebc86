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
