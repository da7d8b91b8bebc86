"""Worker processes that serve commands over a pipe (shared by ``envs.vector``
and the training bridge).

The parent sends ``(command, data)``; the worker answers ``("ok", result)``
or ``("error", (type name, message, traceback))``. :func:`serve` is the
worker's loop; :class:`Remote` is the parent's end of one worker
(:func:`send` and :func:`receive` on its pipe); :func:`dispatch` applies one
command in-process (what a worker does, without a pipe); :func:`stop_workers`
closes workers and always returns.

Every failure reaches the parent as a :class:`WorkerError` naming the worker
(its pid, and its exit code once it has exited): an exception raised in the
worker (its type, message and traceback), or a worker that died or whose pipe
broke, on send as on receive (``died=True``; never a raw ``BrokenPipeError``
or ``EOFError``). A user of the protocol that sends one command to several
workers reads every answer before raising (:func:`first_error` picks the
error to raise), so that no answer is left in a pipe for the next command.

A step answered through shared memory (``envs.vector.ProcessBatchedEnv`` and
the training bridge): the worker writes its arrays into memory shared with the
parent, sets its :func:`status_word` (1: a message waits in the pipe: what
could not go into the arrays, or an error) and releases a semaphore of its own
(:func:`answer_step`, the ``replied`` hook of :func:`serve`); the parent waits
for it with :func:`await_answer`. A pipe message or a POSIX semaphore lies
between every write of the shared memory and the other process's read of it,
and both order memory on every CPU. Both sides poll for up to ``spin_s``
seconds before they block (:func:`default_spin`).
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Mapping, Sequence

from envs.core.inputs import first_line

Commands = Mapping[str, Callable[[Any, Any], Any]]

#: How long the parent waits for a worker that has just died to be reaped (for its exit code).
REAP_WAIT_S = 1.0
#: How long (s) a process polls for the next message before it blocks, by default (:func:`default_spin`).
SPIN_S = 0.005
#: While blocked on a step's answer, how often (s) the worker is looked at (a dead one is an error).
ANSWER_CHECK_S = 0.05


class WorkerError(RuntimeError):
    """A worker process failed.

    Either it raised (``remote_type`` and ``remote_message`` name the
    exception; the message also carries its traceback; the worker still runs)
    or it is gone (``died=True``: it exited or was killed, or the pipe to it
    broke). ``label`` names the kind of worker, ``pid`` which one, and
    ``exitcode`` its exit status once known (negative: killed by that signal).
    """

    def __init__(self, message: str, *, label: str | None = None, pid: int | None = None,
                 exitcode: int | None = None, died: bool = False, remote_type: str | None = None,
                 remote_message: str | None = None):
        super().__init__(message)
        self.label, self.pid, self.exitcode, self.died = label, pid, exitcode, died
        self.remote_type, self.remote_message = remote_type, remote_message


def dispatch(commands: Commands, obj: Any, cmd: str, data: Any) -> Any:
    """Apply ``commands[cmd](obj, data)``; an unknown command is a ValueError naming the known ones."""
    handler = commands.get(cmd)
    if handler is None:
        raise ValueError(f"unknown command {cmd!r}; known: {sorted(commands)}")
    return handler(obj, data)


def _error_reply(e: BaseException) -> tuple[str, tuple[str, str, str]]:
    return ("error", (type(e).__name__, str(e), traceback.format_exc()))


def wait_briefly(conn, seconds: float) -> bool:
    """Poll ``conn`` without sleeping for up to ``seconds`` (True: something to read).
    For a worker in a tight loop of short steps: waking from a blocking read costs
    a step on a virtual machine what a few polls do not."""
    poll, clock = conn.poll, time.perf_counter
    end = clock() + seconds
    while not poll():
        if clock() > end:
            return False
    return True


#: What a command returns when it has answered by other means than the pipe (:func:`serve` sends nothing).
ANSWERED = object()


def serve(conn, build: Callable[[], Any], commands: Commands, hello: Callable[[Any], Any] = lambda obj: None,
          spin_s: float = 0.0, replied: Callable[[str, Any, bool], None] | None = None) -> None:
    """A worker's loop: build the object (answering ``hello(obj)``, or the
    error), then answer commands until ``close`` (which also runs
    ``commands["close"]``) or until the parent goes away (then it returns
    quietly). Ctrl-C is ignored: the parent decides and closes the worker.
    A command that returns :data:`ANSWERED` gets no message on the pipe (it
    answered through memory shared with the parent); ``replied(cmd, obj, sent)``,
    if given, runs after every command, ``sent`` saying whether a message (its
    result or its error) went on the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        try:
            obj = build()
            conn.send(("ok", hello(obj)))
        except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
            conn.send(_error_reply(e))
            return
        while True:
            try:
                if spin_s:
                    wait_briefly(conn, spin_s)
                cmd, data = conn.recv()
            except EOFError:
                return
            try:
                result = dispatch(commands, obj, cmd, data)
                sent = result is not ANSWERED
                if sent:
                    conn.send(("ok", result))
            except BaseException as e:  # noqa: BLE001
                conn.send(_error_reply(e))
                sent = True
            if replied is not None:
                replied(cmd, obj, sent)
            if cmd == "close":
                return
    except OSError:  # the parent went away while we answered
        return


def exit_status(proc, wait: float = REAP_WAIT_S) -> str:
    """``"exit code N"`` of a worker that has exited (waiting up to ``wait``
    seconds for it to be reaped), with the signal's name when it was killed;
    ``"still running"`` otherwise."""
    if proc.exitcode is None and wait > 0:
        proc.join(wait)
    code = proc.exitcode
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"exit code {code}, killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"exit code {code}, killed by signal {-code}"
    return f"exit code {code}"


def check_timeout(timeout_s: Any) -> float | None:
    """``timeout_s`` of a worker-backed env: None (wait as long as it takes) or seconds > 0."""
    if timeout_s is None:
        return None
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s < float("inf"):
        raise ValueError(f"timeout_s={timeout_s!r} is not allowed; allowed: None (no limit) or a number of "
                         f"seconds > 0")
    return float(timeout_s)


def stuck(proc, label: str, timeout_s: float) -> WorkerError:
    """A worker still running that has not answered within ``timeout_s``: it is stopped (killed and
    reaped, so no late answer can reach a pipe the parent reads again) and reported like a worker
    that died (``died=True``: its env is broken until rebuilt)."""
    proc.kill()
    status = exit_status(proc)
    return WorkerError(f"{label} {proc.pid} did not answer within {timeout_s:g} s (stuck, or slower than the "
                       f"timeout allows); it was stopped ({status})", label=label, pid=proc.pid,
                       exitcode=proc.exitcode, died=True)


def _died(proc, label: str, what: str, cause: BaseException) -> WorkerError:
    status = exit_status(proc)
    if proc.exitcode is not None:
        message = f"{label} {proc.pid} died ({status}) {what}"
    else:
        message = f"the pipe to {label} {proc.pid} broke ({status}: {type(cause).__name__}: {cause}) {what}"
    return WorkerError(message, label=label, pid=proc.pid, exitcode=proc.exitcode, died=True)


def send(conn, proc, label: str, cmd: str, data: Any = None) -> None:
    """Send ``(cmd, data)`` to the worker ``proc`` behind ``conn``; a broken
    pipe is a :class:`WorkerError` (``died=True``) with its pid and exit code.
    (Data that cannot be pickled raises before anything is written.)"""
    try:
        conn.send((cmd, data))
    except OSError as e:  # BrokenPipeError, ConnectionResetError, a closed handle
        raise _died(proc, label, f"before it could be sent {cmd!r}", e) from e


def receive(conn, proc, label: str, timeout_s: float | None = None) -> Any:
    """One answer from the worker ``proc`` behind ``conn``: its result, or a
    :class:`WorkerError` (``label`` names the kind of worker in the message):
    the worker's exception, or its death (``died=True``) with its pid and exit code.
    ``timeout_s``: a worker that has not answered by then is stopped (:func:`stuck`)."""
    try:
        if timeout_s is not None and not conn.poll(timeout_s):
            raise stuck(proc, label, timeout_s)
        status, payload = conn.recv()
    except (EOFError, OSError) as e:
        raise _died(proc, label, "before it answered", e) from e
    if status != "ok":
        kind, message, tb = payload
        raise WorkerError(f"in {label} {proc.pid}: {kind}: {message}\n{tb}", label=label, pid=proc.pid,
                          remote_type=kind, remote_message=message)
    return payload


#: Every live :class:`Remote` of this process (see :func:`_forget_inherited_workers`).
_REMOTES: "weakref.WeakSet[Remote]" = weakref.WeakSet()


def _forget_inherited_workers() -> None:
    """In the child of an ``os.fork()``: the parent's workers are not this process's. Python's
    ``multiprocessing`` still counted them as its children, and at the child's exit terminated them
    (daemonic children are ended at exit): the parent's env lost its workers. (A process started by
    ``multiprocessing`` itself forgets them already.)"""
    try:
        from multiprocessing import process

        children = process._children  # the set multiprocessing's exit handler terminates
    except (ImportError, AttributeError):  # pragma: no cover - another Python's layout
        return
    for r in list(_REMOTES):
        children.discard(getattr(r.proc, "_popen", None))  # (Python <= 3.11 holds the Popen...)
        children.discard(r.proc)  # (...later ones the Process)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_workers)


class Remote:
    """The parent's end of one worker process: ``target(conn, *args)`` runs
    in a new process of ``ctx`` (its end of the pipe is closed here, so that
    its death is seen as the end of the pipe). It belongs to the process that
    made it (``owner_pid``): the child of an ``os.fork()`` inherits the pipe, but
    :func:`stop_workers` there only drops its copy (the workers are the parent's),
    and the envs built on it refuse to be used there (:func:`refuse_if_unusable`)."""

    def __init__(self, ctx, target: Callable[..., None], args: tuple, label: str, timeout_s: float | None = None):
        self.label = label
        self.owner_pid = os.getpid()
        self.timeout_s = timeout_s  # how long an answer may take (None: no limit; see receive)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=target, args=(child, *args), daemon=True)
        try:
            self.proc.start()
        finally:
            child.close()
        _REMOTES.add(self)

    def send(self, cmd: str, data: Any = None) -> None:
        send(self.conn, self.proc, self.label, cmd, data)

    def recv(self) -> Any:
        return receive(self.conn, self.proc, self.label, self.timeout_s)

    def call(self, cmd: str, data: Any = None) -> Any:
        self.send(cmd, data)
        return self.recv()


def refuse_copy(owner: str, instead: str) -> TypeError:
    """The error of ``copy``/``deepcopy``/``pickle`` of an object that holds worker processes and
    pipes, raised before anything is copied: a half-built copy held duplicates of the original's
    pipe connections, and when they were collected they closed the original's pipes, so its
    workers ended and its ``close`` failed (``pickle`` said only "Pickling an AuthenticationString
    object is disallowed")."""
    return TypeError(f"a {owner} holds worker processes and pipes: it cannot be copied or pickled; {instead}")


def stop_workers(remotes: Iterable[Remote], timeout: float = 5.0) -> None:
    """Close workers and make sure their processes are gone (and reaped);
    always returns, within about ``timeout`` + 2 seconds. Each live worker is
    sent ``close``; whatever it still sends (answers to earlier commands, the
    close answer) is read and dropped until its pipe ends or the time is up;
    a worker still running then is terminated, then killed. Workers of another process (this
    one is the child of an ``os.fork()`` of their owner) are left running: only this process's
    copy of their pipe is closed."""
    remotes = list(remotes)
    here = os.getpid()
    for r in [r for r in remotes if getattr(r, "owner_pid", here) != here]:
        try:
            r.conn.close()
        except OSError:
            pass
    remotes = [r for r in remotes if getattr(r, "owner_pid", here) == here]
    for r in remotes:
        if r.proc.exitcode is None:
            try:
                r.conn.send(("close", None))
            except OSError:
                pass
    deadline = time.monotonic() + timeout
    for r in remotes:
        try:
            while r.conn.poll(max(0.0, deadline - time.monotonic())):
                r.conn.recv()
        except Exception:  # noqa: BLE001 - EOF (it exited), a broken pipe, an unreadable answer
            pass
    for r in remotes:
        r.proc.join(max(0.0, deadline - time.monotonic()))
    for stop in ("terminate", "kill"):
        left = [r for r in remotes if r.proc.exitcode is None]
        for r in left:
            getattr(r.proc, stop)()
        for r in left:
            r.proc.join(1.0)
    for r in remotes:
        try:
            r.conn.close()
        except OSError:  # closed already (its descriptor gone): nothing left to close
            pass


def _add_note(error: BaseException, note: str) -> None:
    """``error.add_note(note)``, also on Python 3.10, which has no ``add_note`` (it had raised an
    ``AttributeError`` in place of the workers' errors, before the env was marked broken)."""
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:  # Python 3.10
        error.__notes__ = [*getattr(error, "__notes__", []), note]


def first_error(errors: Sequence[BaseException]) -> BaseException:
    """The error to raise for one command sent to several workers: an
    interruption (``KeyboardInterrupt``, ``SystemExit``) if any, else the first
    death (``WorkerError.died``), else the first error; the others are added
    to it as notes."""
    first = next((e for e in errors if not isinstance(e, Exception)), None) \
        or next((e for e in errors if isinstance(e, WorkerError) and e.died), errors[0])
    for e in errors:
        if e is not first:
            _add_note(first, f"also: {type(e).__name__}: {first_line(e)}")
    return first


BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


_BLAS_LOCK = threading.Lock()
_BLAS_HELD: dict[str, Any] = {"blocks": 0, "saved": {}}


@contextmanager
def one_blas_thread():
    """Within the block (while worker processes are spawned, which inherit the
    environment), set the BLAS thread counts to 1; restore them after.
    Multi-threaded BLAS in several processes on few cores spins and slows
    everything down. The environment is the whole process's: blocks of several
    threads at once share one setting, and the values from before the first
    block come back when the last one ends (a block that ended while another
    ran had left the other's 1s behind for good)."""
    with _BLAS_LOCK:
        if _BLAS_HELD["blocks"] == 0:
            _BLAS_HELD["saved"] = {k: os.environ.get(k) for k in BLAS_THREAD_VARS}
            os.environ.update({k: "1" for k in BLAS_THREAD_VARS})
        _BLAS_HELD["blocks"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_HELD["blocks"] -= 1
            if _BLAS_HELD["blocks"] == 0:
                for k, v in _BLAS_HELD["saved"].items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v


@contextmanager
def exit_on_sigterm():
    """Within the block, SIGTERM (and SIGHUP) raise ``SystemExit(128 + signal)`` in this process
    instead of ending it at once, so that the ``with`` blocks around it run: a
    ``multiprocessing`` pool is terminated rather than left running its workers' long tasks,
    orphaned. Only where this is the main thread and the signal still has its default handler
    (a handler of the caller's is kept); restored after."""
    import threading

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    saved = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
                saved[sig] = signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


def die_with_parent() -> None:
    """For a worker process (a pool's ``initializer``): on Linux, ask the kernel to send it SIGTERM
    when its parent ends, however the parent ends (SIGKILL included); elsewhere nothing."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent ended before the request: end now
        os._exit(128 + signal.SIGTERM)


def default_spin(spin_s: float | None, processes: int) -> float:
    """``spin_s`` checked, or the default: :data:`SPIN_S` when each of ``processes`` has a
    core of its own (this process's CPU affinity), else 0 (a process that polls would take a
    core another one needs). Waking from a blocking read cost a step of 64 games 10% on this
    project's virtual machine."""
    if spin_s is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return SPIN_S if processes <= cores else 0.0
    if isinstance(spin_s, bool) or not isinstance(spin_s, (int, float)) or not 0 <= spin_s <= 1:
        raise ValueError(f"spin_s must be a number of seconds from 0 to 1 (0: always block), got {spin_s!r}")
    return float(spin_s)


def shared_buffers(ctx, rows: int, layout: Mapping[str, tuple], sizes: Mapping[str, int], workers: int) -> dict:
    """Shared memory for ``rows`` rows of every array of ``layout`` (name -> ``(dtype, dims)``:
    the dims after the row axis, each a key of ``sizes``): one ``RawArray`` of bytes each, made by
    ``ctx`` and handed to the workers when they start; and ``status``: one word per worker
    (:func:`status_word`)."""
    import numpy as np

    buffers = {name: ctx.RawArray("b", rows * int(np.prod([sizes[k] for k in dims], dtype=np.int64))
                                  * np.dtype(dt).itemsize)
               for name, (dt, dims) in layout.items()}
    buffers["status"] = ctx.RawArray("b", 8 * workers)
    return buffers


def shared_arrays(buffers: Mapping[str, Any], layout: Mapping[str, tuple], sizes: Mapping[str, int]) -> dict:
    """numpy views of every array of ``layout`` over ``buffers`` (:func:`shared_buffers`), the row
    axis first."""
    import numpy as np

    return {name: np.frombuffer(buffers[name], dtype=dt).reshape(-1, *(sizes[k] for k in dims))
            for name, (dt, dims) in layout.items()}


def status_word(buffer, k: int):
    """Worker ``k``'s status word: a one-element ``int64`` view of ``buffer`` (a shared
    ``RawArray`` of 8 bytes per worker)."""
    import numpy as np

    return np.frombuffer(buffer, dtype=np.int64)[k:k + 1]


def answer_step(status, done, sent: bool) -> None:
    """A worker has written its step's answer into the shared memory: say in ``status``
    whether the parent must also read the pipe (``sent``: a message went there), then release
    the parent (the semaphore ``done``)."""
    status[0] = int(sent)
    done.release()


def await_answer(done, proc, spin_s: float, label: str, clock=time.perf_counter,
                 timeout_s: float | None = None) -> None:
    """Wait until the worker ``proc`` releases ``done`` (its step's answer is written):
    poll for up to ``spin_s`` seconds, then block, looking every :data:`ANSWER_CHECK_S`
    whether the worker died (a :class:`WorkerError`, ``died=True``, with its exit code)
    or, with ``timeout_s``, has taken longer than that (it is stopped: :func:`stuck`)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    if spin_s:
        end = clock() + spin_s
        acquire = done.acquire
        while not acquire(False):
            if clock() > end:
                break
        else:
            return
    while not done.acquire(True, ANSWER_CHECK_S):
        if proc.exitcode is not None:
            raise _died(proc, label, "before it answered", EOFError("no answer"))
        if deadline is not None and time.monotonic() > deadline:
            raise stuck(proc, label, timeout_s)


def read_answer(remote: "Remote", cmd: str, signal: tuple, spin_s: float) -> Any:
    """``remote``'s answer to ``cmd``. A step answered through shared memory (``signal``: the
    worker's ``(semaphore, status word)``): ``{}`` once the semaphore is released with nothing in the
    pipe, else the pipe's message (what went whole, or the error). Any other command: the pipe's
    answer, polled for up to ``spin_s`` seconds before blocking."""
    if cmd == "step":
        done, status = signal
        await_answer(done, remote.proc, spin_s, remote.label, timeout_s=remote.timeout_s)
        if not status[0]:
            return {}
    elif spin_s:
        wait_briefly(remote.conn, spin_s)
    return remote.recv()


def refuse_if_unusable(owner: str, closed: bool, broken: "WorkerError | None", owner_pid: int | None = None) -> None:
    """Raise if a worker-backed env may not be used: closed (``RuntimeError``), in another process
    than the one that built it (``owner_pid``: the child of an ``os.fork()``, whose steps drove the
    parent's workers and shared arrays under it; ``RuntimeError``) or broken by a dead worker (a
    ``WorkerError`` naming it, until the env is rebuilt)."""
    if closed:
        raise RuntimeError(f"this {owner} is closed; build a new one")
    if owner_pid is not None and owner_pid != os.getpid():
        raise RuntimeError(f"this {owner} was built in process {owner_pid}, and its worker processes and pipes are "
                           f"that process's; this is process {os.getpid()} (a fork of it): build a new {owner} here")
    if broken is not None:
        b = broken
        raise WorkerError(f"this {owner} is broken: {first_line(b)}; close() it and build a new one",
                          label=b.label, pid=b.pid, exitcode=b.exitcode, died=True) from b
