"""``make grade``'s watch: the parent kills a worker still on one submission past its budget.

The submission's budget (:mod:`attention_grader.executor.budget`) bounds the notebook's grading
inside a worker; the steps after it (output limits, saving grades, sanitising HTML) run in the
worker itself, so the parent watches each worker's claim on the submission it grades and kills
the worker, and every process under it, when the claim is older than the budget plus
``c.Batch.worker_grace`` (:mod:`attention_grader.steps.grade` then replaces the pool).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from types import TracebackType

__all__ = ["WorkerWatch"]


class WorkerWatch:
    """``make grade``'s parent kills a worker still on one submission past its budget.

    Each worker claims the submission it grades (:meth:`claim`: a file named by its pid in a
    folder of the run); the parent calls :meth:`enforce` while it waits, kills the worker (and
    every process under it) whose claim is older than ``seconds``, and remembers the student;
    the pool is then replaced and the rest of the class graded (:mod:`attention_grader.steps.grade`).

    Parameters
    ----------
    folder : str or Path
        A folder of this run (the workers' claims).
    seconds : float
        The submission's budget plus ``c.Batch.worker_grace``; 0 or less = no watch.
    """

    def __init__(self, folder: str | Path, seconds: float) -> None:
        self.folder = Path(folder) / "claims"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.seconds = seconds
        self.over: dict[str, float] = {}

    def claim(self, student: str) -> _Claim:
        """In the worker, around one submission: ``with watch.claim(student): ...``."""
        path = self.folder / str(os.getpid())
        path.write_text(student)
        return _Claim(path)

    def enforce(self) -> list[str]:
        """Kill the workers over the budget; return the students they were grading."""
        if self.seconds <= 0:
            return []
        killed = []
        now = time.time()
        for path in list(self.folder.iterdir()):
            try:
                age, student = now - path.stat().st_mtime, path.read_text()
            except FileNotFoundError:  # finished meanwhile
                continue
            if age > self.seconds:
                for pid in [*_descendants(int(path.name)), int(path.name)]:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                path.unlink(missing_ok=True)
                self.over[student] = age
                killed.append(student)
        return killed


class _Claim(contextlib.AbstractContextManager["_Claim"]):
    def __init__(self, path: Path) -> None:
        self.path = path

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.path.unlink(missing_ok=True)
        return None


def _descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (from /proc), deepest last."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out
