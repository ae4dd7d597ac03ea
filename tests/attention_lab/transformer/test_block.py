"""attention_lab.transformer.block: one block, checked against an independent reference."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.transformer.block import (
    Parts,
    block_forward,
    feed_forward,
    init_block,
    layer_norm,
    multi_head_self_attention,
)


def _reference_encoder_layer(x, w, causal):
    """PyTorch's documented post-norm TransformerEncoderLayer, written out independently.

    norm_first=False, ReLU, no dropout; written by word and head by head with plain loops, independent of the library:
    ``x = norm1(x + self_attn(x))``, ``x = norm2(x + linear2(relu(linear1(x))))``.
    """
    n, d = x.shape

    def norm(v, g, b):
        out = np.empty_like(v)
        for i in range(len(v)):
            mu = sum(v[i]) / d
            var = sum((a - mu) ** 2 for a in v[i]) / d  # biased, as torch.nn.LayerNorm
            out[i] = [(a - mu) / np.sqrt(var + 1e-5) * g[j] + b[j] for j, a in enumerate(v[i])]
        return out

    heads = []
    for head in range(w.h):
        q, k, v = x @ w.W_Q[head], x @ w.W_K[head], x @ w.W_V[head]
        out = np.zeros((n, w.d_k))
        for i in range(n):
            seen = range(i + 1) if causal else range(n)
            s = [float(q[i] @ k[j]) / np.sqrt(w.d_k) for j in seen]
            e = [np.exp(a - max(s)) for a in s]
            for weight, j in zip(e, seen, strict=True):
                out[i] += weight / sum(e) * v[j]
        heads.append(out)
    middle = norm(x + np.hstack(heads) @ w.W_O, w.gamma1, w.beta1)
    hidden = np.maximum(0, middle @ w.W_1 + w.b_1)
    return norm(middle + hidden @ w.W_2 + w.b_2, w.gamma2, w.beta2)


@pytest.mark.parametrize("causal", [True, False])
def test_the_block_is_pytorchs_post_norm_encoder_layer(causal):
    w = init_block(12, 3, 20, seed=4)
    # norms with gains and biases other than 1 and 0, so they are tested too
    rng = np.random.default_rng(5)
    for g in (w.gamma1, w.gamma2):
        g[:] = rng.uniform(0.5, 1.5, size=g.shape)
    for b in (w.beta1, w.beta2, w.b_1, w.b_2):
        b[:] = rng.normal(size=b.shape)
    x = rng.normal(size=(6, 12))
    got = block_forward(x, w, Parts(causal=causal)).output
    assert np.allclose(got, _reference_encoder_layer(x, w, causal), atol=1e-10)


def test_a_batch_gives_each_sequence_its_own_result():
    w = init_block(8, 2, 16, seed=0)
    xs = np.random.default_rng(0).normal(size=(3, 5, 8))
    batch = block_forward(xs, w)
    for i in range(3):
        one = block_forward(xs[i], w)
        assert np.allclose(batch.output[i], one.output)
        assert np.allclose(batch.weights[i], one.weights)


def test_layer_norm_gives_each_position_mean_zero_and_variance_one():
    x = np.random.default_rng(1).normal(3.0, 5.0, size=(4, 7))
    y = layer_norm(x)
    assert np.allclose(y.mean(axis=-1), 0) and np.allclose(y.var(axis=-1), 1, atol=1e-4)
    assert np.allclose(layer_norm(x, 2 * np.ones(7), np.ones(7)), 2 * y + 1)
    # over the features, not the positions: the columns keep their differences
    assert not np.allclose(y.mean(axis=0), 0)


def test_the_causal_mask_hides_the_future_and_each_head_sums_to_one():
    w = init_block(8, 4, 16, seed=2)
    x = np.random.default_rng(2).normal(size=(5, 8))
    out, weights = multi_head_self_attention(x, w, causal=True)
    assert out.shape == (5, 8) and weights.shape == (4, 5, 5)
    assert np.allclose(weights.sum(axis=-1), 1)
    assert np.all(np.triu(weights, k=1) == 0)
    # changing a later word never changes an earlier word's output
    later = x.copy()
    later[3:] += 1.0
    assert np.allclose(multi_head_self_attention(later, w)[0][:3], out[:3])


def test_each_part_taken_out_changes_the_block_as_written():
    w = init_block(8, 2, 16, seed=3)
    x = np.random.default_rng(3).normal(size=(4, 8))
    attn, _ = multi_head_self_attention(x, w)
    no_res = block_forward(x, w, Parts(residual=False, feed_forward=False))
    assert np.allclose(no_res.output, layer_norm(attn, w.gamma1, w.beta1))
    no_norm = block_forward(x, w, Parts(norm=False))
    ffn_in = x + attn
    assert np.allclose(no_norm.output, ffn_in + feed_forward(ffn_in, w.W_1, w.b_1, w.W_2, w.b_2))
    no_ffn = block_forward(x, w, Parts(feed_forward=False))
    assert no_ffn.ffn is None and np.allclose(no_ffn.output, layer_norm(x + attn))
    pre = block_forward(x, w, Parts(norm_first=True))
    mid = x + multi_head_self_attention(layer_norm(x), w)[0]
    assert np.allclose(pre.output, mid + feed_forward(layer_norm(mid), w.W_1, w.b_1, w.W_2, w.b_2))


def test_bad_sizes_get_clear_errors():
    with pytest.raises(ValueError, match="not a multiple of h"):
        init_block(10, 4, 8)
    with pytest.raises(ValueError, match=r"expected \(n, 8\)"):
        block_forward(np.zeros((3, 5)), init_block(8, 2, 4))
