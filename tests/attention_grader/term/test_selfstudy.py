"""attention_grader.term.selfstudy (`make check`): what a student is shown, and what never is.

The whole path (fetch, answer, `make check` on a fresh clone) is in test_student_loop.py.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import nbformat
import pytest
from attention_grader.term.check_tries import choices_revealed
from attention_grader.term.check_tries import count_try as _count_try
from attention_grader.term.selfstudy import (
    QuestionCheck,
    _gate,
    _message,
    _question_label,
    check_working_copy,
    choice_cells,
    format_checks,
    working_copy_dir,
)
from nbformat.v4 import new_output

ROOT = Path(__file__).resolve().parents[3]


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
        ROOT / "work" / "assignments" / "intro_attention"
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


@pytest.mark.slow
def test_a_renamed_working_copy_is_named_in_the_error(tmp_path):
    # The hidden tests run only on the released notebook name; a renamed copy is not graded.
    nb = nbformat.read(ROOT / "source" / "intro_attention" / "intro_attention.ipynb", 4)
    nbformat.write(nb, tmp_path / "my copy.ipynb")
    with pytest.raises(FileNotFoundError, match="my copy"):
        check_working_copy(ROOT, "intro_attention", tmp_path)


# --- issue 27: a choice's verdict is held back until feedback is released or after N tries ----


def test_choice_cells_are_read_from_the_teachers_source():
    found = choice_cells(ROOT / "source" / "intro_attention")
    assert found == {"why_exponentiate_choice", "bag_weight_source_choice", "word_order_true_false"}
    assert "dot_products_query_2_0" not in found


def test_a_held_back_choice_says_checked_whatever_it_was():
    gate = choices_revealed(released=False, tries=2, limit=5)
    assert not gate.revealed and "check 2" in gate.note and "number 6" in gate.note
    wrong = QuestionCheck("Q2", "c", "not_yet", "not yet: [hard_attention] ...", "Misconception")
    right = QuestionCheck("Q2", "c", "pass")
    assert _gate(wrong, gate) == _gate(right, gate)
    assert _gate(right, gate).status == "checked" and "[" not in _gate(wrong, gate).message
    # a format problem, or the student's own error, says nothing about the option: it shows
    blank = QuestionCheck(
        "Q2", "c", "not_yet", "not yet: answer_q2 is still None", "AnswerFormatError"
    )
    assert _gate(blank, gate) == blank
    named = QuestionCheck("Q2", "c", "not_yet", "not yet: your code raised NameError", "NameError")
    assert _gate(named, gate) == named


@pytest.mark.parametrize(
    ("released", "tries", "limit", "revealed"),
    [(False, 5, 5, False), (False, 6, 5, True), (True, 1, 5, True), (False, 99, 0, False)],
)
def test_choices_are_revealed_after_feedback_or_after_the_tries(released, tries, limit, revealed):
    gate = choices_revealed(released, tries, limit)
    assert gate.revealed == revealed
    checks = [
        QuestionCheck("Q2", "c", "pass" if revealed else "checked", "" if revealed else "checked")
    ]
    assert gate.note in format_checks("intro_attention", checks, gate)


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    """The user's state folder, where ``make check`` keeps its counts (never the course's)."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


def test_tries_are_counted_per_user_outside_the_course_and_survive_a_broken_file(
    tmp_path, state_dir
):
    course = tmp_path / "course"
    course.mkdir()
    assert [_count_try(course, "intro_attention") for _ in range(3)] == [1, 2, 3]
    (ledger,) = state_dir.rglob("*.json")
    assert course not in ledger.parents and str(os.getuid()) in ledger.parts  # system identity
    ledger.write_text("{not json")
    assert _count_try(course, "intro_attention") == 1
    assert _count_try(course, "../../escape") == 1  # a name, never a path
    assert not list(tmp_path.rglob("escape*.json")) or all(
        state_dir in p.parents for p in tmp_path.rglob("escape*.json")
    )


def _course_and_copy(tmp_path, choice_tries: int, answer_q2: str):
    """A course folder with intro_attention and its config, and a working copy answering Q2."""
    from tests.support.grading_course import make_course

    root = make_course(
        tmp_path,
        ["intro_attention"],
        ROOT / "source",
        config_file=ROOT / "nbgrader_config.py",
        config=f"\nc.SelfStudy.choice_tries = {choice_tries}\n",
    ).root
    copy = tmp_path / "copy"
    copy.mkdir()
    nb = nbformat.read(ROOT / "source" / "intro_attention" / "intro_attention.ipynb", 4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "answer_q2":
            cell.source = answer_q2
    nbformat.write(nb, copy / "intro_attention.ipynb")
    return root, copy


@pytest.fixture
def course_copy(tmp_path, state_dir):
    """One try before choices show; Q2 answered with a wrong option (hard_attention)."""
    return _course_and_copy(tmp_path, 1, 'answer_q2 = "c"')


@pytest.mark.slow
def test_make_check_holds_a_wrong_choice_back_then_shows_it(course_copy, state_dir):
    root, copy = course_copy
    first, gate = check_working_copy(root, "intro_attention", copy)
    (q2,) = [c for c in first if c.cell == "why_exponentiate_choice"]
    assert q2.status == "checked" and "hard_attention" not in format_checks("x", first, gate)
    assert not gate.revealed and "check 1" in gate.note
    (q1,) = [c for c in first if c.cell == "dot_products_query_2_0"]
    assert q1.status == "pass"  # a computed answer is not held back
    second, gate = check_working_copy(root, "intro_attention", copy)  # tries > choice_tries
    (q2,) = [c for c in second if c.cell == "why_exponentiate_choice"]
    assert gate.revealed and q2.status == "not_yet" and "[hard_attention]" in q2.message
    for ledger in state_dir.rglob("*.json"):
        ledger.unlink()  # a fresh count ...
    mine = root / "feedback" / pwd.getpwuid(os.getuid()).pw_name / "intro_attention"
    mine.mkdir(parents=True)  # ... but the teacher's side made her feedback
    (mine / "intro_attention.html").write_text("<html></html>")
    third, gate = check_working_copy(root, "intro_attention", copy)
    assert gate.revealed and "released" in gate.note


@pytest.mark.slow
def test_make_checks_limits_are_not_in_her_folder_nor_in_the_course_folder(tmp_path, state_dir):
    """Issue 37 (0): a fake feedback page in her folder, a classmate's feedback, or a tries file
    set to 99 where the count used to be, reveal nothing; the check still counts.
    """
    root, copy = _course_and_copy(tmp_path, 5, 'answer_q2 = "c"')
    (copy / "feedback" / "2026-12-01").mkdir(parents=True)
    (copy / "feedback" / "2026-12-01" / "x.html").write_text("<html></html>")
    other = root / "feedback" / "not-her" / "intro_attention"
    other.mkdir(parents=True)
    (other / "intro_attention.html").write_text("<html></html>")
    (root / ".selfstudy").mkdir()
    (root / ".selfstudy" / "intro_attention.json").write_text('{"tries": 99}')
    (copy / ".selfstudy").mkdir()
    (copy / ".selfstudy" / "intro_attention.json").write_text('{"tries": 99}')
    checks, gate = check_working_copy(root, "intro_attention", copy)
    (q2,) = [c for c in checks if c.cell == "why_exponentiate_choice"]
    assert not gate.revealed and q2.status == "checked" and "check 1 " in gate.note


@pytest.mark.slow  # the check asks the machine's protections first (bwrap's probe)
def test_a_check_counts_before_grading_so_a_raising_submission_counts(
    tmp_path, state_dir, monkeypatch
):
    """Issue 37 (0): a try is counted when the check is asked for, whatever grading does then."""
    from attention_grader.term import selfstudy

    root, copy = _course_and_copy(tmp_path, 5, 'answer_q2 = "c"\nraise ValueError("x")')

    def broken(*args, **kwargs):
        raise selfstudy.GradingStepError("her notebook stopped the grading")

    monkeypatch.setattr(selfstudy, "release", lambda *a, **k: None)
    monkeypatch.setattr(selfstudy, "grade", broken)
    for _ in range(2):
        with pytest.raises(selfstudy.GradingStepError):
            check_working_copy(root, "intro_attention", copy)
    assert _count_try(root, "intro_attention") == 3


def _autograded(*cells) -> Path:
    return nbformat.v4.new_notebook(cells=list(cells))


def _answer_cell(source: str, outputs=()):
    cell = nbformat.v4.new_code_cell(source, outputs=list(outputs))
    cell.metadata.nbgrader = {"solution": True, "grade": False, "grade_id": "answer_cell"}
    return cell


def _test_cell(grade_id: str, outputs=()):
    cell = nbformat.v4.new_code_cell("check(answer_q5)", outputs=list(outputs))
    cell.metadata.nbgrader = {"grade": True, "grade_id": grade_id, "points": 1}
    return cell


def _written(source: str):
    cell = nbformat.v4.new_markdown_cell(source)
    cell.metadata.nbgrader = {"grade": True, "solution": True, "grade_id": "explain", "points": 2}
    return cell


def _checks_of(tmp_path, *cells) -> list[QuestionCheck]:
    from attention_grader.term.selfstudy import _read_checks

    path = tmp_path / "a.ipynb"
    nbformat.write(_autograded(*cells), path)
    return _read_checks(path, {"q5_test": (0.0, 1.0), "explain": (None, 2.0)})


def test_the_error_names_the_students_undefined_name_not_the_answers(tmp_path):
    """`answer_q5 = [query, key, value]` raises NameError for `query`; the test after it then
    fails on `answer_q5`. The student must be told about `query` (issue 29).
    """
    (check,) = [c for c in _checks_of(
        tmp_path,
        nbformat.v4.new_markdown_cell("## Q5. Which vectors"),
        _answer_cell("answer_q5 = [query, key, value]",
                     [_error("NameError", "name 'query' is not defined")]),
        _test_cell("q5_test", [_error("NameError", "name 'answer_q5' is not defined")]),
    ) if c.cell == "q5_test"]  # fmt: skip
    assert check.question == "Q5"
    assert check.message == "not yet: your code raised NameError: name 'query' is not defined"


def test_blank_answers_read_as_blank(tmp_path):
    code, written = _checks_of(
        tmp_path,
        nbformat.v4.new_markdown_cell("## Q5. Which vectors"),
        _answer_cell("answer_q5 = None\nraise NotImplementedError()",
                     [_error("NotImplementedError", "")]),
        _test_cell("q5_test", [_error("AnswerFormatError", "answer_q5 is still None")]),
        nbformat.v4.new_markdown_cell("## Q6. Explain"),
        _written("YOUR ANSWER HERE"),
    )  # fmt: skip
    assert code.message.startswith("blank: replace None") and code.question == "Q5"
    assert (written.status, written.question) == ("not_yet", "Q6")
    assert written.message == "blank: write your answer in place of YOUR ANSWER HERE."
    assert "1 check(s)" not in format_checks("a", [code, written])  # both count as to do
    assert "2 check(s) to look at again" in format_checks("a", [code, written])


@pytest.mark.slow
def test_validate_names_the_question_of_each_blank_answer(tmp_path):
    """Issue 29: Validate listed "YOUR ANSWER HERE" again and again without naming the question."""
    from attention_grader.config.course import new_course
    from attention_grader.steps.release import release
    from attention_grader.term.validate_labels import name_questions
    from nbgrader.validator import Validator

    course = new_course(tmp_path / "course", ROOT / "source", ["intro_attention"])
    release(course, "intro_attention")
    released = course.root / "release" / "intro_attention" / "intro_attention.ipynb"
    name_questions()
    failed = Validator().validate(str(released))["failed"]
    blank_written = [f["raw_error"] for f in failed if f["source"] == "YOUR ANSWER HERE"]
    assert blank_written == [
        "Q2, written answer: You did not provide a response.",
        "Q4, written answer: You did not provide a response.",
    ]
    assert all(f["raw_error"].startswith("Q") for f in failed), [f["raw_error"] for f in failed]


@pytest.mark.slow
def test_make_check_runs_a_students_own_code_where_the_sandbox_is_missing(tmp_path, monkeypatch):
    """Grading refuses students' code without the walls; ``make check`` (her own code, her own
    laptop) says "off" on purpose there, and keeps the sandbox where it exists.
    """
    from attention_grader.config.course import new_course
    from attention_grader.sandbox import protections as protections_module
    from attention_grader.sandbox.protections import Protection
    from attention_grader.term.selfstudy import _own_work

    from tests.support.grading_course import FIXTURE, FIXTURE_SOURCE

    kept = _own_work(new_course(tmp_path / "a", FIXTURE_SOURCE, [FIXTURE]))
    assert kept.config.SandboxedKernelManager.sandbox != "off"
    down = [
        Protection("filesystem isolation (...)", False, "bwrap not found"),
        Protection("no network (...)", False, "bwrap not found"),
    ]
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setattr(protections_module, "protections", lambda *a, **k: down)
    course = _own_work(new_course(tmp_path / "b", FIXTURE_SOURCE, [FIXTURE]))
    assert course.config.SandboxedKernelManager.sandbox == "off"


def _choice_checks(tmp_path, answer: str, raised: bool, passed: bool) -> list[QuestionCheck]:
    """What a held-back choice shows, from an autograded notebook: her answer cell (which may
    have raised after binding the choice), then the choice's test (passed or not).
    """
    from attention_grader.term.selfstudy import _read_checks

    answer_out = [_error("ValueError", "after binding")] if raised else []
    test_out = [] if passed else [_error("Misconception", "[hard_attention] ...")]
    cells = [
        nbformat.v4.new_markdown_cell("## Q2. Why exponentiate"),
        _answer_cell(answer + ('\nraise ValueError("after binding")' if raised else ""),
                     answer_out),
        _test_cell("q2_choice", test_out),
    ]  # fmt: skip
    path = tmp_path / f"{answer[-2]}{raised}{passed}.ipynb"
    nbformat.write(_autograded(*cells), path)
    gate = choices_revealed(released=False, tries=1, limit=5)
    scores = {"q2_choice": (1.0 if passed else 0.0, 1.0)}
    return [_gate(c, gate) for c in _read_checks(path, scores)]


def test_an_answer_cell_that_raises_after_binding_the_choice_reveals_nothing(tmp_path):
    """Issue 37 (0): `answer_q2 = "c"; raise ValueError` showed her own error when the choice was
    wrong and "checked" when it was right: the verdict, without the tries.
    """
    right = _choice_checks(tmp_path, 'answer_q2 = "b"', raised=True, passed=True)
    wrong = _choice_checks(tmp_path, 'answer_q2 = "c"', raised=True, passed=False)
    assert right == wrong
    assert "ValueError" in right[0].message  # her own error is still said
    assert _choice_checks(tmp_path, 'answer_q2 = "b"', False, True) == _choice_checks(
        tmp_path, 'answer_q2 = "c"', False, False
    )
