"""The formgrader's own lists show the late penalty beside the final score (issue 29).

A course (the repository's ``nbgrader_config.py``: the late plugin, 10 % a started day) with
``late`` handing in 45 hours after the due date and ``ontime`` before it, autograded; the
teacher opens the formgrader's submission list and the late student's page in Chromium (the
course's Jupyter server extensions). The score cell of ``late`` reads the final score and the
penalty beside it, the numbers the gradebook has; ``ontime``'s has no penalty.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.grading_course import notebook_course

from .driver import REPO, start_jupyter
from .test_formgrader_xss import (
    ASSIGNMENT,
    HONEST_ESSAY,
    _browser_context,
    _nbgrader,
    _source_notebook,
    _submit,
)

pytestmark = pytest.mark.slow

DUE = "2026-11-28 12:00:00 UTC"  # _submit hands in at 2026-11-30 09:00 UTC: 45 h late


def make_late_class(root: Path) -> Path:
    """The late class in ``root``, autograded (conftest's ``late_class``: built once for this
    module and test_report_pages, which reads a copy).
    """
    notebook_course(root, ASSIGNMENT, _source_notebook(), REPO / "nbgrader_config.py")
    _nbgrader(root, "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    _nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    _submit(root, "late", "answer = 2", HONEST_ESSAY)
    _submit(root, "ontime", "answer = 2", HONEST_ESSAY)
    stamp = root / "submitted" / "ontime" / ASSIGNMENT / "timestamp.txt"
    stamp.write_text("2026-11-28 10:00:00.000000 UTC")
    _nbgrader(root, "autograde", ASSIGNMENT, "--force")
    return root


@pytest.fixture(scope="module")
def formgrader(late_class, tmp_path_factory):
    work = tmp_path_factory.mktemp("late-jupyter")
    conf = work / "config" / "jupyter_server_config.d"
    conf.mkdir(parents=True)
    shutil.copy(
        REPO / "jupyter-settings" / "jupyter_server_config.d" / "attention_grader.json", conf
    )
    server = start_jupyter(late_class, work)
    yield server
    server.stop()


def _expected(root) -> dict[str, tuple[float, float, float]]:
    """Map each student to (final score, max, penalty), from the gradebook."""
    from attention_grader.intake.late import final_score
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "attention-lab") as gb:
        return {
            s.student.id: (final_score(s), s.max_score, s.late_submission_penalty or 0.0)
            for s in gb.assignment_submissions(ASSIGNMENT)
        }


def _score_text(page, row_text: str) -> str:
    row = page.locator("tbody tr", has_text=row_text).first
    cell = row.locator("td.score")
    cell.wait_for()
    page.wait_for_function("c => c.textContent.trim() !== ''", arg=cell.element_handle())
    return cell.inner_text().strip()


def test_the_submission_list_shows_the_penalty_beside_the_final_score(browser, formgrader, late_class):  # fmt: skip
    expected = _expected(late_class)
    final, top, penalty = expected["late"]
    assert penalty > 0 and expected["ontime"][2] == 0  # the course's late plugin ran
    context = _browser_context(browser, formgrader)
    try:
        page = context.new_page()
        page.goto(formgrader.url(f"formgrader/manage_submissions/{ASSIGNMENT}"))
        late = _score_text(page, "late")
        ontime = _score_text(page, "ontime")
        page.goto(formgrader.url("formgrader/manage_students/late"))
        on_students_page = _score_text(page, ASSIGNMENT)
    finally:
        context.close()
    shown = f"{round(final, 2):g} / {top:g} (late \u2212{round(penalty, 2):g})"
    assert late == shown, (late, shown)
    assert on_students_page == shown, (on_students_page, shown)
    assert ontime == f"{round(expected['ontime'][0], 2):g} / {top:g}", ontime


def _scores(page, path: str) -> list[str]:
    """The text of every score cell of a formgrader list, once its rows are drawn."""
    page.goto(path)
    cells = page.locator("tbody tr td.score")
    cells.first.wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('tbody tr td.score')]"
        ".every(c => c.textContent.trim() !== '')"
    )
    return sorted(c.strip() for c in cells.all_inner_texts())


def test_every_formgrader_list_shows_the_final_scores_of_grades_csv(browser, formgrader, late_class):  # fmt: skip
    """Manual Grading, Manage Students and the gradebook's average read the numbers of
    grades.csv (before: the late student's score before the penalty in each, issue 39).
    """
    import csv

    from attention_grader.config.course import load_course
    from attention_grader.steps.grades import write_grades

    rows = list(csv.DictReader(write_grades(load_course(late_class)).open()))
    final = {r["student_id"]: float(r["score"]) for r in rows}
    top = float(rows[0]["max_score"])
    assert final["late"] < final["ontime"]  # the penalty is in grades.csv

    def shown(x: float) -> str:
        return f"{round(x, 2):g} / {top:g}"

    mean = sum(final.values()) / len(final)
    context = _browser_context(browser, formgrader)
    try:
        page = context.new_page()
        manual = _scores(page, formgrader.url(f"formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}"))
        students = _scores(page, formgrader.url("formgrader/manage_students"))
        average = _scores(page, formgrader.url("formgrader/gradebook"))
    finally:
        context.close()
    assert manual == sorted(shown(x) for x in final.values()), manual
    assert students == sorted(shown(x) for x in final.values()), students
    assert average == [shown(mean)], average
