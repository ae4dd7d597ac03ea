"""The release check on ordinary notebooks in the styles of public nbgrader courses.

``tests/fixtures/public_styles/notebooks.py`` holds 37 questions written as public courses write
them. The release check grades each source's own solution through the course's pipeline: at
most 10 % of the questions may be refused, every refusal says why in a sentence with a way out,
and none is refused for a test's own names or nbgrader's ``del`` ... restore pattern. A release
that cannot run says which cell and why.
"""

from __future__ import annotations

import pytest

from tests.fixtures.public_styles.measure import CONFIG, refusals
from tests.fixtures.public_styles.notebooks import Q, question_count, source_notebook
from tests.support.grading_course import notebook_course

#: Words of a way out: what the teacher can do about a refusal.
WAYS_OUT = ("run_in_kernel", "install", "silence", "return", "pass a seed")


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    return refusals(tmp_path_factory.mktemp("public") / "course")


@pytest.mark.slow
def test_at_most_a_tenth_of_ordinary_questions_is_refused(refused):
    assert len(refused) <= 0.10 * question_count(), [str(r) for r in refused]


@pytest.mark.slow
def test_every_refusal_says_why_with_a_way_out(refused):
    for refusal in refused:
        for cause in refusal.cause.split("; "):
            assert any(word in cause for word in WAYS_OUT), str(refusal)


@pytest.mark.slow
def test_a_tests_own_names_and_nbgraders_del_and_restore_are_not_refused(refused):
    ids = {r.grade_id for r in refused}
    # a loop variable named like a solution's name; del ... restore of a solution's function
    # and of a helper given in a plain cell
    assert not ids & {"test_double", "test_sum_of_squares", "test_sum_squares"}, refused


@pytest.mark.slow
def test_a_release_that_cannot_run_says_which_cell_and_why(tmp_path):
    from attention_grader.batch.solution_check import check_course

    questions = [
        Q("over", "value = 1", "assert value == 1\n2"),  # partial credit over the 1 point
        Q(
            "frame",
            "rows = len(table)",
            "assert rows == len(table)",
            setup="import not_an_installed_package_xyz as tables\ntable = tables.load()",
        ),
    ]
    root = notebook_course(tmp_path / "course", "broken", source_notebook(questions), CONFIG)
    causes = {r.grade_id: r.cause for r in check_course(root, "broken")}
    assert "must return a number from 0 to its 1 points" in causes["test_over"], causes
    assert "the read-only cell setup_frame failed in the grader" in causes["test_frame"], causes
    assert "No module named 'not_an_installed_package_xyz'" in causes["test_frame"]
    assert "install it where the grader runs" in causes["test_frame"]
