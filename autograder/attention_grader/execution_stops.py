"""What a notebook records when grading stopped early: why, and an error in each cell not run.

:class:`~attention_grader.execute.GradingExecute` stops a notebook when its kernel dies, stops
answering or the notebook's time budget runs out; :func:`mark_not_run` gives every code cell it
did not reach an error output (so its tests score 0), and :func:`execution_flags` reads back
how the notebook stopped. :func:`cell_label` names a cell in the grader's flags.
"""

from __future__ import annotations

from nbformat import NotebookNode

from .summary import GRADER_METADATA

__all__ = [
    "KERNEL_DIED",
    "KERNEL_UNRESPONSIVE",
    "NOTEBOOK_TIMEOUT",
    "cell_label",
    "execution_flags",
    "mark_not_run",
    "runs_code",
]

#: Error names written into test cells that could not run; SaveAutoGrades gives them 0 points.
KERNEL_DIED = "KernelDied"
KERNEL_UNRESPONSIVE = "KernelUnresponsive"
NOTEBOOK_TIMEOUT = "NotebookTimeout"


def cell_label(cell, index: int) -> str:
    """The cell's nbgrader ``grade_id``, else ``"cell N"`` (1-based), for flags and logs."""
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index + 1}"


def execution_flags(nb) -> list[tuple[str, str]]:
    """``(kind, detail)`` for how :class:`~attention_grader.execute.GradingExecute` stopped ``nb`` early, if it did."""
    stopped = nb.metadata.get(GRADER_METADATA, {}).get("execution", {}).get("stopped")
    return {
        KERNEL_DIED: [("exit", "the kernel exited or was killed; the tests after it scored 0")],
        KERNEL_UNRESPONSIVE: [
            ("timeout", "the kernel stopped responding; the tests after it scored 0")
        ],
        NOTEBOOK_TIMEOUT: [
            ("timeout", "the notebook ran out of time; the tests after it scored 0")
        ],
    }.get(stopped, [])


def runs_code(cell) -> bool:
    """True for a code cell with something to run."""
    return cell.cell_type == "code" and bool(cell.source.strip())


def mark_not_run(cell, kind: str, index: int) -> None:
    """Give a code cell that never ran an error output, so its tests score 0."""
    if not runs_code(cell):
        return
    if kind == KERNEL_DIED:
        text = f"the kernel died or exited (at cell {index}); this cell did not run"
    elif kind == KERNEL_UNRESPONSIVE:
        text = f"the kernel stopped responding (at cell {index}); this cell did not run"
    else:
        text = "the notebook's time budget ran out; this cell did not run"
    cell.outputs = [
        NotebookNode(output_type="error", ename=kind, evalue=text, traceback=[f"{kind}: {text}"])
    ]
