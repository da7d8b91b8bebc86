"""``python -m training``: see :mod:`training.cli`."""

import os

# One BLAS/OpenMP thread per process unless the user says otherwise: the
# bridge runs many tiny numpy/torch operations per step, and multi-threaded
# BLAS spinning on 2 shared cores made in-process stepping several times
# slower (measured). torch's thread count is then set by training.torch_threads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# NumPy asks Linux for transparent huge pages for every array of 4 MB or more (its documented
# NUMPY_MADVISE_HUGEPAGE, read when numpy is imported). Where the kernel compacts memory to find
# them (transparent_hugepage/defrag = madvise, the usual default), a fresh array of 32-64 MB took
# up to 0.6-0.9 s instead of 4-23 ms: sb3-contrib allocates the rollout buffer's action masks anew
# for every rollout, and the minibatches are copied out of them. Off unless the user says otherwise:
# the full configs of Wok Star and Waroong Wars train 3-15% faster (docs/performance.md, eleventh
# increment).
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def _run() -> int:
    try:
        from training.cli import main
    except ModuleNotFoundError as e:  # without the train extra (pyyaml, torch, SB3, ...)
        from training import missing_extra_message

        message = missing_extra_message(e)
        if message is None:
            raise
        import sys

        print(f"error: {message}", file=sys.stderr)
        return 2
    return main()


if __name__ == "__main__":  # guarded: spawned worker processes import this module too
    raise SystemExit(_run())
