"""attention_grader.intake.due: a due date said in every zone a teacher needs, each time once."""

from __future__ import annotations

from datetime import UTC
from zoneinfo import ZoneInfo

from attention_grader.intake.due import describe_due, parse_due

KOLKATA = ZoneInfo("Asia/Kolkata")


def test_a_zone_the_teacher_wrote_is_echoed_beside_the_courses_and_utc():
    due = parse_due("2026-12-07 17:00 Asia/Kolkata", UTC)  # a course kept in UTC
    said = describe_due(due, UTC, due.tzinfo)
    assert said == "2026-12-07 11:30 UTC = 2026-12-07 17:00 IST (Asia/Kolkata)"


def test_the_courses_own_zone_is_said_with_utc_once():
    due = parse_due("2026-12-07 17:00", KOLKATA)
    assert describe_due(due, KOLKATA, due.tzinfo) == (
        "2026-12-07 17:00 IST (Asia/Kolkata) = 2026-12-07 11:30 UTC"
    )
    assert describe_due(parse_due("2026-12-07 17:00", UTC), UTC) == "2026-12-07 17:00 UTC"
