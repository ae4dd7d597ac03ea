"""HTML that works with no internet: maths as MathML, no CDN scripts, images with alt text.

nbconvert's HTML templates load MathJax, require.js and mermaid from a CDN, so an offline
classroom sees raw LaTeX. Here the LaTeX in markdown is converted to MathML when the page is
built (``latex2mathml``, pure Python), which every current browser draws natively (Chromium
since 109, Firefox, Safari). Why MathML at build time rather than a local MathJax copy: a page
stays one self-contained file that still renders after it is copied elsewhere (feedback files
are copied into each student's folder, where a relative path to a MathJax folder would break),
the build needs no npm and ships no 1-20 MB of JavaScript and fonts, and nothing runs in the
reader's browser. What it costs: latex2mathml knows a (large) subset of LaTeX; anything it
cannot convert is shown as its TeX source in ``<code class="tex-fallback">`` and logged.

Reuse (feedback, the report, the formgrader):

- :func:`latex_to_mathml` for one formula; :func:`markdown_to_html` for one markdown text.
- :class:`MathMLHTMLExporter`: nbconvert's ``HTMLExporter`` whose ``markdown2html`` filter writes
  MathML, with any template (``c.GenerateFeedback.exporter_class`` accepts it).
- :class:`OfflineHTMLExporter`: the same with the course's offline page template (the lab
  template without MathJax, require.js, mermaid or widget scripts; ``<img alt>`` from the
  output's ``image/png`` metadata ``alt``; optional previous / contents / next links from
  ``resources["course_nav"]``; the docs site's bar and stylesheet from ``resources["site"]``,
  a :class:`~attention_grader.pages.lesson_pages.SiteChrome` of trusted HTML made by :mod:`attention_grader.pages.docs_site`).
"""

from __future__ import annotations

import html
import logging
import re
from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import Element

from jinja2 import DictLoader, pass_context
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from attention_grader.config.settings import PageLimits, page_limits
from attention_grader.pages.csp_policy import add_csp_meta, page_policy
from attention_grader.pages.html_clean import DEFAULT_LIMITS, Attachments, clean_fragment

if TYPE_CHECKING:
    from jinja2.runtime import Context
    from nbformat import NotebookNode

__all__ = [
    "MathMLHTMLExporter",
    "MathMLRenderer",
    "OfflineHTMLExporter",
    "latex_to_mathml",
    "inspect_markdown",
    "markdown_to_html",
    "render_markdown",
]

log = logging.getLogger(__name__)
#: nbconvert's alt text for an image nobody described (what we never want to ship).
PLACEHOLDER_ALT = "No description has been provided for this image"
_UNKNOWN_COMMAND = re.compile(r">\\[A-Za-z]+<")


def _escaped(text: str | None) -> str:
    # latex2mathml writes symbols as entity strings ("&#x0003C;") and copies \text{...} as it
    # is: decode both, then escape once, so a student's "<img ...>" stays text.
    return html.escape(html.unescape(text or ""), quote=False)


def _serialise(element: Element) -> str:
    """Write an ElementTree element as HTML, all text and attributes escaped (no xmlns)."""
    attrs = "".join(
        f' {name}="{html.escape(html.unescape(value), quote=True)}"'
        for name, value in element.attrib.items()
        if name != "xmlns"
    )
    inner = _escaped(element.text) + "".join(
        _serialise(child) + _escaped(child.tail) for child in element
    )
    return f"<{element.tag}{attrs}>{inner}</{element.tag}>"


def latex_to_mathml(tex: str, display: bool = False) -> str:
    r"""One LaTeX formula as a ``<math>`` element, its source kept in ``alttext``.

    Parameters
    ----------
    tex : str
        The formula without delimiters (``\sqrt{d_k}``).
    display : bool
        A displayed formula (its own line) rather than inline in the text.

    Returns
    -------
    str
        The MathML, every text in it escaped (latex2mathml's own ``convert`` copies
        ``\text{<img onerror=...>}`` into its output as markup; here it is text); or, when
        latex2mathml cannot read the formula, its TeX source in ``<code class="tex-fallback">``
        (logged as a warning).
    """
    from latex2mathml.converter import convert_to_element

    try:
        mathml = _serialise(convert_to_element(tex, display="block" if display else "inline"))
    except Exception as err:  # latex2mathml raises its own and plain errors on unknown input
        mathml, reason = "", str(err)
    else:  # a command it does not know comes out as text: "<mi>\\bogus</mi>"
        reason = "unknown command" if _UNKNOWN_COMMAND.search(mathml) else ""
    if reason:
        log.warning("maths left as TeX (%s): %s", reason, tex)
        return f'<code class="tex-fallback">{html.escape(tex)}</code>'
    # In HTML the parser puts <math> in the MathML namespace by itself; an explicit xmlns would
    # make nbconvert's heading anchors (parsed as XML) write it as <ns0:math>, which no browser
    # draws. Screen readers and copy-paste get the source: MathML Core's alttext.
    return mathml.replace("<math ", f'<math alttext="{html.escape(tex.strip())}" ', 1)


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, with ``$...$``, ``$$...$$`` and environments as MathML.

    nbconvert's own math parser finds the formulas (it skips code spans and blocks, and
    escaped dollars); only their rendering changes. The TeX of each is kept in
    :attr:`formulas` (the sanitiser checks it for HTML a student hid in it).

    ``max_maths_chars`` (``c.Pages.max_maths_chars``): latex2mathml's time grows faster than
    the length of a formula, so one rendering converts that many characters of TeX, and shows
    the rest as its source.
    """

    def __init__(
        self, *args: Any, max_maths_chars: int = DEFAULT_LIMITS.max_maths_chars, **kw: Any
    ) -> None:
        super().__init__(*args, **kw)
        self.formulas: list[str] = []
        self.max_maths_chars = max_maths_chars
        self._converted = 0  # characters of TeX converted so far

    def _mathml(self, tex: str, display: bool) -> str:
        """``tex`` as MathML, or as its source once a page's maths is over its budget."""
        self._converted += len(tex)
        if self._converted > self.max_maths_chars:
            return f'<code class="tex-fallback">{html.escape(tex)}</code>'
        return latex_to_mathml(tex, display=display)

    def block_math(self, body: str) -> str:
        self.formulas.append(body)
        return self._mathml(body, display=True)

    def inline_math(self, body: str) -> str:
        self.formulas.append(body)
        return self._mathml(body, display=False)

    def latex_environment(self, name: str, body: str) -> str:
        self.formulas.append(body)
        return self._mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)


def render_markdown(
    source: str,
    attachments: Attachments | None = None,
    limits: PageLimits = DEFAULT_LIMITS,
    **renderer_options: Any,
) -> str:
    """Render markdown (as in a notebook cell) to HTML, maths as MathML, *not* cleaned.

    For trusted text, or to inspect what a student's answer would become.
    """
    return inspect_markdown(source, attachments, limits, **renderer_options)[0]


def inspect_markdown(
    source: str,
    attachments: Attachments | None = None,
    limits: PageLimits = DEFAULT_LIMITS,
    **renderer_options: Any,
) -> tuple[str, list[str]]:
    """:func:`render_markdown`, and the TeX of every formula in ``source``."""
    renderer = MathMLRenderer(
        escape=False,
        attachments=dict(attachments or {}),
        max_maths_chars=limits.max_maths_chars,
        **renderer_options,
    )
    return MarkdownWithMath(renderer=renderer).render(source), renderer.formulas


def markdown_to_html(
    source: str,
    attachments: Attachments | None = None,
    limits: PageLimits = DEFAULT_LIMITS,
    **renderer_options: Any,
) -> str:
    """Render markdown a student may have written to HTML for a page, through the allowlist.

    Maths becomes MathML, then the final HTML goes through
    :func:`attention_grader.pages.html_clean.clean_fragment`.
    """
    return clean_fragment(render_markdown(source, attachments, limits, **renderer_options))


class MathMLHTMLExporter(HTMLExporter):
    """``HTMLExporter`` whose markdown cells render their maths as MathML (any template).

    Their rendered markdown goes through the allowlist (:attr:`clean_markdown`).
    """

    #: Pages of student work clean every rendered markdown text; the course's own lessons
    #: (trusted, with heading anchors the docs link to) do not.
    clean_markdown = True

    @pass_context  # a Jinja filter that sees the cell (attachments) and resources (path)
    def markdown2html(self, context: Context, source: str) -> str:
        cell = context.get("cell", {})
        render = markdown_to_html if self.clean_markdown else render_markdown
        return render(
            source,
            cell.get("attachments", {}),
            page_limits(self.config),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options,
        )


# The lab template minus everything it fetches from the internet, plus alt text on images and
# the course's navigation. Block names are nbconvert 7's (templates/lab/index.html.j2).
_PAGE = """{%- extends 'index.html.j2' -%}
{% block html_head_js_requirejs %}{% endblock html_head_js_requirejs %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block html_head_js_mathjax %}{% endblock html_head_js_mathjax %}
{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}
{% block extra_css %}
<style>
nav.course-nav { display: flex; gap: 1.5em; flex-wrap: wrap; margin: 1em 0; padding: 0.5em 0;
  border-bottom: 1px solid var(--jp-border-color2, #ccc); }
nav.course-nav.bottom { border-top: 1px solid var(--jp-border-color2, #ccc); border-bottom: 0; }
math[display="block"] { margin: 0.6em 0; }
</style>
{%- if resources.get('site') %}<style>{{ resources.site.css }}</style>{% endif %}
{% endblock extra_css %}
{% block body_header %}{{ super() }}
{%- if resources.get('site') %}{{ resources.site.nav }}{% endif %}
{%- include 'attention_nav.html.j2' %}{% endblock body_header %}
{% block body_footer %}{% set nav_class = 'bottom' %}{% include 'attention_nav.html.j2' %}{{ super() }}{% endblock body_footer %}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- set alt = output | get_metadata('alt', 'image/png') %}
{%- if alt %} alt="{{ alt | escape_html }}"{% endif %}>
</div>
{% endblock data_png %}
"""
_NAV = """{%- set nav = resources.get('course_nav') -%}
{%- if nav -%}
<nav class="course-nav {{ nav_class | default('top') }}" aria-label="Lessons">
{%- if nav.prev %}<a rel="prev" href="{{ nav.prev.href | escape_html }}">← {{ nav.prev.title | escape_html }}</a>{% endif %}
<a rel="index" href="{{ nav.index | escape_html }}">Contents</a>
{%- if nav.next %}<a rel="next" href="{{ nav.next.href | escape_html }}">{{ nav.next.title | escape_html }} →</a>{% endif %}
</nav>
{%- endif -%}
"""


class OfflineHTMLExporter(MathMLHTMLExporter):
    """The course's static pages: the lab look, MathML maths, nothing from the internet.

    A Content-Security-Policy ``<meta>`` allows only the template's own scripts.
    """

    clean_markdown = False  # the lessons are the course's own text

    def from_notebook_node(  # type: ignore[override]  # a page, as nbconvert's HTMLExporter's
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        output, resources = super().from_notebook_node(nb, resources, **kw)
        return add_csp_meta(output, page_policy(output)), resources

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("template_name", "lab")
        super().__init__(**kw)  # type: ignore[no-untyped-call]  # nbconvert's has no annotations
        self.extra_loaders = [
            DictLoader({"attention_offline.html.j2": _PAGE, "attention_nav.html.j2": _NAV})
        ]
        self.template_file = "attention_offline.html.j2"
