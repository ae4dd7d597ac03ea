"""The feedback page a student reads: plain words first, no sideways scrolling, maths offline.

:class:`FeedbackPageExporter` is what ``nbgrader generate_feedback`` (and ``make feedback``)
renders each graded notebook with. Compared with nbgrader's own feedback template it:

* keeps the Content-Security-Policy of :class:`attention_grader.pages.csp.FeedbackExporter` (the
  page allows only its template's scripts; this template has none);
* draws maths as MathML at build time (:class:`attention_grader.pages.offline_html.MathMLHTMLExporter`),
  so an offline classroom sees formulas, not LaTeX; no MathJax from a CDN;
* wraps long lines (error messages, printed output, code) at the page width: nothing scrolls
  sideways at 1024 px;
* shows, at the top of a failed test, what went wrong in plain words
  (:func:`explain_error`): the misconception's message, "your code ran longer than N s", or the
  student's own failing line and the error, before any code;
* says "not graded yet" for a written answer no teacher has graded (``make feedback
  PARTIAL=1``) instead of a 0, through :class:`MarkUngraded`.

:func:`configure` installs both in an nbgrader config (``nbgrader_config.py``).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from jinja2 import DictLoader
from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.diagnosis import read_diagnosis
from attention_grader.common.flags import GRADER_METADATA
from attention_grader.common.outcomes import STOPPED_NAMES, student_line
from attention_grader.common.question_labels import toc_labels
from attention_grader.pages.csp import FeedbackExporter
from attention_grader.pages.offline_html import MathMLHTMLExporter

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["FeedbackPageExporter", "MarkUngraded", "explain_error"]


class MarkUngraded(NbGraderPreprocessor):
    """After ``GetGrades``: a grade a teacher has not given yet is ``None``, not 0.

    Sets ``metadata.nbgrader.ungraded`` on such cells and ``resources["nbgrader"]["ungraded"]``
    to how many there are, so the page says "not graded yet".
    """

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        from nbgrader.api import Gradebook

        info = resources["nbgrader"]
        waiting = 0
        with Gradebook(info["db_url"]) as gb:
            for cell in nb.cells:
                meta = cell.metadata.get("nbgrader", {})
                if not meta.get("grade"):
                    continue
                grade = gb.find_grade(
                    meta["grade_id"], info["notebook"], info["assignment"], info["student"]
                )
                if grade.needs_manual_grade:
                    meta["ungraded"] = True
                    waiting += 1
        info["ungraded"] = waiting
        return nb, resources


def _box(kind: str, heading: str, body: str) -> str:
    return (
        f'<div class="feedback-note feedback-{kind}" role="note">'
        f"<p><strong>{heading}</strong></p>{body}</div>"
    )


def _para(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def explain_error(
    output: Mapping[str, Any], seconds: int | None = None, cell: NotebookNode | None = None
) -> str:
    """One error output as a short HTML note for a student (everything in it escaped).

    Parameters
    ----------
    output : dict
        A notebook error output (``ename``, ``evalue``, ``traceback``).
    seconds : int, optional
        The per-cell time limit, for the timeout message (default: nbgrader's
        ``Execute.timeout``).
    cell : dict, optional
        The output's cell: a misconception's words come from what grading recorded there
        (:mod:`attention_grader.common.diagnosis`), not from the message.
    """
    ename, evalue = str(output.get("ename", "")), str(output.get("evalue", ""))
    diagnosis = read_diagnosis(cell) if cell is not None else None
    if ename == "Misconception":
        text = diagnosis.text if diagnosis else evalue
        return _box("misconception", "What went wrong", _para(text))
    if ename == "CellTimeoutError":
        if seconds is None:
            from nbgrader.preprocessors import Execute

            seconds = Execute.class_traits()["timeout"].default_value
        text = f"Your code ran longer than {seconds} s: is there a loop that never ends?"
        return _box("timeout", "Stopped: too slow", _para(text))
    if ename == "NotebookTimeout":
        return _box(
            "timeout",
            "Stopped: too slow",
            _para("Your notebook ran out of time before this cell: is there a loop that never "
                  "ends, or a very slow cell above?"),
        )  # fmt: skip
    if ename == "GradingBudget":
        return _box(
            "timeout",
            "Not graded: out of time",
            _para("Checking your answers took longer than the grader allows, so it stopped "
                  "before this cell. Your teacher has been told and will look at it."),
        )  # fmt: skip
    if ename in STOPPED_NAMES:
        return _box(
            "stopped",
            "This cell did not run",
            _para("Python stopped before this cell (the program exited or crashed above). "
                  "Look for sys.exit(), os._exit() or a very large computation."),
        )  # fmt: skip
    if ename == "KeyboardInterrupt":
        return ""  # the timeout note that follows says why the kernel was interrupted
    if ename == "NotImplementedError" and not evalue.strip():  # the released placeholder
        return _box(
            "blank",
            "Blank: not answered",
            _para("This answer still has its placeholder: replace None with your answer and "
                  "delete the line raise NotImplementedError()."),
        )  # fmt: skip
    line = student_line(output.get("traceback", []))
    if line is None:  # a failed check (hidden test) or an error without a frame
        return _box("check", "Not yet right", _para(_check_words(ename, evalue)))
    number, code = line
    body = (
        f"<p>In line {number} of this cell:</p>"
        f'<pre class="student-line"><code>{html.escape(code)}</code></pre>'
        f"{_para(f'{ename}: {evalue}')}"
    )
    return _box("exception", "Your code stopped with an error", body)


#: What a failed check raises (``attention_lab.checks``' classes and plain ``assert``): the
#: class name says nothing to a student, the message is what the check says.
CHECK_FAILURES = frozenset({"AssertionError", "CheckFailure", "WrongAnswer", "AnswerFormatError"})


def _check_words(ename: str, evalue: str) -> str:
    """Say a failed check in words: its message, never a raw class name (``WrongAnswer:``)."""
    if ename in CHECK_FAILURES:
        return evalue or "A check of this answer did not pass: read the question again."
    said = f" ({evalue})" if evalue else ""
    return f"Checking your answer stopped with an error{said}: is it of the kind the question asks for?"


_CSS = """
body { overflow: visible; font-size: 15px; padding-top: 1em; }
div#notebook { overflow: visible; border-top: none; }
div#notebook-container { width: 100%; max-width: 100%; box-shadow: none; }
/* nothing scrolls sideways: long lines wrap at the page's width */
pre, code, .output_text pre, .input_area pre { white-space: pre-wrap; overflow-wrap: anywhere;
  word-break: break-word; }
div.output_area, div.output_subarea, div.input_area, div.inner_cell { max-width: 100%;
  min-width: 0; overflow-x: visible; }
div.prompt { min-width: 0; width: auto; }
img, svg, math { max-width: 100%; }
math { overflow-x: auto; }
div.nbgrader_cell .panel-heading { padding: 0.4em 0.6em; min-height: 37px; }
.score-line { float: right; }
.not-graded { color: #8a5a00; font-style: italic; }
li.late-penalty, .late-penalty { color: #b3261e; }
.feedback-note { border-left: 4px solid #3b6ea5; background: #f3f6fa; padding: 0.5em 0.8em;
  margin: 0.5em 0; }
.feedback-misconception, .feedback-check { border-color: #c0504d; background: #fbf1f0; }
.feedback-timeout, .feedback-stopped { border-color: #b07d00; background: #fdf7e6; }
.feedback-exception { border-color: #c0504d; background: #fbf1f0; }
.feedback-note p { margin: 0.2em 0; }
details.full-error summary { cursor: pointer; color: #555; }
@media print { div.cell { display: block; page-break-inside: avoid; } }
"""

_TEMPLATE = """{%- extends 'nbconvert/templates/classic/index.html.j2' -%}
{%- block header -%}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{{ resources.nbgrader.notebook | escape_html }}</title>
{{ resources.include_css('bootstrap.min.css') }}
{% for css in resources.inlining.css -%}<style type="text/css">{{ css }}</style>{% endfor %}
<style>{{ resources.attention_feedback_css }}</style>
</head>
{%- endblock header -%}

{% block body %}
<body>
<a id="top"></a>
<div class="container">
<div class="panel panel-default">
<div class="panel-heading">
<h4>{{ resources.nbgrader.notebook | escape_html }} (Score: {{ resources.nbgrader.score | float | round(2) }} / {{ resources.nbgrader.max_score | float | round(2) }})</h4>
{%- if resources.nbgrader.ungraded %}
<p class="not-graded">{{ resources.nbgrader.ungraded }} answer(s) not graded yet: this score will change when your teacher grades them.</p>
{%- endif %}
{%- if resources.nbgrader.late_penalty > 0 %}
<p class="late-penalty">Handed in late: {{ resources.nbgrader.late_penalty | float | round(2) }} point(s) taken off (already subtracted above).</p>
{%- endif %}
<ol id="toc">
{%- for cell in nb.cells %}{% set g = cell.metadata.nbgrader %}
{%- if g and g.grade %}
<li><a href="#{{ g.grade_id | escape_html }}">{{ resources.attention_toc.get(g.grade_id, 'check') | escape_html }}</a> ({{ score_text(cell) }})</li>
{%- endif %}
{%- endfor %}
{%- if resources.nbgrader.late_penalty > 0 %}
<li class="late-penalty">Late submission penalty (Score: -{{ resources.nbgrader.late_penalty | float | round(2) }})</li>
{%- endif %}
</ol>
</div>
<div class="panel-body"><div id="notebook" class="border-box-sizing">
<div class="container" id="notebook-container">
{{ super() }}
</div></div></div>
</div></div>
</body>
{%- endblock body %}

{% block footer %}
</html>
{% endblock footer %}

{% macro score_text(cell) -%}
{%- if cell.metadata.nbgrader.ungraded -%}<span class="not-graded">Score: not graded yet / {{ cell.metadata.nbgrader.points | float | round(2) }}</span>
{%- else -%}Score: {{ cell.metadata.nbgrader.score | float | round(2) }} / {{ cell.metadata.nbgrader.points | float | round(2) }}{%- endif -%}
{%- endmacro %}

{% macro nbgrader_heading(cell) -%}
{%- set g = cell.metadata.nbgrader -%}
<div class="panel-heading" {% if g.grade %}id="{{ g.grade_id | escape_html }}"{% endif %}>
{%- if g.solution -%}<span class="nbgrader-label">Your answer</span>
{%- elif g.grade -%}<span class="nbgrader-label">Check: <code>{{ g.grade_id | escape_html }}</code></span>
{%- endif -%}
{%- if g.grade %} <span class="score-line">{{ score_text(cell) }} <a href="#top">(Top)</a></span>{% endif -%}
</div>
{%- endmacro %}

{% macro nbgrader_footer(cell) -%}
{%- if cell.metadata.nbgrader.solution and cell.metadata.nbgrader.comment -%}
<div class="panel-footer"><b>Comments:</b> {{ cell.metadata.nbgrader.comment | markdown2html | strip_files_prefix }}</div>
{%- endif -%}
{%- endmacro %}

{% macro notes(cell) -%}
{%- for output in cell.outputs if output.output_type == 'error' -%}{{ output | explain_error(cell) }}{%- endfor -%}
{%- endmacro %}

{% block markdowncell scoped %}
<div class="cell border-box-sizing text_cell rendered">
{%- if cell.metadata.nbgrader and (cell.metadata.nbgrader.solution or cell.metadata.nbgrader.grade) -%}
<div class="panel panel-primary nbgrader_cell">
{{ nbgrader_heading(cell) }}
<div class="panel-body"><div class="text_cell_render border-box-sizing rendered_html">
{{ cell.source | markdown2html | strip_files_prefix }}
</div></div>
{{ nbgrader_footer(cell) }}
</div>
{%- else -%}
<div class="inner_cell"><div class="text_cell_render border-box-sizing rendered_html">
{{ cell.source | markdown2html | strip_files_prefix }}
</div></div>
{%- endif -%}
</div>
{% endblock markdowncell %}

{% block input %}
{%- if cell.metadata.nbgrader and (cell.metadata.nbgrader.solution or cell.metadata.nbgrader.grade) -%}
<div class="panel panel-primary nbgrader_cell">
{{ nbgrader_heading(cell) }}
<div class="panel-body">
{{ notes(cell) }}
<div class="input_area">{{ cell.source | highlight_code(metadata=cell.metadata) }}</div>
</div>
{{ nbgrader_footer(cell) }}
</div>
{%- else -%}
<div class="inner_cell">
{{ notes(cell) }}
<div class="input_area">{{ cell.source | highlight_code(metadata=cell.metadata) }}</div>
</div>
{%- endif -%}
{% endblock input %}

{# the page's own <body> is above: the classic template's second one is left out #}
{% block body_header %}{% endblock body_header %}
{% block body_footer %}{% endblock body_footer %}

{% block error -%}
<details class="full-error output_subarea output_text output_error">
<summary>Full error message</summary>
<pre>{% for line in output.traceback %}{{ line | ansi2html }}
{% endfor %}</pre>
</details>
{%- endblock error %}
"""


class FeedbackPageExporter(FeedbackExporter, MathMLHTMLExporter):
    """The course's feedback page (``c.GenerateFeedback.exporter_class``).

    It has the CSP of :class:`~attention_grader.pages.csp.FeedbackExporter`, MathML maths, and
    the plain-words template above.
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)  # type: ignore[no-untyped-call]  # nbconvert's has no annotations
        self.extra_loaders = [DictLoader({"attention_feedback.html.j2": _TEMPLATE})]
        self.template_file = "attention_feedback.html.j2"
        self._seconds = self._configured_timeout()

    def _cell_timeout(self, nb: NotebookNode) -> int:
        """Return the per-cell limit grading used (GradingExecute records it), else the config's."""
        used = nb.metadata.get(GRADER_METADATA, {}).get("cell_timeout")
        if isinstance(used, int) and not isinstance(used, bool) and 0 < used <= 86_400:
            return used
        return self._configured_timeout()

    def _configured_timeout(self) -> int:
        from nbgrader.preprocessors import Execute

        timeout: int = Execute(config=self.config).timeout
        return timeout

    def default_filters(self) -> Iterator[tuple[str, Callable[..., Any]]]:
        yield from super().default_filters()  # type: ignore[no-untyped-call]  # nbconvert's, as above
        yield "explain_error", lambda output, cell=None: explain_error(output, self._seconds, cell)

    def from_notebook_node(  # type: ignore[override]  # a page, as nbconvert's HTMLExporter's
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        self._seconds = self._cell_timeout(nb)
        resources = {} if resources is None else resources
        resources["attention_feedback_css"] = _CSS
        resources["attention_toc"] = toc_labels(nb)  # "Q1" ... "Q5", not "Test cell" x 5
        return super().from_notebook_node(nb, resources, **kw)
