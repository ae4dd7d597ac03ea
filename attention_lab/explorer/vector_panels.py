"""The explorer's two vector panels: the query among the keys, and the output among the values.

Keys and values live in different panels so a student never mistakes one for the other: the
left one shows where scores come from (the query's dot product with each key arrow), the right
one what the weights do with them (the output is a blend of the value points). Labels are at
least 10 pt, stay inside their axes, and two things that are equal (at the readouts' 3
decimals) get one merged label ("q = k Chandrayaan", "output = v ISRO"); two merely near each
other keep their own labels, placed apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.patches import FancyArrowPatch, Patch, Polygon
from matplotlib.text import Text
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.plots._style import (
    ANNOTATE_MAX_TOKENS,
    KEY_COLOUR,
    OUTPUT_COLOUR,
    QUERY_COLOUR,
    VALUE_COLOUR,
    add_label,
)
from attention_lab.plots.vectors import Limits, convex_hull, vector_axes

__all__ = [
    "LABEL_PT", "KeysPanel", "ValuesPanel", "coincide", "equal_as_shown", "place_labels",
    "values_limits",
]  # fmt: skip

LABEL_PT = 10.0
#: A label's box in pixels: ``(left, right, bottom, top)``.
Box = tuple[float, float, float, float]
_NEAR = 0.04  # two points closer than this fraction of the panel's span share one label


def values_limits(V: ArrayLike) -> Limits:
    """Square limits around the values (and the origin): the output always lies among them."""
    pts = np.vstack([V, [[0.0, 0.0]]])
    low, high = float(pts.min()), float(pts.max())
    pad = 0.12 * max(high - low, 1.0)
    return (low - pad, high + pad), (low - pad, high + pad)


def _span(ax: Axes) -> float:
    return float(max(np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim())))


def coincide(a: ArrayLike, b: ArrayLike, ax: Axes) -> bool:
    """Whether two points would be drawn (nearly) on top of each other in ``ax``."""
    return float(np.hypot(*(np.asarray(a) - np.asarray(b)))) <= _NEAR * _span(ax)


def equal_as_shown(a: ArrayLike, b: ArrayLike) -> bool:
    """Tell whether two points are the same at the 3 decimals every readout shows.

    Only then may a label say "q = k it" (a query at (0.95, 1.0) is near the key (1, 1), not
    equal to it).
    """
    return bool(
        np.array_equal(np.round(np.asarray(a, float), 3), np.round(np.asarray(b, float), 3))
    )


_LINE_PX = 15.0  # a 10 pt line at 90 dpi


def place_labels(
    items: Iterable[tuple[Text, FloatArray]],
    ax: Axes,
    avoid: Sequence[ArrayLike] = (),
    lines: Sequence[tuple[ArrayLike, ArrayLike]] = (),
) -> None:
    """Put each label just past its point, inside the axes and off the labels placed before.

    Where there is room, a label also keeps off the arrows and lines.

    Parameters
    ----------
    items : sequence of (Text, point)
        The labels, most important first; hidden ones are skipped. Each goes beside its
        point on the side facing away from the origin (the other side when that one has no
        room), else just above or below it, else further up or down, else on its other side:
        the first of those places, kept inside the axes, that overlaps no earlier label and
        covers no arrow of ``avoid`` (failing that, the first that overlaps no label).
    ax : matplotlib.axes.Axes
    avoid : sequence of array_like, shape (2,)
        Arrow tips; the arrows run from the origin to them (the keys and the query). A label
        on an arrow's shaft is half hidden by it (tiffin's "k tiffin" under the query arrow).
    lines : sequence of (array_like, array_like)
        Segments (start, end) to keep off too, but for a tenth at each end, where the labels
        of their end points are: the blend lines from the output to each value (tiffin's
        dotted line to "v it" crossed that label).
    """
    # The box as drawn: an equal-aspect axes is shrunk to a square when drawn, and the labels
    # must be placed in that square the first time too, not in the box before the first draw.
    ax.apply_aspect()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    box = ax.get_window_extent()
    sx, sy = max(box.width, 1.0) / (x1 - x0), max(box.height, 1.0) / (y1 - y0)
    figure = ax.get_figure(root=True)
    assert figure is not None  # the axes were made in a figure
    # get_renderer is on the raster canvases (Agg), not on the stubs' FigureCanvasBase
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    shafts = np.vstack(
        [_shaft_points(avoid, (x0, y0), (sx, sy)), _line_points(lines, (x0, y0), (sx, sy))]
    )
    placed: list[Box] = []
    for text, point in items:
        if not text.get_visible():
            continue
        # Measured (the layout of a string is cached, so this costs little after the first)
        size = text.get_window_extent(renderer)
        if size.width + 4.0 > box.width and " = " in text.get_text():
            # A merged label wider than its panel ("output = v Chandrayaan" in a 130-pixel
            # panel) would run out of it on one line: two lines.
            text.set_text(text.get_text().replace(" = ", " =\n", 1))
            size = text.get_window_extent(renderer)
        w, h = size.width + 2.0, max(size.height, _LINE_PX)
        px, py = (point[0] - x0) * sx, (point[1] - y0) * sy  # pixels from the lower left
        norm = float(np.hypot(*point))
        dx, dy = (point[0] / norm, point[1] / norm) if norm else (0.7, 0.7)
        left = px + 8 * dx if dx >= 0 else px + 8 * dx - w
        other = px - 8 - w if dx >= 0 else px + 8
        if left + w > box.width - 2.0 or left < 2.0:  # no room on that side: the other one
            left, other = other, left
        centre = py + 8 * dy
        free: Box | None = None
        clear: Box | None = None
        # Beside the point (facing away from the origin), then just above or below it, then
        # further up or down, then on its other side: the label stays next to its own point.
        mid = px - w / 2
        order = [(left, 0), (left, 1), (left, -1), (mid, 1), (mid, -1), (left, 2), (left, -2)]
        order += [(other, 0), (other, 1), (other, -1), (left, 3), (left, -3)]
        for side, shift in order:
            cy = min(max(centre + shift * h, h / 2), box.height - h / 2)
            lx = min(max(side, 2.0), box.width - w - 2.0)
            candidate = (lx, lx + w, cy - h / 2, cy + h / 2)
            if any(_overlap(candidate, other_box) for other_box in placed):
                continue
            free = free or candidate
            if not _covers(candidate, shafts):
                clear = candidate
                break
        candidate = clear or free or candidate
        placed.append(candidate)
        text.set_horizontalalignment("left")
        text.set_verticalalignment("center")
        text.set_position((x0 + candidate[0] / sx, y0 + (candidate[2] + h / 2) / sy))


def _shaft_points(
    tips: Sequence[ArrayLike], origin: tuple[float, float], scale: tuple[float, float]
) -> FloatArray:
    """Return points along each arrow from the origin to a tip, shape (m, 2).

    In pixels from the axes' lower left; the last tenth (the head, beside its own label) is
    left out.
    """
    if not len(tips):
        return np.empty((0, 2))
    t = np.linspace(0.0, 0.9, 19)[:, None, None]
    arrows: FloatArray = np.asarray(tips, dtype=float)[None]
    pts: FloatArray = (t * arrows - np.asarray(origin)) * np.asarray(scale)
    return pts.reshape(-1, 2)


def _line_points(
    segments: Sequence[tuple[ArrayLike, ArrayLike]],
    origin: tuple[float, float],
    scale: tuple[float, float],
) -> FloatArray:
    """Return points along each segment but its end tenths, shape (m, 2), in pixels."""
    if not len(segments):
        return np.empty((0, 2))
    ends: FloatArray = np.asarray(segments, dtype=float)  # (n, 2, 2)
    t = np.linspace(0.1, 0.9, 17)[:, None, None]
    pts = ends[None, :, 0] + t * (ends[None, :, 1] - ends[None, :, 0])
    shifted: FloatArray = (pts - np.asarray(origin)) * np.asarray(scale)
    return shifted.reshape(-1, 2)


def _covers(box: Box, points: FloatArray) -> bool:
    x, y = points[:, 0], points[:, 1]
    return bool(np.any((x > box[0]) & (x < box[1]) & (y > box[2]) & (y < box[3])))


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


class KeysPanel:
    """The query arrow among the key arrows (where the scores come from).

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    key_arrows : list of FancyArrowPatch
        The keys (static).
    key_overlays : list of FancyArrowPatch
        Copies of the key arrows, visible only over a query that sits on that key, so a key
        equal to the query still shows.
    key_labels : list of Text
        "k ISRO", ...; hidden while the query sits on that key (the query's label says it).
    query_arrow : FancyArrowPatch
    query_label : Text
        "q", or "q = k Chandrayaan" when the query coincides with a key.
    query : numpy.ndarray, shape (2,)
        The query drawn.
    """

    def __init__(
        self,
        ax: Axes,
        keys: ArrayLike,
        labels: Sequence[str],
        query: ArrayLike,
        limits: Limits,
        title: str,
    ) -> None:
        self.ax = ax
        self.keys = np.asarray(keys, dtype=float)
        self.labels = list(labels)
        vector_axes(ax, limits, title)
        q = np.asarray(query, dtype=float)
        self.query_arrow = FancyArrowPatch(
            (0, 0), (float(q[0]), float(q[1])), arrowstyle="-|>", mutation_scale=18, color=QUERY_COLOUR, lw=4.0,
            alpha=0.85,
        )  # fmt: skip
        ax.add_patch(self.query_arrow)

        def key_arrow(k: FloatArray, visible: bool = True) -> Patch:
            return ax.add_patch(
                FancyArrowPatch(
                    (0, 0), tuple(k), arrowstyle="-|>", mutation_scale=12, color=KEY_COLOUR,
                    lw=1.6, visible=visible,
                )
            )  # fmt: skip

        self.key_arrows = [key_arrow(k) for k in self.keys]  # static: in the background
        # A copy of each key arrow, shown over the query only while the query sits on that key
        # (arrows are slow to draw: only these few are redrawn on every step).
        self.key_overlays = [key_arrow(k, visible=False) for k in self.keys]
        font: dict[str, Any] = {"fontsize": LABEL_PT, "va": "center"}
        # Above a dozen tokens names cannot be read anyway: no key labels, static key arrows.
        self.named = len(self.keys) <= ANNOTATE_MAX_TOKENS
        self.key_labels = [
            add_label(ax, *k, text=f"k {name}", color=KEY_COLOUR, **font)
            for k, name in zip(self.keys, self.labels, strict=True)
            if self.named
        ]
        self.query_label = add_label(
            ax, 0, 0, text="q", color=QUERY_COLOUR, fontweight="bold", **font
        )
        self.update(query)

    def update(self, query: ArrayLike) -> None:
        """Move the query arrow; merge its label with a key it sits on."""
        q = self.query = np.asarray(query, dtype=float)
        self.query_arrow.set_positions((0, 0), tuple(q))
        near = [j for j, k in enumerate(self.keys) if coincide(q, k, self.ax)]
        on = [j for j in near if self.named and equal_as_shown(q, self.keys[j])]
        names = " = ".join(f"k {self.labels[j]}" for j in on)
        self.query_label.set_text(f"q = {names}" if on else "q")
        for j, text in enumerate(self.key_labels):
            text.set_visible(j not in on)
        for j, arrow in enumerate(self.key_overlays):  # a key under the query still shows
            arrow.set_visible(j in near)
        place_labels(
            [(self.query_label, q), *zip(self.key_labels, self.keys, strict=False)],
            self.ax,
            avoid=[q, *self.keys],
        )

    def dynamic_artists(self) -> list[Artist]:
        """Return what :meth:`update` changes: the query arrow and label, key overlays and labels."""
        # A key the query sits on is drawn again over it, so it still shows.
        return [self.query_arrow, *self.key_overlays, *self.key_labels, self.query_label]


class ValuesPanel:
    """The output among the values: a blend inside their convex hull.

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    hull : Polygon
    value_labels : list of Text
        "v ISRO", ...; hidden while the output sits on that value.
    blend_lines : LineCollection
        Output-to-value segments, as thick as each weight.
    output_marker : Line2D
    output_label : Text
        "output", or "output = v ISRO" when it coincides with a value (hard attention).
    output : numpy.ndarray, shape (2,)
        The output drawn.
    """

    def __init__(
        self,
        ax: Axes,
        values: ArrayLike,
        labels: Sequence[str],
        output: ArrayLike,
        weights: ArrayLike,
        limits: Limits,
        title: str,
    ) -> None:
        self.ax = ax
        self.values = np.asarray(values, dtype=float)
        self.labels = list(labels)
        vector_axes(ax, limits, title)
        hull = convex_hull(self.values)
        self.hull = Polygon(
            hull if len(hull) >= 3 else np.vstack([hull, hull[:1]]), closed=True,
            facecolor=VALUE_COLOUR, alpha=0.12, edgecolor=VALUE_COLOUR, linestyle="--",
        )  # fmt: skip
        ax.add_patch(self.hull)
        ax.plot(self.values[:, 0], self.values[:, 1], "s", color=VALUE_COLOUR, markersize=8)
        self.blend_lines = LineCollection([], colors=OUTPUT_COLOUR, alpha=0.45, linestyles=":")
        ax.add_collection(self.blend_lines, autolim=False)
        (self.output_marker,) = ax.plot(
            [], [], marker="*", markersize=17, color=OUTPUT_COLOUR, markeredgecolor="white",
            linestyle="none",
        )  # fmt: skip
        font: dict[str, Any] = {"fontsize": LABEL_PT, "va": "center"}
        self.value_labels = [
            add_label(ax, *v, text=f"v {name}", color=VALUE_COLOUR, **font)
            for v, name in zip(self.values, self.labels, strict=True)
            if len(self.values) <= ANNOTATE_MAX_TOKENS
        ]
        self.output_label = add_label(ax, 0, 0, text="output", color=OUTPUT_COLOUR, **font)
        self.update(output, weights)

    def update(self, output: ArrayLike, weights: ArrayLike) -> None:
        """Move the output star, reweight the blend lines, merge labels that coincide."""
        out = self.output = np.asarray(output, dtype=float)
        self.output_marker.set_data([out[0]], [out[1]])
        self.blend_lines.set_segments([[tuple(out), tuple(v)] for v in self.values])
        # matplotlib's stubs leave out set_linewidths, set_linewidth's alias
        self.blend_lines.set_linewidths(  # type: ignore[attr-defined]
            0.3 + 5.0 * np.asarray(weights, dtype=float)
        )
        named = bool(self.value_labels)
        on = [j for j, v in enumerate(self.values) if named and equal_as_shown(out, v)]
        names = " = ".join(f"v {self.labels[j]}" for j in on)
        self.output_label.set_text(f"output = {names}" if on else "output")
        for j, text in enumerate(self.value_labels):
            text.set_visible(j not in on)
        place_labels(
            [(self.output_label, out), *zip(self.value_labels, self.values, strict=False)],
            self.ax,
            lines=[(out, v) for v in self.values],
        )

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes: blend lines, output marker and labels."""
        return [
            self.blend_lines, self.output_marker, *self.value_labels, self.output_label,
        ]  # fmt: skip
