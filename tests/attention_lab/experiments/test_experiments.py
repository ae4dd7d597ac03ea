"""The measured demonstrations (attention_lab.experiments): each tested against a reference
computation, at its extremes, on seeded random inputs, and for the claim the lesson makes.
"""

import numpy as np
import pytest

from attention_lab import attention, experiments, hard_attention, positional_encoding, softmax
from attention_lab.examples import ISRO, TIFFIN

# --- a. the bottleneck ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bottleneck():
    return experiments.bottleneck_recall(seed=0)


def test_fixed_memory_recall_falls_with_length_while_attention_stays_high(bottleneck):
    fixed, attn = bottleneck.fixed_memory, bottleneck.attention
    assert fixed[0] >= 0.95, "short sequences fit in one vector"
    assert fixed[-1] <= 0.4, "60 words do not"
    # Falls overall and never climbs back by more than sampling noise.
    assert np.all(np.diff(fixed) <= 0.05)
    assert fixed[0] - fixed[-1] >= 0.5
    assert np.all(attn >= 0.95)
    assert np.all(attn >= fixed)


def test_bottleneck_single_word_is_always_recalled():
    # Extreme: one stored word has nothing to interfere with it.
    r = experiments.bottleneck_recall(lengths=[1], n_trials=20, seed=3)
    assert r.fixed_memory.tolist() == [1.0] and r.attention.tolist() == [1.0]


def test_bottleneck_reference_step_by_step_rnn():
    # Reference: the same random draws, but the encoder run as an explicit RNN loop
    # (h <- R h + x_t) and the decoder undoing the rotations one at a time.
    lengths, d, vocab_size, trials, seed = [3, 12], 8, 10, 4, 5
    r = experiments.bottleneck_recall(
        lengths, d=d, vocab_size=vocab_size, n_trials=trials, seed=seed
    )
    rng = np.random.default_rng(seed)
    vocab = rng.standard_normal((vocab_size, d))
    vocab /= np.linalg.norm(vocab, axis=1, keepdims=True)
    q, upper = np.linalg.qr(rng.standard_normal((d, d)))
    rotation = q * np.sign(np.diag(upper))
    expected_fixed, expected_attn = [], []
    for n in lengths:
        hits_fixed = hits_attn = 0
        for _ in range(trials):
            words = rng.integers(0, vocab_size, size=n)
            h = np.zeros(d)
            for w in words:
                h = rotation @ h + vocab[w]
            for t, w in enumerate(words):
                back = h.copy()
                for _ in range(n - 1 - t):
                    back = rotation.T @ back
                hits_fixed += int(np.argmax(vocab @ back) == w)
            keys = rng.standard_normal((n, d))
            keys /= np.linalg.norm(keys, axis=1, keepdims=True)
            for t, w in enumerate(words):
                out, _ = attention(20.0 * keys[t], keys, vocab[words], scale=False)
                hits_attn += int(np.argmax(vocab @ out) == w)
        expected_fixed.append(hits_fixed / (n * trials))
        expected_attn.append(hits_attn / (n * trials))
    np.testing.assert_allclose(r.fixed_memory, expected_fixed)
    np.testing.assert_allclose(r.attention, expected_attn)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_bottleneck_claim_holds_for_other_seeds(seed):
    r = experiments.bottleneck_recall(lengths=[5, 60], n_trials=10, seed=seed)
    assert r.fixed_memory[0] > r.fixed_memory[1] + 0.4
    assert np.all(r.attention >= 0.95)


@pytest.mark.slow
def test_bottleneck_attention_recall_comes_from_the_built_in_sharpness():
    # What the lesson says is built in: without the sharpening, the same position codes no
    # longer find the slot at 60 words; the attention memory holds n * d numbers.
    sharp = experiments.bottleneck_recall(lengths=[60], n_trials=5, seed=0)
    blunt = experiments.bottleneck_recall(lengths=[60], n_trials=5, seed=0, sharpness=1.0)
    assert sharp.sharpness == 20.0 and blunt.sharpness == 1.0
    assert sharp.attention[0] >= 0.95 and blunt.attention[0] < 0.5
    np.testing.assert_array_equal(sharp.fixed_memory, blunt.fixed_memory)
    assert sharp.attention_numbers.tolist() == [60 * 128]


@pytest.mark.slow
def test_bottleneck_is_reproducible_with_a_seed():
    a = experiments.bottleneck_recall(lengths=[10, 20], n_trials=5, seed=11)
    b = experiments.bottleneck_recall(lengths=[10, 20], n_trials=5, seed=11)
    assert np.array_equal(a.fixed_memory, b.fixed_memory)


def test_bahdanau_table1_quote():
    assert experiments.BAHDANAU_TABLE1_BLEU == {"RNNencdec-50": 17.82, "RNNsearch-50": 26.75}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"lengths": []}, ValueError),
        ({"lengths": [0, 5]}, ValueError),
        ({"lengths": [2.5]}, ValueError),
        ({"seed": 1.5}, TypeError),
        ({"d": 1}, ValueError),
        ({"sharpness": 0.0}, ValueError),
        ({"sharpness": np.nan}, ValueError),
    ],
)
def test_bottleneck_rejects_bad_input(kwargs, error):
    with pytest.raises(error):
        experiments.bottleneck_recall(**kwargs)


# --- b. 1/sqrt(d_k) ------------------------------------------------------------------------------


def test_scale_factor_reference_values():
    assert experiments.scale_factor("none", 64) == 1.0
    assert experiments.scale_factor("1/d_k", 64) == 1 / 64
    assert experiments.scale_factor("1/sqrt(d_k)", 64) == 1 / 8
    with pytest.raises(ValueError, match="scaling must be one of"):
        experiments.scale_factor("sqrt", 4)


def test_unscaled_variance_grows_like_dk_and_sqrt_scaling_keeps_it_at_one():
    r = experiments.score_variance(seed=0)
    assert r.d_ks.tolist() == [2, 4, 8, 16, 32, 64, 128, 256, 512]
    np.testing.assert_allclose(r.variance["none"], r.d_ks, rtol=0.15)
    np.testing.assert_allclose(r.variance["1/sqrt(d_k)"], 1.0, rtol=0.15)
    np.testing.assert_allclose(r.variance["1/d_k"], 1.0 / r.d_ks, rtol=0.15)


def test_variance_extreme_dk_one_is_variance_of_a_product():
    # d_k = 1: q.k is a product of two N(0,1) numbers, whose variance is exactly 1; all three
    # scalings coincide.
    r = experiments.score_variance(d_ks=[1], n_samples=20000, seed=5)
    for s in experiments.SCALINGS:
        assert r.variance[s][0] == pytest.approx(1.0, rel=0.1)


@pytest.mark.parametrize("seed", [1, 99])
def test_variance_ratio_between_scalings_is_exact(seed):
    # The three scalings scale one measured variance by 1, 1/d^2 and 1/d.
    r = experiments.score_variance(d_ks=[3, 50], n_samples=500, seed=seed)
    np.testing.assert_allclose(r.variance["1/d_k"] * r.d_ks**2, r.variance["none"])
    np.testing.assert_allclose(r.variance["1/sqrt(d_k)"] * r.d_ks, r.variance["none"])


def test_softmax_saturates_without_scaling_and_flattens_with_one_over_dk():
    r = experiments.softmax_saturation(seed=0)
    none, by_d, by_sqrt = (r.max_weight[s] for s in experiments.SCALINGS)
    assert none[-1] > 0.99, "unscaled scores at d_k=512 give a near one-hot softmax"
    assert r.losing_gradient["none"][-1] < 1e-3, "...and no gradient for the losing keys"
    assert by_d[-1] == pytest.approx(1 / r.n_keys, abs=0.02), "1/d_k flattens to uniform"
    # 1/sqrt(d_k): the same peakedness at every size, and usable gradient everywhere.
    assert by_sqrt.max() - by_sqrt.min() < 0.1
    assert np.all(r.losing_gradient["1/sqrt(d_k)"] > 0.03)
    assert np.all(np.diff(none) > 0), "the unscaled softmax gets steadily more peaked"


def test_saturation_reference_against_softmax_directly():
    # Reference: recompute one entry from the same random draws.
    d_k, n_keys, trials = 4, 3, 50
    r = experiments.softmax_saturation(d_ks=[d_k], n_keys=n_keys, n_trials=trials, seed=8)
    rng = np.random.default_rng(8)
    q = rng.standard_normal((trials, 1, d_k))
    k = rng.standard_normal((trials, n_keys, d_k))
    w = softmax(np.sum(q * k, axis=-1) / np.sqrt(d_k))
    assert r.max_weight["1/sqrt(d_k)"][0] == pytest.approx(np.median(w.max(axis=1)))


def test_saturation_rejects_a_single_key():
    with pytest.raises(ValueError, match="n_keys"):
        experiments.softmax_saturation(n_keys=1)


# --- c. word order ------------------------------------------------------------------------------


def test_self_attention_cannot_tell_who_bit_whom_until_positions_are_added():
    r = experiments.word_order_test(seed=0)
    assert r.sentence_a == ("the", "dog", "bit", "the", "man")
    assert r.sentence_b == ("the", "man", "bit", "the", "dog")
    assert r.max_diff_without_positions < 1e-12
    assert r.max_diff_with_positions > 0.05
    # The scores of the reordered sentence are the original scores, reordered.
    p = r.permutation
    np.testing.assert_allclose(r.scores_b, r.scores_a[np.ix_(p, p)])


@pytest.mark.parametrize("seed", [0, 3, 42])
def test_word_order_on_random_shuffles(seed):
    rng = np.random.default_rng(seed)
    words = ("ravi", "hit", "the", "ball", "hard", "today")
    shuffled = tuple(rng.permutation(words))
    r = experiments.word_order_test(words, shuffled, d=8, seed=seed)
    assert r.max_diff_without_positions < 1e-12
    if shuffled != words:
        assert r.max_diff_with_positions > 1e-3


def test_a_causal_mask_makes_self_attention_see_word_order_without_positions():
    # Equivariance holds only without a causal mask: with one, "dog" sees different earlier words
    # in the two sentences, so its output changes even with no positional encoding.
    r = experiments.word_order_test(seed=0, causal=True)
    assert r.max_diff_without_positions > 0.05
    same = experiments.word_order_test(("a", "b", "c"), ("a", "b", "c"), d=4, causal=True)
    assert same.max_diff_without_positions == 0.0


def test_word_order_identity_is_the_extreme_case():
    r = experiments.word_order_test(("a", "b"), ("a", "b"), d=4)
    assert r.max_diff_without_positions == 0.0 and r.max_diff_with_positions == 0.0


def test_positional_encoding_really_changes_the_embedding():
    assert np.abs(positional_encoding(5, 16)[1:] - positional_encoding(5, 16)[0]).max() > 0.1


@pytest.mark.parametrize(
    ("b", "d"), [(("the", "dog"), 16), (("the", "dog", "bit", "the", "cat"), 16), (None, 3)]
)
def test_word_order_rejects_non_reorderings_and_odd_sizes(b, d):
    a = ("the", "dog", "bit", "the", "man")
    with pytest.raises(ValueError):
        experiments.word_order_test(a, b or a, d=d)


# --- d. hard vs soft -----------------------------------------------------------------------------


def test_hard_is_a_step_function_and_soft_is_smooth():
    coarse = experiments.hard_vs_soft_sweep(ISRO.K, ISRO.V, n_points=181)
    fine = experiments.hard_vs_soft_sweep(ISRO.K, ISRO.V, n_points=1801)
    # Hard outputs are always one of the values: a step function.
    values = {tuple(v) for v in ISRO.V}
    assert {tuple(h) for h in coarse.hard} == values
    # Its finite-difference "slope" at a jump grows with the refinement (no derivative there)...
    ratio = np.abs(fine.hard_slope).max() / np.abs(coarse.hard_slope).max()
    assert ratio == pytest.approx(10.0, rel=0.05)
    # ...and is exactly 0 away from the jumps.
    assert np.mean(np.all(coarse.hard_slope == 0, axis=1)) > 0.9
    # The soft slope converges: a real, finite derivative.
    assert np.abs(fine.soft_slope).max() == pytest.approx(np.abs(coarse.soft_slope).max(), rel=0.05)
    assert np.all(np.isfinite(coarse.soft_slope))


def test_hard_vs_soft_reference_point_is_the_chapters_example():
    # At 45 degrees with radius sqrt(2) the query is [1, 1]: Chandrayaan's query.
    sweep = experiments.hard_vs_soft_sweep(ISRO.K, ISRO.V, radius=np.sqrt(2))
    i = int(np.argmin(np.abs(sweep.angles_deg - 45.0)))
    assert sweep.angles_deg[i] == pytest.approx(45.0)
    np.testing.assert_allclose(sweep.queries[i], [1, 1], atol=1e-12)
    np.testing.assert_allclose(sweep.soft[i], [0.993, 2.510], atol=5e-4)
    np.testing.assert_allclose(sweep.hard[i], ISRO.V[2])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_vs_soft_on_random_keys(seed):
    rng = np.random.default_rng(seed)
    K, V = rng.standard_normal((4, 2)), rng.standard_normal((4, 3))
    s = experiments.hard_vs_soft_sweep(K, V, n_points=31, start_deg=0, stop_deg=360)
    expected_soft, _ = attention(s.queries, K, V)
    expected_hard, _ = hard_attention(s.queries, K, V)
    np.testing.assert_allclose(s.soft, expected_soft)
    np.testing.assert_allclose(s.hard, expected_hard)


def test_hard_vs_soft_rejects_non_2d_keys():
    with pytest.raises(ValueError, match="shape"):
        experiments.hard_vs_soft_sweep(np.ones((3, 3)), np.ones((3, 2)))


# --- e. cross-attention ---------------------------------------------------------------------------


def test_cross_attention_aligns_the_hindi_verb_with_gave():
    r = experiments.cross_attention_alignment()
    assert r.source == ("Ravi", "gave", "the", "book", "to", "Meera")
    assert r.target == ("Ravi", "ne", "Meera", "ko", "kitab", "di")
    assert dict(zip(r.target, r.aligned_to, strict=True)) == {
        "Ravi": "Ravi",
        "ne": "Ravi",
        "Meera": "Meera",
        "ko": "to",
        "kitab": "book",
        "di": "gave",
    }
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0)
    assert r.weights.max(axis=1).min() > 0.7


def test_cross_attention_sharpness_extremes():
    flat = experiments.cross_attention_alignment(sharpness=1e-6)
    np.testing.assert_allclose(flat.weights, 1 / 6, atol=1e-5)
    sharp = experiments.cross_attention_alignment(sharpness=200.0)
    assert sharp.weights.max(axis=1).min() > 0.999
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="sharpness"):
            experiments.cross_attention_alignment(sharpness=bad)


# --- f. parallel rows ---------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(1, 1), (8, 4), (33, 16)])
def test_attention_rows_are_independent_and_rnn_steps_are_not(n, d):
    r = experiments.rnn_vs_attention_steps(n=n, d=d, repeat=1, seed=n)
    assert r.rows_match
    assert r.rnn_sequential_steps == n and r.attention_sequential_steps == 3
    assert min(r.rnn_seconds, r.attention_seconds, r.attention_row_by_row_seconds) > 0
    assert r.loop_ratio == r.attention_row_by_row_seconds / r.attention_seconds
    # Vaswani et al. Table 1: O(n d^2) per recurrent layer, O(n^2 d) per attention layer.
    assert r.rnn_multiplications == 2 * n * d * d
    assert r.attention_multiplications == 2 * n * n * d


def test_rnn_vs_attention_rejects_bad_sizes():
    with pytest.raises(ValueError):
        experiments.rnn_vs_attention_steps(n=0)


# --- additive vs dot ----------------------------------------------------------------------------


def test_additive_and_dot_scores_reference():
    r = experiments.additive_vs_dot(n=5, d=3, d_attn=7, seed=4)
    rng = np.random.default_rng(4)
    s, H = rng.standard_normal(3), rng.standard_normal((5, 3))
    W = rng.standard_normal((7, 3)) / np.sqrt(3)
    U = rng.standard_normal((7, 3)) / np.sqrt(3)
    v = rng.standard_normal(7)
    np.testing.assert_allclose(r.additive_scores, [v @ np.tanh(W @ s + U @ h) for h in H])
    np.testing.assert_allclose(r.dot_scores, H @ s)
    np.testing.assert_allclose(r.additive_weights.sum(), 1.0)
    np.testing.assert_allclose(r.dot_weights, softmax(H @ s))
    assert r.additive_parameters == 7 * 3 + 7 * 3 + 7


def test_additive_vs_dot_extreme_single_state():
    r = experiments.additive_vs_dot(n=1, d=1, d_attn=1, seed=0)
    assert r.additive_weights.tolist() == [1.0] and r.dot_weights.tolist() == [1.0]


# --- g. a dot product is lengths times the cosine (issue 27 item 1) ---


def test_dot_geometry_splits_the_tiffin_scores_into_lengths_and_angles():
    g = experiments.dot_geometry(TIFFIN.query(), TIFFIN.K)
    np.testing.assert_allclose(g.scores, [3, 1, 2, 1])
    np.testing.assert_allclose(g.products, g.scores)
    np.testing.assert_allclose(g.key_lengths, np.sqrt([5, 1, 2, 1]))
    np.testing.assert_allclose(g.angles_deg, [np.degrees(np.arctan(1 / 3)), 45, 0, 45], atol=1e-9)
    # the key most in line with the query ("it") is not the one that wins ("tiffin")
    assert TIFFIN.tokens[g.best_aligned] == "it"
    assert TIFFIN.tokens[g.best_scored] == "tiffin"
    table = g.table(TIFFIN.tokens).splitlines()
    assert table[-1] == "lined up best: it | largest score: tiffin"
    assert table[3].split() == ["it", "1.414", "1.414", "0.0°", "1.000", "2.000", "2"]
    _, weights = attention(TIFFIN.query(), TIFFIN.K, TIFFIN.V, scale=False)
    assert np.argmax(weights) == g.best_scored


def test_dot_geometry_rejects_zero_vectors():
    with pytest.raises(ValueError, match="length > 0"):
        experiments.dot_geometry([0, 0], [[1, 0]])
    with pytest.raises(ValueError, match="length > 0"):
        experiments.dot_geometry([1, 1], [[1, 0], [0, 0]])


# --- h. a weight is not an influence (issue 27 item 6) ---


def test_swapping_keys_of_tokens_with_equal_values_moves_weight_but_not_the_output():
    equal = np.array(TIFFIN.V)
    equal[1] = equal[0]  # bag carries tiffin's value
    swap = experiments.swap_keys(TIFFIN.query(), TIFFIN.K, equal, 0, 1)
    np.testing.assert_allclose(swap.weights_before[[0, 1]], swap.weights_after[[1, 0]])
    assert swap.weight_moved == pytest.approx(0.5277, abs=1e-4)  # 0.610 -> 0.083
    assert swap.output_moved == 0.0
    # with the chapter's own (different) values the same swap moves the output a lot
    other = experiments.swap_keys(TIFFIN.query(), TIFFIN.K, TIFFIN.V, 0, 1)
    assert other.weight_moved == swap.weight_moved and other.output_moved > 2


def test_swap_keys_rejects_a_row_that_does_not_exist():
    with pytest.raises(ValueError, match="row of keys"):
        experiments.swap_keys([1, 1], [[1, 0], [0, 1]], [[1, 1], [2, 2]], 0, 2)


def test_shuffling_the_tiffin_sentence_reorders_the_matrix_and_moves_no_output():
    result = experiments.shuffled_self_attention(
        TIFFIN.tokens, TIFFIN.Q, TIFFIN.K, TIFFIN.V, order=(1, 3, 0, 2), scale=False
    )
    assert result.shuffled_tokens == ("bag", "big", "tiffin", "it")
    assert result.weights_follow and result.output_change < 1e-12
    # the row of "it" is the chapter's row, its entries reordered with the words
    it = result.shuffled_tokens.index("it")
    np.testing.assert_allclose(result.shuffled_weights[it], result.weights[2][[1, 3, 0, 2]])
    # a causal mask would break this; without one, any order gives the same per-word outputs
    again = experiments.shuffled_self_attention(
        TIFFIN.tokens, TIFFIN.Q, TIFFIN.K, TIFFIN.V, order=(3, 2, 1, 0)
    )
    assert again.weights_follow and again.output_change < 1e-12
    with pytest.raises(ValueError, match="each of the positions"):
        experiments.shuffled_self_attention(
            TIFFIN.tokens, TIFFIN.Q, TIFFIN.K, TIFFIN.V, (0, 0, 1, 2)
        )
