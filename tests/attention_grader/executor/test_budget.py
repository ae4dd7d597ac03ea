"""The grading budget (attention_grader.executor.budget): the grader's own work is bounded from outside.

A notebook's grading (the student's cells, reading their answers, the checks) runs in a forked
child that its parent kills when the submission's budget is spent, even in the middle of C code
that never checks for signals (rebuilding a set whose hashes all collide). The cells finished
before are kept; the rest score 0 and the submission is flagged ``grading_budget``; the rest of
the class is graded, under ``make grade`` and plain ``nbgrader autograde`` alike.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from attacks.batch import (
    ASSIGNMENT,
    MAX_SCORE,
    Attack,
    _grade_in_parallel,
    _grade_with_nbgrader,
    _make_courses,
    _scores,
    submission,
)
from attention_grader.common.flag_store import read_flags
from attention_grader.executor.budget import GraderCrashed, run_within
from attention_grader.executor.execution_stops import GRADING_BUDGET

COLLIDING = [k * (2**61 - 1) for k in range(1, 300_001)]  # set() of these: many minutes


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_result_and_each_reported_cell_come_back():
    def work(report):
        report.cell(0, {"cell_type": "code", "source": "x"})
        return {"graded": True}

    outcome = run_within(30, work)
    assert not outcome.over_budget
    assert outcome.result == {"graded": True} and outcome.cells == {
        0: {"cell_type": "code", "source": "x"}
    }


def test_what_the_work_raised_is_raised_in_the_parent():
    def work(report):
        raise KeyError("no such notebook")

    with pytest.raises(KeyError, match="no such notebook"):
        run_within(30, work)


def test_a_child_that_dies_says_so():
    def work(report):
        os._exit(3)

    with pytest.raises(GraderCrashed, match="exit code 3"):
        run_within(30, work)


@pytest.mark.slow
def test_past_the_deadline_the_child_and_its_kernel_are_killed_even_inside_c_code(tmp_path):
    """The child reports a cell and a 'kernel', then rebuilds a colliding set (quadratic, in C):
    the parent kills both at the deadline and keeps the cell.
    """
    pid_file = tmp_path / "kernel.pid"

    def work(report):
        kernel = subprocess.Popen(["sleep", "600"], start_new_session=True)
        pid_file.write_text(str(kernel.pid))
        report.kernel(kernel.pid)
        report.cell(0, {"cell_type": "code", "source": "done"})
        return len(set(COLLIDING))

    outcome = run_within(2, work)
    assert outcome.over_budget and outcome.cells == {0: {"cell_type": "code", "source": "done"}}
    kernel = int(pid_file.read_text())
    with pytest.raises(ChildProcessError):  # not our child: it was the forked grader's
        os.waitpid(kernel, os.WNOHANG)
    assert _ends(kernel)


def _ends(pid: int, within: float = 120.0) -> bool:
    """Whether ``pid`` exits (gone, or a zombie waiting for init) within ``within`` seconds."""
    import time

    stop = time.monotonic() + within
    while time.monotonic() < stop:
        if not _alive(pid) or _zombie(pid):
            return True
        time.sleep(0.05)
    return False


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


# --------------------------------------------------------------------------- a class, both routes

SLOW = Attack(
    name="slow_grading",
    doc="Cells that together outlast the grading budget (each under the cell limit)",
    answers={},
    extra_cells=[{"after": "test_q1", "source": "import time\ntime.sleep(5)"}] * 8,
)
HONEST = Attack(name="honest_full", doc="honest", answers={})
BUDGET = 20


ROUTES = ("nbgrader", "parallel")


def _hand_in(root: Path, kernels: Path) -> None:
    kernels.mkdir()  # where each kernel's private folder (and its sockets) is made
    with open(root / "nbgrader_config.py", "a") as fh:
        fh.write(f"c.GradingExecute.submission_budget = {BUDGET}\n")
        fh.write(f"c.SandboxedKernelManager.control_root = {str(kernels)!r}\n")
    released = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student in (SLOW, HONEST):
        folder = root / "submitted" / student.name / ASSIGNMENT
        folder.mkdir(parents=True)
        nb = submission(released, student, {"port": 0, "course": str(root), "token": "x"})
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
        (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")


def _results(root: Path, kernels: Path) -> tuple[dict, dict, dict, Path]:
    scores = _scores(root, [SLOW.name, HONEST.name])
    graded = {
        s: nbformat.read(root / "autograded" / s / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
        for s in (SLOW.name, HONEST.name)
    }
    return scores, {s: read_flags(nb) for s, nb in graded.items()}, graded, kernels


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    """The class graded by each route, the two side by side: most of a route's time is the slow
    submission's budget running out (a wait, not work), so the two waits overlap. The
    assignment is generated once, for both courses.
    """
    short = Path(tempfile.mkdtemp(prefix="t-"))  # a kernel socket's path has at most 107 bytes
    try:
        roots = dict(zip(ROUTES, _make_courses(tmp_path_factory.mktemp("budget"), 2), strict=True))
        for route, root in roots.items():
            _hand_in(root, short / route)
        with ThreadPoolExecutor(1) as pool:  # make grade's pool wants the main thread
            nbgrader = pool.submit(_grade_with_nbgrader, [roots["nbgrader"]])
            _grade_in_parallel([roots["parallel"]])
            nbgrader.result()
        yield {route: _results(root, short / route) for route, root in roots.items()}
    finally:
        shutil.rmtree(short, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
def test_a_submission_over_its_budget_is_stopped_flagged_and_the_class_is_graded(classes, route):
    scores, flags, graded, kernels = classes[route]
    assert scores[HONEST.name] == MAX_SCORE and flags[HONEST.name] == []
    # q1 was graded before the slow cells: its point stays; q2 and q3 were not reached.
    assert scores[SLOW.name] == 1
    kinds = {f.kind: f.detail for f in flags[SLOW.name]}
    assert "grading_budget" in kinds, flags[SLOW.name]
    assert f"longer than its {BUDGET} s budget" in kinds["grading_budget"]
    assert "\n" not in kinds["grading_budget"]
    names = [o.get("ename") for c in graded[SLOW.name].cells for o in c.get("outputs", [])]
    assert GRADING_BUDGET in names
    assert signal.SIGKILL  # the child was killed, not asked: nothing it ran could refuse
    # ... so it could not remove its kernel's folder (a copy of the submission): the grader did
    assert list(kernels.iterdir()) == []


def test_make_grades_parent_kills_a_worker_tree_past_its_budget(tmp_path):
    """A claim older than the budget: the worker and every process under it are killed and the
    student is remembered (grade.py then replaces the pool and flags the student).
    """
    from attention_grader.batch.worker import over_budget, worker_budget
    from attention_grader.batch.worker_watch import WorkerWatch
    from traitlets.config import Config

    worker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, time; subprocess.Popen(['sleep', '600']); time.sleep(600)",
        ]
    )
    watch = WorkerWatch(tmp_path, 50)
    claim = watch.folder / str(worker.pid)
    claim.write_text("slow_student")
    assert watch.enforce() == []  # a fresh claim is left alone
    os.utime(claim, (0, 0))  # as if it started long ago
    child = _wait_for_child(worker.pid)
    assert watch.enforce() == ["slow_student"] and "slow_student" in watch.over
    assert worker.wait(30) == -signal.SIGKILL
    assert _ends(child)
    assert not claim.exists()
    result = over_budget("slow_student", 461)
    assert result.status == "error" and [f.kind for f in result.flags] == ["grading_budget"]
    config = Config()
    config.GradingExecute.submission_budget = 100
    assert worker_budget(config) == 160 and worker_budget(Config()) == 460
    config.Batch.worker_grace = 5.0  # the parent's own grace is the course config's too
    assert worker_budget(config) == 105
    config.GradingExecute.submission_budget = 0
    assert worker_budget(config) == 0


def _wait_for_child(pid: int) -> int:
    import time

    from attention_grader.batch.worker_watch import _descendants

    stop = time.monotonic() + 120  # a deadline for a loaded machine, not a wait
    while time.monotonic() < stop:
        found = _descendants(pid)
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError("the worker never started its child")


def test_a_submissions_notebooks_share_one_budget_and_a_regrade_starts_afresh(monkeypatch):
    from attention_grader.executor import execute

    clock = [1000.0]
    monkeypatch.setattr(execute, "monotonic", lambda: clock[0])
    monkeypatch.setattr(execute.GradingExecute, "_submission_started", {})
    grader = execute.GradingExecute(submission_budget=100)

    def left(student, notebook):
        info = {"assignment": "a", "student": student, "notebook": notebook}
        return grader._budget_left({"nbgrader": info})

    assert left("ada", "part1") == 100
    clock[0] += 30
    assert left("ada", "part2") == 70  # the second notebook of the same submission
    assert left("bo", "part1") == 100  # the next student
    clock[0] += 500
    assert left("ada", "part1") == 100  # graded again later (the formgrader's button)
    assert execute.GradingExecute(submission_budget=0)._budget_left({}) is None


def test_a_grader_child_over_its_memory_limit_stops_keeps_its_cells_and_is_flagged():
    """Memory a submission makes the grader use (half a million stand-in classes, a huge
    answer) is capped in the budget's child: it stops there, what it finished is kept, the
    parent and the class go on, and the flag says memory, not time.
    """
    from attention_grader.executor.budget import limit_memory
    from attention_grader.executor.execution_stops import execution_flags, stop_at_budget
    from nbformat.v4 import new_code_cell, new_notebook

    limit_mb = 64

    def work(reporter):
        limit_memory(limit_mb)
        reporter.cell(0, {"done": True})
        hog = [bytearray(2**20) for _ in range(4 * limit_mb)]  # 4 x the cap, a MiB at a time
        return len(hog)

    outcome = run_within(120, work)
    assert outcome.out_of_memory and outcome.result is None
    assert outcome.cells == {0: {"done": True}}
    nb = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("y = 2")])
    nb.cells[0].outputs = []
    stopped = stop_at_budget(nb, {0: dict(nb.cells[0])}, 400, "hw", memory_mb=limit_mb)
    ((kind, detail),) = execution_flags(stopped)
    assert kind == "grading_budget" and f"more than the grader's {limit_mb} MiB" in detail
    assert stopped.cells[1].outputs[0]["output_type"] == "error"  # not reached: scores 0


def test_the_memory_limit_counts_from_what_the_child_shares_with_a_big_grader():
    """A long-lived grader (the formgrader's server, a test process) may hold more data than
    the limit before it forks the budget's child: the child still gets the limit's worth of
    room for the notebook (it used to fail at its first allocation, a ``SystemError``), and no
    more.
    """
    from attention_grader.executor.budget import data_bytes, limit_memory

    limit_mb = 64
    ballast = bytearray((data_bytes() // 2**20 + 2 * limit_mb) * 2**20)  # the parent: > limit

    def work(reporter):
        limit_memory(limit_mb)
        room = [bytearray(2**20) for _ in range(limit_mb // 2)]  # half the limit: fits
        reporter.cell(0, {"room_mb": len(room)})
        hog = [bytearray(2**20) for _ in range(4 * limit_mb)]  # 4 x the limit: stopped
        return len(hog)

    outcome = run_within(120, work)
    del ballast
    assert outcome.cells == {0: {"room_mb": limit_mb // 2}}
    assert outcome.out_of_memory and outcome.result is None
