"""How the output of hard and soft attention changes when its inputs are nudged.

Hard selection returns ``v[argmax(q . k)]``. Nudging the query or a key a little does not change
which key wins (except exactly at a tie), so the output's derivative with respect to the query
and the keys is 0: no training signal reaches them. The picked *value* still gets one: the output
*is* that value, so its derivative with respect to it is 1 (the identity), and 0 for the other
values. Soft attention's output changes smoothly with every input. Measured here by central
finite differences, so the lesson shows numbers rather than asserting them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.core import attention, hard_attention

__all__ = ["OutputSensitivity", "output_sensitivity"]


@dataclass(frozen=True)
class OutputSensitivity:
    """Largest absolute finite-difference derivative of the output w.r.t. each input.

    Attributes
    ----------
    mode : str
        ``"hard"`` or ``"soft"``.
    query : float
        max |d output / d q_j| over the output's and the query's components.
    keys : float
        The same over every component of every key.
    values : numpy.ndarray, shape (n_k,)
        For each value vector, max |d output / d v_ij|.
    """

    mode: str
    query: float
    keys: float
    values: FloatArray


def _derivative(f: Callable[[FloatArray], FloatArray], x: FloatArray, eps: float) -> float:
    """Return the largest |df/dx_i| over the components of ``x`` (central differences)."""
    largest = 0.0
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        largest = max(largest, float(np.max(np.abs(f(up) - f(down)))) / (2 * eps))
    return largest


def output_sensitivity(
    query: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mode: str = "soft",
    scale: bool = True,
    eps: float = 1e-6,
) -> OutputSensitivity:
    """Return the derivatives of one query's attention output by the query, keys and values.

    Parameters
    ----------
    query : array_like, shape (d_k,)
    K : array_like, shape (n_k, d_k)
    V : array_like, shape (n_k, d_v)
    mode : {"soft", "hard"}
        Softmax blending, or picking ``v[argmax]``.
    scale : bool
        Divide the scores by ``sqrt(d_k)``.
    eps : float
        Finite-difference step (small enough not to change the winner away from a tie).

    Returns
    -------
    OutputSensitivity
    """
    if mode not in ("soft", "hard"):
        raise ValueError(f'mode must be "soft" or "hard", got {mode!r}')
    fn = attention if mode == "soft" else hard_attention
    q, k, v = (np.asarray(a, dtype=float) for a in (query, K, V))

    def out(q_: FloatArray, k_: FloatArray, v_: FloatArray) -> FloatArray:
        return fn(q_, k_, v_, scale=scale)[0]

    per_value = []
    for j in range(len(v)):

        def nudge_value(row: FloatArray, j: int = j) -> FloatArray:
            changed = v.copy()
            changed[j] = row
            return out(q, k, changed)

        per_value.append(_derivative(nudge_value, v[j].copy(), eps))
    return OutputSensitivity(
        mode,
        _derivative(lambda x: out(x, k, v), q.copy(), eps),
        _derivative(lambda x: out(q, x, v), k.copy(), eps),
        np.array(per_value),
    )
