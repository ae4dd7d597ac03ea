"""Step 6: the class report -- question difficulty, score distribution and misconceptions.

This module gathers the numbers (:func:`build_report`) from its parts: per-question statistics
(:mod:`attention_grader.reports.question_stats`), the misconceptions found
(:mod:`attention_grader.reports.class_diagnoses`) and the class table
(:mod:`attention_grader.reports.student_rows`); :mod:`attention_grader.reports.report_page` draws the
page.

Per-question scores come from the gradebook. Misconceptions come from the autograded notebooks:
grading records the id of the misconception a test's check raised in that test cell's grading
metadata (:mod:`attention_grader.common.diagnosis`; never read back from the error message), and the
cell's ``nbgrader.grade_id`` says which question. Each autograded notebook is read once, for its
diagnoses, its outcomes and its flags. The report is one HTML page with PNG figures under
``reports/<assignment>/``, readable in any browser without a server. Everything in it that a
submission could have written (question ids, details of flags) is escaped, and the page
carries a Content-Security-Policy that allows no script at all (:mod:`attention_grader.pages.csp`).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from attention_grader.common.question_labels import toc_labels
from attention_grader.common.safe_text import csv_cell
from attention_grader.config.course import Course
from attention_grader.exchange.submission_history import student_submissions
from attention_grader.intake.final_scores import assignment_finals
from attention_grader.pages.csp_policy import STATIC_PAGE_POLICY, add_csp_meta
from attention_grader.reports.class_diagnoses import (
    find_diagnoses,
    misconception_titles,
    read_autograded,
)
from attention_grader.reports.question_stats import question_stats
from attention_grader.reports.report_data import Report
from attention_grader.reports.report_page import figures, page_html
from attention_grader.reports.student_rows import student_rows
from attention_grader.reports.variant_rows import variant_rows

__all__ = ["Report", "build_report", "write_report"]


def build_report(course: Course, assignment: str) -> Report:
    """Collect the numbers for the report of ``assignment`` (nothing is written)."""
    stats, _ = question_stats(course, assignment)
    with course.gradebook() as gb:
        max_total = gb.find_assignment(assignment).max_score
        finals = assignment_finals(gb, assignment)
    notebooks = read_autograded(course, assignment)
    diagnoses = find_diagnoses(course, assignment, notebooks)
    submissions, refused = student_submissions(course, assignment)
    return Report(
        assignment,
        stats,
        finals,
        max_total,
        diagnoses,
        misconception_titles(),
        student_rows(finals, diagnoses, notebooks),
        submissions,
        refused,
        source_labels(course, assignment),
        variant_rows(notebooks),
    )


def source_labels(course: Course, assignment: str) -> dict[str, str]:
    """grade_id -> question label (:func:`~attention_grader.common.question_labels.toc_labels`)."""
    import nbformat

    labels: dict[str, str] = {}
    for path in sorted((course.root / "source" / assignment).glob("*.ipynb")):
        labels.update(toc_labels(nbformat.read(path, as_version=4)))
    return labels


def _utc(when: datetime | None) -> str:
    return "" if when is None else f"{when:%Y-%m-%d %H:%M:%S} UTC"


def _write_csv(path: Path, header: list[str], rows: Iterable[Iterable[object]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows([[csv_cell(c) for c in row] for row in rows])


def write_report(course: Course, assignment: str, out: str | Path | None = None) -> Path:
    """Write ``index.html``, the PNG figures, ``misconceptions.csv`` and ``students.csv``.

    Parameters
    ----------
    out : path, optional
        The folder (default ``<course>/reports/<assignment>/``).

    Returns
    -------
    Path
        The HTML page.
    """
    report = build_report(course, assignment)
    folder = Path(out) if out else course.root / "reports" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    made = figures(report, folder)
    _write_csv(
        folder / "misconceptions.csv",
        ["student", "notebook", "question", "id", "title"],
        [[d.student, d.notebook, d.question, d.id, report.titles.get(d.id, "")]
         for d in report.diagnoses],
    )  # fmt: skip
    _write_csv(
        folder / "students.csv",
        ["student", "score", "awaiting_teacher", "misconceptions", "late", "timeout", "error"],
        [[r.student, f"{r.score:g}", r.pending, " ".join(r.misconceptions), r.late,
          " ".join(r.timeouts), "; ".join(r.errors)] for r in report.students],
    )  # fmt: skip
    _write_csv(
        folder / "submissions.csv",
        ["student", "received_utc", "late_seconds", "sha256", "status"],
        [[line.student, _utc(line.received), round(line.late_seconds), line.sha256, line.status]
         for lines in report.submissions.values() for line in lines],
    )  # fmt: skip
    if report.variants:
        _write_csv(
            folder / "variants.csv",
            ["student", "notebook", "question", "numbers", "answers", "passed", "misconception"],
            [[v.student, v.notebook, v.question, v.numbers, v.answers, v.passed,
              v.misconception] for v in report.variants],
        )  # fmt: skip
    links = {
        "students.csv": "one row per student (this page's class table)",
        "submissions.csv": "every submission received, per student (which one was graded)",
        "misconceptions.csv": "one row per diagnosis (student, question, misconception)",
    }
    if report.variants:
        links["variants.csv"] = "each student's numbers and answers, per test (variants)"
    if (folder / "batch_summary.csv").exists():
        links["batch_summary.csv"] = "the last grading run: status and reason per submission"
    grades = course.root / "grades.csv"
    if grades.exists():
        links[os.path.relpath(grades, folder)] = "the class gradebook (make grades)"
    page = folder / "index.html"
    page.write_text(add_csp_meta(page_html(report, made, links), STATIC_PAGE_POLICY))
    return page
