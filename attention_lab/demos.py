"""Lesson helpers: chapter-number checks, figures for the experiments, and two small widgets.

* :func:`check` / :class:`ChapterCheck` show a computed number beside the value the chapter prints
  ("computed 0.248 | chapter 0.248 ✓ agrees"), so every lesson checks the book as it goes.
* ``plot_*`` functions draw the measured demonstrations of :mod:`attention_lab.experiments`. They
  return a :class:`matplotlib.figure.Figure` built without pyplot (nothing leaks between cells; a
  notebook displays it as a static inline image).
* :class:`RotationFigure` and :class:`HardSoftFigure` are the live figures behind the slider
  widgets :class:`QueryRotation` (lesson 2) and :class:`HardSoftSlider` (lesson 5), which live in
  :mod:`attention_lab.slider_widgets` and are reachable from here.

Accessibility: the Okabe-Ito colour-blind-safe palette, and every line also differs by marker
and line style and is labelled in a legend; every figure has a title and labelled axes.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from attention_lab import plots
from attention_lab.core import attention
from attention_lab.examples import WorkedExample
from attention_lab.experiments import (
    SCALINGS,
    BottleneckResult,
    CrossAttentionResult,
    HardSoftSweep,
    SaturationResult,
    VarianceResult,
)
from attention_lab.live_figure import LiveFigure
from attention_lab.vector_panels import KeysPanel, ValuesPanel, values_limits

__all__ = [
    "OKABE_ITO",
    "ChapterCheck",
    "ChapterTable",
    "HardSoftFigure",
    "RotationFigure",
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


class HardSoftFigure(LiveFigure):
    """Output and its slope as the query turns, hard vs soft, with a marker at one angle.

    The curves are drawn once (the background); only the two marker lines move with the
    slider.

    Parameters
    ----------
    sweep : HardSoftSweep
    component : int
        Which coordinate of the output to draw (0 = x, 1 = y).
    at_deg : float, optional
        Where the marker starts (hidden when None).
    """

    def __init__(self, sweep: HardSoftSweep, component: int = 0, at_deg=None):
        if component not in (0, 1):
            raise ValueError(f"component must be 0 (x) or 1 (y), got {component!r}")
        self.sweep, self.component = sweep, component
        name = "xy"[component]
        fig = Figure(figsize=(9.0, 3.8), dpi=90, layout="constrained")
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
        left.legend(fontsize=8)
        fig.suptitle("Hard selection jumps; soft attention glides", fontsize=11)
        self.markers = [
            ax.axvline(a[0], color="0.2", linewidth=1, linestyle="--", label="_marker")
            for ax in (left, right)
        ]
        super().__init__(fig)
        self.update(at_deg)

    def update(self, at_deg) -> None:
        visible = at_deg is not None
        for marker in self.markers:
            marker.set_visible(visible)
            if visible:
                marker.set_xdata([at_deg, at_deg])

    def dynamic_artists(self) -> list:
        return list(self.markers)


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
    return HardSoftFigure(sweep, component, at_deg).figure


def _query_at(angle_deg: float, radius: float) -> np.ndarray:
    rad = np.deg2rad(angle_deg)
    return radius * np.array([np.cos(rad), np.sin(rad)])


class RotationFigure(LiveFigure):
    """Keys, values, a query of a given direction and the output, beside the weights as bars.

    Drawn once; a new angle moves the query arrow, the output star, the blend lines and the
    bars, and rewrites the angle label (see :class:`~attention_lab.live_figure.LiveFigure`).

    Parameters
    ----------
    example : WorkedExample
    angle_deg : float
        Direction of the query in degrees.
    radius : float, optional
        Length of the query (defaults to the length of the chapter's query).
    """

    def __init__(self, example: WorkedExample, angle_deg: float, radius=None):
        self.example = example
        self.K, self.V = np.asarray(example.K), np.asarray(example.V)
        self.radius = float(np.linalg.norm(example.query())) if radius is None else float(radius)
        q, out, weights = self.numbers(angle_deg)
        fig = Figure(figsize=(10.4, 3.3), dpi=96, layout="constrained")
        super().__init__(fig)  # the Agg canvas the panels measure their labels on
        ax_keys, ax_vals, ax_bars = fig.subplots(1, 3, width_ratios=[1.0, 1.0, 1.2])
        # Fixed square limits (the view must not jump while the slider moves), the explorer's
        # panels: the query among the keys, the output among the values.
        lim = 1.15 * max(self.radius, float(np.abs(self.K).max()))
        self.keys = KeysPanel(
            ax_keys, self.K, example.tokens, q, ((-lim, lim), (-lim, lim)),
            "query q, keys k\nscore = q·k",
        )  # fmt: skip
        self.values = ValuesPanel(
            ax_vals, self.V, example.tokens, out, weights, values_limits(self.V),
            "values v, output ★\n= Σ weight × v",
        )  # fmt: skip
        self.bars = plots.WeightsBars(ax_bars, weights, example.tokens)
        self.bars.set_title("softmax weights\nfor this query")
        for ax in fig.axes:
            ax.title.set_fontsize(10)
        # In the figure's corner, clear of every panel's labels.
        self.angle_label = fig.text(0.005, 0.985, "", va="top", fontsize=11, fontweight="bold")
        fig.suptitle(f"{example.chapter}: turning the query", fontsize=11)
        self.update(angle_deg)

    def numbers(self, angle_deg: float):
        """The query at ``angle_deg``, its output and its weights."""
        q = _query_at(angle_deg, self.radius)
        out, weights = attention(q, self.K, self.V, scale=self.example.scale)
        return q, out, weights

    def update(self, angle_deg: float) -> None:
        q, out, weights = self.numbers(angle_deg)
        self.keys.update(q)
        self.values.update(out, weights)
        self.bars.update(weights)
        self.angle_label.set_text(f"query at {angle_deg:.0f}°")

    def dynamic_artists(self) -> list:
        bars = [a for a in self.bars.dynamic_artists() if a is not self.bars.ax.title]
        return [
            *self.keys.dynamic_artists(), *self.values.dynamic_artists(), *bars,
            self.angle_label,
        ]  # fmt: skip


def plot_query_rotation(example: WorkedExample, angle_deg: float, radius=None) -> Figure:
    """The query of direction ``angle_deg`` among the keys, the output among the values (the
    explorer's panels), and the softmax weights as bars.

    Parameters
    ----------
    example : WorkedExample
    angle_deg : float
        Direction of the query in degrees.
    radius : float, optional
        Length of the query (defaults to the length of the chapter's query).
    """
    return RotationFigure(example, angle_deg, radius).figure


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


def __getattr__(name):
    # The lessons' slider widgets live in attention_lab.slider_widgets (which draws with the
    # figures above); they are still reachable as demos.QueryRotation and demos.HardSoftSlider.
    if name in ("QueryRotation", "HardSoftSlider"):
        from attention_lab import slider_widgets

        return getattr(slider_widgets, name)
    raise AttributeError(f"module 'attention_lab.demos' has no attribute {name!r}")
