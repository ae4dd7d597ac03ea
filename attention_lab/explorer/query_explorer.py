"""The live attention explorer: move a query and watch scores, weights and the output change.

``QueryExplorer`` is an ``ipywidgets.VBox`` assembled from four parts, each in its module:

* the model (:mod:`attention_lab.explorer.model`): the vectors and the numbers of one state;
* the figure (:mod:`attention_lab.explorer.figure`): a state in, a PNG out, drawn kernel-side
  with Agg, blitting only what changed (:mod:`attention_lab.live_figure`);
* the controls (:mod:`attention_lab.explorer.controls`);
* the prediction panel (:mod:`attention_lab.explorer.prediction_panel`).

This module wires them: a control changes, the model computes, the figure renders, the readout
and the picture are sent. It needs no frontend extension beyond ipywidgets, so it works in
JupyterLab 4, Notebook 7, on a JupyterHub and headless under nbclient; static exports
(nbconvert HTML without widget state, GitHub) show the figure as a PNG.

Redraws cannot pile up while a slider is dragged: ipywidgets' frontend keeps at most one
update message per widget in flight and merges the changes made meanwhile into the next one
("latest value wins"), and every handler here renders synchronously, so the kernel only ever
draws the most recent state. Changes made together (reset, picking another query token) are
batched into a single redraw with :meth:`QueryExplorer.batch_updates`.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from attention_lab import examples as _examples
from attention_lab.explorer.controls import (
    CONTROLS,
    SCORE_SCALE_HELP,
    SLIDER_LIMIT,
    SLIDER_STEP,
    ControlValues,
    ExplorerControls,
    check_controls,
    token_options,
)
from attention_lab.explorer.figure import (
    FIGURE_DPI,
    FIGURE_SIZE,
    ExplorerFigure,
    FigureShortcuts,
    plot_limits,
)
from attention_lab.explorer.figure import render_naive as render_naive
from attention_lab.explorer.model import (
    ExplorerModel,
    ExplorerState,
    Settings,
    StateShortcuts,
    compute_state,
)
from attention_lab.explorer.prediction_panel import HIDDEN, PredictionMode, PredictionPanel
from attention_lab.explorer.readout import ExplorerText
from attention_lab.explorer.widget_parts import (
    LabelledImage,
    descendants,
    hidden_png,
    mimebundle,
    static_widget_html,
)

__all__ = [
    "CONTROLS",
    "SCORE_SCALE_HELP",
    "SLIDER_STEP",
    "ExplorerState",
    "compute_state",
    "QueryExplorer",
    "static_widget_html",
]

_LabelledImage = LabelledImage  # the old private name, for code written against it
_descendants = descendants


@dataclass(frozen=True)
class _Start:
    """What reset returns to: the explorer as the lesson showed it."""

    Q: np.ndarray
    controls: ControlValues


class QueryExplorer(StateShortcuts, FigureShortcuts, PredictionMode, ExplorerText, widgets.VBox):
    """Drag a query vector and watch scores, weights, the output and the heatmap change.

    Parameters
    ----------
    tokens : sequence of str, length n
    Q, K, V : array_like, shape (n, 2)
        Query, key and value vectors, one row per token (2-D so they can be drawn and slid).
    scale : bool, default True
        Start with the scores divided by sqrt(d_k).
    query_index : int, optional
        The token whose query is moved first (default: the last token).
    title : str, optional
        Shown above the controls.
    controls : sequence of str, optional
        Which controls to show, by name from :data:`CONTROLS`: ``"query"`` (the two
        sliders), ``"token"`` (which token asks), ``"scale"`` (÷√d_k), ``"mask"`` (causal),
        ``"mode"`` (soft/hard), ``"beta"`` (score scale), ``"predict"`` (prediction mode) and
        ``"reset"``. Default: all of them. A hidden control keeps its neutral value whatever
        its widget is set to: the opening query token and scaling, no mask, softmax, β = 1,
        no prediction mode.

    Attributes
    ----------
    query_sliders : tuple of two ipywidgets.FloatSlider
        The selected query's two components (step 0.05).
    token_dropdown : ipywidgets.Dropdown
        Which token is the query (value = its index).
    scale_checkbox, causal_checkbox : ipywidgets.Checkbox
    mode_buttons : ipywidgets.ToggleButtons
        ``"soft"`` (softmax) or ``"hard"`` (argmax).
    score_scale_slider : ipywidgets.FloatSlider
        Score scale β (inverse temperature), default 1.
    reset_button : ipywidgets.Button
        Back to the state the lesson showed the explorer in (its queries, token and toggles
        when it was first displayed, e.g. with the causal mask a lesson ticked).
    readout : ipywidgets.HTML
        Table of scores, weights and output (3 decimals), CSS class
        ``attention-explorer-readout``.
    image : ipywidgets.Image
        The rendered figure (PNG), CSS class ``attention-explorer-figure``: heatmap, the
        query's weights, the query among the keys, the output among the values.
    prediction_checkbox : ipywidgets.Checkbox
        Prediction mode: hides the weights until the student has guessed them.
    prediction_inputs : tuple of ipywidgets.BoundedFloatText
        One guess per key.
    reveal_button : ipywidgets.Button
    prediction_feedback : ipywidgets.HTML
    figure : matplotlib.figure.Figure
        Not registered with pyplot (no figure leaks, nothing shown twice).
    state : ExplorerState
        The current numbers; ``weights``, ``output``, ``scores``, ``weight_matrix`` and
        ``query`` are shortcuts to it.
    render_count : int
        How many times the figure has been re-rendered (each is one PNG sent).

    Examples
    --------
    >>> ex = QueryExplorer.tiffin()
    >>> ex.weights.round(3)
    array([0.61 , 0.083, 0.225, 0.083])
    >>> ex.query_sliders[0].value = 2.0
    >>> ex.weights.round(3)
    array([0.831, 0.015, 0.112, 0.041])
    """

    def __init__(
        self,
        tokens,
        Q,
        K,
        V,
        scale: bool = True,
        query_index: int | None = None,
        title: str | None = None,
        controls=None,
    ):
        self.controls = check_controls(controls)
        self.model = ExplorerModel(tokens, Q, K, V)
        self.tokens = self.model.tokens
        n = len(self.model)
        if query_index is None:
            query_index = n - 1
        if not 0 <= int(query_index) < n:
            raise ValueError(f"query_index must be in 0..{n - 1}, got {query_index}")
        self._opening = ControlValues(int(query_index), bool(scale))
        self._hold = 0
        self._dirty = False
        self._loading_sliders = False
        self._start: _Start | None = None
        self.render_count = 0
        self.title = title

        reach = max(SLIDER_LIMIT, float(np.ceil(np.abs(self.model.Q0).max())))
        self._limits = plot_limits(self.model.K, reach)
        self._controls = ExplorerControls(
            self.tokens, self.model.Q0[query_index], int(query_index), bool(scale), reach, title
        )
        for name in (
            "title_html", "token_dropdown", "query_sliders", "scale_checkbox", "causal_checkbox",
            "mode_buttons", "score_scale_slider", "score_scale_help", "reset_button",
        ):  # fmt: skip
            setattr(self, name, getattr(self._controls, name))
        self.prediction = PredictionPanel([label for label, _ in token_options(self.tokens)])
        self.readout = widgets.HTML(layout=widgets.Layout(min_width="24em"))
        self.readout.add_class("attention-explorer-readout")
        width, _ = self._figure_px()
        self.image = LabelledImage(
            # no margin: ipywidgets' default 2 px beside a 100% width overflowed the box by 4 px,
            # a sideways scrollbar at 1280 px with the file browser open
            format="png",
            layout=widgets.Layout(width="100%", max_width=f"{width}px", margin="0"),
        )
        self.image.add_class("attention-explorer-figure")

        self.state = self._compute()
        self._fig = ExplorerFigure(
            self.tokens, self.model.K, self.model.V, self.state, self._limits
        )
        super().__init__(
            children=[
                self.title_html,
                self._controls.layout(self.controls, self.prediction.checkbox, self.prediction.box),
                self.image,
                self.readout,
            ]
        )
        self.add_class("attention-explorer")
        self._observe_controls()
        self.refresh()

    # -- presets ------------------------------------------------------------------------------

    @classmethod
    def from_example(cls, example: _examples.WorkedExample, **kwargs) -> QueryExplorer:
        """Open on a chapter's worked example (its vectors, scaling and query token)."""
        scaled = "scores scaled by 1/√d_k" if example.scale else "scores not scaled"
        tokens = ", ".join(f"“{t}”" for t in example.tokens)
        kwargs.setdefault(
            "title", f"tokens {tokens} from the chapter “{example.chapter}” ({scaled})"
        )
        return cls(
            example.tokens,
            example.Q,
            example.K,
            example.V,
            scale=example.scale,
            query_index=example.query_index,
            **kwargs,
        )

    @classmethod
    def isro(cls, **kwargs) -> QueryExplorer:
        """'ISRO launched Chandrayaan' (chapter "Focus in the Noise"), scaled, query 'Chandrayaan'."""
        return cls.from_example(_examples.ISRO, **kwargs)

    @classmethod
    def tiffin(cls, **kwargs) -> QueryExplorer:
        """The tiffin sentence (chapter "Introduction"), unscaled, query 'it'."""
        return cls.from_example(_examples.TIFFIN, **kwargs)

    # -- wiring -------------------------------------------------------------------------------

    def _figure_px(self) -> tuple[int, int]:
        return round(FIGURE_SIZE[0] * FIGURE_DPI), round(FIGURE_SIZE[1] * FIGURE_DPI)

    def _shown(self, name: str) -> bool:
        return name in self.controls

    def _query_index(self) -> int:
        """The asking token: the dropdown's, or the opening one while the dropdown is hidden."""
        return self.settings().query_index

    def _observe_controls(self) -> None:
        self.token_dropdown.observe(self._on_token, names="value")
        for slider in self.query_sliders:
            slider.observe(self._on_slider, names="value")
        for control in (
            self.scale_checkbox,
            self.causal_checkbox,
            self.mode_buttons,
            self.score_scale_slider,
        ):
            control.observe(self._on_control, names="value")
        self.reset_button.on_click(lambda _button: self.reset())
        self.prediction_checkbox.observe(self._on_prediction_mode, names="value")
        self.reveal_button.on_click(lambda _button: self.reveal())

    # -- updating -----------------------------------------------------------------------------

    @contextmanager
    def batch_updates(self):
        """Change several controls and redraw once at the end.

        Examples
        --------
        >>> ex = QueryExplorer.isro()
        >>> with ex.batch_updates():
        ...     ex.query_sliders[0].value = 0.5
        ...     ex.query_sliders[1].value = 1.5
        """
        self._hold += 1
        try:
            yield self
        finally:
            self._hold -= 1
            if self._hold == 0 and self._dirty:
                self.refresh()

    def settings(self) -> Settings:
        """The controls as they are now; a hidden control counts at its neutral value."""
        return self._controls.settings(self.controls, self._opening)

    def _compute(self) -> ExplorerState:
        return self.model.state(self.settings())

    def _request_refresh(self) -> None:
        self._dirty = True
        if self._predicting():
            # New weights: the revealed table belongs to the old ones. Guess again.
            self.prediction.weights_changed()
        if self._hold == 0:
            self.refresh()

    def _on_slider(self, change) -> None:
        if self._loading_sliders or not self._shown("query"):
            return  # set from the model, not by the student, or hidden (the query stays put)
        self.model.Q[self._query_index()] = [s.value for s in self.query_sliders]
        self._request_refresh()

    def _load_sliders(self, qi: int) -> None:
        """Show token ``qi``'s query on the sliders without editing any query."""
        self._loading_sliders = True
        try:
            for d, slider in enumerate(self.query_sliders):
                slider.value = float(np.clip(self.model.Q[qi, d], slider.min, slider.max))
        finally:
            self._loading_sliders = False

    def _on_token(self, change) -> None:
        if not self._shown("token"):
            return
        with self.batch_updates():
            self._load_sliders(change["new"])
            self._request_refresh()

    def _on_control(self, change) -> None:
        self._request_refresh()

    def refresh(self) -> None:
        """Recompute the numbers, render the figure (a blit while a slider moves), send it."""
        self._dirty = False
        self.state = self._compute()
        # The readout goes first: its small message travels, and the browser lays the table
        # out, while the kernel draws; the picture then arrives last, with nothing behind it
        # to process before the frame that shows it.
        self.readout.value = self._readout_html()
        png = self._fig.render(self.state)
        self.render_count += 1
        visible = not self._predicting() or self.prediction.revealed
        # One comm message for the picture and its alt text, not two: the browser repaints once
        with self.image.hold_sync():
            self.image.value = png
            self.image.tooltip = self._alt_text() if visible else HIDDEN
        self._show_results(visible)

    # -- reset --------------------------------------------------------------------------------

    def mark_start(self) -> None:
        """Make the explorer as it is now what :meth:`reset` returns to.

        Called on the first display, so a lesson that ticks the causal mask before showing the
        explorer gets it back ticked after a reset.
        """
        self._start = _Start(self.model.Q.copy(), self._controls.values())

    def reset(self) -> None:
        """Back to the start: the explorer as the lesson first displayed it."""
        start = self._start or _Start(self.model.Q0.copy(), self._opening)  # never displayed
        with self.batch_updates():
            self.model.Q[:] = start.Q
            self._controls.set_values(start.controls)
            self._load_sliders(self._query_index())
            self._request_refresh()

    # -- display and lifetime -----------------------------------------------------------------

    def to_png(self) -> bytes:
        """The figure as it is now, as PNG bytes."""
        return bytes(self.image.value) or self._fig.render(self.state)

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        """The live widget, plus a PNG and text for places without a widget manager.

        The first display also fixes what "reset" returns to (see :meth:`mark_start`).
        """
        if self._start is None:
            self.mark_start()
        png = hidden_png(HIDDEN) if self._hidden() else self.to_png()
        return mimebundle(
            super()._repr_mimebundle_(**kwargs), png, repr(self), self._static_html(), include,
            exclude,
        )  # fmt: skip

    def close(self) -> None:
        """Close every widget of the explorer and free its figure."""
        # The figure is not cleared: it is freed with the explorer, and clearing can run
        # during interpreter shutdown (ipywidgets calls close() from __del__).
        for widget in descendants(self):
            widget.close()
        super().close()
