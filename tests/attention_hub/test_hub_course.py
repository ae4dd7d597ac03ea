"""A course on the hub as data (autograder/attention_hub/course.py), without a hub."""

from __future__ import annotations

import pytest
from attention_hub.course import Course, names_from_env


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"course_id": "Attention Lab"}, "lower case"),
        ({"course_id": "x", "instructors": ("a",), "students": ("a",)}, "both as instructor"),
        ({"course_id": "x", "grader": "grader-x"}, "service_port"),
    ],
)
def test_bad_courses_are_refused_with_a_reason(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Course(**kwargs)


def test_names_come_from_a_comma_or_space_separated_variable():
    env = {"ATTENTION_LAB_STUDENTS": " ravi, meera\tana,,", "EMPTY": ""}
    assert names_from_env("ATTENTION_LAB_STUDENTS", env) == ("ravi", "meera", "ana")
    assert names_from_env("EMPTY", env) == names_from_env("UNSET", env) == ()
