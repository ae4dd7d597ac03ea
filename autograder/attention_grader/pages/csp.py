"""Content-Security-Policy for every page that shows student content.

It is a second wall behind :mod:`attention_grader.pages.html_safety`; the policy itself is
built by :mod:`attention_grader.pages.csp_policy` (imported here too, under the same names).

If something a student wrote ever slipped through the sanitiser, the page's policy still stops
it from running: only the scripts the page's *template* put in it may run. They are found in the
trusted part of the rendered page (everything before the first byte a notebook could have
written: ``<body`` for feedback, the notebook container for the formgrader) and allowed by
address (``<script src>``: that folder of that server) or by SHA-256 hash (inline scripts),
so a local MathJax file or an inlined one is allowed exactly like today's CDN copy.

Three places use it:

* feedback HTML: :class:`FeedbackExporter` (``c.GenerateFeedback.exporter_class``) adds a
  ``<meta http-equiv="Content-Security-Policy">`` to each page;
* the class report (:mod:`attention_grader.reports.report`): :data:`STATIC_PAGE_POLICY`, no script at all;
* the formgrader, as a Jupyter server extension (``jpserver_extensions``
  ``{"attention_grader.pages.csp": true}``): a CSP *header* on a submission's page, derived from that
  page, and a ``sandbox`` policy on the files of a submission it serves (a handed-in
  ``evil.html`` opened from a link would otherwise run as the teacher).

MathJax 2 (nbconvert's and nbgrader's templates) runs its configuration block through ``eval``:
pages that load MathJax get ``'unsafe-eval'``, which lets *running* script evaluate strings but
runs nothing injected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attention_grader.config.nbgrader_patches import apply
from attention_grader.pages.csp_policy import (
    SANDBOXED_FILE_POLICY,
    STATIC_PAGE_POLICY,
    add_csp_meta,
    page_policy,
)

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
    (:mod:`attention_grader.config.nbgrader_patches`).
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
