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
    assert found and all("the solution loses points: test:" in r.cause for r in found)
    assert all(r.grade_id.startswith("variant sample-") for r in found)
    assert {r.kind for r in found} == {"variant_points"}


def test_ties_are_named():
    found = family_refusals(_nb(), samples=40)
    assert any("two of the right scores tie" in r.cause and r.kind == "tie" for r in found)


#: Weights of keys drawn in tenths, no generator check: now and then a mistake's weights
#: (divided by the number of tokens, no scaling, ...) come within the hand tolerances.
TENTHS = """
from attention_lab import variants, checks
import numpy as np

def numbers(rng):
    K = np.round(rng.uniform(-2, 2, size=(3, 2)), 1){extra}
    return K

K = variants.draw("a", "q", numbers)
"""
WEIGHTS = "s = K @ K[1] / np.sqrt(2)\nweights = np.exp(s - s.max()) / np.exp(s - s.max()).sum()"
WEIGHTS_TEST = "checks.check_weights(weights, K[1], K, scale=True, name='weights')"
REDRAW = (
    "\n    if not checks.tells_apart(K[1], K, np.eye(3), scale=True):\n"
    "        raise variants.Redraw"
)


def _weights_nb(extra: str = ""):
    nb = _nb(solution=WEIGHTS)
    nb.cells[0].source = TENTHS.format(extra=extra)
    nb.cells[2].source = WEIGHTS_TEST
    return nb


def test_a_mistake_accepted_as_right_on_a_variant_is_refused_naming_cell_mistake_and_variant():
    """Issue 41: the accuracy suite met a variant on which a misconception's answer passed."""
    found = [r for r in family_refusals(_weights_nb(), samples=200) if r.kind == "accepted"]
    assert found, "some of 200 tenths variants let a mistake's weights pass"
    for refusal in found:
        assert refusal.grade_id == "test"  # the cell, not a sample
        assert refusal.cause.startswith("weights: the wrong answer of [")
        assert "passes for the right one" in refusal.cause
        assert "e.g. variant sample-" in refusal.cause
    from attention_lab import misconceptions

    named = {r.cause.split("[")[1].split("]")[0] for r in found}
    assert named <= set(misconceptions.REGISTRY)


def test_a_generator_that_asks_tells_apart_redraws_those_variants():
    found = family_refusals(_weights_nb(REDRAW), samples=200)
    assert [r for r in found if r.kind == "accepted"] == []


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
