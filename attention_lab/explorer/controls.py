"""The explorer's controls: which ones exist, how they look, and how they are laid out.

A lesson shows only the controls it has taught so far (``controls=("query", "scale")``); the
others are still built, so the explorer's attributes never change, but they are not shown.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from attention_lab._types import FloatArray
from attention_lab.explorer.model import Settings
from attention_lab.explorer.widget_parts import TABLE_STYLE

__all__ = [
    "CONTROLS",
    "SCORE_SCALE_HELP",
    "SLIDER_STEP",
    "ControlValues",
    "ExplorerControls",
    "check_controls",
]

# The explorer's controls, in the order they are laid out. A hidden one stays at its neutral
# value, so it can never change what the student sees.
CONTROLS = ("query", "token", "scale", "mask", "mode", "beta", "predict", "reset")

SLIDER_STEP = 0.05
SLIDER_LIMIT = 3.0  # the chapters' query components are all within [0, 2]
SCORE_SCALE_MAX = 5.0
# noUiSlider (ipywidgets' slider) writes the handle's aria-valuenow with one decimal: with a
# step of 0.05 a keyboard user's handle said 4.0 while the readout and the table said 3.95.
# β's steps are ones that one decimal writes exactly, so the three say the same number.
SCORE_SCALE_STEP = 0.1
# A one-pixel drag moves a slider at most this much, so a student can set a query's component
# to the step they mean (0.05) by dragging, not only with the arrow keys.
UNITS_PER_PIXEL = 0.02
_READOUT_PX = 90  # the number beside the track, and margins (measured: 10 px to spare)

SCORE_SCALE_HELP = (
    "Score scale β multiplies every score before the softmax: softmax(β·z). β is an inverse "
    "temperature (temperature T = 1/β), the same operation as the sampling temperature a "
    "language model applies to its logits, here applied to attention scores. β = 0 spreads "
    "the weight evenly; a large β gives nearly all of it to the best key, or shares it equally "
    "between keys whose scores tie for best. With ÷√d_k off, β = 1/√d_k is exactly that scaling."
)


def check_controls(controls: str | Iterable[str] | None) -> tuple[str, ...]:
    """Return the controls to show, in layout order; raise a clear error for an unknown name."""
    if controls is None:
        return CONTROLS
    names = (controls,) if isinstance(controls, str) else tuple(controls)
    unknown = [name for name in names if name not in CONTROLS]
    if unknown:
        raise ValueError(
            f"unknown explorer control(s) {', '.join(map(repr, unknown))}; "
            f"choose from {', '.join(map(repr, CONTROLS))}"
        )
    return tuple(name for name in CONTROLS if name in names)


def slider_width(
    low: float, high: float, description: str, units_per_pixel: float = UNITS_PER_PIXEL
) -> str:
    """Return a slider's CSS width whose track gives one pixel to at most ``units_per_pixel``.

    The description is allowed 8 pixels a character (13 px system fonts average about 7).
    """
    track = int(np.ceil((high - low) / units_per_pixel))
    return f"{track + 8 * len(description) + _READOUT_PX}px"


def token_options(tokens: list[str]) -> list[tuple[str, int]]:
    """Dropdown options (label, index); repeated tokens get their position appended."""
    counts = {t: tokens.count(t) for t in tokens}
    return [(t if counts[t] == 1 else f"{t} (#{i + 1})", i) for i, t in enumerate(tokens)]


@dataclass(frozen=True)
class ControlValues:
    """What the controls other than the two query sliders are set to (what reset restores).

    Attributes
    ----------
    query_index : int
        The token dropdown (which token asks).
    scale, causal : bool
        The ÷√d_k and causal-mask check boxes.
    mode : str
        ``"soft"`` or ``"hard"``.
    beta : float
        The score scale slider.
    """

    query_index: int
    scale: bool
    causal: bool = False
    mode: str = "soft"
    beta: float = 1.0


class ExplorerControls:
    """Every control of the explorer (built whether shown or not).

    Parameters
    ----------
    tokens : list of str
    query : numpy.ndarray, shape (2,)
        The opening query (the sliders start on it).
    query_index : int
    scale : bool
    reach : float
        The query sliders go from ``-reach`` to ``reach``.
    title : str or None

    Attributes
    ----------
    title_html : ipywidgets.HTML
        "Attention explorer" and the lesson's title.
    query_sliders : tuple of two ipywidgets.FloatSlider
        The selected query's two components (step 0.05).
    token_dropdown : ipywidgets.Dropdown
        Which token is the query (value = its index).
    scale_checkbox, causal_checkbox : ipywidgets.Checkbox
    mode_buttons : ipywidgets.ToggleButtons
        ``"soft"`` (softmax) or ``"hard"`` (argmax).
    score_scale_slider : ipywidgets.FloatSlider
        Score scale β (inverse temperature), default 1.
    score_scale_help : ipywidgets.HTML
        What β is, folded.
    reset_button : ipywidgets.Button
        Back to the state the lesson showed the explorer in (its queries, token and toggles
        when it was first displayed, e.g. with the causal mask a lesson ticked).
    showing_query : bool
        True while :meth:`show_query` moves the query sliders: their observers then know the
        student did not.
    """

    def __init__(
        self,
        tokens: Iterable[str],
        query: FloatArray,
        query_index: int,
        scale: bool,
        reach: float,
        title: str | None,
    ) -> None:
        self.showing_query = False
        wide = {"description_width": "initial"}
        # The tables' style sheet lives here, set once: a <style> in the readout, which changes
        # on every slider step, would make the browser restyle the whole page each time.
        self.title_html = widgets.HTML(
            TABLE_STYLE + (
                f"<b>Attention explorer</b>: {html.escape(title)}" if title else
                "<b>Attention explorer</b>"
            )
        )  # fmt: skip
        self.token_dropdown = widgets.Dropdown(
            options=token_options(list(tokens)),
            value=query_index,
            description="query token",
            tooltip="Which token asks the question (its row is outlined in the heatmap)",
            style=wide,
        )
        self.query_sliders = tuple(
            widgets.FloatSlider(
                value=float(np.clip(query[d], -reach, reach)),
                min=-reach,
                max=reach,
                step=SLIDER_STEP,
                readout_format=".2f",
                continuous_update=True,
                description=f"query dimension {d + 1}",
                tooltip=f"Component {d + 1} of the selected token's query vector",
                style=wide,
                layout=widgets.Layout(width=slider_width(-reach, reach, "query dimension 1")),
            )
            for d in range(2)
        )
        self.scale_checkbox = widgets.Checkbox(
            value=scale,
            description="divide scores by √d_k",
            tooltip="Scaled dot-product attention divides every score by √d_k = √2",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.causal_checkbox = widgets.Checkbox(
            value=False,
            description="causal mask (no looking ahead)",
            tooltip="Token i may attend only to tokens 0..i, as in a decoder",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.mode_buttons = widgets.ToggleButtons(
            options=[("soft (softmax)", "soft"), ("hard (argmax)", "hard")],
            value="soft",
            description="attention",
            tooltips=["weights from softmax: a blend", "all weight to the best key: a pick"],
            style=wide,
        )
        self.score_scale_slider = widgets.FloatSlider(
            value=1.0,
            min=0.0,
            max=SCORE_SCALE_MAX,
            step=SCORE_SCALE_STEP,
            readout_format=".1f",
            description="score scale β",
            tooltip=SCORE_SCALE_HELP,
            style=wide,
            layout=widgets.Layout(width=slider_width(0.0, SCORE_SCALE_MAX, "score scale β")),
        )
        # Folded: read once, it would otherwise push the figure below a small screen's fold.
        self.score_scale_help = widgets.HTML(
            "<details style='font-size:0.9em;max-width:34em'><summary>what is β (inverse "
            "temperature)?</summary>"
            f"{html.escape(SCORE_SCALE_HELP)}</details>"
        )
        self.reset_button = widgets.Button(
            description="reset to the start",
            tooltip="Put every query, toggle and the score scale back to how the explorer opened",
            icon="undo",
            layout=widgets.Layout(width="auto"),
        )

    def show_query(self, query: np.ndarray) -> None:
        """Put a query, shape (2,), on the sliders (clipped to their range), not as the student."""
        self.showing_query = True
        try:
            for d, slider in enumerate(self.query_sliders):
                slider.value = float(np.clip(query[d], slider.min, slider.max))
        finally:
            self.showing_query = False

    def values(self) -> ControlValues:
        """Return the controls as they are set now, shown or not."""
        return ControlValues(
            self.token_dropdown.value,
            self.scale_checkbox.value,
            self.causal_checkbox.value,
            self.mode_buttons.value,
            self.score_scale_slider.value,
        )

    def set_values(self, values: ControlValues) -> None:
        """Set every control but the query sliders (each change fires its observers)."""
        self.scale_checkbox.value = values.scale
        self.causal_checkbox.value = values.causal
        self.mode_buttons.value = values.mode
        self.score_scale_slider.value = values.beta
        self.token_dropdown.value = values.query_index

    def settings(self, shown: tuple[str, ...], opening: ControlValues) -> Settings:
        """Return what the controls ask for.

        A hidden control counts at its ``opening`` or neutral value (no mask, softmax, β = 1),
        whatever its widget is set to.
        """
        return Settings(
            query_index=(self.token_dropdown.value if "token" in shown else opening.query_index),
            scale=self.scale_checkbox.value if "scale" in shown else opening.scale,
            causal="mask" in shown and self.causal_checkbox.value,
            hard="mode" in shown and self.mode_buttons.value == "hard",
            beta=self.score_scale_slider.value if "beta" in shown else 1.0,
        )

    def layout(
        self,
        shown: tuple[str, ...],
        prediction_checkbox: widgets.Checkbox,
        prediction_box: widgets.Box,
    ) -> widgets.Box:
        """Lay out the controls named in ``shown``: two compact columns, then the prediction panel.

        Left: what the query is (token and reset, the two sliders), then the other sliders
        (mode, β); right: the check boxes and β's folded help. Both columns fit side by side in
        a notebook at 1024 pixels (left ~530 px, right ~230 px), so the controls take four rows
        and the controls, the figure and the readout fit a 1024 x 768 or 1280 x 720 screen
        together (tests/browser/test_readability.py). The guesses, shown only in prediction
        mode, go under both columns.
        """
        first_row = [
            *([self.token_dropdown] if "token" in shown else []),
            *([self.reset_button] if "reset" in shown else []),
        ]
        left = [
            *([widgets.HBox(first_row)] if first_row else []),
            *(self.query_sliders if "query" in shown else ()),
            *([self.mode_buttons] if "mode" in shown else []),
            *([self.score_scale_slider] if "beta" in shown else []),
        ]
        right = [
            *([self.scale_checkbox] if "scale" in shown else []),
            *([self.causal_checkbox] if "mask" in shown else []),
            *([prediction_checkbox] if "predict" in shown else []),
            *([self.score_scale_help] if "beta" in shown else []),
        ]
        columns = widgets.HBox(
            [
                widgets.VBox(left, layout=widgets.Layout(margin="0 1em 0 0")),
                widgets.VBox(right),
            ],
            layout=widgets.Layout(flex_flow="row wrap"),
        )
        return widgets.VBox([columns, *([prediction_box] if "predict" in shown else [])])
