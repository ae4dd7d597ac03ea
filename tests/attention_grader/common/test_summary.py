"""attention_grader.common.summary: the batch summary as data, a printed table and files."""

from __future__ import annotations

import csv
import json
from datetime import UTC

import pytest
from attention_grader.common import flags
from attention_grader.common.flags import Flag
from attention_grader.common.summary import BatchSummary, SubmissionResult


def sample() -> BatchSummary:
    return BatchSummary(
        "intro_attention",
        [
            SubmissionResult("ana", "graded", score=6, max_score=10),
            SubmissionResult("ben", "error", "the kernel died while running it"),
            SubmissionResult(
                "cy", "graded", flags=[Flag("late", "submitted 2 h after")], score=3, max_score=10
            ),  # fmt: skip
        ],
        wall_seconds=12.3,
        jobs=2,
    )


def test_table_has_one_line_per_submission_and_a_total():
    lines = sample().table().splitlines()
    # header, rule, rows, total, written answers, then each kind of flag explained
    assert len(lines) == 1 + 1 + 3 + 2 + 2
    assert lines[2].split()[:3] == ["ana", "graded", "6/10"]
    assert "kernel died" in lines[3] and "late: submitted 2 h after" in lines[4]
    assert "3 submissions (2 graded, 1 error), 2 need attention" in lines[-4]
    assert lines[-3] == "Written answers: none wait for a teacher."
    assert lines[-2:] == ["Flags:", f"  late: {flags.LATE.text}. {flags.LATE.action}"]


def test_the_table_says_how_many_written_answers_wait_and_the_final_score_with_its_penalty():
    """Issue 29: "0 need attention" while written answers waited; late sam read 6/10 here and
    4.8 in grades.csv. The score is the final one, the penalty beside it.
    """
    summary = BatchSummary("a", [
        SubmissionResult("sam", "graded", score=4.8, max_score=10, penalty=1.2, waiting=2),
        SubmissionResult("tia", "graded", score=9, max_score=10, waiting=1),
        SubmissionResult("uma", "graded", score=10, max_score=10),
    ])  # fmt: skip
    lines = summary.table().splitlines()
    assert lines[2].split()[:5] == ["sam", "graded", "4.8/10", "(late", "-1.2)"]
    assert lines[-1].startswith("Written answers: 3 wait for a teacher (2 submission(s))")
    assert "Formgrader" in lines[-1]


def test_needs_attention_and_counts():
    s = sample()
    assert [r.student for r in s.needs_attention] == ["ben", "cy"]
    assert s.count("graded") == 2 and s.by_student()["ben"].status == "error"


def test_unknown_status_is_refused():
    with pytest.raises(ValueError, match="status must be one of"):
        SubmissionResult("x", "done")


def test_write_json_csv_and_log(tmp_path):
    s = sample()
    s.log = "===== ana\n[INFO] ok\n"
    js, cs = s.write(tmp_path / "out")
    data = json.loads(js.read_text())
    assert data["results"][2]["flags"] == [{"kind": "late", "detail": "submitted 2 h after"}]
    rows = list(csv.DictReader(cs.open()))
    assert [r["status"] for r in rows] == ["graded", "error", "graded"]
    log = (tmp_path / "out" / "grading.log").read_text()
    assert log.startswith("##### run of ") and log.endswith(s.log)


def test_every_runs_log_is_kept(tmp_path):
    from datetime import datetime

    first, second = sample(), sample()
    first.log, second.log = "===== ana\n[INFO] graded 198 lines\n", "===== ana\n[INFO] Skipping\n"
    first.write(tmp_path, when=datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    second.write(tmp_path, when=datetime(2026, 12, 1, 10, 0, tzinfo=UTC))
    log = (tmp_path / "grading.log").read_text()
    assert log.index("graded 198 lines") < log.index("Skipping")
    assert "run of 2026-12-01 09:00:00 UTC" in log and "run of 2026-12-01 10:00:00 UTC" in log


def test_a_flag_is_listed_once():
    twice = Flag("edited_test_cell", "nb/q1_test was changed")
    r = SubmissionResult("ana", "graded", flags=[twice, Flag("late", "1 h"), twice])
    assert r.flags == [twice, Flag("late", "1 h")]
    table = BatchSummary("a", [r]).table()
    assert table.count("edited_test_cell: nb/q1_test was changed") == 1
    assert table.count(f"  edited_test_cell: {flags.EDITED_TEST_CELL.text}") == 1  # explained once


def test_a_reason_alone_needs_attention():
    r = SubmissionResult("cy", "graded", "raised AttributeError in cell practice_attention")
    s = BatchSummary("a", [r, SubmissionResult("ana", "graded")])
    assert s.needs_attention == [r]
    assert "raised AttributeError in cell practice_attention" in s.table().splitlines()[2]
