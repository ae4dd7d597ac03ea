"""Prediction mode: guess the weights, then reveal them and see how far each guess was."""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np

from attention_lab._format import fmt

__all__ = ["HIDDEN", "PredictionPanel", "feedback_html"]

HIDDEN = "The weights are hidden until you guess them and press “reveal the weights”."
HINT = (
    "<i>The weights are hidden. Type your guess of each word's weight (they should add up to "
    "1), then press “reveal the weights”.</i>"
)


class PredictionPanel:
    """The checkbox, one guess per key, the reveal button and the feedback table.

    Parameters
    ----------
    labels : list of str
        One label per key (repeated tokens already told apart).

    Attributes
    ----------
    checkbox : ipywidgets.Checkbox
        Prediction mode on or off.
    inputs : tuple of ipywidgets.BoundedFloatText
    reveal_button : ipywidgets.Button
    feedback : ipywidgets.HTML
        The guesses against the real weights, after a reveal; emptied when the weights change.
    hint : ipywidgets.HTML
    box : ipywidgets.VBox
        Everything but the checkbox; shown only in prediction mode.
    revealed : bool
        Whether the current weights have been revealed.
    """

    def __init__(self, labels: list[str]):
        self.labels = list(labels)
        self.revealed = False
        self.checkbox = widgets.Checkbox(
            value=False,
            description="prediction mode: guess first",
            tooltip="Hides the weights until you press reveal",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.inputs = tuple(
            widgets.BoundedFloatText(
                value=round(1.0 / len(labels), 2),
                min=0.0,
                max=1.0,
                step=0.01,
                description=f"“{label}”",
                tooltip=f"your guess of the weight of “{label}”",
                style={"description_width": "initial"},
                # one row for every guess and the button, not one row each: with the revealed
                # figure the explorer must still fit a 768 px screen
                layout=widgets.Layout(width="150px"),
            )
            for label in labels
        )
        self.reveal_button = widgets.Button(
            description="reveal the weights",
            tooltip="Show the real weights and how far your guesses were",
            icon="eye",
            button_style="info",
            layout=widgets.Layout(width="auto"),  # the whole label, never "reveal the wei…"
        )
        self.feedback = widgets.HTML()
        self.hint = widgets.HTML(HINT)
        guesses = widgets.HBox(
            [*self.inputs, self.reveal_button],
            layout=widgets.Layout(flex_flow="row wrap", align_items="center", grid_gap="4px"),
        )
        self.box = widgets.VBox(
            [self.hint, guesses, self.feedback], layout=widgets.Layout(display="none")
        )

    @property
    def guesses(self) -> np.ndarray:
        """The student's guesses, shape (n,)."""
        return np.array([w.value for w in self.inputs], dtype=float)

    def set_mode(self, on: bool) -> None:
        """Show or hide the guessing part; either way nothing is revealed yet."""
        self.revealed = False
        self.box.layout.display = None if on else "none"
        self.feedback.value = ""

    def weights_changed(self) -> None:
        """Take new weights: a revealed answer is for the old ones, so hide it and guess again."""
        self.revealed = False
        self.feedback.value = ""

    def reveal(self, weights: np.ndarray) -> np.ndarray:
        """Show the guesses against ``weights``; returns guess minus weight, shape (n,)."""
        guesses = self.guesses
        errors: np.ndarray = guesses - weights
        self.revealed = True
        self.feedback.value = feedback_html(self.labels, guesses, weights, errors)
        return errors


def feedback_html(
    labels: Sequence[str], guesses: np.ndarray, weights: np.ndarray, errors: np.ndarray
) -> str:
    """Return the feedback table: each guess, the real weight, the difference, and a verdict."""
    # One column per key (the rows of the bar chart below, left to right): three rows, not one
    # per key, so the explorer with its figure still fits a 768 px screen.
    keys = "".join(f"<th scope='col'>{html.escape(t)}</th>" for t in labels)
    said = [
        ("guess", [fmt(g) for g in guesses]),
        ("weight", [fmt(w) for w in weights]),
        ("guess − weight", [f"{'+' if e > 0.0005 else ''}{fmt(e)}" for e in errors]),
    ]
    rows = "".join(
        f"<tr><th scope='row'>{name}</th>" + "".join(f"<td>{v}</td>" for v in values) + "</tr>"
        for name, values in said
    )
    worst = int(np.argmax(np.abs(errors)))
    mean_abs = float(np.mean(np.abs(errors)))
    verdict = (
        "Very close: every guess within 0.05."
        if np.abs(errors).max() <= 0.05
        else f"Largest miss: “{html.escape(labels[worst])}”, off by {fmt(abs(errors[worst]))}."
    )
    total = guesses.sum()
    sum_note = (
        ""
        if abs(total - 1) < 0.015
        else f" Your guesses add up to {fmt(total)}, but softmax weights always add up to 1."
    )
    return (  # the table and its verdict side by side: the explorer stays one screen high
        "<div style='display:flex;flex-wrap:wrap;align-items:flex-end;column-gap:2em'>"
        "<table style='border-collapse:collapse;text-align:right;border-spacing:0'>"
        "<caption style='text-align:left'>Your guesses against the real weights</caption>"
        f"<thead><tr><th scope='col'>key</th>{keys}</tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        f"<p style='max-width:36em'>Mean absolute error {fmt(mean_abs)}. {verdict}{sum_note}</p>"
        "</div>"
    )
