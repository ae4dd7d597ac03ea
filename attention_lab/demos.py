"""Lesson helpers: chapter-number checks, figures for the experiments, and two small widgets.

* :func:`check` / :class:`ChapterCheck` show a computed number beside the value the chapter prints
  ("computed 0.248 | chapter 0.248 ✓ agrees"), so every lesson checks the book as it goes.
* ``plot_*`` functions draw the measured demonstrations of :mod:`attention_lab.experiments`. They
  return a :class:`matplotlib.figure.Figure` built without pyplot (nothing leaks between cells; a
  notebook displays it as a static inline image).
* :class:`QueryRotation` (lesson 2) and :class:`HardSoftSlider` (lesson 5) are slider widgets. Like
  the explorer's widget they carry an ``image/png`` of their current state in their display data,
  so a static HTML export or a reader without a kernel still sees the default figure.

Accessibility: the Okabe-Ito colour-blind-safe palette, and every line also differs by marker
and line style and is labelled in a legend; every figure has a title and labelled axes.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from attention_lab import plots
from attention_lab._render import figure_png
from attention_lab.core import attention, dot_product_scores, hard_attention
from attention_lab.examples import ISRO, WorkedExample
from attention_lab.experiments import (
    SCALINGS,
    BottleneckResult,
    CrossAttentionResult,
    HardSoftSweep,
    SaturationResult,
    VarianceResult,
    hard_vs_soft_sweep,
)
from attention_lab.widgets import _LabelledImage, static_widget_html

__all__ = [
    "OKABE_ITO",
    "ChapterCheck",
    "ChapterTable",
    "HardSoftSlider",
    "QueryRotation",
    "check",
    "checks",
    "plot_alignment",
    "plot_bottleneck",
    "plot_hard_vs_soft",
    "plot_mask_comparison",
    "plot_query_rotation",
    "plot_saturation",
    "plot_score_variance",
]

#: Okabe & Ito's palette, distinguishable under the common colour-vision deficiencies.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
_STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))
_SCALING_LABELS = {
    "none": "no scaling",
    "1/d_k": "divide by d_k",
    "1/sqrt(d_k)": "divide by sqrt(d_k)",
}

# ---------------------------------------------------------------------------------------------
# Computed vs chapter
# ---------------------------------------------------------------------------------------------


def _fmt(value, decimals: int) -> str:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return f"{float(arr):.{decimals}f}"
    return "[" + ", ".join(f"{x:.{decimals}f}" for x in arr.ravel()) + "]"


@dataclass(frozen=True)
class ChapterCheck:
    """One number (or vector) computed by the package, beside the value the chapter prints.

    Attributes
    ----------
    label : str
        What the number is, e.g. ``"weight of ISRO"``.
    computed : float or ndarray
    chapter : float or ndarray
        The value as printed in the chapter (already rounded).
    decimals : int
        Decimals the chapter prints; ``computed`` is shown rounded to the same.
    tolerance : float
        Largest difference still counted as agreeing. Defaults to half a unit in the last
        printed decimal (the computed number rounds to the chapter's). Pass a larger one, and
        say why, where the chapter adds up already-rounded numbers (its total 32.911).
    """

    label: str
    computed: object
    chapter: object
    decimals: int = 3
    tolerance: float | None = None

    @property
    def agrees(self) -> bool:
        """True when every entry is within ``tolerance`` of the chapter's value."""
        tol = 0.5 * 10.0**-self.decimals if self.tolerance is None else self.tolerance
        got = np.asarray(self.computed, dtype=float)
        want = np.asarray(self.chapter, dtype=float)
        # The small slack absorbs binary floating point (0.083 * 5 = 0.41500000000000004).
        return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol + 1e-9))

    @property
    def verdict(self) -> str:
        """ "✓ agrees", or "✗ DIFFERS"; says so when a half-way value was rounded the other way."""
        if not self.agrees:
            return "✗ DIFFERS"
        got = np.round(np.asarray(self.computed, dtype=float), self.decimals)
        if np.array_equal(got, np.round(np.asarray(self.chapter, dtype=float), self.decimals)):
            return "✓ agrees"
        # e.g. 0.083 x 5 = 0.415: a student sees 0.42 beside the book's 0.41 and deserves to know why
        return "✓ agrees (a value exactly half-way, which the chapter rounded the other way)"

    def __str__(self) -> str:
        return (
            f"{self.label}: computed {_fmt(self.computed, self.decimals)} | "
            f"chapter {_fmt(self.chapter, self.decimals)} {self.verdict}"
        )

    def __repr__(self) -> str:
        return str(self)


def check(label: str, computed, chapter, decimals: int = 3, tolerance=None) -> ChapterCheck:
    """Compare a computed number with the chapter's printed value.

    Parameters
    ----------
    label : str
    computed : float or array_like
    chapter : float or array_like
        Same shape as ``computed``.
    decimals : int
        How many decimals the chapter prints.
    tolerance : float, optional
        Defaults to half a unit in the last decimal (``computed`` rounds to ``chapter``).

    Returns
    -------
    ChapterCheck
        Shows as ``"label: computed 0.248 | chapter 0.248 ✓ agrees"``.
    """
    if not isinstance(label, str) or not label:
        raise TypeError("label must be a non-empty string naming the number, e.g. 'weight of ISRO'")
    got = np.asarray(computed, dtype=float)
    want = np.asarray(chapter, dtype=float)
    if got.shape != want.shape:
        raise ValueError(
            f"{label}: computed has shape {got.shape} but the chapter value has shape "
            f"{want.shape}; compare like with like"
        )
    return ChapterCheck(label, computed, chapter, decimals, tolerance)


class ChapterTable(list):
    """A list of :class:`ChapterCheck` that displays as a table (text and HTML)."""

    @property
    def all_agree(self) -> bool:
        """True when every row agrees with the chapter."""
        return all(c.agrees for c in self)

    def _summary(self) -> str:
        bad = sum(not c.agrees for c in self)
        if bad:
            return f"{bad} of {len(self)} numbers differ from the chapter"
        return f"all {len(self)} numbers agree with the chapter"

    def __repr__(self) -> str:
        return "\n".join([*(str(c) for c in self), self._summary()])

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>".format(
                html.escape(c.label),
                _fmt(c.computed, c.decimals),
                _fmt(c.chapter, c.decimals),
                html.escape(c.verdict) if c.agrees else "✗ <strong>differs</strong>",
            )
            for c in self
        )
        return (
            "<table><caption>Computed by attention_lab vs printed in the chapter</caption>"
            "<thead><tr><th>quantity</th><th>computed</th><th>chapter</th><th>verdict</th></tr>"
            f"</thead><tbody>{rows}</tbody></table><p>{html.escape(self._summary())}</p>"
        )


def checks(*rows) -> ChapterTable:
    """Build a :class:`ChapterTable` from ``(label, computed, chapter[, decimals[, tolerance]])``.

    Returns
    -------
    ChapterTable
        Displays every row and a one-line summary ("all 6 numbers agree with the chapter").
    """
    table = ChapterTable()
    for row in rows:
        if isinstance(row, ChapterCheck):
            table.append(row)
        elif isinstance(row, tuple) and len(row) in (3, 4, 5):
            table.append(check(*row))
        else:
            raise TypeError(
                "each row must be a ChapterCheck or a tuple (label, computed, chapter[, decimals[, "
                "tolerance]])"
            )
    return table


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def _line(ax, x, y, i: int, label: str) -> None:
    marker, style = _STYLES[i % len(_STYLES)]
    ax.plot(x, y, marker=marker, linestyle=style, color=OKABE_ITO[i], label=label, markersize=5)


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
    _line(ax, result.lengths, result.attention, 0, "attention over all n states")
    _line(ax, result.lengths, result.fixed_memory, 1, f"one fixed memory of {result.d} numbers")
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
        _line(ax, result.d_ks, result.variance[s], i, _SCALING_LABELS[s])
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
        _line(left, result.d_ks, result.max_weight[s], i, _SCALING_LABELS[s])
        _line(right, result.d_ks, result.losing_gradient[s], i, _SCALING_LABELS[s])
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


def plot_hard_vs_soft(sweep: HardSoftSweep, component: int = 0, at_deg=None) -> Figure:
    """Output and its slope as the query turns: hard (step) vs soft (smooth).

    Parameters
    ----------
    sweep : HardSoftSweep
    component : int
        Which coordinate of the output to draw (0 = x, 1 = y).
    at_deg : float, optional
        Draw a vertical marker at this angle (the slider's position).
    """
    if component not in (0, 1):
        raise ValueError(f"component must be 0 (x) or 1 (y), got {component!r}")
    name = "xy"[component]
    fig = Figure(figsize=(9.0, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    a = sweep.angles_deg
    _line(left, a, sweep.hard[:, component], 1, "hard: v[argmax]")
    _line(left, a, sweep.soft[:, component], 0, "soft: weighted blend")
    _line(right, a, sweep.hard_slope[:, component], 1, "hard")
    _line(right, a, sweep.soft_slope[:, component], 0, "soft")
    for line in (*left.lines, *right.lines):
        line.set_markevery(max(1, len(a) // 15))
    left.set_title(f"Output {name} as the query turns", fontsize=10)
    left.set_ylabel(f"output {name}")
    right.set_title("Slope d(output)/d(angle): spikes = no derivative", fontsize=10)
    right.set_ylabel(f"d(output {name}) / d(angle) per degree")
    for ax in (left, right):
        ax.set_xlabel("query direction (degrees)")
        ax.grid(alpha=0.3)
        if at_deg is not None:
            ax.axvline(at_deg, color="0.2", linewidth=1, linestyle="--")
    left.legend(fontsize=8)
    fig.suptitle("Hard selection jumps; soft attention glides", fontsize=11)
    return fig


def _query_at(angle_deg: float, radius: float) -> np.ndarray:
    rad = np.deg2rad(angle_deg)
    return radius * np.array([np.cos(rad), np.sin(rad)])


def plot_query_rotation(example: WorkedExample, angle_deg: float, radius=None) -> Figure:
    """Left: keys, values, a query of direction ``angle_deg`` and the output (the explorer's
    :func:`~attention_lab.plots.vector_plot`). Right: the softmax weights as bars.

    Parameters
    ----------
    example : WorkedExample
    angle_deg : float
        Direction of the query in degrees.
    radius : float, optional
        Length of the query (defaults to the length of the chapter's query).
    """
    K, V = np.asarray(example.K), np.asarray(example.V)
    r = float(np.linalg.norm(example.query())) if radius is None else float(radius)
    q = _query_at(angle_deg, r)
    out, weights = attention(q, K, V, scale=example.scale)
    fig = Figure(figsize=(9.0, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    lim = 1.15 * max(r, float(np.abs(K).max()), float(np.abs(V).max()))
    plots.vector_plot(K, V, q, out, weights=weights, labels=example.tokens, ax=left)
    # Fixed square limits (the view must not jump while the slider moves); "box" keeps the
    # aspect equal by shaping the axes instead of overriding these limits.
    left.set_aspect("equal", adjustable="box")
    left.set_xlim(-lim, lim)
    left.set_ylim(-lim, lim)
    left.set_title(f"Query at {angle_deg:.0f}°: keys, values, output", fontsize=10)
    bars = plots.weights_bar_chart(weights, example.tokens, ax=right)
    bars.set_title("Softmax weights for this query")
    fig.suptitle(f"{example.chapter}: turning the query", fontsize=11)
    return fig


def plot_mask_comparison(unmasked, masked, mask, tokens) -> Figure:
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


# ---------------------------------------------------------------------------------------------
# Widgets with a static fallback
# ---------------------------------------------------------------------------------------------


class _SliderFigure(widgets.VBox):
    """A slider above a figure (an ``Image`` widget) and a one-line text readout.

    The figure is rendered to PNG by Agg (no pyplot, no ipympl): redraws are cheap and the same
    bytes serve as the ``image/png`` fallback in the display data.
    """

    def __init__(self, slider: widgets.FloatSlider, description: str):
        self.slider = slider
        # The explorer's Image subclass: its tooltip becomes the <img> title (accessible name).
        self.image = _LabelledImage(format="png", layout=widgets.Layout(max_width="900px"))
        # The readout says in words what the figure shows (screen readers, no colour needed).
        self.readout = widgets.HTML()
        intro = widgets.HTML(f"<p>{html.escape(description)}</p>")
        super().__init__([intro, slider, self.image, self.readout])
        slider.observe(self._on_change, names="value")
        self._on_change()

    def _figure(self, value: float) -> Figure:  # pragma: no cover - abstract
        raise NotImplementedError

    def _describe(self, value: float) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _on_change(self, _change=None) -> None:
        value = float(self.slider.value)
        text = self._describe(value)
        self.image.value = figure_png(self._figure(value))
        self.image.tooltip = text
        self.readout.value = f"<p>{html.escape(text)}</p>"

    @property
    def text(self) -> str:
        """The current readout as plain text."""
        return self._describe(float(self.slider.value))

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        # Static fallback, as QueryExplorer does: exporters without the widget state (nbconvert
        # --to html, GitHub) show the figure of the current state instead of nothing.
        bundle["image/png"] = base64.b64encode(self.image.value).decode("ascii")
        bundle["text/plain"] = self.text
        # nbconvert prefers HTML: the picture with its alt text, and the readout under it
        bundle["text/html"] = static_widget_html(
            bytes(self.image.value), self.text, self.readout.value, "attention-demo"
        )
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle


class QueryRotation(_SliderFigure):
    """Lesson 2: turn the query with a slider; watch dot products and softmax weights follow.

    Parameters
    ----------
    example : WorkedExample, default ISRO
    angle_deg : float, default 45
        Starting direction (45° is the chapter's query [1, 1]).
    """

    def __init__(self, example: WorkedExample = ISRO, angle_deg: float = 45.0):
        if not isinstance(example, WorkedExample):
            raise TypeError("example must be a WorkedExample, e.g. attention_lab.examples.ISRO")
        self.example = example
        slider = widgets.FloatSlider(
            value=angle_deg,
            min=-180.0,
            max=180.0,
            step=5.0,
            description="query angle (°)",
            style={"description_width": "initial"},
            continuous_update=True,
        )
        super().__init__(slider, "Drag to turn the query; its length stays the same.")

    def _figure(self, value: float) -> Figure:
        return plot_query_rotation(self.example, value)

    def _describe(self, value: float) -> str:
        q = _query_at(value, float(np.linalg.norm(self.example.query())))
        _, w = attention(q, self.example.K, self.example.V, scale=self.example.scale)
        s = dot_product_scores(q, self.example.K, scale=self.example.scale)
        toks = self.example.tokens
        scores = ", ".join(f"{t} {x:.3f}" for t, x in zip(toks, s, strict=True))
        parts = ", ".join(f"{t} {x:.3f}" for t, x in zip(toks, w, strict=True))
        best = toks[int(np.argmax(w))]
        return (
            f"Query at {value:.0f}° = {_fmt(q, 3)}: scores {scores}; weights {parts}; "
            f"the largest weight goes to {best}."
        )


class HardSoftSlider(_SliderFigure):
    """Lesson 5: slide the query round; hard attention jumps, soft attention glides.

    Parameters
    ----------
    example : WorkedExample, default ISRO
    angle_deg : float, default 45
    radius : float, default 2
        Length of the query.
    """

    def __init__(self, example: WorkedExample = ISRO, angle_deg: float = 45.0, radius=2.0):
        if not isinstance(example, WorkedExample):
            raise TypeError("example must be a WorkedExample, e.g. attention_lab.examples.ISRO")
        self.example = example
        self.radius = float(radius)
        self.sweep = hard_vs_soft_sweep(example.K, example.V, radius=self.radius)
        slider = widgets.FloatSlider(
            value=angle_deg,
            min=float(self.sweep.angles_deg[0]),
            max=float(self.sweep.angles_deg[-1]),
            step=1.0,
            description="query angle (°)",
            style={"description_width": "initial"},
        )
        super().__init__(slider, "Drag to turn the query and compare both outputs.")

    def _figure(self, value: float) -> Figure:
        return plot_hard_vs_soft(self.sweep, component=0, at_deg=value)

    def _describe(self, value: float) -> str:
        q = _query_at(value, self.radius)
        hard, _ = hard_attention(q, self.example.K, self.example.V, scale=self.example.scale)
        soft, _ = attention(q, self.example.K, self.example.V, scale=self.example.scale)
        return f"Query at {value:.0f}°: hard output {_fmt(hard, 3)}, soft output {_fmt(soft, 3)}."
