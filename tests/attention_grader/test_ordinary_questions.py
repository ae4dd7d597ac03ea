"""Ordinary nbgrader questions grade as in plain nbgrader, or their release is refused with why.

The questions (``tests/fixtures/ordinary/questions.py``) are written in the styles teachers know
from nbgrader: objects of a class, a Counter, a matplotlib Axes, generators, complex numbers,
dates and fractions, a function passed as an argument, printed output, in-place changes, a spy
on a recursive function, nbgrader's ``del squares`` ... restore, a teacher's exception class,
``builtins.max`` patched, ``inspect.getsource``, ``type(obj)`` and operators on a student's objects,
a student's exception class, a text array the grader does not carry. Four submissions (correct, wrong, partly right, half right)
are graded by plain nbgrader (default config, tests in the student's kernel) and by the course's
pipeline (``configure(c)``, tests in the grader). A cell may score differently only if the
release check refuses it, naming the cell and the cause, and then the grade is flagged for a
teacher.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from attention_grader.common.flag_store import read_flags

from tests.fixtures.ordinary.questions import (
    ASSIGNMENT,
    COURSE_CONFIG,
    KINDS,
    PLAIN_CONFIG,
    QUESTIONS,
    source_notebook,
    submission,
)
from tests.support.graded_classes import finish_steps, start_steps
from tests.support.grading_course import notebook_course

FIXTURES = Path(__file__).parents[1] / "fixtures"

#: The cells whose release the check refuses, each with a word its cause must contain.
REFUSED = {
    "test_apply_twice": "function",
    "test_factorial": "factorial",
    "test_largest": "builtins.max",
    "test_total": "inspect",
    "test_without_vowels": "could not be carried",
}


def _course(tmp: Path, name: str, config: str) -> Path:
    return notebook_course(tmp / name, ASSIGNMENT, source_notebook(), config, refuse=False)


def _hand_in(root: Path) -> None:
    released = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for kind in KINDS:
        folder = root / "submitted" / kind / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(submission(released, kind), folder / f"{ASSIGNMENT}.ipynb")
        (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Both courses generated, the three submissions graded by both pipelines, the refusals."""
    tmp = tmp_path_factory.mktemp("ordinary")
    plain = _course(tmp, "plain", PLAIN_CONFIG)
    course = _course(tmp, "course", COURSE_CONFIG)
    for generated in [
        finish_steps(start_steps(root, "generate", ASSIGNMENT)) for root in (plain, course)
    ]:
        assert generated[ASSIGNMENT]["success"], generated[ASSIGNMENT]["error"]
    for root in (plain, course):
        _hand_in(root)
    # scores only: no feedback pages (tests/attention_grader/steps/test_feedback.py reads those)
    procs = [start_steps(root, "autograde", ASSIGNMENT) for root in (plain, course)]
    plain_scores, course_scores = (finish_steps(p)["scores"] for p in procs)

    from attention_grader.batch.solution_check import check_course

    refusals = check_course(course, ASSIGNMENT)
    flags = {}
    for kind in KINDS:
        path = course / "autograded" / kind / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        flags[kind] = read_flags(nbformat.read(path, as_version=4))
    return {
        "plain": plain_scores,
        "course": course_scores,
        "refusals": refusals,
        "flags": flags,
        "root": course,
        "tmp": tmp,
    }


def _auto(scores: dict, kind: str) -> dict[str, float]:
    return {cell: row["auto"] for cell, row in scores[kind].items() if cell.startswith("test_")}


@pytest.mark.slow
def test_the_fixture_grades_as_meant_under_plain_nbgrader(graded):
    """Correct answers get every point, wrong ones none, partly right ones some, in plain nbgrader."""
    tests = [f"test_{q.name}" for q in QUESTIONS]
    assert _auto(graded["plain"], "correct") == dict.fromkeys(tests, 1.0)
    assert _auto(graded["plain"], "wrong") == dict.fromkeys(tests, 0.0)
    for kind in ("partly", "mixed"):
        assert 0 < sum(_auto(graded["plain"], kind).values()) < len(tests), kind


@pytest.mark.slow
def test_every_cell_scores_as_in_plain_nbgrader_unless_its_release_is_refused(graded):
    refused = {r.grade_id for r in graded["refusals"]}
    differ = []
    for kind in KINDS:
        plain, course = _auto(graded["plain"], kind), _auto(graded["course"], kind)
        for cell, score in plain.items():
            if course[cell] != score and cell not in refused:
                differ.append(f"{kind}/{cell}: plain {score}, course {course[cell]}")
    assert differ == []


@pytest.mark.slow
def test_the_release_check_names_each_refused_cell_and_why(graded):
    causes = {r.grade_id: r.cause for r in graded["refusals"]}
    assert set(causes) == set(REFUSED), causes
    for cell, word in REFUSED.items():
        assert word in causes[cell], causes[cell]


@pytest.mark.slow
def test_a_refused_cell_that_scores_differently_is_flagged_for_a_teacher(graded):
    """Never silently wrong: where the course's score differs, the grade says a teacher decides."""
    refused = {r.grade_id for r in graded["refusals"]}
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{graded['root'] / 'gradebook.db'}", "ordinary-course") as gb:
        for kind in KINDS:
            plain, course = _auto(graded["plain"], kind), _auto(graded["course"], kind)
            flagged = {
                f.detail.split(":")[0].split("/")[-1]
                for f in graded["flags"][kind]
                if f.kind == "needs_teacher"
            }
            for cell in refused:
                if course[cell] != plain[cell]:
                    assert cell in flagged, (kind, cell, graded["flags"][kind])
                    grade = gb.find_grade(cell, ASSIGNMENT, ASSIGNMENT, kind)
                    assert grade.needs_manual_grade, (kind, cell)


@pytest.mark.slow
def test_a_test_cell_the_teacher_marked_runs_in_the_kernel_and_every_grade_says_so(graded):
    marked = [f"test_{q.name}" for q in QUESTIONS if q.in_kernel]
    assert marked
    for kind in KINDS:
        kernel = {
            f.detail.split(":")[0].split("/")[-1]
            for f in graded["flags"][kind]
            if f.kind == "kernel_test"
        }
        assert kernel == set(marked), (kind, graded["flags"][kind])


@pytest.mark.slow
def test_no_wrong_or_partly_right_answer_scores_more_than_in_plain_nbgrader(graded):
    for kind in ("wrong", "partly", "mixed"):
        plain, course = _auto(graded["plain"], kind), _auto(graded["course"], kind)
        more = {cell: (plain[cell], s) for cell, s in course.items() if s > plain[cell]}
        assert more == {}, kind


@pytest.mark.slow
def test_generate_assignment_with_the_course_config_refuses_and_names_the_cells(graded):
    root = notebook_course(
        graded["tmp"] / "refusing", ASSIGNMENT, source_notebook(), COURSE_CONFIG, refuse=True
    )
    from attention_grader.config.course import load_course

    # in this process (as the formgrader's button does): no second nbgrader start-up
    result = load_course(root).api().generate_assignment(ASSIGNMENT, force=True)
    assert not result["success"]
    text = result["error"] + result["log"]
    for cell in REFUSED:
        assert f"{cell}:" in text, text[-3000:]
    assert not (root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists()
