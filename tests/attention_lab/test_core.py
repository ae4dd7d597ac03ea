"""attention_lab.core, tested three ways: against a naive reference, at extreme inputs, and on
seeded random data; plus the properties the lessons teach and every error message.
"""

import doctest
import math

import numpy as np
import pytest

import attention_lab
from attention_lab import (
    additive_scores,
    attention,
    causal_mask,
    core,
    dot_product_scores,
    hard_attention,
    positional_encoding,
    softmax,
)

RNG_SEEDS = range(5)


# --- naive references: plain Python loops, written straight from the formulas -------------------


def naive_softmax(row):
    exps = [math.exp(x) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def naive_attention(Q, K, V, scale=True):
    d_k = len(K[0])
    outputs, weights = [], []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k, strict=True)) for k in K]
        if scale:
            scores = [s / math.sqrt(d_k) for s in scores]
        w = naive_softmax(scores)
        out = [sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
        outputs.append(out)
        weights.append(w)
    return np.array(outputs), np.array(weights)


# --- public surface ------------------------------------------------------------------------------


def test_public_names_are_exported_explicitly():
    for name in attention_lab.__all__:
        assert hasattr(attention_lab, name), name
    assert set(core.__all__) <= set(attention_lab.__all__)


def test_docstring_examples_run():
    result = doctest.testmod(core)
    assert result.attempted > 0 and result.failed == 0


# --- softmax -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_softmax_matches_naive_reference_on_random_rows(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(scale=3, size=(4, 7))
    got = softmax(x)
    want = np.array([naive_softmax(row) for row in x])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_softmax_rows_sum_to_one_and_are_positive():
    rng = np.random.default_rng(0)
    w = softmax(rng.normal(size=(5, 9)))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)
    assert (w > 0).all()


@pytest.mark.parametrize("big", [1e4, -1e4, 1e300])
def test_softmax_is_finite_at_extreme_scores(big):
    w = softmax([big, 0.0, -abs(big)])
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w.sum(), 1.0)


def test_softmax_of_large_scores_equals_the_shifted_small_scores():
    # a naive exp(1e4) overflows; the stable version must give the exact small-score answer
    small = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(softmax(small + 1e4), softmax(small), rtol=1e-12)


@pytest.mark.parametrize("shift", [-50.0, 0.5, 7.0, 1e3])
def test_softmax_is_shift_invariant(shift):
    x = np.array([[0.3, -1.2, 2.5], [1.0, 1.0, 1.0]])
    np.testing.assert_allclose(softmax(x + shift), softmax(x), rtol=1e-12)


def test_softmax_gives_exactly_zero_to_minus_inf():
    w = softmax([1.0, -np.inf, 2.0])
    assert w[1] == 0.0
    np.testing.assert_allclose(w[[0, 2]], naive_softmax([1.0, 2.0]))


def test_softmax_along_other_axis():
    x = np.array([[1.0, 5.0], [3.0, 0.0]])
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T, axis=-1).T)


def test_softmax_all_masked_row_raises_saying_every_key_is_masked():
    with pytest.raises(ValueError, match="every key is masked"):
        softmax([[0.0, 1.0], [-np.inf, -np.inf]])


def test_softmax_rejects_nan_and_plus_inf():
    with pytest.raises(ValueError, match="NaN"):
        softmax([1.0, np.nan])
    with pytest.raises(ValueError, match=r"\+inf"):
        softmax([1.0, np.inf])


def test_softmax_rejects_scalars_and_text():
    with pytest.raises(ValueError, match="at least 1-D"):
        softmax(3.0)
    with pytest.raises(TypeError, match="must be numbers"):
        softmax(["a", "b"])


# --- scores and attention ------------------------------------------------------------------------


def test_dot_product_scores_scale_divides_by_sqrt_dk():
    rng = np.random.default_rng(1)
    Q, K = rng.normal(size=(3, 8)), rng.normal(size=(5, 8))
    np.testing.assert_allclose(dot_product_scores(Q, K, scale=False), Q @ K.T)
    np.testing.assert_allclose(dot_product_scores(Q, K), Q @ K.T / np.sqrt(8))


def test_scores_accept_lists_and_a_single_query():
    assert dot_product_scores([1, 1], [[1, 0], [0, 3]], scale=False).tolist() == [1.0, 3.0]


@pytest.mark.parametrize("seed", RNG_SEEDS)
@pytest.mark.parametrize("scale", [True, False])
def test_attention_matches_naive_reference_on_random_shapes(seed, scale):
    rng = np.random.default_rng(seed)
    n_q, n_k, d_k, d_v = rng.integers(1, 9, size=4)
    Q, K, V = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v))
    out, w = attention(Q, K, V, scale=scale)
    ref_out, ref_w = naive_attention(Q.tolist(), K.tolist(), V.tolist(), scale=scale)
    assert out.shape == (n_q, d_v) and w.shape == (n_q, n_k)
    np.testing.assert_allclose(w, ref_w, rtol=1e-10)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)


def test_single_query_gives_one_dimensional_results():
    out, w = attention([1, 0], [[1, 0], [0, 1]], [[1, 2, 3], [4, 5, 6]])
    assert out.shape == (3,) and w.shape == (2,)


def test_attention_output_lies_in_the_convex_hull_of_the_values():
    rng = np.random.default_rng(2)
    V = rng.normal(size=(6, 3))
    out, _ = attention(rng.normal(size=(10, 4)), rng.normal(size=(6, 4)), V)
    assert (out <= V.max(axis=0) + 1e-12).all() and (out >= V.min(axis=0) - 1e-12).all()


def test_attention_is_finite_for_huge_scores():
    out, w = attention([[1e4, 1e4]], [[1e4, 0], [0, 1e4], [1e4, 1e4]], [[1, 0], [0, 1], [2, 2]])
    assert np.isfinite(out).all() and np.isfinite(w).all()
    np.testing.assert_allclose(w, [[0, 0, 1]])


def test_identical_keys_get_identical_weights_whatever_the_values():
    rng = np.random.default_rng(3)
    K = rng.normal(size=(4, 3))
    K[2] = K[0]
    _, w = attention(rng.normal(size=(5, 3)), K, rng.normal(size=(4, 2)))
    np.testing.assert_array_equal(w[:, 0], w[:, 2])


# --- masks ---------------------------------------------------------------------------------------


def test_causal_mask_is_lower_triangular_boolean():
    m = causal_mask(4)
    assert m.dtype == bool and m.shape == (4, 4)
    assert m[2, 0] and m[2, 2] and not m[2, 3] and not m[0, 1]
    assert m.sum() == 4 * 5 // 2


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_masked_weights_are_exactly_zero_and_allowed_keep_their_ratios(seed):
    rng = np.random.default_rng(seed)
    n = 6
    Q, K, V = rng.normal(size=(n, 4)), rng.normal(size=(n, 4)), rng.normal(size=(n, 2))
    _, unmasked = attention(Q, K, V)
    _, masked = attention(Q, K, V, mask=causal_mask(n))
    assert (masked[~causal_mask(n)] == 0.0).all()
    np.testing.assert_allclose(masked.sum(axis=-1), 1.0)
    for i in range(n):
        allowed = unmasked[i, : i + 1]
        np.testing.assert_allclose(masked[i, : i + 1], allowed / allowed.sum(), rtol=1e-12)


def test_mask_for_a_single_query():
    _, w = attention([1, 1], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]], mask=[True, True, False])
    assert w[2] == 0.0


def test_an_all_masked_row_raises():
    with pytest.raises(ValueError, match="every key is masked"):
        attention(
            [[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1], [2]], mask=[[True, False], [False, False]]
        )


def test_mask_must_be_boolean_and_the_right_shape():
    Q = K = [[1, 0], [0, 1]]
    with pytest.raises(TypeError, match="mask must be boolean"):
        attention(Q, K, [[1], [2]], mask=[[1, 0], [1, 1]])
    with pytest.raises(
        ValueError, match=r"mask has shape \(3, 3\) but the scores have shape \(2, 2\)"
    ):
        attention(Q, K, [[1], [2]], mask=causal_mask(3))


@pytest.mark.parametrize("bad", [0, -2])
def test_causal_mask_rejects_nonpositive_length(bad):
    with pytest.raises(ValueError, match="at least 1"):
        causal_mask(bad)


def test_causal_mask_rejects_non_integers():
    with pytest.raises(TypeError, match="must be an int"):
        causal_mask(2.5)


# --- hard attention ------------------------------------------------------------------------------


def test_hard_attention_picks_the_value_of_the_best_key():
    K = [[1, 0], [0, 1], [1, 1]]
    V = [[1, 2], [3, 0], [0, 4]]
    out, w = hard_attention([1, 1], K, V)
    assert out.tolist() == [0.0, 4.0] and w.tolist() == [0.0, 0.0, 1.0]
    soft, _ = attention([1, 1], K, V)
    assert not np.allclose(out, soft)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_hard_attention_agrees_with_argmax_of_soft_weights(seed):
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    out, w = hard_attention(Q, K, V)
    _, soft = attention(Q, K, V)
    np.testing.assert_array_equal(out, V[soft.argmax(axis=-1)])
    np.testing.assert_array_equal(w.sum(axis=-1), 1.0)


# --- additive (Bahdanau) scores ------------------------------------------------------------------


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_additive_scores_match_the_formula_term_by_term(seed):
    rng = np.random.default_rng(seed)
    s, H = rng.normal(size=3), rng.normal(size=(5, 4))
    W, U, v = rng.normal(size=(6, 3)), rng.normal(size=(6, 4)), rng.normal(size=6)
    want = [v @ np.tanh(W @ s + U @ h) for h in H]
    np.testing.assert_allclose(additive_scores(s, H, W, U, v), want, rtol=1e-12)


def test_additive_scores_name_the_mismatched_shapes():
    with pytest.raises(ValueError, match="W_a has 2 columns but s has length 3"):
        additive_scores(np.ones(3), np.ones((2, 2)), np.ones((4, 2)), np.ones((4, 2)), np.ones(4))
    with pytest.raises(ValueError, match="share the attention size d_a"):
        additive_scores(np.ones(2), np.ones((2, 2)), np.ones((4, 2)), np.ones((3, 2)), np.ones(4))


# --- positions and permutation ------------------------------------------------------------------


def test_positional_encoding_follows_vaswani_formula():
    pe = positional_encoding(10, 6)
    assert pe.shape == (10, 6)
    p, i = 7, 1
    assert pe[p, 2 * i] == pytest.approx(math.sin(p / 10000 ** (2 * i / 6)))
    assert pe[p, 2 * i + 1] == pytest.approx(math.cos(p / 10000 ** (2 * i / 6)))
    assert len({tuple(row) for row in pe.round(6)}) == 10  # every position is distinct


def test_positional_encoding_odd_width():
    assert positional_encoding(3, 5).shape == (3, 5)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_self_attention_is_permutation_equivariant_without_positions(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(5, 4))
    perm = rng.permutation(5)
    out, w = attention(X, X, X)
    out_p, w_p = attention(X[perm], X[perm], X[perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-12)
    np.testing.assert_allclose(w_p, w[np.ix_(perm, perm)], rtol=1e-12)


def test_positional_encodings_break_the_permutation_symmetry():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 4))
    perm = np.array([4, 3, 2, 1, 0])
    pe = positional_encoding(5, 4)
    out, _ = attention(X + pe, X + pe, X + pe)
    out_p, _ = attention(X[perm] + pe, X[perm] + pe, X[perm] + pe)
    assert not np.allclose(out_p, out[perm])


# --- error messages ------------------------------------------------------------------------------


def test_mismatched_dk_is_named():
    with pytest.raises(ValueError, match="K has d_k=3 but Q has d_k=2"):
        attention([[1, 0]], [[1, 0, 0]], [[1]])


def test_values_must_match_keys():
    with pytest.raises(ValueError, match="V has 1 rows but K has 2"):
        attention([1, 0], [[1, 0], [0, 1]], [[1, 2]])
    with pytest.raises(ValueError, match="V has 1 rows but K has 2"):
        hard_attention([1, 0], [[1, 0], [0, 1]], [[1, 2]])


def test_nan_inputs_are_rejected():
    with pytest.raises(ValueError, match="Q contains NaN"):
        attention([np.nan, 0], [[1, 0]], [[1]])


def test_wrong_dimensions_are_named():
    with pytest.raises(ValueError, match=r"K must be 2-D, got shape \(2,\)"):
        dot_product_scores([1, 0], [1, 0])
    with pytest.raises(ValueError, match="Q is empty"):
        dot_product_scores([], [[1, 0]])


def test_positional_encoding_rejects_bad_sizes():
    with pytest.raises(ValueError, match="d_model must be at least 1"):
        positional_encoding(3, 0)
    with pytest.raises(TypeError, match="n_positions must be an int"):
        positional_encoding("3", 4)
