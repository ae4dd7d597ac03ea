"""The class report's table of students: score, lateness, misconceptions, what went wrong.

One :class:`StudentRow` per student of the class (the gradebook's roster, and anyone who handed
in), with their :class:`~attention_grader.intake.final_scores.FinalScore` and what grading recorded
in the student's autograded notebooks (:mod:`attention_grader.common.outcomes`, the flags) and the
misconceptions found there (:mod:`attention_grader.reports.class_diagnoses`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from attention_grader.common.flag_store import read_flags
from attention_grader.common.flags import Flag
from attention_grader.common.outcomes import CellOutcome, notebook_outcomes
from attention_grader.intake.final_scores import FinalScore, how_late, late_flag
from attention_grader.reports.class_diagnoses import Autograded, Diagnosis

__all__ = ["StudentRow", "student_rows"]


@dataclass
class StudentRow:
    """One student's line in the report's class table.

    Attributes
    ----------
    student : str
    score : float
        The final score (late penalty subtracted; 0 when nothing was handed in).
    pending : int
        Answers still waiting for a teacher (the score is not final while > 0).
    misconceptions : list of str
        Ids of the misconceptions diagnosed in this student's tests (each once, in order).
    late : str
        Empty, or how late and the penalty ("3 h 2 min late, -1.5 points").
    timeouts, errors : list of str
        Cells that ran out of time; cells whose code raised ("AttributeError in q2_answer").
    flags : list of Flag
        What grading flagged: in the autograded notebooks, and the late flag (as the batch
        summary has them).
    handed_in : bool
        False for a student of the roster who never handed in.
    """

    student: str
    score: float
    pending: int = 0
    misconceptions: list[str] = field(default_factory=list)
    late: str = ""
    timeouts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    handed_in: bool = True


def _late(final: FinalScore) -> str:
    if final.seconds_late <= 0:
        return ""
    penalty = f", -{final.penalty:g} points" if final.penalty else ", no penalty"
    return f"{how_late(final.seconds_late)} late{penalty}"


def student_rows(
    finals: list[FinalScore], diagnoses: list[Diagnosis], notebooks: Autograded
) -> list[StudentRow]:
    """One :class:`StudentRow` per student of ``finals`` (sorted by student)."""
    found: dict[str, list[str]] = defaultdict(list)
    for d in diagnoses:
        if d.id not in found[d.student]:
            found[d.student].append(d.id)
    rows = [
        StudentRow(f.student, f.score, f.pending, late=_late(f), handed_in=f.handed_in)
        for f in finals
    ]
    for row, final in zip(rows, finals, strict=True):
        late = late_flag(final)
        row.misconceptions = found.get(row.student, [])
        for name, nb in notebooks.get(row.student, []):
            _add_outcomes(row, notebook_outcomes(nb, name))
            row.flags += read_flags(notebook=nb)
        row.flags += [late] if late is not None else []
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
