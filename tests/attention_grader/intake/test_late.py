"""attention_grader.intake.late: a share of the score per started day late, capped, via nbgrader."""

from __future__ import annotations

import copy
import csv
from datetime import datetime

import pytest
from attention_grader.config.course import load_course
from attention_grader.intake.late import SharePerDay, late_penalty
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

DAY = 86400


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(-5, 0), (0, 0), (10 * 60, 0), (20 * 60, 1.2), (DAY, 1.2), (DAY + 15 * 60 + 1, 2.4),
     (2.5 * DAY, 3.6), (40 * DAY, 6.0)],
)  # fmt: skip
def test_share_per_started_day_with_grace_and_cap(seconds, expected):
    assert late_penalty(12, seconds, 0.1, 0.5, grace_minutes=15) == pytest.approx(expected)


def test_nothing_to_take_from_a_zero_score():
    assert late_penalty(0, 5 * DAY, 0.1, 0.5) == 0


def test_the_plugin_reads_its_settings_from_the_config():
    from traitlets.config import Config

    c = Config()
    c.SharePerDay.share_per_day = 0.25
    c.SharePerDay.max_share = 1.0
    assert SharePerDay(config=c).late_submission_penalty("ana", 8, 3 * DAY) == 6


def test_the_course_config_sets_it():
    from pathlib import Path

    from traitlets.config.loader import PyFileConfigLoader

    root = Path(__file__).resolve().parents[3]
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    assert config.AssignLatePenalties.plugin_class is SharePerDay
    assert (config.SharePerDay.share_per_day, config.SharePerDay.max_share) == (0.1, 0.5)


@pytest.mark.slow
def test_a_late_submission_loses_its_share_in_the_gradebook_and_grades_csv(tmp_path):
    course = make_course(tmp_path)
    with (course.root / "nbgrader_config.py").open("a") as fh:
        fh.write("from attention_grader.intake.late import SharePerDay\n"
                 "c.AssignLatePenalties.plugin_class = SharePerDay\n")  # fmt: skip
    course = load_course(course.root)
    release(course, FIXTURE, duedate="2026-11-30 12:00:00")
    nb = answer(released_notebook(course, FIXTURE), CORRECT)
    place_submission(course, FIXTURE, "ontime", copy.deepcopy(nb))
    place_submission(course, FIXTURE, "late", nb, timestamp=datetime(2026, 12, 1, 13, 0))
    summary = grade(course, FIXTURE, GradeOptions(progress=False))
    flags = {r.student: [str(f) for f in r.flags] for r in summary.results}
    assert any(f.startswith("late:") for f in flags["late"]) and flags["ontime"] == []
    rows = {r["student_id"]: r for r in csv.DictReader(write_grades(course).open())}
    # 25 h late = 2 started days = 20% of 3 points
    assert (rows["late"]["score"], rows["late"]["late_penalty"]) == ("2.4", "0.6")
    assert (rows["ontime"]["score"], rows["ontime"]["late_penalty"]) == ("3", "")

    # the formgrader's lists (its server extension wraps NbGraderAPI) show the same final score
    from attention_grader.term.formgrader_scores import show_final_scores

    show_final_scores()
    api = course.api()
    listed = {r["student"]: r for r in api.get_submissions(FIXTURE)}
    assert (listed["late"]["score"], listed["late"]["late_penalty"]) == (2.4, 0.6)
    assert listed["ontime"]["score"] == 3
    (mine,) = [r for r in api.get_student_submissions("late") if r["name"] == FIXTURE]
    assert mine["score"] == 2.4  # subtracted once, not twice
    assert api.get_submission(FIXTURE, "late")["score"] == 2.4


@pytest.mark.parametrize(
    ("template", "script", "view"),
    [("manage_submissions.tpl", "manage_submissions.js", "SubmissionUI"),
     ("manage_students_assignments.tpl", "manage_students_assignments.js", "StudentSubmissionUI")],
)  # fmt: skip
def test_the_formgraders_two_lists_get_the_penalty_script(template, script, view):
    """The list pages of nbgrader, as its handlers render them, get the script that writes the
    penalty beside the score, after the list's own script, for the row view that script
    defines (tests/browser/test_formgrader_scores.py watches it draw in Chromium).
    """
    from pathlib import Path
    from types import SimpleNamespace

    from attention_grader.term.formgrader_scores import with_penalty_script
    from jinja2 import Environment, FileSystemLoader
    from nbgrader.server_extensions.formgrader import handlers
    from nbgrader.server_extensions.formgrader.base import BaseHandler

    env = Environment(loader=FileSystemLoader([handlers.template_path]))
    handler = SimpleNamespace(settings={"nbgrader_jinja2_env": env})
    page = BaseHandler.render(handler, template, base_url="/b", assignment_id="a1",
                              student_id="ana", course_dir="/c")  # fmt: skip
    patched = with_penalty_script(page)
    loaded = patched.index(f'/formgrader/static/js/{script}"></script>')
    assert patched.index(f"(window.{view});") > loaded
    source = (Path(handlers.static_path) / "js" / script).read_text()
    assert f"var {view} = Backbone.View.extend" in source
    assert with_penalty_script("<html><head></head></html>") == "<html><head></head></html>"
