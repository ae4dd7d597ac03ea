"""Ids that are not ids (issue 24): a student id is whatever a folder in the exchange was named.

The attacks: an id that is a spreadsheet formula (``=HYPERLINK(...)``, ``+``/``-``/``@`` first, a
leading tab or carriage return), HTML (``<img src=x onerror=...>``) and terminal control
sequences. Each place a student id is written goes through one function per medium
(:mod:`attention_grader.common.safe_text`): ``html_text`` for every page (the formgrader's own pages
and its view of a submission included), ``csv_cell`` for every CSV (grades.csv, the Canvas
export, the report's students.csv, batch_summary.csv, gain.csv), ``printable`` for the terminal.
"""

from __future__ import annotations

import csv
import html
import io
import re
from types import SimpleNamespace

import nbformat
import pytest
from attention_grader.common.flags import Flag
from attention_grader.common.safe_text import csv_cell, html_text, printable
from attention_grader.common.summary import BatchSummary, SubmissionResult

PAYLOAD = "window.__pwned=1"
#: Ids a student could hand in as folder names (no "/": a folder name cannot hold one).
HOSTILE = {
    "formula": '=HYPERLINK("evil.example","open me")',
    "plus": "+1+cmd|' -c calc'!A0",
    "minus": "-2+3+cmd|' -c calc'!A0",
    "at": "@SUM(1,1)",
    "tab": "\t=1+1",
    "cr": "\r=1+1",
    "html": f'<img src=x onerror="{PAYLOAD}">',
    "script string": 'x";' + PAYLOAD + ";//\\",
    "terminal": "\x1b]0;pwned\x07ana",
}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _safe_cell(cell: str) -> bool:
    """A CSV cell as a spreadsheet reads it: not a formula, one printable line."""
    return not cell.startswith(_FORMULA_START) and cell.isprintable()


def _read_csv(path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(), newline="")))


@pytest.mark.parametrize("kind", HOSTILE)
def test_csv_cell_never_starts_a_formula_and_keeps_the_text(kind):
    cell = csv_cell(HOSTILE[kind])
    assert _safe_cell(cell), repr(cell)
    assert printable(HOSTILE[kind]) in cell  # what the student chose is still there, visibly


def test_csv_cell_keeps_numbers():
    assert csv_cell(-1.5) == -1.5 and csv_cell(3) == 3 and csv_cell("-1.25") == "-1.25"
    assert csv_cell(None) == "" and csv_cell(True) == "True"


@pytest.mark.parametrize("kind", HOSTILE)
def test_html_text_is_inert_in_text_attributes_and_script_strings(kind):
    shown = html_text(HOSTILE[kind])
    assert not set(shown) & set("<>\"'`\\"), shown
    assert html.unescape(shown) == printable(HOSTILE[kind])


def test_batch_summary_csv_and_terminal_table(tmp_path):
    results = [
        SubmissionResult(sid, "graded", f"=reason {kind}", [Flag("late", f"@{kind}")], 1.0, 3.0)
        for kind, sid in HOSTILE.items()
    ]
    summary = BatchSummary("a1", results, wall_seconds=1.0, jobs=1)
    _, path = summary.write(tmp_path)
    rows = _read_csv(path)[1:]
    assert len(rows) == len(HOSTILE)
    for row in rows:
        assert all(_safe_cell(cell) for cell in row), row
    table = summary.table()
    assert "\x1b" not in table and "\x07" not in table and "\r" not in table
    assert "\\x1b]0;pwned\\x07ana" in table


@pytest.fixture
def hostile_class(tmp_path):
    """The synthetic class plus one student per hostile id, each graded, with a notebook."""
    from nbformat.v4 import new_code_cell, new_notebook
    from nbgrader.api import Gradebook

    from tests.support.grading_course import synthetic_class

    course = synthetic_class(tmp_path)
    with Gradebook(course.db_url, course.course_id) as gb:
        for sid in HOSTILE.values():
            gb.add_student(sid, first_name="=1+1", last_name="@x", lms_user_id="-1+cmd")
            gb.add_submission("a1", sid)
            for gid in ("q1", "q2"):
                grade = gb.find_grade(gid, "nb", "a1", sid)
                grade.auto_score, grade.needs_manual_grade = 1, False
            gb.find_grade("essay", "nb", "a1", sid).manual_score = 1
            gb.find_grade("essay", "nb", "a1", sid).needs_manual_grade = False
        gb.db.commit()
    for sid in HOSTILE.values():
        folder = course.root / "autograded" / sid / "a1"
        folder.mkdir(parents=True)
        nbformat.write(new_notebook(cells=[new_code_cell("check()")]), folder / "nb.ipynb")
    return course


@pytest.mark.slow
def test_grades_csv_and_the_canvas_export(hostile_class):
    from attention_grader.steps.grades import write_grades

    for fmt in ("csv", "canvas"):
        rows = _read_csv(write_grades(hostile_class, fmt=fmt))
        ids = {r[0] for r in rows} | {r[3] for r in rows if len(r) > 3}
        assert {csv_cell(s) for s in HOSTILE.values()} <= ids, fmt
        for row in rows:
            assert all(_safe_cell(cell) for cell in row), (fmt, row)


@pytest.mark.slow
def test_the_report_page_and_its_csv_files(hostile_class):
    from attention_grader.reports.report import write_report

    page = write_report(hostile_class, "a1")
    text = page.read_text()
    assert "<img src=x" not in text and html_text(HOSTILE["html"]) in text
    for name in ("students.csv", "misconceptions.csv"):
        for row in _read_csv(page.parent / name):
            assert all(_safe_cell(cell) for cell in row), (name, row)


def test_the_formgrader_view_of_a_submission_escapes_the_student_id(tmp_path):
    """The formgrade template of nbgrader prints the id into the page and a ``data-link``."""
    import nbgrader.server_extensions.formgrader.handlers as handlers
    from attention_grader.pipeline import configure
    from nbconvert import HTMLExporter
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config

    c = Config()
    c.CourseDirectory.root = str(tmp_path)
    c.HTMLExporter.template_name = "formgrade"
    c.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    configure(c)
    evil = HOSTILE["html"]
    resources = {"assignment_id": "a1", "notebook_id": "nb", "submission_id": "s1", "index": 0,
                 "total": 1, "base_url": "", "student": evil, "last_name": None,
                 "first_name": None, "notebook_path": f"autograded/{evil}/a1/nb.ipynb"}  # fmt: skip
    page, _ = HTMLExporter(config=c).from_notebook_node(
        new_notebook(cells=[new_code_cell("x = 1")]), resources=resources
    )
    assert evil not in page and "<img src=x" not in page
    assert html.escape(evil, quote=False) in page  # shown (nbconvert re-serialises the page)
    links = [m[1] for m in re.findall(r"""data-link=(["'])(.*?)\1""", page)]
    assert links and all(html.unescape(link) == f"autograded/{evil}/a1/nb.ipynb" for link in links)


@pytest.mark.parametrize(
    "template",
    ["manage_students_assignments.tpl", "manage_students_notebook_submissions.tpl"],
)
def test_the_formgraders_own_pages_escape_ids_in_script_strings(template):
    """``var student_id = "{{ student_id }}"``: nbgrader's Jinja environment escapes nothing."""
    from attention_grader.pages.formgrader_view import escape_formgrader_pages
    from jinja2 import Environment, FileSystemLoader
    from nbgrader.server_extensions.formgrader import handlers
    from nbgrader.server_extensions.formgrader.base import BaseHandler

    def page(student: str) -> str:
        env = Environment(loader=FileSystemLoader([handlers.template_path]))  # as nbgrader's
        handler = SimpleNamespace(settings={"nbgrader_jinja2_env": env})
        return BaseHandler.render(handler, template, student_id=student, assignment_id="a1",
                                  base_url="/base")  # fmt: skip

    escape_formgrader_pages()
    for kind in ("html", "script string"):
        text = page(HOSTILE[kind])
        assert HOSTILE[kind] not in text, kind
        assert f'var student_id = "{html_text(HOSTILE[kind])}";' in text, kind
    honest = page("ana")
    assert 'var student_id = "ana";' in honest
    assert '<a href="/base/formgrader/manage_students">' in honest  # macros still write HTML


def test_every_formgrader_page_still_renders_its_own_markup():
    """With escaping on, nbgrader's templates keep their own HTML and scripts (macros and
    blocks are markup), only the values are escaped.
    """
    from pathlib import Path

    from attention_grader.pages.formgrader_view import escape_formgrader_pages
    from jinja2 import Environment, FileSystemLoader
    from nbgrader.server_extensions.formgrader import handlers
    from nbgrader.server_extensions.formgrader.base import BaseHandler

    escape_formgrader_pages()
    env = Environment(loader=FileSystemLoader([handlers.template_path]))
    handler = SimpleNamespace(settings={"nbgrader_jinja2_env": env})
    resources = {"base_url": "/base", "notebook_id": "nb", "assignment_id": "a1", "index": 0,
                 "total": 1, "submission_id": "s1", "student": HOSTILE["html"],
                 "filename": "x.ipynb", "notebook_path": "p"}  # fmt: skip
    # formgrade_404.tpl imports a formgrade_macros.tpl nbgrader 0.9.6 does not ship: it cannot
    # render with or without escaping.
    names = sorted(p.name for p in Path(handlers.template_path).glob("*.tpl"))
    names.remove("formgrade_404.tpl")
    assert "manage_students.tpl" in names
    for name in names:
        page = BaseHandler.render(
            handler, name, base_url="/base", assignment_id="a1", notebook_id="nb",
            student_id=HOSTILE["html"], url_prefix="course", resources=resources,
            error_code=500, exchange="/srv/exchange", course_dir="/srv/course",
            default_timezone="UTC", current_config="{}", windows=False,
        )  # fmt: skip
        assert "&lt;script" not in page and "&lt;div" not in page, name
        assert "<img src=x" not in page, name
        assert "<script" in page or "<div" in page, name


@pytest.mark.slow
def test_the_submission_history_its_csv_and_the_reports_section(hostile_class, tmp_path):
    """Every hostile id as a submission collect received, and as the claim of a refused
    folder: the history file, the report's submissions.csv and its Submissions section.
    """
    from datetime import datetime

    from attention_grader.exchange.exchange_identity import Inbound
    from attention_grader.exchange.submission_history import history_file, record_seen
    from attention_grader.reports.report import write_report

    items = []
    for n, sid in enumerate(HOSTILE.values()):
        folder = tmp_path / "inbound" / f"f{n}"
        folder.mkdir(parents=True)
        (folder / "nb.ipynb").write_text(sid)
        when = datetime(2026, 11, 30, 9, n)
        items.append(Inbound(folder, f"{sid}+a1+x", sid, when, "mallory", when, by_exchange=True))
        items.append(Inbound(folder, f"{sid}+a1+y", sid, when, sid, None,
                             f"folder owned by {printable(sid)} names {printable(sid)!r}"))  # fmt: skip
    assert record_seen(hostile_class.root, "a1", items) == 2 * len(HOSTILE)
    for row in _read_csv(history_file(hostile_class.root, "a1")):
        assert all(_safe_cell(cell) for cell in row), row
    page = write_report(hostile_class, "a1")
    text = page.read_text()
    section = text.split("<h2>Submissions")[1]
    assert "<img src=x" not in text and html_text(HOSTILE["html"]) in section
    assert "\x1b" not in text
    for row in _read_csv(page.parent / "submissions.csv"):
        assert all(_safe_cell(cell) for cell in row), row
