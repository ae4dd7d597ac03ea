"""attention_grader.term.student_clock: where a student stands, and what Validate checked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import nbformat
from attention_grader.intake.due_notice import DueNotice
from attention_grader.term.student_clock import clock_of, validated_note

DUE = datetime(2026, 12, 7, 11, 30, tzinfo=UTC)
RULE = DueNotice(DUE, "UTC", grace_minutes=15, share_per_day=0.1, max_share=0.5)


def _hand_in(stamp: str, feedback: bool = False) -> dict:
    return {"timestamp": stamp, "has_exchange_feedback": feedback, "has_local_feedback": False}


def test_before_the_due_date_the_clock_says_how_long_is_left():
    clock = clock_of("a", RULE, None, DUE - timedelta(days=2, hours=3))
    assert clock.due == "due 2026-12-07 11:30 UTC: in 2 d 3 h"
    assert not clock.late and not clock.submit_warning and not clock.feedback


def test_after_the_due_date_submit_asks_first_saying_how_late_and_the_cost():
    clock = clock_of("a", RULE, None, DUE + timedelta(hours=1, minutes=5))
    assert clock.late
    assert (
        clock.due
        == "due 2026-12-07 11:30 UTC: now late by 1 h 5 min: 10% of the score is taken off"
    )
    assert "The due date was 2026-12-07 11:30 UTC" in clock.submit_warning
    assert "late by 1 h 5 min: 10% of the score is taken off" in clock.submit_warning


def test_each_hand_in_says_whether_it_was_late_and_feedback_only_once_released():
    entry = {"submissions": [_hand_in("2026-12-07 11:00:00.000000 UTC"),
                             _hand_in("2026-12-07 11:46:40.000000 UTC")]}  # fmt: skip
    clock = clock_of("a", RULE, entry, DUE + timedelta(days=1))
    assert clock.submissions == (
        ("2026-12-07 11:00:00.000000 UTC", "on time"),
        ("2026-12-07 11:46:40.000000 UTC", "late by 16 min: 10% of the score is taken off"),
    )
    assert not clock.feedback
    entry["submissions"][1]["has_exchange_feedback"] = True
    assert clock_of("a", RULE, entry, DUE).feedback


def test_no_due_date_no_claim():
    clock = clock_of("a", None, {"submissions": [_hand_in("2026-12-07 11:00:00 UTC")]}, DUE)
    assert clock.due == "" and not clock.late and clock.submissions == ()


def _notebook(tmp_path, answers: list[str]):
    nb = nbformat.v4.new_notebook()
    for i, source in enumerate(answers):
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": f"a{i}"}
        nb.cells.append(cell)
    nb.cells.append(nbformat.v4.new_markdown_cell("## Q3"))
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    return path


def test_validate_never_says_passes_all_the_tests_it_says_what_it_checked(tmp_path):
    path = _notebook(tmp_path, ['answer_q1 = "a"', 'answer_q2 = "c"', "YOUR ANSWER HERE"])
    note = validated_note({"success": True, "value": {}}, path)
    assert "passes all the tests" not in note
    assert "2 of 3 answers filled in" in note
    assert "does not say whether your answers are right" in note
    assert "graded after you submit" in note
    assert validated_note({"success": True, "value": "{}"}, path) == note  # nbgrader's JSON string


def test_validate_with_failures_or_errors_keeps_nbgraders_own_list(tmp_path):
    path = _notebook(tmp_path, ["x = 1"])
    assert validated_note({"success": True, "value": {"failed": [{"source": "x"}]}}, path) == ""
    assert validated_note({"success": False, "value": "Traceback"}, path) == ""
    assert validated_note({"success": True, "value": {}}, tmp_path / "gone.ipynb") == ""
