"""A figure drawn once and then rendered again and again, fast.

The one render path of every live widget (the explorer, the query rotation, the hard-vs-soft
slider).

A :class:`LiveFigure` owns an Agg figure and a :class:`~attention_lab._render.BlitRenderer`.
Its subclass says which artists change with the state (:meth:`LiveFigure.dynamic_artists`) and
what the static rest depends on (:meth:`LiveFigure.static_key`); :meth:`LiveFigure.render`
then updates the artists in place, redraws the background only when that key changed, blits the
rest and encodes the fast PNG. Nothing else decides what is static.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine

from attention_lab._render import BlitRenderer

__all__ = ["LiveFigure"]

#: What a subclass's :meth:`LiveFigure.update` shows (a slider's value, a model state...).
State = TypeVar("State")


class LiveFigure(Generic[State]):
    """Base class: update a figure's artists from a state and render it to PNG quickly.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        Made with ``Figure()`` (never pyplot), holding the subclass's plots.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
    renderer : attention_lab._render.BlitRenderer
    """

    def __init__(self, figure: Figure) -> None:
        self.figure = figure
        self.renderer = BlitRenderer(figure, self.dynamic_artists)
        self._static_key: object = None

    # -- what a subclass provides -------------------------------------------------------------

    def update(self, state: State) -> None:  # pragma: no cover - abstract
        """Change the artists to show ``state`` (no drawing)."""
        raise NotImplementedError

    def dynamic_artists(self) -> list[Artist]:  # pragma: no cover - abstract
        """Return the artists :meth:`update` may change from one slider step to the next."""
        raise NotImplementedError

    def static_key(self) -> tuple[object, ...]:
        """Everything the background shows that :meth:`update` may change (default: titles).

        When it differs from the last render's, the background is drawn again.
        """
        return tuple(ax.get_title() for ax in self.figure.axes)

    # -- the one render path ------------------------------------------------------------------

    def render(self, state: State) -> bytes:
        """Show ``state`` and return the figure as PNG bytes (a blit unless the background changed)."""
        self.update(state)
        engine = self.figure.get_layout_engine()
        if isinstance(engine, ConstrainedLayoutEngine):
            # Lay out once, for the first state, and freeze it: re-running the constrained
            # layout on every background redraw (a toggle) would cost more than the draw
            # itself. Then update again: labels placed in pixels need the axes' final size.
            engine.execute(self.figure)
            self.figure.set_layout_engine("none")
            self.update(state)
        key = self.static_key()
        if key != self._static_key:
            self.renderer.invalidate()
            self._static_key = key
        return self.renderer.render()
