"""Lesson 7's live widgets: the loss curve drawn while the model trains, and a temperature slider.

Both render through the course's one fast path (:class:`~attention_lab.live_figure.LiveFigure`
into an ``ipywidgets.Image``) and carry a PNG of their current state in their display data, so
a static export or a reader without a kernel still sees the figure.
"""

from __future__ import annotations

import html
from collections.abc import Container
from typing import Any

import ipywidgets as widgets
import numpy as np
from IPython.display import display

from attention_lab.explorer.controls import slider_width
from attention_lab.explorer.generation_figures import (
    LossCurveFigure,
    NextCharacterFigure,
    shown_char,
)
from attention_lab.explorer.slider_widgets import SliderFigure
from attention_lab.explorer.widget_parts import figure_image, mimebundle, static_widget_html
from attention_lab.transformer.generation import softmax_with_temperature
from attention_lab.transformer.tiny_model import RHYME, TinyModel, TrainingRun, train

__all__ = ["LiveTraining", "TemperatureSlider", "train_live"]


class TemperatureSlider(SliderFigure):
    """Slide the temperature; watch the next character's probabilities sharpen or flatten.

    Parameters
    ----------
    model : TinyModel
    prompt : str
        What the model has read (its last ``context`` characters are used).
    temperature : float, default 1
    """

    def __init__(self, model: TinyModel, prompt: str, temperature: float = 1.0):
        if not isinstance(model, TinyModel):
            raise TypeError("model must be a TinyModel, e.g. the trained run.model")
        self.chars = model.vocab.chars
        window = model.vocab.encode(prompt)[-model.context :]
        self.logits = model.logits(window)[-1]
        slider = widgets.FloatSlider(
            value=float(temperature),
            min=0.1,
            max=3.0,
            step=0.05,
            description="temperature T",
            style={"description_width": "initial"},
            continuous_update=True,
            layout=widgets.Layout(width=slider_width(0.1, 3.0, "temperature T", 0.01)),
        )
        figure = NextCharacterFigure(self.logits, self.chars, prompt)
        super().__init__(slider, "Drag to change the temperature T (β = 1 / T).", figure)

    def _describe(self, value: float) -> str:
        p = softmax_with_temperature(self.logits, value)
        top = np.argsort(-p, kind="stable")[:3]
        best = ", ".join(f"{shown_char(self.chars[i])} {p[i]:.3f}" for i in top)
        return f"T = {value:.2f} (β = {1 / value:.2f}): most likely next characters {best}."


class LiveTraining(widgets.VBox):
    """A loss curve redrawn every few steps while :meth:`run` trains.

    Parameters
    ----------
    steps : int
    top : float
        The y axis's top.
    """

    def __init__(self, steps: int, top: float):
        self.live = LossCurveFigure(steps, top)
        self.image = figure_image(round(self.live.figure.bbox.width), "attention-demo-figure")
        self.readout = widgets.HTML()
        self.losses: list[float] = []
        super().__init__([self.image, self.readout])
        self.add_class("attention-demo")
        self.show()

    @property
    def text(self) -> str:
        """The readout as plain text."""
        if not self.losses:
            return "Loss curve: no step yet."
        return (
            f"Loss curve: step {len(self.losses)}, loss {self.losses[-1]:.3f} "
            f"(step 1: {self.losses[0]:.3f})."
        )

    def show(self) -> None:
        """Draw the losses so far."""
        png = self.live.render(self.losses)
        with self.image.hold_sync():
            self.image.value = png
            self.image.tooltip = self.text
        self.readout.value = f"<p>{html.escape(self.text)}</p>"

    def _repr_mimebundle_(
        self,
        include: Container[str] | None = None,
        exclude: Container[str] | None = None,
        **kwargs: object,
    ) -> dict[str, object]:
        png = bytes(self.image.value)
        page = static_widget_html(png, self.text, self.readout.value, "attention-demo")
        return mimebundle(
            super()._repr_mimebundle_(**kwargs), png, self.text, page, include, exclude
        )


def train_live(
    model: TinyModel,
    text: str = RHYME,
    steps: int = 300,
    every: int = 10,
    **train_args: Any,  # train()'s other keyword arguments, passed on
) -> TrainingRun:
    """Train (:func:`attention_lab.transformer.tiny_model.train`) with the loss curve drawn live.

    The widget is shown at once and redrawn every ``every`` steps; at the end its output is
    replaced by the finished curve (so a saved or exported notebook shows the whole run).
    """
    # room above log V: random weights start a little worse than a uniform guess
    view = LiveTraining(steps, top=1.25 * np.log(model.vocab.size))
    handle = display(view, display_id=True)  # type: ignore[no-untyped-call]  # IPython's has no annotations

    def on_step(step: int, loss: float) -> None:
        view.losses.append(loss)
        if step % every == 0 or step == steps:
            view.show()

    run = train(model, text, steps=steps, on_step=on_step, **train_args)
    if handle is not None:
        handle.update(view)
    return run
