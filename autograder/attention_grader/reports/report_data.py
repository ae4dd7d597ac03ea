"""The numbers of one assignment's class report (:class:`Report`), as the page shows them.

:func:`attention_grader.reports.report.build_report` gathers them;
:mod:`attention_grader.reports.report_page` draws them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from attention_grader.exchange.submission_history import Seen, SubmissionLine
from attention_grader.intake.final_scores import FinalScore, class_mean
from attention_grader.reports.class_diagnoses import Diagnosis
from attention_grader.reports.question_stats import QuestionStat
from attention_grader.reports.student_rows import StudentRow
from attention_grader.reports.variant_rows import VariantRow

__all__ = ["Report"]


@dataclass
class Report:
    """Everything the HTML page shows (also handy for tests)."""

    assignment: str
    stats: list[QuestionStat]
    #: Every student of the class, those who never handed in too: the one final score each.
    finals: list[FinalScore]
    max_total: float
    diagnoses: list[Diagnosis]
    titles: dict[str, str]
    students: list[StudentRow] = field(default_factory=list)
    #: Every submission collect received, per student (``submission_history``), and the refused.
    submissions: dict[str, list[SubmissionLine]] = field(default_factory=dict)
    refused: list[Seen] = field(default_factory=list)
    #: grade_id -> "Q3" / "Q3, check 2": the question as the students' notebook numbers it.
    labels: dict[str, str] = field(default_factory=dict)
    #: Each test checked on a student's own numbers (per-student variants): numbers, answers.
    variants: list[VariantRow] = field(default_factory=list)

    def question_name(self, grade_id: str) -> str:
        """``"Q3, check 2 (launched_weights_test)"``: the students' number, then the cell's id."""
        label = self.labels.get(grade_id)
        return f"{label} ({grade_id})" if label else grade_id

    @property
    def pending(self) -> int:
        """Answers of the class still waiting for a teacher's grade."""
        return sum(s.pending for s in self.stats)

    @property
    def totals(self) -> dict[str, float]:
        """Final score of each student who handed in."""
        return {f.student: f.score for f in self.finals if f.handed_in}

    @property
    def class_size(self) -> int:
        """Everybody on the roster, and anyone else who handed in: what shares are out of."""
        return len(self.finals)

    @property
    def missing(self) -> list[str]:
        """Students of the roster who never handed in."""
        return [f.student for f in self.finals if not f.handed_in]

    def final_totals(self) -> dict[str, float]:
        """Return the totals of the students who handed in and whose every answer is graded.

        The histogram uses them while grading is not finished.
        """
        return {f.student: f.score for f in self.finals if f.graded}

    @property
    def mean(self) -> float | None:
        """The class mean, as the formgrader shows it (:func:`~attention_grader.intake.final_scores.class_mean`)."""
        return class_mean(self.finals)

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
