"""attention_lab.explorer.generation_widgets: the temperature slider and the live loss curve."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.explorer.generation_figures import plot_attention_map
from attention_lab.explorer.generation_widgets import LiveTraining, TemperatureSlider, train_live
from attention_lab.live_figure import LiveFigure
from attention_lab.transformer.generation import softmax_with_temperature
from attention_lab.transformer.tiny_model import init_model

PROMPT = "how i wonder"


@pytest.fixture
def slider():
    model = init_model(seed=0)
    w = TemperatureSlider(model, PROMPT, temperature=1.0)
    yield w
    w.close()


def test_bars_are_the_probabilities_at_the_sliders_temperature(slider):
    model = init_model(seed=0)
    logits = model.logits(model.vocab.encode(PROMPT))[-1]
    for t in (0.3, 1.0, 2.5):
        slider.slider.value = t
        heights = [path.vertices[2, 1] for path in slider.live.bars.get_paths()]
        assert np.allclose(heights, softmax_with_temperature(logits, t))
        assert slider.text.startswith(f"T = {t:.2f} (β = {1 / t:.2f})")


def test_every_temperature_step_is_a_blit_on_the_one_render_path(slider):
    assert isinstance(slider.live, LiveFigure)
    full = slider.live.renderer.full_draws
    pictures = set()
    for t in (0.5, 0.55, 2.0):
        slider.slider.value = t
        pictures.add(bytes(slider.image.value))
    assert len(pictures) == 3 and slider.live.renderer.full_draws == full
    bundle = slider._repr_mimebundle_()
    assert "image/png" in bundle and bundle["text/plain"] == slider.text


def test_the_slider_wants_a_model():
    with pytest.raises(TypeError, match="TinyModel"):
        TemperatureSlider("model", PROMPT)


def test_the_live_curve_is_redrawn_during_training_and_shows_the_whole_run(monkeypatch):
    shown = []
    monkeypatch.setattr(LiveTraining, "show", lambda self: shown.append(len(self.losses)))
    model = init_model(seed=0, d_model=8, h=2, d_ff=8, context=8)
    run = train_live(model, steps=6, every=2, batch=2)
    assert shown == [0, 2, 4, 6] and len(run.losses) == 6


def test_the_loss_curve_widget_draws_every_loss_so_far():
    view = LiveTraining(steps=5, top=4.0)
    view.losses.extend([3.0, 2.0, 1.5])
    view.show()
    assert np.array_equal(view.live.line.get_ydata(), [3.0, 2.0, 1.5])
    assert view.text == "Loss curve: step 3, loss 1.500 (step 1: 3.000)."
    assert view._repr_mimebundle_()["image/png"]


def test_the_attention_map_hatches_the_future():
    weights = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    fig = plot_attention_map(weights, "ab c", "head 1")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["a", "b", "␣", "c"]
    assert "head 1" in fig.axes[0].get_title()
