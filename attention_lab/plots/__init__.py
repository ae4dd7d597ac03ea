"""Attention plots whose artists are kept, so a widget can change them in place.

Each ``*_plot``/``attention_heatmap`` function draws once and returns an object holding its
matplotlib artists; its ``update(...)`` method changes those artists' data without rebuilding
anything. Changing data and redrawing a few artists costs a small fraction of rebuilding the
figure, which is what makes dragging a query slider feel live.

Every object also lists its :meth:`dynamic_artists` (the ones ``update`` touches) in drawing
order, so a renderer can blit: redraw only those over a saved background (see
:mod:`attention_lab._render`).

Colours: the heatmap uses ``viridis`` (perceptually uniform, readable in greyscale and for the
common colour-vision deficiencies) on a fixed 0-1 scale, so the same colour always means the same
weight. Lines and markers use the Okabe-Ito palette and also differ by shape, never by colour
alone.
"""

from __future__ import annotations

from attention_lab.plots._style import ANNOTATE_MAX_TOKENS, HEATMAP_CMAP, text_colour_for
from attention_lab.plots.bars import WeightsBars, weights_bar_chart
from attention_lab.plots.heatmap import AttentionHeatmap, attention_heatmap
from attention_lab.plots.vectors import VectorPlot, convex_hull, vector_plot

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
