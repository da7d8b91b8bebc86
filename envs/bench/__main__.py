import os

# One BLAS/OpenMP thread per process unless the user says otherwise, as `python -m training`
# does: the self-play pool's numpy forward passes in the bridge are tiny matrix products, and
# multi-threaded OpenBLAS waiting for a busy second core made them ~50x slower (measured: 2.2 ms
# instead of 40 us for 16 rows on this 2-core machine under load), which the --training rows
# would otherwise count as the bridge's cost.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# No transparent huge pages for numpy's large arrays unless the user says otherwise, as `python -m
# training` (its __main__ says why), so that the --training rows measure what training does.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

from envs.bench.cli import main  # noqa: E402
from envs.core.inputs import run_main  # noqa: E402

raise SystemExit(run_main(main))
