"""The one allowlist for HTML a student wrote, applied to the final HTML (nh3, HTML5 parsing).

The string-level half of :mod:`attention_grader.pages.html_safety`:

* :func:`clean_fragment`: the allowlist itself, run on HTML *after* every rendering step
  (markdown, maths as MathML, outputs) right before it goes into a page: feedback, the
  formgrader's view, the report. Text formatting, tables, images, links to http(s)/mailto and
  MathML stay; everything else goes (``script``, ``style``, ``meta``, ``base``, ``form``,
  ``iframe``, ``object``, ``svg``, event handlers, ``javascript:``/``data:`` URLs except inline
  bitmaps in ``<img>``, MathML ``href``).
* :func:`problems`: what in a fragment the allowlist would remove, in words (for the
  ``unsafe_html`` flag, and to show an unsafe answer or output as text so a grader reads it).
* :func:`sanitize_html` / :func:`clean_html`: an output as it may be rendered (unchanged when
  safe, else shown as its text); a written answer's markdown is rendered first, by
  :mod:`attention_grader.pages.markdown_safety`.

Why nh3 and not bleach (which nbconvert pulls in): bleach is deprecated and, since 2026-06, no
longer maintained, not even for security issues (its README and mozilla/bleach#698), because
html5lib under it is unmaintained. nh3 binds ammonia (Rust), maintained, which parses with
html5ever (the HTML5 algorithm browsers use) and checks MathML/SVG namespace changes, the
mutation-XSS door of HTML sanitisers. What nh3 lacks is bleach's "escape what is not allowed":
it drops it. So the visible-attempt behaviour lives here instead: :func:`problems` finds the
unsafe part, and the whole answer or output is then shown as its source text.
"""

from __future__ import annotations

import html
import re

import nh3

from attention_grader.config.settings import PageLimits

__all__ = [
    "ATTRIBUTES",
    "LINK_SCHEMES",
    "MATHML_TAGS",
    "TAGS",
    "clean_fragment",
    "clean_html",
    "markdown_as_text",
    "problems",
    "sanitize_html",
]

#: A markdown cell's attachments as nbformat stores them: file name -> {MIME type: base64 data}.
Attachments = dict[str, dict[str, str]]

TAGS = frozenset(
    "a abbr b blockquote br caption code col colgroup dd del details div dl dt em figcaption "
    "figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong sub "
    "summary sup table tbody td tfoot th thead tr tt u ul input".split()
)
#: MathML Core's presentation elements (what latex2mathml writes). Not ``annotation-xml`` (it
#: can hold HTML) nor ``maction`` (interactive).
MATHML_TAGS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup munder mover munderover mfrac msqrt "
    "mroot mstyle mpadded mphantom menclose mtable mtr mtd mlabeledtr mmultiscripts "
    "mprescripts none merror semantics annotation mfenced".split()
)
_MATHML_ATTRIBUTES = frozenset(
    "display alttext mathvariant mathcolor mathbackground mathsize displaystyle scriptlevel "
    "stretchy fence separator symmetric largeop movablelimits accent accentunder form lspace "
    "rspace minsize maxsize linethickness bevelled width height depth voffset notation "
    "columnalign rowalign columnspacing rowspacing columnlines rowlines frame framespacing "
    "equalrows equalcolumns columnspan rowspan open close separators align encoding".split()
)
# No ``id``/``name`` (a student's element could shadow a global the page's own script reads).
ATTRIBUTES = {
    "*": {"class", "title", "align", "style", "lang", "dir"},
    "a": {"href", "title"},
    "img": {"src", "alt", "width", "height", "title"},
    "td": {"colspan", "rowspan", "valign"},
    "th": {"colspan", "rowspan", "valign", "scope"},
    "table": {"border", "cellpadding", "cellspacing"},
    "col": {"span"},
    "ol": {"start", "type"},
    "input": {"type", "disabled", "checked"},  # markdown task lists: "- [x] done"
    **{tag: set(_MATHML_ATTRIBUTES) for tag in MATHML_TAGS},
}
CSS_PROPERTIES = frozenset(
    "text-align vertical-align white-space color background-color font-weight font-style "
    "font-family font-size text-decoration border border-collapse border-color border-style "
    "border-width padding margin width height max-width display".split()
)
#: Link schemes a page may follow (relative links and #anchors have none).
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.\-]*):")
#: Inline images: bitmaps, and SVG, which runs no script and loads nothing inside an <img>
#: (how html_safety shows an SVG output).
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|svg\+xml);base64,[A-Za-z0-9+/=\s]*$")
#: CSS that loads or runs something (old IE expressions, bindings), or hides it in escapes.
_CSS_DANGER = re.compile(r"expression|url\s*\(|@import|javascript:|behavior|binding|\\", re.I)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: What nbconvert itself adds to rendered markdown (heading anchors): not the student's doing.
_RENDERER_ATTRIBUTES = {(h, "id") for h in _HEADINGS}


def _url_ok(tag: str, value: str) -> bool:
    """Links to http(s)/mailto or relative places; images also from inline bitmaps."""
    # Decode "&#106;avascript:" as the browser does, and drop the whitespace and control
    # characters browsers ignore inside a scheme.
    value = html.unescape(value)
    compact = re.sub(r"[\x00-\x20]", "", value)
    match = _SCHEME.match(compact)
    if match is None:
        return True
    if tag == "img" and _DATA_IMAGE.match(value.strip()):
        return True
    return match[1].lower() in LINK_SCHEMES


def _css_ok(value: str) -> bool:
    value = html.unescape(value)
    if _CSS_DANGER.search(value):
        return False
    names = [d.split(":", 1)[0].strip().lower() for d in value.split(";") if d.strip()]
    return all(":" in d for d in value.split(";") if d.strip()) and set(names) <= CSS_PROPERTIES


def _attribute_ok(tag: str, name: str, value: str) -> bool:
    """Return the value checks the tag/attribute allowlist cannot express."""
    if name not in ATTRIBUTES.get(tag, ()) and name not in ATTRIBUTES["*"]:
        return False
    if name in ("href", "src"):
        return tag in ("a", "img") and _url_ok(tag, value)
    if name == "class":
        return "mermaid" not in value  # a mermaid block runs the diagram library on it
    if name == "type" and tag == "input":
        return value.strip().lower() == "checkbox"
    if name == "style":
        return _css_ok(value)
    return True


def _filter(tag: str, name: str, value: str) -> str | None:
    return value if _attribute_ok(tag, name, value) else None


def clean_fragment(fragment: str) -> str:
    """Return the final HTML of something a student wrote, through the allowlist (see module doc).

    Run it on the HTML right before it goes into a page, after markdown and maths rendering.
    Disallowed elements are removed (``script`` and ``style`` with their content, others keep
    their text), disallowed attributes and URLs are dropped. Idempotent.

    Parameters
    ----------
    fragment : str
        An HTML fragment (rendered markdown, a ``text/html`` output).

    Returns
    -------
    str
        HTML that runs nothing, loads nothing but inline bitmaps and relative or http(s)
        images, and does not change the page around it (no ``meta``/``base``/``form``).
    """
    return nh3.clean(
        fragment,
        tags=set(TAGS | MATHML_TAGS),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_filter,
        url_schemes=set(LINK_SCHEMES | {"data"}),  # data: narrowed to bitmaps in _url_ok
        filter_style_properties=set(CSS_PROPERTIES),
        strip_comments=True,
        link_rel=None,  # no target= is allowed, so no opener to hide; honest HTML stays as is
    )


#: Attributes that load, link or run something: removing one is worth a flag. Any other
#: attribute the allowlist lacks (``id`` on a pandas Styler table, ``aria-*``) is only dropped
#: from outputs; in a written answer ``id``/``name`` count too (DOM clobbering: no honest
#: answer needs one).
_ACTIVE_ATTRIBUTES = frozenset(
    "href src srcset action formaction xlink:href background poster data codebase cite ping "
    "lowsrc dynsrc style class type http-equiv content".split()
)


#: A tag as the HTML tokenizer starts one: ``<`` then an ASCII letter (a superset of the
#: elements html5ever will build; linear to find).
_TAG_START = re.compile(r"<([A-Za-z][^\t\n\f\r />]*)")
#: In nh3's own serialisation: every attribute value double-quoted, every comment closed.
_QUOTED_VALUE = re.compile(r'="[^"]*"')
_COMMENT = re.compile(r"<!--.*?-->", re.S)
#: A run that may end in a URL scheme's colon (runs are maximal: linear to find).
_SCHEME_RUN = re.compile(r"[A-Za-z0-9+.\-]+:?")
#: The caps when the caller has no config (``c.Pages`` sets them: :class:`PageLimits`).
DEFAULT_LIMITS = PageLimits()


def _schemes(fragment: str) -> set[str]:
    """Every URL scheme ``fragment`` could name, decoded and compacted as a browser reads it."""
    compact = re.sub(r"[\x00-\x20]", "", html.unescape(fragment))
    return {
        run.group().lstrip("0123456789+.-")[:-1].lower()
        for run in _SCHEME_RUN.finditer(compact)
        if run.group().endswith(":")
    } - {""}


def problems(fragment: str, ids: bool = True, limits: PageLimits = DEFAULT_LIMITS) -> list[str]:
    """Return what in ``fragment`` the allowlist does not allow, in words (empty: nothing).

    At most ``limits.max_problems`` distinct findings (``c.Pages.max_problems``).

    ``ids=False`` leaves out ``id``/``name`` attributes and ``<style>`` blocks (outputs: a pandas
    table writes them; they are dropped all the same). Read from nh3's own parse (html5ever, as
    browsers parse; linear in the fragment): one pass that keeps every element, comment and
    URL, whose attributes go through the allowlist's own test, then its serialisation (every
    ``<`` in text escaped, every value quoted) read for elements and comments.

    Examples
    --------
    >>> problems('<b>ok</b><img src=x onerror="a()">')
    ['<img onerror=...>']
    """
    flagged = _ACTIVE_ATTRIBUTES | {"id", "name"} if ids else _ACTIVE_ATTRIBUTES
    found: dict[str, None] = {}

    def inspect(tag: str, name: str, value: str) -> str | None:
        if tag in TAGS or tag in MATHML_TAGS:
            worth = name.startswith("on") or name in flagged
            if worth and (tag, name) not in _RENDERER_ATTRIBUTES:
                if not _attribute_ok(tag, name, value):
                    found[f"<{tag} {name}=...>"] = None
        return None  # attributes are not needed in the serialisation read below

    names = {m.group(1).lower() for m in _TAG_START.finditer(fragment)}
    loose = nh3.clean(
        fragment,
        tags=names | TAGS | MATHML_TAGS | {"img"},
        clean_content_tags=set(),
        generic_attribute_prefixes={""},
        attribute_filter=inspect,
        url_schemes=_schemes(fragment) | LINK_SCHEMES | {"data"},
        strip_comments=False,
        link_rel=None,
    )
    if _COMMENT.search(loose):
        found["<!-- comment -->"] = None
    allowed = TAGS | MATHML_TAGS if ids else TAGS | MATHML_TAGS | {"style"}
    for match in _TAG_START.finditer(_COMMENT.sub("", _QUOTED_VALUE.sub("", loose))):
        tag = match.group(1).lower()
        if tag not in allowed:
            found[f"<{tag[:40]}>"] = None
    return list(found)[: limits.max_problems]


def clean_html(text: str, limits: PageLimits = DEFAULT_LIMITS) -> tuple[str, list[str]]:
    """Return an HTML output as it may be rendered, and what was unsafe in it (empty: nothing).

    Safe HTML (``<style>`` blocks aside: pandas writes one, and it is dropped) goes through
    :func:`clean_fragment`; HTML with anything unsafe is shown as its source text, so the
    person grading reads what the student tried and nothing of it runs. An output longer than
    ``limits.max_checked_html`` (``c.Pages.max_checked_html``) is shown as text unread.
    """
    most = limits.max_checked_html
    if len(text) > most:  # too large to read within the budget: shown as text
        found = [f"an HTML output of {len(text)} characters (over {most})"]
    else:
        found = problems(text, ids=False, limits=limits)
    if found:
        text = (
            '<p class="unsafe-html"><em>The grader shows this output as text: it contained '
            "HTML that could run code or change the page in a browser.</em></p>"
            f'<pre class="unsafe-html">{html.escape(text)}</pre>'
        )
    return clean_fragment(text), found


def sanitize_html(text: str, limits: PageLimits = DEFAULT_LIMITS) -> str:
    """:func:`clean_html` without the list of problems."""
    return clean_html(text, limits)[0]


def _fence(source: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    return "`" * max(3, longest + 1)


def markdown_as_text(source: str, note: str) -> str:
    """Return markdown that shows ``source`` as its exact text in a code block, after ``note``."""
    fence = _fence(source)
    return f"*{note}*\n\n{fence}text\n{source}\n{fence}\n"
