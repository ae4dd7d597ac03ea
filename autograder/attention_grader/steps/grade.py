"""Step 3: autograde every collected submission of an assignment, in parallel, with nbgrader's API.

How it stays equal to a sequential ``nbgrader autograde`` without "database is locked":

1. The parent snapshots the SQLite gradebook once (``sqlite3`` backup API) into a private folder.
2. ``jobs`` worker processes start from a fork server that imported nbgrader once; each worker
   (:mod:`attention_grader.batch.worker`) copies the snapshot into its private gradebook.
3. Each worker grades one student at a time with nbgrader's own ``Autograde`` converter and the
   course config's pipeline unchanged (:mod:`attention_grader.pipeline`: hidden tests in the
   grader's process, student code in a sandboxed kernel), writes the autograded notebook into the
   course's ``autograded/`` as usual, then reads back the rows autograde touched and returns them.
4. The parent is the single writer: it copies those rows into the real gradebook
   (:mod:`attention_grader.batch.gradebook_sync`).

With a server database (``CourseDirectory.db_url = "postgresql://..."``) concurrent writers are
fine, so workers write to it directly and step 4 is skipped.

Faults never stop the batch: a notebook that is not JSON ends as ``error`` with a one-line reason
(the gradebook keeps what it had, exactly as after a failed ``nbgrader autograde``); a kernel that
dies or a notebook over its time budget is graded on the cells that ran and flagged; a submission
without the expected notebook is scored 0 as nbgrader does for a missing notebook. A second run
skips what is already graded (nbgrader's rule: unless resubmitted since); ``force=True`` regrades.
"""

from __future__ import annotations

import multiprocessing
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from attention_grader.batch.gradebook_sync import (
    apply_rows,
    finish,
    score_missing,
    snapshot,
    sqlite_path,
)
from attention_grader.batch.worker import (
    GradeOptions,
    GradingJob,
    WorkerResult,
    close_worker,
    crashed,
    grade_one,
    init_worker,
    over_budget,
    worker_budget,
)
from attention_grader.batch.worker_watch import WorkerWatch
from attention_grader.common.outcomes import one_line_reason, submission_outcomes
from attention_grader.common.summary import BatchSummary, SubmissionResult
from attention_grader.config.course import Course, quiet_autoflush_warning
from attention_grader.config.settings import Batch, intake_limits
from attention_grader.intake.intake import prepare_submission, visible_notebooks
from attention_grader.sandbox.sandbox import reap_kernel_folders
from attention_grader.steps.progress import Progress

__all__ = ["GradeOptions", "grade", "submitted_students"]

#: Imported once by the fork server; every worker is forked from it with these loaded.
PRELOAD = ["nbgrader.converters", "nbgrader.api", "nbclient", "attention_grader.batch.worker"]


def submitted_students(course: Course, assignment: str) -> list[str]:
    """Students with a folder ``submitted/<student>/<assignment>/`` (sorted)."""
    return sorted(
        p.parent.name for p in (course.root / "submitted").glob(f"*/{assignment}") if p.is_dir()
    )


def _missing_reason(expected: list[str], found: list[str]) -> str:
    """Why nothing could be graded: renamed, refused by the intake (see its flags), or absent."""
    want = ", ".join(f"{n}.ipynb" for n in expected)
    refused = [n for n in found if n in expected]
    found = [n for n in found if n not in expected]
    if refused:
        names = ", ".join(f"{n}.ipynb" for n in refused)
        return f"{names} was refused (a link, special file or unreadable notebook); scored 0"
    if found:
        seen = ", ".join(f"{n}.ipynb" for n in found[:3])
        return f"no {want} (found {seen}: renamed? rename it to {want} and re-collect); scored 0"
    return f"no {want} in the submission; scored 0"


def _start_method(wanted: str) -> str:
    if wanted not in ("fork", "forkserver", "spawn"):
        raise ValueError(f"start_method must be fork, forkserver or spawn, got {wanted!r}")
    return wanted if wanted in multiprocessing.get_all_start_methods() else "spawn"


def _start_fork_server(wanted: str) -> None:
    """Start the fork server now, so its nbgrader import overlaps with this process's own."""
    if _start_method(wanted) != "forkserver":
        return
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
    forkserver.ensure_running()


class _Runner:
    """Runs :func:`~attention_grader.batch.worker.grade_one` over students, reporting each result.

    Workers come from a fork server (``multiprocessing`` "forkserver") that imported nbgrader
    once, so each worker starts without paying the import again, and never inherits this
    process's state (a process that already ran kernels holds ZeroMQ contexts, which must not
    cross a ``fork``: the child's kernel channels can hang). At most ``jobs`` submissions are
    handed out at a time, so the progress knows whom it is waiting for.
    """

    def __init__(
        self,
        job: GradingJob,
        options: GradeOptions,
        on_result: Callable[[WorkerResult], None],
        total: int,
    ) -> None:
        self.job, self.options, self.on_result = job, options, on_result
        self.shown = Progress(total, enabled=options.progress)

    def done(self, res: WorkerResult) -> None:
        self.on_result(res)
        self.shown.finish(res.student, res.status, res.seconds)

    def run(self, students: list[str]) -> None:
        try:
            if self.options.jobs <= 1:
                self._in_this_process(students)
            else:
                self._in_pools(list(students))
        finally:
            self.shown.close()

    def _in_this_process(self, students: list[str]) -> None:
        init_worker(self.job)
        try:
            for student in students:
                self.shown.start(student)
                self.done(grade_one(self.job, student))
        finally:
            close_worker()

    def _in_pools(self, pending: list[str]) -> None:
        """Grade in pools: a crashed or killed worker breaks one, a new one grades the rest."""
        watch = WorkerWatch(self.job.workdir, worker_budget(self.job.course.config))
        crashes, most = 0, Batch(config=self.job.course.config).max_crashes
        while pending and crashes < most:  # the killed one may have been the last
            try:
                self._pool_round(pending, watch)
                return
            except BrokenProcessPool:
                reap_kernel_folders(self.job.course.config)  # what killed workers' kernels left
                self.shown.reset_running()
                crashes += not self._drop_over_budget(pending, watch)
        for student in list(pending):
            self.done(crashed(student))

    def _drop_over_budget(self, pending: list[str], watch: WorkerWatch) -> bool:
        """Report the students killed past their budget (flagged, never graded again)."""
        over = [s for s in list(watch.over) if s in pending]
        for student in over:
            pending.remove(student)
            self.done(over_budget(student, watch.over.pop(student)))
        return bool(over)

    def _pool_round(self, pending: list[str], watch: WorkerWatch) -> None:
        """Grade ``pending`` (removing each finished student) in one pool of ``jobs`` workers."""
        jobs = self.options.jobs
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(pending)),
            mp_context=multiprocessing.get_context(_start_method(self.options.start_method)),
            initializer=init_worker,
            initargs=(self.job,),
        ) as pool:
            queue = list(pending)
            running: dict[Future[WorkerResult], str] = {}
            while queue or running:
                while queue and len(running) < jobs:
                    student = queue.pop(0)
                    running[pool.submit(grade_one, self.job, student)] = student
                    self.shown.start(student)
                finished, _ = wait(running, timeout=2.0, return_when=FIRST_COMPLETED)
                self.shown.tick()
                watch.enforce()  # a worker past its budget is killed: the pool breaks
                for fut in finished:
                    self.done(fut.result())
                    pending.remove(running.pop(fut))


class _Collector:
    """The parent's side of a batch: the one writer of the gradebook, and every result."""

    def __init__(self, course: Course, assignment: str):
        self.course, self.assignment = course, assignment
        self.results: dict[str, SubmissionResult] = {}
        self.logs: dict[str, str] = {}
        self._gradebook = None  # opened after the workers are forked

    def gradebook(self) -> Any:
        if self._gradebook is None:
            self._gradebook = self.course.gradebook()
        return self._gradebook

    def record(self, res: WorkerResult) -> None:
        """Copy a worker's rows into the gradebook; keep its result and log."""
        if res.rows is not None:
            with quiet_autoflush_warning():
                apply_rows(self.gradebook(), self.assignment, res.student, res.rows)
        reason = res.reason
        if res.status in ("graded", "unchanged") and not reason:  # in the student's code
            folder = self.course.root / "autograded" / res.student / self.assignment
            reason = one_line_reason(submission_outcomes(folder))
        self.results[res.student] = SubmissionResult(
            res.student, res.status, reason, res.flags, seconds=res.seconds
        )
        self.logs[res.student] = res.log

    def finish(self, chosen: list[str]) -> None:
        """Scores, late flags and what waits for a teacher, from the real gradebook."""
        for student in chosen:
            finish(self.gradebook(), self.assignment, self.results[student])

    def close(self) -> None:
        if self._gradebook is not None:
            self._gradebook.close()

    def summary(self, chosen: list[str], jobs: int) -> BatchSummary:
        summary = BatchSummary(assignment=self.assignment, jobs=jobs)
        summary.results = [self.results[s] for s in chosen]
        summary.log = "".join(f"===== {s}\n{self.logs[s]}" for s in chosen if s in self.logs)
        return summary


def _expected_notebooks(course: Course, assignment: str) -> list[str]:
    """Return the assignment's notebook names, from the gradebook (released assignments only)."""
    from nbgrader.api import MissingEntry

    with course.gradebook() as gb:
        try:
            return [nb.name for nb in gb.find_assignment(assignment).notebooks]
        except MissingEntry:
            raise ValueError(
                f"assignment {assignment!r} is not in the gradebook; run `make release "
                f"A={assignment}` (nbgrader generate_assignment) first"
            ) from None


def _chosen_students(course: Course, assignment: str, students: Iterable[str] | None) -> list[str]:
    everyone = submitted_students(course, assignment)
    chosen = sorted(set(students)) if students is not None else everyone
    unknown = sorted(set(chosen) - set(everyone))
    if unknown:
        raise ValueError(f"no submissions collected for {unknown}; run `make collect` first")
    return chosen


def _intake(
    course: Course, assignment: str, expected: list[str], chosen: list[str], collector: _Collector
) -> list[str]:
    """Make each submission safe to read; score those without a gradable notebook 0.

    Returns the students left to grade. Links, special and unexpected files and unreadable
    notebooks are refused before anything reads them (the workers' nbgrader hook does it again:
    it is idempotent).
    """
    limits = intake_limits(course.config)
    to_grade = []
    with course.gradebook() as gb, quiet_autoflush_warning():
        for student in chosen:
            folder = course.root / "submitted" / student / assignment
            found = [p.stem for p in visible_notebooks(folder)]
            if prepare_submission(folder, expected, limits).notebooks:
                to_grade.append(student)
                continue
            flags = score_missing(gb, course, assignment, student)
            reason = _missing_reason(expected, found)
            collector.results[student] = SubmissionResult(student, "missing", reason, flags)
    return to_grade


def _snapshot(course: Course, workdir: str) -> str | None:
    """Return a snapshot of a SQLite gradebook for the workers to copy; None for a server one."""
    db_path = sqlite_path(course.db_url)
    if db_path is None:
        return None
    snap = Path(workdir) / "snapshot.db"
    snapshot(db_path, snap)
    return str(snap)


def _check(options: GradeOptions) -> None:
    if options.jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {options.jobs}")
    if options.jobs > 1:
        _start_fork_server(options.start_method)


def grade(
    course: Course,
    assignment: str,
    options: GradeOptions | None = None,
    students: Iterable[str] | None = None,
) -> BatchSummary:
    """Autograde the collected submissions of ``assignment``; return the batch summary.

    Every limit comes from ``course.config`` (the course's ``nbgrader_config.py``), as for
    ``nbgrader autograde``.

    Parameters
    ----------
    course : Course
    assignment : str
        Name of a released assignment (in the gradebook).
    options : GradeOptions, optional
        How the batch runs (workers, regrading, progress).
    students : iterable of str, optional
        Only these students (default: everyone under ``submitted/*/<assignment>``).

    Returns
    -------
    BatchSummary
        One :class:`SubmissionResult` per student, sorted by student.
    """
    options = options or GradeOptions()
    _check(options)
    t0 = time.perf_counter()
    collector = _Collector(course, assignment)
    expected = _expected_notebooks(course, assignment)
    chosen = _chosen_students(course, assignment, students)
    to_grade = _intake(course, assignment, expected, chosen, collector)
    with tempfile.TemporaryDirectory(
        prefix="attention-grader-", ignore_cleanup_errors=True
    ) as work:
        job = GradingJob(course, assignment, options.force, _snapshot(course, work), work)
        try:
            if to_grade:
                _Runner(job, options, collector.record, len(to_grade)).run(to_grade)
            collector.finish(chosen)
        finally:
            collector.close()
    summary = collector.summary(chosen, options.jobs)
    summary.wall_seconds = time.perf_counter() - t0
    return summary
