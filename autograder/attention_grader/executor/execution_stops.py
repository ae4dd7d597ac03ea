"""What a notebook records when grading stopped early: why, and an error in each cell not run.

:class:`~attention_grader.executor.execute.GradingExecute` stops a notebook when its kernel dies, stops
answering or the notebook's time budget runs out; :func:`mark_not_run` gives every code cell it
did not reach an error output (so its tests score 0), and :func:`execution_flags` reads back
how the notebook stopped. :func:`cell_label` names a cell in the grader's flags. The executor
keeps where it stopped, and the notebook's deadline, in a :class:`StopState`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from time import monotonic
from typing import Any

import nbformat
from nbformat import NotebookNode

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import CELL_TIMEOUT, EXIT, GRADER_METADATA, TIMEOUT, Flag
from attention_grader.common.flags import GRADING_BUDGET as BUDGET_FLAG

__all__ = [
    "GRADING_BUDGET",
    "KERNEL_DIED",
    "KERNEL_UNRESPONSIVE",
    "NOTEBOOK_TIMEOUT",
    "Stop",
    "StopState",
    "cell_label",
    "execution_flags",
    "mark_not_run",
    "runs_code",
    "stop_at_budget",
]

#: Error names written into test cells that could not run; SaveAutoGrades gives them 0 points.
KERNEL_DIED = "KernelDied"
KERNEL_UNRESPONSIVE = "KernelUnresponsive"
NOTEBOOK_TIMEOUT = "NotebookTimeout"
#: The grader's own budget for the submission ran out (see :mod:`attention_grader.executor.budget`).
GRADING_BUDGET = "GradingBudget"


@dataclass(frozen=True)
class Stop:
    """Why and where grading stopped a notebook.

    Parameters
    ----------
    kind : str
        One of the error names above (:data:`KERNEL_DIED` ...).
    cell : int
        The index of the cell it stopped at (-1: before the first).
    """

    kind: str
    cell: int

    def record(self, nb: NotebookNode, name: str) -> list[Flag]:
        """Write the stop into ``nb``'s metadata; return its flags (``name`` names ``nb``)."""
        nb.metadata.setdefault(GRADER_METADATA, {})["execution"] = {
            "stopped": self.kind,
            "cell": self.cell,
        }
        return [Flag(kind, f"{name}: {detail}") for kind, detail in execution_flags(nb)]


@dataclass
class StopState:
    """One notebook's deadline, and where grading stopped if it did.

    Parameters
    ----------
    deadline : float or None
        :func:`time.monotonic` time the notebook's cells must finish by (None: no limit).
    stopped : Stop or None
        Set once grading stops; every later code cell is then marked not run.
    """

    deadline: float | None
    stopped: Stop | None = None
    #: indexes of the cells that hit the per-cell time limit
    cell_timeouts: list[int] = field(default_factory=list)

    @classmethod
    def starting(cls, seconds: float) -> StopState:
        """Return the state of a notebook starting now with ``seconds`` to run (0 = no limit)."""
        return cls(monotonic() + seconds if seconds else None)

    def out_of_time(self) -> bool:
        """Tell whether the notebook's deadline has passed."""
        return self.deadline is not None and monotonic() > self.deadline

    def cell_timeout(self, timeout: int | None) -> int | None:
        """Return a cell's ``timeout`` (seconds, None = none) shortened to the time left."""
        if self.deadline is None:
            return timeout
        left = max(1, int(self.deadline - monotonic()) + 1)
        return left if timeout is None else min(timeout, left)

    def mark(self, cell: NotebookNode) -> None:
        """Give ``cell`` the error output of a cell grading did not run (after a stop)."""
        assert self.stopped is not None, "called after a stop"
        mark_not_run(cell, self.stopped.kind, self.stopped.cell)

    def stop(self, kind: str, index: int, log: logging.Logger) -> None:
        """Stop grading at cell ``index`` (-1: before any cell) for ``kind``'s reason."""
        self.stopped = Stop(kind, index)
        log.warning("Stopping execution at cell %s: %s", index, kind)

    def not_reached(self, cell: NotebookNode, index: int, log: logging.Logger) -> bool:
        """Tell whether grading stopped before ``cell`` (or the notebook's time ran out here).

        Such a cell is marked as not run.
        """
        if self.stopped is None and self.out_of_time() and runs_code(cell):
            self.stop(NOTEBOOK_TIMEOUT, index, log)
        if self.stopped is None:
            return False
        self.mark(cell)
        return True

    def flags(self, nb: NotebookNode, name: str) -> list[Flag]:
        """Record the stop in ``nb`` (its flag) and flag each cell over the per-cell limit."""
        flags = self.stopped.record(nb, name) if self.stopped else []
        for index in self.cell_timeouts:
            where = cell_label(nb.cells[index], index)
            flags.append(Flag(CELL_TIMEOUT, f"{name}/{where} hit the per-cell time limit"))
        return flags


def cell_label(cell: NotebookNode, index: int) -> str:
    """Return the cell's nbgrader ``grade_id``, else ``"cell N"`` (1-based), for flags and logs."""
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index + 1}"


def execution_flags(nb: NotebookNode) -> list[tuple[str, str]]:
    """``(kind, detail)`` for how :class:`~attention_grader.executor.execute.GradingExecute` stopped ``nb`` early, if it did."""
    execution = nb.metadata.get(GRADER_METADATA, {}).get("execution", {})
    stopped = execution.get("stopped")
    if stopped == GRADING_BUDGET:
        budget, where = execution.get("budget"), execution.get("where", "?")
        detail = f"grading took longer than its {budget} s budget (stopped at {where})"
        if execution.get("memory_mb"):
            memory = execution["memory_mb"]
            detail = f"grading needed more than the grader's {memory} MiB (stopped at {where})"
        return [(BUDGET_FLAG.id, f"{detail}; the tests from there on scored 0")]
    return {
        KERNEL_DIED: [(EXIT.id, "the kernel exited or was killed; the tests after it scored 0")],
        KERNEL_UNRESPONSIVE: [
            (TIMEOUT.id, "the kernel stopped responding; the tests after it scored 0")
        ],
        NOTEBOOK_TIMEOUT: [
            (TIMEOUT.id, "the notebook ran out of time; the tests after it scored 0")
        ],
    }.get(stopped, [])


def runs_code(cell: NotebookNode) -> bool:
    """Tell whether ``cell`` is a code cell with something to run."""
    return cell.cell_type == "code" and bool(cell.source.strip())


def mark_not_run(cell: NotebookNode, kind: str, index: int) -> None:
    """Give a code cell that never ran an error output, so its tests score 0."""
    if not runs_code(cell):
        return
    if kind == KERNEL_DIED:
        text = f"the kernel died or exited (at cell {index}); this cell did not run"
    elif kind == KERNEL_UNRESPONSIVE:
        text = f"the kernel stopped responding (at cell {index}); this cell did not run"
    elif kind == GRADING_BUDGET:
        text = f"the grader's time for this submission ran out (at cell {index}); not graded"
    else:
        text = "the notebook's time budget ran out; this cell did not run"
    cell.outputs = [
        NotebookNode(output_type="error", ename=kind, evalue=text, traceback=[f"{kind}: {text}"])
    ]


def stop_at_budget(
    nb: NotebookNode,
    finished: dict[int, dict[str, Any]],
    budget: float,
    name: str,
    memory_mb: int | None = None,
) -> NotebookNode:
    """``nb`` as far as grading got before its budget ran out, flagged ``grading_budget``.

    ``finished`` maps cell index -> the cell as graded (what the budget's child reported); every
    other code cell gets an error output (its tests score 0). ``memory_mb``: the grader's
    memory limit stopped it, not the clock.
    """
    first = next((i for i in range(len(nb.cells)) if i not in finished), len(nb.cells))
    for index, cell in enumerate(nb.cells):
        if index in finished:
            nb.cells[index] = nbformat.from_dict(finished[index])
        else:
            mark_not_run(cell, GRADING_BUDGET, first)
    where = cell_label(nb.cells[first], first) if first < len(nb.cells) else "the end"
    nb.metadata.setdefault(GRADER_METADATA, {})["execution"] = {
        "stopped": GRADING_BUDGET,
        "cell": first,
        "budget": budget,
        "where": where,
        **({"memory_mb": memory_mb} if memory_mb else {}),
    }
    record_flags(
        [Flag(kind, f"{name}: {detail}") for kind, detail in execution_flags(nb)], notebook=nb
    )
    return nb
