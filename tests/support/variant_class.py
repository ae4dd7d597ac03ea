"""The variant class of ``focus_in_the_noise``: its config, its Q3 and each student's numbers.

Read by tests/attention_grader/test_variants_graded.py (both routes) and
test_variants_class_of_12.py (a class of 12 through the command line); the second imported
them from the first, one test module tied to another.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from attention_grader.common.variant_key import course_key

from attention_lab import checks, variants
from attention_lab.variants import StudentSeed
from tests.support.grading_course import released_notebook

ROOT = Path(__file__).resolve().parents[2]
#: A fixed course key, so every run draws the same numbers (a random one could, rarely, give
#: two students one variant); the family's own checks are tests/attention_grader/batch/test_variant_family.py's.
KEY_FILE = ROOT / "tests" / "fixtures" / "variants" / "course.key"
VARIANT_CONFIG = (
    f"\nc.Variants.key_file = {str(KEY_FILE)!r}\nc.CheckSolution.variant_samples = 20\n"
)
A = "focus_in_the_noise"
Q3 = ("launched_scores", "launched_weights_sum_to_one", "launched_output")
SOLUTION = (
    "launched_scores = K @ q_launched / np.sqrt(2)\n"
    "launched_weights = np.exp(launched_scores) / np.exp(launched_scores).sum()\n"
    "launched_output = launched_weights @ V\n"
)


def numbers_of(course, student: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``student``'s Q, K and V (None: the practice numbers), as the released cell draws them."""
    nb = released_notebook(course, A)
    data = next(
        c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "isro_data"
    )
    scope: dict = {"checks": checks, "np": np}
    seed = variants.PRACTICE if student is None else None
    seed = seed or StudentSeed.from_key(course_key(course.config), student)
    with variants.graded_as(seed):
        exec(data.replace("print(", "(lambda *a, **k: None)("), scope)  # noqa: S102 -- our cell
    return scope["Q"], scope["K"], scope["V"]


def answers_for(Q, K, V) -> str:
    """Q3 answered as numbers worked out from ``Q, K, V``, rounded to 4 places (a copy)."""
    q = Q[1]
    s = K @ q / np.sqrt(2)
    w = np.exp(s) / np.exp(s).sum()
    return (
        f"launched_scores = {np.round(s, 4).tolist()}\n"
        f"launched_weights = {np.round(w, 4).tolist()}\n"
        f"launched_output = {np.round(w @ V, 4).tolist()}\n"
    )
