"""The grader's memory limit, end to end (``GradingExecute.grader_memory_mb``), both routes.

A teacher's ordinary test keeps what the student's function returns (``outs = [tokens(n) for n
in ...]``). The attacker's function returns about the most plain data one reply may carry (1.9
million numbers, under the 16 MB message cap), so each call grows the grader's process by some
60 MB, 20 calls over a gigabyte. Graded by ``make grade`` and
plain ``nbgrader autograde`` with a 700 MiB limit: her grading is cut where it passes the limit
and flagged ``grading_budget`` naming memory; the test she passed first keeps its point, the
tests not reached score 0; the honest students before and after her keep full marks.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from attention_grader.common.flag_store import read_flags
from graded_classes import ClassSpec
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader_cells import nbgrader_meta

ASSIGNMENT = "keeps"
LIMIT_MB = 700
STUDENTS = ("ada", "mallory", "zoe")  # graded in this order: the batch goes on after her
#: grade_id -> (solution, test, the attacker's answer)
QUESTIONS = {
    "first": ("answer_first = 2", "assert answer_first == 2", "answer_first = 2"),
    "tokens": (
        'def tokens(n):\n    return ["tok"] * n',
        "outs = [tokens(n) for n in range(1, 21)]\n"
        "assert [len(out) for out in outs] == list(range(1, 21))",
        "def tokens(n):\n    return [1.5] * 1_900_000",
    ),
    "last": ("answer_last = 3", "assert answer_last == 3", "answer_last = 3"),
}


def _source() -> nbformat.NotebookNode:
    cells = []
    for name, (solution, test, _) in QUESTIONS.items():
        body = f"### BEGIN SOLUTION\n{solution}\n### END SOLUTION"
        cells.append(new_code_cell(body, metadata=nbgrader_meta(f"answer_{name}", solution=True)))
        meta = nbgrader_meta(f"test_{name}", grade=True, locked=True)
        cells.append(new_code_cell(test, metadata=meta))
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return new_notebook(cells=cells, metadata={"kernelspec": kernelspec})


def _hand_in(course) -> None:
    released = nbformat.read(course.root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    for student in STUDENTS:
        nb = nbformat.from_dict(released)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if grade_id.startswith("answer_"):
                solution, _, attack = QUESTIONS[grade_id.removeprefix("answer_")]
                cell.source = attack if student == "mallory" else solution
        folder = course.root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")


@pytest.fixture(scope="module")
def source_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("memory-source") / "source"
    (root / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(_source(), root / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    return root


@pytest.fixture(scope="module", params=["nbgrader", "grade"])
def graded(request, shared_class, source_root):
    spec = ClassSpec(
        f"memory-{request.param}",
        hand_in=_hand_in,
        source=source_root,
        assignments=(ASSIGNMENT,),
        config=f"\nc.GradingExecute.grader_memory_mb = {LIMIT_MB}\n",
        generate_only=True,
        route=request.param,
    )
    course = shared_class(spec).course
    scores, flags = {}, {}
    with course.gradebook() as gb:
        for student in STUDENTS:
            cells = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            scores[student] = {g.name: g.auto_score for g in cells.grades}
            path = course.root / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            flags[student] = read_flags(nbformat.read(path, as_version=4))
    return scores, flags


@pytest.mark.slow
def test_her_grading_is_cut_at_the_limit_and_flagged_as_memory(graded):
    scores, flags = graded
    assert scores["mallory"] == {"test_first": 1, "test_tokens": 0, "test_last": 0}
    (budget,) = [f.detail for f in flags["mallory"] if f.kind == "grading_budget"]
    assert f"more than the grader's {LIMIT_MB} MiB" in budget


@pytest.mark.slow
@pytest.mark.parametrize("student", ["ada", "zoe"])
def test_the_others_in_the_batch_keep_full_marks(graded, student):
    scores, flags = graded
    assert scores[student] == {"test_first": 1, "test_tokens": 1, "test_last": 1}
    assert not [f for f in flags[student] if f.kind == "grading_budget"]
