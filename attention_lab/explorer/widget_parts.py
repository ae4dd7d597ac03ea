"""Small parts every live widget of the course shares.

The labelled picture, when to redraw, the static fallback of the display data, and table
styling.
"""

from __future__ import annotations

import base64
import functools
import html
from collections.abc import Callable, Container, Iterator, Mapping
from contextlib import contextmanager

import ipywidgets as widgets
from traitlets import Unicode

__all__ = [
    "TABLE_STYLE",
    "LabelledImage",
    "Redraws",
    "descendants",
    "figure_image",
    "hidden_png",
    "mimebundle",
    "state_field",
    "static_widget_html",
]

# Cell padding for the readout and feedback tables (the HTML widget renders it unsanitised).
TABLE_STYLE = (
    "<style>.attention-explorer table th, .attention-explorer table td "
    "{padding: 0 0.7em; line-height: 1.35; font-variant-numeric: tabular-nums}</style>"
)


class LabelledImage(widgets.Image):
    """An Image whose ``tooltip`` becomes the <img> title (its accessible name).

    ipywidgets' DOMWidgetView sets ``title`` from ``tooltip`` only when ``description`` is
    empty, and Image has no ``description`` trait (the view would read ``undefined.length``);
    an empty one makes the tooltip work.
    """

    description = Unicode("").tag(sync=True)


def figure_image(width: int, css_class: str) -> LabelledImage:
    """Return the picture widget a live figure is sent to, as wide as the notebook up to ``width``.

    At most its own ``width`` pixels, so its 10 pt labels are 10 pt on screen (smaller only when
    the notebook is narrower than the picture). ``css_class`` names it for the page's styles.
    """
    image = LabelledImage(
        # no margin: ipywidgets' default 2 px beside a 100% width overflowed the box by 4 px,
        # a sideways scrollbar at 1280 px with the file browser open
        format="png",
        layout=widgets.Layout(width="100%", max_width=f"{width}px", margin="0"),
    )
    image.add_class(css_class)
    return image


def static_widget_html(png: bytes, alt: str, below: str, css_class: str) -> str:
    """Return a widget as static HTML, for exporters without a widget manager (nbconvert, GitHub).

    Parameters
    ----------
    png : bytes
        The widget's picture as it is now.
    alt : str
        The picture's alt text (what it shows, in words).
    below : str
        HTML shown under the picture (the readout).
    css_class : str
        Class of the outer ``<div>``.
    """
    src = base64.b64encode(png).decode("ascii")
    return (
        f'<div class="{css_class}"><img src="data:image/png;base64,{src}" '
        f'alt="{html.escape(alt)}">{below}</div>'
    )


@functools.cache
def hidden_png(message: str) -> bytes:
    """Return a small picture that only says ``message``.

    A static export shows it in place of a figure that would give an answer away (a
    prediction-mode explorer before the reveal).
    """
    from matplotlib.figure import Figure

    from attention_lab._render import figure_png

    # Wrapped, with room for two lines: on one 6-inch line the message ran past both edges
    # (the static site showed a picture of clipped text).
    fig = Figure(figsize=(6.0, 0.8), dpi=96)
    fig.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, style="italic", wrap=True)
    return figure_png(fig)


def mimebundle(
    bundle: Mapping[str, object],
    png: bytes | None,
    text: str,
    page: str,
    include: Container[str] | None = None,
    exclude: Container[str] | None = None,
) -> dict[str, object]:
    """Return a widget's display data plus its static fallbacks (PNG, text, HTML), filtered.

    nbconvert skips the widget view when no widget state was saved and GitHub never renders
    it; both then show the picture of the state the widget was displayed in. ``png=None``
    leaves the picture out (a prediction-mode explorer must not show the weights it hides).
    """
    bundle = dict(bundle)
    bundle["text/plain"] = text
    if png is not None:
        bundle["image/png"] = base64.b64encode(png).decode("ascii")
    bundle["text/html"] = page
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle


def descendants(box: widgets.Box) -> list[widgets.Widget]:
    """Every widget inside ``box``, children before their parents."""
    out = []
    for child in box.children:
        if isinstance(child, widgets.Box):
            out.extend(descendants(child))
        out.append(child)
    return out


class Redraws:
    """Redraw at once, or once at the end of a batch of changes.

    Parameters
    ----------
    redraw : callable
        Draws the current state (no arguments); it sets :attr:`pending` to False.

    Attributes
    ----------
    pending : bool
        A change asked for a redraw that has not happened yet.
    """

    def __init__(self, redraw: Callable[[], None]) -> None:
        self._redraw = redraw
        self._depth = 0
        self.pending = False

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Hold the redraws asked for inside the block; redraw once at its end if any was."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0 and self.pending:
                self._redraw()

    def request(self) -> None:
        """Ask for a redraw: now, or at the end of the batch the change is part of."""
        self.pending = True
        if self._depth == 0:
            self._redraw()


def state_field(name: str, doc: str) -> property:
    """Make a read-only attribute of a widget that reads its current ``state``'s ``name``."""
    return property(lambda self: getattr(self.state, name), doc=doc)
