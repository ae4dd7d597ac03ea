"""A failed test's misconception, carried as data from the check to the report and the feedback.

A check that recognises a known mistake raises :class:`attention_lab.checks.Misconception`, whose
``id`` is the registry's (:mod:`attention_lab.misconceptions`) and whose ``text`` is what the
student is told. The trusted checker (:mod:`attention_grader.checking.trusted`) keeps both when a hidden
test raises it (:func:`diagnosis_of`), the executor writes them into the graded cell's grading
metadata (:func:`record_diagnosis`)::

    cell.metadata["attention_grader"]["misconception"] = {"id": "forgot_scaling", "text": "..."}

and the class report, the gain analysis and the feedback page read them back from there
(:func:`read_diagnosis`). Nothing parses the error message: its wording may change, and a
message is text a student's code can print. Intake drops any ``attention_grader`` metadata a
submission brings (:mod:`attention_grader.executor.tamper`), so only grading writes this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

from attention_grader.common.flags import GRADER_METADATA

__all__ = ["MISCONCEPTION", "CellDiagnosis", "diagnosis_of", "read_diagnosis", "record_diagnosis"]

#: The key under a cell's ``attention_grader`` metadata.
MISCONCEPTION = "misconception"


@dataclass(frozen=True)
class CellDiagnosis:
    """The misconception one test cell showed.

    Attributes
    ----------
    id : str
        The misconception's registry id (``forgot_scaling``).
    text : str
        What the student is told: ``"<answer name>: <message>"``, without the id.
    """

    id: str
    text: str


def diagnosis_of(exc: BaseException) -> CellDiagnosis | None:
    """Return the diagnosis a check's exception carries, or None when it is not a misconception."""
    from attention_lab.checks import Misconception

    if isinstance(exc, Misconception):
        return CellDiagnosis(str(exc.id), str(exc.text))
    return None


def record_diagnosis(cell: NotebookNode, diagnosis: CellDiagnosis | None) -> None:
    """Write ``diagnosis`` into ``cell``'s grading metadata (None: the cell shows none)."""
    meta = cell.metadata.setdefault(GRADER_METADATA, {})
    if diagnosis is None:
        meta.pop(MISCONCEPTION, None)
        if not meta:
            cell.metadata.pop(GRADER_METADATA)
        return
    meta[MISCONCEPTION] = {"id": diagnosis.id, "text": diagnosis.text}


def read_diagnosis(cell: NotebookNode) -> CellDiagnosis | None:
    """Return the diagnosis :func:`record_diagnosis` wrote into ``cell``, or None."""
    meta = cell.get("metadata", {}).get(GRADER_METADATA, {})
    found = meta.get(MISCONCEPTION) if isinstance(meta, dict) else None
    if not isinstance(found, dict):
        return None
    mid, text = found.get("id"), found.get("text", "")
    if not isinstance(mid, str) or not mid or not isinstance(text, str):
        return None
    return CellDiagnosis(mid, text)
