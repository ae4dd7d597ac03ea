"""Lines for measured curves: the Okabe-Ito colours, each line also told apart by marker and style."""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

__all__ = ["LINE_STYLES", "OKABE_ITO", "styled_line"]

#: Okabe & Ito's palette, distinguishable under the common colour-vision deficiencies.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")

#: (marker, line style) pairs, so no two curves differ by colour alone.
LINE_STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))


def styled_line(ax: Any, x: ArrayLike, y: ArrayLike, i: int, label: str) -> None:
    """Draw the ``i``-th curve of a chart: colour, marker and line style all differ by ``i``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x, y : array_like, shape (n,)
    i : int
        Index of the curve in its chart (0 for the first).
    label : str
        Its legend entry.
    """
    marker, style = LINE_STYLES[i % len(LINE_STYLES)]
    ax.plot(x, y, marker=marker, linestyle=style, color=OKABE_ITO[i], label=label, markersize=5)
