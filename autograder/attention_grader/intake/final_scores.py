"""Each student's one final score for an assignment, computed once, read by every page and file.

nbgrader keeps a submission's late penalty apart from its grades, and its lists, averages and
student totals add up the scores before it; the course shows one number everywhere instead: the
score after the late penalty and after the teacher's manual grades (:func:`final_scores`).
The terminal summary, ``grades.csv``, the Canvas file, the class report and the formgrader's
lists (:mod:`attention_grader.term.formgrader_scores`) all read a :class:`FinalScore`, so a late
student reads 7.5 / 10 on each of them, the class mean is the same wherever it is shown
(:func:`class_mean`), and lateness is said in the same words (:func:`how_late`).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from attention_grader.common.flags import LATE, Flag
from attention_grader.intake.late import final_score

__all__ = ["FinalScore", "assignment_finals", "class_mean", "final_of", "how_late", "late_flag"]


@dataclass(frozen=True)
class FinalScore:
    """One student's standing on one assignment.

    Attributes
    ----------
    student : str
    handed_in : bool
        False for a student of the roster with no submission (``score`` is then 0).
    score : float
        The final score: the gradebook's score (manual grades included) less the late penalty,
        never below 0.
    max_score : float
    penalty : float
        Points the late penalty took off (0 when on time).
    seconds_late : float
        After the due date (0 when on time or not handed in).
    pending : int
        Answers that still wait for a teacher's grade (``score`` is not final while > 0).
    submitted_at : datetime or None
        When the exchange received the graded submission (naive UTC, as nbgrader keeps it).
    """

    student: str
    handed_in: bool
    score: float
    max_score: float
    penalty: float = 0.0
    seconds_late: float = 0.0
    pending: int = 0
    submitted_at: datetime | None = None

    @property
    def graded(self) -> bool:
        """Handed in and every answer graded: the score counts in the class mean."""
        return self.handed_in and not self.pending

    @property
    def percent(self) -> float:
        return 100 * self.score / self.max_score if self.max_score else 0.0


def final_of(submission: Any) -> FinalScore:
    """Return the :class:`FinalScore` of an nbgrader ``SubmittedAssignment``."""
    pending = sum(g.needs_manual_grade for nb in submission.notebooks for g in nb.grades)
    return FinalScore(
        student=submission.student.id,
        handed_in=True,
        score=final_score(submission),
        max_score=submission.max_score or 0.0,
        penalty=submission.late_submission_penalty or 0.0,
        seconds_late=max(0.0, submission.total_seconds_late or 0.0),
        pending=pending,
        submitted_at=submission.timestamp,
    )


def assignment_finals(gradebook: Any, assignment: str) -> list[FinalScore]:
    """Every student of the gradebook (the roster, and anyone who handed in), sorted by id.

    A student with no submission is listed with ``handed_in=False`` and a score of 0, so that
    every page counts the same class.
    """
    found = {sub.student.id: final_of(sub) for sub in gradebook.assignment_submissions(assignment)}
    top = gradebook.find_assignment(assignment).max_score or 0.0
    for student in gradebook.students:
        found.setdefault(student.id, FinalScore(student.id, False, 0.0, top))
    return [found[s] for s in sorted(found)]


def class_mean(finals: Iterable[FinalScore]) -> float | None:
    """Return the mean final score of the students who handed in (None if nobody did).

    Students who never handed in are counted apart (they are 0 in ``grades.csv``). A submission
    still waiting for a teacher counts with its score so far, as in nbgrader's own average: the
    pages that show the mean say how many such submissions there are.
    """
    scores = [f.score for f in finals if f.handed_in]
    return statistics.fmean(scores) if scores else None


def how_late(seconds: float) -> str:
    """Lateness in words, the same on every page: ``"1 d 2 h 16 min"``, ``"40 s"``, ``"on time"``.

    Whole minutes are counted down (16 min 40 s is "16 min"): a page never says a student was
    later than they were.

    Examples
    --------
    >>> how_late(16 * 60 + 40)
    '16 min'
    >>> how_late(26 * 3600 + 5)
    '1 d 2 h'
    >>> how_late(0)
    'on time'
    """
    if seconds <= 0:
        return "on time"
    minutes, sec = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    parts = [f"{v} {u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "min")) if v]
    return " ".join(parts) if parts else f"{sec} s"


def late_flag(final: FinalScore) -> Flag | None:
    """Return the ``late`` flag of a late submission (the batch summary and the report show it)."""
    if final.seconds_late <= 0:
        return None
    extra = f", penalty {final.penalty:g}" if final.penalty else ""
    return Flag(LATE, f"submitted {how_late(final.seconds_late)} after the due date{extra}")
