"""Step 6: the class report -- question difficulty, score distribution and misconceptions.

This module gathers the numbers (:func:`build_report`); :mod:`attention_grader.term.report_page`
draws the page.

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
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from attention_grader.common.course import Course
from attention_grader.common.diagnosis import read_diagnosis
from attention_grader.common.flags import Flag, read_flags
from attention_grader.common.outcomes import CellOutcome, notebook_outcomes
from attention_grader.common.safe_text import csv_cell
from attention_grader.intake.late import final_score
from attention_grader.intake.submission_history import Seen, SubmissionLine, student_submissions
from attention_grader.pages.csp import STATIC_PAGE_POLICY, add_csp_meta
from attention_grader.term.report_page import figures, html_table, page_html, page_start
from attention_lab import misconceptions

__all__ = [
    "Diagnosis",
    "QuestionStat",
    "Report",
    "StudentRow",
    "build_report",
    "difficulty_label",
    "find_diagnoses",
    "html_table",
    "misconception_titles",
    "page_start",
    "question_stats",
    "write_report",
]


@dataclass(frozen=True)
class Diagnosis:
    """One misconception shown by one student in one test cell."""

    student: str
    notebook: str
    question: str  # the test cell's nbgrader grade_id
    id: str  # the misconception's registry id, as grading recorded it
    text: str  # what the student read


@dataclass
class QuestionStat:
    """Class statistics of one autograded test cell.

    Attributes
    ----------
    question : str
        The cell's ``grade_id``.
    notebook : str
    max_score : float
    scores : list of float
        One per submission whose grade is final (autograded, or graded by hand).
    kind : str
        ``"auto"`` for a test cell, ``"manual"`` for an answer a teacher grades.
    pending : int
        Submissions whose grade still waits for a teacher (left out of ``scores``).
    """

    question: str
    notebook: str
    max_score: float
    scores: list[float] = field(default_factory=list)
    kind: str = "auto"  # "auto" (a test cell) or "manual" (graded by a teacher)
    pending: int = 0  # submissions still waiting for a manual grade (not in ``scores``)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def facility(self) -> float:
        """Mean score as a fraction of the maximum (1 = everybody got it, 0 = nobody did)."""
        return self.mean / self.max_score if self.max_score else 0.0

    @property
    def difficulty(self) -> str:
        """The band of :func:`difficulty_label`, only once every answer is graded.

        While some answers wait for a teacher the few graded ones say little (one blank
        answer scored 0 would make a question "hard"): ``"awaiting grading"``.
        """
        if self.pending or not self.scores:
            return "awaiting grading"
        return difficulty_label(self.facility)


def difficulty_label(facility: float) -> str:
    """``easy`` (facility >= 0.8), ``medium`` (>= 0.5) or ``hard`` -- the usual item-analysis bands."""
    if facility >= 0.8:
        return "easy"
    if facility >= 0.5:
        return "medium"
    return "hard"


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


def question_stats(course: Course, assignment: str) -> tuple[list[QuestionStat], dict[str, float]]:
    """Per-question statistics and each student's total score, from the gradebook.

    Returns
    -------
    stats : list of QuestionStat
        In notebook order.
    totals : dict
        student -> total score (late penalty subtracted).
    """
    with course.gradebook() as gb:
        a = gb.find_assignment(assignment)
        stats = {}
        for nb in a.notebooks:
            for gc in nb.grade_cells:
                kind = "auto" if gc.cell_type == "code" else "manual"
                stats[(nb.name, gc.name)] = QuestionStat(gc.name, nb.name, gc.max_score, kind=kind)
        totals = {}
        for sub in gb.assignment_submissions(assignment):
            totals[sub.student.id] = final_score(sub)
            for snb in sub.notebooks:
                for g in snb.grades:
                    stat = stats[(snb.name, g.name)]
                    if g.needs_manual_grade and g.manual_score is None:
                        stat.pending += 1
                    else:
                        stat.scores.append(g.score or 0.0)
    order = {name: i for i, name in enumerate(_notebook_cell_order(course, assignment))}
    ordered = sorted(stats.values(), key=lambda s: (s.notebook, order.get(s.question, 1e9)))
    return ordered, totals


def _notebook_cell_order(course: Course, assignment: str) -> list[str]:
    ids = []
    for path in sorted((course.root / "source" / assignment).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        ids += [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    return [i for i in ids if i]


@dataclass
class StudentRow:
    """One student's line in the report's class table.

    Attributes
    ----------
    student : str
    score : float
        Total in the gradebook (late penalty subtracted).
    pending : int
        Answers still waiting for a teacher (the score is not final while > 0).
    misconceptions : list of str
        Ids of the misconceptions diagnosed in this student's tests (each once, in order).
    late : str
        Empty, or how late and the penalty ("3.0 h late, -1.5 points").
    timeouts, errors : list of str
        Cells that ran out of time; cells whose code raised ("AttributeError in q2_answer").
    flags : list of Flag
        What grading flagged in the autograded notebooks.
    """

    student: str
    score: float
    pending: int = 0
    misconceptions: list[str] = field(default_factory=list)
    late: str = ""
    timeouts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)


@dataclass
class Report:
    """Everything the HTML page shows (also handy for tests)."""

    assignment: str
    stats: list[QuestionStat]
    totals: dict[str, float]
    max_total: float
    diagnoses: list[Diagnosis]
    titles: dict[str, str]
    students: list[StudentRow] = field(default_factory=list)
    #: Every submission collect received, per student (``submission_history``), and the refused.
    submissions: dict[str, list[SubmissionLine]] = field(default_factory=dict)
    refused: list[Seen] = field(default_factory=list)

    @property
    def pending(self) -> int:
        """Answers of the class still waiting for a teacher's grade."""
        return sum(s.pending for s in self.stats)

    def final_totals(self) -> dict[str, float]:
        """Return the totals of the students whose every answer is graded.

        Means and the histogram use them while grading is not finished.
        """
        waiting = {r.student for r in self.students if r.pending}
        return {s: t for s, t in self.totals.items() if s not in waiting}

    def misconceptions_per_question(self) -> dict[str, dict[str, list[str]]]:
        """Map question -> id -> students (sorted), most common misconception first."""
        out: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for d in self.diagnoses:
            out[d.question][d.id].add(d.student)
        return {
            q: {k: sorted(v) for k, v in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))}
            for q, by in out.items()
        }

    def students_per_misconception(self) -> dict[str, set[str]]:
        """Map id -> students who showed it (each student counted once per misconception)."""
        out: dict[str, set[str]] = defaultdict(set)
        for d in self.diagnoses:
            out[d.id].add(d.student)
        return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def questions_per_misconception(self) -> dict[str, list[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for d in self.diagnoses:
            out[d.id].add(d.question)
        return {k: sorted(v) for k, v in out.items()}


def _late(seconds: float, penalty: float | None) -> str:
    if seconds <= 0:
        return ""
    when = f"{seconds / 3600:.1f} h late" if seconds >= 3600 else f"{seconds / 60:.0f} min late"
    return when + (f", -{penalty:g} points" if penalty else ", no penalty")


def student_rows(
    course: Course, assignment: str, diagnoses: list[Diagnosis], notebooks: Autograded
) -> list[StudentRow]:
    """One :class:`StudentRow` per submission in the gradebook (sorted by student)."""
    found: dict[str, list[str]] = defaultdict(list)
    for d in diagnoses:
        if d.id not in found[d.student]:
            found[d.student].append(d.id)
    rows = []
    with course.gradebook() as gb:
        for sub in gb.assignment_submissions(assignment):
            pending = sum(g.needs_manual_grade for nb in sub.notebooks for g in nb.grades)
            late = _late(sub.total_seconds_late, sub.late_submission_penalty)
            rows.append(StudentRow(sub.student.id, final_score(sub), pending, late=late))
    for row in rows:
        row.misconceptions = found.get(row.student, [])
        for name, nb in notebooks.get(row.student, []):
            _add_outcomes(row, notebook_outcomes(nb, name))
            row.flags += read_flags(notebook=nb)
    return sorted(rows, key=lambda r: r.student)


def _add_outcomes(row: StudentRow, outcomes: Iterable[CellOutcome]) -> None:
    for o in outcomes:
        if o.kind == "timeout" and o.ename == "CellTimeoutError":
            row.timeouts.append(o.cell)
        elif o.kind == "timeout" and "notebook" not in row.timeouts:
            row.timeouts.append("notebook")
        elif o.kind == "exception":
            row.errors.append(f"{o.ename} in {o.cell}")
        elif o.kind == "stopped" and "kernel died" not in row.errors:
            row.errors.append("kernel died")


def build_report(course: Course, assignment: str) -> Report:
    """Collect the numbers for the report of ``assignment`` (nothing is written)."""
    stats, totals = question_stats(course, assignment)
    with course.gradebook() as gb:
        max_total = gb.find_assignment(assignment).max_score
    notebooks = read_autograded(course, assignment)
    diagnoses = find_diagnoses(course, assignment, notebooks)
    submissions, refused = student_submissions(course, assignment)
    return Report(
        assignment,
        stats,
        totals,
        max_total,
        diagnoses,
        misconception_titles(),
        student_rows(course, assignment, diagnoses, notebooks),
        submissions,
        refused,
    )


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
    links = {
        "students.csv": "one row per student (this page's class table)",
        "submissions.csv": "every submission received, per student (which one was graded)",
        "misconceptions.csv": "one row per diagnosis (student, question, misconception)",
    }
    if (folder / "batch_summary.csv").exists():
        links["batch_summary.csv"] = "the last grading run: status and reason per submission"
    grades = course.root / "grades.csv"
    if grades.exists():
        links[os.path.relpath(grades, folder)] = "the class gradebook (make grades)"
    page = folder / "index.html"
    page.write_text(add_csp_meta(page_html(report, made, links), STATIC_PAGE_POLICY))
    return page
