"""The grading budget: one notebook's grading runs in a child process that a deadline kills.

The kernel's time limits (per cell, per notebook) bound the *student's* code; the grader's own
work on a submission (decoding answers, running the checks on them) runs in the grader's
process, where no kernel limit applies, and a hostile answer can make that work slow (a set
whose items all share one hash). nbgrader runs its preprocessors in its own process, one
submission after another, so a grader stuck there holds the whole class.

:func:`run_within` forks the process that grades (``nbgrader autograde`` itself, or a
``make grade`` worker), runs one notebook's execution and checks in the child, and waits for it
with a wall-clock deadline. The child reports each cell as it finishes; when the deadline
passes the parent kills the child and its kernel and keeps the cells that were reported: the
caller scores the rest 0 and flags the submission ``grading_budget``
(:class:`~attention_grader.executor.execute.GradingExecute` does both). Nothing runs in the parent but
waiting, so nothing the student sent can stop the parent.

Why ``fork``: the child starts in microseconds with nbgrader already imported and the
preprocessor already configured. It is safe because the parent never starts a kernel itself
(no ZeroMQ socket or event loop crosses the fork) and the graders that call it are
single-threaded.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from time import monotonic
from typing import Any, Generic, NoReturn, TypeVar

__all__ = [
    "BudgetOutcome",
    "ForkedAhead",
    "GraderCrashed",
    "Reporter",
    "data_bytes",
    "limit_memory",
    "run_within",
]


_T = TypeVar("_T")
_S = TypeVar("_S")


class GraderCrashed(RuntimeError):
    """The child grading a notebook died before it finished (not the kernel: the grader)."""


@dataclass
class BudgetOutcome(Generic[_T]):
    """What the child sent back.

    Attributes
    ----------
    result : object or None
        What ``work`` returned, or None when the deadline passed first.
    cells : dict of int to dict
        Cells the child reported as finished, by index (all that is left when it was killed).
    seconds : float
        Wall-clock time the child ran.
    out_of_memory : bool
        The child stopped on a ``MemoryError`` (its memory limit): ``result`` is None, as past
        the deadline, and ``cells`` are those it finished.
    """

    result: _T | None = None
    cells: dict[int, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0
    out_of_memory: bool = False

    @property
    def over_budget(self) -> bool:
        return self.result is None


class Reporter:
    """The child's end of the pipe: ``cell(index, cell)`` as each cell finishes, ``kernel(pid)``."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def cell(self, index: int, cell: dict[str, Any]) -> None:
        self._conn.send(("cell", index, cell))

    def kernel(self, pid: int | None) -> None:
        if pid:
            self._conn.send(("kernel", pid))

    def log(self, level: int, text: str) -> None:
        self._conn.send(("log", level, text))


class _ForwardLog(logging.Handler):
    """In the child: the grader's log records go to the parent, whose log handlers keep them."""

    def __init__(self, reporter: Reporter):
        super().__init__()
        self.reporter = reporter

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.reporter.log(record.levelno, record.getMessage())


def _child(
    work: Callable[[Reporter], object], conn: Connection, logger: logging.Logger | None
) -> None:
    reporter = _child_reporter(conn, logger)
    _answer(lambda: work(reporter), conn)


def _child_reporter(conn: Connection, logger: logging.Logger | None) -> Reporter:
    reporter = Reporter(conn)
    if logger is not None:  # its handlers write to the parent's buffers: replace them
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.addHandler(_ForwardLog(reporter))
        logger.propagate = False
    return reporter


def _answer(run: Callable[[], object], conn: Connection) -> None:
    """Send what ``run()`` returned or raised to the parent, then leave at once."""
    try:
        result = run()
    except BaseException as exc:  # noqa: BLE001 -- re-raised in the parent
        try:
            conn.send(("raised", pickle.dumps(exc)))
        except Exception:  # noqa: BLE001 -- an exception that does not pickle
            conn.send(("raised", pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))))
    else:
        conn.send(("done", result))
    finally:
        _leave(conn)


def _leave(conn: Connection) -> NoReturn:
    conn.close()
    # Leave at once: a thread the kernel client left behind would hold a normal exit (and
    # the parent's join) for seconds, and this copy of the grader has nothing to clean up.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def limit_memory(megabytes: int) -> None:
    """Let this process's data grow by at most ``megabytes`` MiB from now (0 = no cap).

    Data is what ``RLIMIT_DATA`` counts: heap and private mappings. Called in the budget's
    child, so a submission whose answers grow the grader (half a million stand-in classes)
    gets a ``MemoryError`` there, never the parent or the class. The cap counts from what the child holds when it is set: a forked child shares its
    parent's heap, and a long-lived parent (the formgrader's server, a test process) may
    already hold more than the limit, which would leave the child nothing at all.
    """
    if megabytes <= 0:
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = data_bytes() + megabytes * 2**20
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))


def data_bytes() -> int:
    """Return what ``RLIMIT_DATA`` counts of this process now, in bytes (0: not known).

    Read from ``VmData`` in /proc/self/status.
    """
    try:
        with open("/proc/self/status") as fh:
            for row in fh:
                if row.startswith("VmData:"):
                    return int(row.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _kill(proc: BaseProcess, kernels: list[int]) -> None:
    """Kill the child, then its kernel's process group (a kernel outside bubblewrap outlives it)."""
    with contextlib.suppress(ProcessLookupError, OSError):
        proc.kill()
    proc.join(10)
    for pid in kernels:
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, signal.SIGKILL)


class ForkedAhead(Generic[_S]):
    """A budget child forked before its work exists: it prepares, then waits for the work.

    ``prepare(reporter)`` runs in the child at once (it starts the submission's kernel while the
    parent still sanitises her notebook); ``finish(state, payload, reporter)`` runs there once
    :func:`run_within` hands it ``payload``; ``stop(state)`` runs there instead when the work
    never comes (:meth:`stop`, or the parent gone). A child that could not prepare, or died,
    is never handed the work: :func:`run_within` forks a fresh child instead.
    """

    def __init__(
        self,
        prepare: Callable[[Reporter], _S],
        finish: Callable[[_S, Any, Reporter], object],
        stop: Callable[[_S], None],
        logger: logging.Logger | None = None,
    ) -> None:
        ctx = multiprocessing.get_context("fork")
        self.receive, send = ctx.Pipe(duplex=False)
        inbox, self._send = ctx.Pipe(duplex=False)
        steps = (prepare, finish, stop)
        self.proc = ctx.Process(target=_ahead_child, args=(steps, send, inbox, logger), daemon=True)
        self.proc.start()
        send.close()
        inbox.close()
        self.logger = logger
        self.kernels: list[int] = []

    def go(self, payload: Any, seconds: float) -> bool:
        """Hand the child its work; whether it took it within ``seconds`` (else it is stopped).

        The work is sent only once the child says it is ready: a child stuck preparing never
        holds the parent on a full pipe.
        """
        deadline = monotonic() + seconds
        if self._wait_for("ready", deadline):
            with contextlib.suppress(OSError, ValueError):  # it died meanwhile: False below
                self._send.send(("go", payload))
                if self._wait_for("started", deadline):
                    return True
        self.stop()
        return False

    def _wait_for(self, word: str, deadline: float) -> bool:
        """Wait for the child's ``word``, keeping its kernel pids and logs; False if it failed."""
        while (left := deadline - monotonic()) > 0 and self.receive.poll(left):
            try:
                message = self.receive.recv()
            except EOFError:
                return False
            if message[0] == word:
                return True
            if message[0] == "kernel":
                self.kernels.append(int(message[1]))
            elif message[0] == "log" and self.logger is not None:
                self.logger.log(message[1], "%s", message[2])
            elif message[0] == "unready":  # it could not prepare: a fresh child will say why
                return False
        return False

    def stop(self) -> None:
        """End the child and what it prepared, if its work never came."""
        with contextlib.suppress(OSError, ValueError):
            self._send.send(("stop", None))
        self.proc.join(10)
        if self.proc.is_alive():
            _kill(self.proc, self.kernels)
        for conn in (self._send, self.receive):
            conn.close()


def _ahead_child(
    steps: tuple[Callable[..., Any], ...],
    conn: Connection,
    inbox: Connection,
    logger: logging.Logger | None,
) -> None:
    prepare, finish, stop = steps
    reporter = _child_reporter(conn, logger)
    try:
        state = prepare(reporter)
    except BaseException as exc:  # noqa: BLE001 -- the parent forks a fresh child instead
        with contextlib.suppress(Exception):
            conn.send(("unready", f"{type(exc).__name__}: {exc}"))
        _leave(conn)
    conn.send(("ready",))
    try:
        kind, payload = inbox.recv()
    except (EOFError, OSError):  # the parent is gone
        kind, payload = "stop", None
    inbox.close()
    if kind != "go":
        with contextlib.suppress(BaseException):
            stop(state)
        _leave(conn)
    conn.send(("started",))
    _answer(lambda: finish(state, payload, reporter), conn)


def run_within(  # noqa: C901 -- one process lifecycle: start, watch, kill, reap, report
    seconds: float,
    work: Callable[[Reporter], _T],
    logger: logging.Logger | None = None,
    ahead: ForkedAhead[Any] | None = None,
    payload: Any = None,
) -> BudgetOutcome[_T]:
    """Run ``work(reporter)`` in a forked child; kill it after ``seconds`` of wall-clock time.

    What the child logs on ``logger`` is logged on it here, in the parent. With ``ahead``, the
    child forked ahead is handed ``payload`` instead (its ``finish`` is the work); if it cannot
    take it, ``work`` runs in a fresh child as without.

    Returns
    -------
    BudgetOutcome
        ``result`` is what ``work`` returned (it must pickle), or None past the deadline.

    Raises
    ------
    Exception
        Whatever ``work`` raised, raised again here.
    GraderCrashed
        When the child died without an answer (a crash in the grader, not in the kernel).
    """
    start = monotonic()
    deadline = start + max(0.0, seconds)
    kernels: list[int] = []
    if ahead is not None and ahead.go(payload, max(0.0, seconds)):
        proc, receive, kernels = ahead.proc, ahead.receive, ahead.kernels
    else:
        ctx = multiprocessing.get_context("fork")
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(work, send, logger), daemon=True)
        proc.start()
        send.close()
    outcome: BudgetOutcome[_T] = BudgetOutcome()
    try:
        while True:
            left = deadline - monotonic()
            if left <= 0 or not receive.poll(min(left, 5.0)):
                if left <= 0:
                    _kill(proc, kernels)
                    break
                continue
            try:
                message = receive.recv()
            except EOFError:
                proc.join(10)
                raise GraderCrashed(
                    f"the grading process stopped (exit code {proc.exitcode}) before it finished"
                ) from None
            if message[0] == "cell":
                outcome.cells[message[1]] = message[2]
            elif message[0] == "kernel":
                kernels.append(int(message[1]))
            elif message[0] == "log":
                if logger is not None:
                    logger.log(message[1], "%s", message[2])
            elif message[0] == "raised":
                proc.join(10)
                raised = pickle.loads(message[1])
                if isinstance(raised, MemoryError):  # the child's memory limit: a stop, kept
                    outcome.out_of_memory = True
                    break
                raise raised
            else:
                outcome.result = message[1]
                proc.join(10)
                break
    finally:
        receive.close()
        if proc.is_alive():
            _kill(proc, kernels)
        outcome.seconds = monotonic() - start
    return outcome
