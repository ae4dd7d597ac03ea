"""The classroom JupyterHub, tested against a real hub (issue 9).

Everything goes through REST APIs, as a browser would: the hub API starts the servers; the
instructor's formgrader API generates, releases, collects, autogrades and returns feedback; the
students' Assignment List API fetches, submits and fetches feedback; the contents API edits the
students' notebooks; a kernel in a student's server tries to read what it must not.

The assignment is one of the course's own (``source/intro_attention`` ...) when present, else a
tiny one written here. The "good" student pastes the instructor's solutions into the answer cells,
the other submits the notebook untouched; their autograded scores must be full and zero.
"""

from __future__ import annotations

import json
import os
import pwd
from pathlib import Path

import nbformat
import pytest
import requests
from hub_steps import (
    COURSE_ID,
    action,
    answer_with_solutions,
    autograded_points,
    choose_assignment,
    formgrader,
    listing,
)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
#: nbgrader's JupyterLab plugins for the teacher: Formgrader and Course List in the Nbgrader
#: menu, the Create Assignment sidebar. A student's Lab on the hub has none of them.
TEACHER_PLUGINS = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
)


def _lab_page_config(html: str) -> dict:
    """JupyterLab's page config, embedded in its HTML page."""
    start = html.index('id="jupyter-config-data"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


@pytest.fixture(scope="module")
def cycle(classroom):
    """Release -> fetch/edit/submit -> collect/autograde/feedback -> fetch feedback."""
    room = classroom
    good, lazy = room.students
    assignment = choose_assignment(room.course_dir, room.instructor)
    source_nb = nbformat.read(
        room.course_dir / "source" / assignment / f"{assignment}.ipynb", as_version=4
    )
    notebook = f"{assignment}/{assignment}.ipynb"

    # Instructor: generate the student version and release it to the exchange.
    formgrader(room, "generate", f"assignment/{assignment}/assign")
    formgrader(room, "release", f"assignment/{assignment}/release")

    # Students: the released assignment shows in their list; fetch, answer, submit.
    for student in (good, lazy):
        released = listing(room, student, assignment)
        assert [entry["status"] for entry in released] == ["released"], released
        action(room, student, "fetch", assignment)
        assert "fetched" in [entry["status"] for entry in listing(room, student, assignment)]
    model = room.user_json(good, "GET", f"/api/contents/{notebook}", params={"content": 1})
    answered = answer_with_solutions(model["content"], source_nb)
    room.user_json(
        good,
        "PUT",
        f"/api/contents/{notebook}",
        json={"type": "notebook", "format": "json", "content": answered},
    )
    for student in (good, lazy):
        action(room, student, "submit", assignment)

    # Instructor: collect, autograde each student, generate and release feedback.
    formgrader(room, "collect", f"assignment/{assignment}/collect")
    autograde_logs = {
        student: formgrader(room, "autograde", f"submission/{assignment}/{student}/autograde")
        for student in (good, lazy)
    }
    formgrader(room, "generate feedback", f"assignment/{assignment}/generate_feedback")
    formgrader(room, "release feedback", f"assignment/{assignment}/release_feedback")
    submissions = room.user_json(
        room.instructor, "GET", f"/formgrader/api/submissions/{assignment}"
    )

    # Students: fetch their feedback.
    feedback = {}
    for student in (good, lazy):
        action(room, student, "fetch_feedback", assignment)
        feedback[student] = listing(room, student, assignment)
    return {
        "assignment": assignment,
        "notebook": notebook,
        "expected_points": autograded_points(source_nb),
        "scores": {entry["student"]: entry for entry in submissions},
        "feedback": feedback,
        "autograde_logs": {s: r.get("log", "") for s, r in autograde_logs.items()},
    }


def test_grades_are_as_expected(classroom, cycle):
    good, lazy = classroom.students
    scores = cycle["scores"]
    assert set(scores) == {good, lazy}
    assert cycle["expected_points"] > 0
    assert scores[good]["autograded"] and scores[lazy]["autograded"]
    assert scores[good]["score"] == pytest.approx(cycle["expected_points"])
    assert scores[lazy]["score"] == 0


def test_formgrader_autograde_runs_student_code_sandboxed(cycle):
    """The course's nbgrader_config.py sandboxes the formgrader's kernels, run as the instructor:
    bubblewrap without root (user namespaces), so no separate sandbox account.
    """
    log = next(iter(cycle["autograde_logs"].values()))
    assert "Sandbox protections for student kernels" in log, log
    for layer in ("filesystem isolation", "no network", "CPU-time limit", "memory limit"):
        assert f"[ON ] {layer}" in log, log
    assert "[OFF] separate unprivileged user" in log  # grading does not run as root here


def test_students_fetch_their_own_feedback(classroom, cycle):
    assignment = cycle["assignment"]
    for student in classroom.students:
        submitted = [e for e in cycle["feedback"][student] if e["status"] == "submitted"]
        assert submitted, cycle["feedback"][student]
        latest = submitted[0]["submissions"][-1]
        assert latest["has_local_feedback"], latest
        folder = latest["local_feedback_path"]
        html = classroom.user_json(
            student, "GET", f"/api/contents/{folder}/{assignment}.html", params={"content": 1}
        )
        # The feedback is this student's own graded notebook.
        assert assignment in html["name"] and len(html["content"]) > 1000


def test_servers_run_as_their_users_with_the_course_env(classroom, cycle):
    """Every server and kernel is the course env's, here at a path under /tmp (the fixture's
    ATTENTION_LAB_VENV), which each server's private /tmp would hide if nothing bound it in.
    """
    env = str(classroom.course_env)
    assert env.startswith("/tmp/")
    probe = (
        "import os, subprocess, sys, json\n"
        "tools = subprocess.run(['python', '-c', 'import sys; print(sys.prefix)'],\n"
        "                       capture_output=True, text=True).stdout.strip()\n"
        "print(json.dumps([os.getuid(), sys.prefix, os.getppid(), tools]))\n"
    )
    for name in (classroom.instructor, *classroom.students):
        uid, prefix, ppid, tools = json.loads(classroom.run_in_kernel(name, probe))
        # the server is hidden from its user's kernels (undumpable): root reads its command
        server = Path(f"/proc/{ppid}/cmdline").read_text().split(chr(0))
        assert uid == pwd.getpwnam(name).pw_uid
        assert server[:2] == [f"{env}/bin/python", "-s"], server  # started from under /tmp
        assert tools == prefix == env  # its kernels and PATH's python (terminals, `!nbgrader`)
        assert Path(prefix).resolve() == Path(os.sys.prefix).resolve()


def test_a_student_cannot_read_another_students_work_or_the_course(classroom, cycle):
    good, lazy = classroom.students
    assignment = cycle["assignment"]
    home = {name: Path(pwd.getpwnam(name).pw_dir) for name in (classroom.instructor, good, lazy)}
    course, exchange = classroom.course_dir, classroom.exchange / COURSE_ID
    targets = {
        # must be readable (so that the denials below are not a broken kernel)
        "own notebook": str(home[lazy] / cycle["notebook"]),
        "released assignments": str(exchange / "outbound"),
        # must be denied
        "other student's notebook": str(home[good] / cycle["notebook"]),
        "other student's home": str(home[good]),
        "course source": str(course / "source" / assignment / f"{assignment}.ipynb"),
        "collected submissions": str(course / "submitted"),
        "gradebook": str(course / "gradebook.db"),
        "exchange inbound": str(exchange / "inbound"),
        "exchange feedback": str(exchange / "feedback"),
    }
    code = (
        "import json, os\n"
        f"targets = {targets!r}\n"
        "result = {}\n"
        "for key, path in targets.items():\n"
        "    try:\n"
        "        os.listdir(path) if os.path.isdir(path) else open(path, 'rb').read(1)\n"
        "        result[key] = 'ok'\n"
        "    except OSError as err:\n"
        "        result[key] = type(err).__name__\n"
        "print(json.dumps(result))\n"
    )
    result = json.loads(classroom.run_in_kernel(lazy, code))
    assert result["own notebook"] == "ok" and result["released assignments"] == "ok", result
    denied = {
        key: value
        for key, value in result.items()
        if key not in ("own notebook", "released assignments")
    }
    assert denied == dict.fromkeys(denied, "PermissionError"), result


def test_hub_keeps_servers_and_tools_apart(classroom, cycle):
    good, lazy = classroom.students
    # A user's token opens their own server and no one else's.
    headers = {"Authorization": f"token {classroom.tokens[lazy]}"}
    own = requests.get(f"{classroom.user_url(lazy)}/api/status", headers=headers, timeout=30)
    assert own.status_code == 200
    for owner in (good, classroom.instructor):
        other = requests.get(f"{classroom.user_url(owner)}/api/status", headers=headers, timeout=30)
        assert other.status_code == 403, (owner, other.status_code)
    # The formgrader is the instructor's: a student's server does not serve it.
    assert classroom.user_api(lazy, "GET", "/formgrader/api/status").status_code == 404
    assert (
        classroom.user_api(classroom.instructor, "GET", "/formgrader/api/status").status_code == 200
    )


def test_formgrader_can_be_framed_only_where_configured(classroom, cycle):
    instructor = classroom.user_api(classroom.instructor, "GET", "/formgrader")
    assert instructor.status_code == 200
    assert "frame-ancestors 'self'" in instructor.headers["Content-Security-Policy"]
    student = classroom.user_api(classroom.students[0], "GET", "/lab")
    assert "frame-ancestors 'none'" in student.headers["Content-Security-Policy"]


def test_hub_groups_hold_the_class(classroom, cycle):
    groups = classroom.hub_api("GET", "/groups").json()
    members = {group["name"]: set(group["users"]) for group in groups}
    assert members[f"formgrade-{COURSE_ID}"] == {classroom.instructor}
    assert set(classroom.students) <= members[f"nbgrader-{COURSE_ID}"]


def test_instructor_enrols_a_student_and_only_the_instructor_can(classroom, cycle):
    """The formgrade- role at work: `nbgrader db student add` in the instructor's server joins
    the student to the hub group; a student's token may not touch the group.
    """
    newcomer = classroom.students[0].replace("stua", "stun")
    assert classroom.hub_api("POST", f"/users/{newcomer}").status_code == 201
    group = f"/groups/nbgrader-{COURSE_ID}"
    # A student may not change the class list ...
    headers = {"Authorization": f"token {classroom.tokens[classroom.students[1]]}"}
    denied = requests.post(
        f"{classroom.url}/hub/api{group}/users",
        json={"users": [newcomer]},
        headers=headers,
        timeout=30,
    )
    assert denied.status_code == 403
    assert newcomer not in classroom.hub_api("GET", group).json()["users"]
    # ... the instructor does, by adding the student to the gradebook from a kernel of their
    # server (nbgrader's JupyterHubAuthPlugin calls the hub with the server's own token).
    code = (
        "import subprocess\n"
        f"cmd = ['nbgrader', 'db', 'student', 'add', {newcomer!r}, '--last-name=Comer']\n"
        f"run = subprocess.run(cmd, cwd={str(classroom.course_dir)!r}, capture_output=True, "
        "text=True)\n"
        "print(run.returncode, run.stderr[-2000:])\n"
    )
    output = classroom.run_in_kernel(classroom.instructor, code)
    assert output.startswith("0 "), output
    assert newcomer in classroom.hub_api("GET", group).json()["users"], output


def test_a_student_logs_in_and_lands_in_jupyterlab_without_instructor_tools(classroom, cycle):
    student = classroom.students[1]
    session = requests.Session()
    session.get(f"{classroom.url}/hub/login", timeout=30)
    form = {"username": student, "password": classroom.password}
    form["_xsrf"] = session.cookies.get("_xsrf", "")
    page = session.post(f"{classroom.url}/hub/login?next=", data=form, timeout=60)
    assert page.status_code == 200 and page.url.endswith(f"/user/{student}/lab"), page.url
    # JupyterLab's page config: nbgrader's instructor plugins are switched off for students ...
    disabled = _lab_page_config(page.text)["disabledExtensions"]
    assert set(TEACHER_PLUGINS) <= set(disabled), disabled
    assert "@jupyter/nbgrader:assignment-list" not in disabled
    # ... and not for the instructor.
    lab = classroom.user_api(classroom.instructor, "GET", "/lab")
    assert not set(TEACHER_PLUGINS) & set(_lab_page_config(lab.text)["disabledExtensions"])
    wrong = requests.post(
        f"{classroom.url}/hub/login",
        data={"username": student, "password": "not-the-password", "_xsrf": form["_xsrf"]},
        cookies=session.cookies,
        timeout=30,
    )
    assert f"/user/{student}/" not in wrong.url


def _nbgrader_ui_in_chromium(room, user: str) -> tuple[list[str], bool]:
    """Log ``user`` in through the hub's login form in Chromium; the items of JupyterLab's
    Nbgrader menu and whether the Create Assignment sidebar tab is there.
    """
    from browser.driver import launch_chromium
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page()
            page.goto(f"{room.url}/hub/login")
            page.fill("#username_input", user)
            page.fill("#password_input", room.password)
            page.click("#login_submit")
            page.wait_for_url(f"**/user/{user}/lab**", timeout=180_000)
            menu = page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader")
            menu.wait_for(timeout=180_000)
            # The Assignment List (every user's) is in: nbgrader's plugins have all activated.
            menu.click()
            items = page.locator(".lm-Menu .lm-Menu-itemLabel")
            items.filter(has_text="Assignment List").wait_for(timeout=60_000)
            labels = [text.strip() for text in items.all_inner_texts() if text.strip()]
            page.keyboard.press("Escape")
            tab = page.locator('.lm-TabBar-tab[data-id="nbgrader-create_assignemnt"]')
            return labels, tab.count() == 1
        finally:
            browser.close()


def test_only_the_instructor_sees_nbgrader_teacher_tools_in_jupyterlab(classroom):
    """Issue 29: in Chromium, a student's JupyterLab on the hub shows the Assignment List only;
    the instructor's shows Formgrader, Course List and the Create Assignment sidebar.
    """
    labels, create_tab = _nbgrader_ui_in_chromium(classroom, classroom.students[0])
    assert "Assignment List" in labels, labels
    assert not {"Formgrader", "Course List"} & set(labels), labels
    assert not create_tab, "a student's Lab shows the Create Assignment sidebar"
    labels, create_tab = _nbgrader_ui_in_chromium(classroom, classroom.instructor)
    assert {"Assignment List", "Formgrader", "Course List"} <= set(labels), labels
    assert create_tab, "the instructor's Lab has no Create Assignment sidebar"
