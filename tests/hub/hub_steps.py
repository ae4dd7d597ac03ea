"""What the hub tests do as the instructor and the students, through the REST APIs a browser
uses (the formgrader's, the Assignment List's), and the assignment they do it with.

Its own module: test_hub_exchange_attacks.py imported them from test_hub.py, one test module
tied to another.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import nbformat
from conftest import COURSE_ID

REPO = Path(__file__).resolve().parents[2]
REAL_ASSIGNMENTS = ("intro_attention", "focus_in_the_noise", "practice_implement")
SMOKE = "hub_smoke"


def smoke_notebook() -> nbformat.NotebookNode:
    """A two-question nbgrader source notebook (used while the course has no assignment)."""

    def meta(grade_id, *, solution=False, grade=False, points=0):
        data = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": not solution}
        if grade:
            data["points"] = points
        return {"nbgrader": {**data, "schema_version": 3}}

    cells = [
        nbformat.v4.new_markdown_cell("Write `scale(x)` returning `x / 2`."),
        nbformat.v4.new_code_cell(
            "def scale(x):\n    ### BEGIN SOLUTION\n    return x / 2\n    ### END SOLUTION",
            metadata=meta("scale", solution=True),
        ),
        nbformat.v4.new_code_cell(
            "assert scale(4) == 2", metadata=meta("test_scale", grade=True, points=2)
        ),
        nbformat.v4.new_code_cell(
            "def weights():\n    ### BEGIN SOLUTION\n    return [0.25, 0.75]\n    ### END SOLUTION",
            metadata=meta("weights", solution=True),
        ),
        nbformat.v4.new_code_cell(
            "assert abs(sum(weights()) - 1) < 1e-9",
            metadata=meta("test_weights", grade=True, points=1),
        ),
    ]
    return nbformat.v4.new_notebook(cells=cells)


def choose_assignment(course_dir: Path, owner: str) -> str:
    for name in REAL_ASSIGNMENTS:
        if (REPO / "source" / name / f"{name}.ipynb").is_file():
            return name
    folder = course_dir / "source" / SMOKE
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(smoke_notebook(), folder / f"{SMOKE}.ipynb")
    entry = pwd.getpwnam(owner)
    for path in (folder, folder / f"{SMOKE}.ipynb"):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return SMOKE


def autograded_points(source_nb) -> float:
    """Points of the autograder tests (grade cells that are not answers)."""
    total = 0.0
    for cell in source_nb.cells:
        data = cell.metadata.get("nbgrader", {})
        if data.get("grade") and not data.get("solution"):
            total += float(data.get("points", 0))
    return total


def answer_with_solutions(student_nb: dict, source_nb) -> dict:
    """The student's notebook with every answer cell replaced by the instructor's solution."""
    solutions = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in source_nb.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    answered = 0
    for cell in student_nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in solutions:
            cell["source"] = solutions[grade_id]
            answered += 1
    assert answered == len(solutions), "the released notebook lost answer cells"
    return student_nb


def formgrader(room, action: str, path: str) -> dict:
    result = room.user_json(room.instructor, "POST", f"/formgrader/api/{path}")
    assert result.get("success"), f"formgrader {action} failed: {result.get('error', result)}"
    return result


def listing(room, student: str, assignment: str) -> list[dict]:
    result = room.user_json(student, "GET", "/assignments", params={"course_id": COURSE_ID})
    assert result["success"], result
    return [entry for entry in result["value"] if entry["assignment_id"] == assignment]


def action(room, student: str, action: str, assignment: str) -> dict:
    body = {"course_id": COURSE_ID, "assignment_id": assignment}
    result = room.user_json(student, "POST", f"/assignments/{action}", json=body)
    assert result["success"], f"{student} {action}: {result}"
    return result
