"""Clean HTML and markdown a student wrote against an allowlist (bleach, html5lib parsing).

The string-level half of :mod:`attention_grader.html_safety`: :func:`sanitize_html` for HTML
(outputs, the HTML inside written answers), :func:`sanitize_markdown` for a written answer as a
whole (rendered, checked, and shown as plain text if anything unsafe is in it). What is allowed
and why is explained in :mod:`attention_grader.html_safety`'s docstring.
"""

from __future__ import annotations

import html
import re

import bleach
from bleach.css_sanitizer import CSSSanitizer

__all__ = [
    "ATTRIBUTES",
    "LINK_SCHEMES",
    "TAGS",
    "clean_html",
    "is_safe_markdown",
    "sanitize_html",
    "sanitize_markdown",
]

TAGS = frozenset(
    "a abbr b blockquote br caption code col colgroup dd del details div dl dt em figcaption "
    "figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong sub "
    "summary sup table tbody td tfoot th thead tr tt u ul input".split()
)
# No ``id``/``name`` (a student's element could shadow a global the page's own script reads).
ATTRIBUTES = {
    "*": ["class", "title", "align", "style", "lang", "dir"],
    "a": ["href", "title"],
    "img": ["src", "alt", "width", "height", "title"],
    "td": ["colspan", "rowspan", "valign"],
    "th": ["colspan", "rowspan", "valign", "scope"],
    "table": ["border", "cellpadding", "cellspacing"],
    "col": ["span"],
    "ol": ["start", "type"],
    "input": ["type", "disabled", "checked"],  # markdown task lists: "- [x] done"
}
_CSS = CSSSanitizer(
    allowed_css_properties=(
        "text-align vertical-align white-space color background-color font-weight font-style "
        "font-family font-size text-decoration border border-collapse border-color border-style "
        "border-width padding margin width height max-width display"
    ).split()
)
#: Link schemes a page may follow (relative links and #anchors have none).
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.\-]*):")
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*$")
_STYLE_BLOCK = re.compile(r"<style\b[^>]*>.*?</style\s*>", re.I | re.S)
#: CSS that loads or runs something (old IE expressions, bindings), or hides it in escapes.
_CSS_DANGER = re.compile(r"expression|url\s*\(|@import|javascript:|behavior|binding|\\", re.I)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _url_ok(tag: str, value: str) -> bool:
    """Links to http(s)/mailto or relative places; images also from inline bitmaps."""
    # bleach hands over the value as written: decode "&#106;avascript:" as the browser does, and
    # drop the whitespace and control characters browsers ignore inside a scheme.
    value = html.unescape(value)
    compact = re.sub(r"[\x00-\x20]", "", value)
    match = _SCHEME.match(compact)
    if match is None:
        return True
    if tag == "img" and _DATA_IMAGE.match(value.strip()):
        return True
    return match[1].lower() in LINK_SCHEMES


def _attribute_ok(tag: str, name: str, value: str) -> bool:
    if name not in ATTRIBUTES.get(tag, []) and name not in ATTRIBUTES["*"]:
        return False
    if name in ("href", "src"):
        return _url_ok(tag, value)
    if name == "class":
        return "mermaid" not in value  # a mermaid block runs the diagram library on it
    if name == "type" and tag == "input":
        return value.strip().lower() == "checkbox"
    if name == "style":  # only declarations the CSS sanitiser keeps as they are
        value = html.unescape(value)
        if _CSS_DANGER.search(value):
            return False
        return _squash(_CSS.sanitize_css(value)) == _squash(value)
    return True


def _squash(css: str) -> str:
    return re.sub(r"\s+", "", css).rstrip(";")


def _clean(text: str) -> tuple[str, list[str]]:
    """bleach with the allowlist; also what it had to remove or escape (empty: nothing)."""
    problems: list[str] = []

    def watch(tag: str, name: str, value: str) -> bool:
        ok = _attribute_ok(tag, name, value)
        # nbconvert gives every heading an id (its anchor); any other id is the student's.
        if not ok and not (name == "id" and tag in _HEADINGS):
            problems.append(f"<{tag} {name}=...>")
        return ok

    cleaned = bleach.clean(
        text,
        tags=TAGS,
        attributes=watch,
        protocols=LINK_SCHEMES | {"data"},  # data: is narrowed to inline bitmaps by _url_ok
        css_sanitizer=_CSS,
        strip=False,
        strip_comments=True,
    )
    # A disallowed element comes back escaped, as text: one more "&lt;" than before.
    if cleaned.count("&lt;") > text.count("&lt;"):
        problems.append("an element that is not allowed")
    return cleaned, problems


def sanitize_html(text: str) -> str:
    """Clean student HTML: allowed tags and attributes stay, everything else is shown as text.

    Disallowed elements (``<script>``, ``<iframe>``, ``<svg>``, ``<form>``...) are escaped, so
    a grader reads what the student tried; event handlers, ``javascript:``/``data:`` links and
    unknown CSS properties are removed; ``<style>`` blocks (pandas writes one) are dropped.

    Parameters
    ----------
    text : str
        An HTML fragment (a ``text/html`` output).

    Returns
    -------
    str
        HTML that runs no script in a browser.
    """
    return clean_html(text)[0]


def clean_html(text: str) -> tuple[str, list[str]]:
    """:func:`sanitize_html`, and what it had to remove or escape (empty list: nothing)."""
    return _clean(_STYLE_BLOCK.sub("", text))


def _render_markdown(source: str, attachments: dict | None) -> str:
    """The HTML nbconvert makes of a markdown cell (same renderer as its HTML exporter)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    renderer = IPythonRenderer(escape=False, attachments=dict(attachments or {}))
    return MarkdownWithMath(renderer=renderer).render(source)


def is_safe_markdown(source: str, attachments: dict | None = None) -> bool:
    """Whether nbconvert's rendering of ``source`` has only allowed tags, attributes and URLs."""
    try:
        rendered = _render_markdown(source, attachments)
    except Exception:  # e.g. a missing attachment: nbconvert would fail the whole page
        return False
    return not _clean(rendered)[1]


def _fence(source: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    return "`" * max(3, longest + 1)


def sanitize_markdown(source: str, attachments: dict | None = None) -> str:
    """A markdown answer as it may be rendered: unchanged when safe, else shown as its text.

    An unsafe answer (raw HTML with scripts or handlers, ``javascript:`` links, iframes...)
    becomes a note and the student's exact text in a code block, which nbconvert escapes: the
    grader still reads every word, nothing runs.
    """
    if is_safe_markdown(source, attachments):
        return source
    fence = _fence(source)
    note = (
        "*The grader shows this answer as plain text: it contained HTML or links that could "
        "run code in a browser.*"
    )
    return f"{note}\n\n{fence}text\n{source}\n{fence}\n"
