"""The ``nbgrader`` metadata of a teacher's cell, for the test notebooks written in code."""

from __future__ import annotations


def nbgrader_meta(
    grade_id: str,
    *,
    grade: bool = False,
    solution: bool = False,
    locked: bool = False,
    points: float = 1,
) -> dict:
    """Return a cell's ``metadata`` with its nbgrader part (``points`` only on a graded cell)."""
    meta: dict = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id}
    meta["schema_version"] = 3
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}
