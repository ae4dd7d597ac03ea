"""One grading worker: autogrades one student at a time with the course's own pipeline.

A worker process (or the parent, for one job) calls :func:`init_worker` once, then
:func:`grade_one` per student. Each submission goes through nbgrader's ``Autograde`` converter
configured exactly as the course config says (:func:`attention_grader.pipeline.configure`): the
worker adds nothing to the pipeline, it only points it at its private gradebook copy and gives
the options' time limits. Everything the pipeline found is read back from the autograded
notebook's flags (:func:`attention_grader.flags.read_flags`), the one route for flags.
"""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .budget import WorkerWatch
from .course import Course, quiet_autoflush_warning
from .flags import EXIT, Flag, read_flags
from .flags import GRADING_BUDGET as BUDGET_FLAG
from .gradebook_sync import SubmissionRows, read_rows
from .intake import visible_notebooks
from .speedups import nbgrader_speedups

__all__ = ["GradeOptions", "WorkerResult", "grade_one", "init_worker", "over_budget"]


@dataclass
class GradeOptions:
    """Knobs of a grading run.

    Attributes
    ----------
    jobs : int
        Worker processes (``make grade JOBS=N``); 1 grades in this process.
    force : bool
        Regrade submissions that are already autograded (``nbgrader autograde --force``).
    cell_timeout : int, optional
        Seconds per cell before the kernel is interrupted (nbgrader's ``Execute.timeout``, 30 by
        default); None keeps the course config.
    notebook_timeout : float, optional
        Seconds for a whole notebook; the cells it did not reach score 0 (flag ``timeout``).
        None keeps the course config (``GradingExecute.notebook_timeout``, 300 by default), so
        ``make grade`` and plain ``nbgrader autograde`` give a notebook the same time.
    progress : bool
        Show progress on stderr.
    start_method : str
        How workers start: ``"forkserver"`` (default: from a clean server process that imported
        nbgrader once) or ``"fork"`` (from this process: no second import, but only safe in a
        process that has not run kernels itself, like the ``python -m attention_grader`` CLI).
    """

    jobs: int = 1
    force: bool = False
    cell_timeout: int | None = None
    notebook_timeout: float | None = None
    progress: bool = True
    start_method: str = "forkserver"


@dataclass
class WorkerResult:
    """What a worker sends back for one student (picklable)."""

    student: str
    status: str
    reason: str = ""
    flags: list[Flag] = field(default_factory=list)
    rows: SubmissionRows | None = None
    seconds: float = 0.0
    log: str = ""


@dataclass
class _Worker:
    """The worker's state, set once by :func:`init_worker`."""

    course: Course
    assignment: str
    options: GradeOptions
    config: object
    converter: type
    private: bool
    db_url: str
    exit_stack: contextlib.ExitStack
    watch: WorkerWatch


_STATE: list[_Worker] = []


def _converter_class():
    from nbgrader.converters import Autograde

    class GraderAutograde(Autograde):
        """nbgrader's converter, remembering whether it ran and why it failed."""

        processed = None
        failure = None

        def init_destination(self, assignment_id, student_id):
            self.processed = super().init_destination(assignment_id, student_id)
            return self.processed

        def convert_single_notebook(self, notebook_filename):
            try:
                super().convert_single_notebook(notebook_filename)
            except Exception as exc:
                self.failure = exc
                raise

    return GraderAutograde


def init_worker(course: Course, assignment: str, options: GradeOptions,
                snapshot: str | None, workdir: str) -> None:  # fmt: skip
    """Pool initializer (nbgrader is already imported): configure, copy the gradebook snapshot."""
    config = copy.deepcopy(course.config)  # never mutate the caller's config (jobs=1 runs here)
    db_url = course.db_url
    if snapshot:
        private = Path(workdir) / f"worker-{os.getpid()}.db"
        shutil.copyfile(snapshot, private)
        db_url = f"sqlite:///{private}"
    config.CourseDirectory.db_url = db_url
    if options.cell_timeout is not None:
        config.Execute.timeout = int(options.cell_timeout)
    if options.notebook_timeout is not None:
        config.GradingExecute.notebook_timeout = math.ceil(options.notebook_timeout)
    config.GradingExecute.print_protections = False  # `make grade` prints them once, up front
    stack = contextlib.ExitStack()
    stack.enter_context(nbgrader_speedups())
    stack.enter_context(quiet_autoflush_warning())
    watch = WorkerWatch(workdir, 0)  # the parent enforces; a worker only claims
    _STATE[:] = [
        _Worker(
            course,
            assignment,
            options,
            config,
            _converter_class(),
            bool(snapshot),
            db_url,
            stack,
            watch,
        )
    ]


def close_worker() -> None:
    """Undo :func:`init_worker` in this process (the one-job path runs in the parent)."""
    if _STATE:
        _STATE.pop().exit_stack.close()


def _one_line(text, limit: int = 160) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _kernel_died(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an error it wraps, as nbclient's are) says the kernel died."""
    chain, link = [], exc
    while link is not None and len(chain) < 10:
        chain.append(link)
        link = link.__cause__ or link.__context__
    return any(
        type(e).__name__ == "DeadKernelError" or "kernel died" in str(e).lower() for e in chain
    )


def _failure_reason(exc: BaseException | None, notebooks: list[Path]) -> str:
    """One line saying why a submission could not be graded, and what to do."""
    for nb_path in notebooks:
        try:
            nbformat.read(nb_path, as_version=4)
        except Exception as err:  # the file itself is broken: say so before anything else
            return (
                f"{nb_path.name} is not a valid notebook ({_one_line(err, 80)}); ask the student"
                " to download it again from JupyterLab and resubmit"
            )
    if exc is None:
        return "nbgrader could not grade it (see grading.log in the report folder)"
    name = type(exc).__name__
    if _kernel_died(exc):
        return "the kernel died while running it (os._exit, a crash or out of memory)"
    if name == "UnresponsiveKernelError":
        return "the kernel stopped responding and could not be interrupted"
    return f"{name}: {_one_line(exc, 120)}"


@contextlib.contextmanager
def _captured_log(logger: logging.Logger):
    """Send nbgrader's log for one submission into a string (kept in grading.log), not stderr."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    saved = logger.level, logger.propagate, list(logger.handlers)
    for h in saved[2]:
        logger.removeHandler(h)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield buffer
    finally:
        logger.removeHandler(handler)
        for h in saved[2]:
            logger.addHandler(h)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


def grade_one(student: str) -> WorkerResult:
    """Worker task: autograde one student's submission; return status, reason, flags, rows."""
    from nbgrader.converters.base import NbGraderException

    w = _STATE[0]
    t0 = time.perf_counter()
    sub_dir = w.course.root / "submitted" / student / w.assignment
    coursedir = w.course.coursedir(assignment_id=w.assignment, student_id=student)
    coursedir.db_url = w.db_url
    conv = w.converter(coursedir=coursedir, config=w.config)
    conv.force = w.options.force
    error = None
    with _captured_log(conv.log) as log_text, w.watch.claim(student):
        try:
            conv.start()
        except NbGraderException as exc:
            error = conv.failure or exc
        except Exception as exc:  # nbgrader itself crashed: report, never stop the batch
            error = exc

    status, reason = ("graded", "") if conv.processed else ("unchanged", "")
    flags: list[Flag] = []
    if error is not None:
        status = "error"
        reason = _failure_reason(conv.failure or error, visible_notebooks(sub_dir))
        if _kernel_died(conv.failure or error):
            # Only with a pipeline whose executor does not survive a dead kernel (plain
            # nbgrader's Execute): the gradebook keeps what it had, and the teacher should know.
            flags.append(
                Flag(EXIT, "the kernel died: sys.exit / os._exit, a crash or out of memory")
            )
    else:
        graded_dir = w.course.root / "autograded" / student / w.assignment
        for nb_path in visible_notebooks(graded_dir):
            flags += read_flags(nbformat.read(nb_path, as_version=4))
    rows = None
    if w.private and status != "unchanged":
        rows = read_rows(w.db_url, w.course.course_id, w.assignment, student)
    return WorkerResult(
        student, status, reason, flags, rows, time.perf_counter() - t0, log_text.getvalue()
    )


def crashed(student: str) -> WorkerResult:
    """The result for a student whose submission kept crashing worker processes."""
    return WorkerResult(student, "error", "a grader worker process crashed on it repeatedly")


def over_budget(student: str, seconds: float) -> WorkerResult:
    """The result for a student whose worker ``make grade``'s parent killed past the budget."""
    detail = (
        f"grading took longer than its budget (stopped after {seconds:.0f} s, outside the "
        "notebook's execution); the gradebook keeps what it had"
    )
    return WorkerResult(student, "error", detail, [Flag(BUDGET_FLAG, detail)])


def worker_budget(config) -> float:
    """Seconds ``make grade``'s parent lets a worker spend on one submission (0 = no limit)."""
    from .budget import WORKER_GRACE
    from .execute import GradingExecute

    default = GradingExecute.class_traits()["submission_budget"].default_value
    seconds = config.get("GradingExecute", {}).get("submission_budget", default)
    return float(seconds) + WORKER_GRACE if seconds else 0.0
