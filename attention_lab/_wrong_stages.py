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


def unscaled(case: Case):
    return raw_scores(case) if case.scale else None


def scaled_anyway(case: Case):
    return None if case.scale else raw_scores(case) / np.sqrt(case.d_k)


def by_dk(case: Case):
    return raw_scores(case) / case.d_k


def by_tokens(case: Case):
    return raw_scores(case) / case.n_k


def by_sqrt_tokens(case: Case):
    return raw_scores(case) / np.sqrt(case.n_k)


def query_dot_values(case: Case):
    if case.V is None or case.V.shape[-1] != case.d_k:
        return None
    raw = case.Q @ case.V.T
    return raw / np.sqrt(case.d_k) if case.scale else raw


def softmax_of_scores(case: Case):
    raw = raw_scores(case)
    return softmax(raw / np.sqrt(case.d_k) if case.scale else raw)


def other_axis(x, axis):
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[0] < 2:
        return None
    return softmax(x, axis=0 if axis % x.ndim != 0 else -1)


def transposed(x, axis):
    """Row-wise weights read down a column: what the others give each word (square only)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] != x.shape[1] or x.shape[0] < 2:
        return None
    return softmax(x, axis=-1).T


def whole_array(x, axis):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps)


def row_shift_whole_sum(x, axis):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps)


def global_max(x, axis):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def clipped(limit: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """Scores clipped to [-limit, limit] before exp (limits students pick: 88 is float32's)."""

    def clipped(x: np.ndarray, axis: int) -> np.ndarray:
        exps = np.exp(np.clip(np.asarray(x, dtype=float), -limit, limit))
        return exps / np.sum(exps, axis=axis, keepdims=True)

    return clipped


def capped(limit: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """Return a softmax that caps only large scores at ``limit`` before exp (a one-sided clip).

    It ties the large ones, and a row far below 0 still underflows to 0/0.
    """

    def capped(x: np.ndarray, axis: int) -> np.ndarray:
        exps = np.exp(np.minimum(np.asarray(x, dtype=float), limit))
        return exps / np.sum(exps, axis=axis, keepdims=True)

    return capped


#: Limits students pick when they cap scores (709: exp's float64 limit; 88: float32's).
CAPS = (709.0, 700.0, 500.0, 300.0, 100.0, 88.0, 50.0, 20.0, 10.0)


def minus_inf_to_zero(x, axis):
    """-inf (a masked score) turned into 0 before the softmax, "to avoid nan"."""
    x = np.asarray(x, dtype=float)
    return softmax(np.where(np.isneginf(x), 0.0, x), axis=axis)


def naive(x, axis):
    exps = np.exp(np.asarray(x, dtype=float))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def by_sum(x, axis):
    x = np.asarray(x, dtype=float)
    return x / np.sum(x, axis=axis, keepdims=True)


def hard_pick(pick: str) -> Callable[[np.ndarray, int], np.ndarray]:
    return lambda x, axis: one_hot(x, axis=axis, pick=pick)


def exps_shifted(x, axis):
    x = np.asarray(x, dtype=float)
    return np.exp(x - np.max(x, axis=axis, keepdims=True))


def exps(x, axis):
    return np.exp(np.asarray(x, dtype=float))


def uniform(x, axis):
    x = np.asarray(x, dtype=float)
    return np.full_like(x, 1.0 / x.shape[axis])


def identity(x, *_):
    return np.asarray(x, dtype=float)


def zero_masked(scores, mask):
    return np.where(mask, scores, 0.0)


def inverted(scores, mask):
    return np.where(~mask, scores, -np.inf)


def keys_blended(weights, case):
    return weights @ case.K


def tril(n: int, k: int = 0) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool), k=k)


def columns(scores):
    return softmax(scores, axis=0)


def transposed_rows(scores):
    return softmax(scores, axis=-1).T


def first_head_queries(case: LayerCase, inputs):
    return None if case.other_W_Q is None else inputs @ case.other_W_Q


def unprojected_scores(case: LayerCase, inputs):
    return inputs @ inputs.T / case.divisor


def without_positions(case: LayerCase):
    return None if case.positions is None else case.X


def positions_on_output(case: LayerCase, weights, values):
    return None if case.positions is None else weights @ values + case.positions


def one_matrix_scores(case: LayerCase, inputs):
    if case.W_Q.shape[1] != case.W_K.shape[0]:
        return None
    return inputs @ (case.W_Q @ case.W_K) @ inputs.T / case.divisor
