"""End to end: a setting in ~/.jupyter and one on the command line reach both grading routes.

One released fixture, four honest students. ``c.Intake.max_cells = 1`` (every notebook has
more cells) is given once in the teacher's ``~/.jupyter/nbgrader_config.py`` and once on the
command line, to ``python -m attention_grader grade`` (make grade's route) and to plain
``nbgrader autograde``: each time the intake hook refuses that student's notebook before any
kernel starts, with the cap in its flag. Before the config door, make grade read the course
file alone and graded them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from attention_grader.cli import main
from attention_grader.common.flag_store import read_flags
from attention_grader.intake.intake import default_quarantine
from attention_grader.steps.release import release

from tests.support.grading_course import CORRECT, FIXTURE, Student, make_course

pytestmark = [pytest.mark.slow]


def refused_by_the_cap(root: Path, student: str) -> bool:
    """Whether the intake refused ``student``'s notebook for its cell count (limit 1)."""
    folder = Path(root, "submitted", student, FIXTURE)
    flags = read_flags(quarantine=default_quarantine(folder))
    return any("(limit 1)" in flag.detail for flag in flags) and not any(folder.glob("*.ipynb"))


def nbgrader(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(home))
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    env.pop("JUPYTER_CONFIG_DIR", None)
    cmd = [sys.executable, "-m", "nbgrader", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def test_a_user_file_and_a_flag_reach_the_intake_on_both_routes(tmp_path, monkeypatch, capsys):
    course = make_course(tmp_path)
    release(course, FIXTURE)
    students = ["ana", "ben", "cara", "dev"]
    for sid in students:
        Student(course, tmp_path, sid).work(FIXTURE, CORRECT)
    root = str(course.root)
    assert main(["--course", root, "collect", FIXTURE]) == 0
    plain, teacher = tmp_path / "plain-home", tmp_path / "teacher-home"
    (teacher / ".jupyter").mkdir(parents=True)
    (teacher / ".jupyter" / "nbgrader_config.py").write_text(
        "c = get_config()\nc.Intake.max_cells = 1\n"
    )
    plain.mkdir()
    monkeypatch.delenv("JUPYTER_CONFIG_DIR", raising=False)
    grade = ["--course", root, "grade", FIXTURE, "--jobs", "1", "--no-progress", "--student"]

    monkeypatch.setenv("HOME", str(teacher))
    assert main([*grade, "ana"]) == 0
    assert refused_by_the_cap(course.root, "ana")  # make grade: the user's file
    out = nbgrader(course.root, teacher, "autograde", FIXTURE, "--student=ben")
    assert refused_by_the_cap(course.root, "ben"), out.stderr[-2000:]  # nbgrader: the same

    monkeypatch.setenv("HOME", str(plain))
    assert main([*grade, "cara", "--Intake.max_cells=1"]) == 0
    assert refused_by_the_cap(course.root, "cara")  # make grade: the command line
    out = nbgrader(
        course.root, plain, "autograde", FIXTURE, "--student=dev", "--Intake.max_cells=1"
    )
    assert refused_by_the_cap(course.root, "dev"), out.stderr[-2000:]  # nbgrader: the same
    capsys.readouterr()
