"""Content-Security-Policy for every page that shows student content.

It is a second wall behind :mod:`attention_grader.pages.html_safety`.

If something a student wrote ever slipped through the sanitiser, the page's policy still stops
it from running: only the scripts the page's *template* put in it may run. They are found in the
trusted part of the rendered page (everything before the first byte a notebook could have
written: ``<body`` for feedback, the notebook container for the formgrader) and allowed by
address (``<script src>``: that folder of that server) or by SHA-256 hash (inline scripts),
so a local MathJax file or an inlined one is allowed exactly like today's CDN copy.

Three places use it:

* feedback HTML: :class:`FeedbackExporter` (``c.GenerateFeedback.exporter_class``) adds a
  ``<meta http-equiv="Content-Security-Policy">`` to each page;
* the class report (:mod:`attention_grader.term.report`): :data:`STATIC_PAGE_POLICY`, no script at all;
* the formgrader, as a Jupyter server extension (``jpserver_extensions``
  ``{"attention_grader.pages.csp": true}``): a CSP *header* on a submission's page, derived from that
  page, and a ``sandbox`` policy on the files of a submission it serves (a handed-in
  ``evil.html`` opened from a link would otherwise run as the teacher).

MathJax 2 (nbconvert's and nbgrader's templates) runs its configuration block through ``eval``:
pages that load MathJax get ``'unsafe-eval'``, which lets *running* script evaluate strings but
runs nothing injected.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from attention_grader.common.nbgrader_patches import apply

if TYPE_CHECKING:
    from jupyter_server.serverapp import ServerApp
    from nbconvert.exporters import HTMLExporter
    from nbformat import NotebookNode
    from tornado.web import RequestHandler

__all__ = [
    "STATIC_PAGE_POLICY",
    "FeedbackExporter",
    "add_csp_meta",
    "page_policy",
]

#: A page with no script (the class report): images and styles from the page itself only.
STATIC_PAGE_POLICY = (
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)
#: What a submission's own files get when the formgrader serves them: no script, own origin.
SANDBOXED_FILE_POLICY = (
    "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'"
)

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
_SRC = re.compile(r"""\bsrc\s*=\s*["']([^"']+)["']""", re.I)
_TYPE = re.compile(r"""\btype\s*=\s*["']([^"']*)["']""", re.I)
_STYLESHEET = re.compile(r"""<link\b[^>]*\bhref\s*=\s*["']([^"']+)["']""", re.I)
_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*"([^"]*)\"""", re.I)
_EXECUTABLE = ("", "text/javascript", "application/javascript", "module")


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def _source_of(url: str) -> str:
    """Return the CSP source for a script or stylesheet address: its folder on its server.

    A folder, not the file: MathJax loads its extensions and fonts next to ``MathJax.js``.
    Relative addresses are the page's own (``'self'``).
    """
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.netloc:
        folder = parts.path.rsplit("/", 1)[0] + "/"
        return f"{parts.scheme}://{parts.netloc}{folder}"
    return "'self'"


def page_policy(page: str, trusted_end: str = "<body", *, handlers: bool = False,
                connect: str = "'none'", frame_ancestors: str | None = None) -> str:  # fmt: skip
    """Return the policy that lets exactly the template's scripts of ``page`` run.

    Parameters
    ----------
    page : str
        The rendered HTML page.
    trusted_end : str
        Where content a notebook could have written may begin; scripts before it are the
        template's (the first occurrence counts; the whole page if it is missing -- callers put
        student content after their marker).
    handlers : bool
        Also allow the template's inline event handlers (``onclick="..."``) by hash
        (``'unsafe-hashes'``: the formgrader's name toggle uses them).
    connect : str
        ``connect-src`` (``'self'`` for the formgrader, which saves grades by XHR).
    frame_ancestors : str, optional
        ``frame-ancestors`` (a header only: a ``<meta>`` policy ignores it).

    Returns
    -------
    str
        A ``Content-Security-Policy`` value.
    """
    end = page.find(trusted_end)
    trusted = page if end < 0 else page[:end]
    scripts, origins = [], []
    for attrs, body in _SCRIPT.findall(trusted):
        kind = (typed[1] if (typed := _TYPE.search(attrs)) else "").strip().lower()
        src = _SRC.search(attrs)
        if src:
            origins.append(_source_of(src[1]))
        elif kind in _EXECUTABLE:
            scripts.append(_sha256(body))
    if handlers:
        found = sorted({_sha256(h) for h in _HANDLER.findall(trusted)})
        scripts += ["'unsafe-hashes'", *found] if found else []
    if "mathjax" in trusted.lower():
        scripts.append("'unsafe-eval'")
    origins = list(dict.fromkeys(origins))
    styles = list(dict.fromkeys(_source_of(u) for u in _STYLESHEET.findall(trusted)))
    external = [o for o in origins if o != "'self'"]
    policy = [
        "default-src 'none'",
        "script-src " + " ".join(dict.fromkeys(origins + scripts)) if origins or scripts else "",
        "style-src 'self' 'unsafe-inline' " + " ".join(dict.fromkeys(styles + external)),
        "font-src 'self' data: " + " ".join(external),
        "img-src 'self' data:",
        f"connect-src {connect}",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    if frame_ancestors:
        policy.append(f"frame-ancestors {frame_ancestors}")
    return "; ".join(" ".join(p.split()) for p in policy if p)


def add_csp_meta(page: str, policy: str) -> str:
    """``page`` with ``<meta http-equiv="Content-Security-Policy">`` first in its ``<head>``.

    Raises
    ------
    ValueError
        When the page has no ``<head>`` to put it in (a template changed: fail loudly rather
        than publish a page without its policy).
    """
    match = re.search(r"<head\b[^>]*>", page, re.I)
    if match is None:
        raise ValueError("the page has no <head>: cannot add its Content-Security-Policy")
    meta = f'\n<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return page[: match.end()] + meta + page[match.end() :]


def _exporter_base() -> type[HTMLExporter]:
    from nbconvert.exporters import HTMLExporter

    return HTMLExporter


class FeedbackExporter(_exporter_base()):  # type: ignore[misc]  # nbconvert imported late, untyped
    """nbconvert's HTML exporter whose pages carry a CSP allowing only the template's scripts.

    ``c.GenerateFeedback.exporter_class = FeedbackExporter`` (set by
    :func:`attention_grader.pipeline.configure`); every ``HTMLExporter`` setting applies.
    """

    def from_notebook_node(
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        output, resources = super().from_notebook_node(nb, resources, **kw)
        return add_csp_meta(output, page_policy(output)), resources


# --------------------------------------------------------------------------- formgrader


#: tornado's ``RequestHandler.write``, as nbgrader's submission page inherits it
_Write = Callable[["RequestHandler", "str | bytes | dict[str, Any]"], None]


def _submission_write(original: _Write) -> _Write:
    def write(self: RequestHandler, chunk: str | bytes | dict[str, Any]) -> None:
        if isinstance(chunk, (str, bytes)):
            text = chunk.decode("utf-8", "replace") if isinstance(chunk, bytes) else chunk
            if "<head" in text:
                # nbgrader's formgrade template: its scripts come before the notebook.
                policy = page_policy(
                    text, 'id="notebook-container"', handlers=True, connect="'self'",
                    frame_ancestors="'self'",
                )  # fmt: skip
                self.set_header("Content-Security-Policy", policy)
        original(self, chunk)

    return write


def _sandboxed_files_policy(_inherited: object) -> property:
    return property(lambda self: SANDBOXED_FILE_POLICY)


def protect_formgrader() -> None:
    """Give nbgrader's formgrader handlers their policies (idempotent).

    A submission's page (``SubmissionHandler``) gets :func:`page_policy` of itself as a header;
    the files of a submission (``SubmissionFilesHandler``) get :data:`SANDBOXED_FILE_POLICY`
    (:mod:`attention_grader.common.nbgrader_patches`).
    """
    apply("submission_page_csp", {"write": _submission_write})
    apply("submission_files_csp", {"content_security_policy": _sandboxed_files_policy})


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "attention_grader.pages.csp"}]


def _load_jupyter_server_extension(serverapp: ServerApp) -> None:
    from attention_grader.pages.formgrader_view import escape_formgrader_pages

    protect_formgrader()
    escape_formgrader_pages()
    serverapp.log.info(
        "attention_grader.pages.csp: formgrader pages carry a Content-Security-Policy and escape ids"
    )
