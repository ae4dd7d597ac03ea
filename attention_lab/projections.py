"""Where queries, keys and values come from: learned projections of the words' vectors.

The chapters hand each word a query, a key and a value. In a Transformer layer every word has
one vector ``x`` (its embedding, plus its position), and three weight matrices turn it into the
three roles: ``q = x W_Q``, ``k = x W_K``, ``v = x W_V`` (Vaswani et al. 2017, §3.2.2; rows are
words, as in d2l.ai's multi-head attention section). Scaled dot-product attention then runs on
the projected vectors exactly as in lessons 2–4.

Shapes: ``n`` words, ``d_model`` numbers per word vector, ``d_k`` per query/key, ``d_v`` per
value. ``X`` is (n, d_model), ``W_Q`` and ``W_K`` are (d_model, d_k), ``W_V`` is (d_model, d_v).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab._validate import as_float_array
from attention_lab.core import attention, dot_product_scores
from attention_lab.examples import TIFFIN

__all__ = [
    "LESSON_W_K",
    "LESSON_W_Q",
    "LESSON_W_V",
    "ProjectedAttention",
    "project",
    "projected_attention",
    "rotation_stretch",
    "tiffin_embeddings",
]


def tiffin_embeddings() -> FloatArray:
    """Chapter A's four word vectors, used as the words' embeddings ``X``.

    The chapter gives "tiffin", "bag", "it", "big" one vector each, used as both query and key;
    lesson 6 treats those vectors as the words' embeddings, so that ``W_Q = W_K = I`` gives back
    the chapter's own scores.

    Returns
    -------
    numpy.ndarray, shape (4, 2)
        A writable copy, one row per word of ``TIFFIN.tokens``.
    """
    return np.array(TIFFIN.K, dtype=float)


def _frozen(rows: ArrayLike) -> FloatArray:
    arr = np.array(rows, dtype=float)
    arr.flags.writeable = False  # shared by the lesson, the widget and the tests
    return arr


#: Lesson 6's first layer (section 1): small whole numbers, so a student can project by hand.
LESSON_W_Q = _frozen([[1, 0], [1, 1]])
LESSON_W_K = _frozen([[1, 0], [0, 1]])
LESSON_W_V = _frozen([[1, 1], [0, 2]])


def project(X: ArrayLike, W: ArrayLike, name: str = "W") -> FloatArray:
    """Project word vectors with a weight matrix: ``X @ W``, one projected row per word.

    Parameters
    ----------
    X : array_like, shape (n, d_model) or (d_model,)
        Word vectors, one per row (a single 1-D vector is allowed).
    W : array_like, shape (d_model, d_out)
        The projection (``W_Q``, ``W_K`` or ``W_V``).
    name : str
        What the caller calls ``W``, for the error message.

    Returns
    -------
    numpy.ndarray, shape (n, d_out), or (d_out,) for a 1-D ``X``
    """
    x = as_float_array(X, "X", (1, 2))
    w = as_float_array(W, name, (2,))
    if x.shape[-1] != w.shape[0]:
        raise ValueError(
            f"X has {x.shape[-1]} numbers per word but {name} has {w.shape[0]} rows (shape "
            f"{w.shape}): {name} needs one row per number of a word vector, X @ {name}"
        )
    return x @ w


@dataclass(frozen=True, eq=False)
class ProjectedAttention:
    """One attention head on projected vectors, every stage kept.

    Attributes
    ----------
    inputs : numpy.ndarray, shape (n, d_model)
        What the projections read: the embeddings, plus the positions when given.
    Q, K : numpy.ndarray, shape (n, d_k)
    V : numpy.ndarray, shape (n, d_v)
    scores : numpy.ndarray, shape (n, n)
        ``Q K^T`` (divided by ``sqrt(d_k)`` when scaled).
    weights : numpy.ndarray, shape (n, n)
        Each row sums to 1.
    output : numpy.ndarray, shape (n, d_v)
    """

    inputs: FloatArray
    Q: FloatArray
    K: FloatArray
    V: FloatArray
    scores: FloatArray
    weights: FloatArray
    output: FloatArray

    def weights_table(self, tokens: Iterable[object]) -> str:
        """Return the weights as a table: one row per word that asks, one column per word.

        Every number to 3 decimals in columns as wide as the longest word, so a row reads
        across ("it" looks at tiffin 0.703) and a column down (who looks at "tiffin").
        """
        words = [str(t) for t in tokens]
        width = max(6, *(len(w) for w in words))
        lines = [" " * width + " looks at  " + " ".join(f"{w:>{width}}" for w in words)]
        for word, row in zip(words, self.weights, strict=True):
            numbers = " ".join(f"{x:>{width}.3f}" for x in row)
            lines.append(f"{word:>{width}}           {numbers}")
        return "\n".join(lines)


def projected_attention(
    X: ArrayLike,
    W_Q: ArrayLike,
    W_K: ArrayLike,
    W_V: ArrayLike,
    positions: ArrayLike | None = None,
    scale: bool = True,
    mask: ArrayLike | None = None,
) -> ProjectedAttention:
    """Self-attention of one head: project, score, softmax, blend.

    ``Q = X' W_Q``, ``K = X' W_K``, ``V = X' W_V`` with ``X' = X + positions``, then
    ``softmax(Q K^T / sqrt(d_k)) V`` (Vaswani et al. 2017, §3.2.2 for one head).

    Parameters
    ----------
    X : array_like, shape (n, d_model)
    W_Q, W_K : array_like, shape (d_model, d_k)
    W_V : array_like, shape (d_model, d_v)
    positions : array_like, shape (n, d_model), optional
        Added to ``X`` *before* the projections (e.g. :func:`attention_lab.positional_encoding`).
    scale : bool, default True
    mask : array_like of bool, shape (n, n), optional
        True where a word may attend.

    Returns
    -------
    ProjectedAttention
    """
    x = as_float_array(X, "X", (2,))
    if positions is not None:
        p = as_float_array(positions, "positions", (2,))
        if p.shape != x.shape:
            raise ValueError(
                f"positions have shape {p.shape} but X has shape {x.shape}: one position "
                "vector per word, as long as the word vector (positional_encoding(n, d_model))"
            )
        x = x + p
    Q, K, V = project(x, W_Q, "W_Q"), project(x, W_K, "W_K"), project(x, W_V, "W_V")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(
            f"W_Q makes queries of {Q.shape[1]} numbers but W_K makes keys of {K.shape[1]}: a "
            "query and a key must have the same length to take their dot product"
        )
    output, weights = attention(Q, K, V, mask=mask, scale=scale)
    scores = dot_product_scores(Q, K, scale=scale)
    return ProjectedAttention(x, Q, K, V, scores, weights, output)


def rotation_stretch(angle_deg: float, stretch: float) -> FloatArray:
    """Return a 2 x 2 ``W_Q`` turning every query by ``angle_deg`` and scaling it by ``stretch``.

    With rows as vectors (``q = x W``), ``W = stretch * [[cos a, sin a], [-sin a, cos a]]``
    turns ``x`` anticlockwise by ``a``.

    Parameters
    ----------
    angle_deg : float
    stretch : float
        Positive; 1 keeps the length.

    Returns
    -------
    numpy.ndarray, shape (2, 2)
    """
    s = float(stretch)
    if not np.isfinite(s) or s <= 0:
        raise ValueError(f"stretch must be a positive number (1 keeps the length), got {stretch!r}")
    a = np.deg2rad(float(angle_deg))
    return s * np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
