"""attention_grader.steps.feedback and feedback_page: feedback waits for manual grades and reads well.

One small class is graded for real (sandboxed kernels, hidden tests in the grader): a correct
student, a misconception, an exception in a student's own cell, an endless loop and a blank
submission; four of them wrote the essay a teacher grades by hand.
"""

from __future__ import annotations

import copy
import re

import pytest
from attention_grader.cli import main
from attention_grader.steps.feedback import UngradedAnswers, feedback_report, ungraded_answers

from tests.support.graded_classes import ClassSpec
from tests.support.grading_course import (
    CORRECT,
    FIXTURE,
    MISCONCEIVED,
    answer,
    place_submission,
    released_notebook,
    written_fixture,
)

pytestmark = pytest.mark.slow

ESSAY = {"essay": "Scores can be negative, so dividing by their sum can flip a sign."}
RAISES = {**CORRECT, "q2_answer": "def double(x):\n    return 2 * x\n\ny = math.sqroot(4)"}
LOOPS = {**CORRECT, "q2_answer": "def double(x):\n    return 2 * x\n\nwhile True:\n    pass"}
CLASS = {
    "alice": {**CORRECT, **ESSAY},
    "bob": {**MISCONCEIVED, **ESSAY},
    "cy": {**RAISES, **ESSAY},
    "dee": {**LOOPS, **ESSAY},
    "eve": None,  # hands in the notebook untouched
}
CELL_TIMEOUT = 4


def _hand_in(course) -> None:
    nb = released_notebook(course, FIXTURE)
    for student, answers in CLASS.items():
        work = answer(copy.deepcopy(nb), answers) if answers else copy.deepcopy(nb)
        path = place_submission(course, FIXTURE, student, work)
        (path.parent / "submission_secret.txt").write_text(student.encode().hex())  # as submit


@pytest.fixture(scope="module")
def graded(tmp_path_factory, shared_class):
    """The class of this module (its tests write grades and feedback into it)."""
    spec = ClassSpec(
        "feedback",
        hand_in=_hand_in,
        source=written_fixture(tmp_path_factory.mktemp("written")),
        config=f"c.Execute.timeout = {CELL_TIMEOUT}\n",  # grading and feedback read it
        due="2026-11-30 12:00:00",
    )
    graded = shared_class(spec)
    return graded.course, graded.summary


def page(course, student) -> str:
    return (course.root / "feedback" / student / FIXTURE / f"{FIXTURE}.html").read_text()


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_batch_summary_gives_a_reason_for_each_failure(graded):
    _course, summary = graded
    reasons = {r.student: r.reason for r in summary.results}
    assert reasons["cy"] == "raised AttributeError in cell q2_answer"
    assert reasons["dee"] == "cell q2_answer ran over the time limit"
    assert reasons["alice"] == reasons["bob"] == reasons["eve"] == ""
    attention = [r.student for r in summary.needs_attention]
    assert "cy" in attention and "dee" in attention and "alice" not in attention


def test_feedback_is_refused_while_essays_are_ungraded(graded, capsys):
    course, _ = graded
    waiting = ungraded_answers(course, FIXTURE)
    # eve's essay is blank: nbgrader scores it 0 and it waits for nobody.
    assert waiting == {s: [f"{FIXTURE}/essay"] for s in ["alice", "bob", "cy", "dee"]}
    with pytest.raises(UngradedAnswers) as refused:
        feedback_report(course, FIXTURE)
    assert "alice: mini_softmax/essay" in str(refused.value) and "PARTIAL=1" in str(refused.value)
    assert not (course.root / "feedback").exists()
    assert main(["--course", str(course.root), "feedback", FIXTURE]) == 2
    err = capsys.readouterr().err
    assert "not graded yet" in err and "dee: mini_softmax/essay" in err


def test_partial_feedback_says_not_graded_yet_and_explains(graded):
    course, _ = graded
    done = feedback_report(course, FIXTURE, partial=True)
    assert done.released == sorted(CLASS) and sorted(done.ungraded) == ["alice", "bob", "cy", "dee"]
    alice = page(course, "alice")
    assert "not graded yet" in text_of(alice) and "1 answer(s) not graded yet" in text_of(alice)
    assert not re.search(r"Written response</a> \(Score: 0", alice)
    assert "not graded yet" not in page(course, "eve")  # blank: a real 0

    # misconception: its message in plain words, before the test's code
    bob = page(course, "bob")
    assert "What went wrong" in bob and "[hard_attention]" not in text_of(bob).split("Check")[0]
    check = bob.index('id="q1_softmax"')
    assert (
        check
        < bob.index('class="feedback-note feedback-misconception"')
        < bob.index('class="input_area"', check)
    )
    assert "You divided by the sum of scores; exponentiate first." in text_of(bob)
    # the exception: the student's own line and the error
    cy = text_of(page(course, "cy"))
    assert "In line 4 of this cell:" in cy and "y = math.sqroot(4)" in cy
    assert "AttributeError: module 'math' has no attribute 'sqroot'" in cy
    # the endless loop
    dee = text_of(page(course, "dee"))
    assert f"Your code ran longer than {CELL_TIMEOUT} s: is there a loop that never ends?" in dee


def test_feedback_pages_are_offline_wrapped_and_keep_their_policy(graded):
    course, _ = graded
    for student in CLASS:
        html = page(course, student)
        assert '<meta http-equiv="Content-Security-Policy"' in html
        assert "mathjax" not in html.lower() and "cdn" not in html.lower()
        assert '<math alttext="\\sqrt{d_k}"' in html  # maths as MathML, drawn with no internet
        assert "white-space: pre-wrap" in html
        assert "Rubric" not in html and "Model answer" not in html  # the formgrader's only


def test_feedback_releases_once_everything_is_graded(graded):
    course, _ = graded
    with course.gradebook() as gb:
        for student in ["alice", "bob", "cy", "dee"]:
            g = gb.find_grade("essay", FIXTURE, FIXTURE, student)
            g.manual_score, g.needs_manual_grade = 2, False
        gb.db.commit()
    assert ungraded_answers(course, FIXTURE) == {}
    done = feedback_report(course, FIXTURE)
    assert done.released == sorted(CLASS) and done.ungraded == {}
    assert "not graded yet" not in page(course, "alice")
