"""The class report's table of students: score, lateness, misconceptions, what went wrong.

One :class:`StudentRow` per submission in the gradebook, with what grading recorded in the
student's autograded notebooks (:mod:`attention_grader.common.outcomes`, the flags) and the
misconceptions found there (:mod:`attention_grader.term.class_diagnoses`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from attention_grader.common.course import Course
from attention_grader.common.flag_store import read_flags
from attention_grader.common.flags import Flag
from attention_grader.common.outcomes import CellOutcome, notebook_outcomes
from attention_grader.intake.late import final_score
from attention_grader.term.class_diagnoses import Autograded, Diagnosis

__all__ = ["StudentRow", "student_rows"]


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
