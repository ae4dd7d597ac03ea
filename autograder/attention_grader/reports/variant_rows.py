"""The class report's table of per-student variants: each student's numbers beside her answer.

Grading writes, into each test cell it ran on a student's own numbers, those numbers and the
answers it read (:mod:`attention_grader.common.variant_record`). Here they become one row per
student and test, with the test's result and the misconception grading recorded, so a teacher
reads a wrong answer against the numbers it was checked on. The misconceptions themselves are
counted across variants elsewhere (:mod:`attention_grader.reports.report`): a misconception is
the same mistake whatever the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from nbformat import NotebookNode

from attention_grader.common.diagnosis import read_diagnosis
from attention_grader.common.variant_record import read_variant
from attention_grader.reports.class_diagnoses import Autograded

__all__ = ["VariantRow", "variant_rows"]


@dataclass(frozen=True)
class VariantRow:
    """One test a student's answers were checked on, on her own numbers.

    Attributes
    ----------
    student, notebook, question : str
        Who (the id the exchange trusts), which notebook, which test (its ``grade_id``).
    numbers, answers : str
        ``"name = value"`` pairs joined by ``"; "``: her numbers, her answers.
    passed : bool
        The test passed (no error output: how nbgrader scores a test cell).
    misconception : str
        The registry id grading recorded, or "".
    """

    student: str
    notebook: str
    question: str
    numbers: str
    answers: str
    passed: bool
    misconception: str


def _joined(pairs: tuple[tuple[str, str], ...]) -> str:
    return "; ".join(f"{k} = {v}" for k, v in pairs)


def _rows(student: str, name: str, nb: NotebookNode) -> list[VariantRow]:
    found = []
    for cell in nb.cells:
        read = read_variant(cell) if cell.cell_type == "code" else None
        if read is None:
            continue
        diagnosis = read_diagnosis(cell)
        found.append(
            VariantRow(
                student,
                name,
                str(cell.metadata.get("nbgrader", {}).get("grade_id", "?")),
                _joined(read.numbers),
                _joined(read.answers),
                not any(o.get("output_type") == "error" for o in cell.get("outputs", [])),
                diagnosis.id if diagnosis else "",
            )
        )
    return found


def variant_rows(notebooks: Autograded) -> list[VariantRow]:
    """Return every recorded variant of the class, by student, in notebook order."""
    return [
        row
        for student, found in sorted(notebooks.items())
        for name, nb in found
        for row in _rows(student, name, nb)
    ]
