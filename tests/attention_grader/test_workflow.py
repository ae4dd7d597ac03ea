"""End to end on a real assignment: release -> 3 students -> collect -> grade -> feedback -> CSV -> report.

Runs every teacher step through the command line (``attention_grader.cli.main``, what the make
targets call) on a temporary course with its own exchange; the students use nbgrader's exchange.
"""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
import pytest
from attention_grader.cli import main

from tests.support.grading_course import Student, make_course

pytestmark = [  # both raised inside nbgrader 0.9.6 (an autoflush warning, an `authentictor` typo)
]

REPO_SOURCE = Path(__file__).resolve().parents[2] / "source"
ASSIGNMENT = "intro_attention"
# A known misconception of this assignment: Q2 "divide by the sum of raw scores".
MISCONCEIVED_Q2 = ("answer_q2", 'answer_q2 = "d"', "sum_normalised")


def solution_answers(source: Path) -> dict[str, str]:
    """The model answers: the source's solution cells (code and written), by grade_id."""
    nb = nbformat.read(source, as_version=4)
    return {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def autograded_points(source: Path) -> dict[str, float]:
    """grade_id -> points of the autograded (code) test cells, and which answer each tests."""
    nb = nbformat.read(source, as_version=4)
    return {
        c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader["points"]
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
    }


def cli(course, *args) -> None:
    assert main(["--course", str(course.root), *args]) == 0


@pytest.mark.slow
def test_teacher_workflow_end_to_end(tmp_path, capsys):
    course = make_course(tmp_path, assignments=(ASSIGNMENT,), source_root=REPO_SOURCE)
    source_nb = course.root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    cli(course, "release", ASSIGNMENT)
    assert (course.exchange / course.course_id / "outbound" / ASSIGNMENT).is_dir()

    model = solution_answers(source_nb)
    cell_id, wrong, slug = MISCONCEIVED_Q2
    students = {
        "alice": model,
        "bob": {**model, cell_id: wrong},
        "carol": None,  # hands in the notebook untouched
    }
    people = {sid: Student(course, tmp_path, sid) for sid in students}
    for sid, answers in students.items():
        people[sid].work(ASSIGNMENT, answers)

    cli(course, "collect", ASSIGNMENT)
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == sorted(students)

    # as `make grade` does: the course pipeline (hidden tests in the grader, sandboxed kernels)
    cli(course, "grade", ASSIGNMENT, "--jobs", "2", "--no-progress")
    out = capsys.readouterr().out
    assert "Sandbox protections for student kernels" in out
    assert (
        "3 graded" in out and (course.root / "reports" / ASSIGNMENT / "batch_summary.csv").exists()
    )

    # alice's and bob's written answers wait for a teacher: refused, then released as partial
    assert main(["--course", str(course.root), "feedback", ASSIGNMENT]) == 2
    assert "alice: intro_attention/" in capsys.readouterr().err
    cli(course, "feedback", ASSIGNMENT, "--partial")
    for sid in students:
        pages = people[sid].fetch_feedback(ASSIGNMENT)
        assert len(pages) == 1, f"{sid} got no feedback"
        assert "Score" in pages[0].read_text() or "score" in pages[0].read_text()

    cli(course, "grades")
    rows = {r["student_id"]: r for r in csv.DictReader((course.root / "grades.csv").open())}
    points = autograded_points(source_nb)
    full = sum(points.values())
    q2_points = sum(p for gid, p in points.items() if "answer_q2" in _cell_source(source_nb, gid))
    assert q2_points > 0
    assert float(rows["alice"]["score"]) == full
    assert float(rows["bob"]["score"]) == full - q2_points
    assert float(rows["carol"]["score"]) == 0
    assert {r["assignment"] for r in rows.values()} == {ASSIGNMENT}
    # Written answers are manually graded: the CSV says they still need a teacher; a blank
    # submission has nothing to grade by hand.
    assert (rows["alice"]["needs_manual_grade"], rows["carol"]["needs_manual_grade"]) == (
        "yes",
        "no",
    )

    cli(course, "report", ASSIGNMENT)
    folder = course.root / "reports" / ASSIGNMENT
    page = (folder / "index.html").read_text()
    diagnosed = list(csv.DictReader((folder / "misconceptions.csv").open()))
    assert [(d["student"], d["id"]) for d in diagnosed] == [("bob", slug)]
    from attention_lab.checks import MISCONCEPTIONS

    assert MISCONCEPTIONS[slug] in page
    for png in ["score_distribution.png", "question_difficulty.png", "misconceptions.png"]:
        assert (folder / png).read_bytes()[:4] == b"\x89PNG" and png in page


def _cell_source(path: Path, grade_id: str) -> str:
    nb = nbformat.read(path, as_version=4)
    return next(
        c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )
