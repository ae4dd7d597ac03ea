"""Cells the grader could not grade as the teacher meant: flagged, and left to a teacher.

Trusted checking (:mod:`attention_grader.checking.trusted`) carries a student's answers out of their
kernel as data. When a test touches something that could not be carried (an object that stays
in the kernel, a function the test passes in, a name it rebinds, a builtin it patches), its
result says nothing about the student: a correct answer could fail, a wrong one pass. Such a
cell is never given as a wrong answer with a misleading message. Instead

* the grader records it under the flag kind ``needs_teacher`` (a :class:`~attention_grader.common.flags.Flag`
  with the cause, listed in the batch summary and the report) and in the notebook's metadata
  (:func:`record_cells`, by grade_id);
* the student's output says only that a teacher will grade the cell (the cause may quote the
  hidden test, so it is for the teacher);
* :class:`MarkNeedsTeacher`, after nbgrader's ``SaveAutoGrades``, marks the grade as needing a
  manual grade, so the formgrader lists it for the teacher to score.
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import GRADER_METADATA, NEEDS_TEACHER, Flag

__all__ = [
    "NEEDS_TEACHER",
    "MarkNeedsTeacher",
    "cells_needing_teacher",
    "record_cells",
    "student_output",
]

_CELLS = "needs_teacher"  # nb.metadata[GRADER_METADATA][_CELLS] = {grade_id: cause}

STUDENT_TEXT = (
    "The grader could not check this cell automatically; your teacher will grade it by hand."
)


def student_output() -> NotebookNode:
    """Return the output a cell needing a teacher shows (an error: no automatic points)."""
    return NotebookNode(
        output_type="error",
        ename="NeedsTeacher",
        evalue=STUDENT_TEXT,
        traceback=[f"NeedsTeacher: {STUDENT_TEXT}"],
    )


def record_cells(nb: NotebookNode, notebook: str, causes: dict[str, str]) -> None:
    """Remember which cells need a teacher and why (metadata by grade_id, and one flag each)."""
    if not causes:
        return
    stored = nb.metadata.setdefault(GRADER_METADATA, {}).setdefault(_CELLS, {})
    stored.update({str(k): str(v) for k, v in causes.items()})
    record_flags(
        [Flag(NEEDS_TEACHER, f"{notebook}/{gid}: {cause}") for gid, cause in causes.items()],
        notebook=nb,
    )


def cells_needing_teacher(nb: NotebookNode) -> dict[str, str]:
    """grade_id -> cause, as :func:`record_cells` stored them."""
    stored = nb.metadata.get(GRADER_METADATA, {}).get(_CELLS, {})
    return {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}


class MarkNeedsTeacher(NbGraderPreprocessor):
    """After ``SaveAutoGrades``: the cells needing a teacher need a manual grade in the gradebook."""

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        cells = cells_needing_teacher(nb)
        info = (resources or {}).get("nbgrader", {})
        if not cells or not all(info.get(k) for k in ("db_url", "notebook", "assignment")):
            return nb, resources
        with Gradebook(info["db_url"]) as gb:
            for grade_id in cells:
                try:
                    grade = gb.find_grade(
                        grade_id, info["notebook"], info["assignment"], info["student"]
                    )
                except MissingEntry:
                    continue
                grade.needs_manual_grade = True
            gb.db.commit()
        return nb, resources
