"""A class of 12 with per-student variants, end to end on one machine (issue 41).

Release -> each student fetches, works and submits through nbgrader's exchange -> collect ->
grade -> feedback -> report, every teacher step through the command line. Honest students keep
full marks on their own numbers; two copy alice's answers and one pastes alice's numbers over
her own: they score as wrong and are flagged ``other_variant``; two make a known mistake on
their own numbers and the report names it across the variants; the feedback shows each student
her own numbers and never a classmate's name.
"""

from __future__ import annotations

import csv
import re

import pytest
from attention_grader.cli import main
from attention_grader.config.course import load_course

from tests.support.grading_course import Student, make_course, released_notebook
from tests.support.variant_class import (
    Q3,
    ROOT,
    SOLUTION,
    VARIANT_CONFIG,
    A,
    answers_for,
    numbers_of,
)

pytestmark = [pytest.mark.slow]

DUE = "2030-11-30 12:00:00"


def cli(course, *args) -> int:
    return main(["--course", str(course.root), *args])


def the_class(course) -> dict[str, dict | None]:
    right = {  # the model answers of every code question
        c.metadata.nbgrader["grade_id"]: c.source
        for c in released_notebook(course, A).cells
        if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"
    }
    right.update(
        {
            "answer_q1": 'answer_q1 = "k3"',
            "answer_q2": 'answer_q2 = "a"',
            "answer_q3": SOLUTION,
            "answer_q4": "answer_q4 = True",
        }
    )
    Q, K, V = numbers_of(course, "alice")
    return {
        "alice": right,
        "bob": {**right, "answer_q3": answers_for(Q, K, V)},  # copies alice's numbers
        "carol": {**right, "answer_q3": answers_for(Q, K, V)},  # so does carol
        "dan": {  # pastes alice's numbers over his own, then computes
            **right,
            "answer_q3": f"K = np.array({K.tolist()})\nV = np.array({V.tolist()})\n"
            f"q_launched = np.array({Q[1].tolist()})\n{SOLUTION}",
        },
        "erin": {**right, "answer_q3": SOLUTION.replace(" / np.sqrt(2)", "")},  # forgot_scaling
        "frank": {  # hard_attention on the output
            **right,
            "answer_q3": SOLUTION.replace(
                "launched_output = launched_weights @ V",
                "launched_output = V[np.argmax(launched_scores)]",
            ),
        },
        "gita": None,  # blank
        **{sid: right for sid in ("hari", "ivy", "jo", "kim", "lee")},
    }


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("variants12")
    course = make_course(tmp, assignments=(A,), source_root=ROOT / "source")
    with (course.root / "nbgrader_config.py").open("a") as fh:
        fh.write(VARIANT_CONFIG)
    course = load_course(course.root)
    assert cli(course, "release", A, "--due", DUE) == 0
    students = the_class(course)
    people = {sid: Student(course, tmp, sid) for sid in students}
    for sid, answers in students.items():
        people[sid].work(A, answers)
    assert cli(course, "collect", A) == 0
    assert cli(course, "grade", A, "--jobs", "2") == 0
    assert cli(course, "feedback", A, "--partial") == 0
    assert cli(course, "report", A) == 0
    return course, people


def _q3(course) -> dict[str, list[float]]:
    with course.gradebook() as gb:
        return {
            sub.student.id: [
                next(g.auto_score for g in sub.notebooks[0].grades if g.name == cell) for cell in Q3
            ]
            for sub in gb.assignment_submissions(A)
        }


def test_honest_students_keep_full_marks_on_their_own_numbers(term):
    scores = _q3(term[0])
    assert len(scores) == 12
    for sid in ("alice", "hari", "ivy", "jo", "kim", "lee"):
        assert scores[sid] == [2.0, 2.0, 2.0], sid
    numbers = {str([m.tolist() for m in numbers_of(term[0], s)]) for s in scores}
    assert len(numbers) >= 11  # (two of 12 may share a variant by chance; here none must)


def test_copying_never_earns_the_points_and_is_flagged(term):
    course, _ = term
    scores = _q3(course)
    rows = {r["student"]: r for r in csv.DictReader(
        (course.root / "reports" / A / "batch_summary.csv").open())}  # fmt: skip
    for sid in ("bob", "carol", "dan"):
        assert scores[sid] == [0.0, 0.0, 0.0], sid
        assert "other_variant" in rows[sid]["flags"] and "alice's variant" in rows[sid]["flags"]
    assert "other_variant" not in rows["alice"]["flags"]


def test_the_report_names_misconceptions_across_variants(term):
    course, _ = term
    folder = course.root / "reports" / A
    students = {r["student"]: r for r in csv.DictReader((folder / "students.csv").open())}
    assert "forgot_scaling" in students["erin"]["misconceptions"]
    assert "hard_attention" in students["frank"]["misconceptions"]
    table = (folder / "misconceptions.csv").read_text()
    assert "forgot_scaling" in table and "hard_attention" in table


def test_feedback_shows_her_own_numbers_and_no_classmate(term):
    course, people = term

    def page(sid):
        return re.sub(r"<[^>]+>", " ", people[sid].fetch_feedback(A)[-1].read_text())

    Q, K, V = numbers_of(course, "bob")
    bob = page("bob")
    assert "bob's variant" in bob and str(K.tolist()) in " ".join(bob.split())
    assert "alice" not in bob  # the flag's detail is the teacher's, never the student's
    assert "alice's variant" in page("alice")
