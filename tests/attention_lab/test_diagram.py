"""The computation diagram: every step's shape and number, drawn and in the alt text, from the
computation itself, for the chapters' examples and for other inputs.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_lab import attention, demos, dot_product_scores
from attention_lab.diagram import multi_head_diagram, query_steps
from attention_lab.examples import ISRO, TIFFIN
from attention_lab.heads import TIFFIN_HEADS, TIFFIN_W_O, Head, multi_head_attention


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d{3}\b", text)]


def _drawn(fig) -> list[str]:
    fig.canvas.draw()
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [fig._suptitle.get_text()]


CASES = [
    ("isro", ISRO.query(), ISRO.K, ISRO.V, ISRO.tokens, True),
    ("tiffin", TIFFIN.query(), TIFFIN.K, TIFFIN.V, TIFFIN.tokens, False),
    # other inputs: 5 words, d_k = 3, d_v = 4, negative numbers
    ("random", *np.random.default_rng(3).normal(size=(3,)).reshape(1, 3),
     np.random.default_rng(4).normal(size=(5, 3)), np.random.default_rng(5).normal(size=(5, 4)),
     ("a", "b", "c", "d", "e"), True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("label", "q", "K", "V", "tokens", "scale"), CASES, ids=[c[0] for c in CASES]
)
def test_the_steps_are_the_attention_computation(label, q, K, V, tokens, scale):
    q = np.ravel(q)
    steps = query_steps(q, K, V, tokens, "query", scale=scale)
    output, weights = attention(q, K, V, scale=scale)
    assert np.allclose(steps.raw, dot_product_scores(q, K, scale=False))
    assert np.allclose(steps.scaled, dot_product_scores(q, K, scale=scale))
    assert np.allclose(steps.weights, weights) and np.allclose(steps.output, output)
    assert steps.terms.shape == np.shape(V) and np.allclose(steps.terms.sum(axis=0), output)


@pytest.mark.parametrize(
    ("label", "q", "K", "V", "tokens", "scale"), CASES, ids=[c[0] for c in CASES]
)
@pytest.mark.slow
def test_the_alt_text_and_the_drawing_give_every_number_and_shape(label, q, K, V, tokens, scale):
    q = np.ravel(q)
    diagram = demos.computation_diagram(q, K, V, tokens, "query", scale=scale)
    output, weights = attention(q, K, V, scale=scale)
    n, d_k, d_v = np.shape(K)[0], np.shape(K)[1], np.shape(V)[1]
    alt = diagram.alt_text
    for shape in (f"({d_k},)", f"({n}, {d_k})", f"({n},)", f"({n}, {d_v})", f"({d_v},)"):
        assert shape in alt
    listed = _numbers(alt)
    raw = dot_product_scores(q, K, scale=False)
    for arr in (raw, weights, np.exp(dot_product_scores(q, K, scale)), output,
                weights[:, None] * np.asarray(V)):  # fmt: skip
        for x in np.ravel(arr):
            assert any(abs(x - y) < 6e-4 for y in listed), (x, alt)
    drawn = " ".join(_drawn(diagram.figure))
    for x in np.ravel(np.concatenate([weights, output, raw])):
        assert f"{x:.3f}".replace("-0.000", "0.000") in drawn
    for shape in (f"shape ({n},)", f"shape ({n}, {d_v})", f"shape ({d_v},)"):
        assert shape in drawn
    assert ("÷ √" in drawn) == scale  # chapter A's example says it is not scaled
    assert diagram._repr_png_().startswith(b"\x89PNG")


@pytest.mark.slow
def test_the_chapters_numbers_are_in_the_diagrams():
    isro = demos.computation_diagram(ISRO.query(), ISRO.K, ISRO.V, ISRO.tokens, "Chandrayaan")
    for shown in ("0.707", "8.169", "0.248", "0.503", "(0.993, 2.510)"):
        assert shown in isro.alt_text
    tiffin = demos.computation_diagram(
        TIFFIN.query(), TIFFIN.K, TIFFIN.V, TIFFIN.tokens, "it", scale=False
    )
    for shown in ("32.911", "0.610", "0.083", "0.225", "(3.913, 2.826)", "no division"):
        assert shown in tiffin.alt_text


def test_bad_inputs_say_what_is_wrong():
    with pytest.raises(ValueError, match="one token, one key and one value"):
        query_steps([1, 1], ISRO.K, ISRO.V, ("a", "b"), "q")
    with pytest.raises(ValueError, match="the query has 3 numbers"):
        query_steps([1, 1, 1], ISRO.K, ISRO.V, ISRO.tokens, "q")


@pytest.mark.parametrize("row", [0, 2])
def test_the_multi_head_diagram_follows_one_word_through_every_head(row):
    X = np.array(TIFFIN.K)
    result = multi_head_attention(X, TIFFIN_HEADS, TIFFIN_W_O)
    diagram = multi_head_diagram(result, TIFFIN.tokens, row, [h.name for h in TIFFIN_HEADS])
    alt, drawn = diagram.alt_text, " ".join(_drawn(diagram.figure))
    listed = _numbers(alt)
    for arr in (*(h.weights[row] for h in result.heads), result.concat[row], result.output[row]):
        for x in arr:
            assert any(abs(x - y) < 6e-4 for y in listed)
            assert f"{x:.3f}" in drawn
    assert "shape (4,)" in alt and "shape (4, 2)" in alt and "W_O" in drawn


def test_the_multi_head_diagram_works_for_three_heads():
    rng = np.random.default_rng(0)
    heads = [Head(f"h{i}", *rng.normal(size=(3, 2, 2))) for i in range(3)]
    result = multi_head_attention(rng.normal(size=(5, 2)), heads, rng.normal(size=(6, 2)))
    diagram = multi_head_diagram(result, list("abcde"), 4, ["h0", "h1", "h2"])
    assert "shape (6,)" in diagram.alt_text and "shape (6, 2)" in diagram.alt_text
    with pytest.raises(ValueError, match="one name per head"):
        multi_head_diagram(result, list("abcde"), 4, ["h0"])
    with pytest.raises(ValueError, match="row must be"):
        multi_head_diagram(result, list("abcde"), 5, ["h0", "h1", "h2"])
