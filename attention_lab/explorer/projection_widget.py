"""Lesson 6's live widget: edit W_Q with two sliders, watch the projected queries and the heatmap.

``W_Q = stretch * rotation(angle)`` (:func:`attention_lab.projections.rotation_stretch`): the
angle turns every word's query, the stretch scales them all. :class:`ProjectionFigure` draws the
keys once and moves only the four query arrows, their labels and the heatmap's cells on each
step (:class:`~attention_lab.live_figure.LiveFigure`, the course's one fast render path);
:class:`ProjectionSliders` puts the two sliders above it (a
:class:`~attention_lab.explorer.slider_widgets.SliderFigure`).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch
from numpy.typing import ArrayLike

from attention_lab import plots
from attention_lab._format import fmt
from attention_lab.examples import TIFFIN
from attention_lab.explorer.controls import slider_width
from attention_lab.explorer.slider_widgets import SliderFigure
from attention_lab.explorer.vector_panels import LABEL_PT, place_labels
from attention_lab.live_figure import LiveFigure
from attention_lab.plots._style import KEY_COLOUR, QUERY_COLOUR, add_label
from attention_lab.plots.vectors import vector_axes
from attention_lab.projections import (
    LESSON_W_K,
    ProjectedAttention,
    projected_attention,
    rotation_stretch,
    tiffin_embeddings,
)

__all__ = ["ProjectionFigure", "ProjectionSliders"]

STRETCH_RANGE = (0.25, 1.5)


class ProjectionFigure(LiveFigure[tuple[float, float]]):
    """Keys (static) and the projected queries of every word, beside the weights as a heatmap.

    Parameters
    ----------
    tokens : sequence of str, length n
    X : array_like, shape (n, 2)
        The words' embeddings.
    W_K : array_like, shape (2, 2)
    state : (float, float)
        W_Q's angle in degrees and its stretch.
    max_stretch : float
        The largest stretch the sliders allow (fixes the panel's limits).
    """

    def __init__(
        self,
        tokens: Sequence[str],
        X: ArrayLike,
        W_K: ArrayLike,
        state: tuple[float, float],
        max_stretch: float = 1.5,
    ) -> None:
        self.tokens = tuple(tokens)
        self.X = np.asarray(X, dtype=float)
        self.W_K = np.asarray(W_K, dtype=float)
        keys = self.X @ self.W_K
        fig = Figure(figsize=(9.6, 3.9), dpi=96, layout="constrained")
        super().__init__(fig)
        ax_vec, ax_map = fig.subplots(1, 2, width_ratios=[1.0, 1.1])
        reach = max(
            max_stretch * float(np.linalg.norm(self.X, axis=1).max()), float(np.abs(keys).max())
        )
        lim = 1.05 * reach
        vector_axes(
            ax_vec,
            ((-lim, lim), (-lim, lim)),
            "keys k = x W_K (blue, fixed)\nqueries q = x W_Q (orange)",
        )
        self.ax_vec = ax_vec
        self.keys = keys
        for k in keys:
            ax_vec.add_patch(FancyArrowPatch((0, 0), tuple(k), arrowstyle="-|>", mutation_scale=12,
                                             color=KEY_COLOUR, lw=1.6))  # fmt: skip
        # Placed again with the queries' labels at every step, so no two labels overlap.
        self.key_labels = [
            add_label(ax_vec, *k, text=f"k {name}", color=KEY_COLOUR, fontsize=LABEL_PT - 1,
                      va="center")
            for k, name in zip(keys, self.tokens, strict=True)
        ]  # fmt: skip
        self.query_arrows = [
            ax_vec.add_patch(FancyArrowPatch((0, 0), (1, 0), arrowstyle="-|>", mutation_scale=14,
                                             color=QUERY_COLOUR, lw=2.4, alpha=0.85))
            for _ in self.tokens
        ]  # fmt: skip
        self.query_labels = [
            add_label(ax_vec, 0, 0, text=f"q {name}", color=QUERY_COLOUR, fontsize=LABEL_PT,
                      va="center", fontweight="bold")
            for name in self.tokens
        ]  # fmt: skip
        self.result = self.numbers(state)
        # Colour only, no numbers in the cells: all four rows change at every step, and
        # sixteen new strings per picture cost more than the rest of the frame (the glyph cache
        # only helps strings seen before). The readout under the picture prints every weight.
        self.heatmap = plots.attention_heatmap(
            self.result.weights, self.tokens, self.tokens, ax=ax_map, annotate=False
        )
        self.heatmap.set_title("softmax(Q Kᵀ / √2): rows = the word asking")
        ax_vec.title.set_fontsize(10)
        ax_map.title.set_fontsize(10)
        self.update(state)

    def numbers(self, state: tuple[float, float]) -> ProjectedAttention:
        """Return the head for ``state`` = (angle in degrees, stretch)."""
        angle, stretch = state
        W_Q = rotation_stretch(angle, stretch)
        return projected_attention(self.X, W_Q, self.W_K, np.eye(self.X.shape[1]))

    def update(self, state: tuple[float, float]) -> None:
        """Move the query arrows and labels, recolour the heatmap for ``state`` (angle, stretch)."""
        self.result = result = self.numbers(state)
        for arrow, q in zip(self.query_arrows, result.Q, strict=True):
            arrow.set_positions((0, 0), tuple(q))
        place_labels(
            [
                *zip(self.query_labels, result.Q, strict=True),
                *zip(self.key_labels, self.keys, strict=True),
            ],
            self.ax_vec,
            avoid=[*result.Q, *self.keys],
        )
        self.heatmap.update(result.weights)

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes: query arrows, labels and heatmap cells."""
        cells = [a for a in self.heatmap.dynamic_artists() if a is not self.heatmap.ax.title]
        return [*self.query_arrows, *self.query_labels, *self.key_labels, *cells]


class ProjectionSliders(SliderFigure):
    """Lesson 6: turn and stretch W_Q with two sliders; the queries and the weights follow.

    Parameters
    ----------
    angle_deg : float, default 0
        W_Q's starting angle (0 with stretch 1 is the identity: the chapter's own queries).
    stretch : float, default 1
    tokens : sequence of str, default chapter A's four words
    X : array_like, shape (n, 2), default their vectors (:func:`tiffin_embeddings`)
    W_K : array_like, shape (2, 2), default the identity (lesson 6's ``LESSON_W_K``)
    """

    live: ProjectionFigure  # what SliderFigure keeps as its LiveFigure (made in __init__)

    def __init__(
        self,
        angle_deg: float = 0.0,
        stretch: float = 1.0,
        tokens: Iterable[str] | None = None,
        X: ArrayLike | None = None,
        W_K: ArrayLike | None = None,
    ) -> None:
        tokens = TIFFIN.tokens if tokens is None else tuple(tokens)
        X = tiffin_embeddings() if X is None else np.asarray(X, dtype=float)
        W_K = LESSON_W_K if W_K is None else np.asarray(W_K, dtype=float)
        if X.ndim != 2 or X.shape != (len(tokens), 2):
            raise ValueError(
                f"X must be one 2-D vector per token: {len(tokens)} x 2, got {X.shape}"
            )
        low, high = STRETCH_RANGE
        if not low <= float(stretch) <= high:
            raise ValueError(f"stretch must be between {low} and {high}, got {stretch!r}")
        angle = widgets.FloatSlider(
            value=angle_deg, min=-180.0, max=180.0, step=1.0, description="W_Q angle (°)",
            style={"description_width": "initial"}, continuous_update=True,
            layout=widgets.Layout(width=slider_width(-180.0, 180.0, "W_Q angle (°)", 1.0)),
        )  # fmt: skip
        scale = widgets.FloatSlider(
            value=stretch, min=low, max=high, step=0.05, description="W_Q stretch",
            style={"description_width": "initial"}, continuous_update=True,
            layout=widgets.Layout(width=slider_width(low, high, "W_Q stretch", 0.01)),
        )  # fmt: skip
        figure = ProjectionFigure(tokens, X, W_K, (angle_deg, stretch), max_stretch=high)
        super().__init__(
            angle, "Drag to turn W_Q (every query turns) and to stretch it (every query grows).",
            figure, scale,
        )  # fmt: skip

    @property
    def angle_slider(self) -> widgets.FloatSlider:
        """The slider that turns ``W_Q`` (degrees)."""
        return self.sliders[0]

    @property
    def stretch_slider(self) -> widgets.FloatSlider:
        """The slider that stretches ``W_Q``."""
        return self.sliders[1]

    def _readout_html(self, text: str, value: tuple[float, float]) -> str:
        """Return the sentence and the weights as a table (row = word asking) for screen readers."""
        tokens = [html.escape(t) for t in self.live.tokens]
        head = "".join(f"<th scope='col'>{t}</th>" for t in tokens)
        rows = "".join(
            f"<tr><th scope='row'>{t}</th>" + "".join(f"<td>{fmt(w)}</td>" for w in row) + "</tr>"
            for t, row in zip(tokens, self.live.numbers(value).weights, strict=True)
        )
        sentence = html.escape(text.split(" Weights (row")[0])
        return (
            f"<p>{sentence}</p><table style='border-collapse:collapse;text-align:right'>"
            "<caption>attention weights: row = the word asking, column = the word it looks at"
            f"</caption><thead><tr><th scope='col'>asking</th>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )

    def _describe(self, value: tuple[float, float]) -> str:
        angle, stretch = value
        result = self.live.numbers(value)
        tokens = self.live.tokens
        rows = "; ".join(
            f"{t} → " + ", ".join(f"{k} {fmt(w)}" for k, w in zip(tokens, row, strict=True))
            for t, row in zip(tokens, result.weights, strict=True)
        )
        best = ", ".join(
            f"{t} → "
            + " = ".join(k for k, w in zip(tokens, row, strict=True) if w > row.max() - 5e-4)
            for t, row in zip(tokens, result.weights, strict=True)
        )
        matrix = "; ".join(", ".join(fmt(x) for x in row) for row in rotation_stretch(*value))
        return (
            f"W_Q at {angle:.0f}°, stretch {stretch:.2f} = [{matrix}]. Each word looks most at: {best}. "
            f"Weights (row = the word asking): {rows}."
        )
