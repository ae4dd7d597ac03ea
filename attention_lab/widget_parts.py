"""Small parts every live widget of the course shares: the labelled picture, the static
fallback of the display data, and table styling."""

from __future__ import annotations

import base64
import html

import ipywidgets as widgets
from traitlets import Unicode

__all__ = ["TABLE_STYLE", "LabelledImage", "descendants", "mimebundle", "static_widget_html"]

# Cell padding for the readout and feedback tables (the HTML widget renders it unsanitised).
TABLE_STYLE = (
    "<style>.attention-explorer table th, .attention-explorer table td "
    "{padding: 0.1em 0.7em; font-variant-numeric: tabular-nums}</style>"
)


class LabelledImage(widgets.Image):
    """An Image whose ``tooltip`` becomes the <img> title (its accessible name).

    ipywidgets' DOMWidgetView sets ``title`` from ``tooltip`` only when ``description`` is
    empty, and Image has no ``description`` trait (the view would read ``undefined.length``);
    an empty one makes the tooltip work.
    """

    description = Unicode("").tag(sync=True)


def static_widget_html(png: bytes, alt: str, below: str, css_class: str) -> str:
    """A widget as static HTML, for exporters without a widget manager (nbconvert, GitHub).

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


def mimebundle(bundle: dict, png: bytes, text: str, page: str, include=None, exclude=None):
    """A widget's display data plus its static fallbacks (PNG, text, HTML), filtered.

    nbconvert skips the widget view when no widget state was saved and GitHub never renders
    it; both then show the picture of the state the widget was displayed in.
    """
    bundle = dict(bundle)
    bundle["text/plain"] = text
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
