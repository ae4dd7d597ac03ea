"""End to end with a class of 12 on a real assignment: what teachers and students see after grading.

The class of issue 16: right answers, three kinds of misconception, a blank notebook, a late
submission, an exception in a student's own cell and an endless loop; everyone who answered also
wrote the two essays a teacher grades by hand. Every teacher step goes through the command
line (``attention_grader.cli.main``, what the make targets call); students use nbgrader's
exchange. Checked: feedback waits for the essays (item 1), reads well (2), the report (3), the
batch summary, progress and logs (4, 8), the late penalty (5), the Canvas export with a roster
(6) and the rubric in the formgrader (7).
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from attention_grader.cli import main
from attention_grader.config.course import load_course

from tests.support.grading_course import Student, make_course

pytestmark = [
    pytest.mark.slow,
]

REPO_SOURCE = Path(__file__).resolve().parents[2] / "source"
A = "intro_attention"
ESSAYS = {
    "why_exponentiate_explained": "Scores like (2, -1) give a negative weight; e^x is positive.",
    "word_order_reason": "False: the scores do not depend on positions without encodings.",
}
CELL_TIMEOUT = 5
DUE = "2030-11-30 12:00:00"  # after the real submissions, before frank's


def model_answers() -> dict[str, str]:
    nb = nbformat.read(REPO_SOURCE / A / f"{A}.ipynb", as_version=4)
    return {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
    }


def the_class() -> dict[str, dict | None]:
    right = {**model_answers(), **ESSAYS}
    return {
        "alice": right,
        "bob": {**right, "answer_q2": 'answer_q2 = "d"'},  # sum_normalised
        "carol": {**right, "answer_q1": "q1_scores = [2 / 2, 0]", "answer_q2": 'answer_q2 = "c"'},
        "dan": {**right, "answer_q1": "q1_scores = np.exp([2, 0]) / np.exp([2, 0]).sum()"},
        "erin": None,  # blank
        "frank": right,  # handed in 26 h late
        "gita": {**right, "answer_q1": "q1_scores = np.sqroot([4, 0])"},  # raises
        "hari": {**right, "answer_q3": 'answer_q3 = "d"\nwhile True:\n    pass'},  # never ends
        "ivy": right,
        "jo": {**right, "answer_q4": "answer_q4 = True"},  # order_aware_self_attention
        "kim": {**right, "answer_q5": 'answer_q5 = ["query", "key", "weight"]'},
        "lee": right,
    }


def cli(course, *args) -> int:
    return main(["--course", str(course.root), *args])


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """Release, 12 students work and submit, collect, grade (twice: the second changes nothing)."""
    tmp = tmp_path_factory.mktemp("class12")
    course = make_course(tmp, assignments=(A,), source_root=REPO_SOURCE)
    with (course.root / "nbgrader_config.py").open("a") as fh:
        fh.write(
            f"c.Execute.timeout = {CELL_TIMEOUT}\n"
            "from attention_grader.intake.late import SharePerDay\n"
            "c.AssignLatePenalties.plugin_class = SharePerDay\n"
        )
    course = load_course(course.root)
    assert cli(course, "release", A, "--due", DUE) == 0
    students = the_class()
    people = {sid: Student(course, tmp, sid) for sid in students}
    for sid, answers in students.items():
        people[sid].work(A, answers)
    assert cli(course, "collect", A) == 0
    stamp = course.root / "submitted" / "frank" / A / "timestamp.txt"
    stamp.write_text(datetime(2030, 12, 1, 14, 0).strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    return course, people


def captured_cli(course, *args) -> tuple[str, str]:
    """Run a step with stdout and stderr captured (not a terminal, as under CI or a pipe)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert cli(course, *args) == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def graded(term):
    course, people = term
    first = captured_cli(course, "grade", A, "--jobs", "2")
    second = captured_cli(course, "grade", A, "--jobs", "2")  # nothing new: all unchanged
    return course, people, first, second


def summary_rows(course) -> dict[str, dict]:
    path = course.root / "reports" / A / "batch_summary.csv"
    return {r["student"]: r for r in csv.DictReader(path.open())}


def test_summary_reasons_progress_and_logs(graded):
    course, _, first, second = graded
    rows = summary_rows(course)
    assert len(rows) == 12
    assert rows["gita"]["reason"] == "raised AttributeError in cell answer_q1"
    assert rows["hari"]["reason"] == "cell answer_q3 ran over the time limit"
    assert rows["frank"]["flags"] == "late: submitted 1 d 2 h after the due date, penalty 1.2"
    for student, row in rows.items():  # item 8: each flag once
        flags = [f for f in row["flags"].split("; ") if f]
        assert len(flags) == len(set(flags)), (student, flags)
    # progress: not a terminal here, so one plain line per submission, naming the student
    assert "[12/12] " in first[1] and "hari: graded" in first[1] and "\r" not in first[1]
    assert "12 unchanged" in second[0]
    log = (course.root / "reports" / A / "grading.log").read_text()
    assert log.count("##### run of") == 2 and "===== gita" in log
    first_run, second_run = log.split("##### run of")[1:]
    assert "Converting notebook" in first_run and "Skipping" in second_run  # both runs kept


def test_feedback_waits_for_the_essays_then_reads_well(graded, capsys):
    course, people, _, _ = graded
    assert cli(course, "feedback", A) == 2
    err = capsys.readouterr().err
    assert "22 answer(s) of 11 student(s) are waiting for a teacher" in err
    assert f"alice: {A}/why_exponentiate_explained, {A}/word_order_reason" in err
    assert cli(course, "feedback", A, "--partial") == 0
    assert "released feedback for 12 student(s)" in capsys.readouterr().out

    def page(student):
        (path,) = people[student].fetch_feedback(A)[-1:]
        return path.read_text()

    alice = page("alice")
    assert "Score: not graded yet / 2.0" in alice and "Score: 0.0 / 2.0" not in alice
    bob = text_of(page("bob"))
    assert "What went wrong" in bob and "[sum_normalised]" in bob  # full message kept below
    gita = text_of(page("gita"))
    assert "In line 4 of this cell:" in gita or "In line" in gita
    assert "q1_scores = np.sqroot([4, 0])" in gita and "AttributeError: module 'numpy'" in gita
    hari = text_of(page("hari"))
    assert f"Your code ran longer than {CELL_TIMEOUT} s: is there a loop that never ends?" in hari
    frank = text_of(page("frank"))
    assert "Handed in late: 1.2 point(s) taken off" in frank  # 20% of the 6 autograded points
    for student in ["alice", "erin", "hari"]:
        html = page(student)
        assert '<meta http-equiv="Content-Security-Policy"' in html and "mathjax" not in html
        assert "<math" in html and "Rubric" not in html


def grade_essays(course) -> None:
    """What the teacher does in the formgrader: 2 points for every essay waiting."""
    with course.gradebook() as gb:
        for sub in gb.assignment_submissions(A):
            for nb in sub.notebooks:
                for g in nb.grades:
                    if g.needs_manual_grade:
                        g.manual_score, g.needs_manual_grade = 2, False
        gb.db.commit()


def test_report_while_grading_then_after(graded):
    course, _, _, _ = graded
    assert cli(course, "report", A) == 0
    folder = course.root / "reports" / A
    html = (folder / "index.html").read_text()
    assert "Grading is not finished:" in html and "22 answer(s) of 11 student(s)" in html
    students = {r["student"]: r for r in csv.DictReader((folder / "students.csv").open())}
    assert students["gita"]["error"] == "AttributeError in answer_q1"
    assert students["hari"]["timeout"] == "answer_q3"
    assert students["frank"]["late"] == "1 d 2 h late, -1.2 points"
    assert students["bob"]["misconceptions"] == "sum_normalised"
    assert "divided_by_dk" in students["carol"]["misconceptions"]
    for link in ["students.csv", "misconceptions.csv", "batch_summary.csv"]:
        assert f"href='{link}'" in html

    grade_essays(course)
    assert cli(course, "report", A) == 0
    html = (folder / "index.html").read_text()
    assert "Grading is not finished" not in html and "awaiting grading" not in html


def test_feedback_after_grading_grades_csv_and_canvas(graded, tmp_path):
    course, people, _, _ = graded
    grade_essays(course)
    assert cli(course, "feedback", A) == 0
    (page,) = people["alice"].fetch_feedback(A)[-1:]
    assert "not graded yet" not in page.read_text()

    assert cli(course, "grades") == 0
    rows = {r["student_id"]: r for r in csv.DictReader((course.root / "grades.csv").open())}
    assert (rows["frank"]["late_penalty"], rows["frank"]["score"]) == ("1.2", "8.8")
    assert rows["alice"]["score"] == "10" and rows["erin"]["score"] == "0"

    roster = tmp_path / "roster.csv"
    roster.write_text(
        "id,first_name,last_name,email,lms_user_id\n"
        + "".join(f"{s},{s.title()},Test,,{1000 + i}\n" for i, s in enumerate(people))
    )
    from nbgrader.apps.dbapp import DbStudentImportApp

    app = DbStudentImportApp(config=course.config)
    app.initialize([str(roster), f"--db={course.db_url}"])
    app.start()
    assert cli(course, "grades", "--format", "canvas") == 0
    canvas = list(csv.reader((course.root / "grades-canvas.csv").open()))
    assert canvas[0][-1] == A and canvas[1][-1] == "10"
    by_id = {r[1]: r for r in canvas[2:]}
    assert by_id["1005"][0] == "Test, Frank" and by_id["1005"][-1] == "8.8"
    assert len(by_id) == 12


def test_the_formgrader_shows_each_essays_rubric(graded):
    from nbconvert import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    course, _, _, _ = graded
    config = course.config.copy()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    path = course.root / "autograded" / "alice" / A / f"{A}.ipynb"
    resources = {"assignment_id": A, "notebook_id": A, "submission_id": "x", "index": 0,
                 "total": 12, "base_url": "", "student": "alice", "last_name": None,
                 "first_name": None, "notebook_path": "x"}  # fmt: skip
    page, _ = HTMLExporter(config=config).from_filename(str(path), resources=resources)
    essay = page.index(ESSAYS["why_exponentiate_explained"][:30])
    assert essay < page.index("For the grader: model answer and rubric", essay)
    assert page.count("For the grader: model answer and rubric") == 2
