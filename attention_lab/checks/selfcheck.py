"""Instant self-checks for the lessons' your-turn exercises.

A lesson's exercise cell (tag ``exercise``) is followed by a check cell (tag ``self-check``)
that calls :func:`self_check` with one of :mod:`attention_lab.checks`' checks, so a student gets
the same diagnosis the graded assignments give, at once and without a teacher::

    self_check(checks.check_scores, my_scores, query=[1, 1], keys=K, scale=True, name="my_scores")

It prints ``✓ my_scores: right.`` or ``not yet: <what the answer shows>`` and never raises, so
"Run All" on a lesson with the exercises left blank still runs to the end. The messages come
from the checks, which never show an expected value.

A lesson passes its own number (``lesson=1``): a mistake whose feedback points to a later
lesson is then named by what the answer shows only, without the hint and the pointer, so the
feedback after lesson N never sends a student on to a lesson they have not reached.

It judges only what the last run of the exercise produced: in IPython a hook
(:class:`~attention_lab.checks.cell_runs.CellRuns`) remembers which names each cell run set and whether
it raised, so when the last cell that set ``name`` stopped with an error, the check says so
instead of describing the older value the variable still holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from attention_lab import checks, misconceptions
from attention_lab.checks.cell_runs import CELL_RUNS

__all__ = ["SelfCheckResult", "self_check"]


@dataclass(frozen=True)
class SelfCheckResult:
    """What one self-check found.

    Attributes
    ----------
    passed : bool
    message : str
        The line printed for the student.
    misconception : str or None
        The misconception's id (e.g. ``"forgot_scaling"``) when the answer shows one.
    """

    passed: bool
    message: str
    misconception: str | None = None

    def _ipython_display_(self) -> None:
        """Show nothing: the printed line already says it all (and no empty ``Out[n]:`` prompt)."""


def self_check(
    check: Callable[..., None],
    answer: object,
    *args: object,
    name: str = "your answer",
    lesson: int | None = None,
    **kwargs: object,
) -> SelfCheckResult:
    """Run ``check(answer, *args, name=name, **kwargs)``; print ✓ or what is not right yet.

    Parameters
    ----------
    check : callable
        One of the ``attention_lab.checks.check_*`` functions.
    answer : object
        The student's answer (numbers, a string, a function, ...), as the check expects it.
    *args, **kwargs
        The check's other arguments (the question's inputs).
    name : str
        The answer's name, used in the message.
    lesson : int, optional
        The lesson the check is in. A misconception whose lesson comes later is named by its
        first level only (what the answer shows), without the hint and the later lesson.

    Returns
    -------
    SelfCheckResult
    """
    blank = _placeholder(answer)
    failed_run = CELL_RUNS.failed_last_run(name)
    try:
        if failed_run:
            raise checks.AnswerFormatError(
                f"the last run of the cell that sets {name} stopped with {failed_run}, so "
                f"{name} may still hold an older value: fix that cell and run it again, "
                "then run this check."
            )
        if blank:
            # A half-filled list (``[5, 3, None]``) would otherwise read as "contains nan".
            raise checks.AnswerFormatError(
                f"{name} still has a blank ({blank}) in it: replace it with your answer."
            )
        check(answer, *args, name=name, **kwargs)
    except checks.CheckFailure as failure:
        message = f"not yet: {_within(failure, name, lesson)}"
        result = SelfCheckResult(False, message, getattr(failure, "id", None))
    except Exception as error:  # the student's code may raise anything
        message = f"not yet: checking {name} raised {type(error).__name__}: {error}"
        result = SelfCheckResult(False, message)
    else:
        result = SelfCheckResult(True, f"✓ {name}: right.")
    print(result.message)
    return result


def _within(failure: checks.CheckFailure, name: str, lesson: int | None) -> str:
    """Return the failure's text, or only what the answer shows if its lesson is after ``lesson``."""
    if lesson is None or not isinstance(failure, checks.Misconception):
        return str(failure)
    entry = misconceptions.get(failure.id)
    if entry.lesson_number <= lesson:
        return str(failure)
    shows = entry.message or entry.idea
    return f"[{failure.id}] {misconceptions.diagnosis_text(failure.id, name, shows)}"


def _placeholder(answer: object) -> str | None:
    """``"None"`` or ``"..."`` when a list or tuple still holds an exercise's placeholder."""
    if answer is Ellipsis:
        return "..."
    if isinstance(answer, list | tuple):
        for item in answer:
            if item is None:
                return "None"
            found = _placeholder(item)
            if found:
                return found
    return None
