"""attention_lab.projections: X @ W, one projected head, the rotation-and-stretch W_Q."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import attention, positional_encoding
from attention_lab.examples import TIFFIN
from attention_lab.projections import (
    LESSON_W_K,
    LESSON_W_Q,
    LESSON_W_V,
    project,
    projected_attention,
    rotation_stretch,
    tiffin_embeddings,
)


def test_identity_projections_give_back_the_chapters_scores_and_weights():
    X = tiffin_embeddings()
    eye = np.eye(2)
    head = projected_attention(X, eye, eye, eye, scale=False)
    it = TIFFIN.tokens.index("it")
    assert head.scores[it].tolist() == [3, 1, 2, 1]  # chapter A's scores of "it"
    _, chapter = attention(TIFFIN.query(), TIFFIN.K, TIFFIN.V, scale=False)
    assert np.allclose(head.weights[it], chapter)


def test_projected_attention_is_attention_on_the_projected_vectors():
    rng = np.random.default_rng(0)
    X, P = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    W_Q, W_K, W_V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    head = projected_attention(X, W_Q, W_K, W_V, positions=P)
    out, w = attention((X + P) @ W_Q, (X + P) @ W_K, (X + P) @ W_V)
    assert head.Q.shape == (5, 3) and head.V.shape == (5, 2) and head.weights.shape == (5, 5)
    assert np.allclose(head.output, out) and np.allclose(head.weights, w)
    assert np.allclose(head.weights.sum(axis=1), 1)


def test_lesson_matrices_are_read_only():
    for W in (LESSON_W_Q, LESSON_W_K, LESSON_W_V):
        with pytest.raises(ValueError):
            W[0, 0] = 5.0


def test_project_one_vector_and_a_clear_error_for_mismatched_shapes():
    assert project([1, 1], LESSON_W_Q).tolist() == [2, 1]
    with pytest.raises(ValueError, match="W_Q has 3 rows"):
        project(np.ones((4, 2)), np.ones((3, 2)), "W_Q")
    with pytest.raises(ValueError, match="same length"):
        projected_attention(np.ones((4, 2)), np.ones((2, 3)), np.ones((2, 2)), np.eye(2))
    with pytest.raises(ValueError, match="positions have shape"):
        projected_attention(np.ones((4, 2)), np.eye(2), np.eye(2), np.eye(2), np.ones((3, 2)))


def test_rotation_stretch_turns_and_scales_a_row_vector():
    W = rotation_stretch(90, 2.0)
    assert np.allclose(np.array([1.0, 0.0]) @ W, [0.0, 2.0])  # anticlockwise, twice as long
    assert np.allclose(rotation_stretch(0, 1), np.eye(2))
    for bad in (0, -1, np.nan):
        with pytest.raises(ValueError, match="stretch must be a positive number"):
            rotation_stretch(0, bad)


def test_positions_go_into_the_inputs():
    X = tiffin_embeddings()
    pe = positional_encoding(4, 2)
    head = projected_attention(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V, positions=pe)
    assert np.allclose(head.inputs, X + pe)
    assert np.allclose(head.Q, (X + pe) @ LESSON_W_Q)


def test_the_weights_table_reads_across_and_down():
    """Issue 39: lesson 6 printed the weights as one cramped line per word."""
    layer = projected_attention(tiffin_embeddings(), LESSON_W_Q, LESSON_W_K, LESSON_W_V)
    lines = layer.weights_table(TIFFIN.tokens).splitlines()
    assert lines[0].split() == ["looks", "at", *TIFFIN.tokens]
    for word, row, line in zip(TIFFIN.tokens, layer.weights, lines[1:], strict=True):
        assert line.split() == [word, *(f"{w:.3f}" for w in row)]
    columns = {len(line) for line in lines}
    assert len(columns) == 1  # every row as wide as the header: the numbers sit under their word
