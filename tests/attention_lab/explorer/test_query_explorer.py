"""Tests for the live explorer (attention_lab.explorer.query_explorer.QueryExplorer).

Widgets are driven as ipywidgets' own tests do: by setting ``.value`` (and ``click()`` on
buttons), which runs the same observers a browser's messages would.
"""

from __future__ import annotations

import base64
import gc
import html
import re

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from attention_lab import attention, causal_mask, examples
from attention_lab.explorer.controls import CONTROLS, ExplorerControls
from attention_lab.explorer.figure import ExplorerFigure
from attention_lab.explorer.model import ExplorerModel, compute_state
from attention_lab.explorer.prediction_panel import PredictionPanel
from attention_lab.explorer.query_explorer import QueryExplorer
from attention_lab.explorer.readout import ExplorerReadout, readout_html
from attention_lab.explorer.screen import ExplorerScreen
from attention_lab.explorer.widget_parts import descendants

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _readout_numbers(explorer: QueryExplorer) -> dict[str, list[str]]:
    """The readout table's weight and score columns, and the output, as printed."""
    text = html.unescape(explorer.readout.value)
    rows = re.findall(
        r"<tr><th scope='row'>(.*?)</th><td>.*?</td><td>(.*?)</td><td>(.*?)</td>", text
    )
    output = re.search(r"<th scope='row'>output</th><td colspan='4'>\((.*?)\)", text).group(1)
    return {
        "tokens": [r[0] for r in rows],
        "scores": [r[1] for r in rows],
        "weights": [r[2] for r in rows],
        "output": output.split(", "),
    }


def _figures() -> int:
    """Figures alive after a full collection (twice: ipywidgets' __del__ resurrects briefly)."""
    gc.collect()
    gc.collect()
    return sum(isinstance(o, Figure) for o in gc.get_objects())


def _move(explorer: QueryExplorer, x: float, y: float) -> np.ndarray:
    explorer.query_sliders[0].value = x
    explorer.query_sliders[1].value = y
    return np.array([x, y])


# -- opening on the chapters' numbers ---------------------------------------------------------


def test_tiffin_opens_unscaled_on_the_chapters_weights(tiffin):
    assert tiffin.scale_checkbox.value is False
    assert tiffin.tokens[tiffin.token_dropdown.value] == "it"
    # The chapter's printed weights: tiffin 0.610, bag 0.083, it 0.225, big 0.083.
    assert [f"{w:.3f}" for w in tiffin.weights] == ["0.610", "0.083", "0.225", "0.083"]
    assert _readout_numbers(tiffin)["weights"] == ["0.610", "0.083", "0.225", "0.083"]


def test_the_explorer_is_a_box_composed_of_its_parts_not_of_mixins(tiffin):
    """Issue 30: each part is its own object; the explorer holds and wires them."""
    assert QueryExplorer.__bases__ == (widgets.VBox,)
    assert isinstance(tiffin.model, ExplorerModel)
    assert isinstance(tiffin.control_panel, ExplorerControls)
    assert isinstance(tiffin.live_figure, ExplorerFigure)
    assert isinstance(tiffin.prediction, PredictionPanel)
    assert isinstance(tiffin.text, ExplorerReadout)
    assert isinstance(tiffin.screen, ExplorerScreen) and tiffin.image is tiffin.screen.image
    # the names lessons use are the parts' own widgets, wired: a slider moves the model's query
    assert tiffin.query_sliders is tiffin.control_panel.query_sliders
    assert tiffin.readout is tiffin.text.table and tiffin.figure is tiffin.live_figure.figure
    assert tiffin.reveal_button is tiffin.prediction.reveal_button
    tiffin.query_sliders[0].value = 2.0
    assert tiffin.model.Q[tiffin.state.query_index, 0] == 2.0
    assert tiffin.readout.value == readout_html(
        tiffin.state, tiffin.tokens, tiffin.model.K, tiffin.model.V
    )


def test_isro_opens_scaled_on_the_query_chandrayaan(isro):
    ex = examples.ISRO
    assert isro.scale_checkbox.value is True
    assert [s.value for s in isro.query_sliders] == list(ex.query())
    out, w = attention(ex.query(), ex.K, ex.V, scale=True)
    np.testing.assert_array_equal(isro.weights, w)
    np.testing.assert_array_equal(isro.output, out)


# -- sliders ----------------------------------------------------------------------------------


def test_sliders_step_005_and_cover_the_chapters_vectors(isro):
    for slider in isro.query_sliders:
        assert slider.step == 0.05
        assert slider.min <= -2 and slider.max >= 2
        assert slider.continuous_update


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["isro", "tiffin"])
def test_moving_the_query_matches_attention_exactly(preset):
    explorer = getattr(QueryExplorer, preset)()
    ex = getattr(examples, preset.upper())
    try:
        q = _move(explorer, 0.35, -1.2)
        out, w = attention(q, ex.K, ex.V, scale=ex.scale)
        np.testing.assert_array_equal(explorer.weights, w)
        np.testing.assert_array_equal(explorer.output, out)
        printed = _readout_numbers(explorer)
        assert printed["weights"] == [f"{x:.3f}" for x in w]
        assert printed["output"] == [f"{x:.3f}" for x in out]
        scores = (q @ ex.K.T) / (np.sqrt(2) if ex.scale else 1)
        assert printed["scores"] == [f"{x:.3f}" for x in scores]
        np.testing.assert_array_equal(explorer.weight_matrix[ex.query_index], w)
    finally:
        explorer.close()


@pytest.mark.slow
def test_moving_the_query_changes_the_heatmap_image(tiffin):
    before = np.ma.getdata(tiffin.heatmap.image.get_array()).copy()
    png_before = tiffin.image.value
    _move(tiffin, -1.0, 2.0)
    after = np.ma.getdata(tiffin.heatmap.image.get_array())
    assert not np.array_equal(before[2], after[2])  # the query's row ("it") changed
    np.testing.assert_array_equal(before[[0, 1, 3]], after[[0, 1, 3]])  # the others did not
    assert tiffin.image.value != png_before
    assert bytes(tiffin.image.value).startswith(PNG_SIGNATURE)
    np.testing.assert_allclose([b.get_height() for b in tiffin.bars.bars], tiffin.weights)
    np.testing.assert_array_equal(tiffin.keys_panel.query, [-1.0, 2.0])
    np.testing.assert_array_equal(tiffin.values_panel.output, tiffin.output)


@pytest.mark.slow
def test_one_render_per_slider_change_and_one_for_a_batch(tiffin):
    count = tiffin.render_count
    tiffin.query_sliders[0].value = 0.5
    assert tiffin.render_count == count + 1
    with tiffin.batch_updates():
        tiffin.query_sliders[0].value = 0.25
        tiffin.query_sliders[1].value = 0.75
        tiffin.causal_checkbox.value = True
    assert tiffin.render_count == count + 2
    assert (
        tiffin.render_count
        == tiffin.live_figure.renderer.full_draws + tiffin.live_figure.renderer.blits
    )


@pytest.mark.slow
def test_dragging_only_blits(tiffin):
    full = tiffin.live_figure.renderer.full_draws
    for x in np.arange(-1, 1, 0.25):
        tiffin.query_sliders[0].value = float(x)
    assert tiffin.live_figure.renderer.full_draws == full  # the background was reused every time


# -- toggles ----------------------------------------------------------------------------------


def test_scale_toggle(tiffin):
    ex = examples.TIFFIN
    tiffin.scale_checkbox.value = True
    np.testing.assert_array_equal(tiffin.weights, attention(ex.query(), ex.K, ex.V)[1])
    assert "/ √2" in tiffin.readout.value
    tiffin.scale_checkbox.value = False
    np.testing.assert_array_equal(tiffin.weights, attention(ex.query(), ex.K, ex.V, scale=False)[1])


def test_the_heading_stays_true_when_the_scale_box_is_ticked(tiffin):
    """Issue 39: the heading said "(scores not scaled)" while the box had scaled them."""
    tiffin.scale_checkbox.value = True
    heading = html.unescape(re.sub(r"<[^>]+>", "", tiffin.title_html.value))
    assert "not scaled" not in heading and "the chapter does not scale the scores" in heading
    tiffin.scale_checkbox.value = False


@pytest.mark.slow
def test_causal_mask_gives_exact_zeros_above_the_diagonal(tiffin):
    tiffin.causal_checkbox.value = True
    upper = ~causal_mask(4)
    assert (tiffin.weight_matrix[upper] == 0.0).all()
    np.testing.assert_allclose(tiffin.weight_matrix.sum(axis=1), 1.0)
    # The heatmap draws those cells as masked, not as 0.00 weights.
    np.testing.assert_array_equal(np.ma.getmaskarray(tiffin.heatmap.image.get_array()), upper)
    assert tiffin.heatmap.texts[0, 3].get_text() == "masked"
    # "it" (index 2) may not see "big" (index 3); the readout says so.
    assert tiffin.weights[3] == 0.0
    assert "masked (−∞)" in tiffin.readout.value
    ex = examples.TIFFIN
    _, w = attention(ex.query(), ex.K, ex.V, mask=causal_mask(4)[2], scale=False)
    np.testing.assert_array_equal(tiffin.weights, w)


@pytest.mark.slow
def test_hard_mode_picks_the_value_of_the_best_key(isro):
    isro.mode_buttons.value = "hard"
    ex = examples.ISRO
    for q in ([1.0, 1.0], [2.0, -0.5], [-1.0, 2.5]):
        _move(isro, *q)
        best = int(np.argmax(np.array(q) @ ex.K.T))
        np.testing.assert_array_equal(isro.output, ex.V[best])
        assert isro.weights.tolist() == [float(j == best) for j in range(3)]


@pytest.mark.slow
def test_hard_mode_respects_the_causal_mask(tiffin):
    tiffin.mode_buttons.value = "hard"
    tiffin.causal_checkbox.value = True
    tiffin.token_dropdown.value = 0  # "tiffin" may only look at itself
    np.testing.assert_array_equal(tiffin.output, examples.TIFFIN.V[0])
    assert (tiffin.weight_matrix[~causal_mask(4)] == 0).all()


@pytest.mark.slow
def test_score_scale_is_an_inverse_temperature(tiffin):
    ex = examples.TIFFIN
    slider = tiffin.score_scale_slider
    assert "score scale β" in slider.description
    help_text = html.unescape(tiffin.score_scale_help.value)
    assert "inverse temperature" in help_text and "inverse temperature" in slider.tooltip
    assert "softmax(β·z)" in help_text and "sampling temperature" in help_text
    assert "tie" in help_text
    slider.value = 0.0
    np.testing.assert_allclose(tiffin.weights, 0.25)  # no preference at all
    slider.value = 2.0
    np.testing.assert_array_equal(
        tiffin.weights, attention(2.0 * ex.query(), ex.K, ex.V, scale=False)[1]
    )
    assert "β" in tiffin.readout.value
    assert tiffin.weights.max() > 0.61  # sharper than at β = 1


@pytest.mark.slow
def test_a_large_beta_shares_the_weight_between_tied_keys():
    # The help text's claim: tied best scores stay tied however large β is.
    explorer = QueryExplorer(["a", "b", "c"], [[1, 1]] * 3, [[1, 0], [0, 1], [0, 0]], [[1, 0]] * 3)
    try:
        explorer.token_dropdown.value = 0
        explorer.score_scale_slider.value = explorer.score_scale_slider.max  # β = 5
        assert explorer.weights[0] == explorer.weights[1]
        assert explorer.weights[0] == pytest.approx(0.5, abs=0.01)
    finally:
        explorer.close()


# -- progressive disclosure (controls=) --------------------------------------------------------


def _shown_widgets(explorer: QueryExplorer) -> set[int]:
    return {id(w) for w in descendants(explorer)}


def test_controls_default_shows_every_control(isro):
    assert isro.controls == CONTROLS
    shown = _shown_widgets(isro)
    for widget in (
        isro.token_dropdown, *isro.query_sliders, isro.scale_checkbox, isro.causal_checkbox,
        isro.mode_buttons, isro.score_scale_slider, isro.prediction_checkbox, isro.reset_button,
    ):  # fmt: skip
        assert id(widget) in shown


@pytest.mark.slow
def test_controls_shows_only_the_named_ones_through_the_presets():
    explorer = QueryExplorer.tiffin(controls=("query", "scale"))
    try:
        assert explorer.controls == ("query", "scale")
        shown = _shown_widgets(explorer)
        assert {id(s) for s in explorer.query_sliders} <= shown
        assert id(explorer.scale_checkbox) in shown
        for hidden in (
            explorer.token_dropdown, explorer.causal_checkbox, explorer.mode_buttons,
            explorer.score_scale_slider, explorer.score_scale_help, explorer.prediction_checkbox,
            explorer.reset_button,
        ):  # fmt: skip
            assert id(hidden) not in shown
        # What is shown still works: the sliders move the query.
        q = _move(explorer, 2.0, 0.0)
        ex = examples.TIFFIN
        np.testing.assert_array_equal(explorer.weights, attention(q, ex.K, ex.V, scale=False)[1])
    finally:
        explorer.close()


def test_hidden_controls_cannot_change_the_state():
    ex = examples.TIFFIN
    explorer = QueryExplorer.tiffin(controls=["scale"])
    try:
        opening = explorer.weights.copy()
        explorer.causal_checkbox.value = True
        explorer.mode_buttons.value = "hard"
        explorer.score_scale_slider.value = 4.0
        explorer.token_dropdown.value = 0
        _move(explorer, -2.0, 2.0)
        explorer.prediction_checkbox.value = True
        np.testing.assert_array_equal(explorer.weights, opening)
        np.testing.assert_array_equal(explorer.Q, ex.Q)
        assert explorer.state.mask is None and not explorer.state.hard
        assert explorer.state.beta == 1.0 and explorer.state.query_index == ex.query_index
        assert explorer.image.layout.display is None  # prediction mode stays off: nothing hidden
        np.testing.assert_array_equal(
            explorer.weights, attention(ex.query(), ex.K, ex.V, scale=False)[1]
        )
        # The one control shown still acts.
        explorer.scale_checkbox.value = True
        np.testing.assert_array_equal(explorer.weights, attention(ex.query(), ex.K, ex.V)[1])
    finally:
        explorer.close()


@pytest.mark.parametrize("controls", [("query", "temperature"), "sliders", ["Mask"]])
def test_unknown_controls_are_named_with_the_valid_ones(controls):
    with pytest.raises(ValueError, match="unknown explorer control") as error:
        QueryExplorer.isro(controls=controls)
    for name in CONTROLS:
        assert repr(name) in str(error.value)


# -- query token and reset --------------------------------------------------------------------


@pytest.mark.slow
def test_choosing_another_query_token_keeps_each_tokens_query(tiffin):
    ex = examples.TIFFIN
    _move(tiffin, 0.5, -0.5)
    tiffin.token_dropdown.value = 0  # "tiffin"
    assert [s.value for s in tiffin.query_sliders] == list(ex.Q[0])
    np.testing.assert_array_equal(tiffin.weights, attention(ex.Q[0], ex.K, ex.V, scale=False)[1])
    assert tiffin.heatmap.row_outline.get_y() == -0.5
    np.testing.assert_array_equal(tiffin.Q[2], [0.5, -0.5])  # "it" keeps its moved query
    tiffin.token_dropdown.value = 2
    assert [s.value for s in tiffin.query_sliders] == [0.5, -0.5]


@pytest.mark.slow
def test_reset_restores_the_chapters_numbers_in_one_render(tiffin):
    _move(tiffin, -2.0, 3.0)
    tiffin.token_dropdown.value = 1
    _move(tiffin, 1.0, 1.0)
    tiffin.causal_checkbox.value = True
    tiffin.mode_buttons.value = "hard"
    tiffin.score_scale_slider.value = 3.0
    count = tiffin.render_count
    tiffin.reset_button.click()
    assert tiffin.render_count == count + 1
    ex = examples.TIFFIN
    np.testing.assert_array_equal(tiffin.Q, ex.Q)
    assert tiffin.token_dropdown.value == ex.query_index
    assert [s.value for s in tiffin.query_sliders] == list(ex.query())
    assert not tiffin.causal_checkbox.value and tiffin.mode_buttons.value == "soft"
    assert tiffin.score_scale_slider.value == 1.0
    np.testing.assert_array_equal(tiffin.weights, attention(ex.query(), ex.K, ex.V, scale=False)[1])


# -- prediction mode --------------------------------------------------------------------------


def test_prediction_mode_hides_the_weights_until_reveal(tiffin):
    tiffin.prediction_checkbox.value = True
    assert tiffin.image.layout.display == "none"
    assert tiffin.readout.layout.display == "none"
    guesses = [0.5, 0.2, 0.2, 0.1]
    for box, g in zip(tiffin.prediction_inputs, guesses, strict=True):
        box.value = g
    tiffin.reveal_button.click()
    assert tiffin.image.layout.display is None and tiffin.readout.layout.display is None
    feedback = html.unescape(tiffin.prediction_feedback.value)
    errors = np.array(guesses) - tiffin.weights
    worst = tiffin.tokens[int(np.argmax(np.abs(errors)))]
    assert f"Largest miss: “{worst}”" in feedback
    assert f"{np.mean(np.abs(errors)):.3f}" in feedback
    # A new situation hides the weights again: guess first.
    tiffin.query_sliders[0].value = 2.0
    assert tiffin.image.layout.display == "none"
    tiffin.prediction_checkbox.value = False
    assert tiffin.image.layout.display is None


def test_prediction_feedback_notices_guesses_that_do_not_sum_to_one(isro):
    isro.prediction_checkbox.value = True
    for box in isro.prediction_inputs:
        box.value = 0.5
    errors = isro.reveal()
    np.testing.assert_array_equal(errors, 0.5 - isro.weights)
    assert "add up to 1.500" in isro.prediction_feedback.value


# -- display, accessibility, lifetime --------------------------------------------------------


def test_mimebundle_has_the_widget_and_static_fallbacks(isro):
    bundle = isro._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == isro.model_id
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_SIGNATURE)
    assert "0.503" in bundle["text/plain"]
    assert set(isro._repr_mimebundle_(include={"image/png"})) == {"image/png"}


def test_static_html_shows_the_figure_with_its_alt_text_and_the_readout(isro):
    # nbconvert prefers text/html: a static page gets the picture, its words and the table.
    page = isro._repr_mimebundle_()["text/html"]
    alt = re.search(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)"', page)
    assert base64.b64decode(alt[1]).startswith(PNG_SIGNATURE)
    assert html.unescape(alt[2]) == isro.image.tooltip and "0.503" in alt[2]
    assert 'class="attention-explorer-readout"' in page and isro.readout.value in page


def test_static_html_in_prediction_mode_gives_no_weight_away(isro):
    isro.prediction_checkbox.value = True
    assert "0.503" not in isro.image.tooltip and "hidden" in isro.image.tooltip
    bundle = isro._repr_mimebundle_()
    page = bundle["text/html"]
    assert "0.503" not in page and "hidden" in page
    # Nor the PNG or text fallbacks: the picture only says that the weights are hidden.
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG_SIGNATURE) and png != isro.to_png()
    assert page.count("<img") == 1 and base64.b64encode(png).decode() in page
    assert "0.503" not in bundle["text/plain"] and "hidden" in bundle["text/plain"]


def test_every_control_is_labelled_and_classes_are_stable(isro):
    assert "attention-explorer" in isro._dom_classes
    assert "attention-explorer-figure" in isro.image._dom_classes
    assert "attention-explorer-readout" in isro.readout._dom_classes
    controls = [
        w
        for w in descendants(isro)
        if isinstance(w, widgets.ValueWidget | widgets.Button)
        and not isinstance(w, widgets.HTML | widgets.Image)
    ]
    assert len(controls) >= 10
    for control in controls:
        assert control.description.strip(), f"{type(control).__name__} has no label"
    assert isro.image.tooltip.startswith("Attention heatmap")  # the image's accessible name


@pytest.mark.slow
def test_no_figure_leaks_after_100_updates(tiffin):
    figures_before = _figures()
    pyplot_before = plt.get_fignums()
    rng = np.random.default_rng(0)
    for i in range(100):
        tiffin.query_sliders[i % 2].value = float(np.round(rng.uniform(-3, 3) / 0.05) * 0.05)
        if i % 25 == 0:
            tiffin.causal_checkbox.value = not tiffin.causal_checkbox.value
    assert _figures() == figures_before
    assert plt.get_fignums() == pyplot_before
    assert tiffin.figure is tiffin.heatmap.figure


@pytest.mark.slow
def test_closing_explorers_frees_their_figures():
    before = _figures()
    for _ in range(3):
        QueryExplorer.isro().close()
    assert _figures() == before


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"Q": np.ones((3, 3))}, ValueError, r"shape \(n_tokens, 2\)"),
        ({"V": np.ones((2, 2))}, ValueError, "V has 2 rows but there are 3 tokens"),
        ({"tokens": "abc"}, TypeError, "list of strings"),
        ({"query_index": 5}, ValueError, "query_index"),
        ({"K": [[1, 0], [0, "x"], [1, 1]]}, TypeError, "numbers"),
        ({"K": [[1, 0], [0, np.nan], [1, 1]]}, ValueError, "K contains NaN"),
        ({"V": [[1, 0], [0, np.inf], [1, 1]]}, ValueError, "V contains infinity"),
        ({"Q": [1, 0]}, ValueError, r"shape \(n_tokens, 2\)"),
    ],
)
def test_bad_input_is_explained(kwargs, error, match):
    ex = examples.ISRO
    args = {"tokens": ex.tokens, "Q": ex.Q, "K": ex.K, "V": ex.V} | kwargs
    with pytest.raises(error, match=match):
        QueryExplorer(**args)


def test_compute_state_row_equals_a_single_query_call():
    rng = np.random.default_rng(3)
    Q, K, V = (rng.normal(size=(6, 2)) for _ in range(3))
    state = compute_state(Q, K, V, query_index=4, scale=True, causal=True, beta=1.5)
    out, w = attention(1.5 * Q[4], K, V, mask=causal_mask(6)[4], scale=True)
    np.testing.assert_array_equal(state.weights, w)
    np.testing.assert_array_equal(state.output, out)
    np.testing.assert_allclose(state.weight_matrix, attention(1.5 * Q, K, V, causal_mask(6))[1])


# -- headless execution (what `make html` and the lesson tests do) ------------------------------


@pytest.mark.slow
def test_runs_headless_under_nbclient_and_leaves_a_static_png(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from attention_lab import QueryExplorer\nex = QueryExplorer.isro()\nex"
        ),
        nbformat.v4.new_code_cell(
            "ex.query_sliders[0].value = 0.0\nex.query_sliders[1].value = 1.0\n"
            "print(ex.weights.round(3).tolist())"
        ),
    ]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    display = nb.cells[0].outputs[0]
    assert display["output_type"] == "execute_result"
    assert {"application/vnd.jupyter.widget-view+json", "image/png", "text/plain"} <= set(
        display["data"]
    )
    assert base64.b64decode(display["data"]["image/png"]).startswith(PNG_SIGNATURE)
    ex = examples.ISRO
    expected = attention([0.0, 1.0], ex.K, ex.V)[1].round(3).tolist()
    assert nb.cells[1].outputs[0]["text"].strip() == str(expected)


@pytest.mark.slow
def test_docstring_examples_hold():
    import doctest

    import attention_lab.explorer.query_explorer

    assert doctest.testmod(attention_lab.explorer.query_explorer).failed == 0


def test_the_hidden_weights_picture_is_not_clipped():
    """Issue 29: the static site's prediction explorer was a picture of clipped text."""
    import io

    import matplotlib.image as mpimg

    from attention_lab.explorer.prediction_panel import HIDDEN
    from attention_lab.explorer.widget_parts import hidden_png

    pixels = mpimg.imread(io.BytesIO(hidden_png(HIDDEN)))[..., :3]
    for edge in (pixels[:, :4], pixels[:, -4:], pixels[:4], pixels[-4:]):
        assert edge.min() > 0.99  # only background at the edges: no letter cut off
    assert pixels.min() < 0.5  # and the message is drawn


def test_an_explorer_can_start_away_from_the_chapters_query():
    """Lesson 1 opens "it" at (2, 1): the chapter's (1, 1) is lesson 2's prediction (X4)."""
    explorer = QueryExplorer.tiffin(controls=("query", "reset"), start_query=(2, 1))
    try:
        assert explorer.query.tolist() == [2.0, 1.0]
        tiffin = examples.TIFFIN
        _, expected = attention(np.array([2.0, 1.0]), tiffin.K, tiffin.V, scale=False)
        np.testing.assert_allclose(explorer.weights, expected)
        explorer.query_sliders[0].value = 1.0
        explorer.reset_button.click()
        assert explorer.query.tolist() == [2.0, 1.0]  # reset returns to the start, not (1, 1)
        assert tiffin.Q[tiffin.query_index].tolist() == [1, 1]  # the example is untouched
    finally:
        explorer.close()
    for bad in ((1, 2, 3), "up", (1, float("nan"))):
        with pytest.raises(ValueError, match="start_query must be 2 finite numbers"):
            QueryExplorer.tiffin(start_query=bad)
