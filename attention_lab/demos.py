"""What the lessons show and run: their one entry point, and the measured demonstrations' figures.

A lesson imports the numerics from :mod:`attention_lab`, what checks the student's work from
:mod:`attention_lab.checks`, and everything it shows or runs from here:

* ``plot_*`` functions draw the measured demonstrations of :mod:`attention_lab.experiments`. They
  return a :class:`matplotlib.figure.Figure` built without pyplot (nothing leaks between cells; a
  notebook displays it as a static inline image).
* the live widgets (:class:`QueryExplorer`, :class:`QueryRotation`, :class:`HardSoftSlider`,
  :class:`ProjectionSliders`, lesson 7's :class:`TemperatureSlider` and :func:`train_live`, from
  :mod:`attention_lab.explorer`; loaded on first use), the
  slider figures (:class:`RotationFigure`, :class:`HardSoftFigure`), lesson 6's figures
  (:func:`plot_heads`, :func:`plot_training`, from :mod:`attention_lab.layer_figures`), lesson
  7's :func:`plot_attention_map` (from :mod:`attention_lab.explorer.generation_figures`);
* the chapter checks shown beside the book's numbers (:func:`check`, :func:`checks`, from
  :mod:`attention_lab.checks.chapter`);
* the measured demonstrations themselves (:mod:`~attention_lab.experiments`), the chapters' own
  code (:mod:`~attention_lab.chapter_code`) and lesson 5's :func:`output_sensitivity`.

Accessibility: the Okabe-Ito colour-blind-safe palette, and every line also differs by marker
and line style and is labelled in a legend (:mod:`attention_lab.plots.lines`); every figure has a
title and labelled axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from attention_lab import chapter_code, experiments, plots
from attention_lab.checks.chapter import ChapterCheck, ChapterTable, check, checks
from attention_lab.derivatives import output_sensitivity
from attention_lab.diagram import Diagram, multi_head_diagram, query_steps
from attention_lab.diagram import computation_diagram as _draw_computation
from attention_lab.experiments import (
    SCALINGS,
    BottleneckResult,
    CrossAttentionResult,
    SaturationResult,
    VarianceResult,
)
from attention_lab.explorer.generation_figures import plot_attention_map
from attention_lab.explorer.slider_figures import (
    HardSoftFigure,
    RotationFigure,
    plot_hard_vs_soft,
    plot_query_rotation,
)
from attention_lab.layer_figures import (
    plot_heads,
    plot_loss_comparison,
    plot_training,
    spot_the_mistake_lines,
)
from attention_lab.plots.lines import OKABE_ITO, styled_line

__all__ = [
    "OKABE_ITO",
    "ChapterCheck",
    "ChapterTable",
    "HardSoftFigure",
    "RotationFigure",
    "Diagram",
    "chapter_code",
    "computation_diagram",
    "multi_head_diagram",
    "plot_loss_comparison",
    "spot_the_mistake_lines",
    "experiments",
    "output_sensitivity",
    "check",
    "checks",
    "plot_alignment",
    "plot_attention_map",
    "plot_bottleneck",
    "plot_hard_vs_soft",
    "plot_heads",
    "plot_mask_comparison",
    "plot_query_rotation",
    "plot_saturation",
    "plot_score_variance",
    "plot_training",
]

_SCALING_LABELS = {
    "none": "no scaling",
    "1/d_k": "divide by d_k",
    "1/sqrt(d_k)": "divide by sqrt(d_k)",
}

# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def plot_bottleneck(result: BottleneckResult) -> Figure:
    """Recall against sequence length: one fixed memory vector vs attention over all states.

    The title names only what was measured here: the toy's numbers are not comparable with a
    translation model's BLEU scores, which a lesson quotes apart, with their source.

    Parameters
    ----------
    result : BottleneckResult
    """
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.add_subplot()
    styled_line(ax, result.lengths, result.attention, 0, "attention over all n states")
    styled_line(
        ax, result.lengths, result.fixed_memory, 1, f"one fixed memory of {result.d} numbers"
    )
    ax.axhline(1 / result.vocab_size, color="0.4", linewidth=1, linestyle=(0, (1, 3)))
    ax.annotate("guessing", (result.lengths[-1], 1 / result.vocab_size), ha="right", va="bottom")
    ax.set_xlabel("sequence length (words)")
    ax.set_ylabel("fraction of words recalled")
    ax.set_ylim(0, 1.05)
    ax.set_title(
        "Toy recall task: one fixed vector forgets as the sequence grows;\n"
        f"attention over all n states (n × {result.d} numbers) does not",
        fontsize=10,
    )
    ax.legend(loc="center right")
    ax.grid(alpha=0.3)
    return fig


def plot_score_variance(result: VarianceResult) -> Figure:
    """Measured var(score) against d_k (log-log) for the three scalings, with d_k and 1 drawn."""
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.add_subplot()
    for i, s in enumerate(SCALINGS):
        styled_line(ax, result.d_ks, result.variance[s], i, _SCALING_LABELS[s])
    ax.plot(result.d_ks, result.d_ks, color="0.5", linewidth=1, label="theory: d_k")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("key dimension d_k")
    ax.set_ylabel("variance of the score (log scale)")
    ax.set_title("Variance of q·k grows like d_k; dividing by sqrt(d_k) keeps it at 1", fontsize=10)
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def plot_saturation(result: SaturationResult) -> Figure:
    """Two panels: largest softmax weight, and the gradient left for losing keys, against d_k."""
    fig = Figure(figsize=(9.0, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    for i, s in enumerate(SCALINGS):
        styled_line(left, result.d_ks, result.max_weight[s], i, _SCALING_LABELS[s])
        styled_line(right, result.d_ks, result.losing_gradient[s], i, _SCALING_LABELS[s])
    left.axhline(1 / result.n_keys, color="0.5", linewidth=1, linestyle=(0, (1, 3)))
    left.annotate("uniform (1/n)", (result.d_ks[0], 1 / result.n_keys), va="bottom")
    left.set_title(f"Largest weight among {result.n_keys} keys (1 = one-hot)", fontsize=10)
    left.set_ylabel("median largest softmax weight")
    left.set_ylim(0, 1.05)
    right.set_title("Gradient reaching the losing keys", fontsize=10)
    right.set_ylabel("median w(1 - w) of losing keys")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("key dimension d_k")
        ax.grid(alpha=0.3)
    left.legend(fontsize=8)
    fig.suptitle("Softmax saturation: none vs 1/d_k vs 1/sqrt(d_k)", fontsize=11)
    return fig


def plot_mask_comparison(
    unmasked: ArrayLike, masked: ArrayLike, mask: ArrayLike, tokens: Sequence[str]
) -> Figure:
    """Two of the explorer's heatmaps side by side: weights without and with a mask.

    Parameters
    ----------
    unmasked, masked : array_like, shape (n, n)
        Attention weights computed without and with ``mask``.
    mask : array_like of bool, shape (n, n)
        True where a query may attend; masked cells are drawn hatched and labelled "masked".
    tokens : sequence of str, length n
    """
    fig = Figure(figsize=(9.0, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    plots.attention_heatmap(unmasked, tokens, tokens, ax=left).set_title("Without a mask (encoder)")
    plots.attention_heatmap(masked, tokens, tokens, ax=right, mask=mask).set_title(
        "With a causal mask (decoder)"
    )
    return fig


def plot_alignment(result: CrossAttentionResult) -> Figure:
    """Cross-attention weights as the explorer's annotated heatmap (Hindi rows, English columns)."""
    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.add_subplot()
    hm = plots.attention_heatmap(result.weights, result.target, result.source, ax=ax)
    hm.set_title("Cross-attention: Hindi being written (rows) looks at English (columns)")
    ax.set_xlabel("English source words (keys and values)")
    ax.set_ylabel("Hindi target words (queries)")
    return fig


def computation_diagram(
    query: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    tokens: Sequence[str],
    query_name: str,
    scale: bool = True,
) -> Diagram:
    """Draw the chapters' diagram of one query's attention, column by column, from these numbers.

    The parameters are those of :func:`attention_lab.diagram.query_steps`.

    Returns
    -------
    Diagram
        ``.figure`` (shown as a picture in a notebook) and ``.alt_text``.
    """
    return _draw_computation(query_steps(query, keys, values, tokens, query_name, scale))


# The live widgets import ipywidgets: they load on first use, so a lesson's static figures
# (and `make html`'s exports) do not wait for it.
_WIDGETS = {
    "QueryExplorer": "attention_lab.explorer.query_explorer",
    "QueryRotation": "attention_lab.explorer.slider_widgets",
    "HardSoftSlider": "attention_lab.explorer.slider_widgets",
    "ProjectionSliders": "attention_lab.explorer.projection_widget",
    "TemperatureSlider": "attention_lab.explorer.generation_widgets",
    "train_live": "attention_lab.explorer.generation_widgets",
}
__all__ += list(_WIDGETS)


def __getattr__(name: str) -> Any:  # a widget class or function, imported on first use
    if name in _WIDGETS:
        import importlib

        return getattr(importlib.import_module(_WIDGETS[name]), name)
    raise AttributeError(f"module 'attention_lab.demos' has no attribute {name!r}")
