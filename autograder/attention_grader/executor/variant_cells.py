"""What a graded notebook shows of a student's own numbers (per-student variants).

:class:`~attention_grader.executor.execute.GradingExecute` calls these as it grades: a variant
cell shows the grader's numbers for her, not what her kernel printed (:func:`show_variant`),
and a test cell notes the numbers it checked her answers against (:func:`record_test_variant`).
"""

from __future__ import annotations

from nbformat import NotebookNode

from attention_grader.checking.trusted import TrustedChecker

__all__ = ["record_test_variant", "show_variant"]


def show_variant(cell: NotebookNode, checker: TrustedChecker, grade_id: str) -> None:
    """Show the grader's numbers of a variant cell, not what the kernel printed."""
    from attention_grader.checking.variant_grading import draws_variant, variant_shown

    source = checker.cells.locked[grade_id]
    if draws_variant(source):
        text = variant_shown(source, checker.namespace, checker.variant_seed.student)
        cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=text)]


def record_test_variant(cell: NotebookNode, checker: TrustedChecker, grade_id: str) -> None:
    """Note in a test cell the student's numbers it checked her answers against."""
    from attention_grader.checking.variant_grading import what_the_test_read
    from attention_grader.common.variant_record import record_variant

    if not checker.drawn or checker.variant_seed.practice:
        return  # everyone's numbers are the practice ones, printed in the question
    source = checker.cells.tests[grade_id]
    numbers, answers = what_the_test_read(
        source, checker.namespace, checker.drawn, checker.last_answers
    )
    if numbers:
        shared = checker.shared_answer.get(grade_id, ())
        also = ["the practice numbers" if o.practice else o.student for o in shared]
        record_variant(cell, checker.variant_seed.student, numbers, answers, also)
