"""The class report and the gain page read in Chromium: the numbers a teacher sees are the files'
(issue 39, item 7).

The report: the formgrader's late class (``test_formgrader_scores``), copied, with a student who
never handed in and the on-time student's written answer graded by hand; every student's score
on the page, the class size and the mean are those of ``grades.csv``. The gain page: a class of
three simulated by hand (``test_gain``'s helpers, no kernels); its averages, ⟨g⟩ and each
student's "chose it" share are those of ``gain.csv`` and of the students it counts.
"""

from __future__ import annotations

import csv
import re
import shutil
import statistics

import pytest

from .test_formgrader_xss import ASSIGNMENT

pytestmark = pytest.mark.slow


def _cells(page, first: str) -> list[str]:
    """The cells of the page's table row whose first cell is ``first``."""
    row = page.locator("tr", has=page.locator("td:first-child", has_text=re.compile(f"^{first}$")))
    return [c.strip() for c in row.first.locator("td").all_inner_texts()]


def test_the_report_shows_the_final_scores_of_grades_csv(page, late_class, tmp_path):
    from attention_grader.config.course import load_course
    from attention_grader.reports.report import write_report
    from attention_grader.steps.grades import write_grades
    from nbgrader.api import Gradebook

    root = tmp_path / "course"
    shutil.copytree(late_class, root)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "attention-lab") as gb:
        gb.add_student("missing")
        essay = gb.find_grade("essay", ASSIGNMENT, ASSIGNMENT, "ontime")
        essay.manual_score = 1.5  # graded by hand in the formgrader
        gb.db.commit()
    course = load_course(root)
    rows = {r["student_id"]: r for r in csv.DictReader(write_grades(course).open())}
    assert set(rows) == {"late", "ontime", "missing"}
    report = write_report(course, ASSIGNMENT)
    page.goto(report.as_uri())
    text = page.locator("body").inner_text()
    assert "A class of 3: 2 handed in; 1 never handed in" in text, text[:600]
    for student, row in rows.items():
        shown = _cells(page, student)[1]
        number = 0.0 if shown == "no submission (0)" else float(re.match(r"[\d.]+", shown)[0])
        assert number == pytest.approx(float(row["score"]), abs=0.005), (student, shown, row)
    assert float(rows["late"]["late_penalty"]) > 0
    penalty = f"{float(rows['late']['late_penalty']):g}"
    assert _cells(page, "late")[3] == f"1 d 21 h late, -{penalty} points", _cells(page, "late")
    handed = [float(r["score"]) for r in rows.values() if r["student_id"] != "missing"]
    (mean,) = re.findall(r"Mean final score\s+([\d.]+)", text)
    assert float(mean) == pytest.approx(statistics.fmean(handed), abs=0.005)


def test_the_gain_page_says_its_numbers_as_gain_csv_has_them(page, tmp_path):
    from attention_grader.reports.gain import build_gain
    from attention_grader.reports.gain_page import write_gain

    from tests.support.gain_simulation import (
        POST,
        PRE,
        all_right,
        bare_course,
        showing,
        write_simulated,
    )

    course, t = bare_course(tmp_path)
    write_simulated(course, PRE, "ana", showing(PRE, "hard_attention"), t[PRE])
    write_simulated(course, POST, "ana", all_right(POST), t[POST])
    for student in ("ben", "cy"):
        write_simulated(course, PRE, student, all_right(PRE), t[PRE])
        write_simulated(course, POST, student, all_right(POST), t[POST])
    report = build_gain(course, PRE, POST)
    html = write_gain(course, PRE, POST)
    rows = list(csv.DictReader((html.parent / "gain.csv").open()))
    page.goto(html.as_uri())
    text = page.locator("body").inner_text()
    (g,) = re.findall(r"Normalised gain ⟨g⟩ = ([\d.]+)", text)
    assert float(g) == pytest.approx(float(rows[0]["gain"]), abs=0.005)
    hard = next(r for r in report.misconceptions if r.id == "hard_attention")
    cells = _cells(page, re.escape(hard.title))
    assert cells[1] == "hard_attention"
    # the estimate and the count of the same three students, both as shares of them
    assert cells[4] == "1 of 3 (33%) / 0 of 3 (0%)", cells
    estimate = next(
        r for r in rows if r["kind"] == "misconception" and r["name"] == "hard_attention"
    )
    assert cells[2] == f"{float(estimate['before']):.0%}", (cells, estimate)
