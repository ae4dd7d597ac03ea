"""attention_grader.grades: the grades CSV, one row per student and assignment."""

from __future__ import annotations

import csv

from attention_grader.grades import COLUMNS, grade_rows, write_grades
from grading_course import synthetic_class


def test_one_row_per_student_and_assignment(tmp_path):
    course = synthetic_class(tmp_path)
    rows = grade_rows(course)
    assert [(r["assignment"], r["student_id"]) for r in rows] == [
        (a, s) for a in ["a1", "a2"] for s in ["ana", "ben", "cy", "dee"]
    ]
    by = {(r["assignment"], r["student_id"]): r for r in rows}
    assert by["a1", "ana"]["score"] == "3" and by["a1", "ana"]["max_score"] == "5"
    assert by["a1", "ben"]["score"] == "3"  # 0 + 1 + essay 2
    assert by["a1", "ben"]["percent"] == "60.0"
    assert by["a1", "cy"]["score"] == "0"
    assert by["a1", "ana"]["needs_manual_grade"] == "yes"  # essay not graded yet
    assert by["a1", "ben"]["needs_manual_grade"] == "no"
    assert by["a1", "ana"]["submitted_at"].startswith("2026-11-30T09:00")
    assert (by["a1", "dee"]["status"], by["a1", "dee"]["score"]) == ("no submission", "0")
    assert by["a2", "ana"]["status"] == "no submission"


def test_write_grades_csv(tmp_path):
    course = synthetic_class(tmp_path)
    path = write_grades(course)
    assert path == course.root / "grades.csv"
    with path.open() as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames) == COLUMNS
        assert len(list(reader)) == 8
    other = write_grades(course, tmp_path / "out" / "g.csv")
    assert other.read_text() == path.read_text()
