"""The explorer's screen (attention_lab.explorer.screen): the picture and the numbers shown
together, or, in prediction mode before the reveal, both hidden and the hint in their place.
"""

from __future__ import annotations

import ipywidgets as widgets

from attention_lab.explorer.prediction_panel import HIDDEN
from attention_lab.explorer.screen import ExplorerScreen

PNG = b"\x89PNG\r\n\x1a\nnot really a picture"


def _screen() -> ExplorerScreen:
    return ExplorerScreen(widgets.HTML("<table>0.610</table>"), widgets.HTML("guess first"), 640)


def test_a_sent_picture_is_shown_with_its_accessible_name_and_the_numbers():
    screen = _screen()
    assert screen.png() == b""  # nothing sent yet: the explorer renders one itself
    screen.send(PNG, "Attention heatmap: weights tiffin 0.610", visible=True)
    assert screen.png() == PNG and screen.image.value == PNG
    assert screen.image.tooltip == "Attention heatmap: weights tiffin 0.610"
    assert not screen.hidden
    assert screen.image.layout.display is None and screen.readout.layout.display is None
    assert screen.hint.layout.display == "none"


def test_hidden_the_picture_and_numbers_give_nothing_away_and_the_hint_shows():
    screen = _screen()
    screen.send(PNG, "Attention heatmap: weights tiffin 0.610", visible=False)
    assert screen.hidden
    assert screen.image.tooltip == HIDDEN  # the name is read aloud even when hidden
    assert screen.image.layout.display == "none" and screen.readout.layout.display == "none"
    assert screen.hint.layout.display is None
    screen.show(True, "Attention heatmap: weights tiffin 0.610")  # the reveal
    assert not screen.hidden and "0.610" in screen.image.tooltip
    assert screen.hint.layout.display == "none"


def test_the_picture_is_never_drawn_wider_than_itself_and_is_named_for_the_styles():
    image = _screen().image
    assert image.layout.max_width == "640px" and image.layout.width == "100%"
    assert image.layout.margin == "0"  # ipywidgets' 2 px made a sideways scrollbar
    assert "attention-explorer-figure" in image._dom_classes
