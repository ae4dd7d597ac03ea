"""The explorer's controls: which ones exist, how they look, and how they are laid out.

A lesson shows only the controls it has taught so far (``controls=("query", "scale")``); the
others are still built, so the explorer's attributes never change, but they are not shown.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

__all__ = ["CONTROLS", "SCORE_SCALE_HELP", "SLIDER_STEP", "ExplorerControls", "check_controls"]

# The explorer's controls, in the order they are laid out. A hidden one stays at its neutral
# value, so it can never change what the student sees.
CONTROLS = ("query", "token", "scale", "mask", "mode", "beta", "predict", "reset")

SLIDER_STEP = 0.05
SLIDER_LIMIT = 3.0  # the chapters' query components are all within [0, 2]
SCORE_SCALE_MAX = 5.0
UNITS_PER_PIXEL = 0.02  # a one-pixel drag moves a slider at most this much (issue 17)
_READOUT_PX = 90  # the number beside the track, and margins (measured: 10 px to spare)

SCORE_SCALE_HELP = (
    "Score scale β multiplies every score before the softmax: softmax(β·z). β is an inverse "
    "temperature (temperature T = 1/β), the same operation as the sampling temperature a "
    "language model applies to its logits, here applied to attention scores. β = 0 spreads "
    "the weight evenly; a large β gives nearly all of it to the best key, or shares it equally "
    "between keys whose scores tie for best. With ÷√d_k off, β = 1/√d_k is exactly that scaling."
)


def check_controls(controls) -> tuple[str, ...]:
    """The controls to show, in layout order; a clear error for a name that is not one."""
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
    """A slider's CSS width whose track gives one pixel to at most ``units_per_pixel``.

    The description is allowed 8 pixels a character (13 px system fonts average about 7).
    """
    track = int(np.ceil((high - low) / units_per_pixel))
    return f"{track + 8 * len(description) + _READOUT_PX}px"


def token_options(tokens: list[str]) -> list[tuple[str, int]]:
    """Dropdown options (label, index); repeated tokens get their position appended."""
    counts = {t: tokens.count(t) for t in tokens}
    return [(t if counts[t] == 1 else f"{t} (#{i + 1})", i) for i, t in enumerate(tokens)]


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
    title_html, token_dropdown, query_sliders, scale_checkbox, causal_checkbox, mode_buttons,
    score_scale_slider, score_scale_help, reset_button
        As documented on :class:`attention_lab.widgets.QueryExplorer`.
    """

    def __init__(self, tokens, query, query_index: int, scale: bool, reach: float, title):
        wide = {"description_width": "initial"}
        self.title_html = widgets.HTML(
            f"<b>Attention explorer</b>: {html.escape(title)}" if title else
            "<b>Attention explorer</b>"
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
            description="causal mask (no looking at later tokens)",
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
            step=SLIDER_STEP,
            readout_format=".2f",
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

    def layout(self, shown: tuple[str, ...], prediction: list) -> widgets.Box:
        """The controls named in ``shown`` in two columns, side by side when there is room.

        Left: what the query is (token, sliders, reset) and prediction mode under it; right:
        the toggles. At 1280 pixels both columns sit on one row, so the controls, the figure
        and the readout fit a 720-pixel-high screen together.
        """
        first_row = [
            *([self.token_dropdown] if "token" in shown else []),
            *([self.reset_button] if "reset" in shown else []),
        ]
        query_box = widgets.VBox(
            [
                *([widgets.HBox(first_row)] if first_row else []),
                *(self.query_sliders if "query" in shown else ()),
                *(prediction if "predict" in shown else []),
            ],
            layout=widgets.Layout(margin="0 2em 0 0"),
        )
        toggles = {
            "scale": [self.scale_checkbox],
            "mask": [self.causal_checkbox],
            "mode": [self.mode_buttons],
            "beta": [self.score_scale_slider, self.score_scale_help],
        }
        toggle_box = widgets.VBox(
            [w for name, group in toggles.items() if name in shown for w in group]
        )
        return widgets.HBox([query_box, toggle_box], layout=widgets.Layout(flex_flow="row wrap"))
