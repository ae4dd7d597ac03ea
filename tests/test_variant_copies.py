"""The hub's copier picks a classmate whose numbers earn her nothing (issue 41, the 5.0 for 3.0).

Numbers focus_in_the_noise's generator can draw (tenths from -3 to 3, every query's scores
within 4; the release check keeps such pairs rare, not impossible): ann's keys are cat's plus
``[-0.5, 0.5]`` in every row and her query of "launched" is cat's, so her scores are cat's
plus one constant and her right weights are cat's right weights too; a copy of ann's answer is
right on cat's weights and earns those 2 points.
"""

from __future__ import annotations

import numpy as np

from attention_lab import checks
from tests.support.variant_copies import copy_source, numbers_answer, steps_right

CAT = (
    [[-1.8, 1.9], [-0.8, -1.9], [-0.5, -0.4]],
    [[-1.0, -0.6], [1.3, 0.4], [-1.1, 0.8]],
    [[4, 0], [0, 4], [0, 3]],
)
ANN = (
    [[-0.1, 0.8], [-0.8, -1.9], [1.4, 0.0]],
    [[-1.5, -0.1], [0.8, 0.9], [-1.6, 1.3]],
    [[1, 1], [2, 2], [5, 5]],
)
BEN = (
    [[1.4, 0.3], [-0.8, 2.4], [-1.2, 2.3]],
    [[-1.3, -2.2], [-1.4, -1.2], [-0.2, -0.6]],
    [[4, 4], [2, 4], [2, 3]],
)
#: The practice variant's numbers (no seed: a laptop).
PRACTICE = (
    [[-2.2, 1.1], [-1.4, 2.8], [-2.1, -0.9]],
    [[-0.6, 0.2], [-1.6, -1.2], [-0.2, 1.3]],
    [[1, 3], [0, 5], [1, 5]],
)


def test_the_numbers_are_ones_the_generator_keeps():
    for numbers in (CAT, ANN, BEN, PRACTICE):
        Q, K, V = (np.asarray(m) for m in numbers)
        assert np.abs(np.r_[Q.ravel(), K.ravel()]).max() <= 3 and 0 <= V.min() <= V.max() <= 5
        tenths = np.r_[Q.ravel(), K.ravel()] * 10
        assert np.allclose(tenths, np.round(tenths)) and V.dtype.kind == "i"
        assert np.ptp(Q @ K.T / np.sqrt(2)) <= 4
        assert checks.tells_apart(Q[1], K, V, scale=True, queries=Q)


def test_a_classmates_right_weights_can_be_the_copiers_right_weights():
    assert steps_right(numbers_answer(*ANN), CAT) == ("launched_weights_sum_to_one",)
    assert steps_right(numbers_answer(*CAT), CAT) == (
        "launched_scores",
        "launched_weights_sum_to_one",
        "launched_output",
    )
    assert steps_right(numbers_answer(*CAT, scale=False), CAT) == ()


def test_the_copier_takes_a_classmate_whose_answer_is_wrong_on_all_her_steps():
    drawn = {"ann": ANN, "ben": BEN, "cat": CAT}
    source, alone = copy_source(drawn, "cat", ["ann", "ben"], PRACTICE)
    assert (source, alone) == ("ben", True)
    assert steps_right(numbers_answer(*drawn[source]), CAT) == ()


def test_without_such_a_classmate_the_caller_is_told():
    drawn = {"ann": ANN, "cat": CAT}
    assert copy_source(drawn, "cat", ["ann"], PRACTICE) == ("ann", False)
