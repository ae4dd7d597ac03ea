"""attention_grader.steps.release / collect / feedback: the exchange steps (fixture assignment)."""

from __future__ import annotations

import pytest
from attention_grader.steps.collect import collect
from attention_grader.steps.feedback import feedback
from attention_grader.steps.grade import GradeOptions, grade
from attention_grader.steps.release import release

from tests.support.grading_course import CORRECT, FIXTURE, Student, make_course


@pytest.mark.slow
def test_release_twice_replaces_the_released_copy_and_sets_the_due_date(tmp_path):
    course = make_course(tmp_path)
    release(course, FIXTURE, duedate="2026-12-07 17:00:00")
    outbound = course.exchange / course.course_id / "outbound" / FIXTURE / f"{FIXTURE}.ipynb"
    released = outbound.read_text()
    assert "### BEGIN SOLUTION" not in released and "raise NotImplementedError" in released
    release(course, FIXTURE)  # again: no "already exists" error, due date kept
    with course.gradebook() as gb:
        assert str(gb.find_assignment(FIXTURE).duedate) == "2026-12-07 17:00:00"


def test_release_unknown_assignment_lists_the_known_ones(tmp_path):
    course = make_course(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"known: \['mini_softmax'\]"):
        release(course, "nope")


def test_collect_without_a_released_exchange_says_what_to_do(tmp_path):
    course = make_course(tmp_path)
    (course.exchange).rmdir()
    with pytest.raises(FileNotFoundError, match="make release"):
        collect(course, FIXTURE)


@pytest.mark.slow
def test_collect_then_feedback_reaches_the_student(tmp_path):
    course = make_course(tmp_path)
    release(course, FIXTURE)
    ana = Student(course, tmp_path, "ana")
    ana.work(FIXTURE, CORRECT)
    assert collect(course, FIXTURE) == ["ana"]
    assert grade(course, FIXTURE, GradeOptions(progress=False)).results[0].score == 3
    assert feedback(course, FIXTURE) == ["ana"]
    (page,) = ana.fetch_feedback(FIXTURE)
    assert "3.0 / 3.0" in page.read_text() or "3 / 3" in page.read_text()


@pytest.mark.slow
def test_a_due_date_without_a_zone_is_in_the_courses_time_zone_and_release_echoes_it(
    tmp_path, capsys
):
    from attention_grader.cli import main

    course = make_course(tmp_path)
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + '\nc.CourseTime.timezone = "Asia/Kolkata"\n')
    assert (
        main(["--course", str(course.root), "release", FIXTURE, "--due", "2026-12-07 17:00"]) == 0
    )
    out = capsys.readouterr().out
    assert f"{FIXTURE} is due 2026-12-07 17:00 IST (Asia/Kolkata) = 2026-12-07 11:30 UTC" in out
    with course.gradebook() as gb:  # nbgrader keeps due dates as naive UTC
        assert str(gb.find_assignment(FIXTURE).duedate) == "2026-12-07 11:30:00"
    assert main(["--course", str(course.root), "release", FIXTURE]) == 0  # kept, and said again
    assert "is due 2026-12-07 17:00 IST" in capsys.readouterr().out


def test_an_unreadable_due_date_is_refused_with_the_formats_that_work(tmp_path, capsys):
    from attention_grader.cli import main

    course = make_course(tmp_path)
    assert main(["--course", str(course.root), "release", FIXTURE, "--due", "next friday"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the due date 'next friday'" in err and '"2026-12-07 17:00 +05:30"' in err
    assert "Traceback" not in err
    assert not (course.exchange / course.course_id / "outbound" / FIXTURE).exists()


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("2026-12-07 17:00", "2026-12-07 16:00"),  # in the course's zone: Berlin is UTC+1
        ("2026-12-07 17:00 Asia/Kolkata", "2026-12-07 11:30"),
        ("2026-12-07 17:00 +05:30", "2026-12-07 11:30"),
        ("2026-12-07T17:00:00Z", "2026-12-07 17:00"),
        ("2026-07-07 17:00", "2026-07-07 15:00"),  # summer time
    ],
)
def test_due_date_formats(text, utc):
    from datetime import UTC
    from zoneinfo import ZoneInfo

    from attention_grader.intake.due import parse_due

    assert f"{parse_due(text, ZoneInfo('Europe/Berlin')).astimezone(UTC):%Y-%m-%d %H:%M}" == utc


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2026-12-07", "add the time"),
        ("2026-12-07 17:00 Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
        ("2026-02-30 17:00", "not a real date"),
        ("tomorrow 5pm", "Write it as one of"),
    ],
)
def test_bad_due_dates_say_what_was_wrong(text, says):
    from zoneinfo import ZoneInfo

    from attention_grader.intake.due import DueDateError, parse_due

    with pytest.raises(DueDateError, match=says):
        parse_due(text, ZoneInfo("UTC"))


@pytest.mark.slow
def test_release_is_refused_naming_the_cell_while_the_solution_loses_points(tmp_path):
    """Check before release: a test the course's pipeline cannot grade (here it patches
    builtins.max, which the student's code in the kernel would not see) stops the release.
    """
    import nbformat
    from attention_grader.config.course import GradingStepError
    from nbformat.v4 import new_code_cell

    course = make_course(tmp_path)
    path = course.root / "source" / FIXTURE / f"{FIXTURE}.ipynb"
    nb = nbformat.read(path, as_version=4)
    test = new_code_cell(
        "import builtins\nreal = builtins.max\nbuiltins.max = None\n"
        "try:\n    assert double(2) == 4\nfinally:\n    builtins.max = real"
    )
    meta = {"grade": True, "solution": False, "locked": True, "points": 1}
    test.metadata["nbgrader"] = {**meta, "grade_id": "q2_no_max", "schema_version": 3}
    nb.cells.append(test)
    nbformat.write(nb, path)
    with pytest.raises(GradingStepError) as refused:
        release(course, FIXTURE)
    assert "q2_no_max: the test patches builtins.max" in str(refused.value)
    assert "q1_softmax" not in str(refused.value)  # the cells that grade right are not named
    assert not (course.exchange / course.course_id / "outbound" / FIXTURE).exists()


@pytest.mark.slow
def test_the_release_check_leaves_the_protections_report_to_the_first_autograde(tmp_path):
    """The formgrader's server releases, then autogrades: the once-per-process report of the
    sandbox's protections must land in the autograde's log, not in the release check's.
    """
    from attention_grader.cli import main
    from attention_grader.executor.execute import GradingExecute

    course = make_course(tmp_path)
    GradingExecute._reported = False
    assert main(["--course", str(course.root), "release", FIXTURE]) == 0
    assert GradingExecute._reported is False


@pytest.mark.slow
def test_release_publishes_the_due_date_students_read_and_nothing_fetches_it(tmp_path):
    import nbformat
    from attention_grader.intake.due_notice import notice_path, read_notice
    from nbgrader.auth import Authenticator
    from nbgrader.exchange.default.list import ExchangeList

    course = make_course(tmp_path)
    course.config.AssignLatePenalties.plugin_class = "attention_grader.intake.late.SharePerDay"
    course.config.SharePerDay.grace_minutes = 15
    course.config.SharePerDay.share_per_day = 0.1
    course.config.SharePerDay.max_share = 0.5
    release(course, FIXTURE, duedate="2026-12-07 17:00 Asia/Kolkata")
    path = notice_path(course.exchange, course.course_id, FIXTURE)
    notice = read_notice(path)
    assert notice is not None and notice.due.isoformat() == "2026-12-07T11:30:00+00:00"
    assert (notice.grace_minutes, notice.share_per_day, notice.max_share) == (15, 0.1, 0.5)
    assert path.stat().st_mode & 0o004  # every student's server reads it
    # nbgrader's list (what Fetch offers) sees the assignment, not the notice
    lister = ExchangeList(
        coursedir=course.coursedir(),
        authenticator=Authenticator(config=course.config),
        config=course.config,
    )
    listed = lister.start()
    assert [a["assignment_id"] for a in listed] == [FIXTURE]
    released = course.exchange / course.course_id / "outbound" / FIXTURE
    assert not any(p.name.startswith(".due") for p in released.rglob("*"))
    assert nbformat.read(released / f"{FIXTURE}.ipynb", as_version=4).cells
    with course.gradebook() as gb:  # no due date: no notice claims one
        gb.update_or_create_assignment(FIXTURE, duedate=None)
    release(course, FIXTURE)
    assert read_notice(path) is None
