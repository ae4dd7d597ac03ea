"""attention_grader.selfstudy (`make check`): what a student is shown, and what never is.

The whole path (fetch, answer, `make check` on a fresh clone) is in test_student_loop.py.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from attention_grader.selfstudy import (
    QuestionCheck,
    _message,
    _question_label,
    check_working_copy,
    format_checks,
    working_copy_dir,
)
from nbformat.v4 import new_output

ROOT = Path(__file__).resolve().parents[1]


def _error(ename: str, evalue: str):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def test_a_checks_message_is_shown_as_written():
    text = "[forgot_scaling] launched_scores: your answer matches unscaled scores."
    assert _message([_error("Misconception", text)]) == f"not yet: {text}"
    assert "still None" in _message([_error("AnswerFormatError", "answer_q1 is still None")])


def test_a_bare_assertion_never_shows_its_message():
    # a hidden test written as `assert np.isclose(x, 0.248), "expected 0.248"` must not leak
    shown = _message([_error("AssertionError", "expected 0.248 for launched_weights[0]")])
    assert "0.248" not in shown and shown.startswith("not yet")


def test_an_error_from_the_students_code_names_it_in_one_line():
    shown = _message([_error("NameError", "name 'launched_scores' is not defined\nmore")])
    assert shown == "not yet: your code raised NameError: name 'launched_scores' is not defined"


def test_question_headings_label_the_checks():
    assert _question_label('## Q3. The full computation for "launched"') == "Q3"
    assert _question_label("## Exercise 1a. A stable softmax (3 points)") == "Exercise 1a"
    assert _question_label("**Q2, explain.** What goes wrong") is None


def test_the_working_copy_is_where_the_laptop_config_makes_fetch_put_it():
    assert working_copy_dir(ROOT, "intro_attention") == (
        ROOT / "notebooks" / "assignments" / "intro_attention"
    )


def test_no_working_copy_says_how_to_fetch(tmp_path):
    with pytest.raises(FileNotFoundError, match="fetch it first"):
        check_working_copy(ROOT, "intro_attention", tmp_path)
    with pytest.raises(FileNotFoundError, match="one of"):
        check_working_copy(ROOT, "no_such_assignment", tmp_path)


def test_the_printout_has_ticks_and_messages_but_no_score():
    checks = [
        QuestionCheck("Q1", "highest_key_choice", "pass"),
        QuestionCheck("Q3", "launched_scores", "not_yet", "not yet: [forgot_scaling] ..."),
        QuestionCheck("Q1", "highest_key_why", "written", "written answer: your teacher marks it."),
    ]
    text = format_checks("focus_in_the_noise", checks)
    assert "highest_key_choice  ✓" in text
    assert "[forgot_scaling]" in text and "1 check(s) to look at again" in text
    assert "not a grade" in text and "points" not in text and "/" not in text


def test_a_renamed_working_copy_is_named_in_the_error(tmp_path):
    # The hidden tests run only on the released notebook name; a renamed copy is not graded.
    nb = nbformat.read(ROOT / "source" / "intro_attention" / "intro_attention.ipynb", 4)
    nbformat.write(nb, tmp_path / "my copy.ipynb")
    with pytest.raises(FileNotFoundError, match="my copy"):
        check_working_copy(ROOT, "intro_attention", tmp_path)
