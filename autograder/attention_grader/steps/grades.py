"""Step 5: the class gradebook as CSV, one row per student and assignment."""

from __future__ import annotations

import csv
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attention_grader.common.safe_text import csv_cell
from attention_grader.config.course import Course
from attention_grader.intake.final_scores import FinalScore, assignment_finals

__all__ = ["COLUMNS", "FORMATS", "grade_rows", "write_grades"]

log = logging.getLogger(__name__)

#: ``make grades FORMAT=...``: the course's CSV, or an LMS's import file (:mod:`attention_grader.steps.lms`).
FORMATS = ("csv", "canvas")

COLUMNS = (
    "student_id",
    "assignment",
    "status",
    "score",
    "max_score",
    "percent",
    "late_penalty",
    "needs_manual_grade",
    "submitted_at",
)


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _utc(stamp: datetime | None) -> str:
    """Return a gradebook time (naive UTC) with its zone: ``2026-11-30T09:00:00+00:00``."""
    return "" if stamp is None else stamp.replace(tzinfo=UTC).isoformat()


def _row(assignment: str, final: FinalScore) -> dict[str, Any]:
    if not final.handed_in:
        return dict.fromkeys(COLUMNS, "") | {
            "student_id": final.student,
            "assignment": assignment,
            "status": "no submission",
            "score": "0",
            "max_score": _fmt(final.max_score),
            "percent": "0",
        }
    return {
        "student_id": final.student,
        "assignment": assignment,
        "status": "submitted",
        "score": _fmt(round(final.score, 4)),
        "max_score": _fmt(final.max_score),
        "percent": f"{final.percent:.1f}",
        "late_penalty": _fmt(final.penalty or None),
        "needs_manual_grade": "yes" if final.pending else "no",
        "submitted_at": _utc(final.submitted_at),
    }


def grade_rows(course: Course) -> list[dict[str, Any]]:
    """Every (student, assignment) pair in the gradebook, sorted by assignment then student.

    ``status`` is ``submitted`` or ``no submission`` (score 0); ``score`` is the student's
    :class:`~attention_grader.intake.final_scores.FinalScore` (late penalty subtracted, manual
    grades included), the number every page shows; ``needs_manual_grade`` says whether a
    teacher still has to grade some answer.
    """
    with course.gradebook() as gb:
        assignments = sorted(gb.assignments, key=lambda a: (a.duedate is None, a.duedate, a.name))
        return [
            _row(assignment.name, final)
            for assignment in assignments
            for final in assignment_finals(gb, assignment.name)
        ]


def write_grades(course: Course, out: str | Path | None = None, fmt: str = "csv") -> Path:
    """Write the grades; return the path.

    Parameters
    ----------
    out : path, optional
        Default ``<course>/grades.csv`` (``csv``) or ``<course>/grades-canvas.csv``.
    fmt : str
        ``"csv"``: :func:`grade_rows`; ``"canvas"``: Canvas's gradebook import, through the
        nbgrader export plugin :class:`attention_grader.steps.lms.CanvasExportPlugin`.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown grades format {fmt!r}; one of {', '.join(FORMATS)}")
    default = "grades.csv" if fmt == "csv" else f"grades-{fmt}.csv"
    path = Path(out) if out else course.root / default
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "canvas":
        from attention_grader.steps.lms import CanvasExportPlugin

        # Our logger, not traitlets' silent default: the CLI shows its warnings (students the
        # Canvas file can match only by SIS Login ID).
        plugin = CanvasExportPlugin(config=course.config, to=str(path), log=log)
        with course.gradebook() as gb:
            plugin.export(gb)
        return path
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in grade_rows(course))
    return path
