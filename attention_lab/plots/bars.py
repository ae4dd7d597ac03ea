"""One query's weights as a bar chart, updated in place."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from attention_lab._format import fmt
from attention_lab.plots._style import (
    ANNOTATE_MAX_TOKENS,
    BAR_COLOUR,
    LivePlot,
    add_label,
    axes_or_new,
    bool_mask,
    cell_fontsize,
    checked_labels,
    weights_array,
)


class WeightsBars(LivePlot):
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

    def __init__(
        self,
        ax: Axes,
        weights: ArrayLike,
        labels: Sequence[str],
        mask: ArrayLike | None = None,
        title: str = "",
    ) -> None:
        w = weights_array(weights)
        if w.ndim != 1:
            raise ValueError(f"weights must be 1-D (one query's weights), got shape {w.shape}")
        n = len(w)
        self.labels = checked_labels(labels, n, "labels", "keys")
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
            size = cell_fontsize(n)
            self.texts = [
                add_label(ax, j, 0, ha="center", va="bottom", fontsize=size) for j in range(n)
            ]
        self.weights = w
        self.mask = bool_mask(None, w.shape)
        self.update(w, mask)

    def update(self, weights: ArrayLike, mask: ArrayLike | None = None) -> None:
        """Change the bar heights (and labels) in place.

        Parameters
        ----------
        weights : array_like, shape (n_k,)
        mask : array_like of bool, shape (n_k,), optional
            True where the query may attend; a masked key gets no bar, only the label "masked".
        """
        w = weights_array(weights)
        if w.shape != self.weights.shape:
            raise ValueError(f"weights have shape {w.shape}, this chart shows {self.weights.shape}")
        allowed = bool_mask(mask, w.shape)
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

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes, in drawing order."""
        spines = list(self.ax.spines.values())  # bars cover the bottom spine: draw it again
        return [*self.bars, *spines, *(self.texts or []), self.ax.title]


def weights_bar_chart(
    weights: ArrayLike, labels: Sequence[str], ax: Axes | None = None, mask: ArrayLike | None = None
) -> WeightsBars:
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
    ax = axes_or_new(ax, (min(2.5 + 0.4 * n, 10.0), 3.0))
    return WeightsBars(ax, weights, labels, mask=mask)
