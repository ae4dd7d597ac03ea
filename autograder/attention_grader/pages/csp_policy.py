"""The Content-Security-Policy of a page that shows student content, derived from the page.

If something a student wrote ever slipped through the sanitiser
(:mod:`attention_grader.pages.html_safety`), the page's policy still stops it from running:
only the scripts the page's *template* put in it may run (:func:`page_policy`). Pure text: the
pages that carry a policy and the formgrader's server extension
(:mod:`attention_grader.pages.csp`) build on it.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urlsplit

__all__ = ["SANDBOXED_FILE_POLICY", "STATIC_PAGE_POLICY", "add_csp_meta", "page_policy"]

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
