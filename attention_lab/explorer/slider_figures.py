"""The live figures behind the lessons' slider widgets: turning the query, hard against soft.

:class:`RotationFigure` (lesson 2's :class:`~attention_lab.explorer.slider_widgets.QueryRotation`) and
:class:`HardSoftFigure` (lesson 5's :class:`~attention_lab.explorer.slider_widgets.HardSoftSlider`) are
drawn once; a slider step moves only their dynamic artists (see
:class:`~attention_lab.live_figure.LiveFigure`). ``plot_query_rotation`` and
``plot_hard_vs_soft`` return one state of each as a static figure (reached as ``demos.plot_*``).
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure

from attention_lab import plots
from attention_lab._types import FloatArray
from attention_lab.core import attention
from attention_lab.examples import WorkedExample
from attention_lab.experiments import HardSoftSweep
from attention_lab.explorer.vector_panels import KeysPanel, ValuesPanel, values_limits
from attention_lab.live_figure import LiveFigure
from attention_lab.plots.lines import styled_line

__all__ = [
    "HardSoftFigure",
    "RotationFigure",
    "plot_hard_vs_soft",
    "plot_query_rotation",
    "query_at",
]


class HardSoftFigure(LiveFigure[float | None]):
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

    def __init__(
        self, sweep: HardSoftSweep, component: int = 0, at_deg: float | None = None
    ) -> None:
        if component not in (0, 1):
            raise ValueError(f"component must be 0 (x) or 1 (y), got {component!r}")
        self.sweep, self.component = sweep, component
        name = "xy"[component]
        fig = Figure(figsize=(9.0, 3.8), dpi=90, layout="constrained")
        left, right = fig.subplots(1, 2)
        a = sweep.angles_deg
        styled_line(left, a, sweep.hard[:, component], 1, "hard: v[argmax]")
        styled_line(left, a, sweep.soft[:, component], 0, "soft: weighted blend")
        styled_line(right, a, sweep.hard_slope[:, component], 1, "hard")
        styled_line(right, a, sweep.soft_slope[:, component], 0, "soft")
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

    def update(self, at_deg: float | None) -> None:
        """Move the angle markers to ``at_deg`` degrees (hidden when it is None)."""
        visible = at_deg is not None
        for marker in self.markers:
            marker.set_visible(visible)
            if visible:
                marker.set_xdata([at_deg, at_deg])

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes: the angle markers."""
        return list(self.markers)


def plot_hard_vs_soft(
    sweep: HardSoftSweep, component: int = 0, at_deg: float | None = None
) -> Figure:
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


def query_at(angle_deg: float, radius: float) -> np.ndarray:
    """Return the 2-d query of length ``radius``, ``angle_deg`` degrees anticlockwise from x.

    Returns
    -------
    ndarray, shape (2,)
    """
    rad = np.deg2rad(angle_deg)
    return radius * np.array([np.cos(rad), np.sin(rad)])


class RotationFigure(LiveFigure[float]):
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

    def __init__(
        self, example: WorkedExample, angle_deg: float, radius: float | None = None
    ) -> None:
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

    def numbers(self, angle_deg: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Return the query at ``angle_deg``, its output and its weights."""
        q = query_at(angle_deg, self.radius)
        out, weights = attention(q, self.K, self.V, scale=self.example.scale)
        return q, out, weights

    def update(self, angle_deg: float) -> None:
        """Turn the query to ``angle_deg`` and move the output, the weights and the angle label."""
        q, out, weights = self.numbers(angle_deg)
        self.keys.update(q)
        self.values.update(out, weights)
        self.bars.update(weights)
        self.angle_label.set_text(f"query at {angle_deg:.0f}°")

    def dynamic_artists(self) -> list[Artist]:
        """Return the artists :meth:`update` changes: both panels', the bars', the angle label."""
        bars = [a for a in self.bars.dynamic_artists() if a is not self.bars.ax.title]
        return [
            *self.keys.dynamic_artists(), *self.values.dynamic_artists(), *bars,
            self.angle_label,
        ]  # fmt: skip


def plot_query_rotation(
    example: WorkedExample, angle_deg: float, radius: float | None = None
) -> Figure:
    """Draw the query among the keys, the output among the values, and the weights as bars.

    The query points in direction ``angle_deg``; the two vector panels are the explorer's, the
    softmax weights are bars.

    Parameters
    ----------
    example : WorkedExample
    angle_deg : float
        Direction of the query in degrees.
    radius : float, optional
        Length of the query (defaults to the length of the chapter's query).
    """
    return RotationFigure(example, angle_deg, radius).figure
