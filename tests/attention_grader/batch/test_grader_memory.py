"""The grader's memory limit, end to end (``GradingExecute.grader_memory_mb``), both routes.

A teacher's ordinary test keeps what the student's function returns (``outs = [tokens(n) for n
in ...]``). The attacker's function returns about the most plain data one reply may carry (1.9
million numbers, under the 16 MB message cap), so each call grows the grader's process by some
60 MB, 20 calls over a gigabyte. Graded by ``make grade`` and plain ``nbgrader autograde`` with a
700 MiB limit: her grading is cut where it passes the limit and flagged ``grading_budget`` naming
memory; the test she passed first keeps its point, the tests not reached score 0; the honest
students before and after her keep full marks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.graded_classes import attack_class, cell_scores_and_flags, question_source

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


@pytest.fixture(scope="module")
def source_root(tmp_path_factory) -> Path:
    return question_source(tmp_path_factory.mktemp("memory") / "source", ASSIGNMENT, QUESTIONS)


@pytest.fixture(scope="module", params=["nbgrader", "grade"])
def graded(request, shared_class, source_root):
    config = f"\nc.GradingExecute.grader_memory_mb = {LIMIT_MB}\n"
    spec = attack_class(
        f"memory-{request.param}", source_root, QUESTIONS, STUDENTS, "mallory", config,
        request.param,
    )  # fmt: skip
    return cell_scores_and_flags(shared_class(spec).course, ASSIGNMENT, STUDENTS)


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
