"""Helpers every experiment shares: seeded generators and argument checks."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def seeded_rng(seed: int) -> np.random.Generator:
    """Return a generator from an explicit int seed: a lesson shows the same figure every run."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int (got {type(seed).__name__}); e.g. seed=0")
    return np.random.default_rng(int(seed))


def positive_ints(name: str, values: ArrayLike, minimum: int = 1) -> np.ndarray:
    """``values`` as a 1-D int array, each >= ``minimum``; a clear ValueError otherwise."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list of integers, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer) or np.any(arr < minimum):
        raise ValueError(f"{name} must hold integers >= {minimum}, got {values!r}")
    return arr.astype(int)
