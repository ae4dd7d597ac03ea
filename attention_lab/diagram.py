"""The computation diagram both chapters promise, drawn from the live numbers.

Chapter A has "Seeing it as a diagram"; chapter B says "the diagram below traces this same
computation visually, column by column". :func:`computation_diagram` draws single-query
attention as one panel per step, left to right: the query against every key, the scores, the
division by ``sqrt(d_k)``, the exponentials, the weights, each value times its weight, and the
output, with the shape of every step. :func:`multi_head_diagram` draws one word through lesson
6's heads: each head's weights and output side by side, the concatenation, ``W_O`` and the
output.

Both return a :class:`Diagram`: the figure (built without pyplot) and its alt text
(:mod:`attention_lab.diagram_steps`, which also computes the steps), made from the same numbers
as the drawing, so a caption quoting the alt text can be checked against the code.
Numbers are shown with :mod:`attention_lab._format`'s three decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from attention_lab._format import fmt, fmt_vec
from attention_lab._types import FloatArray
from attention_lab.diagram_steps import (
    QuerySteps,
    computation_alt_text,
    multi_head_alt_text,
    query_steps,
    shape_text,
)
from attention_lab.heads import MultiHeadResult
from attention_lab.plots._style import KEY_COLOUR, QUERY_COLOUR, VALUE_COLOUR

__all__ = [
    "Diagram",
    "QuerySteps",
    "computation_diagram",
    "multi_head_diagram",
    "query_steps",
]

_WEIGHT_COLOUR = "#E69F00"  # Okabe-Ito orange: the weights
_OUTPUT_COLOUR = "#CC79A7"  # Okabe-Ito reddish purple: the output
_CELL_W, _CELL_H = 0.95, 0.62
_FONT = 10


@dataclass(frozen=True, eq=False)
class Diagram:
    """A drawn diagram and its alt text, made from the same numbers.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
    alt_text : str
        Every number the figure shows, in words, for a caption or a screen reader.
    """

    figure: Figure
    alt_text: str

    def __repr__(self) -> str:
        """Say what it is, briefly (the alt text goes in the caption)."""
        return "Diagram(figure, alt_text)"

    def _repr_png_(self) -> bytes:
        """Show the figure as a PNG in a notebook."""
        from io import BytesIO

        buffer = BytesIO()
        self.figure.savefig(buffer, format="png", dpi=96)
        return buffer.getvalue()


def _grid(
    ax: Axes,
    x: float,
    y_top: float,
    cells: Sequence[Sequence[str]],
    colour: str,
    alpha: float = 0.18,
    strong: FloatArray | None = None,
) -> float:
    """Draw ``cells`` (rows of strings) as a grid whose top-left corner is (x, y_top)."""
    for i, row in enumerate(cells):
        for j, text in enumerate(row):
            cx, cy = x + j * _CELL_W, y_top - (i + 1) * _CELL_H
            a = alpha if strong is None else 0.1 + 0.75 * float(strong[i][j])
            ax.add_patch(Rectangle((cx, cy), _CELL_W, _CELL_H, facecolor=colour, alpha=a))
            ax.add_patch(Rectangle((cx, cy), _CELL_W, _CELL_H, fill=False, linewidth=0.8))
            ax.text(cx + _CELL_W / 2, cy + _CELL_H / 2, text, ha="center", va="center",
                    fontsize=_FONT)  # fmt: skip
    return x + len(cells[0]) * _CELL_W


def _column(
    ax: Axes,
    x: float,
    y_top: float,
    title: str,
    cells: Sequence[Sequence[str]],
    shape: str,
    colour: str,
    strong: FloatArray | None = None,
    note: str = "",
) -> float:
    """One step: its title above, the grid, its shape (and a note) below; returns its right edge."""
    right = _grid(ax, x, y_top, cells, colour, strong=strong)
    middle = (x + right) / 2
    ax.text(middle, y_top + 0.15, title, ha="center", va="bottom", fontsize=_FONT,
            fontweight="bold")  # fmt: skip
    bottom = y_top - len(cells) * _CELL_H
    ax.text(middle, bottom - 0.12, f"shape {shape}" + (f"\n{note}" if note else ""),
            ha="center", va="top", fontsize=_FONT - 1)  # fmt: skip
    return right


def _arrow(ax: Axes, x0: float, x1: float, y: float, label: str = "") -> None:
    ax.add_patch(FancyArrowPatch((x0 + 0.08, y), (x1 - 0.08, y), arrowstyle="-|>",
                                 mutation_scale=14, linewidth=1.2, color="0.25"))  # fmt: skip
    if label:
        ax.text((x0 + x1) / 2, y + 0.1, label, ha="center", va="bottom", fontsize=_FONT - 1)


def _canvas(
    width: float, height: float, x_span: float, y_span: tuple[float, float]
) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlim(-0.2, x_span)
    ax.set_ylim(*y_span)
    ax.set_axis_off()
    return fig, ax


def computation_diagram(steps: QuerySteps) -> Diagram:
    """Draw single-query attention column by column, with every shape and number.

    Parameters
    ----------
    steps : QuerySteps
        From :func:`query_steps`.

    Returns
    -------
    Diagram
    """
    s = steps
    n = len(s.tokens)
    col = [[fmt(x)] for x in s.raw]
    gap = 1.05
    x_span = 1.7 + _CELL_W * (s.keys.shape[1] + 4 + 2 * s.values.shape[1] + s.output.size)
    x_span += 6 * gap + 0.3
    y_top = 0.0
    fig, ax = _canvas(13.5, 1.5 + 0.45 * n, x_span, (-n * _CELL_H - 0.95, 1.05))
    for i, token in enumerate(s.tokens):
        ax.text(-0.1 + 1.4, y_top - (i + 0.5) * _CELL_H, token, ha="right", va="center",
                fontsize=_FONT)  # fmt: skip
    x = 1.5
    mid = y_top - n * _CELL_H / 2
    keys = [[fmt(v) for v in row] for row in s.keys]
    right = _column(ax, x, y_top, f"query q = {fmt_vec(s.query)}\nagainst the keys K", keys,
                    shape_text(s.keys), KEY_COLOUR, note=f"q: shape {shape_text(s.query)}")  # fmt: skip
    _arrow(ax, right, right + gap, mid, "q · k")
    x = right + gap
    right = _column(ax, x, y_top, "1. scores\nq · k", col, shape_text(s.raw), QUERY_COLOUR)
    _arrow(ax, right, right + gap, mid, f"÷ {s.divisor:.3f}" if s.scale else "÷ 1")
    x = right + gap
    scaled_title = f"2. scaled\n÷ √{s.keys.shape[1]}" if s.scale else "2. not scaled\n(chapter A)"
    right = _column(ax, x, y_top, scaled_title, [[fmt(v)] for v in s.scaled],
                    shape_text(s.scaled), QUERY_COLOUR)  # fmt: skip
    _arrow(ax, right, right + gap, mid, "e^x")
    x = right + gap
    right = _column(ax, x, y_top, "3. exponentials\ne^score", [[fmt(v)] for v in s.exps],
                    shape_text(s.exps), _WEIGHT_COLOUR, note=f"sum {fmt(s.exps.sum())}")  # fmt: skip
    _arrow(ax, right, right + gap, mid, "÷ sum")
    x = right + gap
    right = _column(ax, x, y_top, "4. weights\n(softmax)", [[fmt(v)] for v in s.weights],
                    shape_text(s.weights), _WEIGHT_COLOUR, strong=s.weights[:, None],
                    note=f"sum {fmt(s.weights.sum())}")  # fmt: skip
    _arrow(ax, right, right + gap, mid, "× V")
    x = right + gap
    values = [[fmt(v) for v in row] for row in s.values]
    right = _column(ax, x, y_top, "values V\n(one row per word)", values, shape_text(s.values),
                    VALUE_COLOUR)  # fmt: skip
    x = right + 0.35
    terms = [[fmt(v) for v in row] for row in s.terms]
    right = _column(ax, x, y_top, "5. each row ×\nits weight", terms, shape_text(s.terms), VALUE_COLOUR,
                    strong=np.repeat(s.weights[:, None], s.terms.shape[1], axis=1))  # fmt: skip
    _arrow(ax, right, right + gap, mid, "add rows")
    x = right + gap
    out_top = mid + _CELL_H / 2
    _column(ax, x, out_top, f"6. output\nfor {s.query_name}", [[fmt(v) for v in s.output]],
            shape_text(s.output), _OUTPUT_COLOUR)  # fmt: skip
    how = "scaled by √d_k" if s.scale else "not scaled"
    fig.suptitle(f"Attention for one query, {s.query_name}, column by column ({how})",
                 fontsize=_FONT + 1)  # fmt: skip
    return Diagram(fig, computation_alt_text(s))


def multi_head_diagram(
    result: MultiHeadResult, tokens: Sequence[str], row: int, names: Sequence[str]
) -> Diagram:
    """Draw one word's path through several heads: weights, outputs, concatenation, ``W_O``.

    Parameters
    ----------
    result : MultiHeadResult
        From :func:`attention_lab.heads.multi_head_attention`.
    tokens : sequence of str, length n
    row : int
        The word whose path is drawn.
    names : sequence of str, one per head
    """
    h = len(result.heads)
    if len(names) != h:
        raise ValueError(f"give one name per head: {h} heads, {len(names)} names")
    n = len(tokens)
    if not 0 <= row < n:
        raise ValueError(f"row must be a word's index, 0 to {n - 1}, got {row}")
    word = str(tokens[row])
    d_v = result.heads[0].output.shape[1]
    lane, gap = 2.4, 1.0  # vertical room per head; room for an arrow
    colours = [VALUE_COLOUR, KEY_COLOUR, QUERY_COLOUR, _OUTPUT_COLOUR]
    concat_x = 0.2 + _CELL_W * (n + d_v) + 2 * gap + 0.6
    out_x = concat_x + _CELL_W * h * d_v + 2 * gap
    fig, ax = _canvas(13.0, 1.0 + 1.45 * h, out_x + _CELL_W * result.output.shape[1] + 0.3,
                      (-(h - 1) * lane - 2.0, 0.95))  # fmt: skip
    mid = -(h - 1) * lane / 2 - 0.6
    for i, (head, name) in enumerate(zip(result.heads, names, strict=True)):
        top = -i * lane
        w = head.weights[row]
        ax.text(0.2, top + 0.55, name, ha="left", va="bottom", fontsize=_FONT, fontweight="bold")
        for j, token in enumerate(tokens):
            ax.text(0.2 + (j + 0.5) * _CELL_W, top + 0.05, str(token), ha="center",
                    va="bottom", fontsize=_FONT - 1)  # fmt: skip
        right = _grid(ax, 0.2, top, [[fmt(v) for v in w]], _WEIGHT_COLOUR, strong=w[None, :])
        ax.text(0.2, top - _CELL_H - 0.12, f"weights of {word}, shape {shape_text(w)}", ha="left",
                va="top", fontsize=_FONT - 1)  # fmt: skip
        _arrow(ax, right, right + gap, top - _CELL_H / 2, f"× V{i + 1}")
        out = head.output[row]
        x = right + gap
        right = _grid(ax, x, top, [[fmt(v) for v in out]], colours[i % 4])
        ax.text((x + right) / 2, top - _CELL_H - 0.12, f"head {i + 1}'s output\nshape "
                f"{shape_text(out)}", ha="center", va="top", fontsize=_FONT - 1)  # fmt: skip
        below = i >= h / 2  # the lower heads' arrows reach the joined row from below
        target = (concat_x + (i + 0.5) * d_v * _CELL_W, mid - _CELL_H if below else mid + 0.5)
        ax.add_patch(FancyArrowPatch((right + 0.08, top - _CELL_H / 2), target,
                                     arrowstyle="-|>", mutation_scale=14, color="0.25",
                                     linewidth=1.2, shrinkB=4))  # fmt: skip
    for i in range(h):
        seg = result.concat[row][i * d_v : (i + 1) * d_v]
        _grid(ax, concat_x + i * d_v * _CELL_W, mid, [[fmt(v) for v in seg]], colours[i % 4])
    ax.text(concat_x + h * d_v * _CELL_W / 2, mid + 0.12,
            f"concatenated (side by side), shape ({h * d_v},)", ha="center", va="bottom",
            fontsize=_FONT, fontweight="bold")  # fmt: skip
    _arrow(ax, concat_x + h * d_v * _CELL_W, out_x, mid - _CELL_H / 2,
           f"× W_O\n{shape_text(result.W_O)}")  # fmt: skip
    out = result.output[row]
    _column(ax, out_x, mid, f"output for {word}", [[fmt(v) for v in out]], shape_text(out),
            _OUTPUT_COLOUR)  # fmt: skip
    fig.suptitle(f"Multi-head attention for one word, {word}: {h} heads side by side, "
                 "joined, then mixed by W_O", fontsize=_FONT + 1)  # fmt: skip
    return Diagram(fig, multi_head_alt_text(result, tokens, row, names))
