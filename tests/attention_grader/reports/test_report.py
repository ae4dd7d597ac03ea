"""attention_grader.reports.report: question difficulty, score distribution, misconception counts."""

from __future__ import annotations

import csv

import pytest
from attention_grader.reports.class_diagnoses import misconception_titles
from attention_grader.reports.report import build_report, write_report

from tests.support.grading_course import synthetic_class


@pytest.fixture
def course(tmp_path):
    return synthetic_class(tmp_path)


def test_the_report_reads_each_notebook_once(course, monkeypatch):
    import nbformat
    from attention_grader.reports import report

    read = []
    real = nbformat.read
    monkeypatch.setattr(
        nbformat, "read", lambda path, *a, **k: read.append(path) or real(path, *a, **k)
    )
    build_report(course, "a1")
    autograded = [p for p in read if "autograded" in str(p)]
    assert sorted(autograded) == sorted(set(autograded)) and len(autograded) == 3
    # the old path (a regex over the error message) is gone
    from attention_lab import misconceptions

    assert not hasattr(report, "parse_diagnosis") and not hasattr(misconceptions, "parse_diagnosis")


def test_students_are_counted_once_per_misconception(course):
    report = build_report(course, "a1")
    counts = {mid: sorted(s) for mid, s in report.students_per_misconception().items()}
    assert counts == {"sum_normalised": ["ben", "cy"], "forgot_scaling": ["cy"]}
    assert list(counts) == ["sum_normalised", "forgot_scaling"]  # most common first


def test_question_statistics(course):
    report = build_report(course, "a1")
    stats = {s.question: s for s in report.stats}
    assert stats["q1"].mean == pytest.approx(2 / 3) and stats["q1"].difficulty == "hard"
    assert stats["q2"].facility == pytest.approx(2 / 3) and stats["q2"].difficulty == "medium"
    # ana's essay still waits for a teacher: left out of the statistics, counted as pending.
    assert (stats["essay"].kind, stats["essay"].pending, stats["essay"].scores) == (
        "manual", 1, [2.0, 0.0]
    )  # fmt: skip
    assert report.totals == {"ana": 3, "ben": 3, "cy": 0}
    assert report.max_total == 5


@pytest.mark.slow
def test_html_report_with_png_figures(course):
    page = write_report(course, "a1")
    folder = course.root / "reports" / "a1"
    assert page == folder / "index.html"
    html = page.read_text()
    titles = misconception_titles()
    assert titles.get("sum_normalised", "sum_normalised") in html
    for png in ["score_distribution.png", "question_difficulty.png", "misconceptions.png"]:
        assert (folder / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"src='{png}'" in html
    rows = list(csv.DictReader((folder / "misconceptions.csv").open()))
    assert len(rows) == 3 and {r["id"] for r in rows} == {"sum_normalised", "forgot_scaling"}
    # 2 of the class of 4 showed sum_normalised: dee, who never handed in, counts in the class
    assert "<td>sum_normalised</td><td>2</td><td>50%</td>" in html


def add_student_failures(course):
    """Student cy's notebook also raised in a cell of their own and timed out in another."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_output

    path = course.root / "autograded" / "cy" / "a1" / "nb.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells += [
        new_code_cell("y = np.sqroot(4)", metadata={"nbgrader": {"grade_id": "practice", "solution": True}},
                      outputs=[new_output("error", ename="AttributeError", evalue="no", traceback=[])]),
        new_code_cell("while True: pass", outputs=[
            new_output("error", ename="KeyboardInterrupt", evalue="", traceback=[]),
            new_output("error", ename="CellTimeoutError", evalue="t", traceback=[])]),
    ]  # fmt: skip
    nbformat.write(nb, path)


@pytest.mark.slow
def test_the_page_warns_while_grading_is_incomplete_and_leaves_ungraded_out(course):
    report = build_report(course, "a1")
    assert report.pending == 1 and report.final_totals() == {"ben": 3, "cy": 0}
    assert {s.question: s.difficulty for s in report.stats}["essay"] == "awaiting grading"
    html = write_report(course, "a1").read_text()
    assert "Grading is not finished:" in html and "1 answer(s) of 1 student(s)" in html
    # the mean is the formgrader's: every student who handed in, ana with her score so far
    assert "Mean final score\n2.00 out of 5" in html
    assert "1 with answers still waiting for you: their score so far" in html

    with course.gradebook() as gb:
        g = gb.find_grade("essay", "nb", "a1", "ana")
        g.manual_score, g.needs_manual_grade = 1, False
        gb.db.commit()
    html = write_report(course, "a1").read_text()
    assert "Grading is not finished" not in html, html[html.find("Grading is not") - 200 :][:400]
    assert "Mean final score\n2.33 out of 5" in html  # (4 + 3 + 0) / 3: ana's essay now counts


@pytest.mark.slow
def test_the_class_table_names_misconceptions_lateness_timeouts_and_errors(course):
    add_student_failures(course)
    report = build_report(course, "a1")
    rows = {r.student: r for r in report.students}
    assert rows["cy"].misconceptions == ["sum_normalised", "forgot_scaling"]
    assert rows["cy"].errors == ["AttributeError in practice"]
    assert rows["cy"].timeouts == ["cell 4"]
    assert rows["ana"].late == "1 h late, no penalty" and rows["ana"].pending == 1
    assert report.misconceptions_per_question() == {
        "q1": {"sum_normalised": ["ben", "cy"]},
        "q2": {"forgot_scaling": ["cy"]},
    }
    page = write_report(course, "a1").read_text()
    assert "<td>AttributeError in practice</td>" in page and "3 (so far; 1 waiting)" in page
    assert "<h3>By question</h3>" in page and "<td>ben, cy</td>" in page
    folder = course.root / "reports" / "a1"
    for csv_name in ["students.csv", "misconceptions.csv"]:
        assert f"href='{csv_name}'" in page and (folder / csv_name).exists()
    students = {r["student"]: r for r in csv.DictReader((folder / "students.csv").open())}
    assert students["cy"]["error"] == "AttributeError in practice"
    assert students["cy"]["misconceptions"] == "sum_normalised forgot_scaling"


def test_names_a_student_chose_are_escaped_in_the_page(course):
    from attention_grader.reports.report_page import page_html

    evil = "<script>x</script>\x1b[2J"
    report = build_report(course, "a1")
    report.students[0].errors.append(f"{evil} in {evil}")
    report.students[0].timeouts.append(evil)
    page = page_html(report, {}, {})
    assert "<script>" not in page and "\x1b" not in page and "&lt;script&gt;" in page


@pytest.mark.slow
def test_the_page_lists_each_flag_with_the_registry_words_and_escapes_its_detail(course):
    import nbformat
    from attention_grader.common import flags
    from attention_grader.common.flag_store import record_flags

    path = course.root / "autograded" / "cy" / "a1" / "nb.ipynb"
    nb = nbformat.read(path, as_version=4)
    record_flags([flags.Flag(flags.FORGED_CELL, "cell 3 claimed <img src=x>")], notebook=nb)
    nbformat.write(nb, path)
    rows = {r.student: r for r in build_report(course, "a1").students}
    # everybody handed in an hour late: the batch's late flag is in the report too
    assert [f.kind for f in rows["cy"].flags] == ["forged_cell", "late"]
    assert [f.kind for f in rows["ben"].flags] == ["late"]
    page = write_report(course, "a1").read_text()
    section = page[page.index("<h2>Flags</h2>") :]
    assert flags.FORGED_CELL.text in section  # what it means, in the registry's words
    assert "&lt;img src=x&gt;" in section and "<img src=x>" not in page


def test_questions_are_named_as_the_students_notebook_numbers_them(course):
    """Issue 39: the report named questions by grade id only; the students see "Q1", "Q2"."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    ids = [s.question for s in build_report(course, "a1").stats]
    cells = []
    for n, grade_id in enumerate(ids, 1):
        cells.append(new_markdown_cell(f"## Q{n}. A question"))
        cells.append(
            new_code_cell("", metadata={"nbgrader": {"grade": True, "grade_id": grade_id}})
        )
    folder = course.root / "source" / "a1"
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=cells), folder / "nb.ipynb")
    html = write_report(course, "a1").read_text()
    for n, grade_id in enumerate(ids, 1):
        assert f"<td>Q{n} ({grade_id})</td>" in html
