"""The class's misconceptions as grading recorded them (attention_grader.reports.class_diagnoses)."""

from __future__ import annotations

import pytest
from attention_grader.reports.class_diagnoses import find_diagnoses, misconception_titles

from tests.support.grading_course import synthetic_class


@pytest.fixture
def course(tmp_path):
    return synthetic_class(tmp_path)


@pytest.mark.slow
def test_diagnoses_are_the_ids_grading_recorded_in_the_cells_never_the_messages(course):
    found = {(d.student, d.question, d.id) for d in find_diagnoses(course, "a1")}
    # cy's q2 message names no id and still counts; ana's q2 message says "[forgot_scaling]"
    # but grading recorded no misconception there: not counted.
    assert found == {
        ("ben", "q1", "sum_normalised"),
        ("cy", "q1", "sum_normalised"),
        ("cy", "q2", "forgot_scaling"),
    }
    assert all(d.text == "x: text" for d in find_diagnoses(course, "a1"))


def test_titles_come_from_the_checks_module():
    from attention_lab.checks import MISCONCEPTIONS

    assert misconception_titles() == dict(MISCONCEPTIONS)
