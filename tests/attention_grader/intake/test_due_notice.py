"""attention_grader.intake.due_notice: the due date a student's server reads, and its words."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from attention_grader.intake.due_notice import DueNotice, notice_path, publish_notice, read_notice

DUE = datetime(2026, 12, 7, 11, 30, tzinfo=UTC)
RULE = DueNotice(DUE, "Asia/Kolkata", grace_minutes=15, share_per_day=0.1, max_share=0.5)


def test_the_notice_round_trips_and_every_student_can_read_it(tmp_path):
    path = notice_path(tmp_path, "attention-lab", "intro_attention")
    publish_notice(path, RULE)
    assert path == tmp_path / "attention-lab" / "outbound" / ".due-intro_attention.json"
    assert read_notice(path) == RULE
    assert path.stat().st_mode & 0o777 == 0o644
    publish_notice(path, None)  # released again without a due date
    assert not path.exists() and read_notice(path) is None


def test_the_due_date_is_said_in_the_courses_zone_and_utc():
    assert RULE.due_text() == "2026-12-07 17:00 IST (Asia/Kolkata) = 2026-12-07 11:30 UTC"


def test_lateness_says_how_late_and_what_it_costs():
    assert RULE.lateness(DUE - timedelta(hours=1)) == "on time"
    assert RULE.lateness(DUE + timedelta(minutes=10, seconds=50)) == (
        "late by 10 min, within the 15 min grace: no points off"
    )
    assert RULE.lateness(DUE + timedelta(hours=1, minutes=5)) == (
        "late by 1 h 5 min: 10% of the score is taken off"
    )
    assert RULE.lateness(DUE + timedelta(days=2, minutes=20)) == (
        "late by 2 d 20 min: 30% of the score is taken off"
    )
    assert RULE.lateness(DUE + timedelta(days=30)).endswith(": 50% of the score is taken off")
    assert not RULE.penalised(DUE + timedelta(minutes=15))
    assert RULE.penalised(DUE + timedelta(minutes=16))


def test_an_unreadable_notice_is_no_notice(tmp_path):
    bad = tmp_path / "bad.json"
    for text in ("not json", '{"due": "next friday"}', '{"due": "2026-12-07T11:30:00+00:00", '
                 '"timezone": "Mars/Olympus"}', "[1, 2]", "x" * 5000):  # fmt: skip
        bad.write_text(text)
        assert read_notice(bad) is None, text
    link = tmp_path / "link.json"
    good = tmp_path / "good.json"
    publish_notice(good, RULE)
    os.symlink(good, link)
    assert read_notice(link) is None
