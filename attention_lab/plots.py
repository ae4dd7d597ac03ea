"""Attention plots whose artists are kept, so a widget can change them in place.

Each ``*_plot``/``attention_heatmap`` function draws once and returns an object holding its
matplotlib artists; its ``update(...)`` method changes those artists' data without rebuilding
anything. Rebuilding a figure costs 100-150 ms; changing data and redrawing a few artists costs a
few milliseconds, which is what makes dragging a query slider feel live.

Every object also lists its :meth:`dynamic_artists` (the ones ``update`` touches) in drawing
order, so a renderer can blit: redraw only those over a saved background (see
:mod:`attention_lab._render`).

Colours: the heatmap uses ``viridis`` (perceptually uniform, readable in greyscale and for the
common colour-vision deficiencies) on a fixed 0-1 scale, so the same colour always means the same
weight. Lines and markers use the Okabe-Ito palette and also differ by shape, never by colour
alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_rgb
from matplotlib.patches import FancyArrowPatch, Polygon, Rectangle

from attention_lab._format import fmt
from attention_lab._render import LayoutCachedText
from attention_lab._validate import as_float_array

__all__ = [
    "HEATMAP_CMAP",
    "ANNOTATE_MAX_TOKENS",
    "AttentionHeatmap",
    "attention_heatmap",
    "WeightsBars",
    "weights_bar_chart",
    "VectorPlot",
    "vector_plot",
    "convex_hull",
    "text_colour_for",
]

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


# --------------------------------------------------------------------------------------------
# validation helpers


def _labels(labels: Sequence[str], n: int, name: str, what: str) -> list[str]:
    """Check there is one label per row/column and return them as strings."""
    if isinstance(labels, str):
        raise TypeError(f"{name} must be a list of {n} labels, got the single string {labels!r}")
    out = [str(label) for label in labels]
    if len(out) != n:
        raise ValueError(f"{name} has {len(out)} labels but the weights have {n} {what}")
    return out


def _finite(x, name: str, ndims: tuple[int, ...]) -> np.ndarray:
    """A float array with an allowed number of dimensions and only finite numbers."""
    return as_float_array(x, name, ndims, finite=True)


def _weights(weights, name: str = "weights") -> np.ndarray:
    """Validate attention weights: 1-D or 2-D, every entry in [0, 1]."""
    arr = _finite(weights, name, (1, 2))
    low, high = arr.min(), arr.max()
    if low < -1e-9 or high > 1 + 1e-9:
        raise ValueError(
            f"{name} must lie in [0, 1] (they are softmax outputs), got values from {low:.3g} to "
            f"{high:.3g}; did you pass the scores? Apply softmax first"
        )
    return np.clip(arr, 0.0, 1.0)


def _bool_mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    """A boolean 'may attend' mask of ``shape`` (all True when ``mask`` is None)."""
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


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """Use ``ax`` or make a new pyplot figure (so it shows inline in a notebook)."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _label(ax: Axes, x: float, y: float, **kwargs) -> LayoutCachedText:
    """An empty text label at data position (x, y) whose layout is cached (fast redraws)."""
    kwargs.setdefault("text", "")
    text = LayoutCachedText(x, y, transform=ax.transData, clip_on=False, **kwargs)
    ax.add_artist(text)
    return text


def _fontsize(n: int) -> float:
    """Annotation font size that fits a cell of an n x n heatmap in the default panel sizes."""
    return 10.0 if n <= 4 else 8.5 if n <= 7 else 7.0 if n <= 9 else 5.5


# --------------------------------------------------------------------------------------------
# colour contrast


def _black_text_wins(rgb: np.ndarray) -> np.ndarray:
    """For an (..., 3) array of sRGB colours: True where black text contrasts more than white."""
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05)  # WCAG contrast ratios


def text_colour_for(background) -> str:
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
    return "black" if _black_text_wins(np.array(to_rgb(background))) else "white"


class _LivePlot:
    """What the live plots share: they draw on ``self.ax`` and update its artists in place."""

    ax: Axes

    @property
    def figure(self):
        """The matplotlib Figure holding the plot."""
        return self.ax.figure


# --------------------------------------------------------------------------------------------
# heatmap


class AttentionHeatmap(_LivePlot):
    """An annotated attention-weight heatmap that can be updated in place.

    Made by :func:`attention_heatmap`. Rows are queries, columns are keys.

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    image : matplotlib.collections.QuadMesh
        The weights (one quad per cell), on a fixed 0-1 colour scale; ``image.get_array()`` is
        a masked array of shape (n_q, n_k) whose masked entries are the masked cells.
    colorbar : matplotlib.colorbar.Colorbar or None
        None when made with ``colorbar=False``.
    texts : numpy.ndarray of matplotlib.text.Text, shape (n_q, n_k), or None
        One annotation per cell ("0.610", or "masked"); None when the heatmap is larger than
        :data:`ANNOTATE_MAX_TOKENS` or ``annotate=False``.
    masked_cells : matplotlib.collections.PolyCollection
        Hatched squares over the masked cells.
    row_outline : matplotlib.patches.Rectangle
        Outline of the highlighted query row (see :meth:`highlight_row`).
    weights : numpy.ndarray, shape (n_q, n_k)
        The weights currently shown.
    mask : numpy.ndarray of bool, shape (n_q, n_k)
        True where the query may attend (all True when no mask was given).
    """

    def __init__(
        self,
        ax: Axes,
        weights,
        query_labels: Sequence[str],
        key_labels: Sequence[str],
        annotate: bool = True,
        mask=None,
        title: str = "attention weights",
        colorbar: bool = True,
    ):
        w = np.atleast_2d(_weights(weights))
        self.shape = w.shape
        n_q, n_k = w.shape
        self.query_labels = _labels(query_labels, n_q, "query_labels", "rows (queries)")
        self.key_labels = _labels(key_labels, n_k, "key_labels", "columns (keys)")
        self.ax = ax
        self.base_title = title

        cmap = plt.get_cmap(HEATMAP_CMAP).with_extremes(bad=MASKED_FACE)
        self._cmap = cmap
        # pcolormesh rather than imshow: a mesh of n_q x n_k quads draws in well under a
        # millisecond, while imshow resamples the image to the screen's pixels on every draw.
        self.image = ax.pcolormesh(
            np.arange(n_k + 1) - 0.5,
            np.arange(n_q + 1) - 0.5,
            np.ma.masked_array(w, mask=np.zeros_like(w, dtype=bool)),
            cmap=cmap,
            vmin=0.0,
            vmax=1.0,
            shading="flat",
        )
        ax.set_xlim(-0.5, n_k - 0.5)
        ax.set_ylim(n_q - 0.5, -0.5)  # first query on top, as in a matrix
        ax.set_facecolor(MASKED_FACE)  # masked quads are not drawn: the axes shows through
        self.colorbar = None
        if colorbar:  # the explorer leaves it out: its cells print their numbers
            self.colorbar = ax.figure.colorbar(self.image, ax=ax, fraction=0.06, pad=0.03)
            self.colorbar.set_label("weight (0 to 1)")
        crowded = n_k > 4 or sum(len(label) for label in self.key_labels) > 18
        ax.set_xticks(
            range(n_k),
            self.key_labels,
            rotation=30 if crowded else 0,
            ha="right" if crowded else "center",
        )
        ax.set_yticks(range(n_q), self.query_labels)
        if max(n_q, n_k) > ANNOTATE_MAX_TOKENS:
            # Too many tick labels to read: show every few.
            step = int(np.ceil(max(n_q, n_k) / ANNOTATE_MAX_TOKENS))
            ax.set_xticks(range(0, n_k, step), self.key_labels[::step])
            ax.set_yticks(range(0, n_q, step), self.query_labels[::step])
        ax.set_xlabel("keys")
        ax.set_ylabel("queries")
        ax.set_title(title)

        self.masked_cells = PolyCollection(
            [], facecolors="none", edgecolors="0.35", hatch=MASKED_HATCH, linewidths=0.0
        )
        ax.add_collection(self.masked_cells, autolim=False)

        self.row_outline = Rectangle(
            (-0.5, -0.5), n_k, 1, fill=False, edgecolor=QUERY_COLOUR, linewidth=2.5, visible=False
        )
        ax.add_patch(self.row_outline)

        self.texts = None
        if annotate and max(n_q, n_k) <= ANNOTATE_MAX_TOKENS:
            size = _fontsize(max(n_q, n_k))
            self.texts = np.empty((n_q, n_k), dtype=object)
            for i in range(n_q):
                for j in range(n_k):
                    self.texts[i, j] = _label(ax, j, i, ha="center", va="center", fontsize=size)
        self.weights = w
        self.mask = _bool_mask(None, self.shape)
        self.update(w, mask)

    def update(self, weights, mask=None) -> None:
        """Show new weights (and mask) by changing the existing artists' data.

        Parameters
        ----------
        weights : array_like, shape (n_q, n_k)
            Same shape as the heatmap was made with; values in [0, 1].
        mask : array_like of bool, shape (n_q, n_k), optional
            True where a query may attend. ``None`` means nothing is masked (it does not keep
            the previous mask). Masked cells are drawn grey and hatched and annotated "masked",
            never as a 0.00 weight.

        Notes
        -----
        Call ``ax.figure.canvas.draw_idle()`` afterwards to see the change in an interactive
        backend; the explorer widget blits instead.
        """
        w = np.atleast_2d(_weights(weights))
        if w.shape != self.shape:
            raise ValueError(
                f"weights have shape {w.shape} but this heatmap shows {self.shape}; "
                "make a new heatmap for a different number of tokens"
            )
        allowed = _bool_mask(mask, self.shape)
        self.weights, self.mask = w, allowed
        self.image.set_array(np.ma.masked_array(w, mask=~allowed))
        rows, cols = np.nonzero(~allowed)
        self.masked_cells.set_verts(
            [
                [(j - 0.5, i - 0.5), (j + 0.5, i - 0.5), (j + 0.5, i + 0.5), (j - 0.5, i + 0.5)]
                for i, j in zip(rows, cols, strict=True)
            ]
        )
        any_masked = bool(len(rows))
        self.ax.title.set_text(
            f"{self.base_title}\n{MASKED_NOTE}" if any_masked else self.base_title
        )
        if self.texts is not None:
            dark_text = _black_text_wins(self._cmap(w)[..., :3])
            for (i, j), text in np.ndenumerate(self.texts):
                if allowed[i, j]:
                    text.set_text(fmt(w[i, j]))
                    text.set_color("black" if dark_text[i, j] else "white")
                    text.set_fontstyle("normal")
                else:
                    text.set_text("masked")
                    text.set_color("black")
                    text.set_fontstyle("italic")

    def set_title(self, title: str) -> None:
        """Change the title (the masked-cells note is appended automatically)."""
        self.base_title = title
        any_masked = not self.mask.all()
        self.ax.title.set_text(f"{title}\n{MASKED_NOTE}" if any_masked else title)

    def highlight_row(self, row: int | None) -> None:
        """Outline query row ``row`` (None removes the outline)."""
        if row is None:
            self.row_outline.set_visible(False)
            return
        if not 0 <= row < self.shape[0]:
            raise ValueError(f"row must be in 0..{self.shape[0] - 1}, got {row}")
        self.row_outline.set_y(row - 0.5)
        self.row_outline.set_visible(True)

    def dynamic_artists(self) -> list:
        """The artists :meth:`update` changes, in drawing order."""
        # The spines are redrawn too: the mesh covers them, and a full draw puts them on top.
        spines = list(self.ax.spines.values())
        artists = [self.image, self.masked_cells, self.row_outline, *spines, self.ax.title]
        if self.texts is not None:
            artists.extend(self.texts.ravel())
        return artists


def attention_heatmap(
    weights,
    query_labels: Sequence[str],
    key_labels: Sequence[str],
    ax: Axes | None = None,
    annotate: bool = True,
    mask=None,
) -> AttentionHeatmap:
    """Draw attention weights as a heatmap: one row per query, one column per key.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k) or (n_k,)
        Attention weights in [0, 1] (each row of a softmax sums to 1).
    query_labels : sequence of str, length n_q
        Row labels (the tokens asking).
    key_labels : sequence of str, length n_k
        Column labels (the tokens being looked at).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made when omitted.
    annotate : bool, default True
        Write each weight (3 decimals, as every readout) in its cell, in black or white for contrast. Only up to
        12 x 12; larger heatmaps are not annotated.
    mask : array_like of bool, shape (n_q, n_k), optional
        True where a query may attend. Masked cells are drawn grey and hatched and labelled
        "masked" (a masked key is not a key that got weight 0.00 by chance).

    Returns
    -------
    AttentionHeatmap
        Keeps its artists; ``.update(weights, mask=None)`` redraws in place.

    Examples
    --------
    >>> from attention_lab import attention, examples
    >>> ex = examples.ISRO
    >>> _, w = attention(ex.Q, ex.K, ex.V)
    >>> hm = attention_heatmap(w, ex.tokens, ex.tokens)
    >>> hm.image.get_array().shape
    (3, 3)
    """
    w = np.atleast_2d(_weights(weights))
    n = max(w.shape)
    ax = _axes(ax, (min(3.2 + 0.35 * n, 9.0), min(2.6 + 0.35 * n, 8.0)))
    return AttentionHeatmap(ax, w, query_labels, key_labels, annotate=annotate, mask=mask)


# --------------------------------------------------------------------------------------------
# weights bar chart


class WeightsBars(_LivePlot):
    """A bar chart of one query's weights over the keys, updated in place.

    Made by :func:`weights_bar_chart`.

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    bars : list of matplotlib.patches.Rectangle
        One bar per key; its height is the weight.
    texts : list of matplotlib.text.Text or None
        The weight above each bar (3 decimals, like the explorer's readout) or "masked";
        None above :data:`ANNOTATE_MAX_TOKENS` keys.
    weights : numpy.ndarray, shape (n_k,)
    mask : numpy.ndarray of bool, shape (n_k,)
    """

    def __init__(self, ax: Axes, weights, labels: Sequence[str], mask=None, title: str = ""):
        w = _weights(weights)
        if w.ndim != 1:
            raise ValueError(f"weights must be 1-D (one query's weights), got shape {w.shape}")
        n = len(w)
        self.labels = _labels(labels, n, "labels", "keys")
        self.ax = ax
        container = ax.bar(range(n), w, color=BAR_COLOUR, edgecolor="black", linewidth=0.6)
        self.bars = list(container.patches)
        ax.set_ylim(0, 1.15)
        ax.set_xlim(-0.6, n - 0.4)
        step = max(1, int(np.ceil(n / ANNOTATE_MAX_TOKENS)))
        crowded = n > 4 or sum(len(label) for label in self.labels) > 18
        ax.set_xticks(
            range(0, n, step),
            self.labels[::step],
            rotation=30 if crowded else 0,
            ha="right" if crowded else "center",
        )
        ax.set_xlabel("keys")
        ax.set_ylabel("weight")
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_title(title)
        self.texts = None
        if n <= ANNOTATE_MAX_TOKENS:
            size = _fontsize(n)
            self.texts = [
                _label(ax, j, 0, ha="center", va="bottom", fontsize=size) for j in range(n)
            ]
        self.weights = w
        self.mask = _bool_mask(None, w.shape)
        self.update(w, mask)

    def update(self, weights, mask=None) -> None:
        """Change the bar heights (and labels) in place.

        Parameters
        ----------
        weights : array_like, shape (n_k,)
        mask : array_like of bool, shape (n_k,), optional
            True where the query may attend; a masked key gets no bar, only the label "masked".
        """
        w = _weights(weights)
        if w.shape != self.weights.shape:
            raise ValueError(f"weights have shape {w.shape}, this chart shows {self.weights.shape}")
        allowed = _bool_mask(mask, w.shape)
        self.weights, self.mask = w, allowed
        for j, bar in enumerate(self.bars):
            # A masked key has no bar at all (its weight is exactly 0), and its label says why:
            # a tall hatched bar would read as a weight of 1.
            bar.set_height(w[j] if allowed[j] else 0.0)
            bar.set_visible(bool(allowed[j]))
        if self.texts is not None:
            for j, text in enumerate(self.texts):
                if allowed[j]:
                    text.set_text(fmt(w[j]))
                    text.set_y(w[j] + 0.01)
                    text.set_fontstyle("normal")
                    text.set_rotation(0)
                else:
                    # Upright text where a bar would stand: it fits the bar's slot, and it is
                    # plainly a word, not a bar.
                    text.set_text("masked")
                    text.set_y(0.02)
                    text.set_fontstyle("italic")
                    text.set_rotation(90)

    def set_title(self, title: str) -> None:
        """Change the chart's title."""
        self.ax.title.set_text(title)  # keeps the title's font settings

    def dynamic_artists(self) -> list:
        """The artists :meth:`update` changes, in drawing order."""
        spines = list(self.ax.spines.values())  # bars cover the bottom spine: draw it again
        return [*self.bars, *spines, *(self.texts or []), self.ax.title]


def weights_bar_chart(weights, labels: Sequence[str], ax: Axes | None = None, mask=None):
    """Draw one query's attention weights as bars, one per key.

    Parameters
    ----------
    weights : array_like, shape (n_k,)
        Weights in [0, 1].
    labels : sequence of str, length n_k
        The key tokens.
    ax : matplotlib.axes.Axes, optional
    mask : array_like of bool, shape (n_k,), optional
        True where the query may attend.

    Returns
    -------
    WeightsBars
        Keeps its artists; ``.update(weights, mask=None)`` redraws in place.
    """
    n = len(np.atleast_1d(np.asarray(weights)))
    ax = _axes(ax, (min(2.5 + 0.4 * n, 10.0), 3.0))
    return WeightsBars(ax, weights, labels, mask=mask)


# --------------------------------------------------------------------------------------------
# vector plot


def convex_hull(points) -> np.ndarray:
    """Corners of the convex hull of 2-D points, counter-clockwise (Andrew's monotone chain).

    Parameters
    ----------
    points : array_like, shape (n, 2)

    Returns
    -------
    numpy.ndarray, shape (h, 2)
        The hull's corners (h <= n); collinear or repeated points give a segment or one point.
    """
    pts = _finite(points, "points", (2,))
    if pts.shape[1] != 2:
        raise ValueError(f"points must have 2 columns (x, y), got shape {pts.shape}")
    unique = sorted({(float(x), float(y)) for x, y in pts})
    if len(unique) <= 2:
        return np.array(unique)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq):
        chain: list[tuple[float, float]] = []
        for p in seq:
            while len(chain) >= 2 and cross(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(unique), half(reversed(unique))
    return np.array(lower[:-1] + upper[:-1])


def _vectors(x, name: str, n: int | None = None) -> np.ndarray:
    arr = _finite(x, name, (2,))
    if arr.shape[1] != 2:
        raise ValueError(f"{name} must have 2 columns to be drawn in the plane, got {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but there are {n} tokens")
    return arr


def _point(x, name: str) -> np.ndarray:
    arr = _finite(x, name, (1,))
    if arr.shape != (2,):
        raise ValueError(f"{name} must be a 2-D vector (x, y), got shape {arr.shape}")
    return arr


def _outward(vector: np.ndarray, distance: float) -> tuple[float, float]:
    """An offset (in points) pointing away from the origin along ``vector``: label placement."""
    norm = float(np.hypot(*vector))
    if norm == 0:
        return (distance, distance)
    return (distance * 1.6 * vector[0] / norm, distance * vector[1] / norm)


def _nudge(vector: np.ndarray, ax: Axes, fraction: float = 0.05) -> np.ndarray:
    """A data-space step away from the origin along ``vector``: puts a label past a tip."""
    norm = float(np.hypot(*vector))
    span = max(np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim()))
    direction = vector / norm if norm else np.array([0.7, 0.7])
    return fraction * span * direction


def _limits(points: np.ndarray, margin: float = 0.15) -> tuple[tuple[float, float], ...]:
    """Square-ish limits around ``points`` (always including the origin) with a margin."""
    pts = np.vstack([points, [[0.0, 0.0]]])
    low, high = pts.min(axis=0), pts.max(axis=0)
    pad = margin * max(float((high - low).max()), 1.0)
    return (low[0] - pad, high[0] + pad), (low[1] - pad, high[1] + pad)


def vector_axes(ax: Axes, limits, title: str) -> None:
    """Square axes for 2-D vectors: fixed limits, equal aspect, the two axes through 0, a grid.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    limits : ((x0, x1), (y0, y1))
    title : str
    """
    (x0, x1), (y0, y1) = limits
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal", adjustable="box")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.axvline(0, color="0.6", lw=0.8)
    ax.grid(alpha=0.25)
    ax.set_xlabel("dimension 1")
    ax.set_ylabel("dimension 2")
    ax.set_title(title)


class VectorPlot(_LivePlot):
    """Keys as arrows, values as points, the query arrow and the output, updated in place.

    Made by :func:`vector_plot`. The output is a weighted average of the values, so it always
    lies inside their convex hull (shaded): a blend, not a pick. Thin lines join the output to
    each value, as thick as that value's weight.

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    query_arrow : matplotlib.patches.FancyArrowPatch
    query_label : matplotlib.text.Text
        The "q" just past the query arrow's tip.
    output_marker : matplotlib.lines.Line2D
        One star marker at the output.
    blend_lines : matplotlib.collections.LineCollection
        Output-to-value segments, linewidth proportional to the weight.
    hull : matplotlib.patches.Polygon
        The values' convex hull.
    query, output : numpy.ndarray, shape (2,)
    weights : numpy.ndarray, shape (n,) or None
    """

    def __init__(
        self,
        ax: Axes,
        keys,
        values,
        query,
        output,
        weights=None,
        labels: Sequence[str] | None = None,
        limits=None,
        title: str = "keys, query, values and output",
        legend: bool = True,
    ):
        k = _vectors(keys, "keys")
        n = k.shape[0]
        v = _vectors(values, "values", n)
        self.labels = _labels(labels, n, "labels", "tokens") if labels is not None else None
        self.ax = ax
        self.values = v
        show_names = self.labels is not None and n <= ANNOTATE_MAX_TOKENS

        hull = convex_hull(v)
        self.hull = Polygon(
            hull if len(hull) >= 3 else np.vstack([hull, hull[:1]]),
            closed=True,
            facecolor=VALUE_COLOUR,
            alpha=0.12,
            edgecolor=VALUE_COLOUR,
            linestyle="--",
            label="values' convex hull",
        )
        ax.add_patch(self.hull)
        for i, key in enumerate(k):
            ax.add_patch(
                FancyArrowPatch(
                    (0, 0), key, arrowstyle="-|>", mutation_scale=12, color=KEY_COLOUR, lw=1.4,
                    label="keys" if i == 0 else None,
                )
            )  # fmt: skip
            if show_names:
                ax.annotate(
                    f"k {self.labels[i]}", key, xytext=_outward(key, 9), textcoords="offset points",
                    color=KEY_COLOUR, fontsize=10, ha="center", va="center",
                )  # fmt: skip
        ax.plot(v[:, 0], v[:, 1], "s", color=VALUE_COLOUR, markersize=7, label="values")
        if show_names:
            for i, value in enumerate(v):
                ax.annotate(
                    f"v {self.labels[i]}", value, xytext=(5, 4), textcoords="offset points",
                    color=VALUE_COLOUR, fontsize=10,
                )  # fmt: skip
        self.blend_lines = LineCollection(
            [], colors=OUTPUT_COLOUR, alpha=0.45, linestyles=":", label="blend (width = weight)"
        )
        ax.add_collection(self.blend_lines, autolim=False)
        q = _point(query, "query")
        self.query_arrow = FancyArrowPatch(
            (0, 0), q, arrowstyle="-|>", mutation_scale=16, color=QUERY_COLOUR, lw=2.6,
            label="query",
        )  # fmt: skip
        ax.add_patch(self.query_arrow)
        self.query_label = _label(
            ax, *q, text="q", color=QUERY_COLOUR, fontsize=10, fontweight="bold", ha="center",
            va="center",
        )  # fmt: skip
        (self.output_marker,) = ax.plot(
            [], [], marker="*", markersize=15, color=OUTPUT_COLOUR, markeredgecolor="white",
            linestyle="none", label="output",
        )  # fmt: skip
        if limits is None:
            limits = _limits(np.vstack([k, v, [q], [_point(output, "output")]]))
        vector_axes(ax, limits, title)
        if legend:
            ax.legend(loc="lower right", fontsize=7, framealpha=0.85)
        self.query = q
        self.update(q, output, weights)

    def update(self, query, output, weights=None) -> None:
        """Move the query arrow and the output point (and reweight the blend lines).

        Parameters
        ----------
        query : array_like, shape (2,)
        output : array_like, shape (2,)
        weights : array_like, shape (n,), optional
            The query's weights over the values; sets the blend lines' widths (hidden if None).
        """
        q, out = _point(query, "query"), _point(output, "output")
        self.query, self.output = q, out
        self.query_arrow.set_positions((0, 0), tuple(q))
        self.query_label.set_position(q + _nudge(q, self.ax))
        self.output_marker.set_data([out[0]], [out[1]])
        if weights is None:
            self.weights = None
            self.blend_lines.set_segments([])
            return
        w = _weights(weights)
        if w.shape != (len(self.values),):
            raise ValueError(f"weights must have shape ({len(self.values)},), got {w.shape}")
        self.weights = w
        self.blend_lines.set_segments([[tuple(out), tuple(value)] for value in self.values])
        self.blend_lines.set_linewidths(0.3 + 5.0 * w)

    def set_title(self, title: str) -> None:
        """Change the plot's title."""
        self.ax.title.set_text(title)  # keeps the title's font settings

    def dynamic_artists(self) -> list:
        """The artists :meth:`update` changes, in drawing order."""
        return [
            self.blend_lines,
            self.query_arrow,
            self.query_label,
            self.output_marker,
            self.ax.title,
        ]


def vector_plot(
    keys,
    values,
    query,
    output,
    weights=None,
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    limits=None,
    legend: bool = True,
) -> VectorPlot:
    """Draw keys (arrows), values (squares), the query (arrow) and the output (star) in 2-D.

    Parameters
    ----------
    keys : array_like, shape (n, 2)
    values : array_like, shape (n, 2)
    query : array_like, shape (2,)
    output : array_like, shape (2,)
        The attention output for ``query`` (a weighted average of ``values``).
    weights : array_like, shape (n,), optional
        Draws output-to-value lines as thick as each weight.
    labels : sequence of str, length n, optional
        Token names written next to keys and values (up to 12 tokens).
    ax : matplotlib.axes.Axes, optional
    limits : ((x0, x1), (y0, y1)), optional
        Fixed axis limits (the explorer fixes them so the view does not jump while dragging).
    legend : bool, default True
        Draw a legend (the explorer says what each mark is in the title instead).

    Returns
    -------
    VectorPlot
        Keeps its artists; ``.update(query, output, weights=None)`` redraws in place.
    """
    ax = _axes(ax, (4.5, 4.5))
    return VectorPlot(
        ax, keys, values, query, output, weights=weights, labels=labels, limits=limits
    )
