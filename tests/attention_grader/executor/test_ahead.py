"""A submission's kernel started ahead (attention_grader.executor.ahead and the budget's
``ForkedAhead``): it serves its own student's notebook alone, sees only her files, is used once,
and a start ahead that failed or died never stops the batch.
"""

from __future__ import annotations

import copy
import json
import os
import signal
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from attention_grader.executor import ahead as ahead_module
from attention_grader.executor.ahead import KernelPlan
from attention_grader.executor.budget import ForkedAhead, run_within

from tests.support.grading_course import (
    FIXTURE,
    answer,
    make_course,
    place_submission,
    released_notebook,
)

# --------------------------------------------------------------------------- the forked child


def _fresh(report):
    return "fresh child"


def test_the_work_goes_to_the_child_forked_ahead_with_what_it_prepared():
    def prepare(report):
        return os.getpid()

    def finish(state, payload, report):
        return {"prepared_in": state, "payload": payload, "graded_in": os.getpid()}

    ahead = ForkedAhead(prepare, finish, lambda state: None)
    outcome = run_within(60, _fresh, ahead=ahead, payload="her notebook")
    result = outcome.result
    assert result is not None and result != "fresh child"
    assert result["payload"] == "her notebook"
    assert result["prepared_in"] == result["graded_in"] == ahead.proc.pid != os.getpid()


def test_a_child_that_could_not_prepare_is_never_handed_the_work():
    def prepare(report):
        raise RuntimeError("bwrap: cannot start")

    ahead = ForkedAhead(prepare, lambda *a: "graded ahead", lambda state: None)
    assert run_within(60, _fresh, ahead=ahead, payload="nb").result == "fresh child"
    assert not ahead.proc.is_alive()


def test_a_child_killed_before_its_work_came_is_replaced_by_a_fresh_one():
    ahead = ForkedAhead(lambda report: None, lambda *a: "graded ahead", lambda state: None)
    os.kill(ahead.proc.pid, signal.SIGKILL)
    ahead.proc.join(30)
    assert run_within(60, _fresh, ahead=ahead, payload="nb").result == "fresh child"


def test_a_child_whose_work_never_comes_cleans_up_and_ends(tmp_path):
    marker = tmp_path / "stopped"

    def stop(state):
        marker.write_text(state)

    ahead = ForkedAhead(lambda report: "its kernel", lambda *a: "graded", stop)
    ahead.stop()
    assert marker.read_text() == "its kernel"
    assert not ahead.proc.is_alive()


@pytest.mark.slow  # waits out the budget it checks
def test_the_child_forked_ahead_keeps_the_budget():
    def finish(state, payload, report):
        report.cell(0, {"source": "done"})
        while True:
            pass

    ahead = ForkedAhead(lambda report: None, finish, lambda state: None)
    outcome = run_within(3, _fresh, ahead=ahead, payload="nb")
    assert outcome.over_budget and outcome.cells == {0: {"source": "done"}}
    assert not ahead.proc.is_alive()


# --------------------------------------------------------------------------- handed over once


def _plan(student: str, folder: str) -> KernelPlan:
    return KernelPlan(student, "a1", "nb1", folder, "python3", False, "")


def _resources(student: str, folder: str, notebook: str = "nb1") -> dict:
    return {
        "nbgrader": {"student": student, "assignment": "a1", "notebook": notebook},
        "metadata": {"path": folder},
    }


@pytest.mark.parametrize(
    "other",
    [
        _resources("bob", "/c/autograded/alice/a1"),
        _resources("alice", "/c/autograded/bob/a1"),
        _resources("alice", "/c/autograded/alice/a1", notebook="nb2"),
        {},
    ],
)
def test_a_kernel_started_ahead_is_never_handed_to_another_notebook(tmp_path, other):
    marker = tmp_path / "stopped"
    ahead = ForkedAhead(lambda r: "alice's kernel", lambda *a: None, marker.write_text)
    ahead_module._AHEAD[:] = [(_plan("alice", "/c/autograded/alice/a1"), ahead)]
    assert ahead_module.take(other) is None
    assert marker.read_text() == "alice's kernel" and not ahead.proc.is_alive()
    assert ahead_module._AHEAD == []


def test_a_kernel_started_ahead_is_handed_over_once():
    ahead = ForkedAhead(lambda r: None, lambda *a: None, lambda state: None)
    ahead_module._AHEAD[:] = [(_plan("alice", "/c/autograded/alice/a1"), ahead)]
    mine = _resources("alice", "/c/autograded/alice/./a1")
    assert ahead_module.take(mine) is ahead
    assert ahead_module.take(mine) is None
    ahead.stop()


# --------------------------------------------------------------------------- in a real class

#: Her answer prints what her kernel's working folder holds and the one per-student file in it.
LOOK = (
    "import os\nprint('SEEN', sorted(os.listdir('.')), open('timestamp.txt').read())\n"
    "def double(x):\n    return 2 * x"
)
STAMPS = {"alice": datetime(2026, 11, 30, 9, 1, 0), "bob": datetime(2026, 11, 30, 9, 2, 0)}


def _class(tmp_path):
    from attention_grader.steps.release import release

    course = make_course(tmp_path)
    release(course, FIXTURE)
    nb = released_notebook(course, FIXTURE)
    for student, stamp in STAMPS.items():
        work = answer(copy.deepcopy(nb), {"q2_answer": LOOK})
        place_submission(course, FIXTURE, student, work, timestamp=stamp)
    return course


def _recording_adopt(monkeypatch, log: Path):
    """Record, in the grading child, what each kernel started ahead held and whom it served."""
    import attention_grader.executor.execute as execute

    real = execute.adopt

    def adopt(executor, nb, resources):
        started = executor._ahead
        before = sorted(os.listdir(started[1]._plan.work)) if started is not None else None
        km = real(executor, nb, resources)
        if started is not None:
            plan, kernel = started
            entry = {
                "plan": plan.student,
                "graded": resources["nbgrader"]["student"],
                "adopted": km is not None,
                "before": before,
                "after": sorted(os.listdir(kernel._plan.work)) if km is not None else None,
            }
            with open(log, "a") as fh:
                fh.write(json.dumps(entry) + "\n")
        return km

    monkeypatch.setattr(execute, "adopt", adopt)


def _seen(course, student: str) -> str:
    path = course.root / "autograded" / student / FIXTURE / f"{FIXTURE}.ipynb"
    nb = nbformat.read(path, as_version=4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "q2_answer"]
    return "".join(o.get("text", "") for o in cell.outputs)


@pytest.mark.slow
def test_each_kernel_started_ahead_serves_its_own_student_with_her_files_only(
    tmp_path, monkeypatch
):
    from attention_grader.steps.grade import GradeOptions, grade

    course = _class(tmp_path)
    log = tmp_path / "adopted.jsonl"
    _recording_adopt(monkeypatch, log)
    summary = grade(course, FIXTURE, GradeOptions(jobs=1, progress=False))
    assert {r.student: r.status for r in summary.results} == {"alice": "graded", "bob": "graded"}
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    # one kernel started ahead per student, each adopted by her own notebook only, and her
    # files copied in then (a notebook never is: the on-disk one holds the hidden tests)
    assert sorted(e["graded"] for e in entries) == ["alice", "bob"]
    assert all(e["adopted"] and e["plan"] == e["graded"] for e in entries)
    assert all(e["before"] == [] and e["after"] == ["timestamp.txt"] for e in entries)
    for student, stamp in STAMPS.items():
        seen = _seen(course, student)
        assert "SEEN ['timestamp.txt']" in seen
        assert stamp.strftime("%Y-%m-%d %H:%M:%S") in seen
        other = [s for s in STAMPS if s != student][0]
        assert STAMPS[other].strftime("%H:%M:%S") not in seen


@pytest.mark.slow
def test_a_start_ahead_that_died_does_not_stop_the_batch(tmp_path, monkeypatch):
    import attention_grader.batch.worker as worker
    from attention_grader.steps.grade import GradeOptions, grade

    course = _class(tmp_path)
    real = worker.start_ahead

    def start_then_die(converter, assignment, student):
        real(converter, assignment, student)
        for _, ahead in ahead_module._AHEAD:
            os.kill(ahead.proc.pid, signal.SIGKILL)  # its kernel dies with it (bwrap)

    monkeypatch.setattr(worker, "start_ahead", start_then_die)
    summary = grade(course, FIXTURE, GradeOptions(jobs=1, progress=False))
    assert {r.student: r.status for r in summary.results} == {"alice": "graded", "bob": "graded"}
    for student in STAMPS:
        assert "SEEN ['timestamp.txt']" in _seen(course, student)


@pytest.mark.slow
def test_a_kernel_started_ahead_whose_files_cannot_be_copied_in_says_why_and_is_stopped(
    tmp_path, short_tmp
):
    from attention_grader.steps.grade import GradeOptions, grade

    course = _class(tmp_path)
    kernels = short_tmp / "kernels"  # each kernel's private folder is made here
    kernels.mkdir()
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write("c.SandboxedKernelManager.copy_limit_mb = 0\n")  # her timestamp is too much
        fh.write(f"c.SandboxedKernelManager.control_root = {str(kernels)!r}\n")
    from attention_grader.config.course import load_course

    summary = grade(load_course(course.root), FIXTURE, GradeOptions(jobs=1, progress=False))
    for result in summary.results:
        assert result.status == "error", result
        assert result.reason.startswith("KernelStartError: the student's kernel could not start")
    assert "more than 0 MiB" in summary.log  # the cause, in full, in grading.log
    assert list(kernels.iterdir()) == []  # both kernels started ahead were stopped
