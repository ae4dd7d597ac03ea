"""Which question a graded cell belongs to: the ``## Q3. ...`` heading above it.

``make check`` labels its lines with it, and the feedback page's contents list reads "Q1 … Q5"
instead of nbgrader's "Test cell" five times.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["question_label", "toc_labels"]


def question_label(markdown: str) -> str | None:
    """``"## Q3. The full computation"`` -> ``"Q3"``; None when the cell is no question heading."""
    first = markdown.lstrip().splitlines()[0] if markdown.strip() else ""
    if not first.startswith("## "):
        return None
    return first[3:].split(".", 1)[0].strip()[:40]


def _kind(cell: NotebookNode) -> str:
    meta = cell.metadata.get("nbgrader", {})
    if meta.get("solution") and cell.cell_type == "markdown":
        return "written answer"
    if meta.get("solution"):
        return "your code"
    return "check"


def toc_labels(nb: NotebookNode) -> dict[str, str]:
    """grade_id -> ``"Q3"`` (or ``"Q3, check 2"``, ``"Q2, written answer"``) for every graded cell.

    A graded cell with no question heading above it gets its kind alone (``"check 2"``).
    """
    question = ""
    found: list[tuple[str, str, str]] = []
    count: dict[str, int] = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and not meta.get("grade"):
            question = question_label(cell.source) or question
            continue
        if meta.get("grade"):
            found.append((question, _kind(cell), str(meta.get("grade_id", ""))))
            count[question] = count.get(question, 0) + 1
    labels: dict[str, str] = {}
    seen: dict[tuple[str, str], int] = {}
    for question, kind, grade_id in found:
        seen[(question, kind)] = seen.get((question, kind), 0) + 1
        if question and count[question] == 1:
            labels[grade_id] = question
            continue
        nth = seen[(question, kind)]
        part = kind if kind == "written answer" else f"{kind} {nth}"
        labels[grade_id] = f"{question}, {part}" if question else part
    return labels
