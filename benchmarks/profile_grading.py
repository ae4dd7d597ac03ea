"""Where one submission's grading time goes: ``python -m benchmarks.profile_grading [N [JOBS [SETTING...]]]``.

Not a ``bench_*`` row (it changes nothing the table judges): it builds the benchmark's course
(``bench_grading``) with ``N`` submissions (default 6), grades them with ``JOBS`` workers (default
1; each ``SETTING``, e.g. ``GradingExecute.start_kernel_ahead=False``, is added to the course
config) and prints, per step, how many times it ran and its wall time per submission. Every
process of the grading (this one, the budget's forked child) appends its spans to one file, so
the steps inside the child (kernel start, bubblewrap, cells, trusted checks) are timed too.

Each step is a function wrapped for the run (sync or async): the wrappers are the only change.
The figures written up from it go to ``benchmarks/profile_grading.md``.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import importlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (module, attribute path) of each step timed, in the order they happen.
STEPS: list[tuple[str, str]] = [
    ("attention_grader.batch.worker", "init_worker"),
    ("attention_grader.batch.worker", "grade_one"),
    ("nbgrader.converters.autograde", "Autograde._init_preprocessors"),
    ("attention_grader.intake.intake_guard", "intake_hook"),
    ("attention_grader.executor.ahead", "start_ahead"),
    ("attention_grader.executor.ahead", "_start_kernel"),
    ("nbgrader.converters.autograde", "Autograde.init_assignment"),
    ("nbgrader.converters.base", "BaseConverter.init_single_notebook_resources"),
    ("nbconvert.exporters.exporter", "Exporter.from_filename"),
    ("nbconvert.preprocessors.base", "Preprocessor.__call__"),
    ("nbconvert.exporters.exporter", "Exporter._validate_preprocessor"),
    ("attention_grader.executor.execute", "GradingExecute.preprocess"),
    ("attention_grader.executor.execute", "run_within"),
    ("multiprocessing.process", "BaseProcess.start"),
    ("multiprocessing.process", "BaseProcess.join"),
    ("attention_grader.executor.execute", "notebook_checker"),
    ("attention_grader.executor.execute", "adopt"),
    ("nbclient.client", "NotebookClient.start_new_kernel"),
    ("jupyter_client.manager", "AsyncKernelManager.start_kernel"),
    ("attention_grader.sandbox.sandbox_launch", "LaunchPlan.build"),
    ("attention_grader.sandbox.sandbox_launch", "copy_submission"),
    ("attention_grader.sandbox.sandbox_launch", "_seed_matplotlib_cache"),
    ("attention_grader.sandbox.sandbox_launch", "_chown_tree"),
    ("jupyter_client.manager", "AsyncKernelManager._async_launch_kernel"),
    ("nbclient.client", "NotebookClient.start_new_kernel_client"),
    ("attention_grader.wire.kernel_client", "CappedKernelClient.wait_for_ready"),
    ("nbclient.client", "NotebookClient.execute_cell"),
    ("nbclient.client", "NotebookClient.async_execute_cell"),
    ("attention_grader.executor.execute", "GradingExecute._trusted_test"),
    ("attention_grader.executor.execute", "GradingExecute._run_request"),
    ("attention_grader.checking.trusted", "TrustedChecker.run_locked"),
    ("nbclient.client", "NotebookClient._cleanup_kernel"),
    ("nbclient.client", "NotebookClient._async_cleanup_kernel"),
    ("jupyter_client.manager", "AsyncKernelManager.shutdown_kernel"),
    ("nbgrader.converters.base", "BaseConverter.write_single_notebook"),
    ("attention_grader.common.flag_store", "read_flags"),
    ("attention_grader.batch.gradebook_sync", "read_rows"),
    ("attention_grader.batch.gradebook_sync", "apply_rows"),
]


def _wrap(log: str, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def record(t0: float, label: str = name) -> None:
        line = json.dumps({"pid": os.getpid(), "step": label, "s": time.perf_counter() - t0})
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    if asyncio.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                record(t0)

        return timed_async

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            # a preprocessor is labelled by its class: each of the pipeline's steps
            record(t0, f"  {type(args[0]).__name__}" if name.endswith("__call__") else name)

    return timed


def _instrument(log: str) -> None:
    for module_name, path in STEPS:
        owner: Any = importlib.import_module(module_name)
        *parents, attr = path.split(".")
        for part in parents:
            owner = getattr(owner, part)
        fn = getattr(owner, attr, None)
        if fn is None:
            raise AttributeError(f"{module_name}.{path} is gone: update STEPS")
        setattr(owner, attr, _wrap(log, path, fn))
    # modules that imported a wrapped function by name see the wrapper too
    import attention_grader.batch.worker as worker
    import attention_grader.steps.grade as grade

    grade.grade_one, grade.init_worker = worker.grade_one, worker.init_worker
    grade.apply_rows = importlib.import_module("attention_grader.batch.gradebook_sync").apply_rows
    worker.read_flags = importlib.import_module("attention_grader.common.flag_store").read_flags
    worker.read_rows = importlib.import_module("attention_grader.batch.gradebook_sync").read_rows
    worker.start_ahead = importlib.import_module("attention_grader.executor.ahead").start_ahead


def _table(log: str, n: int, wall: float) -> str:
    per: dict[str, list[float]] = collections.defaultdict(list)
    for line in Path(log).read_text().splitlines():
        span = json.loads(line)
        per[span["step"]].append(span["s"])
    rows = [f"{'step':58} {'calls':>5} {'s/submission':>12}"]
    for path, s in per.items():
        rows.append(f"{path:58} {len(s):5d} {sum(s) / n:12.3f}")
    rows.append(f"{'grade() wall, whole batch':58} {'':5} {wall / n:12.3f}")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    """Build the course, grade it with every step timed, print the table."""
    n = int(argv[0]) if argv else 6
    jobs = int(argv[1]) if len(argv) > 1 else 1
    os.environ["ATTENTION_BENCH_SUBMISSIONS"] = str(n)
    from benchmarks import bench_grading

    tmp = Path(tempfile.mkdtemp(prefix="profile-grading-"))
    root = bench_grading._build_course(tmp / "course")
    for setting in argv[2:]:  # e.g. GradingExecute.start_kernel_ahead=False, to compare
        with open(root / "nbgrader_config.py", "a") as fh:
            fh.write(f"c.{setting}\n")
    log = str(tmp / "spans.jsonl")
    _instrument(log)
    from attention_grader.config.course import load_course
    from attention_grader.steps.grade import GradeOptions, grade

    course = load_course(root)
    t0 = time.perf_counter()
    summary = grade(
        course,
        bench_grading.ASSIGNMENT,
        GradeOptions(jobs=jobs, progress=False, start_method="fork"),
    )
    wall = time.perf_counter() - t0
    statuses = collections.Counter(r.status for r in summary.results)
    print(
        f"{n} submissions, {jobs} job(s), statuses {dict(statuses)}, load {os.getloadavg()[0]:.1f}"
    )
    print(_table(log, n, wall))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
