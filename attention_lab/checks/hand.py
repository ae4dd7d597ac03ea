"""Checks for hand-computed numbers: format (visible tests) and values (hidden tests).

A hidden test passes the question's own inputs, written as literals in the test cell, or the
names a read-only cell that draws each student's numbers binds (:mod:`attention_lab.variants`),
which the grader always takes from its own run of that cell: reassigning ``K`` or ``V`` in the
notebook cannot change what an answer is compared against.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_lab import misconceptions
from attention_lab._steps import Case, compute
from attention_lab._types import FloatArray

from ._base import (
    HAND_ATOL,
    HAND_RTOL,
    Misconception,
    ambiguities,
    as_numbers,
    audited,
    diagnose,
    quiet,
    record,
)

__all__ = [
    "check_numbers",
    "check_output",
    "check_scores",
    "check_weights",
    "check_weights_format",
    "tells_apart",
]


def check_numbers(
    answer: object, shape: tuple[int, ...], name: str = "your answer", what: str = "numbers"
) -> None:
    """Check that ``answer`` is finite numbers of the given ``shape`` (a visible format test).

    Parameters
    ----------
    answer : number, list or numpy.ndarray
    shape : tuple of int
        ``()`` for a single number, ``(n,)`` for a list of ``n`` numbers.
    name : str
        The answer variable's name, used in messages.
    what : str
        What the answer should be, in words (e.g. ``"two numbers: the scores for Key_a and
        Key_b"``).
    """
    as_numbers(answer, name, tuple(shape), what)


def check_weights_format(answer: object, n: int, name: str = "your weights") -> None:
    """Check ``answer`` is ``n`` attention weights: finite, non-negative and summing to 1."""
    arr = as_numbers(answer, name, (n,), f"{n} weights, one per key")
    if (arr < -HAND_ATOL).any():
        raise Misconception(
            "scores_not_weights", name, "(A weight can never be negative: exp(x) > 0.)"
        )
    if abs(arr.sum() - 1.0) > 2 * HAND_ATOL:
        raise Misconception("weights_not_normalised", name)


def _case(
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike | None,
    scale: bool,
    queries: ArrayLike | None,
) -> tuple[Case, int]:
    """Return the question as a Case over all its queries, and the row of the asked-for query.

    ``queries`` (all the example's queries) lets the candidates include mistakes that mix
    queries, such as a softmax down the columns of the full score matrix.
    """
    q = np.asarray(query, dtype=float)
    rows = np.atleast_2d(np.asarray(queries, dtype=float)) if queries is not None else q[None]
    found = np.flatnonzero(np.all(rows == q, axis=1))
    if not found.size:
        rows, found = np.vstack([q[None], rows]), np.array([0])
    return Case.of(rows, keys, values, scale), int(found[0])


def _step(case: Case, kind: str, row: int) -> tuple[FloatArray, list[tuple[str, FloatArray]]]:
    """Return one step's right answer and each misconception's ``(id, wrong answer)``."""
    with quiet():
        expected: FloatArray = getattr(compute(case), kind)[row]
        candidates: list[tuple[str, FloatArray]] = []
        for slug, wrong in misconceptions.entries_for(kind):
            steps = compute(case, wrong)
            if steps is not None and getattr(steps, kind) is not None:
                candidates.append((slug, getattr(steps, kind)[row]))
    return expected, candidates


def _check_step(answer: FloatArray, kind: str, case: Case, row: int, name: str, hint: str) -> None:
    """Compare one hand-computed step (scores, weights or output) with every candidate."""
    expected, candidates = _step(case, kind, row)
    record(name, kind, expected, candidates)
    diagnose(answer, expected, candidates, name, HAND_RTOL, HAND_ATOL, hint)


def check_scores(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    scale: bool,
    name: str = "your scores",
    *,
    values: ArrayLike | None = None,
    queries: ArrayLike | None = None,
) -> None:
    """Check the raw (or scaled) dot-product scores of one query against each key.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n_k,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    scale : bool
        Whether the question asks for scores divided by ``sqrt(d_k)``.
    name : str
        The answer variable's name, used in messages.
    values : array_like, shape (n_k, d_v), optional
        The example's values, so scores taken against the values can be named.
    queries : array_like, shape (n_q, d_k), optional
        All the example's queries (``query`` among them).
    """
    n_k = np.shape(keys)[0]
    arr = as_numbers(answer, name, (n_k,), f"{n_k} scores, one per key")
    case, row = _case(query, keys, values, scale, queries)
    hint = "A score is q.k: multiply matching components and add them up" + (
        ", then divide by sqrt(d_k)." if scale else "."
    )
    _check_step(arr, "scores", case, row, name, hint)


def check_weights(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    scale: bool,
    name: str = "your weights",
    *,
    values: ArrayLike | None = None,
    queries: ArrayLike | None = None,
) -> None:
    """Check the softmax attention weights of one query over the keys.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n_k,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    scale : bool
        Whether the scores are divided by ``sqrt(d_k)`` before the softmax.
    name : str
        The answer variable's name, used in messages.
    values, queries : array_like, optional
        The example's values and all its queries (see :func:`check_scores`).
    """
    n_k = np.shape(keys)[0]
    arr = as_numbers(answer, name, (n_k,), f"{n_k} weights, one per key")
    case, row = _case(query, keys, values, scale, queries)
    hint = "Check your scores first, then each of the two steps of softmax on them."
    _check_step(arr, "weights", case, row, name, hint)


def check_output(
    answer: object,
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    scale: bool,
    name: str = "your output",
    *,
    queries: ArrayLike | None = None,
) -> None:
    """Check the attention output (the weighted blend of the values) for one query.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (d_v,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    values : array_like, shape (n_k, d_v)
    scale : bool
        Whether the scores are divided by ``sqrt(d_k)`` before the softmax.
    name : str
        The answer variable's name, used in messages.
    queries : array_like, shape (n_q, d_k), optional
        All the example's queries (see :func:`check_scores`).
    """
    d_v = np.asarray(values, dtype=float).shape[1]
    arr = as_numbers(answer, name, (d_v,), f"a vector of {d_v} numbers (same length as a value)")
    case, row = _case(query, keys, values, scale, queries)
    hint = "The output takes every value in the share its weight gives it; check the weights first."
    _check_step(arr, "output", case, row, name, hint)


def tells_apart(
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    scale: bool,
    *,
    queries: ArrayLike | None = None,
) -> bool:
    """Whether these inputs let every step's misconceptions be named apart, with no tie.

    For a variant generator (:mod:`attention_lab.variants`): raise ``variants.Redraw`` when
    False, so no student gets numbers on which two mistakes give one wrong answer.

    Parameters
    ----------
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    values : array_like, shape (n_k, d_v)
    scale : bool
    queries : array_like, shape (n_q, d_k), optional
        All the example's queries (``query`` among them).
    """
    case, row = _case(query, keys, values, scale, queries)
    with audited() as found:
        for kind in ("scores", "weights", "output"):
            record(kind, kind, *_step(case, kind, row))
    return not any(ambiguities(f) for f in found)
