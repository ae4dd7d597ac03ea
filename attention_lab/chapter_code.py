"""The two chapters' own from-scratch code, in our words: the bridge to ``practice_implement``.

Chapter A ("Introduction to Attention Mechanisms") computes the attention of "it" with nothing
but plain Python: dictionaries of 2-number tuples, ``math.exp`` and a loop. Chapter B ("Focus in
the Noise") computes the attention of "Chandrayaan" with numpy: every score at once with
``Q @ K.T``, then one row through a softmax that first subtracts the row's maximum.

Both functions follow their chapter's steps closely, so a student can read them side by side
with the chapter, and tests/attention_lab/test_chapter_code.py checks them against :func:`attention_lab.attention`.
Lesson 4 prints their source with :func:`listing`.
"""

# mypy: allow-untyped-defs, allow-incomplete-defs, allow-untyped-calls, allow-any-generics
# (lesson 4 prints these functions as a student writes them, without type annotations;
# listing() and Listing are typed)

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Listing", "listing", "plain_python_attention", "numpy_attention_row", "softmax_row"]


def plain_python_attention(query, keys: dict, values: dict):
    """Chapter A's three steps for one query, in plain Python (no numpy, no scaling).

    Parameters
    ----------
    query : tuple of numbers, length d
    keys : dict of str to tuple of numbers (length d)
        One key per word.
    values : dict of str to tuple of numbers (length d_v)
        One value per word (the same words as ``keys``).

    Returns
    -------
    scores : dict of str to float
        Step 1: the dot product of the query with each word's key.
    weights : dict of str to float
        Step 2: softmax of the scores (exponentiate, divide by the total).
    output : list of float, length d_v
        Step 3: the sum of each word's value times its weight.
    """
    # Step 1: one dot product per word -- multiply matching numbers, add them up.
    scores = {
        word: sum(q * k for q, k in zip(query, key, strict=True)) for word, key in keys.items()
    }
    # Step 2: exponentiate (every number becomes positive), then share out by the total.
    # Like the chapter, no maximum is subtracted: math.exp(1000) would raise OverflowError.
    exps = {word: math.exp(score) for word, score in scores.items()}
    total = sum(exps.values())
    weights = {word: e / total for word, e in exps.items()}
    # Step 3: blend the values, one coordinate at a time.
    output = [0.0] * len(next(iter(values.values())))
    for word, weight in weights.items():
        for i, number in enumerate(values[word]):
            output[i] += weight * number
    return scores, weights, output


def softmax_row(x):
    """Chapter B's softmax of one row of scores: subtract the maximum, exponentiate, normalise.

    Parameters
    ----------
    x : numpy.ndarray, shape (n_k,)

    Returns
    -------
    numpy.ndarray, shape (n_k,)
    """
    e = np.exp(x - np.max(x))  # the largest score becomes exp(0) = 1: nothing can overflow
    return e / e.sum()


def numpy_attention_row(Q, K, V, row: int):
    """Chapter B's numpy code: all scaled scores at once, then one query's weights and output.

    Parameters
    ----------
    Q : array_like, shape (n_q, d_k)
    K : array_like, shape (n_k, d_k)
    V : array_like, shape (n_k, d_v)
    row : int
        The query (row of ``Q``) to follow.

    Returns
    -------
    scores : numpy.ndarray, shape (n_k,)
        That query's scaled scores, ``q . k / sqrt(d_k)``.
    weights : numpy.ndarray, shape (n_k,)
    output : numpy.ndarray, shape (d_v,)
    """
    Q, K, V = (np.asarray(m, dtype=float) for m in (Q, K, V))
    d_k = K.shape[1]
    scores = (Q @ K.T) / np.sqrt(d_k)  # every query against every key: shape (n_q, n_k)
    weights = softmax_row(scores[row])
    return scores[row], weights, weights @ V


@dataclass(frozen=True)
class Listing:
    """A function's source, shown as a Python code block in a notebook."""

    source: str

    def _repr_markdown_(self) -> str:
        return f"```python\n{self.source}```"

    def __repr__(self) -> str:
        """Return the source, so a lesson cell that ends with a listing shows the code."""
        return self.source


def listing(fn: Callable[..., object]) -> Listing:
    """Return the source of ``fn`` (one of this module's functions), for a lesson to show."""
    return Listing(inspect.getsource(fn))
