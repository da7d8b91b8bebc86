"""What ``python -m training`` and ``python -m envs.bench`` set in their process before numpy is
imported: no transparent huge pages for numpy's large arrays (``NUMPY_MADVISE_HUGEPAGE=0``, see
``training/__main__.py`` and docs/performance.md, eleventh increment) unless the user set it, as
with the BLAS thread counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: prints whether numpy started with huge pages on (1) or off (0)
PROBE = "import numpy._core.multiarray as m; print('hugepage', int(m._set_madvise_hugepage(True)))"

ENTRIES = {
    "training": "import training.__main__\n",  # the module's top (its command runs only as __main__)
    "envs.bench": ("import runpy, sys\nsys.argv = ['bench', '--help']\ntry:\n"
                   "    runpy.run_module('envs.bench', run_name='__main__')\nexcept SystemExit:\n    pass\n"),
}


def _started_with(code: str, **env_set: str) -> int:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMPY_MADVISE_HUGEPAGE", "PYTHONSTARTUP")}
    env.update(env_set)
    r = subprocess.run([sys.executable, "-c", code + PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split("hugepage")[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy asks for huge pages on Linux only")
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_the_commands_turn_numpys_huge_pages_off_unless_the_user_set_them(entry):
    if _started_with("") == 0:  # numpy's own default (on from Linux 4.6): else the check below cannot fail
        pytest.skip("numpy starts with huge pages off on this kernel: nothing to turn off")
    assert _started_with(ENTRIES[entry]) == 0
    assert _started_with(ENTRIES[entry], NUMPY_MADVISE_HUGEPAGE="1") == 1  # the user's choice is kept
