"""One projected head computed in replaceable stages: the frame of lesson 6's misconceptions.

A head with learned projections is five stages: the inputs (``X``, plus the positions), the
projections (``Q = X' W_Q``, ``K = X' W_K``, ``V = X' W_V``), the scores (``Q K^T / sqrt(d_k)``),
the softmax of each row and the blend (``weights @ V``). A misconception about projections,
heads, positions or the softmax's axis is a :class:`WrongLayer` that replaces one or more stages
(the entries' ``layer_wrong`` in :mod:`attention_lab.misconceptions`); :func:`compute_layer` runs the stages
with those replacements, so the checks in :mod:`attention_lab.checks.layers` get the buggy
queries, weights and outputs for any question's inputs from one place.

Like :mod:`attention_lab._steps` it is permissive on purpose: a wrong stage returns None when
the mistake cannot happen for a question (no positions to misplace, no other head to share
with), and nothing here raises on overflow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._steps import softmax
from attention_lab._types import FloatArray

__all__ = ["LAYER_KINDS", "LayerCase", "LayerSteps", "WrongLayer", "compute_layer"]

#: The answer kinds a layer question asks for (what :meth:`WrongLayer.reaches` understands).
LAYER_KINDS = ("queries", "weights", "output")


@dataclass(frozen=True)
class LayerCase:
    """The inputs of one question about a projected head.

    Attributes
    ----------
    X : numpy.ndarray, shape (n, d_model)
        The words' embeddings.
    W_Q, W_K : numpy.ndarray, shape (d_model, d_k)
    W_V : numpy.ndarray, shape (d_model, d_v)
    positions : numpy.ndarray, shape (n, d_model), or None
        Added to ``X`` before the projections.
    other_W_Q : numpy.ndarray, shape (d_model, d_k), or None
        Another head's ``W_Q`` (when the question asks about one of several heads).
    scale : bool
    """

    X: FloatArray
    W_Q: FloatArray
    W_K: FloatArray
    W_V: FloatArray
    positions: FloatArray | None = None
    other_W_Q: FloatArray | None = None
    scale: bool = True

    @classmethod
    def of(
        cls,
        X: ArrayLike,
        W_Q: ArrayLike,
        W_K: ArrayLike,
        W_V: ArrayLike | None = None,
        positions: ArrayLike | None = None,
        other_W_Q: ArrayLike | None = None,
        scale: bool = True,
    ) -> LayerCase:
        """Build a case from array-likes (``W_V`` defaults to the identity)."""
        x = np.atleast_2d(np.asarray(X, dtype=float))

        def arr(a: ArrayLike) -> FloatArray:
            return np.asarray(a, dtype=float)

        def maybe(a: ArrayLike | None) -> FloatArray | None:
            return None if a is None else arr(a)

        w_v = np.eye(x.shape[1]) if W_V is None else arr(W_V)
        return cls(x, arr(W_Q), arr(W_K), w_v, maybe(positions), maybe(other_W_Q), bool(scale))

    @property
    def inputs(self) -> FloatArray:
        """What the projections read: ``X`` plus the positions, shape (n, d_model)."""
        return self.X if self.positions is None else self.X + self.positions

    @property
    def divisor(self) -> float:
        """``sqrt(d_k)`` when the question scales, else 1."""
        return float(np.sqrt(self.W_Q.shape[1])) if self.scale else 1.0


@dataclass(frozen=True)
class LayerSteps:
    """What one computation gives at each stage."""

    queries: FloatArray
    weights: FloatArray
    output: FloatArray


@dataclass(frozen=True)
class WrongLayer:
    """Stage replacements that reproduce one misconception; a stage left None is done right.

    Attributes
    ----------
    inputs : callable (LayerCase) -> array (n, d_model) or None
        Replaces ``X + positions``.
    queries : callable (LayerCase, inputs) -> array (n, d_k) or None
        Replaces ``inputs @ W_Q``.
    scores : callable (LayerCase, inputs) -> array (n, n) or None
        Replaces ``Q K^T / sqrt(d_k)``.
    softmax : callable (scores (n, n)) -> weights (n, n) or None
        Replaces the softmax of each row.
    output : callable (LayerCase, weights, V) -> array (n, d_v) or None
        Replaces ``weights @ V``.
    """

    inputs: Callable[[LayerCase], FloatArray | None] | None = None
    queries: Callable[[LayerCase, FloatArray], FloatArray | None] | None = None
    scores: Callable[[LayerCase, FloatArray], FloatArray | None] | None = None
    softmax: Callable[[FloatArray], FloatArray | None] | None = None
    output: Callable[[LayerCase, FloatArray, FloatArray], FloatArray | None] | None = None

    def reaches(self, kind: str) -> bool:
        """Whether this computation changes an answer of ``kind`` (one of :data:`LAYER_KINDS`)."""
        if kind not in LAYER_KINDS:
            return False
        early = self.inputs is not None or self.queries is not None
        return {
            "queries": early,
            "weights": early or self.scores is not None or self.softmax is not None,
            "output": True,
        }[kind]


def compute_layer(case: LayerCase, wrong: WrongLayer | None = None) -> LayerSteps | None:
    """Run the stages for ``case``, replacing those ``wrong`` replaces.

    Returns None when the wrong computation does not apply to this case.
    """
    w = wrong or WrongLayer()
    with np.errstate(all="ignore"):
        x = w.inputs(case) if w.inputs else case.inputs
        if x is None:
            return None
        q = w.queries(case, x) if w.queries else x @ case.W_Q
        if q is None:
            return None
        scores = w.scores(case, x) if w.scores else q @ (x @ case.W_K).T / case.divisor
        if scores is None:
            return None
        weights = w.softmax(scores) if w.softmax else softmax(scores, -1)
        if weights is None:
            return None
        v = x @ case.W_V
        output = w.output(case, weights, v) if w.output else weights @ v
        if output is None:
            return None
    return LayerSteps(np.asarray(q), np.asarray(weights), np.asarray(output))
