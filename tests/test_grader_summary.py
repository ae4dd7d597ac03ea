"""attention_grader.summary: the batch summary as data, a printed table and files."""

from __future__ import annotations

import csv
import json

import pytest
from attention_grader.summary import BatchSummary, Flag, SubmissionResult


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
    assert len(lines) == 1 + 1 + 3 + 1  # header, rule, rows, total
    assert lines[2].split()[:3] == ["ana", "graded", "6/10"]
    assert "kernel died" in lines[3] and "late: submitted 2 h after" in lines[4]
    assert "3 submissions (2 graded, 1 error), 2 need attention" in lines[-1]


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
    assert (tmp_path / "out" / "grading.log").read_text() == s.log
