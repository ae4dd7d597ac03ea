"""Flags for handing in a library in an implement-it notebook (they change no score).

In an implement-it notebook the graded kernel has no working library
(:mod:`attention_grader.sandbox.implement_it`), so the score already is what the student's own code
earns. What is left is telling the teacher, from two sources:

* the submitted source, read statically (:func:`attention_grader.executor.library_use.library_in_source`):
  which graded function refers to a forbidden library (``attention_lab.checks.FORBIDDEN_ROOTS``)
  or to code that could reach one (``__import__``, ``importlib``, ``exec``, ``open`` ...);
* what grading saw: a cell whose output holds ``LibraryHidden``'s message, or a check that
  diagnosed ``used_library`` (recorded as data in the cell: :mod:`attention_grader.common.diagnosis`),
  shows the student's code tried to use the library while it was graded.
"""

from __future__ import annotations

import re

from nbformat import NotebookNode

from attention_grader.common.diagnosis import read_diagnosis
from attention_grader.executor.execution_stops import cell_label
from attention_grader.executor.library_use import library_in_source
from attention_grader.sandbox.implement_it import STUB_MARKER
from attention_lab.checks import FORBIDDEN_ROOTS

__all__ = ["STUB_SEEN", "library_flags", "stub_seen"]

STUB_SEEN = "the code used attention_lab while it was graded (the library is not there: 0 points)"


#: A library named anywhere in the student's own cells (an import, a path to its files ...).
_NAMED = re.compile(rf"\b({'|'.join(map(re.escape, FORBIDDEN_ROOTS))})\b")


def library_flags(student_sources: list[str], graded: list[str]) -> list[str]:
    """Return what the student's own cells show of a forbidden library, statically.

    One detail per graded name whose code refers to one (or to code that could reach one);
    else, if a library is named anywhere in those cells (``exec(open(".../attention_lab/..."))``
    at module level), that.
    """
    details = []
    for name in graded:
        found = library_in_source(student_sources, name, stop=set(graded) - {name})
        if found:
            details.append(f"{name} refers to {found}")
    named = sorted({m for source in student_sources for m in _NAMED.findall(source)})
    if named and not details:
        details.append(f"the student's cells name {', '.join(named)}")
    return details


def _text(output: NotebookNode) -> str:
    parts = [str(output.get("text", "")), str(output.get("evalue", ""))]
    parts += [str(line) for line in output.get("traceback", []) or []]
    parts += [str(v) for v in (output.get("data") or {}).values()]
    return "\n".join(parts)


#: The misconception a check names when a student's function used a library that is not there.
_DIAGNOSED = "used_library"


def _diagnosed(cell: NotebookNode) -> bool:
    diagnosis = read_diagnosis(cell)
    return diagnosis is not None and diagnosis.id == _DIAGNOSED


def stub_seen(nb: NotebookNode) -> list[str]:
    """Labels of the cells whose outputs carry the stub's message, or whose check diagnosed it."""
    return [
        cell_label(cell, index)
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        and (_diagnosed(cell) or any(STUB_MARKER in _text(out) for out in cell.get("outputs", [])))
    ]
