"""attention_grader.cli: the command line the make targets call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from attention_grader.cli import build_parser, main
from grading_course import synthetic_class

REPO = Path(__file__).resolve().parents[1]


def test_grade_options_and_hooks_are_parsed():
    args = build_parser().parse_args(
        ["--course", "/c", "grade", "a1", "-j", "4", "--force", "--cell-timeout", "20",
         "--kernel-wrapper", "attention_grader.sandbox.wrap", "--pre", "m.P", "--check", "m.c"]
    )  # fmt: skip
    assert (args.step, args.assignment, args.jobs, args.force) == ("grade", "a1", 4, True)
    assert args.cell_timeout == 20 and args.kernel_wrapper == "attention_grader.sandbox.wrap"
    assert (args.pre, args.post, args.check) == (["m.P"], [], ["m.c"])


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


def test_module_entry_point_runs_the_cli(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "attention_grader", "--help"], capture_output=True, text=True
    )
    assert run.returncode == 0 and "release" in run.stdout and "report" in run.stdout


def test_safe_starts_from_the_sandbox_and_tamper_hooks():
    from attention_grader.cli import _hooks
    from attention_grader.tamper import grade_hooks

    args = build_parser().parse_args(["grade", "a1", "--safe", "--check", "m.extra"])
    hooks, safe = _hooks(args), grade_hooks()
    assert hooks.kernel_manager_class == safe.kernel_manager_class
    assert hooks.pre_execute == safe.pre_execute and hooks.post_execute == safe.post_execute
    assert hooks.post_checks == [*safe.post_checks, "m.extra"]
    plain = _hooks(build_parser().parse_args(["grade", "a1"]))
    assert plain.kernel_manager_class is None and plain.pre_execute == []
