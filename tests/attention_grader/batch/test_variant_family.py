"""attention_grader.batch.variant_family: the release check of a variant family."""

from __future__ import annotations

import pytest
from attention_grader.batch.variant_family import family_refusals
from nbformat.v4 import new_code_cell, new_notebook

GENERATOR = """
from attention_lab import variants, checks
import numpy as np

def numbers(rng):
    K = rng.integers(0, 3, size=(3, 2)){extra}
    return K

K = variants.draw("a", "q", numbers)
"""
SOLUTION = "scores = K @ K[1] / np.sqrt(2)"
TEST = "checks.check_scores(scores, K[1], keys=K, scale=True, name='scores')"


def _nb(extra: str = "", solution: str = SOLUTION):
    def cell(source, **meta):
        c = new_code_cell(source)
        c.metadata["nbgrader"] = {"grade_id": meta.pop("gid"), **meta}
        return c

    return new_notebook(
        cells=[
            cell(GENERATOR.format(extra=extra), gid="data", locked=True),
            cell(solution, gid="answer", solution=True),
            cell(TEST, gid="test", grade=True, points=1),
        ]
    )


NO_TIES = "\n    if len(set((K @ K[1]).tolist())) < 3:\n        raise variants.Redraw"


def test_a_sound_family_passes():
    assert family_refusals(_nb(NO_TIES), samples=20) == []


def test_a_solution_that_fits_one_variant_only_is_refused():
    fixed = "scores = [0.0, 1.414, 2.828]"
    found = family_refusals(_nb(NO_TIES, solution=fixed), samples=20)
    assert found and all("the solution loses points: test:" in why for _, why in found)
    assert all(where.startswith("variant sample-") for where, _ in found)


def test_ties_are_named():
    found = family_refusals(_nb(), samples=40)
    assert any("two of the right scores tie" in why for _, why in found)


def test_a_notebook_without_variants_is_not_sampled():
    nb = _nb()
    nb.cells[
        0
    ].source = "import numpy as np\nfrom attention_lab import checks\nK = np.eye(3)[:, :2]"
    assert family_refusals(nb, samples=5) == []


@pytest.mark.slow
def test_release_refuses_a_family_with_the_reason(tmp_path):
    """``make release``'s step: the variant a fixed solution fails on is named, nothing released."""
    import nbformat
    from attention_grader.config.course import GradingStepError, new_course
    from attention_grader.steps.release import release

    source = tmp_path / "src"
    (source / "fam").mkdir(parents=True)
    nb = _nb(NO_TIES, solution="scores = [0.0, 1.414, 2.828]")
    nbformat.write(nb, source / "fam" / "fam.ipynb")
    course = new_course(tmp_path / "course", source, ("fam",))
    with open(course.root / "nbgrader_config.py", "a") as config:
        config.write("\nc.CheckSolution.variant_samples = 10\n")
    from attention_grader.config.course import load_course

    course = load_course(course.root, exchange=tmp_path / "exchange")
    with pytest.raises(GradingStepError, match=r"variant sample-\d+: the solution loses points"):
        release(course, "fam")
    assert not (tmp_path / "exchange" / course.course_id / "outbound" / "fam").exists()
    assert not (course.root / "variant.key").exists()  # only the hub makes a key
