"""What the explorer says in words.

The readout table, the figure's alt text, its text repr and the static page shown where there
is no widget manager.

Both print numbers with the one rounding of :mod:`attention_lab._format`, so the table, the
heatmap, the bars and a screen reader all say the same "0.225".
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from attention_lab._format import fmt, fmt_vec
from attention_lab.explorer.model import ExplorerState
from attention_lab.explorer.prediction_panel import HIDDEN
from attention_lab.explorer.widget_parts import TABLE_STYLE, hidden_png, static_widget_html

__all__ = ["ExplorerReadout", "alt_text", "readout_html", "tie_sentence"]


def tie_sentence(state: ExplorerState, tokens: list[str]) -> str:
    """Return a sentence naming a tie that hard attention broke silently (argmax), or "" if none."""
    tied = state.tied
    if not len(tied):
        return ""
    names = ", ".join(tokens[j] for j in tied)
    return (
        f" Tie: {names} have the same best score; hard attention's argmax takes the "
        f"first, {tokens[tied[0]]}, and gives the others 0."
    )


def alt_text(state: ExplorerState, tokens: list[str]) -> str:
    """Return the figure in one sentence (the picture's accessible name)."""
    token = tokens[state.query_index]
    weights = ", ".join(f"{t} {fmt(w)}" for t, w in zip(tokens, state.weights, strict=True))
    return (
        f"Attention heatmap, weights bar chart, query and keys, values and output for the "
        f"query “{token}” {fmt_vec(state.query)}: weights {weights}; output "
        f"{fmt_vec(state.output)}." + tie_sentence(state, tokens)
    )


def readout_html(state: ExplorerState, tokens: list[str], K: np.ndarray, V: np.ndarray) -> str:
    """Return the table of keys, scores, weights and values, and the output, for the selected query.

    Parameters
    ----------
    state : ExplorerState
    tokens : list of str, length n
    K, V : numpy.ndarray, shape (n, 2)
    """
    s = state
    token = html.escape(tokens[s.query_index])
    formula = "q·k"
    if s.scale:
        formula += f" / √{K.shape[1]}"
    if s.beta != 1:
        formula = f"β × {formula} (β = {fmt(s.beta)})"
    mode = "hard, all to the best key" if s.hard else "softmax"
    rows = []
    for j, tok in enumerate(tokens):
        allowed = s.mask is None or s.mask[s.query_index, j]
        score = fmt(s.scores[j]) if allowed else "masked (−∞)"
        weight = fmt(s.weights[j]) + ("" if allowed else " (masked)")
        if j in s.tied:
            weight += " (tie)"
        rows.append(
            f"<tr><th scope='row'>{html.escape(tok)}</th><td>{fmt_vec(K[j])}</td>"
            f"<td>{score}</td><td>{weight}</td><td>{fmt_vec(V[j])}</td></tr>"
        )
    tie = html.escape(tie_sentence(state, tokens))
    return (
        "<table style='border-collapse:collapse;text-align:right'>"
        f"<caption style='text-align:left'>Query “{token}” q = {fmt_vec(s.query)}; "
        f"score = {formula}; weight: {mode}.{tie}</caption>"
        "<thead><tr><th scope='col'>key token</th><th scope='col'>key k</th>"
        "<th scope='col'>score</th><th scope='col'>weight</th><th scope='col'>value v</th>"
        "</tr></thead><tbody>" + "".join(rows) + "</tbody>"
        f"<tfoot><tr><th scope='row'>output</th><td colspan='4'>{fmt_vec(s.output)} "
        "= Σ weight × v</td></tr></tfoot></table>"
    )


class ExplorerReadout:
    """The explorer in words.

    The readout table (a widget), the picture's alt text, the text repr and the static page.

    Parameters
    ----------
    tokens : list of str, length n
    K, V : numpy.ndarray, shape (n, 2)

    Attributes
    ----------
    table : ipywidgets.HTML
        Keys, scores, weights and values of the selected query, and the output (3 decimals);
        CSS class ``attention-explorer-readout``.
    """

    def __init__(self, tokens: list[str], K: np.ndarray, V: np.ndarray):
        self.tokens, self.K, self.V = list(tokens), K, V
        self.table = widgets.HTML(layout=widgets.Layout(min_width="24em"))
        self.table.add_class("attention-explorer-readout")

    def show(self, state: ExplorerState) -> None:
        """Put ``state``'s numbers in the table."""
        self.table.value = readout_html(state, self.tokens, self.K, self.V)

    def alt_text(self, state: ExplorerState) -> str:
        """Return the figure in one sentence, the picture's accessible name."""
        return alt_text(state, self.tokens)

    def text(self, state: ExplorerState, hidden: bool) -> str:
        """Return the explorer's text repr; a hidden one says nothing about its weights."""
        token = self.tokens[state.query_index]
        if hidden:
            return f"QueryExplorer(query “{token}” = {fmt_vec(state.query)}, weights hidden)"
        return (
            f"QueryExplorer(query “{token}” = {fmt_vec(state.query)}, weights "
            f"{fmt_vec(state.weights)}, output {fmt_vec(state.output)})"
        )

    def static_html(self, state: ExplorerState, png: bytes | None, hint: str) -> str:
        """Return the figure (with its alt text) and the table, as a static page shows them.

        ``png=None`` is prediction mode before the reveal: the live widget hides the figure and
        the numbers (they give the weights away), and so does this: only the ``hint`` is shown.
        """
        if png is None:
            return static_widget_html(hidden_png(HIDDEN), HIDDEN, hint, "attention-explorer")
        readout = f'{TABLE_STYLE}<div class="attention-explorer-readout">{self.table.value}</div>'
        return static_widget_html(png, self.alt_text(state), readout, "attention-explorer")
