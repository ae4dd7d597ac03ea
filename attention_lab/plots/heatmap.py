"""The attention-weight heatmap (queries x keys), updated in place."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.patches import Rectangle
from numpy.typing import ArrayLike

from attention_lab._format import fmt
from attention_lab.plots._style import (
    ANNOTATE_MAX_TOKENS,
    HEATMAP_CMAP,
    MASKED_FACE,
    MASKED_HATCH,
    MASKED_NOTE,
    QUERY_COLOUR,
    LivePlot,
    add_label,
    axes_or_new,
    black_text_wins,
    bool_mask,
    cell_fontsize,
    checked_labels,
    weights_array,
)


class AttentionHeatmap(LivePlot):
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
        weights: ArrayLike,
        query_labels: Sequence[str],
        key_labels: Sequence[str],
        annotate: bool = True,
        mask: ArrayLike | None = None,
        title: str = "attention weights",
        colorbar: bool = True,
    ) -> None:
        w = np.atleast_2d(weights_array(weights))
        self.shape = w.shape
        n_q, n_k = w.shape
        self.query_labels = checked_labels(query_labels, n_q, "query_labels", "rows (queries)")
        self.key_labels = checked_labels(key_labels, n_k, "key_labels", "columns (keys)")
        self.ax = ax
        self.base_title = title

        cmap = plt.get_cmap(HEATMAP_CMAP).with_extremes(bad=MASKED_FACE)
        self._cmap = cmap
        # pcolormesh rather than imshow: a mesh of n_q x n_k quads is cheap to draw, while
        # imshow resamples the image to the screen's pixels on every draw.
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
            size = cell_fontsize(max(n_q, n_k))
            self.texts = np.empty((n_q, n_k), dtype=object)
            for i in range(n_q):
                for j in range(n_k):
                    self.texts[i, j] = add_label(ax, j, i, ha="center", va="center", fontsize=size)
        self.weights = w
        self.mask = bool_mask(None, self.shape)
        self.update(w, mask)

    def update(self, weights: ArrayLike, mask: ArrayLike | None = None) -> None:
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
        w = np.atleast_2d(weights_array(weights))
        if w.shape != self.shape:
            raise ValueError(
                f"weights have shape {w.shape} but this heatmap shows {self.shape}; "
                "make a new heatmap for a different number of tokens"
            )
        allowed = bool_mask(mask, self.shape)
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
            dark_text = black_text_wins(self._cmap(w)[..., :3])
            for (i, j), text in np.ndenumerate(self.texts):
                if allowed[i, j]:
                    text.set_text(fmt(float(w[i, j])))
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

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes, in drawing order."""
        # The spines are redrawn too: the mesh covers them, and a full draw puts them on top.
        spines = list(self.ax.spines.values())
        artists = [self.image, self.masked_cells, self.row_outline, *spines, self.ax.title]
        if self.texts is not None:
            artists.extend(self.texts.ravel())
        return artists


def attention_heatmap(
    weights: ArrayLike,
    query_labels: Sequence[str],
    key_labels: Sequence[str],
    ax: Axes | None = None,
    annotate: bool = True,
    mask: ArrayLike | None = None,
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
    w = np.atleast_2d(weights_array(weights))
    n = max(w.shape)
    ax = axes_or_new(ax, (min(3.2 + 0.35 * n, 9.0), min(2.6 + 0.35 * n, 8.0)))
    return AttentionHeatmap(ax, w, query_labels, key_labels, annotate=annotate, mask=mask)
