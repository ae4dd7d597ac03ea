"""Lesson 6's static figures: two heads side by side, and a head learning its pattern.

Built without pyplot (``Figure()``), like :mod:`attention_lab.demos`' figures, and reached from
the lesson as ``demos.plot_heads`` and ``demos.plot_training``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from attention_lab import plots
from attention_lab.core import causal_mask
from attention_lab.experiments.learning import TrainingRun
from attention_lab.heads import MultiHeadResult
from attention_lab.layer_mistakes import SPOT_THE_MISTAKE
from attention_lab.plots.lines import styled_line

__all__ = ["plot_heads", "plot_loss_comparison", "plot_training", "spot_the_mistake_lines"]


def plot_heads(result: MultiHeadResult, tokens: Sequence[str], names: Sequence[str]) -> Figure:
    """Every head's attention weights as the explorer's annotated heatmap, side by side.

    Parameters
    ----------
    result : MultiHeadResult
    tokens : sequence of str, length n
    names : sequence of str, one per head
        Each heatmap's title.
    """
    h = len(result.heads)
    if len(names) != h:
        raise ValueError(f"give one name per head: {h} heads, {len(names)} names")
    fig = Figure(figsize=(4.6 * h, 3.9), layout="constrained")
    for ax, head, name in zip(
        fig.subplots(1, h, squeeze=False)[0], result.heads, names, strict=True
    ):
        plots.attention_heatmap(head.weights, tokens, tokens, ax=ax).set_title(name)
    fig.suptitle("Same words, two heads, two patterns (rows: the word asking)", fontsize=11)
    return fig


def _labels(tokens: Sequence[str]) -> list[str]:
    return [f"{i}: {t}" for i, t in enumerate(tokens)]


def plot_training(run: TrainingRun) -> Figure:
    """Plot the example sequence's weights at the recorded steps, and the loss curve beside them.

    Parameters
    ----------
    run : TrainingRun
    """
    k = len(run.steps)
    cols = 3
    rows = -(-(k + 1) // cols)
    fig = Figure(figsize=(9.6, 3.1 * rows), layout="constrained")
    axes = list(fig.subplots(rows, cols).ravel())
    labels = _labels(run.tokens)
    mask = causal_mask(len(run.tokens))
    for ax, step, weights in zip(axes[:k], run.steps, run.snapshots, strict=True):
        hm = plots.attention_heatmap(weights, labels, labels, ax=ax, mask=mask)
        assert hm.colorbar is not None  # attention_heatmap draws one by default
        hm.colorbar.remove()
        ax.set_title(f"step {step}", fontsize=10)  # the hatching is explained once, above
        ax.tick_params(labelsize=8)
        ax.set_xlabel("looks at", fontsize=8)
        ax.set_ylabel("position: token", fontsize=8)
        for (i, j), text in np.ndenumerate(hm.texts):
            text.set_fontsize(7)
            if not mask[i, j]:
                text.set_text("")
    loss = axes[k]
    steps = np.arange(1, len(run.losses) + 1)
    styled_line(loss, steps, run.losses, 0, "training loss")
    loss.lines[-1].set_markevery(max(1, len(steps) // 10))
    loss.set_xlabel("training step")
    loss.set_ylabel("mean -log p(previous token)", fontsize=9)
    loss.set_yscale("log")
    loss.set_title("loss, each step (log scale)", fontsize=10)
    loss.grid(alpha=0.3)
    for ax in axes[k + 1 :]:
        ax.set_visible(False)
    fig.suptitle(
        'One head learns "copy the previous token" (hatched: hidden by the causal mask)',
        fontsize=11,
    )
    return fig


def plot_loss_comparison(with_positions: TrainingRun, without_positions: TrainingRun) -> Figure:
    """Plot the loss curves of two runs side by side, on one log scale: with and without positions.

    Parameters
    ----------
    with_positions, without_positions : TrainingRun
        Runs of :func:`attention_lab.experiments.train_previous_token` that differ in
        ``positions``.
    """
    if not with_positions.positions or without_positions.positions:
        raise ValueError("give the run with positions first, then the run without them")
    fig = Figure(figsize=(9.6, 3.4), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for i, (ax, run, title) in enumerate(
        zip(axes, (with_positions, without_positions),
            ("with positions added", "without positions (letters only)"), strict=True)
    ):  # fmt: skip
        steps = np.arange(1, len(run.losses) + 1)
        styled_line(ax, steps, run.losses, i, "training loss")
        ax.lines[-1].set_markevery(max(1, len(steps) // 10))
        ax.set_yscale("log")
        ax.set_xlabel("training step")
        ax.set_title(f"{title}: {run.losses[0]:.4f} → {run.losses[-1]:.4f}", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("loss, -ln p(right letter) (log scale)", fontsize=9)
    fig.suptitle("The same head, the same data: only the positions differ", fontsize=11)
    return fig


def spot_the_mistake_lines() -> str:
    """Return the four lines of lesson 6's "spot the mistake", labelled A to D, one per line."""
    return "\n".join(f"{m.letter}:  {m.code}" for m in SPOT_THE_MISTAKE)
