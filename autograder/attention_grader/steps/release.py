"""Step 1: generate the student version of an assignment and release it to the exchange."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from attention_grader.config.course import Course, GradingStepError, check_result
from attention_grader.intake.due import CourseTime, describe_due, parse_due
from attention_grader.intake.due_notice import DueNotice, notice_path, publish_notice

__all__ = ["due_line", "publish_due", "refusal_in", "release", "set_duedate"]


def set_duedate(course: Course, assignment: str, duedate: str | datetime | None) -> None:
    """Record the assignment's due date in the gradebook (late submissions are measured from it).

    Parameters
    ----------
    duedate : str or datetime or None
        E.g. ``"2026-12-07 17:00"``, read in the course's time zone (``c.CourseTime.timezone``),
        or with its own (``"2026-12-07 17:00 Asia/Kolkata"``, ``"... +05:30"``): see
        :func:`attention_grader.intake.due.parse_due`, which refuses anything else with the formats
        that work. A naive datetime is in the course's zone too. ``None`` leaves it unchanged.
    """
    if duedate is None:
        return
    zone = CourseTime(config=course.config).zone
    if isinstance(duedate, str):
        due = parse_due(duedate, zone)
    else:
        due = duedate if duedate.tzinfo else duedate.replace(tzinfo=zone)
    with course.gradebook() as gb:
        gb.update_or_create_assignment(assignment, duedate=due.astimezone(UTC))


def due_line(course: Course, assignment: str, written: str | None = None) -> str:
    """Return what release prints about the due date, in every zone the teacher needs.

    The course's zone, UTC, and the zone written in ``written`` (``DUE="2026-12-07 17:00
    Asia/Kolkata"``) if it is another.
    """
    from nbgrader.api import MissingEntry

    with course.gradebook() as gb:
        try:
            stored = gb.find_assignment(assignment).duedate
        except MissingEntry:
            stored = None
    if stored is None:
        return (
            f"{assignment} has no due date: nothing handed in counts as late "
            '(set one with DUE="2026-12-07 17:00")'
        )
    course_time = CourseTime(config=course.config)
    zone = parse_due(written, course_time.zone).tzinfo if written else None
    due = describe_due(stored.replace(tzinfo=UTC), course_time.zone, zone)
    return (
        f"{assignment} is due {due} (the course's time zone is {course_time.timezone}: "
        "c.CourseTime.timezone in nbgrader_config.py)"
    )


def release(course: Course, assignment: str, duedate: str | datetime | None = None) -> None:
    """``nbgrader generate_assignment`` then ``nbgrader release_assignment``, via ``NbGraderAPI``.

    Re-running replaces the released copy (the exchange's ``force``), so fixing a typo in the
    source and releasing again is one command.
    """
    source = course.root / "source" / assignment
    if not source.is_dir():
        known = sorted(p.name for p in (course.root / "source").glob("*") if p.is_dir())
        raise FileNotFoundError(
            f"no source assignment {assignment!r} in {course.root / 'source'}; known: {known}"
        )
    if isinstance(duedate, str):  # refuse an unreadable date before generating anything
        parse_due(duedate, CourseTime(config=course.config).zone)
    api = course.api()
    result = api.generate_assignment(assignment, force=True, create=True)
    refused = refusal_in(result)
    if refused:
        raise GradingStepError(f"release {assignment} refused:\n{refused}")
    check_result(result, f"generate {assignment}")
    set_duedate(course, assignment, duedate)
    check_result(api.release_assignment(assignment), f"release {assignment}")
    publish_due(course, assignment)


def publish_due(course: Course, assignment: str) -> None:
    """Put the gradebook's due date and the late rule where students' servers read them.

    :mod:`attention_grader.intake.due_notice`: the Assignment List says the due date and how
    late a hand-in would be before the student submits. No due date: the notice is removed.
    """
    from nbgrader.api import MissingEntry

    from attention_grader.intake.late import SharePerDay

    with course.gradebook() as gb:
        try:
            stored = gb.find_assignment(assignment).duedate
        except MissingEntry:
            stored = None
    notice = None
    if stored is not None:
        plugin = course.config.AssignLatePenalties.get("plugin_class", "")
        name = plugin if isinstance(plugin, str) else getattr(plugin, "__qualname__", "")
        charged = name.rsplit(".", 1)[-1] == SharePerDay.__name__  # else: say late, not the cost
        rule = SharePerDay(config=course.config)
        notice = DueNotice(
            due=stored.replace(tzinfo=UTC),
            timezone=CourseTime(config=course.config).timezone,
            grace_minutes=rule.grace_minutes,
            share_per_day=rule.share_per_day if charged else 0.0,
            max_share=rule.max_share if charged else 0.0,
        )
    publish_notice(notice_path(course.exchange, course.course_id, assignment), notice)


def refusal_in(result: dict[str, Any]) -> str:
    """Return the release check's list of refused cells in an nbgrader result (empty if none).

    :class:`~attention_grader.batch.solution_check.CheckSolution` refuses inside
    ``generate_assignment``; its message is the last lines of nbgrader's error, one cell each.
    """
    text = f"{result.get('error') or ''}\n{result.get('log') or ''}"
    start = text.find("release refused:")
    if start < 0:
        return ""
    lines = text[start:].splitlines()
    kept = [lines[0]]
    for line in lines[1:]:  # one indented line per cell; a traceback line ends the list
        if not line.startswith("  ") or line.lstrip().startswith("File "):
            break
        kept.append(line)
    return "\n".join(kept)
