"""Attention computed in replaceable stages: the checks' reference and the registry's frame.

Scaled dot-product attention is four stages: scores (``Q K^T / sqrt(d_k)``), masking (masked
scores become ``-inf``), softmax along each row, and the blend (``weights @ V``). A
misconception in :mod:`attention_lab.misconceptions` is written as a :class:`WrongComputation`
that replaces one or more stages; :func:`compute` runs the stages with those replacements, so the
checks get the buggy scores, weights and output for any question's inputs from one place.

Everything here is permissive on purpose: a wrong computation may divide by zero or overflow
(that is often the misconception), so the functions return nan/inf instead of raising, and
warnings are silenced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import BoolArray, FloatArray

__all__ = [
    "Case",
    "Steps",
    "WrongComputation",
    "compute",
    "one_hot",
    "raw_scores",
    "scaled_scores",
    "softmax",
]


@dataclass(frozen=True)
class Case:
    """The inputs of one attention question.

    Attributes
    ----------
    Q : numpy.ndarray, shape (n_q, d_k)
        The queries (a single query is one row).
    K : numpy.ndarray, shape (n_k, d_k)
    V : numpy.ndarray, shape (n_k, d_v), or None
        None when the question stops before the blend.
    scale : bool
        Whether the question's scores are divided by ``sqrt(d_k)``.
    mask : numpy.ndarray of bool, shape (n_q, n_k), or None
        True = may attend.
    """

    Q: FloatArray
    K: FloatArray
    V: FloatArray | None = None
    scale: bool = True
    mask: BoolArray | None = None

    @classmethod
    def of(
        cls,
        queries: ArrayLike,
        keys: ArrayLike,
        values: ArrayLike | None = None,
        scale: bool = True,
        mask: ArrayLike | None = None,
    ) -> Case:
        """Build a case from array-likes; a 1-D query becomes one row."""
        q = np.atleast_2d(np.asarray(queries, dtype=float))
        v = None if values is None else np.asarray(values, dtype=float)
        m = None if mask is None else np.asarray(mask, dtype=bool)
        return cls(q, np.asarray(keys, dtype=float), v, bool(scale), m)

    @property
    def d_k(self) -> int:
        return int(self.K.shape[-1])

    @property
    def n_k(self) -> int:
        return int(self.K.shape[0])


@dataclass(frozen=True)
class Steps:
    """What one computation gives at each stage (unmasked scores, weights, output)."""

    scores: FloatArray
    weights: FloatArray
    output: FloatArray | None


@dataclass(frozen=True)
class WrongComputation:
    """Stage replacements that reproduce one misconception; a stage left None is done right.

    Attributes
    ----------
    scores : callable (Case) -> array (n_q, n_k) or None
        Replaces ``Q K^T / sqrt(d_k)``; returns None when the bug cannot happen for this case
        (e.g. "forgot the scaling" in a question that asks for no scaling).
    masked : callable (scores, mask) -> scores
        Replaces ``np.where(mask, scores, -inf)``.
    softmax : callable (scores, axis) -> weights or None
        Replaces the softmax along ``axis``; None when not applicable (e.g. a 1-D input).
    after : callable (weights, mask) -> weights
        Applied after the softmax when there is a mask.
    blend : callable (weights, Case) -> output
        Replaces ``weights @ V``.
    causal_mask : callable (n) -> bool array (n, n)
        A wrong causal mask.
    """

    scores: Callable[[Case], FloatArray | None] | None = None
    masked: Callable[[FloatArray, BoolArray], FloatArray] | None = None
    softmax: Callable[[FloatArray, int], FloatArray | None] | None = None
    after: Callable[[FloatArray, BoolArray], FloatArray] | None = None
    blend: Callable[[FloatArray, Case], FloatArray] | None = None
    causal_mask: Callable[[int], BoolArray] | None = None

    def reaches(self, kind: str) -> bool:
        """Whether this computation changes an answer of ``kind``.

        ``kind`` is one of ``"scores"``, ``"weights"``, ``"output"`` (hand-computed steps),
        ``"softmax"``, ``"attention"``, ``"causal_mask"`` (implemented functions).
        """
        weights = any(s is not None for s in (self.scores, self.masked, self.softmax, self.after))
        return {
            "scores": self.scores is not None,
            "weights": weights,
            "output": weights or self.blend is not None,
            "softmax": self.softmax is not None,
            "attention": weights or self.blend is not None,
            "causal_mask": self.causal_mask is not None,
        }[kind]


def raw_scores(case: Case) -> FloatArray:
    """``Q K^T``, shape (n_q, n_k)."""
    return case.Q @ case.K.T


def scaled_scores(case: Case) -> FloatArray:
    """Return the question's scores: ``Q K^T / sqrt(d_k)`` if it asks to scale, else ``Q K^T``."""
    raw = raw_scores(case)
    return raw / np.sqrt(case.d_k) if case.scale else raw


def softmax(x: ArrayLike, axis: int = -1) -> FloatArray:
    """Stable softmax that never raises: an all ``-inf`` slice gives nan."""
    x = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        peak: FloatArray = np.max(x, axis=axis, keepdims=True)
        exps = np.exp(x - peak)
        totals: FloatArray = np.sum(exps, axis=axis, keepdims=True)
        return exps / totals


def one_hot(scores: ArrayLike, axis: int = -1, pick: str = "first") -> FloatArray:
    """All the weight on the largest score of each slice.

    ``pick`` says what happens on a tie: ``"first"`` (numpy's ``argmax``), ``"last"`` (the
    other tie of two), ``"all"`` (1 at every maximum, as ``scores == scores.max()`` gives) or
    ``"split"`` (the weight shared equally among the maxima).
    """
    s = np.moveaxis(np.asarray(scores, dtype=float), axis, -1)
    with np.errstate(all="ignore"):
        top = s == np.max(s, axis=-1, keepdims=True)
    if pick in ("all", "split"):
        hot = top.astype(float)
        if pick == "split":
            hot /= np.maximum(hot.sum(axis=-1, keepdims=True), 1.0)
        return np.moveaxis(hot, -1, axis)
    if pick == "first":
        idx = np.argmax(top, axis=-1)
    else:
        idx = s.shape[-1] - 1 - np.argmax(top[..., ::-1], axis=-1)
    hot = np.zeros_like(s)
    np.put_along_axis(hot, idx[..., None], 1.0, axis=-1)
    return np.moveaxis(hot, -1, axis)


def _blend(weights: FloatArray, case: Case) -> FloatArray:
    if case.V is None:  # compute() blends only a case with values
        raise ValueError("this case has no values (V is None), so there is nothing to blend")
    return weights @ case.V


def _mask_inf(scores: FloatArray, mask: BoolArray) -> FloatArray:
    return np.where(mask, scores, -np.inf)


def compute(case: Case, wrong: WrongComputation | None = None) -> Steps | None:
    """Run the stages for ``case``, replacing those ``wrong`` replaces.

    Returns None when the wrong computation does not apply to this case.
    """
    w = wrong or WrongComputation()
    with np.errstate(all="ignore"):
        scores = w.scores(case) if w.scores else scaled_scores(case)
        if scores is None:
            return None
        s = scores if case.mask is None else (w.masked or _mask_inf)(scores, case.mask)
        weights = (w.softmax or softmax)(s, -1)
        if weights is None:
            return None
        if case.mask is not None and w.after is not None:
            weights = w.after(weights, case.mask)
        output = None if case.V is None else (w.blend or _blend)(weights, case)
    return Steps(np.asarray(scores), np.asarray(weights), output)
