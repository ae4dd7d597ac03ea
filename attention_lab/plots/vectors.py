"""Queries, keys, values and the output as arrows and points in 2-D, updated in place."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.patches import FancyArrowPatch, Polygon
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.plots._style import (
    ANNOTATE_MAX_TOKENS,
    KEY_COLOUR,
    OUTPUT_COLOUR,
    QUERY_COLOUR,
    VALUE_COLOUR,
    LivePlot,
    add_label,
    axes_or_new,
    checked_labels,
    finite_array,
    weights_array,
)

#: A 2-D plot's fixed limits: ``((x0, x1), (y0, y1))``.
Limits = tuple[tuple[float, float], tuple[float, float]]
#: A point of the plane, ``(x, y)``.
Point = tuple[float, float]


def convex_hull(points: ArrayLike) -> np.ndarray:
    """Corners of the convex hull of 2-D points, counter-clockwise (Andrew's monotone chain).

    Parameters
    ----------
    points : array_like, shape (n, 2)

    Returns
    -------
    numpy.ndarray, shape (h, 2)
        The hull's corners (h <= n); collinear or repeated points give a segment or one point.
    """
    pts = finite_array(points, "points", (2,))
    if pts.shape[1] != 2:
        raise ValueError(f"points must have 2 columns (x, y), got shape {pts.shape}")
    unique = sorted({(float(x), float(y)) for x, y in pts})
    if len(unique) <= 2:
        return np.array(unique)

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq: Iterable[Point]) -> list[Point]:
        chain: list[Point] = []
        for p in seq:
            while len(chain) >= 2 and cross(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(unique), half(reversed(unique))
    return np.array(lower[:-1] + upper[:-1])


def _vectors(x: ArrayLike, name: str, n: int | None = None) -> np.ndarray:
    arr = finite_array(x, name, (2,))
    if arr.shape[1] != 2:
        raise ValueError(f"{name} must have 2 columns to be drawn in the plane, got {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but there are {n} tokens")
    return arr


def _point(x: ArrayLike, name: str) -> np.ndarray:
    arr = finite_array(x, name, (1,))
    if arr.shape != (2,):
        raise ValueError(f"{name} must be a 2-D vector (x, y), got shape {arr.shape}")
    return arr


def _outward(vector: np.ndarray, distance: float) -> tuple[float, float]:
    """Return an offset (points) away from the origin along ``vector``, to place a label."""
    norm = float(np.hypot(*vector))
    if norm == 0:
        return (distance, distance)
    return (distance * 1.6 * vector[0] / norm, distance * vector[1] / norm)


def _nudge(vector: np.ndarray, ax: Axes, fraction: float = 0.05) -> np.ndarray:
    """Return a data-space step away from the origin along ``vector``: puts a label past a tip."""
    norm = float(np.hypot(*vector))
    span = max(float(np.ptp(ax.get_xlim())), float(np.ptp(ax.get_ylim())))
    direction: FloatArray = vector / norm if norm else np.array([0.7, 0.7])
    return fraction * span * direction


def _limits(points: np.ndarray, margin: float = 0.15) -> Limits:
    """Square-ish limits around ``points`` (always including the origin) with a margin."""
    pts = np.vstack([points, [[0.0, 0.0]]])
    low, high = pts.min(axis=0), pts.max(axis=0)
    pad = margin * max(float((high - low).max()), 1.0)
    return (float(low[0] - pad), float(high[0] + pad)), (float(low[1] - pad), float(high[1] + pad))


def vector_axes(ax: Axes, limits: Limits, title: str) -> None:
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


class VectorPlot(LivePlot):
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
        keys: ArrayLike,
        values: ArrayLike,
        query: ArrayLike,
        output: ArrayLike,
        weights: ArrayLike | None = None,
        labels: Sequence[str] | None = None,
        limits: Limits | None = None,
        title: str = "keys, query, values and output",
        legend: bool = True,
    ) -> None:
        k = _vectors(keys, "keys")
        n = k.shape[0]
        v = _vectors(values, "values", n)
        self.labels = checked_labels(labels, n, "labels", "tokens") if labels is not None else None
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
                assert self.labels is not None  # show_names says so
                ax.annotate(
                    f"k {self.labels[i]}", key, xytext=_outward(key, 9), textcoords="offset points",
                    color=KEY_COLOUR, fontsize=10, ha="center", va="center",
                )  # fmt: skip
        ax.plot(v[:, 0], v[:, 1], "s", color=VALUE_COLOUR, markersize=7, label="values")
        if show_names:
            assert self.labels is not None  # show_names says so
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
        # matplotlib's stubs want a tuple for posB; any pair of numbers works, q is an array
        self.query_arrow = FancyArrowPatch(
            (0, 0), q, arrowstyle="-|>", mutation_scale=16, color=QUERY_COLOUR, lw=2.6,  # type: ignore[arg-type]
            label="query",
        )  # fmt: skip
        ax.add_patch(self.query_arrow)
        self.query_label = add_label(
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

    def update(self, query: ArrayLike, output: ArrayLike, weights: ArrayLike | None = None) -> None:
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
        w = weights_array(weights)
        if w.shape != (len(self.values),):
            raise ValueError(f"weights must have shape ({len(self.values)},), got {w.shape}")
        self.weights = w
        self.blend_lines.set_segments([[tuple(out), tuple(value)] for value in self.values])
        # matplotlib's stubs leave out set_linewidths, set_linewidth's alias
        self.blend_lines.set_linewidths(0.3 + 5.0 * w)  # type: ignore[attr-defined]

    def set_title(self, title: str) -> None:
        """Change the plot's title."""
        self.ax.title.set_text(title)  # keeps the title's font settings

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes, in drawing order."""
        return [
            self.blend_lines,
            self.query_arrow,
            self.query_label,
            self.output_marker,
            self.ax.title,
        ]


def vector_plot(
    keys: ArrayLike,
    values: ArrayLike,
    query: ArrayLike,
    output: ArrayLike,
    weights: ArrayLike | None = None,
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    limits: Limits | None = None,
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
    ax = axes_or_new(ax, (4.5, 4.5))
    return VectorPlot(
        ax, keys, values, query, output, weights=weights, labels=labels, limits=limits
    )
