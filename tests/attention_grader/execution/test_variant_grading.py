"""attention_grader.execution.variant_grading: whose numbers a test checks (graded end to end in
tests/attention_grader/test_variants_graded.py).
"""

from __future__ import annotations

import numpy as np
from attention_grader.execution.variant_grading import (
    classmate_match,
    copied_cells,
    draws_variant,
    variant_names,
)

from attention_lab.variants import StudentSeed

DATA = (
    "import numpy as np\nfrom attention_lab import variants\n"
    "def gen(rng):\n    return rng.integers(0, 9, size=3)\n"
    'x = variants.draw("a", "q", gen)\n'
)
TEST = "assert np.array_equal(answer, x)"
KEY = bytes(range(32))


def test_a_variant_cell_is_the_one_that_draws():
    assert draws_variant(DATA)
    assert not draws_variant("x = np.array([1, 2])\ndraw = 3")
    assert variant_names({"data": DATA, "other": "y = 1"}) == {"x", "gen", "np", "variants"}


def test_an_answer_is_matched_to_the_classmate_whose_numbers_it_fits():
    alice, bob = (StudentSeed.from_key(KEY, s) for s in ("alice", "bob"))
    scope: dict = {}
    from attention_lab import variants

    with variants.graded_as(bob):
        exec(DATA, scope)  # noqa: S102 -- our own cell
    scopes: dict = {}
    found = classmate_match({"data": DATA}, TEST, {"answer": scope["x"]}, [alice, bob], scopes)
    assert found == "bob" and set(scopes) == {"alice", "bob"}
    assert classmate_match({"data": DATA}, TEST, {"answer": np.array([-1, -1, -1])}, [bob]) is None


def test_one_cell_fitting_a_classmate_is_no_flag_two_are():
    assert copied_cells({"c1": "alice"}) == {}
    assert copied_cells({"c1": "alice", "c2": "bob"}) == {}
    assert copied_cells({"c1": "alice", "c2": "alice", "c3": "bob"}) == {
        "c1": "alice",
        "c2": "alice",
    }
