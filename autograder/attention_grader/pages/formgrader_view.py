"""What the person grading sees in nbgrader's formgrader.

The rubric is beside each written answer, and maths is drawn with no internet.

nbgrader's formgrader renders a submission with a plain ``HTMLExporter`` built from the course
config (``formgrade`` template), so both changes are config (:func:`configure`, called from
``nbgrader_config.py``):

* :class:`ShowRubric`, an exporter preprocessor: after each written answer (a markdown
  solution cell) it puts a read-only box with that question's model answer and rubric, read
  from the assignment's ``source/`` notebook (between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION``). It only acts on a formgrader page (its resources carry a
  ``submission_id`` and no ``nbgrader`` entry): feedback, rendered by an ``HTMLExporter`` too,
  never gets a rubric.
* :class:`ShowVariant`, the same for per-student variants: after an answer whose tests ran on
  the student's own numbers, a box with those numbers and her answers as the grader read them
  (:mod:`attention_grader.common.variant_record`), all inside a code block, so nothing of hers
  is read as markdown or HTML;
* :func:`markdown2html`: the ``markdown2html`` filter with maths as MathML
  (:mod:`attention_grader.pages.offline_html`), so formulas render where MathJax's CDN is unreachable,
  and the rendered HTML through the allowlist (:mod:`attention_grader.pages.html_clean`);
* :class:`~attention_grader.pages.html_safety.SanitizeStudentContent` again at render time, and
  :class:`EscapePageText` for the names nbgrader's template prints raw.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
from jinja2 import pass_context
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_markdown_cell

from attention_grader.common.flags import GRADER_METADATA
from attention_grader.common.safe_text import html_text, printable
from attention_grader.common.variant_record import VariantRead, read_variant
from attention_grader.config.nbgrader_patches import apply
from attention_grader.pages.offline_html import markdown_to_html

if TYPE_CHECKING:
    from jinja2.runtime import Context
    from nbformat import NotebookNode

__all__ = [
    "EscapePageText",
    "ShowRubric",
    "ShowVariant",
    "escape_formgrader_pages",
    "markdown2html",
    "model_answers",
]

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

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any] | None
    ) -> tuple[NotebookNode, dict[str, Any]]:
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


def _on_formgrader(resources: dict[str, Any]) -> bool:
    """Whether this is a formgrader page: a ``submission_id`` and no ``nbgrader`` entry."""
    return bool(resources.get("submission_id")) and "nbgrader" not in resources


def variant_box(reads: list[VariantRead]) -> str:
    """Return the markdown of one answer's box: her numbers, then her answers, in a code block.

    The fence is longer than any run of backticks inside, so nothing closes it early.
    """
    lines = [f"Checked against {printable(reads[0].student)}'s numbers:"]
    numbers = dict(p for r in reads for p in r.numbers)
    answers = dict(p for r in reads for p in r.answers)
    lines += [f"  {printable(k)} = {printable(v)}" for k, v in numbers.items()]
    if answers:
        lines.append("Her answers, as the grader read them:")
        lines += [f"  {printable(k)} = {printable(v)}" for k, v in answers.items()]
    also = list(dict.fromkeys(s for r in reads for s in r.also_right_for))
    if also:
        lines.append(
            "Right on her numbers, and on the numbers of "
            + ", ".join(printable(s) for s in also)
            + " too (the variants share this answer): copied, or a coincidence; compare the "
            "notebooks (flag shared_answer). The points stand until you change them."
        )
    body = "\n".join(lines)
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return (
        "**For the grader: this student's variant** (drawn by the grader for the id the "
        f"exchange trusts; her answers are checked on these numbers)\n\n{fence}text\n{body}\n{fence}"
    )


class ShowVariant(Preprocessor):
    """Insert, after each answer checked on a student's own numbers, a box showing them."""

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any] | None
    ) -> tuple[NotebookNode, dict[str, Any]]:
        resources = resources if resources is not None else {}
        if not _on_formgrader(resources):
            return nb, resources
        cells: list[NotebookNode] = []
        run: list[VariantRead] = []  # the reads of the tests right after one answer
        at = 0  # where that answer's box goes: before the first of its tests
        for cell in nb.cells:
            read = read_variant(cell)
            if read is None:
                self._insert(cells, at, run)
                run = []
            else:
                at = at if run else len(cells)
                run.append(read)
            cells.append(cell)
        self._insert(cells, at, run)
        nb.cells = cells
        return nb, resources

    @staticmethod
    def _insert(cells: list[NotebookNode], at: int, run: list[VariantRead]) -> None:
        if run:
            box = new_markdown_cell(variant_box(run), metadata={GRADER_METADATA: {"variant": True}})
            cells.insert(at, box)


@pass_context
def markdown2html(context: Context, source: str) -> str:
    """Render like nbconvert's ``markdown2html`` filter, maths as MathML, through the allowlist.

    Cell attachments are kept; the result goes through
    :func:`attention_grader.pages.offline_html.markdown_to_html`.
    """
    cell = context.get("cell", {})
    path = context.get("resources", {}).get("metadata", {}).get("path", "")
    return markdown_to_html(source, cell.get("attachments", {}), path=path)


#: What nbgrader's SubmissionHandler hands its ``formgrade`` template, which prints them
#: unescaped (into the page, a ``data-link`` and script strings). A student id comes from a
#: folder name in the exchange; the others are checked too, being cheap to check.
PAGE_TEXT_KEYS = (
    "student", "first_name", "last_name", "notebook_id", "assignment_id", "notebook_path",
)  # fmt: skip


class EscapePageText(Preprocessor):
    """On a formgrader page, the names the template prints are escaped (:func:`html_text`)."""

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        if resources and resources.get("submission_id") and "nbgrader" not in resources:
            for key in PAGE_TEXT_KEYS:
                if resources.get(key) is not None:
                    resources[key] = html_text(resources[key])
        return nb, resources


def _finalize(value: object) -> object:
    """Return every ``{{ value }}`` of the formgrader's own pages as :func:`html_text` makes it.

    Its macros' HTML, already ``Markup``, stays HTML.
    """
    from markupsafe import Markup

    if hasattr(value, "__html__"):
        return value
    return Markup(html_text("" if value is None else value))


def escape_formgrader_pages() -> None:
    """Make nbgrader's formgrader pages (``manage_students``, ``gradebook``...) escape values.

    Idempotent; called by the ``attention_grader.pages.csp`` server extension.

    nbgrader renders them with a Jinja environment that escapes nothing, and prints ids into
    script strings (``var student_id = "{{ student_id }}"``) and links. nbgrader offers no
    setting for it; its ``BaseHandler.render`` is wrapped (patch ``escape_formgrader_pages``,
    :mod:`attention_grader.config.nbgrader_patches`) so that the environment it uses escapes
    every value with the course's one HTML function, which is safe in all three places.
    """
    apply("escape_formgrader_pages", {"render": _escaping_render})


def _escaping_render(original: Callable[..., str]) -> Callable[..., str]:
    def render(self: Any, name: str, **ns: Any) -> str:
        env = self.settings["nbgrader_jinja2_env"]
        if env.finalize is not _finalize:
            env.autoescape = True  # macros then return Markup, which _finalize keeps
            env.finalize = _finalize
            if env.cache is not None:
                env.cache.clear()
        return original(self, name, **ns)

    return render
