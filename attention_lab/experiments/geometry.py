"""g. What a dot product measures: lengths times the cosine of the angle, not direction alone.

Also h.: a weight is not an influence. Moving weight between two tokens that carry the same
value leaves the output exactly where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.core import attention, dot_product_scores


@dataclass(frozen=True)
class DotGeometry:
    """One query against several keys, the dot product split into lengths and angle.

    Attributes
    ----------
    scores : ndarray, shape (n_k,)
        Raw dot products ``q . k_i`` (no scaling).
    query_length : float
        ``||q||``.
    key_lengths : ndarray, shape (n_k,)
        ``||k_i||``.
    cosines : ndarray, shape (n_k,)
        ``cos`` of the angle between ``q`` and each key (1 = same direction).
    angles_deg : ndarray, shape (n_k,)
        Those angles in degrees.
    """

    scores: FloatArray
    query_length: float
    key_lengths: FloatArray
    cosines: FloatArray
    angles_deg: FloatArray

    @property
    def products(self) -> FloatArray:
        """``||q|| ||k_i|| cos(theta_i)``, shape (n_k,): the same numbers as :attr:`scores`."""
        return self.query_length * self.key_lengths * self.cosines

    @property
    def best_aligned(self) -> int:
        """Index of the key whose direction is closest to the query's (largest cosine)."""
        return int(np.argmax(self.cosines))

    @property
    def best_scored(self) -> int:
        """Index of the key with the largest score (the one softmax gives the most weight)."""
        return int(np.argmax(self.scores))

    def table(self, tokens: Sequence[str]) -> str:
        """Return a table of one line per key, then the best-aligned and highest-scoring keys.

        Each line: ``|q|``, ``|k|``, the angle, ``cos``, their product and ``q.k``; then which
        key lines up best and which scores highest.
        """
        lines = ["word    |q|    |k|   angle   cos θ   |q| |k| cos θ   q·k"]
        for word, k_len, angle, cos, product, score in zip(
            tokens, self.key_lengths, self.angles_deg, self.cosines, self.products, self.scores,
            strict=True,
        ):  # fmt: skip
            lines.append(
                f"{word:7} {self.query_length:5.3f} {k_len:6.3f} {angle:5.1f}° {cos:7.3f} "
                f"{product:10.3f} {score:9.3g}"
            )
        lines.append(
            f"lined up best: {tokens[self.best_aligned]} | largest score: {tokens[self.best_scored]}"
        )
        return "\n".join(lines)


def dot_geometry(query: ArrayLike, keys: ArrayLike) -> DotGeometry:
    """Split each score ``q . k_i`` into ``||q||``, ``||k_i||`` and the angle between them.

    Parameters
    ----------
    query : array_like, shape (d_k,)
        One non-zero query.
    keys : array_like, shape (n_k, d_k)
        Non-zero keys (an angle needs two arrows of some length).

    Returns
    -------
    DotGeometry
    """
    scores = dot_product_scores(query, keys, scale=False)
    q = np.asarray(query, dtype=float)
    k = np.asarray(keys, dtype=float)
    q_len = float(np.linalg.norm(q))
    k_len = np.linalg.norm(k, axis=1)
    if q_len == 0 or not k_len.all():
        raise ValueError("the query and every key need a length > 0 to have an angle")
    cosines = np.clip(scores / (q_len * k_len), -1.0, 1.0)
    # arccos loses digits near 0 degrees; 2 atan2(|a - b|, |a + b|) of the unit arrows does not.
    q_hat, k_hat = q / q_len, k / k_len[:, None]
    angles = 2 * np.arctan2(
        np.linalg.norm(q_hat - k_hat, axis=1), np.linalg.norm(q_hat + k_hat, axis=1)
    )
    return DotGeometry(scores, q_len, k_len, cosines, np.degrees(angles))


@dataclass(frozen=True)
class WeightSwap:
    """One query's weights and output before and after two keys trade places.

    Attributes
    ----------
    weights_before, weights_after : ndarray, shape (n_k,)
    output_before, output_after : ndarray, shape (d_v,)
    weight_moved : float
        Largest change of any one weight.
    output_moved : float
        Largest change of any coordinate of the output.
    """

    weights_before: FloatArray
    weights_after: FloatArray
    output_before: FloatArray
    output_after: FloatArray
    weight_moved: float
    output_moved: float


def swap_keys(
    query: ArrayLike, keys: ArrayLike, values: ArrayLike, i: int, j: int, scale: bool = False
) -> WeightSwap:
    """Swap the keys of tokens ``i`` and ``j`` and compare the weights and the output.

    The two tokens trade their weights; every other weight stays. So the output moves by
    ``(w_i - w_j)(v_j - v_i)``: not at all when ``v_i == v_j``, however much weight moved.

    Parameters
    ----------
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    values : array_like, shape (n_k, d_v)
    i, j : int
        Rows whose keys trade places.
    scale : bool
        Divide the scores by ``sqrt(d_k)``.

    Returns
    -------
    WeightSwap
    """
    k = np.array(keys, dtype=float)
    n = len(k)
    for name, index in (("i", i), ("j", j)):
        if not isinstance(index, int | np.integer) or not 0 <= index < n:
            raise ValueError(f"{name} must be a row of keys, 0 to {n - 1} (got {index!r})")
    swapped = k.copy()
    swapped[[i, j]] = k[[j, i]]
    out_a, w_a = attention(query, k, values, scale=scale)
    out_b, w_b = attention(query, swapped, values, scale=scale)
    return WeightSwap(
        w_a,
        w_b,
        out_a,
        out_b,
        float(np.max(np.abs(w_b - w_a))),
        float(np.max(np.abs(out_b - out_a))),
    )
