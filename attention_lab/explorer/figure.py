"""The explorer's figure: one state in, one PNG out.

Four panels side by side: every token's weights (heatmap), the selected query's weights (bars),
the query among the keys, and the output among the values. :class:`ExplorerFigure` is a
:class:`~attention_lab.live_figure.LiveFigure`: it updates its artists in place and alone
decides what is static (the titles; see :meth:`ExplorerFigure.static_key`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from attention_lab._format import fmt
from attention_lab.explorer.model import ExplorerState
from attention_lab.explorer.vector_panels import KeysPanel, ValuesPanel, values_limits
from attention_lab.live_figure import LiveFigure
from attention_lab.plots import AttentionHeatmap, WeightsBars
from attention_lab.plots.vectors import Limits

__all__ = [
    "FIGURE_DPI",
    "FIGURE_SIZE",
    "ExplorerFigure",
    "plot_limits",
    "render_naive",
]

# 998 x 274 pixels, shown at its own size: at 96 dpi a 10 pt label is 13.3 pixels, CSS's
# 10 pt, so labels are read at the size they were drawn. A JupyterLab notebook is about 1180
# pixels wide at 1280 x 720 and 920 at 1024 x 768 (file browser closed): there the picture is
# shown whole or scaled by 0.9, never more.
FIGURE_SIZE = (10.4, 2.85)  # inches
FIGURE_DPI = 96
TITLE_PT = 10.0


def plot_limits(K: ArrayLike, reach: float) -> Limits:
    """Return fixed keys-panel limits: the sliders' square plus every key, with a margin."""
    pts = np.vstack([K, [[-reach, -reach], [reach, reach]]])
    low, high = float(pts.min()), float(pts.max())  # one range for both axes: the plot is square
    pad = 0.06 * (high - low)
    return (low - pad, high + pad), (low - pad, high + pad)


class ExplorerFigure(LiveFigure[ExplorerState]):
    """Heatmap, weights bars, keys panel and values panel on one Agg figure.

    Parameters
    ----------
    tokens : list of str, length n
    K, V : numpy.ndarray, shape (n, 2)
    state : ExplorerState
        The state drawn first.
    limits : ((x0, x1), (y0, y1))
        The keys panel's fixed limits (the query can go anywhere the sliders reach), from
        :func:`plot_limits`.
    """

    def __init__(
        self,
        tokens: Iterable[str],
        K: ArrayLike,
        V: ArrayLike,
        state: ExplorerState,
        limits: Limits,
    ) -> None:
        self.tokens = list(tokens)
        figure = Figure(figsize=FIGURE_SIZE, dpi=FIGURE_DPI, layout="constrained")
        super().__init__(figure)  # attaches the Agg canvas the panels measure their labels on
        ax_heat, ax_bars, ax_keys, ax_vals = figure.subplots(
            1, 4, width_ratios=[1.4, 0.9, 1.0, 1.0]
        )
        self.heatmap = AttentionHeatmap(
            ax_heat, state.weight_matrix, self.tokens, self.tokens, mask=state.mask, colorbar=False
        )
        self.bars = WeightsBars(ax_bars, state.weights, self.tokens)
        self.keys = KeysPanel(ax_keys, K, self.tokens, state.query, limits, "")
        self.values = ValuesPanel(
            ax_vals, V, self.tokens, state.output, state.weights, values_limits(V), ""
        )
        for ax in figure.axes:
            ax.title.set_fontsize(TITLE_PT)
        self.update(state)

    def titles(self, state: ExplorerState) -> tuple[str, str, str, str]:
        """Return the four titles, always two lines: the layout found on the first draw fits all."""
        mode = "hard (argmax)" if state.hard else "softmax"
        token = self.tokens[state.query_index]
        heat = f"all weights ({mode})"
        if state.mask is None:
            heat += "\nrow = query, sums to 1"  # else: the masked-cells note
        tied = state.tied
        if len(tied):
            names = " = ".join(self.tokens[j] for j in tied)
            bars = f"TIE: {names}\nargmax took the first"
        else:
            bars = f"weights of “{token}”\n(its row, outlined)"
        keys = "query q, keys k\nscore = q·k"
        values = "values v, output ★\n= Σ weight × v"
        return heat, bars, keys, values

    def update(self, state: ExplorerState) -> None:
        """Change the heatmap, bars, vector panels and titles to show ``state`` (no drawing)."""
        self.heatmap.update(state.weight_matrix, mask=state.mask)
        self.heatmap.highlight_row(state.query_index)
        if state.ties is not None and self.heatmap.texts is not None:
            for i, j in zip(*np.nonzero(state.ties), strict=True):
                self.heatmap.texts[i, j].set_text(f"{fmt(state.weight_matrix[i, j])}\ntie")
        row_mask = None if state.mask is None else state.mask[state.query_index]
        self.bars.update(state.weights, mask=row_mask)
        self.keys.update(state.query)
        self.values.update(state.output, state.weights)
        heat, bars, keys, values = self.titles(state)
        self.heatmap.set_title(heat)
        self.bars.set_title(bars)
        self.keys.ax.title.set_text(keys)  # set_text keeps the title's font size
        self.values.ax.title.set_text(values)

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes: the cells, bars, arrows and labels."""
        # Titles are static (text is the slowest thing Agg draws): a change of title, which
        # comes with the token or a toggle, redraws the background (LiveFigure.static_key).
        heat = [a for a in self.heatmap.dynamic_artists() if a is not self.heatmap.ax.title]
        bars = [a for a in self.bars.dynamic_artists() if a is not self.bars.ax.title]
        return heat + bars + self.keys.dynamic_artists() + self.values.dynamic_artists()


def render_naive(
    tokens: Iterable[str], K: ArrayLike, V: ArrayLike, state: ExplorerState, limits: Limits
) -> bytes:
    """Build the whole explorer figure from scratch and encode it (the benchmark's baseline)."""
    from attention_lab._render import figure_png

    return figure_png(ExplorerFigure(tokens, K, V, state, limits).figure)
