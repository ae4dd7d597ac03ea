"""attention_grader.steps.grades: the grades CSV, one row per student and assignment."""

from __future__ import annotations

import csv

from attention_grader.steps.grades import COLUMNS, grade_rows, write_grades

from tests.support.grading_course import synthetic_class
from tests.support.roster import import_roster


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
    assert by["a1", "ana"]["submitted_at"].endswith("+00:00")  # says its zone: UTC
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


def test_roster_import_sets_lms_user_ids(tmp_path):
    course = synthetic_class(tmp_path)
    import_roster(course, tmp_path)
    with course.gradebook() as gb:
        ids = {s.id: (s.first_name, s.lms_user_id) for s in gb.students}
    assert ids["ana"] == ("Ana", "10234") and ids["cy"] == (None, None)
    assert ids["dee"] == (None, None)  # not on the roster: kept as it was


def test_canvas_csv_through_the_export_plugin(tmp_path, caplog):
    course = synthetic_class(tmp_path)
    import_roster(course, tmp_path)
    path = write_grades(course, fmt="canvas")
    assert path == course.root / "grades-canvas.csv"
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "a1", "a2"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][5:] == ["5", "0"]
    by = {r[3]: r for r in rows[2:]}
    # a2: nobody handed in, so no grade (blank), not a zero that Canvas would count
    assert by["ana"][:2] == ["Rao, Ana", "10234"] and by["ana"][5:] == ["3", ""]
    assert by["ben"][0] == "'=HYPERLINK(1), Ben"  # a formula in a name stays text
    assert by["cy"][:2] == ["cy", ""] and by["dee"][5] == ""
    assert "No lms_user_id for cy, dee" in caplog.text


def test_canvas_export_is_what_nbgrader_export_runs(tmp_path):
    """The same plugin through nbgrader's own `nbgrader export --exporter=...` app."""
    from nbgrader.apps import ExportApp

    course = synthetic_class(tmp_path)
    import_roster(course, tmp_path)
    ours = write_grades(course, tmp_path / "ours.csv", "canvas")
    theirs = tmp_path / "theirs.csv"
    app = ExportApp(config=course.config)
    app.initialize([
        "--exporter=attention_grader.plugins.CanvasExportPlugin", f"--to={theirs}",
        f"--db={course.db_url}",
    ])  # fmt: skip
    app.start()
    assert theirs.read_text() == ours.read_text()


def test_unknown_format_is_refused(tmp_path):
    import pytest

    with pytest.raises(ValueError, match="one of csv, canvas"):
        write_grades(synthetic_class(tmp_path), fmt="moodle")
