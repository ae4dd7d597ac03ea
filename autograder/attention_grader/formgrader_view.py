"""What the person grading sees in nbgrader's formgrader: the rubric beside each written answer,
and maths drawn with no internet.

nbgrader's formgrader renders a submission with a plain ``HTMLExporter`` built from the course
config (``formgrade`` template), so both changes are config (:func:`configure`, called from
``nbgrader_config.py``):

* :class:`ShowRubric`, an exporter preprocessor: after each written answer (a markdown
  solution cell) it puts a read-only box with that question's model answer and rubric, read
  from the assignment's ``source/`` notebook (between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION``). It only acts on a formgrader page (its resources carry a
  ``submission_id`` and no ``nbgrader`` entry): feedback, rendered by an ``HTMLExporter`` too,
  never gets a rubric.
* :func:`markdown2html`: the ``markdown2html`` filter with maths as MathML
  (:mod:`attention_grader.offline_html`), so formulas render where MathJax's CDN is unreachable.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from jinja2 import pass_context
from nbconvert.filters.markdown_mistune import MarkdownWithMath
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_markdown_cell

from .offline_html import MathMLRenderer
from .summary import GRADER_METADATA

__all__ = ["ShowRubric", "configure", "markdown2html", "model_answers"]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def model_answers(source: Path) -> dict[str, str]:
    """grade_id -> the model answer (with its rubric) of each written answer in ``source``."""
    found = {}
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "markdown" or not meta.get("solution") or BEGIN not in cell.source:
            continue
        inside = cell.source.split(BEGIN, 1)[1].split(END, 1)[0].strip()
        if inside:
            found[meta.get("grade_id")] = inside
    return found


def _box(text: str) -> str:
    quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in text.splitlines())
    return (
        "> **For the grader: model answer and rubric** (from `source/`; students never see it)\n>\n"
        + quoted
    )


class ShowRubric(Preprocessor):
    """Insert each written answer's model answer and rubric after it, on formgrader pages."""

    def preprocess(self, nb, resources):
        resources = resources if resources is not None else {}
        if not resources.get("submission_id") or "nbgrader" in resources:
            return nb, resources  # not the formgrader: feedback and other pages stay as they are
        source = self._source(resources.get("assignment_id"), resources.get("notebook_id"))
        if source is None:
            return nb, resources
        answers = model_answers(source)
        cells = []
        for cell in nb.cells:
            cells.append(cell)
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "markdown" and meta.get("solution"):
                text = answers.get(meta.get("grade_id"))
                if text:
                    box = new_markdown_cell(
                        _box(text), metadata={GRADER_METADATA: {"rubric": True}}
                    )
                    cells.append(box)
        nb.cells = cells
        return nb, resources

    def _source(self, assignment: str | None, notebook: str | None) -> Path | None:
        from nbgrader.coursedir import CourseDirectory

        if not assignment or not notebook:
            return None
        coursedir = CourseDirectory(config=self.config)
        folder = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
        path = folder / f"{notebook}.ipynb"
        return path if path.is_file() else None


@pass_context
def markdown2html(context, source: str) -> str:
    """nbconvert's ``markdown2html`` filter with maths as MathML (cell attachments kept)."""
    cell = context.get("cell", {})
    path = context.get("resources", {}).get("metadata", {}).get("path", "")
    renderer = MathMLRenderer(escape=False, attachments=cell.get("attachments", {}), path=path)
    return MarkdownWithMath(renderer=renderer).render(source)


def configure(c) -> None:
    """Rubrics and offline maths in the formgrader (``nbgrader_config.py``). Idempotent."""
    steps = list(c.HTMLExporter.preprocessors) if "preprocessors" in c.HTMLExporter else []
    if ShowRubric not in steps:
        steps.append(ShowRubric)
    c.HTMLExporter.preprocessors = steps
    filters = dict(c.HTMLExporter.filters) if "filters" in c.HTMLExporter else {}
    filters["markdown2html"] = markdown2html
    c.HTMLExporter.filters = filters
