"""attention_grader.intake.final_scores: one final score a student, read by every page and file.

A class of three on the roster: ``ontime``, ``late`` (25 h late: 20 % of 3 points off) and
``never``, who never hands in. The terminal summary, ``grades.csv``, the Canvas file, the report
and every formgrader call behind a score must say the same numbers for each of them.
"""

from __future__ import annotations

import copy
import csv
from datetime import datetime

import pytest
from attention_grader.common.flags import LATE
from attention_grader.config.course import load_course
from attention_grader.intake.final_scores import FinalScore, class_mean, how_late, late_flag
from attention_grader.reports.report import build_report
from attention_grader.reports.report_page import page_html
from attention_grader.steps.grade import GradeOptions, grade
from attention_grader.steps.grades import write_grades
from attention_grader.steps.release import release

from tests.support.grading_course import (
    CORRECT,
    FIXTURE,
    answer,
    make_course,
    place_submission,
    released_notebook,
)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(-3, "on time"), (0, "on time"), (40, "40 s"), (16 * 60 + 40, "16 min"),
     (16 * 60 + 59.9, "16 min"), (3600, "1 h"), (25 * 3600 + 5 * 60, "1 d 1 h 5 min")],
)  # fmt: skip
def test_lateness_is_said_in_whole_minutes_counted_down(seconds, words):
    assert how_late(seconds) == words


def test_the_class_mean_leaves_out_who_never_handed_in():
    finals = [
        FinalScore("a", True, 3.0, 3.0),
        FinalScore("b", True, 2.4, 3.0, penalty=0.6, seconds_late=90000),
        FinalScore("c", False, 0.0, 3.0),
        FinalScore("d", True, 0.6, 3.0, pending=1),  # so far: a written answer waits
    ]
    assert class_mean(finals) == pytest.approx(2.0)
    assert class_mean([FinalScore("c", False, 0.0, 3.0)]) is None


def test_only_a_late_submission_gets_the_late_flag():
    assert late_flag(FinalScore("a", True, 3.0, 3.0)) is None
    flag = late_flag(FinalScore("b", True, 2.4, 3.0, penalty=0.6, seconds_late=90300))
    assert flag is not None and flag.kind == LATE.id
    assert flag.detail == "submitted 1 d 1 h 5 min after the due date, penalty 0.6"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("finals"))
    with (course.root / "nbgrader_config.py").open("a") as fh:
        fh.write("from attention_grader.intake.late import SharePerDay\n"
                 "c.AssignLatePenalties.plugin_class = SharePerDay\n")  # fmt: skip
    course = load_course(course.root)
    release(course, FIXTURE, duedate="2026-11-30 12:00:00")
    with course.gradebook() as gb:
        gb.add_student("never")  # on the roster, never hands in
    nb = answer(released_notebook(course, FIXTURE), CORRECT)
    place_submission(course, FIXTURE, "ontime", copy.deepcopy(nb))
    place_submission(course, FIXTURE, "late", nb, timestamp=datetime(2026, 12, 1, 13, 5))
    summary = grade(course, FIXTURE, GradeOptions(progress=False))
    return course, summary


@pytest.mark.slow
def test_every_page_and_file_shows_the_same_final_score(graded):
    course, summary = graded
    expected = {"ontime": 3.0, "late": 2.4}
    assert {r.student: r.score for r in summary.results} == expected

    rows = {r["student_id"]: r for r in csv.DictReader(write_grades(course).open())}
    assert {s: float(rows[s]["score"]) for s in expected} == expected
    assert rows["never"]["status"] == "no submission"

    canvas = list(csv.reader(write_grades(course, fmt="canvas").open()))
    by_login = {row[3]: row[5] for row in canvas[2:]}
    assert {s: float(by_login[s]) for s in expected} == expected
    assert by_login["never"] == ""  # blank: not graded, not a zero

    report = build_report(course, FIXTURE)
    assert report.totals == expected
    assert report.class_size == 3 and report.missing == ["never"]
    assert report.mean == pytest.approx(2.7)

    from attention_grader.term.formgrader_scores import show_final_scores

    show_final_scores()
    api = course.api()
    assert {r["student"]: r["score"] for r in api.get_submissions(FIXTURE)} == expected
    notebooks = api.get_notebook_submissions(FIXTURE, FIXTURE)  # Manual Grading's list
    assert {r["student"]: r["score"] for r in notebooks} == expected
    (late_nb,) = api.get_student_notebook_submissions("late", FIXTURE)
    assert late_nb["score"] == 2.4
    students = {r["id"]: r["score"] for r in api.get_students()}  # Manage Students
    assert students == {**expected, "never": 0.0}
    assert api.get_student("late")["score"] == 2.4
    assert api.get_assignment(FIXTURE)["average_score"] == pytest.approx(report.mean)
    (nb_row,) = api.get_notebooks(FIXTURE)
    assert nb_row["average_score"] == pytest.approx(report.mean)


@pytest.mark.slow
def test_the_report_counts_the_whole_class_and_shows_the_batchs_flags(graded):
    course, summary = graded
    report = build_report(course, FIXTURE)
    rows = {r.student: r for r in report.students}
    assert set(rows) == {"ontime", "late", "never"} and not rows["never"].handed_in
    batch_late = [str(f) for f in summary.by_student()["late"].flags if f.kind == LATE.id]
    assert batch_late == [str(f) for f in rows["late"].flags if f.kind == LATE.id]
    assert batch_late == ["late: submitted 1 d 1 h 5 min after the due date, penalty 0.6"]
    page = page_html(report, {}, {})
    assert "Grading flagged nothing" not in page
    assert "1 d 1 h 5 min after the due date" in page
    assert "A class of 3: 2 handed in; 1 never handed in" in page
    assert "no submission (0)" in page
