"""attention_grader.checking.classmate_table: classmates worked once, the same flags as one by one.

Grading tries a student's answers on every classmate's numbers (``shared_answer`` for a right
answer, ``other_variant`` for a wrong one). The table works each classmate's variant once per
grading worker and runs a test only on classmates whose right answers are near hers; what it
finds must be exactly what trying every classmate finds.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
from attention_grader.checking.classmate_table import build_table
from attention_grader.checking.variant_grading import classmate_match, far_apart
from attention_grader.checking.variant_runs import code_cells, run_as
from attention_grader.common.run_cache import keeping
from nbformat.v4 import new_code_cell, new_notebook

from attention_lab.variants import PRACTICE, StudentSeed

ROOT = Path(__file__).resolve().parents[3]
KEY = bytes(range(32))
#: Small whole numbers: right scores shared between variants now and then (a shift of all).
GENERATOR = """
from attention_lab import variants, checks
import numpy as np

def numbers(rng):
    K = rng.integers(0, 3, size=(3, 2))
    if len(set(np.round(K @ K[1], 6).tolist())) < 3:
        raise variants.Redraw
    return K

K = variants.draw("a", "q", numbers)
"""
SOLUTION = (
    "scores = K @ K[1] / np.sqrt(2)\n"
    "weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()\n"
    "pick = 'a'"
)
TESTS = {
    "scores_test": "checks.check_scores(scores, K[1], keys=K, scale=True, name='scores')",
    "weights_test": "checks.check_weights(weights, K[1], K, scale=True, name='weights')",
    "choice_test": "checks.check_choice(pick, ['a', 'b'], correct='a', name='pick')",
}


def _nb():
    def cell(source, **meta):
        c = new_code_cell(source)
        c.metadata["nbgrader"] = {"grade_id": meta.pop("gid"), **meta}
        return c

    cells = [cell(GENERATOR, gid="data", locked=True), cell(SOLUTION, gid="a", solution=True)]
    cells += [cell(t, gid=g, grade=True, points=1, locked=True) for g, t in TESTS.items()]
    return new_notebook(cells=cells)


def _class(n):
    return [PRACTICE, *(StudentSeed.from_key(KEY, f"s{i:03d}") for i in range(n))]


def _matches(nb, locked, tests, seeds, table):
    """Every (student, test, answers' owner) -> the classmates found, with or without a table."""
    runs = {seed: run_as(code_cells(nb), seed)[2] for seed in seeds}
    found = {}
    for me in seeds[1:]:
        others = [s for s in seeds if s != me]
        for owner in (me, others[3]):  # her own right answers, then a classmate's (a copy)
            for gid, test in tests.items():
                names = [n for n in ("scores", "weights", "pick") if f"({n}," in test]
                answers = {n: runs[owner][n] for n in names}
                scopes = {} if table is None else dict(table.scopes)
                right = None if table is None else table.right
                found[me, gid, owner] = classmate_match(
                    locked, test, answers, others, scopes, right
                )
    return found


def test_a_far_answer_is_told_apart_and_anything_else_is_left_to_the_test():
    right = {"w": np.array([0.2, 0.3, 0.5]), "pick": "a"}
    assert far_apart({"w": [0.6, 0.3, 0.1]}, right)
    assert not far_apart({"w": [0.201, 0.3, 0.499]}, right)
    assert not far_apart({"w": [0.2, 0.3]}, right)  # another shape: the test decides
    assert not far_apart({"pick": "b"}, right)  # text: the test decides
    assert not far_apart({"other": [1.0]}, right)  # no right value known


def test_the_table_finds_the_same_classmates_as_trying_every_one(monkeypatch):
    """Issue 41: the table bounds the cost; shared_answer and other_variant stay the same."""
    from attention_grader.checking import variant_grading

    runs = {"tests": 0}
    passes = variant_grading._passes

    def counted(*args):
        runs["tests"] += 1
        return passes(*args)

    monkeypatch.setattr(variant_grading, "_passes", counted)
    nb = _nb()
    locked = {"data": GENERATOR}
    seeds = _class(24)
    names = ["scores", "weights", "pick"]
    table = build_table(locked, nb, seeds, names, [])
    assert set(table.scopes) == set(seeds) and set(table.right) == set(seeds)
    one_by_one = _matches(nb, locked, TESTS, seeds, None)
    every, runs["tests"] = runs["tests"], 0
    with_table = _matches(nb, locked, TESTS, seeds, table)
    assert with_table == one_by_one
    assert runs["tests"] < every / 2  # the choice runs everywhere; the numbers, near ones only
    shared = [k for k, v in one_by_one.items() if v and k[0] == k[2] and k[1] != "choice_test"]
    copied = [k for k, v in one_by_one.items() if v and k[0] != k[2]]
    assert shared, "whole numbers: some right answers are a classmate's right answers too"
    assert copied, "a copy fits the classmate it was copied from"


def test_classmates_a_short_build_did_not_reach_are_still_tried():
    """The build stops at its time limit (here at once): the rest are tried one by one."""
    seeds = _class(6)
    locked = {"data": GENERATOR}
    table = build_table(locked, _nb(), seeds, ["scores"], [], seconds=-1.0)
    assert table.scopes == {} and table.right == {}
    runs = run_as(code_cells(_nb()), seeds[2])[2]
    test = TESTS["scores_test"]
    scopes = dict(table.scopes)
    found = classmate_match(locked, test, {"scores": runs["scores"]}, seeds, scopes, table.right)
    assert seeds[2] in found


def test_a_classmate_without_right_answers_is_still_tried():
    """No source notebook: no right answers; every classmate is tried, as before."""
    seeds = _class(6)
    locked = {"data": GENERATOR}
    table = build_table(locked, None, seeds, ["scores"], [])
    assert table.right == {}
    runs = run_as(code_cells(_nb()), seeds[2])[2]
    test = TESTS["scores_test"]
    found = classmate_match(locked, test, {"scores": runs["scores"]}, seeds, {}, table.right)
    assert seeds[2] in found


@pytest.mark.parametrize("assignment", ["focus_in_the_noise", "heads_and_positions"])
def test_the_courses_right_answers_are_worked_for_each_classmate(assignment):
    from attention_grader.batch.variant_collisions import varied_tests

    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    locked, tests = varied_tests(nb)
    seeds = _class(3)
    table = build_table(locked, nb, seeds, ["launched_weights", "weights_b_chandrayaan"], [])
    assert set(table.right) == set(seeds)  # the solution runs on each of them
    for seed in seeds:
        assert table.scopes[seed] is not None


def test_a_worker_builds_the_table_once_and_plain_autograde_never(tmp_path):
    from attention_grader.checking.trusted_cells import trusted_cells_of
    from attention_grader.executor.notebook_checker import classmate_table
    from traitlets.config import Config

    cells = trusted_cells_of([], {"scores_test": TESTS["scores_test"]}, {"data": GENERATOR})
    info = {"db_url": None, "assignment": "a", "notebook": "n"}
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    assert classmate_table(info, cells, _nb(), config, 60.0) is None  # outside a worker
    with keeping():
        first = classmate_table(info, cells, _nb(), config, 60.0)
        assert first is not None and first is classmate_table(info, cells, _nb(), config)
        assert list(first.scopes) == [PRACTICE]  # no gradebook, no submitted/: the practice


def test_a_worker_builds_it_where_it_reads_the_teachers_side(tmp_path, monkeypatch):
    """Before forking a grading child (keep_teacher_side), so every child inherits it."""
    import logging

    from attention_grader.checking.trusted_cells import trusted_cells_of
    from attention_grader.executor import notebook_checker
    from traitlets.config import Config

    cells = trusted_cells_of([], {"scores_test": TESTS["scores_test"]}, {"data": GENERATOR})
    source = _nb()
    monkeypatch.setattr(notebook_checker, "teacher_side", lambda *a: (source, cells))
    monkeypatch.setattr(notebook_checker, "roster", lambda *a: ("ann", "ben"))  # the gradebook's
    built = []
    real = notebook_checker.build_table
    monkeypatch.setattr(notebook_checker, "build_table", lambda *a: built.append(a) or real(*a))
    from attention_grader.common.variant_key import course_key

    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    course_key(config, create=True)
    info = {"db_url": "sqlite://", "assignment": "a", "notebook": "n"}
    log = logging.getLogger("test")
    with keeping():
        notebook_checker.keep_teacher_side({"nbgrader": info}, config, log, 400)
        assert len(built) == 1 and built[0][1] is source
        table = notebook_checker.classmate_table(info, cells, source, config)
        assert table is not None and len(built) == 1  # the child's look-up: no second build
        assert len(set(table.scopes)) == 3  # the practice numbers, ann's and ben's
    notebook_checker.keep_teacher_side({"nbgrader": info}, config, log, 400)  # outside: none
    assert len(built) == 1


def test_without_a_budget_a_worker_builds_no_table(tmp_path, monkeypatch):
    """c.GradingExecute.submission_budget = 0: no time limit to take a quarter of."""
    import logging

    from attention_grader.checking.trusted_cells import trusted_cells_of
    from attention_grader.executor import notebook_checker
    from traitlets.config import Config

    cells = trusted_cells_of([], {"scores_test": TESTS["scores_test"]}, {"data": GENERATOR})
    monkeypatch.setattr(notebook_checker, "teacher_side", lambda *a: (_nb(), cells))
    built = []
    monkeypatch.setattr(notebook_checker, "build_table", lambda *a: built.append(a))
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    info = {"db_url": "sqlite://", "assignment": "a", "notebook": "n"}
    with keeping():
        notebook_checker.keep_teacher_side({"nbgrader": info}, config, logging.getLogger("t"), 0)
    assert built == []


def test_a_table_that_cannot_be_built_leaves_grading_as_it_was(tmp_path, monkeypatch):
    """The key gone (or anything else): the worker keeps no table; the child says why."""
    import logging

    from attention_grader.checking.trusted_cells import trusted_cells_of
    from attention_grader.executor import notebook_checker
    from traitlets.config import Config

    cells = trusted_cells_of([], {"scores_test": TESTS["scores_test"]}, {"data": GENERATOR})
    monkeypatch.setattr(notebook_checker, "teacher_side", lambda *a: (_nb(), cells))

    def broken(*args):
        raise RuntimeError("no roster")

    monkeypatch.setattr(notebook_checker, "roster", broken)
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    info = {"db_url": "sqlite://", "assignment": "a", "notebook": "n"}
    with keeping():
        notebook_checker.keep_teacher_side({"nbgrader": info}, config, logging.getLogger("t"), 400)
