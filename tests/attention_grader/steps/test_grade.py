"""Parallel autograde (attention_grader.steps.grade): equal to sequential nbgrader, fault-tolerant, and
running exactly the pipeline the course config names.
"""

from __future__ import annotations

import copy

import pytest
from attention_grader.steps.grade import GradeOptions, grade
from attention_grader.steps.release import release

from tests.support.graded_classes import STANDARD, built_class, clone
from tests.support.grading_course import (
    CORRECT,
    FIXTURE,
    answer,
    gradebook_state,
    make_course,
    notebook_content,
    place_submission,
    released_notebook,
)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A released fixture course with four submissions (not yet graded), to be copied."""
    return built_class(tmp_path_factory.mktemp("released"), STANDARD)


def sequential_nbgrader(course):
    """What `nbgrader autograde <assignment>` does: nbgrader's Autograde over all students."""
    from nbgrader.converters import Autograde

    cd = course.coursedir(assignment_id=FIXTURE, student_id="*")
    Autograde(coursedir=cd, config=course.config).start()


ORIGINAL = ["alice", "bob", "dana", "eli"]


@pytest.fixture(scope="module")
def parallel_graded(shared_class):
    """The four original submissions graded by `grade` with two workers (the session's shared
    class: read it, clone it to change it).
    """
    graded = shared_class(STANDARD)
    return graded.course, graded.summary


@pytest.mark.slow
def test_parallel_grade_leaves_the_gradebook_sequential_nbgrader_leaves(
    released, parallel_graded, tmp_path
):
    ours, summary = parallel_graded
    theirs = clone(released, tmp_path)
    sequential_nbgrader(theirs)

    assert gradebook_state(ours, FIXTURE) == gradebook_state(theirs, FIXTURE)
    for student in ORIGINAL:
        rel = f"autograded/{student}/{FIXTURE}/{FIXTURE}.ipynb"
        assert notebook_content(ours.root / rel) == notebook_content(theirs.root / rel)

    by = summary.by_student()
    assert {s: r.status for s, r in by.items()} == dict.fromkeys(by, "graded")
    assert [by[s].score for s in ORIGINAL] == [3, 1, 0, 3]
    assert [f.kind for f in by["eli"].flags] == ["late"]
    assert "2 h 5 min" in by["eli"].flags[0].detail
    assert not by["alice"].flags
    # The table names every student with its status.
    table = summary.table()
    assert all(s in table for s in by) and "4 graded" in table


@pytest.mark.slow
def test_second_run_is_idempotent_and_force_regrades_the_same(parallel_graded, tmp_path):
    course = clone(parallel_graded[0], tmp_path)
    first = gradebook_state(course, FIXTURE)
    again = grade(course, FIXTURE, GradeOptions(jobs=2, progress=False))
    assert [r.status for r in again.results] == ["unchanged"] * len(ORIGINAL)
    assert [r.score for r in again.results] == [3, 1, 0, 3]
    assert [f.kind for f in again.by_student()["eli"].flags] == ["late"]
    assert gradebook_state(course, FIXTURE) == first
    forced = grade(
        course, FIXTURE, GradeOptions(jobs=1, force=True, progress=False), students=["bob"]
    )
    assert forced.results[0].status == "graded"
    assert gradebook_state(course, FIXTURE) == first


# --------------------------------------------------------------------------- faults


FAULTY = {
    # answers -> what the grader must make of them
    "good": {**CORRECT, "q2_answer": CORRECT["q2_answer"] + "\nprint('just printing')"},
    "killer": {**CORRECT, "q2_answer": "import os\nos._exit(1)"},
    "looper": {**CORRECT, "q2_answer": "while True:\n    pass"},
    "flooder": {
        **CORRECT,
        "q1_answer": CORRECT["q1_answer"] + "\nfor i in range(3000):\n    print(i)",
    },
}


@pytest.mark.slow
def test_faults_are_graded_or_flagged_and_the_batch_completes(released, parallel_graded, tmp_path):
    course = clone(released, tmp_path)
    nb = released_notebook(course, FIXTURE)
    for student, answers in FAULTY.items():
        place_submission(course, FIXTURE, student, answer(copy.deepcopy(nb), answers))
    place_submission(course, FIXTURE, "broken", '{"cells": [')  # not JSON
    place_submission(course, FIXTURE, "renamer", copy.deepcopy(nb), name="Untitled1.ipynb")
    place_submission(course, FIXTURE, "empty", None)  # a folder without any notebook
    students = [*ORIGINAL, *FAULTY, "broken", "renamer", "empty"]
    course.config.Execute.timeout = 3
    course.config.GradingExecute.notebook_timeout = 60
    options = GradeOptions(jobs=2, progress=False)
    # No wall-clock assertion (a busy machine is slow): the loop's cell_timeout flag below says
    # the limit cut it, and every student's result says the batch completed.
    summary = grade(course, FIXTURE, options, students=students)
    by = summary.by_student()
    assert sorted(by) == sorted(students)

    assert (by["good"].status, by["good"].score, by["good"].flags) == ("graded", 3, [])

    # q1 (2 points) ran before the kernel died and keeps its points; q2's test scores 0
    assert (by["killer"].status, by["killer"].score) == ("graded", 2)
    assert {f.kind for f in by["killer"].flags} == {"exit"}  # exit: for the teacher
    assert by["looper"].status == "graded" and by["looper"].score == 2
    assert "cell_timeout" in {f.kind for f in by["looper"].flags}
    assert by["flooder"].status == "graded" and by["flooder"].score == 3
    assert "output_truncated" in {f.kind for f in by["flooder"].flags}
    # a notebook that is not JSON is refused by the intake: scored 0, with the reason flagged
    assert by["broken"].status == "missing" and "refused" in by["broken"].reason
    assert {f.kind for f in by["broken"].flags} == {"invalid_notebook"}
    assert by["renamer"].status == "missing" and "Untitled1.ipynb" in by["renamer"].reason
    assert by["renamer"].score == 0
    assert by["empty"].status == "missing" and by["empty"].score == 0
    for result in by.values():
        assert "\n" not in result.reason

    # The faults did not move anyone else's grade (same as the batch without them); running
    # again changes nothing.
    state = gradebook_state(course, FIXTURE)
    alone = gradebook_state(parallel_graded[0], FIXTURE)
    assert {s: state[s] for s in ORIGINAL} == alone
    rerun = grade(course, FIXTURE, options, students=students)
    assert gradebook_state(course, FIXTURE) == state
    assert {s: r.status for s, r in rerun.by_student().items()} == {
        s: ("unchanged" if r.status == "graded" else r.status) for s, r in by.items()
    }


@pytest.mark.slow
def test_a_notebook_over_its_time_budget_keeps_what_ran_and_is_flagged(released, tmp_path):
    course = clone(released, tmp_path)
    nb = released_notebook(course, FIXTURE)
    slow = {**CORRECT, "q2_answer": CORRECT["q2_answer"] + "\nimport time\ntime.sleep(60)"}
    place_submission(course, FIXTURE, "sleeper", answer(copy.deepcopy(nb), slow))
    course.config.Execute.timeout = 30
    course.config.GradingExecute.notebook_timeout = 8
    options = GradeOptions(jobs=1, progress=False)
    result = grade(course, FIXTURE, options, students=["sleeper"]).results[0]
    assert (result.status, result.score) == ("graded", 2)  # q1 (2 points) ran in time, q2 not
    # the notebook's budget ran out while q2's answer cell was running: both are said
    assert [f.kind for f in result.flags] == ["timeout", "cell_timeout"]
    assert "ran out of time" in result.flags[0].detail


@pytest.mark.slow
def test_grade_rejects_unknown_assignment_and_students(tmp_path):
    course = make_course(tmp_path)
    with pytest.raises(ValueError, match="make release"):
        grade(course, FIXTURE, GradeOptions(progress=False))
    release(course, FIXTURE)
    with pytest.raises(ValueError, match="make collect"):
        grade(course, FIXTURE, GradeOptions(progress=False), students=["nobody"])
    with pytest.raises(ValueError, match="jobs"):
        grade(course, FIXTURE, GradeOptions(jobs=0, progress=False))
    with pytest.raises(ValueError, match="start_method"):
        grade(course, FIXTURE, GradeOptions(jobs=2, start_method="thread", progress=False))
    assert grade(course, FIXTURE, GradeOptions(progress=False)).results == []


def worker_config(course, workdir):
    """The config a grading worker would use (no kernel started)."""
    from attention_grader.batch.worker import GradingJob

    course.config.GradingExecute.notebook_timeout = 42
    job = GradingJob(course, FIXTURE, force=False, snapshot=None, workdir=str(workdir))
    return job.config_for(course.db_url)


def test_workers_run_the_course_pipeline_unchanged(tmp_path):
    """`make grade` adds nothing: the worker's pipeline is the course config's, with the run's
    time limits and the protections report printed once by the parent, not per worker.
    """
    from attention_grader.executor.execute import GradingExecute
    from attention_grader.executor.tamper import ScanSubmission

    course = make_course(tmp_path)
    config = worker_config(course, tmp_path)
    assert (
        config.Autograde.autograde_preprocessors == course.config.Autograde.autograde_preprocessors
    )
    assert config.Autograde.autograde_preprocessors[0] is GradingExecute
    assert config.Autograde.sanitize_preprocessors[0] is ScanSubmission
    execute = GradingExecute(config=config)
    assert (execute.notebook_timeout, execute.sandbox_kernels) == (42, True)
    assert execute.print_protections is False


def test_workers_check_the_notebook_once_and_still_refuse_a_broken_one(tmp_path):
    """The worker's exporter validates after the last step only (nbconvert's own switch), and
    a notebook a step broke is still refused before it is written.
    """
    import nbformat
    from nbconvert.exporters import NotebookExporter
    from nbconvert.preprocessors import Preprocessor
    from nbformat.v4 import new_code_cell, new_notebook

    class Breaks(Preprocessor):
        def preprocess(self, nb, resources):
            nb.cells[0]["execution_count"] = "not a count"
            return nb, resources

    config = worker_config(make_course(tmp_path), tmp_path)
    exporter = NotebookExporter(config=config)
    assert exporter.optimistic_validation is True
    exporter.register_preprocessor(Breaks, enabled=True)
    with pytest.raises(nbformat.ValidationError):
        exporter.from_notebook_node(new_notebook(cells=[new_code_cell("1")]))


def test_a_plain_course_config_grades_with_plain_nbgrader(tmp_path):
    """Without configure(c) (the benchmark's baseline), nbgrader's own pipeline runs."""
    from attention_grader.config.course import new_course

    from tests.support.grading_course import FIXTURE_SOURCE

    course = new_course(tmp_path, FIXTURE_SOURCE, [FIXTURE], pipeline=False)
    config = worker_config(course, tmp_path)
    assert "autograde_preprocessors" not in config.Autograde


def test_when_the_last_pending_worker_is_killed_the_batch_finishes(monkeypatch, tmp_path):
    """The watch kills the worker of the only student left: the pool breaks, nobody is
    pending, and the batch ends with that student flagged (no pool of 0 workers, no crash).
    """
    from concurrent.futures.process import BrokenProcessPool
    from types import SimpleNamespace

    from attention_grader.steps import grade as grade_module
    from traitlets.config import Config

    rounds: list[list[str]] = []
    original = grade_module._Runner._pool_round

    def round_killed_once(self, pending, watch):
        rounds.append(list(pending))
        if len(rounds) == 1:
            watch.over[pending[-1]] = 461.0  # as WorkerWatch.enforce records a kill
            raise BrokenProcessPool("a worker was killed")
        return original(self, pending, watch)

    monkeypatch.setattr(grade_module._Runner, "_pool_round", round_killed_once)
    monkeypatch.setattr(grade_module, "reap_kernel_folders", lambda config: None)
    job = SimpleNamespace(workdir=tmp_path, course=SimpleNamespace(config=Config()))
    results = []
    runner = grade_module._Runner(job, GradeOptions(jobs=2, progress=False), results.append, 1)
    runner.run(["slow"])
    assert [(r.student, [f.kind for f in r.flags]) for r in results] == [
        ("slow", ["grading_budget"])
    ]


@pytest.mark.parametrize("max_crashes", [1, 3])
def test_the_course_config_says_how_many_unexplained_crashes_end_the_batch(
    monkeypatch, tmp_path, max_crashes
):
    """``c.Batch.max_crashes`` pools break with no budget to blame: the rest is reported crashed."""
    from concurrent.futures.process import BrokenProcessPool
    from types import SimpleNamespace

    from attention_grader.steps import grade as grade_module
    from traitlets.config import Config

    rounds: list[list[str]] = []

    def round_that_crashes(self, pending, watch):
        rounds.append(list(pending))
        raise BrokenProcessPool("a worker crashed")

    monkeypatch.setattr(grade_module._Runner, "_pool_round", round_that_crashes)
    monkeypatch.setattr(grade_module, "reap_kernel_folders", lambda config: None)
    config = Config()
    config.Batch.max_crashes = max_crashes
    job = SimpleNamespace(workdir=tmp_path, course=SimpleNamespace(config=config))
    results = []
    runner = grade_module._Runner(job, GradeOptions(jobs=2, progress=False), results.append, 2)
    runner.run(["a", "b"])
    assert len(rounds) == max_crashes
    assert [(r.student, r.status) for r in results] == [("a", "error"), ("b", "error")]
