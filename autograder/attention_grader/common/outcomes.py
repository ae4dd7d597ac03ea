"""What went wrong in an autograded notebook, cell by cell, read from its error outputs.

One reader for the batch summary (a one-line reason per submission), the feedback pages (a
plain-words explanation per cell) and the class report (timeouts and errors per student).
What it reads is written by grading:

* a student's own cell that raised: a plain IPython error output (``ename`` the exception's
  class, the traceback marks the failing line with ``---->``);
* a cell over the per-cell time limit: nbgrader's ``CellTimeoutError`` output (after the
  ``KeyboardInterrupt`` the interrupted kernel printed);
* a notebook the executor stopped: ``KernelDied``, ``KernelUnresponsive`` or ``NotebookTimeout``
  in every cell it did not run (:mod:`attention_grader.executor.execute`);
* a failed hidden test: ``Misconception`` (``evalue`` ``"[slug] name: message"``) or another
  check failure, in a test cell (:mod:`attention_grader.checking.trusted`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from attention_grader.common.safe_text import printable

__all__ = [
    "CellOutcome",
    "TIMEOUT_NAMES",
    "STOPPED_NAMES",
    "notebook_outcomes",
    "one_line_reason",
    "student_line",
    "submission_outcomes",
]

#: Error names that mean "ran out of time" (the per-cell limit, or the notebook's budget).
TIMEOUT_NAMES = ("CellTimeoutError", "NotebookTimeout", "KernelUnresponsive", "GradingBudget")
#: Error names the executor writes into cells it never ran.
STOPPED_NAMES = ("KernelDied", "KernelUnresponsive", "NotebookTimeout", "GradingBudget")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ARROW = re.compile(r"^\s*-+>\s*(\d+)\s?(.*)$")


@dataclass(frozen=True)
class CellOutcome:
    """One cell of a notebook that did not simply pass.

    Attributes
    ----------
    notebook : str
        The notebook's name (without ``.ipynb``).
    cell : str
        The cell's nbgrader ``grade_id``, or ``"cell N"`` (1-based) for an unnamed cell.
    kind : str
        ``"exception"`` (a student's cell raised), ``"timeout"`` (a cell or the notebook ran
        out of time), ``"stopped"`` (the kernel died: the cell never ran), ``"misconception"``
        or ``"wrong"`` (a hidden test failed).
    ename, evalue : str
        The error output's name and value (as written; may hold anything a student printed).
    line : tuple of (int, str) or None
        For an exception: the line number and source of the student's own failing line.
    test : bool
        Whether the cell is an autograder test cell.
    """

    notebook: str
    cell: str
    kind: str
    ename: str
    evalue: str
    line: tuple[int, str] | None = None
    test: bool = False


def student_line(traceback: list[str]) -> tuple[int, str] | None:
    """Return the failing line of the student's cell in an IPython traceback: ``(number, code)``.

    IPython marks it ``----> 3 y = np.sqroot(x)`` in the first frame (the cell itself); later
    frames are library code the student never wrote.
    """
    for entry in traceback or []:
        for raw in _ANSI.sub("", str(entry)).splitlines():
            found = _ARROW.match(raw)
            if found:
                return int(found[1]), found[2].rstrip()
    return None


def _kind(ename: str, test: bool) -> str:
    if ename in TIMEOUT_NAMES:
        return "timeout"
    if ename in STOPPED_NAMES:
        return "stopped"
    if test:
        return "misconception" if ename == "Misconception" else "wrong"
    return "exception"


def notebook_outcomes(nb: NotebookNode, name: str) -> list[CellOutcome]:
    """Every cell of ``nb`` whose outputs hold an error, one :class:`CellOutcome` per cell.

    A cell that timed out holds a ``KeyboardInterrupt`` then a ``CellTimeoutError``: it is one
    timeout, not an exception. Otherwise the cell's first error output counts.
    """
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if not errors:
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        test = bool(meta.get("grade")) and not meta.get("solution")
        timed = [o for o in errors if o.get("ename") in TIMEOUT_NAMES]
        out = timed[0] if timed else errors[0]
        ename, evalue = str(out.get("ename", "")), str(out.get("evalue", ""))
        kind = _kind(ename, test)
        line = student_line(out.get("traceback", [])) if kind == "exception" else None
        where = str(meta.get("grade_id") or f"cell {index + 1}")
        found.append(CellOutcome(name, where, kind, ename, evalue, line, test))
    return found


def submission_outcomes(folder: Path) -> list[CellOutcome]:
    """:func:`notebook_outcomes` of every notebook in an autograded submission folder."""
    found = []
    for path in sorted(Path(folder).glob("*.ipynb")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # an unreadable notebook is reported by grading, not here
            continue
        found += notebook_outcomes(nb, path.stem)
    return found


def one_line_reason(outcomes: list[CellOutcome], limit: int = 3) -> str:
    """Return a teacher's one-line summary of what went wrong in the student's own code.

    Exceptions, timeouts and a stopped kernel count; failed hidden tests do not (the score
    says those). Empty when nothing of the kind happened. Names are made printable: they
    come from the submission.
    """
    parts, seen = [], set()
    for o in outcomes:
        if o.kind == "exception":
            text = f"raised {o.ename} in cell {o.cell}"
        elif o.kind == "timeout" and o.ename == "CellTimeoutError":
            text = f"cell {o.cell} ran over the time limit"
        elif o.kind == "timeout":
            text = "the notebook ran out of time"
        elif o.kind == "stopped":
            text = "the kernel died"
        else:
            continue
        if text not in seen:
            seen.add(text)
            parts.append(printable(text))
    more = len(parts) - limit
    return "; ".join(parts[:limit]) + (f"; and {more} more" if more > 0 else "")
