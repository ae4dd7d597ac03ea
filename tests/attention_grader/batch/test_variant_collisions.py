"""attention_grader.batch.variant_collisions: a classmate's right answer on another variant.

Softmax ignores a shift of every score, and small whole numbers give a step few possible
values: two students' variants can then share a right answer, and a copy earns its points.
The release check measures how often, per test cell, and refuses above the course's rate.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from attention_grader.batch.solution_check import CheckSolution
from attention_grader.batch.variant_collisions import collision_rates, collision_refusals
from nbformat.v4 import new_code_cell, new_notebook

ROOT = Path(__file__).resolve().parents[3]
GENERATOR = """
from attention_lab import variants, checks
import numpy as np

def numbers(rng):
    K = {draw}
    if len(set(np.round(K @ K[1], 6).tolist())) < 3:
        raise variants.Redraw
    return K

K = variants.draw("a", "q", numbers)
"""
WHOLE = "rng.integers(0, 3, size=(3, 2))"
#: One decimal in [-2, 2]: still worked by hand, and far more possible scores.
TENTHS = "rng.integers(-20, 21, size=(3, 2)) / 10"
SOLUTION = "scores = K @ K[1] / np.sqrt(2)"
TEST = "checks.check_scores(scores, K[1], keys=K, scale=True, name='scores')"
CHOICE = "checks.check_choice(pick, ['a', 'b'], correct='a', name='pick')"


def _nb(draw: str):
    def cell(source, **meta):
        c = new_code_cell(source)
        c.metadata["nbgrader"] = {"grade_id": meta.pop("gid"), **meta}
        return c

    return new_notebook(
        cells=[
            cell(GENERATOR.format(draw=draw), gid="data", locked=True),
            cell(SOLUTION + "\npick = 'a'", gid="answer", solution=True),
            cell(TEST, gid="scores_test", grade=True, points=1, locked=True),
            cell(CHOICE, gid="choice_test", grade=True, points=1, locked=True),
        ]
    )


def test_whole_numbers_share_right_scores_and_the_pair_is_named():
    [found] = collision_rates(_nb(WHOLE), samples=40, pairs=400)
    assert found.grade_id == "scores_test" and found.pairs == 400
    assert found.collided > 4  # few possible scores: a few in a hundred pairs
    assert found.example is not None and all(s.startswith("sample-") for s in found.example)


def test_wider_numbers_make_a_copy_wrong():
    assert [c.collided for c in collision_rates(_nb(TENTHS), samples=40, pairs=400)] == [0]


def test_the_release_check_refuses_above_the_rate_naming_cell_and_pair():
    [found] = collision_refusals(_nb(WHOLE), samples=40, pairs=400, threshold=0.002)
    assert found.grade_id == "scores_test" and found.kind == "collision"
    assert "sample-" in found.cause and "variant_collision_rate" in found.cause
    assert collision_refusals(_nb(WHOLE), samples=40, pairs=400, threshold=0.5) == []


def test_a_test_reading_no_variant_is_not_measured():
    """Q1's choice is the same for everyone: not a copy to catch."""
    assert [c.grade_id for c in collision_rates(_nb(TENTHS), 10, 20)] == ["scores_test"]


@pytest.mark.slow  # every sample student of a whole assignment: seconds, not tenths
@pytest.mark.parametrize("assignment", ["focus_in_the_noise", "heads_and_positions"])
def test_the_courses_varied_questions_pass_at_the_default_rate(assignment):
    """Before the generators drew tenths, 1-4 % of pairs shared a right step (CHANGELOG)."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    check = CheckSolution()
    found = collision_rates(nb, check.variant_samples, check.variant_pairs)
    assert found and all(c.pairs == check.variant_pairs for c in found)
    assert [(c.grade_id, c.example) for c in found if c.rate > check.variant_collision_rate] == []


def test_the_release_step_runs_the_samples_once_for_both_checks():
    """CheckSolution's variant refusals: the family's and the copies', from one set of runs."""
    check = CheckSolution(variant_samples=40, variant_pairs=400)
    found = check._variant_refusals(_nb(WHOLE))
    assert [r.grade_id for r in found if "classmate's right answer" in r.cause] == ["scores_test"]
    assert check._variant_refusals(_nb(TENTHS)) == []
