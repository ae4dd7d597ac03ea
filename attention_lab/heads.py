"""Several heads: each with its own projections, run side by side, concatenated, mixed by W_O.

Multi-head attention (Vaswani et al. 2017, §3.2.2) runs ``h`` heads on the same words, each
with its *own* ``W_Q``, ``W_K``, ``W_V``, so each head can look for something different.
Their outputs are concatenated word by word and multiplied by one more matrix, ``W_O``:

``MultiHead(X) = Concat(head_1, ..., head_h) W_O``, with ``head_i = Attention(X W_Q^i, X W_K^i, X W_V^i)``.

Shapes (rows are words, as in d2l.ai's multi-head attention section): ``X`` (n, d_model); each
head's output (n, d_v); the concatenation (n, h * d_v); ``W_O`` (h * d_v, d_model); the result
(n, d_model), the same shape as ``X``, so layers can be stacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._validate import as_float_array
from attention_lab.projections import ProjectedAttention, projected_attention

__all__ = ["TIFFIN_HEADS", "TIFFIN_W_O", "Head", "MultiHeadResult", "multi_head_attention"]


def _frozen(rows: ArrayLike) -> np.ndarray:
    arr = np.array(rows, dtype=float)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class Head:
    """One head's three projections.

    Attributes
    ----------
    name : str
        What the head is for, in a few words (shown in figures).
    W_Q, W_K : numpy.ndarray, shape (d_model, d_k)
    W_V : numpy.ndarray, shape (d_model, d_v)
    """

    name: str
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray


#: Two heads on chapter A's words (embeddings ``projections.tiffin_embeddings()``). Head 1 keeps
#: the chapter's vectors (``W_Q = W_K = I``): "it" looks most at "tiffin", the noun it means.
#: Head 2's query of "it" asks for a small second number, which only "big" has: "it" looks at
#: what is said about it (the two roles Alammar's Illustrated Transformer shows for two heads).
TIFFIN_HEADS = (
    Head("head 1: it → its noun", _frozen(np.eye(2)), _frozen(np.eye(2)), _frozen(np.eye(2))),
    Head(
        "head 2: it → what it is",
        _frozen([[-1, 0], [-1, 0]]),
        _frozen([[0, 0], [2, 0]]),
        _frozen([[1, 0], [0, 1]]),
    ),
)
#: Mixes the two heads' outputs (2 + 2 numbers per word) back into 2 numbers per word.
TIFFIN_W_O = _frozen([[0.5, 0], [0, 0.5], [0.5, 0], [0, 0.5]])


@dataclass(frozen=True, eq=False)
class MultiHeadResult:
    """Every head's attention, their concatenation and the mixed output.

    Attributes
    ----------
    heads : tuple of ProjectedAttention, length h
    concat : numpy.ndarray, shape (n, h * d_v)
        The heads' outputs side by side, word by word.
    W_O : numpy.ndarray, shape (h * d_v, d_model)
    output : numpy.ndarray, shape (n, d_model)
        ``concat @ W_O``.
    """

    heads: tuple[ProjectedAttention, ...]
    concat: np.ndarray
    W_O: np.ndarray
    output: np.ndarray

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Name -> shape of every stage, in order (what the lesson prints and checks)."""
        found = {"X": self.heads[0].inputs.shape}
        for i, head in enumerate(self.heads, start=1):
            found[f"Q of head {i}"] = head.Q.shape
            found[f"weights of head {i}"] = head.weights.shape
            found[f"output of head {i}"] = head.output.shape
        found["concat"] = self.concat.shape
        found["W_O"] = self.W_O.shape
        found["output"] = self.output.shape
        return found


def multi_head_attention(
    X: ArrayLike,
    heads: Sequence[Head],
    W_O: ArrayLike,
    positions: ArrayLike | None = None,
    scale: bool = True,
) -> MultiHeadResult:
    """Run every head on ``X``, concatenate their outputs and multiply by ``W_O``.

    Parameters
    ----------
    X : array_like, shape (n, d_model)
    heads : sequence of Head, length h >= 1
    W_O : array_like, shape (h * d_v, d_model)
    positions : array_like, shape (n, d_model), optional
        Added to ``X`` before every head's projections.
    scale : bool, default True

    Returns
    -------
    MultiHeadResult
    """
    if not heads or not all(isinstance(h, Head) for h in heads):
        raise TypeError("heads must be a non-empty sequence of Head, e.g. heads.TIFFIN_HEADS")
    results = tuple(
        projected_attention(X, h.W_Q, h.W_K, h.W_V, positions=positions, scale=scale) for h in heads
    )
    concat = np.concatenate([r.output for r in results], axis=1)
    w_o = as_float_array(W_O, "W_O", (2,))
    if w_o.shape[0] != concat.shape[1]:
        raise ValueError(
            f"W_O has {w_o.shape[0]} rows but the concatenated heads give {concat.shape[1]} "
            f"numbers per word ({len(heads)} heads x d_v): W_O needs one row per number of the "
            "concatenation"
        )
    return MultiHeadResult(results, concat, w_o, concat @ w_o)
