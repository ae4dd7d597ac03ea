"""One grading worker: autogrades one student at a time with the course's own pipeline.

Everything a worker needs travels as one frozen :class:`GradingJob`, built once by the parent
(:mod:`attention_grader.steps.grade`) and handed to :func:`grade_one` with each student. Its course
config is the course's ``nbgrader_config.py`` (plus the command line's values, written into it
by :mod:`attention_grader.cli`): nbgrader's ``Autograde`` converter reads every limit from it,
exactly as ``nbgrader autograde`` does, and the worker adds nothing to the pipeline
(:func:`attention_grader.pipeline.configure`). Everything the pipeline found is read back from
the autograded notebook's flags (:func:`attention_grader.common.flag_store.read_flags`), the one route for
flags.

A worker process keeps only resources for its lifetime (:func:`init_worker`): its private copy
of the gradebook snapshot and nbgrader's caches (:mod:`attention_grader.batch.speedups`).
"""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import nbformat
from traitlets.config import Config

from attention_grader.batch.gradebook_sync import SubmissionRows, read_rows
from attention_grader.batch.speedups import nbgrader_speedups
from attention_grader.batch.worker_watch import WorkerWatch
from attention_grader.common.flag_store import read_flags
from attention_grader.common.flags import EXIT, Flag
from attention_grader.common.flags import GRADING_BUDGET as BUDGET_FLAG
from attention_grader.config.course import Course, quiet_autoflush_warning
from attention_grader.executor.ahead import discard as discard_ahead
from attention_grader.executor.ahead import start_ahead
from attention_grader.intake.intake import visible_notebooks

__all__ = [
    "GradeOptions",
    "GradingJob",
    "WorkerResult",
    "grade_one",
    "init_worker",
    "over_budget",
]


@dataclass(frozen=True)
class GradeOptions:
    """How one batch runs. The limits it grades with are the course config's, never these.

    Attributes
    ----------
    jobs : int
        Worker processes (``make grade JOBS=N``); 1 grades in this process.
    force : bool
        Regrade submissions that are already autograded (``nbgrader autograde --force``).
    progress : bool
        Show progress on stderr.
    start_method : str
        How workers start: ``"forkserver"`` (default: from a clean server process that imported
        nbgrader once) or ``"fork"`` (from this process: no second import, but only safe in a
        process that has not run kernels itself, like the ``python -m attention_grader`` CLI).
    """

    jobs: int = 1
    force: bool = False
    progress: bool = True
    start_method: str = "forkserver"


@dataclass(frozen=True)
class GradingJob:
    """What every worker of one batch grades with, built once by the parent (picklable).

    Attributes
    ----------
    course : Course
        The course; ``course.config`` is the config nbgrader's converter runs with (every limit).
    assignment : str
    force : bool
        Regrade what is already autograded.
    snapshot : str or None
        The SQLite gradebook's snapshot each worker copies (None: a server database, written
        directly).
    workdir : str
        This batch's private folder (snapshot, worker copies, budget claims).
    """

    course: Course
    assignment: str
    force: bool
    snapshot: str | None
    workdir: str

    def config_for(self, db_url: str) -> Config:
        """Return the course config pointed at ``db_url``; the caller's config is never changed."""
        config = copy.deepcopy(self.course.config)
        config.CourseDirectory.db_url = db_url
        config.GradingExecute.print_protections = False  # `make grade` prints them once, up front
        # nbconvert checks the notebook against the schema after each of the pipeline's ~18
        # steps (CPU in every submission); its own switch checks once, after the last step, so a
        # step that breaks the notebook still stops it before it is written. The course's steps
        # are unchanged.
        config.Exporter.optimistic_validation = True
        return config


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


class _Converter(Protocol):
    """What grading one student uses of nbgrader's Autograde (as :func:`_converter_class` makes it)."""

    log: logging.Logger
    force: bool
    processed: bool | None
    failure: BaseException | None

    def start(self) -> None: ...


def _converter_class() -> Callable[..., _Converter]:
    from nbgrader.converters import Autograde

    class GraderAutograde(Autograde):
        """nbgrader's converter, remembering whether it ran and why it failed."""

        processed = None
        failure = None

        def init_destination(self, assignment_id: str, student_id: str) -> bool:
            processed: bool = super().init_destination(assignment_id, student_id)
            self.processed = processed
            if processed:  # her kernel boots while nbgrader copies and sanitises her notebook
                start_ahead(self, assignment_id, student_id)
            return processed

        def convert_single_notebook(self, notebook_filename: str) -> None:
            try:
                super().convert_single_notebook(notebook_filename)
            except Exception as exc:
                self.failure = exc
                raise

    return GraderAutograde


@dataclass
class _Resources:
    """What one worker process holds for its lifetime (no settings: those are the job's)."""

    db_url: str
    exit_stack: contextlib.ExitStack


#: This process's resources, set by :func:`init_worker`.
_PROCESS: list[_Resources] = []


def init_worker(job: GradingJob) -> None:
    """Pool initializer (nbgrader is already imported): nbgrader's caches, the gradebook copy."""
    db_url, private = job.course.db_url, None
    if job.snapshot:
        private = Path(job.workdir) / f"worker-{os.getpid()}.db"
        shutil.copyfile(job.snapshot, private)
        db_url = f"sqlite:///{private}"
    stack = contextlib.ExitStack()
    stack.enter_context(nbgrader_speedups(scratch=str(private) if private else None))
    stack.enter_context(quiet_autoflush_warning())
    _PROCESS[:] = [_Resources(db_url, stack)]


def close_worker() -> None:
    """Undo :func:`init_worker` in this process (the one-job path runs in the parent)."""
    if _PROCESS:
        _PROCESS.pop().exit_stack.close()


def _one_line(text: object, limit: int = 160) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _kernel_died(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an error it wraps, as nbclient's are) says the kernel died."""
    chain: list[BaseException] = []
    link = exc
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
def _captured_log(logger: logging.Logger) -> Iterator[io.StringIO]:
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


def grade_one(job: GradingJob, student: str) -> WorkerResult:
    """Worker task: autograde one student's submission; return status, reason, flags, rows."""
    t0 = time.perf_counter()
    db_url = _PROCESS[0].db_url
    conv = _converter(job, student, db_url)
    with _captured_log(conv.log) as log_text, WorkerWatch(job.workdir, 0).claim(student):
        try:
            error = _run_converter(conv)
        finally:
            discard_ahead()  # a kernel started ahead that no notebook took
    status, reason, flags = _outcome(job, student, conv, error)
    rows = None
    if job.snapshot and status != "unchanged":
        rows = read_rows(db_url, job.course.course_id, job.assignment, student)
    return WorkerResult(
        student, status, reason, flags, rows, time.perf_counter() - t0, log_text.getvalue()
    )


def _converter(job: GradingJob, student: str, db_url: str) -> _Converter:
    """Return nbgrader's Autograde for one student, with the course config on ``db_url``."""
    coursedir = job.course.coursedir(assignment_id=job.assignment, student_id=student)
    coursedir.db_url = db_url
    conv = _converter_class()(coursedir=coursedir, config=job.config_for(db_url))
    conv.force = job.force
    return conv


def _run_converter(conv: _Converter) -> BaseException | None:
    """Run the converter; the error that stopped it, or None. Never raises."""
    from nbgrader.converters.base import NbGraderException

    try:
        conv.start()
    except NbGraderException as exc:
        return conv.failure or exc
    except Exception as exc:  # nbgrader itself crashed: report, never stop the batch
        return exc
    return None


def _outcome(
    job: GradingJob, student: str, conv: _Converter, error: BaseException | None
) -> tuple[str, str, list[Flag]]:
    """Status, reason and flags of one converter run."""
    if error is None:
        graded_dir = job.course.root / "autograded" / student / job.assignment
        flags = [
            flag
            for nb_path in visible_notebooks(graded_dir)
            for flag in read_flags(nbformat.read(nb_path, as_version=4))
        ]
        return ("graded" if conv.processed else "unchanged"), "", flags
    sub_dir = job.course.root / "submitted" / student / job.assignment
    reason = _failure_reason(conv.failure or error, visible_notebooks(sub_dir))
    flags = []
    if _kernel_died(conv.failure or error):
        # Only with a pipeline whose executor does not survive a dead kernel (plain
        # nbgrader's Execute): the gradebook keeps what it had, and the teacher should know.
        flags.append(Flag(EXIT, "the kernel died: sys.exit / os._exit, a crash or out of memory"))
    return "error", reason, flags


def crashed(student: str) -> WorkerResult:
    """Return the result for a student whose submission kept crashing worker processes."""
    return WorkerResult(student, "error", "a grader worker process crashed on it repeatedly")


def over_budget(student: str, seconds: float) -> WorkerResult:
    """Return the result for a student whose worker the parent killed past the budget."""
    detail = (
        f"grading took longer than its budget (stopped after {seconds:.0f} s, outside the "
        "notebook's execution); the gradebook keeps what it had"
    )
    return WorkerResult(student, "error", detail, [Flag(BUDGET_FLAG, detail)])


def worker_budget(config: Config) -> float:
    """Seconds ``make grade``'s parent lets a worker spend on one submission (0 = no limit)."""
    from attention_grader.config.settings import Batch
    from attention_grader.executor.execute import GradingExecute

    seconds = GradingExecute(config=config).submission_budget
    return float(seconds) + Batch(config=config).worker_grace if seconds else 0.0
