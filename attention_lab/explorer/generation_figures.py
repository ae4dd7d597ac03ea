"""Lesson 7's figures: the loss curve, the next character's probabilities, an attention map.

The loss curve is drawn as training runs, the probabilities at the slider's temperature, the
map from one head of the trained model.

The two live ones are :class:`~attention_lab.live_figure.LiveFigure` s (the course's one fast
render path): drawn once, then only their changing artists are redrawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.artist import Artist
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from attention_lab import plots
from attention_lab.live_figure import LiveFigure
from attention_lab.plots.lines import OKABE_ITO
from attention_lab.transformer.generation import softmax_with_temperature

__all__ = ["LossCurveFigure", "NextCharacterFigure", "plot_attention_map", "shown_char"]


def shown_char(c: str) -> str:
    """Return a character as a label: a space and a line break get names."""
    return {" ": "␣", "\n": "↵"}.get(c, c)


class LossCurveFigure(LiveFigure[Sequence[float]]):
    """The training loss at every step so far; the axes are fixed so only the line moves.

    Parameters
    ----------
    steps : int
        The x axis's length.
    top : float
        The y axis's top (the loss before training, about ``log V``).
    """

    def __init__(self, steps: int, top: float) -> None:
        fig = Figure(figsize=(6.4, 3.2), dpi=90, layout="constrained")
        ax = fig.add_subplot()
        (self.line,) = ax.plot([], [], color=OKABE_ITO[0], linewidth=1.5, label="batch loss")
        ax.set_xlim(0, steps)
        ax.set_ylim(0, top)
        ax.set_xlabel("training step")
        ax.set_ylabel("loss: mean −log p(next character)")
        ax.set_title("The loss as the model trains", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
        super().__init__(fig)

    def update(self, losses: Sequence[float]) -> None:
        """Show ``losses`` (one per step so far)."""
        values = np.asarray(losses, dtype=float)
        self.line.set_data(np.arange(1, len(values) + 1), values)

    def dynamic_artists(self) -> list[Artist]:
        """Return the loss line."""
        return [self.line]


def _bars(heights: np.ndarray, width: float = 0.8) -> list[np.ndarray]:
    """Return one rectangle (4 corners) per bar, centred on 0, 1, 2, ..."""
    left = np.arange(len(heights)) - width / 2
    return [
        np.array([[x, 0.0], [x + width, 0.0], [x + width, h], [x, h]])
        for x, h in zip(left, heights, strict=True)
    ]


class NextCharacterFigure(LiveFigure[float]):
    """The next character's probabilities, one bar per character of the vocabulary.

    The bars are one collection, one artist to redraw per slider step (26 separate rectangles
    cost more than the rest of the render).

    Parameters
    ----------
    logits : array_like, shape (V,)
        The model's last row of logits for a prompt.
    chars : str
        The vocabulary, length V.
    prompt : str
        Shown in the title.
    """

    def __init__(self, logits: ArrayLike, chars: str, prompt: str) -> None:
        self.logits = np.asarray(logits, dtype=float)
        fig = Figure(figsize=(8.0, 3.0), dpi=90, layout="constrained")
        ax = fig.add_subplot()
        x = np.arange(len(chars))
        self.bars = PolyCollection(
            _bars(np.zeros(len(chars))), facecolors=OKABE_ITO[0], edgecolors="0.2"
        )
        ax.add_collection(self.bars)
        ax.set_xlim(-0.6, len(chars) - 0.4)
        ax.set_xticks(x, [shown_char(c) for c in chars])
        ax.set_ylim(0, 1)
        ax.set_ylabel("probability")
        ax.set_xlabel("next character (␣ = space, ↵ = new line)")
        ax.set_title(f"After “{prompt[-20:]}”: softmax(logits / T)", fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        super().__init__(fig)

    def update(self, temperature: float) -> None:
        """Set every bar to its probability at ``temperature``."""
        self.bars.set_verts(_bars(softmax_with_temperature(self.logits, temperature)))

    def dynamic_artists(self) -> list[Artist]:
        """Return the bars (one collection)."""
        return [self.bars]


def plot_attention_map(weights: ArrayLike, text: str, title: str) -> Figure:
    """One head's weights on ``text``, rows = the position asking, the future hatched (masked).

    Parameters
    ----------
    weights : array_like, shape (n, n)
    text : str, length n
    title : str
    """
    labels = [shown_char(c) for c in text]
    n = len(labels)
    fig = Figure(figsize=(min(3.2 + 0.4 * n, 9.0), min(2.8 + 0.38 * n, 8.0)), layout="constrained")
    ax = fig.add_subplot()
    hm = plots.attention_heatmap(
        weights,
        labels,
        labels,
        ax=ax,
        annotate=False,  # colours only: the lesson prints the row it asks about
        mask=np.tril(np.ones((n, n), dtype=bool)),
    )
    hm.set_title(title)
    ax.set_xlabel("position looked at")
    ax.set_ylabel("position asking (predicts the next character)")
    return fig
