"""The chapters' own code (attention_lab.chapter_code) gives the chapters' numbers and agrees
with attention_lab on them and on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import attention, chapter_code
from attention_lab.examples import ISRO, TIFFIN


def _as_dicts(example):
    keys = {t: tuple(k) for t, k in zip(example.tokens, example.K.tolist(), strict=True)}
    values = {t: tuple(v) for t, v in zip(example.tokens, example.V.tolist(), strict=True)}
    return keys, values


def test_chapter_a_plain_python_prints_the_chapter_numbers():
    keys, values = _as_dicts(TIFFIN)
    scores, weights, output = chapter_code.plain_python_attention((1, 1), keys, values)
    assert scores == {"tiffin": 3, "bag": 1, "it": 2, "big": 1}
    assert {w: round(x, 3) for w, x in weights.items()} == {
        "tiffin": 0.61, "bag": 0.083, "it": 0.225, "big": 0.083,
    }  # fmt: skip
    assert [round(x, 2) for x in output] == [3.91, 2.83]
    lib_out, lib_w = attention(TIFFIN.query(), TIFFIN.K, TIFFIN.V, scale=False)
    assert np.allclose(output, lib_out) and np.allclose(list(weights.values()), lib_w)


def test_chapter_a_code_uses_no_numpy_and_overflows_like_the_chapter():
    source = chapter_code.listing(chapter_code.plain_python_attention).source
    assert "np." not in source and "math.exp" in source
    with pytest.raises(OverflowError):
        chapter_code.plain_python_attention((1000,), {"a": (1,)}, {"a": (1,)})


def test_chapter_b_numpy_prints_the_chapter_numbers():
    scores, weights, output = chapter_code.numpy_attention_row(ISRO.Q, ISRO.K, ISRO.V, row=2)
    assert np.round(scores, 3).tolist() == [0.707, 0.707, 1.414]
    assert np.round(weights, 3).tolist() == [0.248, 0.248, 0.503]
    assert np.round(output, 3).tolist() == [0.993, 2.51]


@pytest.mark.parametrize("seed", range(5))
def test_both_agree_with_attention_lab_on_random_inputs(seed):
    rng = np.random.default_rng(seed)
    n_q, n_k, d, d_v = rng.integers(1, 6, size=4)
    Q, K, V = rng.normal(size=(n_q, d)), rng.normal(size=(n_k, d)) * 3, rng.normal(size=(n_k, d_v))
    out, w = attention(Q, K, V)
    for row in range(n_q):
        _, weights, output = chapter_code.numpy_attention_row(Q, K, V, row)
        assert np.allclose(weights, w[row]) and np.allclose(output, out[row])
        keys = {f"w{j}": tuple(K[j]) for j in range(n_k)}
        values = {f"w{j}": tuple(V[j]) for j in range(n_k)}
        _, plain_w, plain_out = chapter_code.plain_python_attention(tuple(Q[row]), keys, values)
        unscaled_out, unscaled_w = attention(Q[row], K, V, scale=False)
        assert np.allclose(list(plain_w.values()), unscaled_w)
        assert np.allclose(plain_out, unscaled_out)


def test_chapter_b_softmax_survives_large_scores():
    weights = chapter_code.softmax_row(np.array([1000.0, 1001.0, 999.0]))
    assert np.isfinite(weights).all() and np.isclose(weights.sum(), 1.0)


def test_listing_shows_the_source_as_a_code_block():
    shown = chapter_code.listing(chapter_code.softmax_row)
    assert shown._repr_markdown_().startswith("```python\ndef softmax_row(x):")
    assert "np.max(x)" in repr(shown)
