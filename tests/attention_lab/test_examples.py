"""Every number the two chapters print (../shared/course-map.md's table and the arithmetic on the
way), reproduced through the public API at the precision the chapter prints it.
"""

import math

import numpy as np
import pytest

from attention_lab import attention, dot_product_scores, examples, softmax
from attention_lab.examples import ISRO, TIFFIN


def rounded(x, places):
    return np.round(np.asarray(x, dtype=float), places).tolist()


# --- chapter B, "Focus in the Noise": ISRO launched Chandrayaan ---------------------------------


def test_isro_data_is_the_chapters():
    assert ISRO.tokens == ("ISRO", "launched", "Chandrayaan")
    assert ISRO.Q.tolist() == [[1, 0], [0, 1], [1, 1]]
    assert ISRO.K.tolist() == [[1, 0], [0, 1], [1, 1]]
    assert ISRO.V.tolist() == [[1, 2], [3, 0], [0, 4]]
    assert ISRO.scale and ISRO.query().tolist() == [1, 1]


def test_isro_chandrayaan_step_by_step():
    q = ISRO.query()
    assert dot_product_scores(q, ISRO.K, scale=False).tolist() == [1, 1, 2]
    assert round(math.sqrt(2), 4) == 1.4142
    scores = dot_product_scores(q, ISRO.K)
    assert rounded(scores, 3) == [0.707, 0.707, 1.414]
    assert rounded(np.exp(scores), 3) == [2.028, 2.028, 4.113]
    assert round(float(np.exp(scores).sum()), 3) == 8.169
    out, w = attention(q, ISRO.K, ISRO.V)
    assert rounded(w, 3) == [0.248, 0.248, 0.503]
    assert round(float(w.sum()), 3) == 1.000
    assert rounded(out, 3) == [0.993, 2.510]


def test_isro_chandrayaan_terms_of_the_weighted_sum():
    _, w = attention(ISRO.query(), ISRO.K, ISRO.V)
    terms = np.round(w, 3)[:, None] * ISRO.V
    assert rounded(terms, 3) == [[0.248, 0.496], [0.744, 0.0], [0.0, 2.012]]


def test_isro_launched_active_recall_q3():
    q = ISRO.Q[ISRO.tokens.index("launched")]
    assert q.tolist() == [0, 1]
    assert dot_product_scores(q, ISRO.K, scale=False).tolist() == [0, 1, 1]
    scores = dot_product_scores(q, ISRO.K)
    assert rounded(scores, 3) == [0.0, 0.707, 0.707]
    assert round(float(np.exp(scores).sum()), 3) == 5.056
    out, w = attention(q, ISRO.K, ISRO.V)
    assert rounded(w, 3) == [0.198, 0.401, 0.401]
    assert rounded(out, 3) == [1.401, 2.000]


def test_active_recall_q1_k3_scores_highest():
    raw = dot_product_scores([1, 1], [[1, 0], [0, 1], [1, 1]], scale=False)
    assert raw.tolist() == [1, 1, 2]
    assert int(np.argmax(raw)) == 2


def test_hard_selection_would_give_v3_which_is_not_the_output():
    out, w = attention(ISRO.query(), ISRO.K, ISRO.V)
    v3 = ISRO.V[int(np.argmax(w))]
    assert v3.tolist() == [0, 4]
    assert not np.allclose(out, v3)


# --- chapter A, "Introduction": the tiffin sentence ---------------------------------------------


def test_tiffin_data_is_the_chapters():
    assert TIFFIN.tokens == ("tiffin", "bag", "it", "big")
    assert TIFFIN.K.tolist() == [[2, 1], [0, 1], [1, 1], [1, 0]]
    assert TIFFIN.V.tolist() == [[5, 2], [5, 6], [2, 2], [0, 8]]
    assert not TIFFIN.scale and TIFFIN.query().tolist() == [1, 1]


def test_tiffin_it_step_by_step_unscaled():
    q = TIFFIN.query()
    scores = dot_product_scores(q, TIFFIN.K, scale=False)
    assert scores.tolist() == [3, 1, 2, 1]
    assert [round(math.e**k, 3) for k in (1, 2, 3)] == [2.718, 7.389, 20.086]
    assert round(float(np.exp(scores).sum()), 3) == 32.911
    out, w = attention(q, TIFFIN.K, TIFFIN.V, scale=TIFFIN.scale)
    assert rounded(w, 3) == [0.610, 0.083, 0.225, 0.083]
    # the chapter's percentages add to 100.1% only because of rounding
    assert round(sum(round(100 * x, 1) for x in w), 1) == 100.1
    assert rounded(out, 2) == [3.91, 2.83]


def test_tiffin_terms_of_the_weighted_sum():
    _, w = attention(TIFFIN.query(), TIFFIN.K, TIFFIN.V, scale=False)
    terms = np.round(w, 3)[:, None] * TIFFIN.V
    printed = [[3.05, 1.22], [0.41, 0.50], [0.45, 0.45], [0.00, 0.66]]
    # 0.083 x 5 = 0.415 exactly half-way: the chapter rounds it down to 0.41, so compare within
    # half a unit of the printed last digit rather than by rounding
    np.testing.assert_allclose(terms, printed, atol=0.005 + 1e-9, rtol=0)


def test_tiffin_scaled_by_sqrt2_is_the_chapters_skipped_step():
    assert round(math.sqrt(2), 2) == 1.41
    scaled = dot_product_scores(TIFFIN.query(), TIFFIN.K)
    np.testing.assert_allclose(scaled, np.array([3, 1, 2, 1]) / math.sqrt(2))


def test_check_your_understanding_q1():
    assert dot_product_scores([2, 0], [[1, 1], [0, 3]], scale=False).tolist() == [2, 0]


def test_softmax_fixes_negative_scores_that_divide_by_sum_cannot():
    scores = np.array([2.0, -1.0, 1.0])
    assert (scores / scores.sum() < 0).any()
    assert (softmax(scores) > 0).all()


# --- the data is shared and read-only ------------------------------------------------------------


@pytest.mark.parametrize("example", [ISRO, TIFFIN])
def test_example_vectors_cannot_be_changed_by_a_lesson(example):
    with pytest.raises(ValueError, match="read-only"):
        example.K[0, 0] = 99
    q = example.query()
    q[0] = 99  # the copy is the caller's to change
    assert example.query()[0] != 99


def test_examples_module_lists_its_names():
    assert set(examples.__all__) == {"WorkedExample", "ISRO", "TIFFIN"}
