"""attention_lab.explorer.projection_widget: two sliders edit W_Q; queries and heatmap follow, by blitting."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_lab._render import BlitRenderer
from attention_lab.explorer.projection_widget import ProjectionFigure, ProjectionSliders
from attention_lab.live_figure import LiveFigure
from attention_lab.projections import (
    LESSON_W_K,
    projected_attention,
    rotation_stretch,
    tiffin_embeddings,
)


@pytest.fixture
def widget():
    w = ProjectionSliders()
    yield w
    w.close()


def _readout_weights(text: str) -> np.ndarray:
    rows = text.split("Weights (row = the word asking): ", 1)[1].rstrip(".").split("; ")
    return np.array([[float(x) for x in re.findall(r"\d\.\d{3}", row)] for row in rows])


def test_starts_at_the_identity_with_the_chapters_vectors(widget):
    assert widget.angle_slider.value == 0 and widget.stretch_slider.value == 1
    head = widget.live.result
    assert np.allclose(head.Q, tiffin_embeddings())
    assert "W_Q at 0°, stretch 1.00 = [1.000, 0.000; 0.000, 1.000]" in widget.text


@pytest.mark.parametrize(("angle", "stretch"), [(30.0, 1.0), (-120.0, 0.5), (90.0, 1.5)])
def test_readout_and_figure_match_projected_attention(widget, angle, stretch):
    with widget.hold_trait_notifications():
        widget.angle_slider.value = angle
        widget.stretch_slider.value = stretch
    W_Q = rotation_stretch(angle, stretch)
    expected = projected_attention(tiffin_embeddings(), W_Q, LESSON_W_K, np.eye(2))
    assert np.allclose(widget.live.heatmap.weights, expected.weights)
    assert np.allclose(_readout_weights(widget.text), expected.weights, atol=6e-4)
    for arrow, q in zip(widget.live.query_arrows, expected.Q, strict=True):
        assert np.allclose(arrow._posA_posB[1], q)
    assert widget.readout.value.startswith("<p>W_Q at")


def test_every_step_is_a_new_picture_made_by_blitting(widget):
    assert isinstance(widget.live, LiveFigure)
    full, count = widget.live.renderer.full_draws, widget.render_count
    pictures = set()
    for angle in (10.0, 11.0, 45.0):
        widget.angle_slider.value = angle
        pictures.add(bytes(widget.image.value))
    widget.stretch_slider.value = 0.5
    pictures.add(bytes(widget.image.value))
    assert widget.render_count == count + 4 and len(pictures) == 4
    assert widget.live.renderer.full_draws == full


@pytest.mark.slow
def test_blitted_picture_matches_a_fresh_drawing(widget):
    widget.angle_slider.value = 70.0
    fresh = ProjectionFigure(widget.live.tokens, tiffin_embeddings(), LESSON_W_K, (70.0, 1.0),
                             max_stretch=1.5)  # fmt: skip
    fresh.render((70.0, 1.0))
    fresh.renderer.invalidate()
    assert bytes(widget.image.value) == BlitRenderer.render(fresh.renderer)


def test_static_fallback_has_the_picture_and_the_readout_as_alt_text(widget):
    bundle = widget._repr_mimebundle_()
    assert bundle["image/png"] and bundle["text/plain"] == widget.text
    assert 'alt="W_Q at 0°' in bundle["text/html"]


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="stretch must be between"):
        ProjectionSliders(stretch=5.0)
    with pytest.raises(ValueError, match="one 2-D vector per token"):
        ProjectionSliders(tokens=("a", "b"), X=np.ones((3, 2)))


def test_readout_has_a_table_of_every_weight(widget):
    widget.angle_slider.value = 40.0
    page = widget.readout.value
    assert page.startswith("<p>W_Q at 40°") and "<caption>" in page
    cells = [float(x) for x in re.findall(r"<td>(\d\.\d{3})</td>", page)]
    assert np.allclose(np.reshape(cells, (4, 4)), widget.live.result.weights, atol=6e-4)
    assert page.count("<th scope='row'>") == 4
