"""The live attention explorer: move a query and watch scores, weights and the output change.

:class:`QueryExplorer` is an ``ipywidgets.VBox`` that holds six parts and wires them; none of
them knows the others:

* the model (:mod:`attention_lab.explorer.model`): the vectors and the numbers of one state;
* the controls (:mod:`attention_lab.explorer.controls`): the widgets a student changes;
* the figure (:mod:`attention_lab.explorer.figure`): a state in, a PNG out, drawn kernel-side
  with Agg, blitting only what changed (:mod:`attention_lab.live_figure`);
* the prediction panel (:mod:`attention_lab.explorer.prediction_panel`): guesses and reveal;
* the readout (:mod:`attention_lab.explorer.readout`): the table, the alt text, the static page;
* the screen (:mod:`attention_lab.explorer.screen`): the picture and the table, shown or hidden.

The wiring is one loop: a control changes, the model computes, the readout and the figure are
sent. It needs no frontend extension beyond ipywidgets, so it works in JupyterLab 4, Notebook 7,
on a JupyterHub and headless under nbclient; static exports (nbconvert HTML without widget
state, GitHub) show the figure as a PNG.

Every handler renders synchronously, so redraws cannot pile up while a slider is dragged (why:
docs/design.md, "The rendering path"); changes made together (reset, picking another query
token) are batched into a single redraw with :meth:`QueryExplorer.batch_updates`.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import numpy as np
from numpy.typing import ArrayLike

from attention_lab import examples as _examples
from attention_lab.explorer.controls import (
    SLIDER_LIMIT,
    ControlValues,
    ExplorerControls,
    check_controls,
    token_options,
)
from attention_lab.explorer.figure import FIGURE_DPI, FIGURE_SIZE, ExplorerFigure, plot_limits
from attention_lab.explorer.model import ExplorerModel, Settings
from attention_lab.explorer.opening import example_opening
from attention_lab.explorer.prediction_panel import HIDDEN, PredictionPanel
from attention_lab.explorer.readout import ExplorerReadout
from attention_lab.explorer.screen import ExplorerScreen
from attention_lab.explorer.widget_parts import (
    Redraws,
    descendants,
    hidden_png,
    mimebundle,
    state_field,
)

__all__ = ["QueryExplorer"]

_CONTROL_WIDGETS = (
    "title_html", "token_dropdown", "query_sliders", "scale_checkbox", "causal_checkbox",
    "mode_buttons", "score_scale_slider", "score_scale_help", "reset_button",
)  # fmt: skip


@dataclass(frozen=True)
class _Start:
    """What reset returns to: the explorer as the lesson showed it."""

    Q: np.ndarray
    controls: ControlValues


class QueryExplorer(widgets.VBox):
    """Drag a query vector and watch scores, weights, the output and the heatmap change.

    A box of widgets composed of six parts it holds: the model computes one state from the
    controls' settings, the readout prints it, the figure draws it, the screen shows both, the
    prediction panel hides them until the student has guessed. The explorer is only the
    wiring between them.

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
        Which controls to show, by name from :data:`~attention_lab.explorer.controls.CONTROLS`: ``"query"`` (the two
        sliders), ``"token"`` (which token asks), ``"scale"`` (÷√d_k), ``"mask"`` (causal),
        ``"mode"`` (soft/hard), ``"beta"`` (score scale), ``"predict"`` (prediction mode) and
        ``"reset"``. Default: all of them. A hidden control keeps its neutral value whatever
        its widget is set to: the opening query token and scaling, no mask, softmax, β = 1,
        no prediction mode.

    Attributes
    ----------
    model : ExplorerModel
    control_panel : ExplorerControls
    live_figure : ExplorerFigure
        The figure part, a :class:`~attention_lab.live_figure.LiveFigure`.
    prediction : PredictionPanel
    text : ExplorerReadout
    screen : ExplorerScreen
        The parts the explorer holds and wires (none of them knows another).
    title_html, token_dropdown, query_sliders, scale_checkbox, causal_checkbox, mode_buttons, \
    score_scale_slider, score_scale_help, reset_button
        The controls' widgets (each documented on :class:`ExplorerControls`).
    prediction_checkbox, prediction_inputs, reveal_button, prediction_feedback, \
    prediction_hint, prediction_box
        The prediction panel's ``checkbox``, ``inputs``, ``reveal_button``, ``feedback``,
        ``hint`` and ``box`` (:class:`PredictionPanel`): prediction mode hides the weights until
        the student has guessed them, one guess per key.
    image, readout
        The screen's picture (heatmap, the query's weights, the query among the keys, the
        output among the values) and the readout's table (:class:`ExplorerScreen`).
    figure : matplotlib.figure.Figure
        Not registered with pyplot (no figure leaks, nothing shown twice); its panels are
        ``heatmap``, ``bars``, ``keys_panel`` (the query among the keys) and ``values_panel``
        (the output among the values).
    state : ExplorerState
        The current numbers; ``weights``, ``output``, ``scores``, ``weight_matrix`` and
        ``query`` are shortcuts to it, ``Q`` a copy of every current query.
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
        tokens: Sequence[str],
        Q: ArrayLike,
        K: ArrayLike,
        V: ArrayLike,
        scale: bool = True,
        query_index: int | None = None,
        title: str | None = None,
        controls: str | Iterable[str] | None = None,
    ) -> None:
        self.controls = check_controls(controls)
        self.model = ExplorerModel(tokens, Q, K, V)
        self.tokens = self.model.tokens
        query_index = self.model.query_row(query_index)
        self.title = title
        self.render_count = 0
        self._opening = ControlValues(int(query_index), bool(scale))
        self._redraws = Redraws(self.refresh)
        self._start: _Start | None = None

        reach = max(SLIDER_LIMIT, float(np.ceil(np.abs(self.model.Q0).max())))
        self._limits = plot_limits(self.model.K, reach)
        self.control_panel = ExplorerControls(
            self.tokens, self.model.Q0[query_index], int(query_index), bool(scale), reach, title
        )
        self.prediction = PredictionPanel([label for label, _ in token_options(self.tokens)])
        self.text = ExplorerReadout(self.tokens, self.model.K, self.model.V)
        self.state = self.model.state(self.settings())
        self.live_figure = ExplorerFigure(
            self.tokens, self.model.K, self.model.V, self.state, self._limits
        )
        width = round(FIGURE_SIZE[0] * FIGURE_DPI)
        self.screen = ExplorerScreen(self.text.table, self.prediction.hint, width)
        self._name_parts()
        panel = self.control_panel.layout(
            self.controls, self.prediction.checkbox, self.prediction.box
        )
        super().__init__(children=[self.title_html, panel, self.image, self.readout])
        self.add_class("attention-explorer")
        self._observe_controls()
        self.refresh()

    def _name_parts(self) -> None:
        """Give the parts' widgets and panels the names lessons and tests use."""
        for name in _CONTROL_WIDGETS:
            setattr(self, name, getattr(self.control_panel, name))
        panel = self.prediction
        self.prediction_checkbox, self.prediction_inputs = panel.checkbox, panel.inputs
        self.reveal_button, self.prediction_feedback = panel.reveal_button, panel.feedback
        self.prediction_hint, self.prediction_box = panel.hint, panel.box
        fig = self.live_figure
        self.figure, self.heatmap, self.bars = fig.figure, fig.heatmap, fig.bars
        self.keys_panel, self.values_panel = fig.keys, fig.values
        self.image, self.readout = self.screen.image, self.screen.readout

    # -- the current numbers ------------------------------------------------------------------

    weights = state_field("weights", "The selected query's attention weights, shape (n,).")
    output = state_field("output", "The selected query's output, shape (2,).")
    scores = state_field("scores", "The selected query's scores, shape (n,) (-inf where masked).")
    weight_matrix = state_field("weight_matrix", "Every token's weights (the heatmap), (n, n).")
    query = state_field("query", "The selected query vector, shape (2,).")

    @property
    def Q(self) -> np.ndarray:
        """All current query vectors (the sliders edit the selected row), shape (n, 2)."""
        return self.model.Q.copy()

    @property
    def predictions(self) -> np.ndarray:
        """The student's guesses, shape (n,)."""
        return self.prediction.guesses

    # -- presets ------------------------------------------------------------------------------

    @classmethod
    def from_example(
        cls, example: _examples.WorkedExample, start_query: ArrayLike | None = None, **kwargs: Any
    ) -> QueryExplorer:
        """Open on a chapter's worked example (its vectors, scaling and query token).

        ``start_query`` (2 numbers) replaces the query token's own query at the start (and for
        the reset button): lesson 1 opens away from the chapter's (1, 1), whose winner lesson 2
        asks students to predict (:func:`~attention_lab.explorer.opening.example_opening`).
        """
        opening = example_opening(example, start_query)
        kwargs.setdefault("title", opening.title)
        o = opening
        return cls(o.tokens, o.Q, o.K, o.V, scale=o.scale, query_index=o.query_index, **kwargs)

    @classmethod
    def isro(cls, **kwargs: Any) -> QueryExplorer:
        """'ISRO launched Chandrayaan' (chapter "Focus in the Noise"), scaled, query 'Chandrayaan'."""
        return cls.from_example(_examples.ISRO, **kwargs)

    @classmethod
    def tiffin(cls, **kwargs: Any) -> QueryExplorer:
        """Make the tiffin sentence's explorer (chapter "Introduction"): unscaled, query 'it'."""
        return cls.from_example(_examples.TIFFIN, **kwargs)

    # -- wiring -------------------------------------------------------------------------------

    def _shown(self, name: str) -> bool:
        return name in self.controls

    def _query_index(self) -> int:
        """Return the asking token: the dropdown's, or the opening one while it is hidden."""
        return self.settings().query_index

    def _observe_controls(self) -> None:
        self.token_dropdown.observe(self._on_token, names="value")
        for slider in self.query_sliders:
            slider.observe(self._on_slider, names="value")
        settings = (self.scale_checkbox, self.causal_checkbox, self.mode_buttons)
        for control in (*settings, self.score_scale_slider):
            control.observe(self._on_control, names="value")
        self.reset_button.on_click(lambda _button: self.reset())
        self.prediction_checkbox.observe(self._on_prediction_mode, names="value")
        self.reveal_button.on_click(lambda _button: self.reveal())

    # -- updating -----------------------------------------------------------------------------

    @contextmanager
    def batch_updates(self) -> Iterator[QueryExplorer]:
        """Change several controls and redraw once at the end.

        Examples
        --------
        >>> ex = QueryExplorer.isro()
        >>> with ex.batch_updates():
        ...     ex.query_sliders[0].value = 0.5
        ...     ex.query_sliders[1].value = 1.5
        """
        with self._redraws.batch():
            yield self

    def settings(self) -> Settings:
        """Return the controls as they are now; a hidden control counts at its neutral value."""
        return self.control_panel.settings(self.controls, self._opening)

    def _request_refresh(self) -> None:
        if self._predicting():
            # New weights: the revealed table belongs to the old ones. Guess again.
            self.prediction.weights_changed()
        self._redraws.request()

    def _on_slider(self, change: dict[str, Any]) -> None:
        if self.control_panel.showing_query or not self._shown("query"):
            return  # set from the model, not by the student, or hidden (the query stays put)
        self.model.Q[self._query_index()] = [s.value for s in self.query_sliders]
        self._request_refresh()

    def _on_token(self, change: dict[str, Any]) -> None:
        if not self._shown("token"):
            return
        with self.batch_updates():
            self.control_panel.show_query(self.model.Q[change["new"]])
            self._request_refresh()

    def _on_control(self, change: dict[str, Any]) -> None:
        self._request_refresh()

    def refresh(self) -> None:
        """Recompute the numbers, render the figure (a blit while a slider moves), send it."""
        self._redraws.pending = False
        self.state = self.model.state(self.settings())
        # The readout goes first: its small message travels, and the browser lays the table
        # out, while the kernel draws; the picture then arrives last, with nothing behind it
        # to process before the frame that shows it.
        self.text.show(self.state)
        png = self.live_figure.render(self.state)
        self.render_count += 1
        visible = not self._predicting() or self.prediction.revealed
        self.screen.send(png, self.text.alt_text(self.state), visible)

    # -- prediction mode ----------------------------------------------------------------------

    def _predicting(self) -> bool:
        return "predict" in self.controls and self.prediction.checkbox.value

    def _show_results(self, visible: bool) -> None:
        self.screen.show(visible, self.text.alt_text(self.state))

    def _on_prediction_mode(self, change: dict[str, Any]) -> None:
        if "predict" not in self.controls:
            return
        self.prediction.set_mode(change["new"])
        self._show_results(not change["new"])

    def reveal(self) -> np.ndarray:
        """Show the weights and how far the guesses were; returns guess minus actual, (n,)."""
        errors = self.prediction.reveal(self.weights)
        self._show_results(True)
        return errors

    # -- reset --------------------------------------------------------------------------------

    def mark_start(self) -> None:
        """Make the explorer as it is now what :meth:`reset` returns to.

        Called on the first display, so a lesson that ticks the causal mask before showing the
        explorer gets it back ticked after a reset.
        """
        self._start = _Start(self.model.Q.copy(), self.control_panel.values())

    def reset(self) -> None:
        """Back to the start: the explorer as the lesson first displayed it."""
        start = self._start or _Start(self.model.Q0.copy(), self._opening)  # never displayed
        with self.batch_updates():
            self.model.Q[:] = start.Q
            self.control_panel.set_values(start.controls)
            self.control_panel.show_query(self.model.Q[self._query_index()])
            self._request_refresh()

    # -- display and lifetime -----------------------------------------------------------------

    def to_png(self) -> bytes:
        """Return the figure as it is now, as PNG bytes."""
        return self.screen.png() or self.live_figure.render(self.state)

    def _repr_mimebundle_(
        self,
        include: Container[str] | None = None,
        exclude: Container[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Return the live widget, plus a PNG and text for places without a widget manager.

        The first display also fixes what "reset" returns to (see :meth:`mark_start`).
        """
        if self._start is None:
            self.mark_start()
        hidden = self.screen.hidden
        png = hidden_png(HIDDEN) if hidden else self.to_png()
        page = self.text.static_html(
            self.state, None if hidden else png, self.prediction.hint.value
        )
        live = super()._repr_mimebundle_(**kwargs)
        bundle: dict[str, Any] = mimebundle(live, png, repr(self), page, include, exclude)
        return bundle

    def __repr__(self) -> str:
        """Return the explorer in words (nothing about the weights while they are hidden)."""
        return self.text.text(self.state, self.screen.hidden)

    def close(self) -> None:
        """Close every widget of the explorer and free its figure."""
        # The figure is not cleared: it is freed with the explorer, and clearing can run
        # during interpreter shutdown (ipywidgets calls close() from __del__).
        for widget in descendants(self):
            widget.close()
        super().close()
