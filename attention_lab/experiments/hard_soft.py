"""d. v[argmax] is a step function; soft attention is smooth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab.core import attention, hard_attention
from attention_lab.experiments._common import positive_ints


@dataclass(frozen=True)
class HardSoftSweep:
    """Outputs of hard (``v[argmax]``) and soft attention as the query turns round.

    Attributes
    ----------
    angles_deg : ndarray, shape (n,)
        Direction of the query, in degrees.
    queries : ndarray, shape (n, d)
    hard : ndarray, shape (n, d_v)
    soft : ndarray, shape (n, d_v)
    hard_slope, soft_slope : ndarray, shape (n, d_v)
        Finite-difference derivative of each output with respect to the angle (per degree).
        Hard: 0 almost everywhere with spikes at the jumps that grow as the grid gets finer (no
        derivative there). Soft: finite everywhere.
    """

    angles_deg: np.ndarray
    queries: np.ndarray
    hard: np.ndarray
    soft: np.ndarray
    hard_slope: np.ndarray
    soft_slope: np.ndarray


def hard_vs_soft_sweep(
    K: ArrayLike,
    V: ArrayLike,
    radius: float = 2.0,
    start_deg: float = -45.0,
    stop_deg: float = 135.0,
    n_points: int = 181,
    scale: bool = True,
) -> HardSoftSweep:
    """Turn a 2-D query of length ``radius`` from ``start_deg`` to ``stop_deg``.

    Parameters
    ----------
    K : array_like, shape (n_k, 2)
    V : array_like, shape (n_k, d_v)
    radius : float
        Length of the query vector (longer = sharper softmax).
    start_deg, stop_deg : float
    n_points : int
        Number of angles (>= 3).
    scale : bool
        Divide scores by sqrt(d_k) as in scaled dot-product attention.

    Returns
    -------
    HardSoftSweep
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[1] != 2:
        raise ValueError(f"K must have shape (n_keys, 2) for a 2-D sweep, got {K.shape}")
    positive_ints("n_points", [n_points], minimum=3)
    angles = np.linspace(start_deg, stop_deg, n_points)
    rad = np.deg2rad(angles)
    queries = radius * np.column_stack([np.cos(rad), np.sin(rad)])
    hard, _ = hard_attention(queries, K, V, scale=scale)
    soft, _ = attention(queries, K, V, scale=scale)
    step = angles[1] - angles[0]
    return HardSoftSweep(
        angles,
        queries,
        hard,
        soft,
        np.gradient(hard, step, axis=0),
        np.gradient(soft, step, axis=0),
    )
