"""attention_grader.checking.variant_grading: whose numbers a test checks (graded end to end in
tests/attention_grader/test_variants_graded.py).
"""

from __future__ import annotations

import nbformat
import numpy as np
from attention_grader.checking.variant_grading import (
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
    assert found == (bob,) and set(scopes) == {alice, bob}
    assert classmate_match({"data": DATA}, TEST, {"answer": np.array([-1, -1, -1])}, [bob]) == ()


def test_answers_fitting_the_practice_numbers_and_a_classmates_name_both():
    """Where the practice numbers and a classmate's coincide, the answer may be a laptop's work
    or a copy: the flag names both, never only the practice variant (first in the list).
    """
    from types import SimpleNamespace

    from attention_grader.executor.notebook_checker import NotebookChecker

    from attention_lab import variants

    few = DATA.replace("size=3", "size=1").replace("(0, 9,", "(0, 2,")
    drawn = {}
    for name in ("practice", *(f"s{i}" for i in range(40))):
        seed = variants.PRACTICE if name == "practice" else StudentSeed.from_key(KEY, name)
        scope: dict = {}
        with variants.graded_as(seed):
            exec(few, scope)  # noqa: S102 -- our own cell
        drawn[seed] = int(scope["x"][0])
    same = [s for s in drawn if not s.practice and drawn[s] == drawn[variants.PRACTICE]][:1]
    other = [s for s in drawn if drawn[s] != drawn[variants.PRACTICE]][:1]
    others = [variants.PRACTICE, *other, *same]
    answer = {"answer": np.array([drawn[variants.PRACTICE]])}
    found = classmate_match({"data": few}, TEST, answer, others)
    assert found == (variants.PRACTICE, same[0])
    checker = SimpleNamespace(other_variant={"c1": found, "c2": found}, shared_answer={},
                              unreadable=[], rebound_data={}, needs_teacher={})  # fmt: skip
    flags = NotebookChecker(checker, frozenset(), False, (), ()).record(  # type: ignore[arg-type]
        nbformat.v4.new_notebook(), "nb", []
    )
    details = [f.detail for f in flags if f.kind == "other_variant"]
    assert len(details) == 2
    assert all("practice variant" in d and f"of {same[0].student}'s variant" in d for d in details)
    # a student whose id is "practice" is a classmate, not the practice variant
    namesake = StudentSeed.from_key(KEY, "practice")
    checker.other_variant = {"c1": (namesake,), "c2": (namesake,)}
    flags = NotebookChecker(checker, frozenset(), False, (), ()).record(  # type: ignore[arg-type]
        nbformat.v4.new_notebook(), "nb", []
    )
    assert all("of practice's variant" in f.detail for f in flags if f.kind == "other_variant")


def test_one_cell_fitting_a_classmate_is_no_flag_two_are():
    assert copied_cells({"c1": ("alice",)}) == {}
    assert copied_cells({"c1": ("alice",), "c2": ("bob",)}) == {}
    assert copied_cells({"c1": ("alice",), "c2": ("alice", "bob"), "c3": ("bob", "cy")}) == {
        "c1": ("alice",),
        "c2": ("alice", "bob"),
        "c3": ("bob",),
    }
