"""Sanitise what a student wrote before any page shows it: outputs, written answers, metadata.

Every page the course makes from a submission (the formgrader's view of the autograded notebook,
the student's feedback HTML) is rendered by nbconvert, which puts ``text/html`` outputs and the
HTML inside markdown cells into the page as they are, and runs ``application/javascript``
outputs. A student's ``display(HTML("<script>..."))`` or ``<img src=x onerror=...>`` in a
written answer would run in the teacher's browser, logged in to the formgrader. This module
makes a notebook safe to render; :class:`SanitizeStudentContent` runs it as a preprocessor (last
step of autograde, first of feedback), :func:`sanitize_notebook` is the plain function; the
allowlist and the string cleaning are in :mod:`attention_grader.pages.html_clean`.

The allowlist is nh3's (:mod:`attention_grader.pages.html_clean`, which says why not bleach), and it
runs on the final HTML: here on outputs (which templates insert as they are), and in every page's
``markdown2html`` filter on rendered markdown, maths as MathML included
(:func:`attention_grader.pages.offline_html.markdown_to_html`). nbconvert's own ``SanitizeHTML``
preprocessor is not enough on its own: it keeps markdown links to ``javascript:`` URLs
(nbconvert's markdown renderer allows them), escapes every ``<`` of a markdown cell (an honest
``$a < b$`` or ``> quote`` turns into entity soup), drops SVG figures and leaves nbgrader
metadata alone, which nbgrader's templates print without escaping.

Decisions per output type (see :data:`KEEP_MIMES`): plain text, JSON, PNG/JPEG/GIF (if really
base64) are kept; HTML is kept when the allowlist allows all of it (tables, text formatting,
images; no scripts, event handlers, iframes, forms, meta, base, ``<style>`` or
``javascript:``/``data:`` links), else shown as its source text, then cleaned either way; SVG
becomes an ``<img>`` of a ``data:`` URL, where SVG never runs script; markdown is rendered,
checked, and shown as text if unsafe; LaTeX is kept (nbconvert escapes it); JavaScript, widget
views and every other type (``application/vnd.*``, PDF) are dropped, leaving a note.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import UNSAFE_HTML, Flag
from attention_grader.common.run_cache import read_once
from attention_grader.config.course import source_notebook
from attention_grader.config.settings import PageLimits, page_limits
from attention_grader.pages.html_clean import (
    DEFAULT_LIMITS,
    clean_html,
    markdown_as_text,
    sanitize_html,
)
from attention_grader.pages.markdown_safety import sanitize_markdown

__all__ = [
    "KEEP_MIMES",
    "Finding",
    "SanitizeStudentContent",
    "sanitize_notebook",
    "sanitize_output",
]

#: Output types shown as they are (nbconvert escapes text, LaTeX and image data itself).
KEEP_MIMES = frozenset({"text/plain", "text/latex", "application/json"})
#: Bitmap types: kept when the value is really base64 (it goes into an ``<img src=...>``).
IMAGE_MIMES = frozenset({"image/png", "image/jpeg", "image/gif"})
#: Types that never reach a page, and are not worth a flag: widgets draw nothing without JS.
QUIET_DROPS = frozenset(
    {
        "application/vnd.jupyter.widget-view+json",
        "application/vnd.jupyter.widget-state+json",
    }
)


_SAFE_ID = re.compile(r"^[A-Za-z0-9_.\-]+$")
_SOLUTION = re.compile(r"^\s*#+\s*BEGIN SOLUTION.*?^\s*#+\s*END SOLUTION[^\n]*$", re.M | re.S)


@dataclass(frozen=True)
class Finding:
    """One thing the sanitiser changed.

    Attributes
    ----------
    where : str
        The cell (``grade_id`` or ``cell 3``) and part (``output 1 text/html``).
    what : str
        What was removed or rewritten, in plain words.
    """

    where: str
    what: str

    def as_flag(self) -> Flag:
        """Return the batch summary's flag (kind ``unsafe_html``)."""
        return Flag(UNSAFE_HTML, f"{self.where}: {self.what} [sanitised; flag only]")


# --------------------------------------------------------------------------- outputs


def _text(value: object) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _is_base64(value: object) -> bool:
    try:
        base64.b64decode(re.sub(r"\s", "", _text(value)), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _svg_as_image(svg: object) -> str:
    data = base64.b64encode(_text(svg).encode("utf-8")).decode("ascii")
    # An SVG shown through <img> never runs its scripts nor loads anything (HTML spec).
    return f'<img src="data:image/svg+xml;base64,{data}" alt="figure (SVG)">'


def sanitize_output(
    output: NotebookNode, where: str = "", limits: PageLimits = DEFAULT_LIMITS
) -> list[Finding]:
    """Make one code-cell output safe to render, in place; return what was changed.

    Streams and errors are left alone (nbconvert escapes them). Output metadata is reduced to
    numeric image sizes (templates print it into attributes).
    """
    if output.get("output_type") not in ("display_data", "execute_result"):
        return []
    findings = []
    data = output.get("data", {})
    for mime in list(data):
        what = _sanitize_mime(data, mime, limits)
        if what:
            findings.append(Finding(f"{where} {mime}".strip(), what))
    if not any(m in data for m in (*KEEP_MIMES, *IMAGE_MIMES, "text/html", "text/markdown")):
        data["text/plain"] = "[output removed by the grader: it could run code in a browser]"
    output["data"] = data
    output["metadata"] = _safe_output_metadata(output.get("metadata", {}))
    return findings


def _sanitize_mime(data: dict[str, Any], mime: str, limits: PageLimits) -> str | None:
    """Make ``data[mime]`` safe in place (cleaned, replaced or removed); say what changed."""
    value = data[mime]
    if mime in KEEP_MIMES:
        return None
    if mime in IMAGE_MIMES:
        if _is_base64(value):
            return None
        del data[mime]
        return "image data that is not base64 removed"
    if mime == "text/html":
        data[mime], problems = clean_html(_text(value), limits)
        return f"unsafe HTML neutralised ({problems[0]})" if problems else None
    if mime == "text/markdown":
        data[mime] = sanitize_markdown(_text(value), limits=limits)
        return "unsafe markdown shown as text" if data[mime] != _text(value) else None
    del data[mime]
    if mime == "image/svg+xml":
        data.setdefault("text/html", _svg_as_image(value))
        return None
    return None if mime in QUIET_DROPS else "output type that can run code removed"


def _safe_output_metadata(meta: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for mime in IMAGE_MIMES:
        sizes = meta.get(mime)
        sizes = sizes if isinstance(sizes, dict) else {}
        kept = {k: v for k, v in sizes.items() if k in ("width", "height") and _number(v)}
        if kept:
            out[mime] = kept
    return out


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --------------------------------------------------------------------------- notebooks


def _where(cell: NotebookNode, index: int) -> str:
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    return str(grade_id) if grade_id and _SAFE_ID.match(str(grade_id)) else f"cell {index + 1}"


def _sanitize_cell_metadata(cell: NotebookNode, where: str) -> list[Finding]:
    """Rename an unsafe ``grade_id``: nbgrader's templates print it into HTML attributes unescaped."""
    meta = cell.metadata.get("nbgrader")
    if not isinstance(meta, dict) or "grade_id" not in meta:
        return []
    grade_id = str(meta["grade_id"])
    if _SAFE_ID.match(grade_id):
        return []
    meta["grade_id"] = re.sub(r"[^A-Za-z0-9_.\-]", "_", grade_id)
    return [Finding(where, "grade_id with HTML characters renamed")]


def _sanitize_attachments(cell: NotebookNode, where: str) -> list[Finding]:
    findings = []
    for name, bundle in list(cell.get("attachments", {}).items()):
        kept = {m: v for m, v in bundle.items() if m in IMAGE_MIMES and _is_base64(v)}
        if kept != dict(bundle):
            findings.append(Finding(f"{where} attachment {name}", "non-bitmap attachment removed"))
        if kept:
            cell.attachments[name] = kept
        else:
            del cell.attachments[name]
    return findings


def _normal(source: object) -> str:
    return "\n".join(line.rstrip() for line in _text(source).strip().splitlines())


def teachers_cells(source: NotebookNode | None) -> frozenset[str]:
    """Return the sources of the cells the teacher released (solutions removed)."""
    if source is None:
        return frozenset()
    found = set()
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            continue  # a test cell: its outputs are the student's answers'
        found.add(_normal(_SOLUTION.sub("", _text(cell.source))))
    return frozenset(found)


def sanitize_notebook(
    nb: NotebookNode, teachers: frozenset[str] = frozenset(), limits: PageLimits = DEFAULT_LIMITS
) -> list[Finding]:
    """Make every cell of ``nb`` safe to render as HTML, in place.

    Markdown and raw cells are checked as rendered markdown (nbconvert renders raw cells tagged
    as HTML as they are); code outputs by type (:func:`sanitize_output`); attachments keep only
    bitmaps; nbgrader ``grade_id`` keeps only letters, digits, ``_.-``; notebook-level widget
    state (run by nbconvert's widget manager) is removed.

    A cell the teacher released as it stands (``teachers``, :func:`teachers_cells`: a ``%%html``
    cell, markdown with a ``<details>``) is cleaned the same, but is no finding: it is not the
    student's doing.

    Returns
    -------
    list of Finding
        What was changed, one entry per output or cell.
    """
    findings: list[Finding] = []
    everything = findings
    if "widgets" in nb.metadata:
        del nb.metadata["widgets"]
    for index, cell in enumerate(nb.cells):
        where = _where(cell, index)
        findings = [] if teachers and _normal(cell.source) in teachers else everything
        findings += _sanitize_cell_metadata(cell, where)
        findings += _sanitize_attachments(cell, where)
        if cell.cell_type in ("markdown", "raw"):
            # nbconvert renders markdown, and raw cells marked as HTML as they are.
            if cell.cell_type == "markdown":
                clean = sanitize_markdown(cell.source, cell.get("attachments"), limits)
            else:
                clean = sanitize_html(cell.source, limits)
            if clean != cell.source:
                findings.append(Finding(where, "unsafe HTML in a written answer shown as text"))
                cell.source = clean
        elif cell.cell_type == "code":
            for number, output in enumerate(cell.get("outputs", []), start=1):
                findings += sanitize_output(output, f"{where} output {number}", limits)
    return everything


def sanitize_bluntly(nb: NotebookNode) -> None:
    """Make ``nb`` safe to render without reading any HTML, in place (when the sanitiser failed).

    Every markdown cell is shown as its text in a code block, raw cells lose their format
    (nbconvert's HTML then leaves them out), every rich output keeps only its plain text, attachments and widget state are dropped. Nothing is parsed, so
    nothing a student wrote can make this fail.
    """
    nb.metadata.pop("widgets", None)
    note = "The grader shows this cell as plain text: its HTML could not be checked."
    for index, cell in enumerate(nb.cells):
        nbgrader = cell.metadata.get("nbgrader")
        if isinstance(nbgrader, dict) and "grade_id" in nbgrader:
            if not _SAFE_ID.match(str(nbgrader["grade_id"])):
                nbgrader["grade_id"] = f"cell-{index + 1}"
        cell.pop("attachments", None)
        if cell.cell_type == "markdown":
            cell.source = markdown_as_text(_text(cell.source), note)
        elif cell.cell_type == "raw":  # without a format, nbconvert's HTML leaves it out
            cell.metadata.pop("raw_mimetype", None)
            cell.metadata.pop("format", None)
        for output in cell.get("outputs", []):
            if output.get("output_type") in ("display_data", "execute_result"):
                plain = output.get("data", {}).get("text/plain", "[output removed by the grader]")
                output["data"] = {"text/plain": _text(plain)}
                output["metadata"] = {}


class SanitizeStudentContent(NbGraderPreprocessor):
    """nbconvert/nbgrader preprocessor: :func:`sanitize_notebook`, reporting what it changed.

    Findings go to the log and, as ``unsafe_html`` flags, to the notebook's grading metadata
    (:func:`attention_grader.common.flag_store.record_flags`, read by the batch summary). Place it
    after execution and grading in autograde (it never changes a score: errors, streams and
    ``text/plain`` are untouched), and before rendering in feedback.
    """

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        info = (resources or {}).get("nbgrader", {})
        teachers: frozenset[str] = frozenset()
        if info.get("assignment") and info.get("notebook"):
            where = (info["assignment"], info["notebook"])
            teachers = read_once(
                ("teachers_cells", *where),
                lambda: teachers_cells(source_notebook(*where, self.config, self.log)),
            )
        try:
            findings = sanitize_notebook(nb, teachers, page_limits(self.config))
        except Exception as exc:  # noqa: BLE001 -- the score is saved: never lose the notebook
            sanitize_bluntly(nb)
            what = f"the sanitiser failed ({type(exc).__name__}); every cell shown as plain text"
            findings = [Finding("notebook", what)]
        for finding in findings:
            self.log.warning("Sanitised student content: %s: %s", finding.where, finding.what)
        record_flags([finding.as_flag() for finding in findings], notebook=nb)
        return nb, resources
