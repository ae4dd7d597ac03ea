"""Step 3: autograde every collected submission of an assignment, in parallel, with nbgrader's API.

How it stays equal to a sequential ``nbgrader autograde`` without "database is locked":

1. The parent snapshots the SQLite gradebook once (``sqlite3`` backup API) into a private folder.
2. ``jobs`` worker processes start from a fork server that imported nbgrader once; each worker
   (:mod:`attention_grader.worker`) copies the snapshot into its private gradebook.
3. Each worker grades one student at a time with nbgrader's own ``Autograde`` converter and the
   course config's pipeline unchanged (:mod:`attention_grader.pipeline`: hidden tests in the
   grader's process, student code in a sandboxed kernel), writes the autograded notebook into the
   course's ``autograded/`` as usual, then reads back the rows autograde touched and returns them.
4. The parent is the single writer: it copies those rows into the real gradebook
   (:mod:`attention_grader.gradebook_sync`).

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
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .budget import WorkerWatch
from .course import Course, quiet_autoflush_warning
from .gradebook_sync import apply_rows, finish, score_missing, snapshot, sqlite_path
from .intake import prepare_submission, visible_notebooks
from .outcomes import one_line_reason, submission_outcomes
from .progress import Progress
from .summary import BatchSummary, SubmissionResult
from .worker import (
    GradeOptions,
    WorkerResult,
    close_worker,
    crashed,
    grade_one,
    init_worker,
    over_budget,
    worker_budget,
)

__all__ = ["GradeOptions", "grade", "submitted_students"]

#: Imported once by the fork server; every worker is forked from it with these loaded.
PRELOAD = ["nbgrader.converters", "nbgrader.api", "nbclient", "attention_grader.worker"]


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


def _run_tasks(students, initargs, jobs, on_result, progress, start_method="forkserver") -> None:
    """Run :func:`~attention_grader.worker.grade_one` over ``students``, calling ``on_result``.

    Workers come from a fork server (``multiprocessing`` "forkserver") that imported nbgrader
    once, so each worker starts in milliseconds instead of paying the import again, and never
    inherits this process's state (a process that already ran kernels holds ZeroMQ contexts,
    which must not cross a ``fork``: the child's kernel channels can hang). At most ``jobs``
    submissions are handed out at a time, so the progress knows whom it is waiting for.
    """
    if not students:
        return
    shown = Progress(len(students), enabled=progress)

    def done(res: WorkerResult) -> None:
        on_result(res)
        shown.finish(res.student, res.status, res.seconds)

    try:
        if jobs <= 1:
            init_worker(*initargs)
            try:
                for student in students:
                    shown.start(student)
                    done(grade_one(student))
            finally:
                close_worker()
            return
        pending = list(students)
        watch = WorkerWatch(initargs[4], worker_budget(initargs[0].config))
        crashes = 0
        while crashes < 3:  # a crashed or killed worker breaks the pool: a new one for the rest
            try:
                _pool_round(pending, initargs, jobs, start_method, done, shown, watch)
                return
            except BrokenProcessPool:
                shown.reset_running()
                over = [s for s in list(watch.over) if s in pending]
                for student in over:  # killed past its budget: flagged, never graded again
                    pending.remove(student)
                    done(over_budget(student, watch.over.pop(student)))
                crashes += not over
        for student in list(pending):
            done(crashed(student))
    finally:
        shown.close()


def _pool_round(pending, initargs, jobs, start_method, done, shown, watch) -> None:
    """Grade ``pending`` (removing each finished student) in one pool of ``jobs`` workers."""
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(pending)),
        mp_context=multiprocessing.get_context(_start_method(start_method)),
        initializer=init_worker,
        initargs=initargs,
    ) as pool:
        queue, running = list(pending), {}
        while queue or running:
            while queue and len(running) < jobs:
                student = queue.pop(0)
                running[pool.submit(grade_one, student)] = student
                shown.start(student)
            finished, _ = wait(running, timeout=2.0, return_when=FIRST_COMPLETED)
            shown.tick()
            watch.enforce()  # a worker past its budget is killed: the pool breaks, see above
            for fut in finished:
                done(fut.result())
                pending.remove(running.pop(fut))


def grade(
    course: Course,
    assignment: str,
    options: GradeOptions | None = None,
    students: Iterable[str] | None = None,
) -> BatchSummary:
    """Autograde the collected submissions of ``assignment``; return the batch summary.

    Parameters
    ----------
    course : Course
    assignment : str
        Name of a released assignment (in the gradebook).
    options : GradeOptions, optional
    students : iterable of str, optional
        Only these students (default: everyone under ``submitted/*/<assignment>``).

    Returns
    -------
    BatchSummary
        One :class:`SubmissionResult` per student, sorted by student.
    """
    options = options or GradeOptions()
    if options.jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {options.jobs}")
    if options.jobs > 1:
        _start_fork_server(options.start_method)
    from nbgrader.api import MissingEntry

    t0 = time.perf_counter()
    with course.gradebook() as gb:
        try:
            expected = [nb.name for nb in gb.find_assignment(assignment).notebooks]
        except MissingEntry:
            raise ValueError(
                f"assignment {assignment!r} is not in the gradebook; run `make release "
                f"A={assignment}` (nbgrader generate_assignment) first"
            ) from None
    everyone = submitted_students(course, assignment)
    chosen = sorted(set(students)) if students is not None else everyone
    unknown = sorted(set(chosen) - set(everyone))
    if unknown:
        raise ValueError(f"no submissions collected for {unknown}; run `make collect` first")

    summary = BatchSummary(assignment=assignment, jobs=options.jobs)
    results: dict[str, SubmissionResult] = {}
    to_grade = []
    with course.gradebook() as gb, quiet_autoflush_warning():
        for student in chosen:
            folder = course.root / "submitted" / student / assignment
            found = [p.stem for p in visible_notebooks(folder)]
            # Refuse links, special and unexpected files, unreadable notebooks before anything
            # reads them (the workers' nbgrader hook does it again: it is idempotent).
            intake = prepare_submission(folder, expected)
            if not intake.notebooks:
                flags = score_missing(gb, course, assignment, student)
                reason = _missing_reason(expected, found)
                results[student] = SubmissionResult(student, "missing", reason, flags)
            else:
                to_grade.append(student)

    db_path = sqlite_path(course.db_url)
    workdir = tempfile.mkdtemp(prefix="attention-grader-")
    try:
        snap = None
        if db_path is not None:
            snap = os.path.join(workdir, "snapshot.db")
            snapshot(db_path, Path(snap))
        initargs = (course, assignment, options, snap, workdir)
        logs: dict[str, str] = {}
        writer = []  # the parent's gradebook, opened after the workers are forked

        def gb():
            if not writer:
                writer.append(course.gradebook())
            return writer[0]

        def on_result(res: WorkerResult) -> None:
            if res.rows is not None:
                with quiet_autoflush_warning():
                    apply_rows(gb(), assignment, res.student, res.rows)
            reason = res.reason
            if res.status in ("graded", "unchanged") and not reason:  # in the student's code
                folder = course.root / "autograded" / res.student / assignment
                reason = one_line_reason(submission_outcomes(folder))
            results[res.student] = SubmissionResult(
                res.student, res.status, reason, res.flags, seconds=res.seconds
            )
            logs[res.student] = res.log

        try:
            _run_tasks(
                to_grade, initargs, options.jobs, on_result, options.progress, options.start_method
            )
            for student in chosen:
                finish(gb(), assignment, results[student])
        finally:
            for book in writer:
                book.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    summary.results = [results[s] for s in chosen]
    summary.log = "".join(f"===== {s}\n{logs[s]}" for s in chosen if s in logs)
    summary.wall_seconds = time.perf_counter() - t0
    return summary
