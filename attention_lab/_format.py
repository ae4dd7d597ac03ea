"""One rounding for every number a widget or plot shows: three decimals.

The chapters print weights with three decimals (0.610, 0.083, 0.225; "22.5 %"), and the
heatmap, the bars, the readout and the alt text must say the same: a student comparing the
heatmap's cell with the readout's row, or either with the book, should never see 0.22 beside
0.225.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["DECIMALS", "fmt", "fmt_vec", "format_value"]

DECIMALS = 3


def fmt(x: float) -> str:
    """``x`` with :data:`DECIMALS` decimals, without a confusing '-0.000'."""
    s = f"{float(x):.{DECIMALS}f}"
    return s[1:] if s.startswith("-") and not s.strip("-0.") else s


def fmt_vec(v: ArrayLike) -> str:
    """Format a vector as ``(1.000, -0.500)``."""
    return "(" + ", ".join(fmt(x) for x in np.ravel(v)) + ")"


def format_value(value: Any, decimals: int) -> str:
    """Format a number as ``0.248``, an array as ``[0.248, 0.503]``, with ``decimals`` decimals."""
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return f"{float(arr):.{decimals}f}"
    return "[" + ", ".join(f"{x:.{decimals}f}" for x in arr.ravel()) + "]"
