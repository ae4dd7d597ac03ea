"""Grades for a learning management system: Canvas's gradebook CSV, as an nbgrader export plugin.

``make grades FORMAT=canvas`` writes ``grades-canvas.csv``; nbgrader's own command does the same::

    nbgrader export --exporter=attention_grader.steps.lms.CanvasExportPlugin --to grades-canvas.csv

Canvas (Grades → Import) matches each row to a student by its ``ID`` column, Canvas's user id,
which nbgrader keeps as the student's ``lms_user_id``: load it once with the roster,
``nbgrader db student import roster.csv`` (columns ``id,first_name,last_name,email,lms_user_id``;
docs/teachers.md, "Grades for an LMS"). A student without one is still written, matched by
``SIS Login ID`` (their nbgrader id), and named in the log. Each assignment is one column named
as in nbgrader, under a "Points Possible" row; a score is the final one (late penalty
subtracted), blank where nothing was handed in.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any

from nbgrader.plugins import ExportPlugin

from attention_grader.common.safe_text import csv_cell
from attention_grader.intake.final_scores import assignment_finals

__all__ = ["CANVAS_COLUMNS", "CanvasExportPlugin", "canvas_rows"]

#: Canvas's identity columns, first in its gradebook CSV, in this order.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def _cell(text: str) -> str:
    """Return a cell a spreadsheet shows as text (names come from a roster students may edit)."""
    return str(csv_cell(text))


def _scores(gb: Any, assignment: str) -> dict[str, str]:
    """Each student's final score as Canvas reads it: blank where nothing was handed in.

    Canvas takes a blank cell as "not graded" and a 0 as a grade of zero; a student who never
    handed in gets no grade from the course (``grades.csv`` says "no submission").
    """
    return {
        f.student: f"{round(f.score, 4):g}" if f.handed_in else ""
        for f in assignment_finals(gb, assignment)
    }


def canvas_rows(
    gb: Any, assignments: Sequence[str] = (), students: Sequence[str] = ()
) -> tuple[list[list[str]], list[str]]:
    """Canvas's CSV as rows (header, points possible, one per student) and who lacks an LMS id.

    Parameters
    ----------
    gb : nbgrader.api.Gradebook
    assignments, students : sequence of str
        Only these (default: all, assignments by due date).
    """
    chosen = [a for a in gb.assignments if not assignments or a.name in assignments]
    chosen.sort(key=lambda a: (a.duedate is None, a.duedate, a.name))
    people = sorted(
        (s for s in gb.students if not students or s.id in students), key=lambda s: s.id
    )
    scores = {a.name: _scores(gb, a.name) for a in chosen}
    rows = [CANVAS_COLUMNS + [a.name for a in chosen]]
    rows.append(["    Points Possible", "", "", "", ""] + [f"{a.max_score:g}" for a in chosen])
    no_id = []
    for s in people:
        name = ", ".join(p for p in (s.last_name, s.first_name) if p) or s.id
        if not s.lms_user_id:
            no_id.append(s.id)
        who = [_cell(name), _cell(s.lms_user_id or ""), "", _cell(s.id), ""]
        rows.append(who + [scores[a.name].get(s.id, "") for a in chosen])
    return rows, no_id


class CanvasExportPlugin(ExportPlugin):
    """nbgrader export plugin writing Canvas's gradebook import CSV.

    The file is ``--to``, by default ``grades-canvas.csv``.
    """

    def export(self, gradebook: Any) -> None:
        dest = self.to or "grades-canvas.csv"
        rows, no_id = canvas_rows(gradebook, self.assignment, self.student)
        with open(dest, "w", newline="") as fh:
            csv.writer(fh).writerows(rows)
        self.log.info("Wrote %d student(s) to %s", len(rows) - 2, dest)
        if no_id:
            self.log.warning(
                "No lms_user_id for %s: Canvas matches them by SIS Login ID only (import a "
                "roster with an lms_user_id column: nbgrader db student import roster.csv)",
                ", ".join(no_id),
            )
