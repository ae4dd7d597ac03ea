"""attention_grader.pages.html_safety and .csp: what a student wrote never runs in a browser.

Attack first: each payload class (script tags, event handlers, javascript: URLs, SVG with
script, iframes/objects, CSS, data: URLs in links, raw HTML in markdown, widget views, JS
outputs, forged image data and metadata) is neutralised; honest outputs (a matplotlib PNG, a
pandas table, LaTeX, a markdown answer with maths) survive unchanged.
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import nbformat
import pytest
from attention_grader.common.flag_store import read_flags
from attention_grader.pages import csp, csp_policy
from attention_grader.pages.html_clean import clean_html, sanitize_html
from attention_grader.pages.html_safety import (
    SanitizeStudentContent,
    sanitize_notebook,
    sanitize_output,
)
from attention_grader.pages.markdown_safety import is_safe_markdown, sanitize_markdown
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 32).decode()
PANDAS = (
    "<div>\n<style scoped>\n    .dataframe tbody tr th {\n        vertical-align: top;\n    }\n"
    '</style>\n<table border="1" class="dataframe">\n  <thead>\n    <tr style="text-align: right;">'
    "\n      <th></th>\n      <th>score</th>\n    </tr>\n  </thead>\n  <tbody>\n    <tr>\n"
    "      <th>0</th>\n      <td>0.25</td>\n    </tr>\n  </tbody>\n</table>\n</div>"
)

#: (payload class, HTML a student's output or answer carries)
HTML_ATTACKS = [
    ("script tag", "<script>window.__pwned = 1</script>"),
    ("script, mixed case", "<ScRiPt>window.__pwned = 1</sCrIpT>"),
    ("event handler", '<img src=x onerror="window.__pwned = 1">'),
    ("event handler on allowed tag", '<b onmouseover="window.__pwned = 1">hover</b>'),
    ("javascript: link", '<a href="javascript:window.__pwned=1">click</a>'),
    ("entity-encoded javascript: link", '<a href="&#106;avascript:window.__pwned=1">x</a>'),
    ("javascript: with a tab", '<a href="java\tscript:window.__pwned=1">x</a>'),
    ("SVG with script", "<svg><script>window.__pwned = 1</script></svg>"),
    ("SVG onload", '<svg onload="window.__pwned = 1"></svg>'),
    ("iframe", '<iframe src="javascript:window.__pwned=1"></iframe>'),
    ("iframe srcdoc", '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>'),
    ("object", '<object data="data:text/html,<script>alert(1)</script>"></object>'),
    ("embed", '<embed src="data:text/html,<script>alert(1)</script>">'),
    ("data: URL in a link", '<a href="data:text/html,<script>alert(1)</script>">x</a>'),
    ("CSS expression", '<div style="width: expression(alert(1))">x</div>'),
    ("CSS url()", '<div style="background: url(javascript:alert(1))">x</div>'),
    ("style element", "<style>body { display: none }</style>"),
    ("form posting to the API", '<form action="/formgrader/api/grade/1" method="post"></form>'),
    ("meta refresh", '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'),
    ("base href", '<base href="https://evil.example/">'),
    ("DOM clobbering id", '<a id="base_url" href="https://evil.example">x</a>'),
    ("nested tags", "<<script>script>window.__pwned = 1<</script>/script>"),
]

#: Markdown that nbconvert renders into something that runs (raw HTML or markdown syntax).
MARKDOWN_ATTACKS = [
    *HTML_ATTACKS,
    ("markdown javascript: link", "[click me](javascript:window.__pwned=1)"),
    ("markdown javascript: image", "![x](javascript:window.__pwned=1)"),
    ("markdown autolink", "<javascript:window.__pwned=1>"),
    ("markdown reference link", "[x]: javascript:window.__pwned=1\n\n[click][x]"),
    ("markdown data: link", "[x](data:text/html,<script>alert(1)</script>)"),
    ("mermaid block", "```mermaid\ngraph TD; A-->B\n```"),
]

_DANGEROUS_TAGS = {"script", "iframe", "object", "embed", "svg", "style", "form", "meta", "base"}


class _Markup(HTMLParser):
    """Collects the elements and attributes of a page that could run code or leave it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in _DANGEROUS_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = re.sub(r"[\x00-\x20]", "", value or "").lower()
            if name.startswith("on") or name == "id":
                self.found.append(f"{tag}[{name}]")
            elif name in ("href", "src") and (
                value.startswith(("javascript:", "vbscript:"))
                or (value.startswith("data:") and not value.startswith("data:image/"))
            ):
                self.found.append(f"{tag}[{name}={value[:20]}]")
            elif name == "style" and ("expression(" in value or "url(" in value):
                self.found.append(f"{tag}[style]")
            elif name == "class" and "mermaid" in value:
                self.found.append(f"{tag}[class=mermaid]")


def _live_markup(page: str) -> list[str]:
    """Dangerous elements and attributes of ``page`` as a parser sees them (escaped text is
    text: ``&lt;script&gt;`` is no element).
    """
    parser = _Markup()
    parser.feed(page)
    parser.close()
    return parser.found


def _rendered(source: str, attachments=None) -> str:
    """What nbconvert (the formgrader and feedback templates) makes of a markdown cell."""
    renderer = IPythonRenderer(escape=False, attachments=attachments or {})
    return MarkdownWithMath(renderer=renderer).render(source)


# --------------------------------------------------------------------------- HTML outputs


@pytest.mark.parametrize(("kind", "payload"), HTML_ATTACKS, ids=[k for k, _ in HTML_ATTACKS])
def test_html_attacks_are_neutralised(kind, payload):
    clean = sanitize_html(payload)
    assert not _live_markup(clean), f"{kind}: {clean!r}"


def test_a_script_is_shown_as_text_so_the_grader_sees_the_attempt():
    clean = sanitize_html("<b>mine</b><script>steal()</script>")
    assert "&lt;b&gt;mine&lt;/b&gt;&lt;script&gt;steal()&lt;/script&gt;" in clean
    assert "shows this output as text" in clean and not _live_markup(clean)


# --------------------------------------------------------------------------- maths (issue 25)

_RUN = "window.__pwned=1"
#: Formulas whose MathML carried HTML: latex2mathml copies text commands into its output.
MATHS_ATTACKS = [
    ("\\text img", f'$\\text{{<img/src="x"/onerror="{_RUN}">}}$'),
    ("\\text display", f"$$\\text{{<img src=x onerror={_RUN}>}}$$"),
    ("\\mathrm", f"$\\mathrm{{<img src=x onerror={_RUN}>}}$"),
    ("\\operatorname", f"$\\operatorname{{<img src=x onerror={_RUN}>}}$"),
    ("\\mbox svg", f"$\\mbox{{<svg onload={_RUN}>}}$"),
    ("\\textbf script", f"$\\textbf{{<script>{_RUN}</script>}}$"),
    ("\\href javascript", f"$\\href{{javascript:{_RUN}}}{{x}}$"),
    ("\\style css", "$\\style{background:url(javascript:alert(1))}{x}$"),
    ("\\color quote", '$\\color{red" onclick="window.__pwned=1}{y}$'),
    ("meta refresh", '$\\text{<meta http-equiv="refresh" content="0;url=https://evil.example/">}$'),
    ("base href", '$\\text{<base href="https://evil.example/">}$'),
    ("form", '$\\text{<form action="https://evil.example/"><button>Save</button></form>}$'),
    ("iframe", '$\\text{<iframe src="https://evil.example/"></iframe>}$'),
    ("environment", f"\\begin{{align}}\\text{{<img src=x onerror={_RUN}>}}\\end{{align}}"),
]


@pytest.mark.parametrize(("kind", "payload"), MATHS_ATTACKS, ids=[k for k, _ in MATHS_ATTACKS])
def test_maths_carries_no_html_into_any_page(kind, payload):
    """Every renderer of student markdown (feedback, the formgrader's filter, one text) ends
    with the allowlist: nothing live even if the notebook-level check were skipped.
    """
    from attention_grader.pages.formgrader_view import markdown2html
    from attention_grader.pages.offline_html import MathMLHTMLExporter, markdown_to_html

    pages = {
        "markdown_to_html": markdown_to_html(payload),
        "formgrader filter": markdown2html({"cell": {}, "resources": {}}, payload),
        "feedback filter": MathMLHTMLExporter().markdown2html(
            {"cell": {}, "resources": {}}, payload
        ),
        "after the check": markdown_to_html(sanitize_markdown(payload)),
    }
    for where, page in pages.items():
        assert not _live_markup(page), f"{kind} ({where}): {page!r}"
        for tag in ("<img", "<meta", "<base", "<form", "<iframe", "<svg", "<script"):
            assert tag not in page.lower(), f"{kind} ({where}): {page!r}"
        assert _attributes(page) <= _SAFE_ATTRIBUTES, f"{kind} ({where}): {page!r}"


#: What the pages above may carry: MathML's presentation, nothing that links or runs.
_SAFE_ATTRIBUTES = {"alttext", "display", "mathvariant", "stretchy", "mathcolor", "style",
                    "displaystyle", "scriptlevel", "class", "columnalign", "fence", "lspace",
                    "rspace", "width", "columnspacing", "rowspacing"}  # fmt: skip


def _attributes(page: str) -> set[str]:
    names: set[str] = set()

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            names.update(name for name, _ in attrs)

    Collect().feed(page)
    return names


@pytest.mark.parametrize(("kind", "payload"), MATHS_ATTACKS, ids=[k for k, _ in MATHS_ATTACKS])
def test_maths_with_html_in_it_is_shown_as_text_and_flagged(kind, payload):
    nb = new_notebook(cells=[new_markdown_cell(payload)])
    findings = sanitize_notebook(nb)
    if kind in ("\\style css", "\\color quote"):
        return  # no HTML in the TeX: its attribute values are escaped and checked on the page
    assert findings, kind
    assert "plain text" in nb.cells[0].source and payload in nb.cells[0].source


def test_latex_to_mathml_escapes_text_commands():
    from attention_grader.pages.offline_html import latex_to_mathml

    mathml = latex_to_mathml('\\text{<img/src="x"/onerror="a()"> & <b>}')
    assert "<img" not in mathml and "<b>" not in mathml
    assert "&lt;img/src=&quot;x&quot;" in mathml or '&lt;img/src="x"' in mathml
    assert mathml.startswith("<math alttext=") and "<mtext>" in mathml


HONEST_MATHS = [
    "$\\mathrm{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V$",
    "$a < b$ and $\\text{if } x > 0$",
    "$$\\sum_{j=1}^{n} \\alpha_{ij} = 1$$",
    "\\begin{align}x &= 1 \\\\ y &= 2\\end{align}",
    "$\\operatorname{argmax}_i s_i$",
]


@pytest.mark.parametrize("source", HONEST_MATHS)
def test_honest_maths_keeps_its_mathml_through_the_allowlist(source):
    from attention_grader.pages.offline_html import markdown_to_html, render_markdown

    assert sanitize_markdown(source) == source
    page = markdown_to_html(source)
    assert page.count("<m") == render_markdown(source).count("<m") > 0  # every MathML element
    assert _attributes(page) == _attributes(render_markdown(source))  # and all its attributes


def test_a_pandas_table_survives():
    clean = sanitize_html(PANDAS)
    for kept in ('<table border="1" class="dataframe">', '<tr style="text-align:right">',
                 "<th>score</th>", "<td>0.25</td>"):  # fmt: skip
        assert kept in clean
    assert "<style" not in clean and ".dataframe tbody" not in clean


def test_honest_formatting_and_links_survive():
    html = '<p><b>Bold</b>, <sub>2</sub>, <a href="https://numpy.org">numpy</a>, <a href="#x">x</a></p>'
    assert sanitize_html(html) == html


def test_an_svg_output_shown_as_an_image_stays_an_image_when_cleaned_again():
    svg = _display(
        {"image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>'}
    )
    sanitize_output(svg)
    once = svg.data["text/html"]
    assert sanitize_output(svg) == [] and svg.data["text/html"] == once


# --------------------------------------------------------------------------- markdown


@pytest.mark.parametrize(
    ("kind", "payload"), MARKDOWN_ATTACKS, ids=[k for k, _ in MARKDOWN_ATTACKS]
)
def test_markdown_attacks_render_inert_and_keep_the_students_text(kind, payload):
    assert not is_safe_markdown(payload), kind
    shown = sanitize_markdown(payload)
    page = _rendered(shown)
    assert not _live_markup(page), f"{kind}: {page!r}"
    # The grader still reads what the student wrote (escaped, in a code block).
    words = re.findall(r"[A-Za-z_]{4,}", payload)
    assert all(w in page for w in words), page


HONEST_MARKDOWN = [
    "The weights are $\\frac{e^{x_i}}{\\sum_j e^{x_j}}$, so $a < b$ implies $w_a < w_b$.",
    "> Attention is a weighted average.\n\n**Yes**: `x < y` and *why*.",
    "| q | k |\n|---|---|\n| 1 | 2 |",
    "# My answer\n\n1. scale by $1/\\sqrt{d}$\n2. softmax\n\n- [x] checked",
    "H<sub>2</sub>O and x<sup>2</sup><br>See [the paper](https://arxiv.org/abs/1706.03762).",
    "![my plot](attachment:plot.png)",
]


@pytest.mark.parametrize("source", HONEST_MARKDOWN)
def test_honest_written_answers_are_left_exactly_as_written(source):
    attachments = {"plot.png": {"image/png": PNG}}
    assert sanitize_markdown(source, attachments) == source


def test_fence_is_longer_than_any_backticks_in_the_answer():
    payload = "````\n<script>window.__pwned=1</script>\n````\n<img src=x onerror=alert(1)>"
    page = _rendered(sanitize_markdown(payload))
    assert not _live_markup(page)


# --------------------------------------------------------------------------- whole notebooks


def _display(data, metadata=None):
    return new_output("display_data", data=data, metadata=metadata or {})


def _attack_notebook():
    code = new_code_cell(
        "display(...)",
        metadata={"nbgrader": {"grade_id": "q1", "solution": True}},
        outputs=[
            _display({"text/html": "<img src=x onerror=alert(1)>", "text/plain": "<HTML>"}),
            _display({"application/javascript": "window.__pwned=1"}),
            _display({"text/javascript": "window.__pwned=1", "text/plain": "js"}),
            _display(
                {
                    "application/vnd.jupyter.widget-view+json": {"model_id": "abc"},
                    "text/plain": "IntSlider(value=3)",
                }
            ),
            _display({"application/vnd.plotly.v1+json": {"data": []}}),
            _display({"image/svg+xml": "<svg onload='alert(1)'><script>alert(1)</script></svg>"}),
            _display({"image/png": '" onerror="alert(1)'}),
            _display({"image/png": PNG}, {"image/png": {"width": "1 onerror=alert(1)"}}),
            _display({"text/html": "<b>hi</b>"}, {"text/html": {"isolated": True}}),
            _display({"text/markdown": "[x](javascript:alert(1))"}),
            _display({"application/pdf": "JVBERi0="}),
        ],
    )
    written = new_markdown_cell(
        "My answer <img src=x onerror=alert(1)>",
        metadata={"nbgrader": {"grade_id": "essay", "solution": True, "grade": True}},
    )
    forged = new_markdown_cell(
        "see ![x](attachment:evil.svg)",
        metadata={"nbgrader": {"grade_id": '"><script>alert(1)</script>', "solution": True}},
    )
    forged.attachments = {
        "evil.svg": {"image/svg+xml": base64.b64encode(b"<svg onload=alert(1)/>").decode()}
    }
    raw = nbformat.v4.new_raw_cell("<script>alert(1)</script>", metadata={"format": "text/html"})
    nb = new_notebook(cells=[code, written, forged, raw])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


def test_a_notebook_of_attacks_is_cleaned_everywhere():
    nb = _attack_notebook()
    findings = sanitize_notebook(nb)
    code, written, forged, raw = nb.cells
    outputs = code.outputs
    assert _live_markup(outputs[0].data["text/html"]) == []
    assert outputs[0].data["text/plain"] == "<HTML>"  # text is escaped by nbconvert: kept
    assert set(outputs[1].data) == {"text/plain"}  # JS gone, a note instead
    assert "removed by the grader" in outputs[1].data["text/plain"]
    assert set(outputs[2].data) == {"text/plain"}
    assert outputs[3].data == {"text/plain": "IntSlider(value=3)"}
    assert set(outputs[4].data) == {"text/plain"}
    svg = outputs[5].data
    assert set(svg) == {"text/html"} and svg["text/html"].startswith(
        '<img src="data:image/svg+xml;base64,'
    )  # an SVG shown through <img> cannot run script
    assert "image/png" not in outputs[6].data  # not base64: would break out of src="..."
    assert outputs[7].data["image/png"] == PNG and outputs[7].metadata == {}
    assert outputs[8].metadata == {}  # no "isolated" iframe
    assert _live_markup(_rendered(outputs[9].data["text/markdown"])) == []
    assert set(outputs[10].data) == {"text/plain"}
    assert "My answer" in written.source and not _live_markup(_rendered(written.source))
    assert forged.metadata.nbgrader.grade_id == "___script_alert_1___script_"
    assert forged.attachments == {}  # an SVG attachment is not a bitmap
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw.source and not _live_markup(raw.source)
    assert "widgets" not in nb.metadata
    kinds = {f.as_flag().kind for f in findings}
    assert kinds == {"unsafe_html"} and len(findings) >= 10


def test_honest_outputs_survive_unchanged():
    honest = [
        new_output("stream", name="stdout", text="<not html> 0.25\n"),
        new_output("execute_result", data={"text/plain": "0.25"}, execution_count=1),
        _display({"image/png": PNG, "text/plain": "<Figure size 640x480 with 1 Axes>"}),
        _display({"text/latex": "$\\frac{1}{\\sqrt{d}}$", "text/plain": "1/sqrt(d)"}),
        new_output("error", ename="Misconception", evalue="[x] <b>", traceback=["<b>"]),
    ]
    cell = new_code_cell("x", outputs=[nbformat.from_dict(o) for o in honest])
    nb = new_notebook(cells=[cell, new_markdown_cell(HONEST_MARKDOWN[0])])
    before = nbformat.writes(nb)
    assert sanitize_notebook(nb) == []
    assert nbformat.writes(nb) == before


def test_preprocessor_reports_findings_to_the_batch_summary():
    nb, resources = SanitizeStudentContent().preprocess(_attack_notebook(), {})
    flags = read_flags(nb)
    assert flags and all(f.kind == "unsafe_html" for f in flags)
    assert any("essay" in f.detail for f in flags)


# --------------------------------------------------------------------------- wiring


def test_configure_adds_the_sanitiser_to_autograde_and_feedback():
    from attention_grader.pages.feedback_page import MarkUngraded
    from attention_grader.pipeline import configure
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import ClearHiddenTests, GetGrades, SaveAutoGrades
    from traitlets.config import Config

    c = Config()
    configure(c)
    configure(c)  # idempotent
    auto = c.Autograde.autograde_preprocessors
    assert auto[-1] is SanitizeStudentContent and SaveAutoGrades in auto
    assert auto.count(SanitizeStudentContent) == 1
    assert c.GenerateFeedback.preprocessors == [
        GetGrades, MarkUngraded, ClearHiddenTests, SanitizeStudentContent, CSSHTMLHeaderPreprocessor,
    ]  # fmt: skip
    assert issubclass(c.GenerateFeedback.exporter_class, csp.FeedbackExporter)


def test_the_course_config_sanitises():
    from pathlib import Path

    from traitlets.config.loader import PyFileConfigLoader

    root = Path(__file__).resolve().parents[3]
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    assert config.Autograde.autograde_preprocessors[-1] is SanitizeStudentContent
    assert SanitizeStudentContent in config.GenerateFeedback.preprocessors
    assert issubclass(config.GenerateFeedback.exporter_class, csp.FeedbackExporter)


@pytest.mark.slow
def test_make_grade_with_the_course_config_sanitises_and_flags(tmp_path):
    """attention_grader.steps.grade (``make grade``) runs the course config's pipeline: the
    autograded notebook is clean, the score is what the answers earn, the summary says why.
    """
    from attention_grader.steps.grade import GradeOptions, grade
    from attention_grader.steps.release import release

    from tests.support.grading_course import (
        CORRECT,
        FIXTURE,
        answer,
        make_course,
        place_submission,
        released_notebook,
    )

    course = make_course(tmp_path)
    release(course, FIXTURE)
    show = "\nfrom IPython.display import HTML, display\n"
    show += "display(HTML('<script>window.__pwned = 1</script><b>shown</b>'))"
    answers = {**CORRECT, "q2_answer": CORRECT["q2_answer"] + show}
    place_submission(
        course, FIXTURE, "mallory", answer(released_notebook(course, FIXTURE), answers)
    )
    summary = grade(course, FIXTURE, GradeOptions(jobs=1, progress=False))
    result = summary.by_student()["mallory"]
    assert result.status == "graded" and result.score == result.max_score == 3
    assert any(f.kind == "unsafe_html" for f in result.flags), result.flags
    graded = course.root / "autograded" / "mallory" / FIXTURE / f"{FIXTURE}.ipynb"
    html = [
        o["data"]["text/html"]
        for c in nbformat.read(graded, as_version=4).cells
        for o in c.get("outputs", [])
        if "text/html" in o.get("data", {})
    ]
    (shown,) = html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;b&gt;shown&lt;/b&gt;" in shown
    assert not _live_markup(shown) and "<script" not in shown


# --------------------------------------------------------------------------- CSP


MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML"


def test_page_policy_allows_only_the_templates_scripts():
    page = (
        f'<html><head><script src="{MATHJAX}"></script>'
        "<script>var own = 1;</script><script type='text/x-mathjax-config'>cfg</script>"
        "</head><body><script>window.__pwned = 1</script></body></html>"
    )
    policy = csp.page_policy(page)
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    script = directives["script-src"].split()
    assert directives["default-src"] == "'none'"
    assert "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/" in script
    assert csp_policy._sha256("var own = 1;") in script
    assert (
        csp_policy._sha256("window.__pwned = 1") not in script
    )  # the body's script is not allowed
    assert "'unsafe-inline'" not in script
    assert directives["object-src"] == "'none'" and directives["base-uri"] == "'none'"


def test_page_policy_allows_a_local_or_inlined_mathjax():
    local = '<html><head><script src="mathjax/tex-chtml.js"></script></head><body></body></html>'
    assert "script-src 'self'" in csp.page_policy(local)
    inlined = "<html><head><script>/* MathJax bundle */ window.MathJax={}</script></head><body>"
    assert csp_policy._sha256("/* MathJax bundle */ window.MathJax={}") in csp.page_policy(inlined)


def test_csp_meta_goes_first_in_head_or_fails_loudly():
    page = csp.add_csp_meta("<!DOCTYPE html><html><head>\n<script src=a.js></script>", "x")
    assert page.index('http-equiv="Content-Security-Policy" content="x"') < page.index("<script")
    with pytest.raises(ValueError, match="no <head>"):
        csp.add_csp_meta("<p>no head</p>", "x")


@pytest.mark.slow
def test_report_page_carries_a_script_free_policy_and_escapes_ids(tmp_path):
    from attention_grader.reports.report import write_report

    from tests.support.grading_course import synthetic_class

    course = synthetic_class(tmp_path)
    evil = '<img src=x onerror="window.__pwned=1">'
    path = course.root / "autograded" / "ben" / "a1" / "nb.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].metadata.nbgrader.grade_id = evil
    nbformat.write(nb, path)
    page = write_report(course, "a1").read_text()
    assert csp.STATIC_PAGE_POLICY in page
    assert "script-src" not in csp.STATIC_PAGE_POLICY  # default-src 'none': no script at all
    assert evil not in page and "&lt;img src=x" in page


def _policy_of(page: str) -> dict[str, str]:
    match = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert match, "no Content-Security-Policy <meta> in the page"
    return {d.split()[0]: d for d in match[1].split("; ")}


def test_every_offline_page_carries_a_policy_meta(tmp_path):
    """Lesson pages, their contents page and the docs site's pages, like feedback and the
    report: nothing loads by default, no <base> may move links, no form may post.
    """
    from attention_grader.pages import docs_site, lesson_pages
    from attention_grader.pages.offline_html import OfflineHTMLExporter

    lesson, _ = OfflineHTMLExporter().from_notebook_node(
        new_notebook(cells=[new_markdown_cell("# A lesson\n\n$x$")])
    )
    pages = {
        "lesson": lesson,
        "contents": lesson_pages._index_page([], None),
        "docs": docs_site._doc_page("Docs", "index.html", "<p>hi</p>"),
    }
    for name, page in pages.items():
        policy = _policy_of(page)
        assert policy["default-src"] == "default-src 'none'", name
        assert policy["base-uri"] == "base-uri 'none'", name
        assert policy["form-action"] == "form-action 'none'", name
        assert "script-src" not in policy, name  # none of these pages has a script of its own


def test_a_styled_pandas_table_keeps_its_cells_without_its_ids():
    """A pandas Styler writes ``id`` on every cell: dropped quietly, the table still shown."""
    styler = (
        '<table id="T_1"><thead><tr><th id="T_1_level0_col0" class="col_heading">score</th>'
        '</tr></thead><tbody><tr><td id="T_1_row0_col0" class="data row0 col0">0.25</td>'
        "</tr></tbody></table>"
    )
    clean, found = clean_html(styler)
    assert found == [] and "<td" in clean and "0.25" in clean and "id=" not in clean


# --------------------------------------------------------------------------- parser bombs


@pytest.mark.slow
def test_no_stdlib_html_parser_reads_student_markup(monkeypatch):
    """The sanitiser reads markup with nh3 only (html.parser is quadratic on ``<a <a <a ...``
    before CVE-2025-6069's fix, and raises on ``<![x y``): a parse by it here fails the test.
    """
    import html.parser

    def refuse(self, data):
        raise AssertionError("html.parser read student markup")

    monkeypatch.setattr(html.parser.HTMLParser, "feed", refuse)
    bomb = "<a " * 5000
    assert clean_html(bomb)[1] == []
    assert sanitize_markdown(f"${bomb}$ and *honest* $a < b$")
    assert clean_html('<b>ok</b><img src=x onerror="a()">')[1] == ["<img onerror=...>"]


@pytest.mark.parametrize("markup", ["<![x y", "$<![x y$", "<![CDATA[x", "<?php x", "<!x y"])
def test_declarations_never_raise_and_are_shown_as_text(markup):
    clean, found = clean_html(markup)
    assert found and "unsafe-html" in clean
    shown = sanitize_markdown(markup)  # markdown may show it as text as it is: no raise
    assert _live_markup(_rendered(shown)) == []


def test_findings_are_capped_and_each_named_once():
    from attention_grader.config.settings import PageLimits
    from attention_grader.pages.html_clean import problems

    attempt = "".join(f"<x{i}>" for i in range(500)) + "<script></script>" * 50
    found = problems(attempt)
    assert len(found) == PageLimits().max_problems and len(set(found)) == len(found)
    assert len(problems(attempt, limits=PageLimits(max_problems=3))) == 3


def test_a_sanitiser_that_fails_leaves_the_notebook_graded_plain_and_flagged(monkeypatch):
    """Never raise past the saved score: the notebook is kept, shown as plain text, flagged."""
    from attention_grader.pages import html_safety

    def broken(source, attachments=None, limits=None):
        raise AssertionError("unknown status keyword")

    monkeypatch.setattr(html_safety, "sanitize_markdown", broken)
    nb = new_notebook(
        cells=[
            new_markdown_cell("<img src=x onerror=alert(1)>"),
            new_code_cell(
                "x",
                outputs=[
                    new_output(
                        "display_data", data={"text/html": "<script>1</script>", "text/plain": "x"}
                    )
                ],
            ),
        ]
    )
    nb, _ = html_safety.SanitizeStudentContent().preprocess(nb, {})
    assert nb.cells[0].source.count("```") == 2 and "could not be checked" in nb.cells[0].source
    assert nb.cells[1].outputs[0].data == {"text/plain": "x"}
    (flag,) = read_flags(nb)
    assert flag.kind == "unsafe_html" and "sanitiser failed" in flag.detail


def test_a_cell_the_teacher_released_is_cleaned_but_raises_no_flag():
    """A ``%%html`` cell and markdown with HTML the teacher wrote: cleaned, not the student's doing."""
    from attention_grader.pages.html_safety import teachers_cells

    html_cell = "%%html\n<style>.x {color: red}</style><script>console.log(1)</script>"
    note = "<iframe src='https://example.org/video'></iframe>"

    def notebook():
        out = new_output("display_data", data={"text/html": html_cell.split("\n", 1)[1]})
        return new_notebook(
            cells=[new_code_cell(html_cell, outputs=[out]), new_markdown_cell(note)]
        )

    source = notebook()
    released = notebook()
    findings = sanitize_notebook(released, teachers_cells(source))
    assert findings == []
    assert "<script>" not in released.cells[0].outputs[0].data["text/html"].replace("&lt;", "")
    assert released.cells[1].source != note  # shown as text all the same
    students = notebook()
    students.cells[0].source += "\n<b>mine</b>"
    assert [f.where for f in sanitize_notebook(students, teachers_cells(source))] == [
        "cell 1 output 1 text/html"
    ]


def test_maths_past_a_pages_budget_is_shown_as_its_source():
    """latex2mathml's time grows faster than a formula's length: past ``c.Pages.max_maths_chars``
    of TeX in one rendering the rest is shown as source (escaped), so a long formula costs
    linear time. The exporters of feedback pages read the course config's value.
    """
    from attention_grader.config.settings import PageLimits
    from attention_grader.pages import offline_html
    from traitlets.config import Config

    text = "$x^2$ and $" + "<a " * 40 + "$"
    rendered = offline_html.render_markdown(text, limits=PageLimits(max_maths_chars=50))
    assert "<math" in rendered and 'class="tex-fallback">&lt;a &lt;a' in rendered
    assert "tex-fallback" not in offline_html.render_markdown("$" + "x+" * 40 + "x$")
    config = Config()
    config.Pages.max_maths_chars = 50
    nb = new_notebook(cells=[new_markdown_cell("$x^2$ and $" + "y+" * 40 + "y$")])
    page, _ = offline_html.MathMLHTMLExporter(config=config).from_notebook_node(nb)
    assert page.count("<math") == 1 and "tex-fallback" in page
    page, _ = offline_html.MathMLHTMLExporter().from_notebook_node(nb)
    assert page.count("<math") == 2 and "tex-fallback" not in page


def test_an_html_output_too_large_to_read_is_shown_as_text():
    """``c.Pages.max_checked_html``: a longer HTML output is shown as its text, unread."""
    from attention_grader.config.settings import PageLimits
    from attention_grader.pages import html_clean, html_safety
    from traitlets.config import Config

    table = "<table><tr><td>1</td></tr></table>" * 10
    clean, found = html_clean.clean_html(table, PageLimits(max_checked_html=100))
    assert found and "over 100" in found[0] and "&lt;table&gt;" in clean
    config = Config()
    config.Pages.max_checked_html = 100

    def notebook():
        out = new_output("display_data", data={"text/html": table, "text/plain": "t"})
        return new_notebook(cells=[new_code_cell("t", outputs=[out])])

    nb, _ = html_safety.SanitizeStudentContent(config=config).preprocess(notebook(), {})
    assert [f.detail for f in read_flags(nb)] and "&lt;table&gt;" in (
        nb.cells[0].outputs[0].data["text/html"]
    )
    nb, _ = html_safety.SanitizeStudentContent().preprocess(notebook(), {})
    assert read_flags(nb) == [] and "<table>" in nb.cells[0].outputs[0].data["text/html"]
