"""Validate names the question of each failing cell ("Q2, written answer: ...").

nbgrader's Validate lists each failing cell by its source: for blank written answers that is
"YOUR ANSWER HERE" again and again, with no question to find. This wraps nbgrader's
``Validator`` so that each failing cell's message starts with its question, read from the
``## Q2. ...`` heading above it (:func:`~attention_grader.common.question_labels.toc_labels`). Loaded as a Jupyter
server extension (the Validate button, ``jupyter-settings/jupyter_server_config.d``) and by the
course's ``nbgrader_config.py`` (``nbgrader validate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbformat import NotebookNode

import functools
from collections.abc import Callable

from attention_grader.common.question_labels import toc_labels
from attention_grader.config.nbgrader_patches import apply

__all__ = ["name_questions"]


def name_questions() -> None:
    """Wrap ``Validator._get_failed_cells`` and ``_extract_error`` (once per process).

    Patch ``named_questions`` of :mod:`attention_grader.config.nbgrader_patches`.
    """
    apply(
        "named_questions",
        {"_get_failed_cells": _labelling_failed_cells, "_extract_error": _labelled_error},
    )


def _labelling_failed_cells(failed_cells: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(failed_cells)
    def _get_failed_cells(self: Any, nb: NotebookNode) -> Any:
        self._attention_labels = toc_labels(nb)
        return failed_cells(self, nb)

    return _get_failed_cells


def _labelled_error(extract: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(extract)
    def _extract_error(self: Any, cell: NotebookNode) -> Any:
        said = extract(self, cell)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        label = getattr(self, "_attention_labels", {}).get(grade_id)
        return f"{label}: {said}" if label else said

    return _extract_error


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "attention_grader.term.validate_labels"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    name_questions()
    serverapp.log.info("attention_grader.term.validate_labels: Validate names each question")
