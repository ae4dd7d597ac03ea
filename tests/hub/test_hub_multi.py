"""Several classes on one hub (autograder/jupyterhub/jupyterhub_config_multi.py), for real.

Class A has a formgrader service run by its grader account; class B has none. The teacher
releases through class A's service; A's student fetches it into ~/<course>/<assignment>; B's
student, enrolled elsewhere, sees and gets nothing (nbgrader's JupyterHubAuthPlugin reads the
hub groups). Only the class's instructors reach the service. Each student hands in to their own
folder on their own filesystem, ``<course>/inbound/<student>/``, in each class they are in:
nobody writes into a class's ``inbound/`` by hand, and a student of B has no folder in A.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from attention_hub.exchange_folders import INBOUND_PER_USER_MODE

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


# -- each student's own folder in the inbound/ of every course they are in (user_disk.py) ------
def _as_user(user: str, shell: str) -> subprocess.CompletedProcess:
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return subprocess.run([runuser, "-u", user, "--", "sh", "-c", shell],
                          capture_output=True, text=True, timeout=60)  # fmt: skip


@pytest.fixture(scope="module")
def handed_in(released):
    """Both students try to write into class A's inbound/ by hand; A's student then hands in
    through the Assignment List and the teacher collects through class A's formgrader.
    """
    room, facts = released
    student_a, student_b = room.students
    course = facts["course_a"]
    inbound = room.exchange / course / "inbound"
    by_hand = {
        s: _as_user(s, f"echo x > {inbound}/planted-{s}; mkdir {inbound}/{s}+{ASSIGNMENT}+x")
        for s in (student_a, student_b)
    }
    body = {"course_id": course, "assignment_id": ASSIGNMENT}
    home_a = Path(pwd.getpwnam(student_a).pw_dir)
    if not (home_a / course / ASSIGNMENT).exists():
        assert room.user_json(student_a, "POST", "/assignments/fetch", json=body)["success"]
    submitted = room.user_json(student_a, "POST", "/assignments/submit", json=body)
    assert submitted["success"], submitted
    collected = room.service_api(
        room.instructor, course, "POST", f"/formgrader/api/assignment/{ASSIGNMENT}/collect"
    )
    assert collected.status_code == 200, collected.text
    return room, facts, by_hand, collected.json()


def test_no_student_writes_into_a_class_inbound_by_hand(handed_in):
    room, facts, by_hand, _ = handed_in
    for student, done in by_hand.items():
        assert done.returncode != 0, (student, done.stdout, done.stderr)
        assert "Permission denied" in done.stderr, (student, done.stderr)
    for course in (facts["course_a"], facts["course_b"]):
        inbound = room.exchange / course / "inbound"
        assert stat.S_IMODE(inbound.stat().st_mode) == INBOUND_PER_USER_MODE, course
        planted = [p.name for p in inbound.iterdir() if p.name not in room.students]
        assert planted == [], (course, planted)


def test_the_submission_lands_in_the_students_own_folder_and_is_collected(handed_in):
    room, facts, _, collected = handed_in
    student, course = room.students[0], facts["course_a"]
    own = room.exchange / course / "inbound" / student
    home = Path(pwd.getpwnam(student).pw_dir)
    assert os.path.ismount(own) and own.stat().st_dev == home.stat().st_dev  # their own disk
    (folder,) = [p for p in own.iterdir() if p.name.startswith(f"{student}+{ASSIGNMENT}+")]
    assert folder.stat().st_uid == pwd.getpwnam(student).pw_uid
    assert collected["success"], collected
    copy = room.course_dir / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert copy.is_file(), collected.get("log", "")


def test_a_student_of_another_class_gets_no_folder_in_it(handed_in):
    room, facts, _, _ = handed_in
    student_a, student_b = room.students
    exchange = room.exchange
    assert not os.path.lexists(exchange / facts["course_a"] / "inbound" / student_b)
    assert not os.path.lexists(exchange / facts["course_b"] / "inbound" / student_a)
    # ... and their own, on their own disk, in the class they are in
    own_b = exchange / facts["course_b"] / "inbound" / student_b
    home_b = Path(pwd.getpwnam(student_b).pw_dir)
    assert os.path.ismount(own_b) and own_b.stat().st_dev == home_b.stat().st_dev
