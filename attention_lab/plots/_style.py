"""What every plot shares: colours, the masked look, argument checks, text helpers and the live-plot base."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure, SubFigure
from matplotlib.typing import ColorType
from numpy.typing import ArrayLike

from attention_lab._render import LayoutCachedText
from attention_lab._types import BoolArray, FloatArray
from attention_lab._validate import as_float_array

HEATMAP_CMAP = "viridis"
"""Perceptually uniform and colour-blind safe; its dark end is 0 and its light end is 1."""

ANNOTATE_MAX_TOKENS = 12
"""Cells are annotated with their weight up to this many rows/columns; above, text won't fit."""

MASKED_FACE = "0.88"  # light grey: clearly not a colour of the viridis scale
MASKED_HATCH = "///"
MASKED_NOTE = "hatched = masked (weight 0)"

# Okabe-Ito colours (safe for the common colour-vision deficiencies).
KEY_COLOUR = "#0072B2"  # blue
QUERY_COLOUR = "#D55E00"  # vermillion
VALUE_COLOUR = "#009E73"  # bluish green
OUTPUT_COLOUR = "#000000"
BAR_COLOUR = "#0072B2"


def checked_labels(labels: Sequence[str], n: int, name: str, what: str) -> list[str]:
    """Check there is one label per row/column and return them as strings."""
    if isinstance(labels, str):
        raise TypeError(f"{name} must be a list of {n} labels, got the single string {labels!r}")
    out = [str(label) for label in labels]
    if len(out) != n:
        raise ValueError(f"{name} has {len(out)} labels but the weights have {n} {what}")
    return out


def finite_array(x: ArrayLike, name: str, ndims: tuple[int, ...]) -> FloatArray:
    """Return a float array with an allowed number of dimensions and only finite numbers."""
    return as_float_array(x, name, ndims, finite=True)


def weights_array(weights: ArrayLike, name: str = "weights") -> FloatArray:
    """Validate attention weights: 1-D or 2-D, every entry in [0, 1]."""
    arr = finite_array(weights, name, (1, 2))
    low, high = arr.min(), arr.max()
    if low < -1e-9 or high > 1 + 1e-9:
        raise ValueError(
            f"{name} must lie in [0, 1] (they are softmax outputs), got values from {low:.3g} to "
            f"{high:.3g}; did you pass the scores? Apply softmax first"
        )
    return np.clip(arr, 0.0, 1.0)


def bool_mask(mask: ArrayLike | None, shape: tuple[int, ...]) -> BoolArray:
    """Return a boolean 'may attend' mask of ``shape`` (all True when ``mask`` is None)."""
    if mask is None:
        return np.ones(shape, dtype=bool)
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(
            f"mask must be boolean (True = may attend, False = masked), got dtype {arr.dtype}"
        )
    if arr.shape != shape:
        raise ValueError(f"mask has shape {arr.shape} but the weights have shape {shape}")
    return arr


def axes_or_new(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """Use ``ax`` or make a new pyplot figure (so it shows inline in a notebook)."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def add_label(ax: Axes, x: float, y: float, **kwargs: Any) -> LayoutCachedText:
    """Add an empty text label at data position (x, y) whose layout is cached (fast redraws)."""
    kwargs.setdefault("text", "")
    text = LayoutCachedText(x, y, transform=ax.transData, clip_on=False, **kwargs)
    ax.add_artist(text)
    return text


def cell_fontsize(n: int) -> float:
    """Annotation font size that fits a cell of an n x n heatmap in the default panel sizes."""
    return 10.0 if n <= 4 else 8.5 if n <= 7 else 7.0 if n <= 9 else 5.5


def black_text_wins(rgb: FloatArray) -> BoolArray:
    """For an (..., 3) array of sRGB colours: True where black text contrasts more than white."""
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    lum: FloatArray = lin @ np.array([0.2126, 0.7152, 0.0722])
    return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05)  # WCAG contrast ratios


def text_colour_for(background: ColorType) -> str:
    """Black or white, whichever has the higher WCAG contrast ratio on ``background``.

    Parameters
    ----------
    background : matplotlib colour
        The cell colour the text sits on.

    Returns
    -------
    str
        ``"black"`` or ``"white"``.
    """
    return "black" if black_text_wins(np.array(to_rgb(background))) else "white"


class LivePlot:
    """What the live plots share: they draw on ``self.ax`` and update its artists in place."""

    ax: Axes

    @property
    def figure(self) -> Figure | SubFigure:
        """The matplotlib Figure holding the plot."""
        return self.ax.figure
