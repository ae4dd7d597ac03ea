"""Safe by default, end to end: a machine without the sandbox's walls refuses to grade.

Every route that grades students' code -- `make grade`, plain `nbgrader autograde` and the
formgrader's autograde button (``NbGraderAPI.autograde``) -- refuses, naming the one command that
fixes it (`make sandbox-deps`), and no student's code runs; a course that sets
``c.SandboxedKernelManager.sandbox = "off"`` grades on purpose.

"Walls down" is simulated as the sandbox detects it (``sandbox_host.bwrap_available`` runs
bubblewrap once with the namespaces it uses): a ``bwrap`` first on ``PATH`` that fails as it does
where user namespaces are off. Nothing is uninstalled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.graded_classes import ClassSpec, built_class, clone
from tests.support.grading_course import FIXTURE

REPO = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent
FIX = "make sandbox-deps"
STUDENT = "alice"


@pytest.fixture(scope="module")
def walls_down(tmp_path_factory) -> dict[str, str]:
    """An environment whose ``bwrap`` cannot create namespaces (as with user namespaces off)."""
    bin_dir = tmp_path_factory.mktemp("no-namespaces")
    fake = bin_dir / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the "
        "kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    path = f"{bin_dir}:{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
    return {**env, "PATH": path}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The fixture class handed in, not graded (built with this machine's walls up)."""
    from tests.support.grading_course import hand_in_class

    spec = ClassSpec("safe-by-default", hand_in=hand_in_class)
    return built_class(tmp_path_factory.mktemp("safe-by-default"), spec)


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def _graded(course) -> list[Path]:
    return sorted((course.root / "autograded").glob(f"*/{FIXTURE}/*.ipynb"))


def _make_grade(course, env, *args: str) -> subprocess.CompletedProcess:
    cmd = ["make", "--no-print-directory", f"VENV={VENV}", "grade", f"A={FIXTURE}"]
    return _run([*cmd, f"COURSE={course.root}", *args], REPO, env)


def _nbgrader_autograde(course, env) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "nbgrader", "autograde", FIXTURE, "--force"]
    return _run([*cmd, "--student", STUDENT], course.root, env)


def _formgrader_autograde(course, env) -> dict:
    """What the formgrader's autograde button does: ``NbGraderAPI.autograde`` in its server."""
    script = (
        "import json, sys\n"
        "from attention_grader.config.course import load_course\n"
        "api = load_course(sys.argv[1]).api()\n"
        "print(json.dumps(api.autograde(sys.argv[2], sys.argv[3])))\n"
    )
    done = _run([sys.executable, "-c", script, str(course.root), FIXTURE, STUDENT], REPO, env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_every_route_refuses_without_the_walls_and_names_the_fix(course, walls_down):
    done = _make_grade(course, walls_down)
    assert done.returncode != 0
    assert FIX in done.stdout + done.stderr and "[OFF]" in done.stdout
    assert _graded(course) == []

    done = _nbgrader_autograde(course, walls_down)
    assert FIX in done.stdout + done.stderr
    assert _graded(course) == []

    result = _formgrader_autograde(course, walls_down)
    assert not result["success"] and FIX in result["error"] + result.get("log", "")
    assert _graded(course) == []
    assert all(score is None for score in _auto_scores(course))  # no route saved a score


def _auto_scores(course) -> list[float | None]:
    from nbgrader.api import MissingEntry

    with course.gradebook() as gb:
        try:
            submission = gb.find_submission(FIXTURE, STUDENT)
        except MissingEntry:
            return []
        return [g.auto_score for nb in submission.notebooks for g in nb.grades]


@pytest.mark.slow
def test_sandbox_off_on_purpose_grades_on_such_a_machine(course, walls_down, tmp_path):
    off = clone(course, tmp_path)
    with open(off.root / "nbgrader_config.py", "a") as config:
        config.write('\nc.SandboxedKernelManager.sandbox = "off"  # trusted work only\n')
    done = _nbgrader_autograde(off, walls_down)
    assert FIX not in done.stdout + done.stderr, done.stderr[-2000:]
    assert [p.parent.parent.name for p in _graded(off)] == [STUDENT]
    done = _make_grade(off, walls_down, "FORCE=1")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "[OFF]" in done.stdout and FIX not in done.stdout
    assert {p.parent.parent.name for p in _graded(off)} == {"alice", "bob", "dana", "eli"}
    with off.gradebook() as gb:
        alice = gb.find_submission(FIXTURE, STUDENT)
        assert alice.score == alice.max_score > 0  # her correct work, graded
