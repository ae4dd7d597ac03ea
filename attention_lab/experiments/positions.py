"""g. Lesson 5's word-order measurement, on lesson 6's projected head, with and without positions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray, IntArray
from attention_lab.core import positional_encoding
from attention_lab.projections import projected_attention


@dataclass(frozen=True)
class OrderChange:
    """Each word's output in two orders of the same words, with and without positions.

    Attributes
    ----------
    tokens, reordered : tuple of str
        The words in their first and in their second order.
    permutation : numpy.ndarray of int, shape (n,)
        ``reordered[i] == tokens[permutation[i]]``.
    positions : numpy.ndarray, shape (n, d_model)
        The sinusoidal encodings added (position 0 first).
    without_positions, with_positions : float
        The largest change in any word's output between the two orders (the same word compared
        with itself), as in lesson 5's ``word_order_test``.
    word_changes : numpy.ndarray, shape (n,)
        With positions: how far each word's output moves (the largest change of its numbers),
        in the order of ``tokens``.
    """

    tokens: tuple[str, ...]
    reordered: tuple[str, ...]
    permutation: IntArray
    positions: FloatArray
    without_positions: float
    with_positions: float
    word_changes: FloatArray

    @property
    def most_moved(self) -> str:
        """The word whose output moves most when the order changes (with positions)."""
        return self.tokens[int(np.argmax(self.word_changes))]


def order_change(
    tokens: Sequence[str],
    X: ArrayLike,
    W_Q: ArrayLike,
    W_K: ArrayLike,
    W_V: ArrayLike,
    permutation: ArrayLike | None = None,
    scale: bool = True,
) -> OrderChange:
    """Reorder the words; measure how much each word's output changes, without and with positions.

    Without positions, self-attention is permutation-equivariant: each word's output only moves
    with the word, so the change is 0 up to rounding. With the sinusoidal encodings of
    Vaswani et al. (2017, §3.5) added to ``X`` before the projections, a word's vector depends
    on where it stands, and so does its output.

    Parameters
    ----------
    tokens : sequence of str, length n
    X : array_like, shape (n, d_model)
        One embedding per word, in the order of ``tokens``.
    W_Q, W_K : array_like, shape (d_model, d_k)
    W_V : array_like, shape (d_model, d_v)
    permutation : sequence of int, length n, optional
        The new order as indices into ``tokens`` (default: reversed).
    scale : bool, default True

    Returns
    -------
    OrderChange
    """
    x = np.asarray(X, dtype=float)
    n = len(tokens)
    if x.ndim != 2 or x.shape[0] != n:
        raise ValueError(f"X must have one row per token: {n} tokens, X has shape {x.shape}")
    perm = np.arange(n)[::-1] if permutation is None else np.asarray(permutation)
    if sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"permutation must list each of 0..{n - 1} once, got {perm.tolist()}")
    pe = positional_encoding(n, x.shape[1])

    def outputs(rows: FloatArray, positions: FloatArray | None) -> FloatArray:
        return projected_attention(rows, W_Q, W_K, W_V, positions=positions, scale=scale).output

    changes = []
    for positions in (None, pe):
        first, second = outputs(x, positions), outputs(x[perm], positions)
        # The word at place i of the new order is tokens[perm[i]]: compare it with itself.
        moved = np.empty(n)
        moved[perm] = np.max(np.abs(second - first[perm]), axis=1)
        changes.append(moved)
    reordered = tuple(tokens[i] for i in perm)
    return OrderChange(
        tuple(tokens), reordered, perm, pe, float(changes[0].max()), float(changes[1].max()),
        changes[1],
    )  # fmt: skip
