"""``python -m attention_grader <step> ...``: the command line the ``make`` targets call.

Steps, in the order a teacher uses them: ``release``, ``collect``, ``grade``, ``feedback``,
``grades``, ``report``; ``gain`` compares a pre-test with a post-test. Each prints one short
result (``grade`` prints the batch summary table).
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attention_grader.common.flags import Flag

from attention_grader.batch.shards import parse_shard
from attention_grader.common.safe_text import printable
from attention_grader.config.course import Course, GradingStepError, load_course
from attention_grader.config.settings import Protections
from attention_grader.limits import GRADE_ALIASES, alias_help, apply_aliases
from attention_grader.reports.gain_page import write_gain
from attention_grader.reports.report import write_report
from attention_grader.steps.collect import collect_report
from attention_grader.steps.feedback import feedback_report
from attention_grader.steps.grade import GradeOptions, grade, submitted_students
from attention_grader.steps.grades import FORMATS, write_grades
from attention_grader.steps.release import due_line, release

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Build the command line: the course options and one sub-command per grading step."""
    p = argparse.ArgumentParser(
        prog="python -m attention_grader",
        description=__doc__,
        epilog="Any setting of the course config may follow, as for nbgrader's own commands: "
        "--Class.trait=value (e.g. --Intake.max_cells=500); it wins over every config file.",
    )
    p.add_argument("--course", help="course directory (default: $ATTENTION_LAB_COURSE or .)")
    p.add_argument("--exchange", help="exchange folder (default: nbgrader_config.py's)")
    p.add_argument("--db-url", help="gradebook URL, e.g. postgresql://user@host/grades")
    sub = p.add_subparsers(dest="step", required=True, metavar="STEP")

    s = sub.add_parser("release", help="generate the student version and release it")
    s.add_argument("assignment")
    s.add_argument(
        "--due",
        help='due date, e.g. "2026-12-07 17:00" (in c.CourseTime.timezone) or '
        '"2026-12-07 17:00 Asia/Kolkata"',
    )

    s = sub.add_parser("collect", help="collect submissions from the exchange")
    s.add_argument("assignment")

    s = sub.add_parser("grade", help="autograde collected submissions in parallel")
    s.add_argument("assignment")
    s.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    s.add_argument("--force", action="store_true", help="regrade already autograded submissions")
    s.add_argument("--student", action="append", help="only this student (repeatable)")
    s.add_argument(
        "--shard",
        help='only shard I of N of the class (sorted ids, round-robin), e.g. "0/4": one pod of '
        "a Kubernetes Indexed Job each (docs/kubernetes.md); needs a PostgreSQL gradebook",
    )
    for flag in GRADE_ALIASES:  # each writes one course-config value, as nbgrader's aliases do
        s.add_argument(f"--{flag.replace('_', '-')}", type=int, help=alias_help(flag))
    s.add_argument("--no-progress", action="store_true", help="no progress bar")

    s = sub.add_parser("feedback", help="generate and release feedback")
    s.add_argument("assignment")
    s.add_argument(
        "--partial",
        action="store_true",
        help="release although some written answers are not graded yet (they say so)",
    )

    s = sub.add_parser("grades", help="write the grades CSV (one row per student and assignment)")
    s.add_argument("--out", help="CSV path (default: <course>/grades.csv, grades-canvas.csv)")
    s.add_argument(
        "--format", default="csv", choices=FORMATS, help="csv (default) or canvas (LMS import)"
    )

    s = sub.add_parser("report", help="class report: difficulty, distribution, misconceptions")
    s.add_argument("assignment")
    s.add_argument("--out", help="folder (default: <course>/reports/<assignment>)")

    s = sub.add_parser("gain", help="learning gain: a pre-test and a post-test compared")
    s.add_argument("pre", help="the pre-test assignment, e.g. inventory_pre")
    s.add_argument("post", help="the post-test assignment, e.g. inventory_post")
    s.add_argument("--out", help="folder (default: <course>/reports/gain)")
    return p


def _sandboxed(course: Course) -> bool:
    """Whether the course config's pipeline starts student kernels in the sandbox."""
    from attention_grader.executor.execute import GradingExecute

    steps = course.config.Autograde.get("autograde_preprocessors", [])
    if (
        GradingExecute not in steps
        and "attention_grader.executor.execute.GradingExecute" not in steps
    ):
        return False
    return bool(GradingExecute(config=course.config).sandbox_kernels)


def _chosen(course: Course, args: argparse.Namespace) -> tuple[list[str] | None, Path]:
    """Whom ``grade`` grades (None: everyone collected) and where its summary goes.

    With ``--shard I/N`` several processes write one gradebook at once, which SQLite cannot
    take, and each writes its summary into its own ``reports/<a>/shard-I-of-N/`` folder.
    """
    reports = course.root / "reports" / args.assignment
    if not args.shard:
        return args.student, reports
    shard = parse_shard(args.shard)
    if shard.count > 1 and course.db_url.startswith("sqlite"):
        raise ValueError(
            f"--shard {args.shard}: {shard.count} shards write one gradebook at once, which "
            "SQLite cannot take (database is locked); give a PostgreSQL gradebook "
            "(--db-url postgresql://... or CourseDirectory.db_url), or grade without --shard"
        )
    everyone = args.student or submitted_students(course, args.assignment)
    picked = shard.pick(everyone)
    print(f"shard {shard.index}/{shard.count}: {len(picked)} of {len(set(everyone))} submission(s)")
    return picked, reports / shard.label()


def _announce_protections(course: Course) -> None:
    """Say plainly what is on and what is off; in a Kubernetes pod, refuse without the walls.

    The report is for the kernel manager the course config sets up (a config that switches
    the sandbox off shows it OFF, and a pod refuses it).
    """
    from attention_grader.sandbox.protections import (
        format_protections,
        pod_refusal,
        protections,
        unsandboxed_refusal,
    )
    from attention_grader.sandbox.sandbox import SandboxedKernelManager

    sandboxed = _sandboxed(course)
    items = protections(SandboxedKernelManager(config=course.config)) if sandboxed else []
    allow = Protections(config=course.config).allow_unsandboxed_in_pod
    if sandboxed:
        print(format_protections(items, allow=allow), flush=True)
    else:
        print(
            "WARNING: the course config does not install the grading pipeline "
            "(attention_grader.pipeline.configure): hidden tests run in students' kernels.",
            flush=True,
        )
    setting = SandboxedKernelManager(config=course.config).sandbox
    refusal = pod_refusal(items, sandboxed=sandboxed, allow=allow) or unsandboxed_refusal(
        items, sandboxed, setting
    )
    if refusal:
        raise GradingStepError(refusal)


def _print_flags(flags: dict[str, list[Flag]]) -> None:
    """One line per refused file, under its (printable) student id: see attention_grader.intake.intake."""
    for student, items in sorted(flags.items()):
        for flag in items:
            print(f"  {printable(student)}: {printable(flag)}")


def _grade(course: Course, args: argparse.Namespace, fresh_process: bool) -> None:
    """``grade``: its limit flags go into the course config, which the workers grade with."""
    apply_aliases(course.config, vars(args))
    options = GradeOptions(
        jobs=args.jobs,
        force=args.force,
        progress=not args.no_progress,
        # A fresh `python -m attention_grader` has run no kernel, so forking it is safe and
        # skips the fork server's second nbgrader import.
        start_method="fork" if fresh_process else "forkserver",
    )
    students, reports = _chosen(course, args)
    _announce_protections(course)
    summary = grade(course, args.assignment, options, students=students)
    print(summary.table())
    js, _ = summary.write(reports)
    print(f"summary: {js} (+ .csv; log added to grading.log)")


def _release(course: Course, args: argparse.Namespace) -> None:
    release(course, args.assignment, args.due)
    print(f"released {args.assignment} to {course.exchange}")
    print(due_line(course, args.assignment, args.due))


def _collect(course: Course, args: argparse.Namespace) -> None:
    done = collect_report(course, args.assignment)
    print(f"collected {len(done.students)} submission(s) of {printable(args.assignment)}")
    for line in done.refused:
        print(f"  {line}")
    if done.refused:
        print(
            f"  {len(done.refused)} refused, kept in quarantine/refused/"
            f'{printable(args.assignment)}/: see docs/teachers.md, "Refused submissions"'
        )
    if done.recorded:
        print(f"  {done.recorded} new in submission_history/{printable(args.assignment)}.csv (each submission received or refused; the report lists them)")  # fmt: skip
    _print_flags(done.flags)


def _feedback(course: Course, args: argparse.Namespace) -> None:
    done = feedback_report(course, args.assignment, partial=args.partial)
    print(f"released feedback for {len(done.released)} student(s) of {args.assignment}")
    if done.ungraded:
        print(f'  {len(done.ungraded)} of them with answers marked "not graded yet"')
    for student, reason in sorted(done.withheld.items()):  # already printable
        print(f"  not released: {student}: {reason}")
    _print_flags(done.flags)


#: Each step's own function (``grade`` also needs to know whether this process is fresh).
STEPS: dict[str, Callable[[Course, argparse.Namespace], None]] = {
    "release": _release,
    "collect": _collect,
    "feedback": _feedback,
    "grades": lambda course, a: print(f"wrote {write_grades(course, a.out, a.format)}"),
    "report": lambda course, a: print(f"wrote {write_report(course, a.assignment, a.out)}"),
    "gain": lambda course, a: print(f"wrote {write_gain(course, a.pre, a.post, a.out)}"),
}


_SETTING = re.compile(r"--[A-Za-z_]\w*\.[A-Za-z_]\w*(=.*)?", re.DOTALL)


def _settings(parser: argparse.ArgumentParser, unknown: list[str]) -> list[str]:
    """Return the ``--Class.trait=value`` settings among ``unknown``; exit on anything else.

    They go to the one config door with the course's files, so ``make grade
    GRADE_ARGS="--Intake.max_cells=500"`` and ``nbgrader autograde --Intake.max_cells=500`` read
    the same value.
    """
    settings, rest = [], iter(unknown)
    for arg in rest:
        match = _SETTING.fullmatch(arg)
        if match is None:
            parser.error(f"unrecognized argument {printable(arg)!r}: a setting is --Class.trait=value")  # fmt: skip
        settings.append(arg if match.group(1) else f"{arg}={next(rest, '')}")
    return settings


def _run(args: argparse.Namespace, fresh_process: bool) -> int:
    course = load_course(
        args.course, exchange=args.exchange, db_url=args.db_url, settings=args.settings
    )
    if args.step == "grade":
        _grade(course, args, fresh_process)
    else:
        STEPS[args.step](course, args)
    return 0


def _show_warnings() -> None:
    """Print the steps' logged warnings (``warning: ...`` on stderr), once per process."""
    logger = logging.getLogger("attention_grader")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("warning: %(message)s"))
        handler.setLevel(logging.WARNING)
        logger.addHandler(handler)


def main(argv: list[str] | None = None, *, fresh_process: bool = False) -> int:
    """Run one step. ``fresh_process``: called from ``__main__`` (nothing ran before us)."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    args.settings = _settings(parser, unknown)
    if fresh_process:  # a library caller (or a test) keeps its own logging set-up
        _show_warnings()
    try:
        return _run(args, fresh_process)
    except (GradingStepError, FileNotFoundError, ValueError) as err:
        print(f"error: {printable(err, keep_newlines=True)}", file=sys.stderr)
        return 2


def console_main() -> int:
    """Run the installed ``attention-grader`` command: a fresh process, like ``python -m``."""
    return main(fresh_process=True)
