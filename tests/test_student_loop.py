"""A student alone on a laptop, from a fresh clone (issue 14 item 9): the path of docs/students.md,
"Studying alone on a laptop".

`git clone` of this repository into a temporary folder with a temporary HOME; `make setup`
(reusing this venv); the teacher releases an assignment (`make release`); `make lab` starts, and
its Assignment List REST API (what Nbgrader -> Assignment List calls) lists the course and the
assignment and fetches it; the student answers one question with unscaled scores, validates
through the server, and `make check` names the misconception without an expected value, the
hidden tests, the solution or a score. Then Submit, the teacher's collect, grade and feedback,
and Fetch Feedback puts the page where the docs say.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)  # the venv running the tests: the clone's `make setup` reuses it
ASSIGNMENT = "focus_in_the_noise"
COURSE_ID = "attention-lab"
# The student's wrong answer to Q3: scores without the 1/sqrt(d_k) (the rest follows from them).
UNSCALED = (
    "launched_scores = K @ q_launched\n"
    "launched_weights = np.exp(launched_scores) / np.exp(launched_scores).sum()\n"
    "launched_output = launched_weights @ V"
)

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _student_env(home: Path) -> dict[str, str]:
    """The environment of a new student: a fresh HOME, no Jupyter or course variables set."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JUPYTER", "ATTENTION_LAB", "NBGRADER", "PYTEST", "VIRTUAL_ENV"))
    }
    env["HOME"] = str(home)
    return env


def _make(clone: Path, env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", f"VENV={VENV}", *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def laptop(tmp_path_factory):
    """A fresh clone after `make setup`, with the teacher's release of ASSIGNMENT done."""
    tmp = tmp_path_factory.mktemp("laptop")
    clone, home = tmp / "attention-lab", tmp / "home"
    home.mkdir()
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    # The clone's files are newer than this venv's install stamp: date them back so `make setup`
    # reuses the venv instead of re-installing it (pip install -e would point it at the clone).
    for name in (
        "requirements.txt",
        "requirements-lock.txt",
        "pyproject.toml",
        "Makefile",
        "jupyter-settings/overrides.json",
    ):
        os.utime(clone / name, (0, 0))
    env = _student_env(home)
    dry = _make(clone, env, "-n", "setup")
    assert "pip install" not in dry.stdout, "the clone's make setup would re-install the venv"
    setup = _make(clone, env, "setup")
    assert setup.returncode == 0, setup.stderr
    assert (clone / "exchange").is_dir() and (clone / "work" / "assignments").is_dir()
    release = _make(clone, env, "release", f"A={ASSIGNMENT}")
    assert release.returncode == 0, release.stdout + release.stderr
    return clone, env


@pytest.fixture(scope="module")
def lab(laptop):
    """`make lab` in the clone, headless; yields a function calling its REST API."""
    clone, env = laptop
    port, token = _free_port(), "student-loop-test"
    args = f"--no-browser --port={port} --ip=127.0.0.1 --IdentityProvider.token={token}"
    log = open(clone.parent / "lab.log", "wb")  # closed below
    proc = subprocess.Popen(
        ["make", "--no-print-directory", f"VENV={VENV}", "lab", f"LAB_ARGS={args}"],
        cwd=clone,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def call(path: str, data: dict | None = None, method: str | None = None) -> dict:
        """GET ``path``, or POST ``data`` as JSON (as nbgrader's lab extension does)."""
        body = None if data is None else json.dumps(data).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/{path}",
            data=body,
            headers={"Authorization": f"token {token}"},
            method=method or ("POST" if data is not None else "GET"),
        )
        with urllib.request.urlopen(req, timeout=120) as answer:
            return json.load(answer)

    call.put = lambda path, data: call(path, data, "PUT")  # save, as JupyterLab does

    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                call("api/status")
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, (clone.parent / "lab.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "make lab did not answer within 120 s"
                time.sleep(0.5)
        yield call
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        log.close()


def _hidden_and_solution_lines(source: nbformat.NotebookNode) -> list[str]:
    """Every line (8+ characters) between BEGIN/END HIDDEN TESTS or SOLUTION markers."""
    lines, inside = [], False
    for cell in source.cells:
        for line in cell.source.splitlines():
            if re.match(r"\s*### BEGIN (HIDDEN TESTS|SOLUTION)", line):
                inside = True
            elif re.match(r"\s*### END (HIDDEN TESTS|SOLUTION)", line):
                inside = False
            elif inside and len(line.strip()) >= 8:  # not a lone ")" that any text has
                lines.append(line.strip())
    return lines


def _expected_values(source: nbformat.NotebookNode) -> list[float]:
    """The answer values of Q3, by running the source's data and solution cells."""
    namespace: dict = {}
    for cell in source.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in ("setup", "isro_data", "answer_q3"):
            exec(cell.source, namespace)  # the teacher's own source, not student code
    names = ("launched_scores", "launched_weights", "launched_output")
    return [float(x) for n in names for x in namespace[n]]


def test_a_new_student_fetches_validates_and_sees_the_misconception(laptop, lab):
    clone, env = laptop
    courses = lab("courses")  # what failed as "Error fetching courses!"
    assert courses == {"success": True, "value": [COURSE_ID]}
    listed = lab(f"assignments?course_id={COURSE_ID}")
    assert listed["success"], listed
    assert [(a["assignment_id"], a["status"]) for a in listed["value"]] == [
        (ASSIGNMENT, "released")
    ]

    fetched = lab("assignments/fetch", {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
    assert fetched["success"], fetched
    (row,) = fetched["value"]
    assert row["status"] == "fetched"
    rel = f"assignments/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    assert [nb["path"] for nb in row["notebooks"]] == [rel]  # inside the lab's work/
    copy = clone / "work" / rel

    nb = nbformat.read(copy, as_version=4)
    (answer,) = [
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer_q3"
    ]
    answer.source = UNSCALED
    (choice,) = [
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer_q1"
    ]
    choice.source = 'answer_q1 = "k3"'
    nbformat.write(nb, copy)

    validated = lab("assignments/validate", {"path": rel})  # the Validate button's request
    assert validated["success"], validated
    assert "still None" in json.dumps(validated["value"])  # it ran the copy: Q2 is blank

    check = _make(clone, env, "check", f"A={ASSIGNMENT}")
    assert check.returncode == 0, check.stdout + check.stderr
    out = check.stdout
    assert f"Checking your copy of {ASSIGNMENT}" in check.stderr  # says it started (issue 39)
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith("  ")}
    assert "[forgot_scaling]" in lines["launched_scores"], out
    # a choice's verdict is held back on the first check (issue 27), and the printout says so
    assert "checked" in lines["highest_key_choice"] and "✓" not in lines["highest_key_choice"]
    assert "until your teacher releases feedback" in out, out
    assert "blank: write your answer" in lines["scaling_explained"], out  # left blank

    source = nbformat.read(clone / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    leaked = [line for line in _hidden_and_solution_lines(source) if line in out]
    assert not leaked, f"make check shows hidden tests or the solution: {leaked}"
    shown = [float(x) for x in re.findall(r"\d+\.\d+", out)]
    values = [v for v in _expected_values(source) if v != round(v)]
    assert values and not [s for s in shown for v in values if abs(s - v) < 5e-3], out
    assert not re.search(r"\d+(\.\d+)?\s*/\s*\d+|points|%", out), "a score in: " + out
    assert "not a grade" in out


def test_after_submit_the_lone_student_plays_teacher_and_reads_the_feedback(laptop, lab):
    """docs/students.md: Submit, then `make collect`, `make grade`, `make feedback PARTIAL=1`,
    and *Fetch Feedback* puts the page in assignments/<a>/feedback/<time>/<a>.html.
    """
    clone, env = laptop
    copy = clone / "work" / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    if not copy.exists():  # this test run alone
        lab("assignments/fetch", {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
    nb = nbformat.read(copy, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "answer_q3":
            cell.source = UNSCALED
    nbformat.write(nb, copy)

    ids = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
    submitted = lab("assignments/submit", ids)  # the Submit button's request
    assert submitted["success"], submitted
    for step in ("collect", "grade", "feedback"):
        done = _make(clone, env, step, f"A={ASSIGNMENT}", "PARTIAL=1")
        assert done.returncode == 0, f"make {step}: " + done.stdout + done.stderr

    got = lab("assignments/fetch_feedback", ids)  # the Fetch Feedback button's request
    assert got["success"], got
    (page,) = (copy.parent / "feedback").glob(f"*/{ASSIGNMENT}.html")
    assert "[forgot_scaling]" in page.read_text()


def test_lessons_opened_and_saved_in_make_lab_leave_the_git_checkout_clean(laptop, lab):
    """Issue 29: JupyterLab autosaved the lessons into notebooks/, so `git status` showed all six
    modified and `git pull` conflicted. make lab serves the student's copies in work/.
    """
    clone, _ = laptop
    listing = {item["name"] for item in lab("api/contents")["content"]}
    lessons = {p.name for p in (clone / "notebooks").glob("*.ipynb")}
    assert lessons <= listing and "assignments" in listing
    model = lab("api/contents/01_the_bottleneck.ipynb?content=1")
    model["content"]["cells"][0]["source"] = "my own note"
    saved = lab.put(
        "api/contents/01_the_bottleneck.ipynb",
        {"type": "notebook", "format": "json", "content": model["content"]},
    )
    assert saved["name"] == "01_the_bottleneck.ipynb"
    assert "my own note" in (clone / "work" / "01_the_bottleneck.ipynb").read_text()
    status = subprocess.run(
        ["git", "-C", str(clone), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status == "", status
