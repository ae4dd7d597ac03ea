"""attention_grader.cli: the command line the make targets call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from attention_grader.cli import build_parser, main

from tests.support.grading_course import synthetic_class
from tests.support.roster import import_roster

REPO = Path(__file__).resolve().parents[2]


def test_grade_options_are_parsed():
    args = build_parser().parse_args(
        ["--course", "/c", "grade", "a1", "-j", "4", "--force", "--cell-timeout", "20",
         "--notebook-timeout", "90", "--student", "ravi"]
    )  # fmt: skip
    assert (args.step, args.assignment, args.jobs, args.force) == ("grade", "a1", 4, True)
    assert (args.cell_timeout, args.notebook_timeout, args.student) == (20, 90.0, ["ravi"])


@pytest.mark.slow
def test_grades_and_report_steps(tmp_path, capsys):
    course = synthetic_class(tmp_path)
    assert main(["--course", str(course.root), "grades", "--out", str(tmp_path / "g.csv")]) == 0
    assert (tmp_path / "g.csv").exists() and "g.csv" in capsys.readouterr().out
    assert main(["--course", str(course.root), "report", "a1"]) == 0
    assert (course.root / "reports" / "a1" / "index.html").exists()


def test_errors_are_one_line_and_exit_2(tmp_path, capsys):
    course = synthetic_class(tmp_path)
    assert main(["--course", str(course.root), "grade", "nope", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: assignment 'nope' is not in the gradebook; run `make release")


def test_make_targets_are_listed_in_help_and_need_an_assignment():
    out = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True).stdout
    for target in ["release", "collect", "grade", "feedback", "grades", "report"]:
        assert f"make {target} " in out
    run = subprocess.run(["make", "-s", "grade"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode != 0 and "A=<name>" in run.stdout + run.stderr


@pytest.mark.slow
def test_module_entry_point_runs_the_cli(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "attention_grader", "--help"], capture_output=True, text=True
    )
    assert run.returncode == 0 and "release" in run.stdout and "report" in run.stdout


def test_grade_has_no_switch_of_its_own_for_the_protections():
    """One place to switch the pipeline: the course config. `grade` takes no --safe or hooks."""
    parser = build_parser()
    for flag in ("--safe", "--pre", "--post", "--check", "--kernel-manager"):
        with pytest.raises(SystemExit):
            parser.parse_args(["grade", "a1", flag, "x"])


def test_installed_command_forks_workers_like_python_m(monkeypatch):
    """`attention-grader` and `python -m attention_grader` both start fresh: workers are forked."""
    from attention_grader import cli

    seen = []
    monkeypatch.setattr(cli, "_run", lambda args, fresh_process: seen.append(fresh_process) or 0)
    monkeypatch.setattr(sys, "argv", ["attention-grader", "grades"])
    assert cli.console_main() == 0
    assert cli.main(["grades"]) == 0
    assert seen == [True, False]


@pytest.mark.slow
def test_canvas_grades_name_the_students_without_a_canvas_id(tmp_path):
    """`make grades FORMAT=canvas` says whom Canvas can match only by SIS Login ID."""
    course = synthetic_class(tmp_path)
    import_roster(course, tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "attention_grader", "--course", str(course.root), "grades"]
        + ["--format", "canvas"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "grades-canvas.csv" in run.stdout
    assert "warning: No lms_user_id for cy, dee" in run.stderr
