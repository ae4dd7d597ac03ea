"""attention_lab.experiments.positions: order is invisible without positions, visible with them."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import positional_encoding
from attention_lab.examples import TIFFIN
from attention_lab.experiments import order_change
from attention_lab.projections import LESSON_W_K, LESSON_W_Q, LESSON_W_V, tiffin_embeddings


def test_reversing_the_words_changes_no_output_without_positions_and_some_with():
    result = order_change(TIFFIN.tokens, tiffin_embeddings(), LESSON_W_Q, LESSON_W_K, LESSON_W_V)
    assert result.reordered == TIFFIN.tokens[::-1]
    assert result.without_positions < 1e-12
    assert result.with_positions > 0.5
    assert np.allclose(result.positions, positional_encoding(4, 2))


def test_any_permutation_and_clear_errors():
    rng = np.random.default_rng(2)
    X, W = rng.normal(size=(5, 4)), rng.normal(size=(4, 4))
    words = ("a", "b", "c", "d", "e")
    result = order_change(words, X, W, W.T, W, permutation=[2, 0, 1, 4, 3])
    assert result.reordered == ("c", "a", "b", "e", "d") and result.without_positions < 1e-12
    with pytest.raises(ValueError, match="each of 0..4 once"):
        order_change(words, X, W, W, W, permutation=[0, 0, 1, 2, 3])
    with pytest.raises(ValueError, match="one row per token"):
        order_change(words[:3], X, W, W, W)


def test_each_words_change_is_measured_and_the_largest_is_the_maximum():
    from attention_lab.projections import projected_attention

    X = np.array(TIFFIN.K)
    order = order_change(TIFFIN.tokens, X, LESSON_W_Q, LESSON_W_K, LESSON_W_V)
    assert order.word_changes.shape == (4,)
    assert order.word_changes.max() == pytest.approx(order.with_positions)
    assert order.most_moved == TIFFIN.tokens[int(np.argmax(order.word_changes))]
    # each word's own change, recomputed: its output in the reversed order against the first
    pe = order.positions
    first = projected_attention(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V, positions=pe).output
    second = projected_attention(X[::-1], LESSON_W_Q, LESSON_W_K, LESSON_W_V, positions=pe).output
    assert np.allclose(order.word_changes, np.abs(second[::-1] - first).max(axis=1))
