"""attention_grader.pages.feedback_page: what a student reads, rendered without grading anything."""

from __future__ import annotations

import re

import pytest
from attention_grader.pages.feedback_page import FeedbackPageExporter, MarkUngraded, explain_error
from attention_grader.pipeline import configure
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tests.support.grading_course import render_feedback
from tests.support.student_outputs import (
    DIAGNOSED,
    LONG,
    SQROOT_TRACEBACK,
    error,
    feedback_notebook,
)


def test_a_misconception_is_its_message_in_plain_words():
    note = explain_error(error("Misconception", LONG), cell=new_code_cell(metadata=DIAGNOSED))
    assert "What went wrong" in note and "You divided by the sum" in note
    assert "[sum_normalised]" not in note  # the id is for teachers; the words are for students


def test_a_timeout_asks_about_a_loop():
    note = explain_error(error("CellTimeoutError", "Cell execution timed out"), seconds=20)
    assert "Your code ran longer than 20 s: is there a loop that never ends?" in note
    assert explain_error(error("KeyboardInterrupt")) == ""  # the timeout note says why


@pytest.mark.slow
@pytest.mark.parametrize(("recorded", "said"), [(7, 7), ("7; alert(1)", 30), (True, 30)])
def test_a_timeout_page_gives_the_limit_grading_used(recorded, said):
    """`grade --cell-timeout 7` records 7 in the notebook: the page says 7 s, not the config's
    default; anything but a plain number of seconds is ignored.
    """
    nb = new_notebook(cells=[new_code_cell("while True: pass")])
    nb.cells[0].outputs = [error("CellTimeoutError", "Cell execution timed out")]
    nb.metadata["attention_grader"] = {"cell_timeout": recorded}
    text = re.sub(r"<[^>]+>", " ", render_feedback(nb))
    assert f"Your code ran longer than {said} s" in text


def test_an_exception_shows_the_students_line_and_the_error():
    note = explain_error(error("AttributeError", "module 'numpy' has no attribute 'sqroot'",
                               SQROOT_TRACEBACK))  # fmt: skip
    text = re.sub(r"<[^>]+>", " ", note)
    assert "In line 2 of this cell:" in text and "y = np.sqroot(x)" in text
    assert "AttributeError: module &#x27;numpy&#x27; has no attribute &#x27;sqroot&#x27;" in text


def test_student_text_in_a_note_is_escaped():
    note = explain_error(error("Misconception", "[x] y: <img src=x onerror=alert(1)>"))
    assert "<img" not in note and "&lt;img" in note


def test_the_page_puts_the_message_first_and_says_not_graded_yet():
    page = render_feedback(feedback_notebook(), score=0, max_score=5, ungraded=1, late_penalty=0)
    heading = page.index('id="q1_test"')
    assert heading < page.index('role="note"', heading) < page.index("check", heading + 20)
    assert "Score: not graded yet / 3.0" in page and "1 answer(s) not graded yet" in page
    assert '<math alttext="\\frac{1}{\\sqrt{d_k}}"' in page
    assert "mathjax" not in page.lower() and 'http-equiv="Content-Security-Policy"' in page
    assert page.count("<body") == 1


def test_a_late_penalty_is_shown():
    page = render_feedback(feedback_notebook(), score=2, max_score=5, late_penalty=1.5)
    assert "Handed in late: 1.5 point(s) taken off" in page


def test_configure_adds_mark_ungraded_after_getgrades_and_keeps_the_csp():
    from attention_grader.pages import csp
    from nbgrader.preprocessors import ClearHiddenTests, GetGrades
    from traitlets.config import Config

    c = Config()
    configure(c)
    configure(c)  # idempotent
    assert c.GenerateFeedback.preprocessors[:3] == [GetGrades, MarkUngraded, ClearHiddenTests]
    assert c.GenerateFeedback.exporter_class is FeedbackPageExporter
    assert issubclass(c.GenerateFeedback.exporter_class, csp.FeedbackExporter)


@pytest.mark.parametrize("path", ["nbgrader_config.py"])
def test_the_course_config_uses_the_feedback_page(path):
    from pathlib import Path

    from attention_grader.pages.feedback_page import FeedbackPageExporter
    from traitlets.config.loader import PyFileConfigLoader

    root = Path(__file__).resolve().parents[3]
    config = PyFileConfigLoader(path, path=str(root)).load_config()
    assert config.GenerateFeedback.exporter_class is FeedbackPageExporter
    assert MarkUngraded in config.GenerateFeedback.preprocessors


def test_the_contents_list_names_the_questions_not_test_cell():
    """Issue 29: the contents read "Test cell" five times; a student looks for Q1 ... Q5."""

    def test(gid):
        meta = {"nbgrader": {"grade": True, "grade_id": gid, "points": 1, "score": 1}}
        return new_code_cell("check(x)", metadata=meta)

    essay = {"nbgrader": {"grade": True, "solution": True, "grade_id": "q3_essay", "points": 2,
                          "score": 0, "ungraded": True}}  # fmt: skip
    nb = new_notebook(cells=[
        new_markdown_cell("## Q1. Scores"), test("q1_test"),
        new_markdown_cell("## Q2. <b>Weights</b>"), test("q2_a"), test("q2_b"),
        new_markdown_cell("## Q3. Explain"), new_markdown_cell("Mine.", metadata=essay),
    ])  # fmt: skip
    page = render_feedback(nb, score=3, max_score=5, ungraded=1, late_penalty=0)
    toc = re.search(r'<ol id="toc">(.*?)</ol>', page, re.S)[1]
    labels = re.findall(r'<a href="#[^"]*">([^<]*)</a>', toc)
    assert labels == ["Q1", "Q2, check 1", "Q2, check 2", "Q3"]
    assert "Test cell" not in page and "<b>Weights" not in toc


def test_a_blank_answer_reads_as_blank_not_as_an_error():
    """Issue 29: a blank submission read as five NotImplementedErrors."""
    raised = new_output("error", ename="NotImplementedError", evalue="",
                        traceback=["----> 2 raise NotImplementedError()"])  # fmt: skip
    note = explain_error(raised)
    assert "Blank: not answered" in note and "Your code stopped with an error" not in note
    own = new_output("error", ename="NotImplementedError", evalue="softmax of a matrix",
                     traceback=["----> 5 raise NotImplementedError('softmax of a matrix')"])  # fmt: skip
    assert "Blank" not in explain_error(own)  # the student's own raise is their code's error


@pytest.mark.parametrize(
    ("ename", "evalue", "said"),
    [
        ("WrongAnswer", "launched_weights: not yet right", "launched_weights: not yet right"),
        ("AnswerFormatError", "expected 3 numbers", "expected 3 numbers"),
        ("AssertionError", "", "A check of this answer did not pass"),
        ("TypeError", "unsupported operand", "Checking your answer stopped with an error"),
    ],
)
def test_a_failed_check_says_its_words_not_an_exception_class(ename, evalue, said):
    """Issue 39: feedback showed "WrongAnswer: ..." and "AssertionError" to students."""
    text = re.sub(r"<[^>]+>", " ", explain_error(error(ename, evalue)))
    assert said in text
    assert f"{ename}:" not in text and not re.search(rf"\b{ename}\b", text), text
