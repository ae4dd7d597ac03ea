"""Several classes on one hub (autograder/jupyterhub/jupyterhub_config_multi.py), for real.

Class A has a formgrader service run by its grader account; class B has none. The teacher
releases through class A's service; A's student fetches it into ~/<course>/<assignment>; B's
student, enrolled elsewhere, sees and gets nothing (nbgrader's JupyterHubAuthPlugin reads the
hub groups). Only the class's instructors reach the service.
"""

from __future__ import annotations

import os
import pwd
import time
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow

ASSIGNMENT = "hub_smoke"


def _smoke_notebook() -> nbformat.NotebookNode:
    meta = {"grade_id": "answer", "solution": True, "grade": False, "locked": False}
    test = {"grade_id": "test", "solution": False, "grade": True, "locked": True, "points": 1}
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "def half(x):\n    ### BEGIN SOLUTION\n    return x / 2\n    ### END SOLUTION",
                metadata={"nbgrader": {**meta, "schema_version": 3}},
            ),
            nbformat.v4.new_code_cell(
                "assert half(4) == 2", metadata={"nbgrader": {**test, "schema_version": 3}}
            ),
        ]
    )


def _wait_for_service(room, service: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = room.service_api(room.instructor, service, "GET", "/api/status").status_code
        if status == 200:
            return
        time.sleep(1)
    raise AssertionError(f"service {service} not up after {timeout}s\n{room.log_tail()}")


@pytest.fixture(scope="module")
def released(two_classes):
    room, facts = two_classes
    course = facts["course_a"]
    folder = room.course_dir / "source" / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(_smoke_notebook(), folder / f"{ASSIGNMENT}.ipynb")
    entry = pwd.getpwnam(facts["grader"])
    for path in (folder, folder / f"{ASSIGNMENT}.ipynb"):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    _wait_for_service(room, course)
    for action in ("assign", "release"):
        response = room.service_api(
            room.instructor, course, "POST", f"/formgrader/api/assignment/{ASSIGNMENT}/{action}"
        )
        assert response.status_code == 200, response.text
        assert response.json()["success"], response.json()
    return room, facts


def _list(room, student: str, course: str) -> list[dict]:
    result = room.user_json(student, "GET", "/assignments", params={"course_id": course})
    assert result["success"], result
    return result["value"]


def test_only_the_class_instructors_reach_its_formgrader(released):
    room, facts = released
    course = facts["course_a"]
    teacher = room.service_api(room.instructor, course, "GET", "/formgrader/api/status")
    assert teacher.status_code == 200
    for student in room.students:
        denied = room.service_api(student, course, "GET", "/formgrader/api/status")
        assert denied.status_code == 403, (student, denied.status_code)


def test_the_class_student_fetches_into_a_course_folder(released):
    room, facts = released
    student, course = room.students[0], facts["course_a"]
    assert [(a["course_id"], a["status"]) for a in _list(room, student, course)] == [
        (course, "released")
    ]
    body = {"course_id": course, "assignment_id": ASSIGNMENT}
    assert room.user_json(student, "POST", "/assignments/fetch", json=body)["success"]
    path = f"/api/contents/{course}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    notebook = room.user_json(student, "GET", path, params={"content": 1})["content"]
    # The released copy: the answer is cleared, the test is there.
    sources = [cell["source"] for cell in notebook["cells"]]
    assert "return x / 2" not in sources[0] and sources[1] == "assert half(4) == 2"


def test_a_student_of_another_class_gets_nothing(released):
    room, facts = released
    student, course = room.students[1], facts["course_a"]
    assert _list(room, student, course) == []
    body = {"course_id": course, "assignment_id": ASSIGNMENT}
    room.user_api(student, "POST", "/assignments/fetch", json=body)
    home = Path(pwd.getpwnam(student).pw_dir)
    assert not (home / course).exists()
