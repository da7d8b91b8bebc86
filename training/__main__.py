"""``python -m training``: see :mod:`training.cli`."""

import os

# One BLAS/OpenMP thread per process unless the user says otherwise: the
# bridge runs many tiny numpy/torch operations per step, and multi-threaded
# BLAS spinning on 2 shared cores made in-process stepping several times
# slower (measured). torch's thread count is then set by training.torch_threads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


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
