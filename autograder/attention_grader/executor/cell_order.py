"""The teacher's order of read-only and test cells is the order that counts.

nbgrader restores the *sources* of read-only and test cells but keeps the student's order of
cells (and ``add_missing_cells`` appends a deleted one at the end). So a student could drag the
set-up cell (``from attention_lab import checks``) below the tests and bind her own ``checks``
first, or move the tests of one function below the tests of another whose check lends her
kernel a reference function. :class:`RestoreCellOrder`, a sanitise step after nbgrader's
``OverwriteCells``, puts every read-only and test code cell that left the teacher's order back
(:func:`restore_order`) and flags it ``moved_cell``; the student's own cells stay where she put
them. A deleted read-only cell, which nbgrader does not re-add, comes back in its place
(:func:`restore_missing`). The teacher's order is read from ``source/`` (never the submission).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import MOVED_CELL, Flag

__all__ = ["RestoreCellOrder", "restore_missing", "restore_order", "teacher_order"]


def _grade_id(cell: NotebookNode) -> str | None:
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    return grade_id if isinstance(grade_id, str) else None


def teacher_order(source: NotebookNode) -> list[str]:
    """Return the grade_ids of the teacher's notebook, in its order (every kind of cell)."""
    return [gid for gid in map(_grade_id, source.cells) if gid is not None]


def _in_order(ranks: Sequence[int]) -> set[int]:
    """Positions of a longest increasing run of ``ranks`` (the cells left where they are)."""
    tails: list[int] = []  # tails[k]: smallest last rank of an increasing run of length k + 1
    tail_at: list[int] = []  # position of that last rank
    before: list[int] = [-1] * len(ranks)
    for position, rank in enumerate(ranks):
        k = bisect.bisect_left(tails, rank)
        before[position] = tail_at[k - 1] if k else -1
        if k == len(tails):
            tails.append(rank)
            tail_at.append(position)
        else:
            tails[k], tail_at[k] = rank, position
    kept, position = set(), tail_at[-1] if tail_at else -1
    while position >= 0:
        kept.add(position)
        position = before[position]
    return kept


def _place(cells: list[NotebookNode], rank: dict[str, int], trusted: set[str], r: int) -> int:
    """Return where the cell of teacher rank ``r`` goes back.

    Between its trusted neighbours, after the teacher's cell nearest before it (its solution
    cell, the markdown above it) if that one is between them.
    """
    ranks = [rank.get(_grade_id(c) or "", -1) for c in cells]
    is_trusted = [(_grade_id(c) or "") in trusted and ranks[i] >= 0 for i, c in enumerate(cells)]
    low = max((i for i, t in enumerate(is_trusted) if t and ranks[i] < r), default=-1)
    high = min((i for i, t in enumerate(is_trusted) if t and ranks[i] > r), default=len(cells))
    near = [i for i in range(max(low, 0), high) if -1 < ranks[i] < r]
    if near:
        return max(near, key=lambda i: ranks[i]) + 1
    return low + 1 if low >= 0 else high


def restore_order(nb: NotebookNode, order: Sequence[str], trusted: Iterable[str]) -> list[str]:
    """Put the cells of ``trusted`` (read-only and test grade_ids) back in the teacher's order.

    Parameters
    ----------
    nb : NotebookNode
        The submission (after OverwriteCells); changed in place.
    order : sequence of str
        The teacher's grade_ids in the order of ``source/`` (:func:`teacher_order`).
    trusted : iterable of str
        grade_ids of the read-only and test code cells.

    Returns
    -------
    list of str
        grade_ids of the cells moved back, in the teacher's order.
    """
    rank = {gid: i for i, gid in enumerate(order)}
    ids = set(trusted) & set(rank)
    where = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and _grade_id(c) in ids]
    kept = _in_order([rank[_grade_id(nb.cells[i]) or ""] for i in where])
    moved = [nb.cells[i] for j, i in enumerate(where) if j not in kept]
    if not moved:
        return []
    cells = [c for c in nb.cells if not any(c is m for m in moved)]
    moved.sort(key=lambda c: rank[_grade_id(c) or ""])
    for cell in moved:
        cells.insert(_place(cells, rank, ids, rank[_grade_id(cell) or ""]), cell)
    nb.cells = cells
    return [_grade_id(c) or "" for c in moved]


def restore_missing(nb: NotebookNode, source: NotebookNode, trusted: Iterable[str]) -> list[str]:
    """Put back the read-only code cells of ``trusted`` the submission lacks, from ``source``.

    nbgrader's ``add_missing_cells`` re-adds deleted *graded* cells only: a deleted set-up cell
    would stay gone, and its names with it. Each goes where :func:`restore_order` would put it.
    """
    order = teacher_order(source)
    rank = {gid: i for i, gid in enumerate(order)}
    ids = set(trusted) & set(rank)
    present = {_grade_id(c) for c in nb.cells}
    added = []
    for cell in source.cells:
        grade_id = _grade_id(cell)
        if cell.cell_type != "code" or grade_id not in ids or grade_id in present:
            continue
        copy = new_code_cell(cell.source, metadata={"nbgrader": dict(cell.metadata["nbgrader"])})
        nb.cells.insert(_place(nb.cells, rank, ids, rank[grade_id]), copy)
        added.append(grade_id)
    return added


class RestoreCellOrder(NbGraderPreprocessor):
    """Sanitise step after OverwriteCells: read-only and test cells back in the teacher's order."""

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        info = (resources or {}).get("nbgrader", {})
        source = self._source(info.get("assignment"), info.get("notebook"))
        if source is None:
            return nb, resources
        trusted = [
            _grade_id(c) or ""
            for c in source.cells
            if c.cell_type == "code"
            and (
                c.metadata.get("nbgrader", {}).get("locked")
                or c.metadata.get("nbgrader", {}).get("grade")
            )
            and not c.metadata.get("nbgrader", {}).get("solution")
        ]
        restore_missing(nb, source, trusted)  # ScanSubmission flagged it (edited_locked_cell)
        moved = restore_order(nb, teacher_order(source), trusted)
        name = info.get("notebook") or "notebook"
        record_flags(
            [
                Flag(MOVED_CELL, f"{name}/{gid}: moved out of the teacher's order (put back)")
                for gid in moved
            ],
            notebook=nb,
        )
        return nb, resources

    def _source(self, assignment: object, notebook: object) -> NotebookNode | None:
        """Return the teacher's notebook from ``source/``, or None (the order is left as it is)."""
        import nbformat
        from nbgrader.coursedir import CourseDirectory

        if not (isinstance(assignment, str) and isinstance(notebook, str)):
            return None
        coursedir = CourseDirectory(config=self.config)
        folder = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
        path = folder / f"{notebook}.ipynb"
        if not path.is_file():
            return None
        try:
            source: NotebookNode = nbformat.read(path, as_version=4)
        except Exception as exc:  # noqa: BLE001 -- grading goes on in the submission's order
            self.log.warning("could not read %s for the cells' order: %s", path, exc)
            return None
        return source
