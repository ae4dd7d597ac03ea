"""The wrong stages of the misconception registry: small named functions, several entries each.

Each replaces one stage of the attention computation (:class:`attention_lab._steps.WrongComputation`)
or of one projected head (:class:`attention_lab._layer_steps.WrongLayer`) and returns None when
the mistake cannot happen for a question.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attention_lab._layer_steps import LayerCase
from attention_lab._steps import Case, one_hot, raw_scores, softmax
from attention_lab._types import BoolArray, FloatArray

#: A wrong softmax stage: scores and the axis in, weights (or None: cannot happen here) out.
Stage = Callable[[FloatArray, int], FloatArray | None]


def _totals(a: FloatArray, axis: int) -> FloatArray:
    """``a``'s sums along ``axis``, kept as an axis of length 1 (to divide by)."""
    totals: FloatArray = np.sum(a, axis=axis, keepdims=True)
    return totals


def unscaled(case: Case) -> FloatArray | None:
    return raw_scores(case) if case.scale else None


def scaled_anyway(case: Case) -> FloatArray | None:
    return None if case.scale else raw_scores(case) / np.sqrt(case.d_k)


def by_dk(case: Case) -> FloatArray:
    return raw_scores(case) / case.d_k


def by_tokens(case: Case) -> FloatArray:
    return raw_scores(case) / case.n_k


def by_sqrt_tokens(case: Case) -> FloatArray:
    return raw_scores(case) / float(np.sqrt(case.n_k))


def query_dot_values(case: Case) -> FloatArray | None:
    if case.V is None or case.V.shape[-1] != case.d_k:
        return None
    raw = case.Q @ case.V.T
    return raw / np.sqrt(case.d_k) if case.scale else raw


def softmax_of_scores(case: Case) -> FloatArray:
    raw = raw_scores(case)
    return softmax(raw / np.sqrt(case.d_k) if case.scale else raw)


def other_axis(x: FloatArray, axis: int) -> FloatArray | None:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2 or x.shape[0] < 2:
        return None
    return softmax(x, axis=0 if axis % x.ndim != 0 else -1)


def transposed(x: FloatArray, axis: int) -> FloatArray | None:
    """Row-wise weights read down a column: what the others give each word (square only)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] != x.shape[1] or x.shape[0] < 2:
        return None
    return softmax(x, axis=-1).T


def whole_array(x: FloatArray, axis: int) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    exps: FloatArray = np.exp(x - np.max(x))
    return exps / np.sum(exps)


def row_shift_whole_sum(x: FloatArray, axis: int) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    exps: FloatArray = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps)


def global_max(x: FloatArray, axis: int) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    exps: FloatArray = np.exp(x - np.max(x))
    return exps / _totals(exps, axis)


def clipped(limit: float) -> Stage:
    """Scores clipped to [-limit, limit] before exp (limits students pick: 88 is float32's)."""

    def clipped(x: FloatArray, axis: int) -> FloatArray:
        exps: FloatArray = np.exp(np.clip(np.asarray(x, dtype=np.float64), -limit, limit))
        return exps / _totals(exps, axis)

    return clipped


def capped(limit: float) -> Stage:
    """Return a softmax that caps only large scores at ``limit`` before exp (a one-sided clip).

    It ties the large ones, and a row far below 0 still underflows to 0/0.
    """

    def capped(x: FloatArray, axis: int) -> FloatArray:
        exps: FloatArray = np.exp(np.minimum(np.asarray(x, dtype=np.float64), limit))
        return exps / _totals(exps, axis)

    return capped


#: Limits students pick when they cap scores (709: exp's float64 limit; 88: float32's).
CAPS = (709.0, 700.0, 500.0, 300.0, 100.0, 88.0, 50.0, 20.0, 10.0)


def minus_inf_to_zero(x: FloatArray, axis: int) -> FloatArray:
    """-inf (a masked score) turned into 0 before the softmax, "to avoid nan"."""
    x = np.asarray(x, dtype=np.float64)
    return softmax(np.where(np.isneginf(x), 0.0, x), axis=axis)


def naive(x: FloatArray, axis: int) -> FloatArray:
    exps: FloatArray = np.exp(np.asarray(x, dtype=np.float64))
    return exps / _totals(exps, axis)


def by_sum(x: FloatArray, axis: int) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    return x / _totals(x, axis)


def hard_pick(pick: str) -> Stage:
    def hard(x: FloatArray, axis: int) -> FloatArray:
        return one_hot(x, axis=axis, pick=pick)

    return hard


def exps_shifted(x: FloatArray, axis: int) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    peak: FloatArray = np.max(x, axis=axis, keepdims=True)
    return np.exp(x - peak)


def exps(x: FloatArray, axis: int) -> FloatArray:
    return np.exp(np.asarray(x, dtype=np.float64))


def uniform(x: FloatArray, axis: int) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    return np.full_like(x, 1.0 / x.shape[axis])


def identity(x: FloatArray, *_: object) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def zero_masked(scores: FloatArray, mask: BoolArray) -> FloatArray:
    return np.where(mask, scores, 0.0)


def inverted(scores: FloatArray, mask: BoolArray) -> FloatArray:
    return np.where(~mask, scores, -np.inf)


def keys_blended(weights: FloatArray, case: Case) -> FloatArray:
    return weights @ case.K


def tril(n: int, k: int = 0) -> BoolArray:
    return np.tril(np.ones((n, n), dtype=bool), k=k)


def columns(scores: FloatArray) -> FloatArray:
    return softmax(scores, axis=0)


def transposed_rows(scores: FloatArray) -> FloatArray:
    return softmax(scores, axis=-1).T


def first_head_queries(case: LayerCase, inputs: FloatArray) -> FloatArray | None:
    return None if case.other_W_Q is None else inputs @ case.other_W_Q


def unprojected_scores(case: LayerCase, inputs: FloatArray) -> FloatArray:
    return inputs @ inputs.T / case.divisor


def without_positions(case: LayerCase) -> FloatArray | None:
    return None if case.positions is None else case.X


def positions_on_output(
    case: LayerCase, weights: FloatArray, values: FloatArray
) -> FloatArray | None:
    return None if case.positions is None else weights @ values + case.positions


def one_matrix_scores(case: LayerCase, inputs: FloatArray) -> FloatArray | None:
    if case.W_Q.shape[1] != case.W_K.shape[0]:
        return None
    return inputs @ (case.W_Q @ case.W_K) @ inputs.T / case.divisor
