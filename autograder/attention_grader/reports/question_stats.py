"""Per-question statistics of an assignment, from the gradebook: scores, facility, difficulty.

The class report (:mod:`attention_grader.reports.report`) shows them; the gain report's page uses
the same difficulty bands (:func:`difficulty_label`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import nbformat

from attention_grader.config.course import Course
from attention_grader.intake.late import final_score

__all__ = ["QuestionStat", "difficulty_label", "question_stats"]


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
