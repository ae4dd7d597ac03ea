"""The course's own assignments (source/), graded once for every suite that reads them.

tests/test_assignments.py (every assignment: the source, the blank, other spellings, buggy and
reordered answers, tests/support/assignment_answers.py) and tests/attention_grader/test_accuracy.py
(the chapters: every answer of tests/support/accuracy_answers.py) hand in to one class, released with
the course's own ``nbgrader_config.py``, graded by ``make grade`` (two workers) and fed back:
:data:`SOURCE_CLASS`, built once per run (tests/support/graded_classes.py). The two suites' students
have names of their own (``correct_0``, ``wrong_0`` ... beside ``source``, ``bugs_1`` ...), so
each reads only its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from attention_grader.config.course import Course

from tests.support.accuracy_answers import QUESTIONS
from tests.support.assignment_answers import (
    ALTERNATIVE,
    ASSIGNMENTS,
    BUGGY,
    MOVED,
    moved,
    submission,
)
from tests.support.graded_classes import ClassSpec
from tests.support.grading_course import place_submission, released_notebook

ROOT = Path(__file__).resolve().parents[2]
KEY_FILE = ROOT / "tests" / "fixtures" / "variants" / "course.key"


def accuracy_plan(questions) -> dict[str, dict]:
    """Map each student to {answer cell id: (code, kind, index)} covering every answer exactly once.

    Student ``correct_i`` answers every question with its i-th correct variant; ``wrong_j``
    gives the j-th wrong answer of each question that has one (a correct variant elsewhere).
    """
    plan = {}
    for i in range(max(len(q.correct) for q in questions)):
        plan[f"correct_{i}"] = {
            q.answer_id: (q.correct[i], "correct", i) for q in questions if i < len(q.correct)
        }
    for j in range(max(len(q.wrong) for q in questions)):
        plan[f"wrong_{j}"] = {
            q.answer_id: (q.wrong[j].code, "wrong", j)
            if j < len(q.wrong)
            else (q.correct[j % len(q.correct)], "filler", j)
            for q in questions
        }
    return plan


def _accuracy_submission(release_nb, overrides: dict[str, str]):
    nb = nbformat.from_dict(json.loads(json.dumps(release_nb)))  # a deep copy
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("solution"):
            continue
        if cell.cell_type == "markdown":
            cell.source = "A written answer, marked by the teacher."
        elif meta.get("grade_id") in overrides:
            cell.source = overrides[meta["grade_id"]].strip() + "\n"
    return nb


def _hand_in_accuracy(course: Course) -> None:
    for assignment, questions in QUESTIONS.items():
        blank = released_notebook(course, assignment)
        for student, answers in accuracy_plan(questions).items():
            overrides = {aid: code for aid, (code, _, _) in answers.items()}
            place_submission(course, assignment, student, _accuracy_submission(blank, overrides))


def assignment_students(assignment: str) -> tuple[str, ...]:
    """tests/test_assignments.py's students of ``assignment``."""
    return ("source", "blank", "alternative", *BUGGY[assignment], *MOVED.get(assignment, {}))


def _hand_in_assignments(course: Course) -> None:
    for assignment in ASSIGNMENTS:
        source = nbformat.read(course.root / "source" / assignment / f"{assignment}.ipynb", 4)
        release = released_notebook(course, assignment)
        works = {
            "source": source,
            "blank": release,
            "alternative": submission(release, source, ALTERNATIVE[assignment]),
        }
        for student, (overrides, _) in BUGGY[assignment].items():
            works[student] = submission(release, source, overrides)
        for student, (overrides, moves, _) in MOVED.get(assignment, {}).items():
            works[student] = moved(submission(release, source, overrides), moves)
        for student, work in works.items():
            place_submission(course, assignment, student, work)


def _hand_in(course: Course) -> None:
    _hand_in_accuracy(course)
    _hand_in_assignments(course)


#: Every assignment of source/, released with the course's own nbgrader_config.py, both suites'
#: answers handed in, graded and fed back.
SOURCE_CLASS = ClassSpec(
    "source",
    hand_in=_hand_in,
    source=ROOT / "source",
    assignments=ASSIGNMENTS,
    config_file=ROOT / "nbgrader_config.py",
    # one fixed course key (the same numbers every run); the variant families are checked
    # in tests/attention_grader/batch/test_variant_family.py, a few samples here
    config=f"\nc.Variants.key_file = {str(KEY_FILE)!r}\nc.CheckSolution.variant_samples = 10\n",
    due="2026-12-30 12:00:00",
    feedback=True,
    # the accuracy suite reads scores and flags, not pages: 86 of the 133 submissions, and
    # generating their pages took a fifth of building the class
    no_feedback=tuple(
        sorted({student for qs in QUESTIONS.values() for student in accuracy_plan(qs)})
    ),
)
