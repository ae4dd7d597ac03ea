"""attention_lab.heads: several heads, concatenated, mixed by W_O."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.examples import TIFFIN
from attention_lab.heads import TIFFIN_HEADS, TIFFIN_W_O, Head, multi_head_attention
from attention_lab.projections import projected_attention, tiffin_embeddings


def test_the_two_tiffin_heads_link_it_to_different_words():
    result = multi_head_attention(tiffin_embeddings(), TIFFIN_HEADS, TIFFIN_W_O)
    it = TIFFIN.tokens.index("it")
    looks = [TIFFIN.tokens[int(np.argmax(h.weights[it]))] for h in result.heads]
    assert looks == ["tiffin", "big"]
    assert all(h.weights[it].max() > 0.5 for h in result.heads)


def test_concat_and_w_o_have_the_shapes_of_d2l():
    rng = np.random.default_rng(1)
    n, d_model, d_k, d_v, h = 5, 6, 3, 2, 3
    heads = [
        Head(f"h{i}", rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)),
             rng.normal(size=(d_model, d_v)))
        for i in range(h)
    ]  # fmt: skip
    X, W_O = rng.normal(size=(n, d_model)), rng.normal(size=(h * d_v, d_model))
    result = multi_head_attention(X, heads, W_O)
    assert result.concat.shape == (n, h * d_v) and result.output.shape == (n, d_model)
    outputs = [projected_attention(X, hd.W_Q, hd.W_K, hd.W_V).output for hd in heads]
    assert np.allclose(result.concat, np.hstack(outputs))
    assert np.allclose(result.output, np.hstack(outputs) @ W_O)
    shapes = result.shapes()
    assert shapes["concat"] == (n, h * d_v) and shapes["weights of head 3"] == (n, n)


def test_bad_heads_and_w_o_get_clear_errors():
    with pytest.raises(TypeError, match="sequence of Head"):
        multi_head_attention(tiffin_embeddings(), [], TIFFIN_W_O)
    with pytest.raises(ValueError, match="W_O has 2 rows"):
        multi_head_attention(tiffin_embeddings(), TIFFIN_HEADS, np.eye(2))
