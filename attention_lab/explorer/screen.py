"""What the explorer shows under its controls: the picture and the numbers, or a hint.

Prediction mode hides both until the student has guessed the weights (either would give them
away): the prediction panel's hint takes their place and the picture's accessible name says
only that it is hidden. Otherwise both show the current state. The explorer sends each new
picture here with its words.
"""

from __future__ import annotations

import ipywidgets as widgets

from attention_lab.explorer.prediction_panel import HIDDEN
from attention_lab.explorer.widget_parts import LabelledImage, figure_image

__all__ = ["ExplorerScreen"]


class ExplorerScreen:
    """The explorer's picture and its readout table, shown together, or the hint instead.

    Parameters
    ----------
    readout : ipywidgets.HTML
        The table of numbers (the readout part's ``table``), hidden with the picture.
    hint : ipywidgets.HTML
        What to do while they are hidden (the prediction panel's ``hint``), shown only then.
    width : int
        The picture's own width in pixels: it is never drawn wider.

    Attributes
    ----------
    image : LabelledImage
        The rendered figure (PNG), CSS class ``attention-explorer-figure``; its ``tooltip`` is
        its accessible name.
    readout, hint : ipywidgets.HTML
    """

    def __init__(self, readout: widgets.HTML, hint: widgets.HTML, width: int) -> None:
        self.readout, self.hint = readout, hint
        self.image: LabelledImage = figure_image(width, "attention-explorer-figure")

    @property
    def hidden(self) -> bool:
        """Whether the picture and the numbers are hidden (prediction mode before the reveal)."""
        return bool(self.readout.layout.display == "none")

    def send(self, png: bytes, alt: str, visible: bool) -> None:
        """Put a new picture up with its accessible name ``alt``, then show or hide both parts."""
        # One comm message for the picture and its alt text, not two: the browser repaints once
        with self.image.hold_sync():
            self.image.value = png
            self.image.tooltip = alt if visible else HIDDEN
        self.show(visible, alt)

    def show(self, visible: bool, alt: str) -> None:
        """Show the picture (named ``alt``) and the numbers, or hide both and show the hint."""
        # The hidden picture's title says nothing either: it is in the page, and read aloud.
        self.image.tooltip = alt if visible else HIDDEN
        display = None if visible else "none"
        self.image.layout.display = display
        self.readout.layout.display = display
        self.hint.layout.display = "none" if visible else None

    def png(self) -> bytes:
        """Return the picture last sent, as PNG bytes (empty before the first)."""
        return bytes(self.image.value)
