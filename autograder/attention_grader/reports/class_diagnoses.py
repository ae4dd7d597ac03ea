"""The misconceptions the class showed, as grading recorded them in the autograded notebooks.

Grading records the id of the misconception a test's check raised in that test cell's grading
metadata (:mod:`attention_grader.common.diagnosis`; never read back from the error message), and
the cell's ``nbgrader.grade_id`` says which question. :func:`read_autograded` reads each
autograded notebook of an assignment once, for the class report
(:mod:`attention_grader.reports.report`) and the gain report (:mod:`attention_grader.reports.gain`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import nbformat
from nbformat import NotebookNode

from attention_grader.common.diagnosis import read_diagnosis
from attention_grader.config.course import Course
from attention_lab import misconceptions

__all__ = [
    "Autograded",
    "Diagnosis",
    "find_diagnoses",
    "misconception_titles",
    "notebook_diagnoses",
    "read_autograded",
]


@dataclass(frozen=True)
class Diagnosis:
    """One misconception shown by one student in one test cell."""

    student: str
    notebook: str
    question: str  # the test cell's nbgrader grade_id
    id: str  # the misconception's registry id, as grading recorded it
    text: str  # what the student read


def misconception_titles() -> dict[str, str]:
    """Map id -> short human title, from the registry (:mod:`attention_lab.misconceptions`)."""
    return misconceptions.titles()


#: student -> [(notebook name, autograded notebook)], each notebook read once.
Autograded = dict[str, list[tuple[str, nbformat.NotebookNode]]]


def read_autograded(course: Course, assignment: str) -> Autograded:
    """Read every autograded notebook of ``assignment`` once.

    An unreadable one is left out (``grade`` reports it).
    """
    found: Autograded = defaultdict(list)
    for path in sorted((course.root / "autograded").glob(f"*/{assignment}/*.ipynb")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 -- reported by `grade`, not here
            continue
        found[path.parent.parent.name].append((path.stem, nb))
    return dict(found)


def notebook_diagnoses(student: str, name: str, nb: NotebookNode) -> list[Diagnosis]:
    """Return the misconceptions grading recorded in the test cells of one notebook."""
    found = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade"):
            continue
        diagnosis = read_diagnosis(cell)
        if diagnosis is not None:
            question = str(meta.get("grade_id", "?"))
            found.append(Diagnosis(student, name, question, diagnosis.id, diagnosis.text))
    return found


def find_diagnoses(
    course: Course, assignment: str, notebooks: Autograded | None = None
) -> list[Diagnosis]:
    """Every misconception recorded in the autograded notebooks of ``assignment``."""
    notebooks = read_autograded(course, assignment) if notebooks is None else notebooks
    return [
        d
        for student, found in sorted(notebooks.items())
        for name, nb in found
        for d in notebook_diagnoses(student, name, nb)
    ]
