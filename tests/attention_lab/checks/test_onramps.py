"""The on-ramps' checks: a matrix product, a head's weights before training, spot the mistake."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.checks import AnswerFormatError, WrongAnswer
from attention_lab.checks.onramps import (
    check_matrix_product,
    check_spotted_mistakes,
    check_start_weights,
)
from attention_lab.core import positional_encoding, softmax
from attention_lab.layer_mistakes import MISTAKE_NAMES, SPOT_THE_MISTAKE

A, B = np.array([[1, 2], [3, 0]]), np.array([[2, 1], [0, 1]])


def test_the_product_passes_and_each_slip_is_named():
    check_matrix_product((A @ B).tolist(), A, B)
    for wrong, says in (
        (A * B, "one by one"), (B @ A, "other order"), (A @ B.T, "rows where its columns"),
        ((A @ B).T, "swapped places"), (A @ B + 1, "not right yet"),
    ):  # fmt: skip
        with pytest.raises(WrongAnswer, match=says) as err:
            check_matrix_product(wrong.tolist(), A, B)
        assert str((A @ B).tolist()) not in str(err.value)
    with pytest.raises(AnswerFormatError):
        check_matrix_product([1, 2, 3], A, B)


@pytest.mark.parametrize("position", [0, 3, 5])
def test_start_weights_share_equally_what_the_mask_lets_through(position):
    seen = np.arange(6) <= position
    check_start_weights(list(seen / seen.sum()), position, 6)
    if position < 5:  # the last position sees all six: 1/6 each is then right
        with pytest.raises(WrongAnswer, match="causal mask"):
            check_start_weights([1 / 6] * 6, position, 6)


def test_start_weights_name_the_trained_pattern_and_a_bad_total():
    pattern = np.eye(6)[2]
    with pytest.raises(WrongAnswer, match="training might reach"):
        check_start_weights(pattern, 3, 6)
    with pytest.raises(WrongAnswer, match="add up to 1"):
        check_start_weights([1, 1, 1, 1, 0, 0], 3, 6)
    with pytest.raises(ValueError):
        check_start_weights([1] * 6, 6, 6)


def test_spot_the_mistake_accepts_the_right_match_only():
    right = [m.mistake for m in SPOT_THE_MISTAKE]
    check_spotted_mistakes(right)
    assert right != list(MISTAKE_NAMES), "the lines must not come in the order the lesson lists"
    with pytest.raises(WrongAnswer, match="2 of 4 are right"):
        check_spotted_mistakes([right[1], right[0], *right[2:]])
    with pytest.raises(WrongAnswer, match="twice"):
        check_spotted_mistakes([right[0]] * 4)
    with pytest.raises(AnswerFormatError, match="not one of the four names"):
        check_spotted_mistakes(["typo", *right[1:]])
    with pytest.raises(AnswerFormatError):
        check_spotted_mistakes("shared W_Q")


def _right(X, W_Q, W_K, W_V, pe, d_k):
    Xp = X + pe
    return softmax((Xp @ W_Q) @ (Xp @ W_K).T / np.sqrt(d_k)) @ (Xp @ W_V)


def test_every_line_holds_a_real_mistake():
    """Each line, run on random inputs, differs from the right computation it replaces."""
    rng = np.random.default_rng(0)
    n, d, d_k = 5, 4, 4
    X = rng.normal(size=(n, d))
    names = {k: rng.normal(size=(d, d_k)) for k in ("W_Q", "W_K", "W_V", "W_Q1", "W_K2")}
    pe = positional_encoding(n, d)
    for line in SPOT_THE_MISTAKE:
        ns = {"np": np, "softmax": softmax, "X": X, "pe": pe, "d_k": d_k, **names}
        exec(line.code, ns)
        got = ns[line.computes]
        if line.mistake == "positions after":
            expected = _right(X, names["W_Q"], names["W_K"], names["W_V"], pe, d_k)
        elif line.mistake == "shared W_Q":
            expected = (X @ names["W_Q"]) @ (X @ names["W_K2"]).T / np.sqrt(d_k)
        else:
            expected = (X @ names["W_Q"]) @ (X @ names["W_K"]).T / np.sqrt(d_k)
        assert got.shape == expected.shape and not np.allclose(got, expected), line.letter
