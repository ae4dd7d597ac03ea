"""`make student-dist` (issue 39, item 3): what a student gets has no solution and no hidden test,
and `make lab` works from it with every assignment offered.

One build of the whole course (every assignment released into the distribution's exchange,
about a minute), then: nothing of a teacher's course is in it, no notebook has a solution or
hidden-test marker, no released notebook holds a choice's answer; the check finds a solution
put back into it (the attack first); and `make lab` in it, as a new student, lists every
assignment to fetch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
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
from attention_grader.steps.student_dist import build, leaks

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
VENV = Path(sys.prefix)
MARKERS = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)")
ASSIGNMENTS = sorted(p.name for p in (ROOT / "source").iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return build(ROOT, tmp_path_factory.mktemp("dist"))


def _solution_answers(path: Path) -> dict[str, str]:
    """grade_id -> the solution's text of each answer cell of a source notebook."""
    found = {}
    for cell in nbformat.read(path, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        block = re.search(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell.source, re.S)
        if meta.get("solution") and block:
            found[meta["grade_id"]] = block[1].strip()
    return found


def test_the_distribution_has_no_source_no_solution_and_no_hidden_test(dist):
    names = {p.name for p in dist.rglob("*")}
    assert not names & {"source", "release", "tests", "gradebook.db", "submitted", "autograded"}
    assert (dist.parent / "attention-lab-student.zip").is_file()
    notebooks = sorted(dist.rglob("*.ipynb"))
    assert len(notebooks) >= len(ASSIGNMENTS) + 8  # the lessons and every released assignment
    for path in notebooks:
        assert not MARKERS.search(path.read_text()), path
    outbound = dist / "exchange" / "attention-lab" / "outbound"
    assert sorted(p.name for p in outbound.iterdir()) == ASSIGNMENTS
    checked = 0
    for name in ASSIGNMENTS:
        released = nbformat.read(outbound / name / f"{name}.ipynb", as_version=4)
        cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in released.cells}
        for grade_id, solution in _solution_answers(
            ROOT / "source" / name / f"{name}.ipynb"
        ).items():
            assert solution not in cells[grade_id], f"{name} {grade_id} ships its solution"
            checked += 1
    assert checked >= 60  # every answer of every assignment was looked at
    assert leaks(dist, ROOT / "source") == []


def test_the_check_finds_a_solution_or_hidden_test_put_back(dist, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(dist, copy)
    name = "inventory_pre"
    released = copy / "exchange" / "attention-lab" / "outbound" / name / f"{name}.ipynb"
    nb = nbformat.read(released, as_version=4)
    source = nbformat.read(ROOT / "source" / name / f"{name}.ipynb", as_version=4)
    hidden = next(c for c in source.cells if "### BEGIN HIDDEN TESTS" in c.source)
    body = hidden.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
    nb.cells[-1].source += body  # the hidden test's lines, without its markers
    nbformat.write(nb, released)
    assert any(
        "a line of a solution or hidden test" in said for said in leaks(copy, ROOT / "source")
    )
    shutil.copytree(ROOT / "source" / name, copy / "notebooks" / "source")
    said = leaks(copy, ROOT / "source")
    assert any("a teacher's folder" in s for s in said)
    assert any("marker" in s for s in said)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_teachers_folder_is_found_anywhere_but_the_graders_own_package_is_code(tmp_path):
    """The grader's ``reports/`` package (the report's modules) is code a student may have; a
    ``reports/`` folder anywhere else, or one there that is no package, is a class's reports.
    """
    grader = tmp_path / "autograder" / "attention_grader"
    (grader / "reports").mkdir(parents=True)
    (grader / "reports" / "__init__.py").write_text('"""The report."""\n')
    assert leaks(tmp_path, ROOT / "source") == []
    for where in ("reports", "notebooks/reports", "autograder/attention_grader/steps/reports"):
        (tmp_path / where).mkdir(parents=True)
        (tmp_path / where / "__init__.py").write_text("")
    (grader / "feedback").mkdir()
    assert [said.split(":")[0] for said in leaks(tmp_path, ROOT / "source")] == [
        "autograder/attention_grader/feedback",
        "autograder/attention_grader/steps/reports",
        "notebooks/reports",
        "reports",
    ]


def test_make_lab_from_the_distribution_offers_every_assignment(dist, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    for path in dist.rglob("*"):  # older than this venv's stamps: `make setup` reuses the venv
        os.utime(path, (0, 0), follow_symlinks=False)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "ATTENTION_LAB", "NBGRADER", "PYTEST", "VIRTUAL_ENV"))}  # fmt: skip
    env["HOME"] = str(home)
    dry = subprocess.run(["make", "-n", f"VENV={VENV}", "setup"], cwd=dist, env=env,
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert "pip install" not in dry.stdout, "make setup would re-install the venv from the copy"
    port, token = _free_port(), "student-dist-test"
    args = f"--no-browser --port={port} --ip=127.0.0.1 --IdentityProvider.token={token}"
    log_path = tmp_path / "lab.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            ["make", "--no-print-directory", f"VENV={VENV}", "lab", f"LAB_ARGS={args}"],
            cwd=dist, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        listed = None
        deadline = time.monotonic() + 180
        while listed is None:
            try:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/assignments?course_id=attention-lab",
                    headers={"Authorization": f"token {token}"},
                )
                with urllib.request.urlopen(request, timeout=120) as answer:
                    listed = json.load(answer)
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, log_path.read_text()[-3000:]
                assert time.monotonic() < deadline, "make lab did not answer within 180 s"
                time.sleep(0.5)  # poll interval of the readiness check
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    assert listed["success"], listed
    offered = sorted(a["assignment_id"] for a in listed["value"] if a["status"] == "released")
    assert offered == ASSIGNMENTS
    said = log_path.read_text()
    assert "To fetch (Nbgrader -> Assignment List): " in said
    assert (dist / "work" / "00_start_here.ipynb").is_file()  # the lessons were copied for her
    check = subprocess.run(["make", "--no-print-directory", f"VENV={VENV}", "check", "A=intro_attention"],
                           cwd=dist, env=env, capture_output=True, text=True, check=False)  # fmt: skip
    assert check.returncode != 0
    assert "leaves out" in check.stdout + check.stderr and "Traceback" not in check.stderr
