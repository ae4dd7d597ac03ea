"""b. Why scores are divided by sqrt(d_k): score variance and softmax saturation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.core import softmax
from attention_lab.experiments._common import positive_ints, seeded_rng

#: The three ways of scaling a dot-product score that chapter B compares.
SCALINGS = ("none", "1/d_k", "1/sqrt(d_k)")


def scale_factor(scaling: str, d_k: int) -> float:
    """Return the number a raw score ``q . k`` is multiplied by under ``scaling``.

    Parameters
    ----------
    scaling : {"none", "1/d_k", "1/sqrt(d_k)"}
    d_k : int
        Dimension of the keys.
    """
    if scaling == "none":
        return 1.0
    if scaling == "1/d_k":
        return 1.0 / d_k
    if scaling == "1/sqrt(d_k)":
        return float(1.0 / np.sqrt(d_k))
    raise ValueError(f"scaling must be one of {SCALINGS}, got {scaling!r}")


@dataclass(frozen=True)
class VarianceResult:
    """Measured variance of the (scaled) score ``q . k`` for random unit-variance q, k.

    Attributes
    ----------
    d_ks : ndarray, shape (n,)
    variance : dict[str, ndarray of shape (n,)]
        One entry per scaling in :data:`SCALINGS`.
    """

    d_ks: FloatArray
    variance: dict[str, FloatArray]


def score_variance(
    d_ks: ArrayLike = (2, 4, 8, 16, 32, 64, 128, 256, 512), n_samples: int = 4000, seed: int = 0
) -> VarianceResult:
    """Measure ``var(q . k)`` for q, k with independent N(0, 1) components, per scaling.

    Theory (chapter B): unscaled variance = d_k; divided by d_k -> 1/d_k; divided by
    sqrt(d_k) -> 1 whatever d_k is.

    Parameters
    ----------
    d_ks : sequence of int
        Key dimensions to try.
    n_samples : int
        Random (q, k) pairs per dimension.
    seed : int

    Returns
    -------
    VarianceResult
    """
    d_ks = positive_ints("d_ks", d_ks)
    positive_ints("n_samples", [n_samples], minimum=2)
    rng = seeded_rng(seed)
    raw = np.empty(len(d_ks))
    for i, d_k in enumerate(d_ks):
        q = rng.standard_normal((n_samples, d_k))
        k = rng.standard_normal((n_samples, d_k))
        raw[i] = np.var(np.einsum("ij,ij->i", q, k))
    # Scaling a random variable by c scales its variance by c^2.
    variance = {s: raw * np.array([scale_factor(s, d) ** 2 for d in d_ks]) for s in SCALINGS}
    return VarianceResult(d_ks, variance)


@dataclass(frozen=True)
class SaturationResult:
    """How peaked softmax gets, and how much gradient losing keys still receive.

    Attributes
    ----------
    d_ks : ndarray, shape (n,)
    n_keys : int
    max_weight : dict[str, ndarray of shape (n,)]
        Median (over trials) of the largest softmax weight: 1 = one-hot (saturated),
        ``1 / n_keys`` = uniform (cannot tell keys apart).
    losing_gradient : dict[str, ndarray of shape (n,)]
        Median over trials and over the losing keys of ``dw_j / ds_j = w_j (1 - w_j)``: how
        much a nudge to a losing key's score can still change its weight. Near 0 = learning stalls.
    """

    d_ks: FloatArray
    n_keys: int
    max_weight: dict[str, FloatArray]
    losing_gradient: dict[str, FloatArray]


def softmax_saturation(
    d_ks: ArrayLike = (2, 4, 8, 16, 32, 64, 128, 256, 512),
    n_keys: int = 8,
    n_trials: int = 400,
    seed: int = 0,
) -> SaturationResult:
    """Softmax peakedness and the gradient reaching losing keys, for each scaling.

    One random query against ``n_keys`` random keys (N(0, 1) components) per trial.

    Parameters
    ----------
    d_ks : sequence of int
    n_keys : int
        Keys competing for one query (>= 2).
    n_trials : int
    seed : int

    Returns
    -------
    SaturationResult
    """
    d_ks = positive_ints("d_ks", d_ks)
    positive_ints("n_keys", [n_keys], minimum=2)
    positive_ints("n_trials", [n_trials])
    rng = seeded_rng(seed)
    max_weight = {s: np.empty(len(d_ks)) for s in SCALINGS}
    losing = {s: np.empty(len(d_ks)) for s in SCALINGS}
    for i, d_k in enumerate(d_ks):
        q = rng.standard_normal((n_trials, 1, d_k))
        k = rng.standard_normal((n_trials, n_keys, d_k))
        raw = np.sum(q * k, axis=-1)  # (n_trials, n_keys)
        for s in SCALINGS:
            w = softmax(raw * scale_factor(s, d_k), axis=-1)
            winner = np.argmax(w, axis=-1)
            max_weight[s][i] = np.median(w[np.arange(n_trials), winner])
            grad = w * (1.0 - w)
            # Drop the winner of each trial; what is left is the gradient the losers get.
            losers = np.ones_like(w, dtype=bool)
            losers[np.arange(n_trials), winner] = False
            losing[s][i] = np.median(grad[losers])
    return SaturationResult(d_ks, n_keys, max_weight, losing)
