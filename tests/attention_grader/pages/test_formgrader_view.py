"""attention_grader.pages.formgrader_view: the rubric beside each written answer in the formgrader,
maths as MathML, and never a rubric on a student's page.
"""

from __future__ import annotations

import nbformat
import numpy as np
import pytest
from attention_grader.pages.formgrader_view import ShowRubric, model_answers
from attention_grader.pipeline import configure
from traitlets.config import Config

from tests.support.grading_course import (
    ESSAY_SOURCE,
    FIXTURE,
    MATHS_SOURCE,
    make_course,
    written_fixture,
)


@pytest.fixture
def course_root(tmp_path):
    """A course folder whose source/ holds the fixture with a written answer."""
    return make_course(tmp_path, source_root=written_fixture(tmp_path)).root


def formgrader_config(root) -> Config:
    """The HTMLExporter config the formgrader builds from the course config."""
    import nbgrader.server_extensions.formgrader.handlers as handlers

    c = Config()
    c.CourseDirectory.root = str(root)
    c.HTMLExporter.template_name = "formgrade"
    c.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    configure(c)
    return c


def student_notebook(root):
    nb = nbformat.read(root / "source" / FIXTURE / f"{FIXTURE}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "essay":
            cell.source = "Negative scores flip the sign."
    return nb


def test_model_answers_are_read_between_the_solution_markers(course_root):
    answers = model_answers(course_root / "source" / FIXTURE / f"{FIXTURE}.ipynb")
    assert list(answers) == ["essay"]
    assert (
        answers["essay"].startswith("**Model answer.**")
        and "**Rubric (2 points).**" in answers["essay"]
    )
    assert "BEGIN SOLUTION" not in answers["essay"]


def test_the_formgrader_page_shows_the_rubric_right_after_the_answer(course_root):
    from nbconvert import HTMLExporter

    resources = {"assignment_id": FIXTURE, "notebook_id": FIXTURE, "submission_id": "abc",
                 "index": 0, "total": 1, "base_url": "", "student": "ana", "last_name": None,
                 "first_name": None, "notebook_path": "x"}  # fmt: skip
    page, _ = HTMLExporter(config=formgrader_config(course_root)).from_notebook_node(
        student_notebook(course_root), resources
    )
    answer = page.index("Negative scores flip the sign.")
    rubric = page.index("For the grader: model answer and rubric")
    assert answer < rubric < page.index("Rubric (2 points)") and "says e^x &gt; 0" in page
    assert '<math alttext="\\sqrt{d_k}"' in page  # maths as MathML, no CDN needed


def test_feedback_never_gets_a_rubric(course_root):
    nb = student_notebook(course_root)
    resources = {"nbgrader": {"notebook": FIXTURE}, "submission_id": "abc",
                 "assignment_id": FIXTURE, "notebook_id": FIXTURE}  # fmt: skip
    step = ShowRubric(config=formgrader_config(course_root))
    out, _ = step.preprocess(nb, resources)
    assert len(out.cells) == len(student_notebook(course_root).cells)
    assert not any("Rubric" in c.source for c in out.cells)


def test_the_course_config_installs_it():
    from pathlib import Path

    from traitlets.config.loader import PyFileConfigLoader

    root = Path(__file__).resolve().parents[3]
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    assert ShowRubric in config.HTMLExporter.preprocessors
    assert "markdown2html" in config.HTMLExporter.filters


def test_fixture_sources_hold_what_the_tests_look_for():
    assert "Rubric (2 points)" in ESSAY_SOURCE and "\\sqrt{d_k}" in MATHS_SOURCE


#: A student id and an answer that would be markup, a code fence's end and a script if unescaped.
HOSTILE_ID = "<img src=x onerror=alert(1)>"
HOSTILE_ANSWER = "```\n<script>alert('answer')</script>"
#: A classmate (an id the exchange trusts, still text of a student's choosing) sharing t2.
HOSTILE_CLASSMATE = "<b>bo</b>"


def variant_notebook():
    """An answer cell and its two tests, each as grading records them on a student's variant."""
    from attention_grader.common.variant_record import record_variant

    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell("weights = 'mine'", metadata={
        "nbgrader": {"grade_id": "answer", "solution": True, "grade": False}})  # fmt: skip
    tests = []
    for gid, numbers in (("t1", {"K": np.array([[7, 1]])}), ("t2", {"V": np.array([[5, 3]])})):
        cell = nbformat.v4.new_code_cell("check()", metadata={
            "nbgrader": {"grade_id": gid, "grade": True, "points": 1, "solution": False}})  # fmt: skip
        also = [HOSTILE_CLASSMATE] if gid == "t2" else []
        record_variant(cell, HOSTILE_ID, numbers, {"weights": HOSTILE_ANSWER}, also)
        tests.append(cell)
    nb.cells = [nbformat.v4.new_markdown_cell("# Q"), answer, *tests]
    return nb


def test_the_formgrader_shows_her_numbers_after_her_answer_escaped(course_root):
    from nbconvert import HTMLExporter

    resources = {"assignment_id": FIXTURE, "notebook_id": FIXTURE, "submission_id": "abc",
                 "index": 0, "total": 1, "base_url": "", "student": "ana", "last_name": None,
                 "first_name": None, "notebook_path": "x"}  # fmt: skip
    page, _ = HTMLExporter(config=formgrader_config(course_root)).from_notebook_node(
        variant_notebook(), resources
    )
    box = page.index("Checked against")
    assert page.index("'mine'") < box < page.index("t1</code>")  # after the answer

    assert page.count("Checked against") == 1
    assert "K = [[7, 1]]" in page and "V = [[5, 3]]" in page  # both tests' numbers in one box
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert page.index("&lt;script&gt;alert") < page.index("</pre>", box)  # the fence held
    # t2's answer is right on a classmate's numbers too: said in the box, escaped
    note = page.index("and on the numbers of &lt;b&gt;bo&lt;/b&gt; too")
    assert box < note < page.index("</pre>", box) and "<b>bo</b>" not in page


def test_feedback_never_gets_the_variant_box(course_root):
    from attention_grader.pages.formgrader_view import ShowVariant

    resources = {"nbgrader": {"notebook": FIXTURE}, "submission_id": "abc"}
    out, _ = ShowVariant().preprocess(variant_notebook(), resources)
    assert len(out.cells) == 4
