"""Assignment checks: what one hidden test cell costs a grading kernel.

A test cell's hidden check runs the student's function on every case (small, overflow-size,
random shapes, masked rows) behind the library tripwires. Measured on a correct numpy
implementation; the baseline is one plain call of the same function on the chapter's example,
so the ratio is the price of checking thoroughly.
"""

from __future__ import annotations

import numpy as np

from attention_lab import checks
from benchmarks import Row, format_ms, median_p90, timings_ms


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(K.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax(scores)
    return weights @ V, weights


def rows() -> list[Row]:
    """Measure the checks' rows: one answer check, median over repeats."""
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    V = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 4.0]])
    answer = _attention(np.array([[0.0, 1.0]]), K, V)[0][0]  # a right hand answer, computed
    plain = median_p90(timings_ms(lambda: _attention(K, K, V), repeat=200))
    cases = [
        ("check_softmax_function (hidden, 6 inputs)", lambda: checks.check_softmax_function(_softmax)),
        ("check_attention_function (hidden, 5 inputs)", lambda: checks.check_attention_function(_attention)),
        ("check_output (hand answer, 12 candidates)", lambda: checks.check_output(answer, [0, 1], K, V, True)),
    ]  # fmt: skip
    out = []
    for case, fn in cases:
        median, p90 = median_p90(timings_ms(fn, repeat=30))
        out.append(
            Row(
                area="assignments",
                case=case,
                value=format_ms(median, p90, 2),
                baseline=f"one attention call {plain[0]:.3f} ms",
                ratio=f"{median / plain[0]:.0f}x one call",
            )
        )
    return out
