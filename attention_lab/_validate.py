"""The one input check shared by the numerics, the plots and the widgets.

Every public function that takes vectors or weights turns them into a float array here, so a
student who passes a string, a ragged list or a NaN gets the same kind of message wherever they
passed it: what was wrong (the name, the shape, the bad value) and what to give instead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray

__all__ = ["as_float_array"]


def as_float_array(
    x: ArrayLike, name: str, ndims: tuple[int, ...], finite: bool = False
) -> FloatArray:
    """Convert ``x`` to a float array with one of the allowed numbers of dimensions.

    Parameters
    ----------
    x : array_like
        Numbers (nested lists or a numpy array).
    name : str
        What the caller calls it (``"K"``, ``"weights"``): every message starts with it.
    ndims : tuple of int
        The allowed numbers of dimensions.
    finite : bool, default False
        Also reject infinity (plots and widgets draw coordinates; ``-inf`` is a legal score).

    Returns
    -------
    numpy.ndarray of float, shape as given
        A new array when ``x`` was not already a float array.

    Raises
    ------
    TypeError
        ``x`` is not numbers.
    ValueError
        Wrong number of dimensions, empty, NaN (or infinity when ``finite``).
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{name} must be numbers (a list of lists or a numpy array), got {type(x).__name__}: {err}"
        ) from None
    if arr.ndim not in ndims:
        allowed = " or ".join(f"{d}-D" for d in ndims) if len(ndims) < 4 else "at least 1-D"
        raise ValueError(f"{name} must be {allowed}, got shape {arr.shape} ({arr.ndim}-D)")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); give at least one vector")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; attention needs real numbers everywhere")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains infinity; give finite numbers")
    return arr
