"""The lessons' one-slider widgets: turn the query (lesson 2), hard against soft (lesson 5).

Both render through the explorer's path (:class:`~attention_lab.live_figure.LiveFigure`): the
figure is drawn once, a slider step moves a few artists, blits them over the saved background
and sends the fast PNG to an ``ipywidgets.Image``. Like the explorer they carry an
``image/png`` of their current state in their display data, so a static HTML export or a
reader without a kernel still sees the figure.
"""

from __future__ import annotations

import html
from collections.abc import Container, Iterable
from typing import Any

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from attention_lab._format import format_value
from attention_lab._types import FloatArray
from attention_lab.core import attention, dot_product_scores, hard_attention
from attention_lab.examples import ISRO, WorkedExample
from attention_lab.experiments import hard_vs_soft_sweep
from attention_lab.explorer.controls import slider_width
from attention_lab.explorer.slider_figures import HardSoftFigure, RotationFigure, query_at
from attention_lab.explorer.widget_parts import figure_image, mimebundle, static_widget_html
from attention_lab.live_figure import LiveFigure

__all__ = ["HardSoftSlider", "QueryRotation", "SliderFigure"]


class SliderFigure(widgets.VBox):
    """A slider (or a few) above a live figure (an ``Image`` widget) and a one-line readout.

    Parameters
    ----------
    slider : ipywidgets.FloatSlider
    description : str
        One sentence above the slider: what to do.
    figure : LiveFigure
        Renders the slider's value (``figure.render(value)``), or, with ``more`` sliders, the
        tuple of every slider's value.
    more : ipywidgets.FloatSlider
        Further sliders, below the first.

    Attributes
    ----------
    slider, image, readout
    render_count : int
        Pictures sent so far.
    """

    def __init__(
        self,
        slider: widgets.FloatSlider,
        description: str,
        figure: LiveFigure[Any],  # its state: the slider's value, a tuple with several sliders
        *more: widgets.FloatSlider,
    ) -> None:
        self.slider = slider
        self.sliders = (slider, *more)
        self.live = figure
        self.render_count = 0
        # Its tooltip becomes the <img> title (accessible name).
        self.image = figure_image(round(figure.figure.bbox.width), "attention-demo-figure")
        # The readout says in words what the figure shows (screen readers, no colour needed).
        self.readout = widgets.HTML()
        self.readout.add_class("attention-demo-readout")
        intro = widgets.HTML(f"<p>{html.escape(description)}</p>")
        super().__init__([intro, *self.sliders, self.image, self.readout])
        self.add_class("attention-demo")
        for control in self.sliders:
            control.observe(self._on_change, names="value")
        self._on_change()

    def _describe(self, value: Any) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _readout_html(self, text: str, value: Any) -> str:
        """Return the readout under the picture: its text in a paragraph (subclasses add tables)."""
        return f"<p>{html.escape(text)}</p>"

    def _state(self) -> float | tuple[float, ...]:
        """Return the first slider's value, or the values of all sliders as a tuple if several."""
        values = tuple(float(s.value) for s in self.sliders)
        return values if len(values) > 1 else values[0]

    def _on_change(self, _change: object = None) -> None:
        value = self._state()
        text = self._describe(value)
        png = self.live.render(value)
        self.render_count += 1
        with self.image.hold_sync():  # one message: the picture and its alt text
            self.image.value = png
            self.image.tooltip = text
        self.readout.value = self._readout_html(text, value)

    @property
    def figure(self) -> Figure:
        """The matplotlib Figure (Agg, never registered with pyplot)."""
        return self.live.figure

    @property
    def text(self) -> str:
        """The current readout as plain text."""
        return self._describe(self._state())

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


def _angle_slider(
    value: float, low: float, high: float, description: str = "query angle (°)"
) -> widgets.FloatSlider:
    return widgets.FloatSlider(
        value=value,
        min=low,
        max=high,
        step=1.0,
        description=description,
        style={"description_width": "initial"},
        continuous_update=True,
        # one pixel of track per degree at most
        layout=widgets.Layout(width=slider_width(low, high, description, units_per_pixel=1.0)),
    )


class QueryRotation(SliderFigure):
    """Lesson 2: turn the query with a slider; watch dot products and softmax weights follow.

    Parameters
    ----------
    example : WorkedExample, default ISRO
    angle_deg : float, default 45
        Starting direction (45° is the chapter's query [1, 1]).
    """

    def __init__(self, example: WorkedExample = ISRO, angle_deg: float = 45.0):
        if not isinstance(example, WorkedExample):
            raise TypeError("example must be a WorkedExample, e.g. attention_lab.examples.ISRO")
        self.example = example
        slider = _angle_slider(angle_deg, -180.0, 180.0)
        figure = RotationFigure(example, angle_deg)
        super().__init__(slider, "Drag to turn the query; its length stays the same.", figure)

    def _describe(self, value: float) -> str:
        q = query_at(value, float(np.linalg.norm(self.example.query())))
        _, w = attention(q, self.example.K, self.example.V, scale=self.example.scale)
        s = dot_product_scores(q, self.example.K, scale=self.example.scale)
        toks = self.example.tokens
        scores = ", ".join(f"{t} {x:.3f}" for t, x in zip(toks, s, strict=True))
        parts = ", ".join(f"{t} {x:.3f}" for t, x in zip(toks, w, strict=True))
        return (
            f"Query at {value:.0f}° = {format_value(q, 3)}: scores {scores}; weights {parts}; "
            f"{_largest(toks, w)}."
        )


def _largest(tokens: Iterable[str], weights: FloatArray) -> str:
    """Say who gets the largest weight, naming every token that shares it (a tie at 0°)."""
    top = [t for t, x in zip(tokens, weights, strict=True) if np.isclose(x, weights.max())]
    if len(top) == 1:
        return f"the largest weight goes to {top[0]}"
    return f"{' and '.join(top)} share the largest weight"


class HardSoftSlider(SliderFigure):
    """Lesson 5: slide the query round; hard attention jumps, soft attention glides.

    Parameters
    ----------
    example : WorkedExample, default ISRO
    angle_deg : float, default 45
    radius : float, default 2
        Length of the query.
    """

    def __init__(
        self, example: WorkedExample = ISRO, angle_deg: float = 45.0, radius: float = 2.0
    ) -> None:
        if not isinstance(example, WorkedExample):
            raise TypeError("example must be a WorkedExample, e.g. attention_lab.examples.ISRO")
        self.example = example
        self.radius = float(radius)
        self.sweep = hard_vs_soft_sweep(example.K, example.V, radius=self.radius)
        a = self.sweep.angles_deg
        slider = _angle_slider(angle_deg, float(a[0]), float(a[-1]))
        figure = HardSoftFigure(self.sweep, component=0, at_deg=angle_deg)
        super().__init__(slider, "Drag to turn the query and compare both outputs.", figure)

    def _describe(self, value: float) -> str:
        q = query_at(value, self.radius)
        hard, _ = hard_attention(q, self.example.K, self.example.V, scale=self.example.scale)
        soft, _ = attention(q, self.example.K, self.example.V, scale=self.example.scale)
        return f"Query at {value:.0f}°: hard output {format_value(hard, 3)}, soft output {format_value(soft, 3)}."
