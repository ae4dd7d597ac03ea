"""Run a notebook's code cells as one student: her numbers, the hand checks' records, her scope.

The teacher's own code (solutions, read-only cells and tests, hidden lines included, in order),
in the grader's process: the release check runs it as sample students
(:mod:`attention_grader.batch.variant_family`), grading as each classmate, once per grading run
(:mod:`attention_grader.checking.classmate_table`).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import warnings

import numpy as np
from nbformat import NotebookNode

from attention_grader.wire.cell_code import python_code
from attention_lab import variants
from attention_lab.checks._base import Diagnosed, audited
from attention_lab.variants import StudentSeed

__all__ = ["Checked", "code_cells", "run_as"]


def code_cells(nb: NotebookNode) -> list[tuple[str, str]]:
    """Return ``(grade_id or "cell i", code)`` of every code cell, in order."""
    return [
        (c.metadata.get("nbgrader", {}).get("grade_id") or f"cell {i}", c.source)
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
    ]


#: One hand check's record and the grade_id (or "cell i") of the cell that made it.
Checked = tuple[str, Diagnosed]


def run_as(
    cells: list[tuple[str, str]], seed: StudentSeed
) -> tuple[str | None, list[Checked], dict[str, object]]:
    """Run every code cell as ``seed``'s student.

    Returns the failure (or None), the hand checks' records (each with its cell) and the
    namespace the cells left.
    """
    checked: list[Checked] = []
    scope: dict[str, object] = {"__name__": "__main__", "__builtins__": builtins}
    with (
        audited() as found,
        variants.graded_as(seed),
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        warnings.catch_warnings(),
        np.errstate(all="ignore"),
    ):
        warnings.simplefilter("ignore")
        for grade_id, source in cells:
            try:
                exec(compile(python_code(source), grade_id, "exec"), scope)  # noqa: S102 -- the teacher's
            except Exception as exc:  # noqa: BLE001 -- reported as the refusal's cause
                checked += [(grade_id, r) for r in found[len(checked) :]]
                return f"{grade_id}: {type(exc).__name__}: {str(exc)[:200]}", checked, scope
            checked += [(grade_id, r) for r in found[len(checked) :]]
    return None, checked, scope
