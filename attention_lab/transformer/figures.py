"""Lesson 7's figures: the loss curve, the next character's probabilities, an attention map.

The loss curve is drawn as training runs, the probabilities at the slider's temperature, the
map from one head of the trained model.

The two live ones are :class:`~attention_lab.live_figure.LiveFigure` s (the course's one fast
render path): drawn once, then only their changing artists are redrawn.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from attention_lab import plots
from attention_lab.live_figure import LiveFigure
from attention_lab.plots.lines import OKABE_ITO
from attention_lab.transformer.generation import softmax_with_temperature

__all__ = ["LossCurveFigure", "NextCharacterFigure", "plot_attention_map", "shown_char"]


def shown_char(c: str) -> str:
    """Return a character as a label: a space and a line break get names."""
    return {" ": "␣", "\n": "↵"}.get(c, c)


class LossCurveFigure(LiveFigure):
    """The training loss at every step so far; the axes are fixed so only the line moves.

    Parameters
    ----------
    steps : int
        The x axis's length.
    top : float
        The y axis's top (the loss before training, about ``log V``).
    """

    def __init__(self, steps: int, top: float):
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

    def update(self, losses) -> None:
        """Show ``losses`` (one per step so far)."""
        losses = np.asarray(losses, dtype=float)
        self.line.set_data(np.arange(1, len(losses) + 1), losses)

    def dynamic_artists(self) -> list:
        """Return the loss line."""
        return [self.line]


class NextCharacterFigure(LiveFigure):
    """The next character's probabilities, one bar per character of the vocabulary.

    Parameters
    ----------
    logits : array_like, shape (V,)
        The model's last row of logits for a prompt.
    chars : str
        The vocabulary, length V.
    prompt : str
        Shown in the title.
    """

    def __init__(self, logits, chars: str, prompt: str):
        self.logits = np.asarray(logits, dtype=float)
        fig = Figure(figsize=(8.0, 3.0), dpi=90, layout="constrained")
        ax = fig.add_subplot()
        x = np.arange(len(chars))
        self.bars = ax.bar(x, np.zeros(len(chars)), color=OKABE_ITO[0], edgecolor="0.2")
        ax.set_xticks(x, [shown_char(c) for c in chars])
        ax.set_ylim(0, 1)
        ax.set_ylabel("probability")
        ax.set_xlabel("next character (␣ = space, ↵ = new line)")
        ax.set_title(f"After “{prompt[-20:]}”: softmax(logits / T)", fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        super().__init__(fig)

    def update(self, temperature) -> None:
        """Set every bar to its probability at ``temperature``."""
        for bar, p in zip(
            self.bars, softmax_with_temperature(self.logits, temperature), strict=True
        ):
            bar.set_height(p)

    def dynamic_artists(self) -> list:
        """Return the bars."""
        return list(self.bars)


def plot_attention_map(weights, text: str, title: str) -> Figure:
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
        weights, labels, labels, ax=ax, mask=np.tril(np.ones((n, n), dtype=bool))
    )
    hm.set_title(title)
    ax.set_xlabel("position looked at")
    ax.set_ylabel("position asking (predicts the next character)")
    return fig
