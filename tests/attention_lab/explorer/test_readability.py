"""The explorer's bugs and readability (issue 17, items 2 and 3), one test per promise.

Driven as a browser would (``.value`` and ``click()``); pixel promises are checked on the
figure's own layout (every text's window extent after a render).
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from matplotlib.text import Text

from attention_lab import attention, examples
from attention_lab.explorer.controls import UNITS_PER_PIXEL
from attention_lab.explorer.query_explorer import QueryExplorer
from attention_lab.live_figure import LiveFigure


def _visible_texts(explorer: QueryExplorer) -> list[Text]:
    fig = explorer.figure
    return [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_figure(root=True) is fig
    ]


def _extent(text: Text):
    return text.get_window_extent(renderer=text.get_figure(root=True).canvas.get_renderer())


# -- item 3: bugs ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_guesses_table_clears_when_the_query_moves(tiffin):
    tiffin.prediction_checkbox.value = True
    tiffin.reveal_button.click()
    assert "Your guesses against the real weights" in tiffin.prediction_feedback.value
    tiffin.query_sliders[0].value = 2.0
    # The old table compared the guesses with the previous query's weights: it must go, and
    # the new weights stay hidden until the next reveal.
    assert tiffin.prediction_feedback.value == ""
    assert tiffin.image.layout.display == "none" and tiffin.readout.layout.display == "none"
    tiffin.reveal_button.click()
    feedback = html.unescape(tiffin.prediction_feedback.value)
    assert f"<td>{tiffin.weights[0]:.3f}</td>" in feedback


@pytest.mark.slow
def test_no_button_label_is_cut(tiffin):
    # A fixed-width button showed "reveal the wei…": every button sizes to its label.
    for button in (tiffin.reveal_button, tiffin.reset_button):
        assert button.layout.width == "auto", button.description


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["isro", "tiffin"])
@pytest.mark.parametrize("query", [None, (3.0, 3.0), (-3.0, -3.0), (3.0, -3.0), (0.0, 0.0)])
@pytest.mark.parametrize("mode", ["soft", "hard"])
def test_vector_labels_stay_inside_their_panels_and_never_overlap(preset, query, mode):
    # Hard mode puts the output on a value: ISRO's merged "output = v Chandrayaan" is wider
    # than its panel and ran out of it on one line.
    explorer = getattr(QueryExplorer, preset)()
    try:
        with explorer.batch_updates():
            explorer.mode_buttons.value = mode
            if query is not None:
                explorer.query_sliders[0].value, explorer.query_sliders[1].value = query
        for panel in (explorer.keys_panel, explorer.values_panel):
            box = panel.ax.get_window_extent()
            labels = [t for t in panel.ax.texts if t.get_visible() and t.get_text()]
            extents = [_extent(t) for t in labels]
            for text, ext in zip(labels, extents, strict=True):
                assert ext.x0 >= box.x0 - 1 and ext.x1 <= box.x1 + 1, text.get_text()
                assert ext.y0 >= box.y0 - 1 and ext.y1 <= box.y1 + 1, text.get_text()
            for i in range(len(labels)):
                for j in range(i + 1, len(labels)):
                    overlap = extents[i].overlaps(extents[j])
                    assert not overlap, (labels[i].get_text(), labels[j].get_text())
    finally:
        explorer.close()


@pytest.mark.slow
def test_reset_returns_to_the_state_the_lesson_showed(tiffin):
    # Lesson 4 ticks the causal mask, then displays the explorer.
    tiffin.causal_checkbox.value = True
    tiffin._repr_mimebundle_()  # what IPython's display() calls
    start = tiffin.weights.copy()
    tiffin.causal_checkbox.value = False
    tiffin.mode_buttons.value = "hard"
    tiffin.query_sliders[0].value = -2.0
    tiffin.reset_button.click()
    assert tiffin.causal_checkbox.value and tiffin.mode_buttons.value == "soft"
    np.testing.assert_array_equal(tiffin.weights, start)
    np.testing.assert_array_equal(tiffin.Q, examples.TIFFIN.Q)
    tiffin._repr_mimebundle_()  # a second display does not move the start
    tiffin.causal_checkbox.value = False
    tiffin.reset_button.click()
    assert tiffin.causal_checkbox.value


@pytest.mark.slow
def test_masked_keys_are_drawn_as_masked_not_as_tall_bars(tiffin):
    tiffin.causal_checkbox.value = True
    tiffin.token_dropdown.value = 1  # "bag" sees "tiffin" and itself; "it", "big" are masked
    bars, texts = tiffin.bars.bars, tiffin.bars.texts
    for j in (2, 3):
        assert not bars[j].get_visible() and bars[j].get_height() == 0.0
        assert texts[j].get_text() == "masked" and texts[j].get_position()[1] < 0.05
    assert all(bars[j].get_visible() for j in (0, 1))
    assert tiffin.heatmap.texts[1, 3].get_text() == "masked"


@pytest.mark.slow
def test_hard_mode_with_tied_scores_says_so_in_the_figure_and_readout(isro):
    isro.mode_buttons.value = "hard"
    isro.token_dropdown.value = 0  # "ISRO": q = (1, 0) scores ISRO and Chandrayaan alike
    np.testing.assert_array_equal(isro.state.tied, [0, 2])
    assert "TIE" in isro.bars.ax.get_title() and "Chandrayaan" in isro.bars.ax.get_title()
    readout = html.unescape(isro.readout.value)
    assert "Tie: ISRO, Chandrayaan have the same best score" in readout
    assert "1.000 (tie)" in readout and "0.000 (tie)" in readout
    assert "Tie" in isro.image.tooltip
    assert "tie" in isro.heatmap.texts[0, 0].get_text()
    assert "tie" in isro.heatmap.texts[0, 2].get_text()
    assert "tie" not in isro.heatmap.texts[2, 2].get_text()  # Chandrayaan's row has a winner
    isro.token_dropdown.value = 2  # no tie for Chandrayaan: nothing said
    assert "TIE" not in isro.bars.ax.get_title() and "Tie" not in isro.readout.value
    isro.mode_buttons.value = "soft"  # soft attention shares ties: no note either
    isro.token_dropdown.value = 0
    assert "TIE" not in isro.bars.ax.get_title()


def test_heatmap_bars_and_readout_round_alike_and_as_the_chapter(tiffin):
    # Chapter A: "it" gives 22.5 % to itself; its exact weight is 0.2245.
    weight = attention(examples.TIFFIN.query(), examples.TIFFIN.K, examples.TIFFIN.V, scale=False)
    assert round(weight[1][2], 4) == 0.2245
    readout = html.unescape(tiffin.readout.value)
    row = re.search(r"<th scope='row'>it</th><td>.*?</td><td>.*?</td><td>(.*?)</td>", readout)
    assert row.group(1) == "0.225"
    assert tiffin.heatmap.texts[2, 2].get_text() == "0.225"
    assert tiffin.bars.texts[2].get_text() == "0.225"
    assert "it 0.225" in tiffin.image.tooltip


# -- item 2: readability ----------------------------------------------------------------------


def test_a_query_on_a_key_gets_one_merged_label(isro):
    keys = isro.keys_panel
    assert keys.query_label.get_text() == "q = k Chandrayaan"  # the chapter's q equals that key
    hidden = [t.get_text() for t in keys.key_labels if not t.get_visible()]
    assert hidden == ["k Chandrayaan"]
    isro.query_sliders[0].value = -2.0
    assert keys.query_label.get_text() == "q"
    assert all(t.get_visible() for t in keys.key_labels)


@pytest.mark.slow
def test_a_query_near_a_key_is_not_labelled_equal_to_it(tiffin):
    """Issue 29: "q = k it" stayed at q = (0.95, 1.0); a label says "=" only when it is."""
    keys = tiffin.keys_panel
    it = 2  # keys: tiffin, bag, it, big; "it" is the selected query token
    k_it = keys.keys[it]
    tiffin.query_sliders[0].value, tiffin.query_sliders[1].value = k_it[0], k_it[1]
    assert keys.query_label.get_text() == "q = k it"
    tiffin.query_sliders[0].value = k_it[0] - 0.05
    assert keys.query_label.get_text() == "q"
    assert all(t.get_visible() for t in keys.key_labels)
    assert keys.key_overlays[it].get_visible()  # the key under the query arrow still shows


@pytest.mark.slow
def test_hard_output_on_a_value_gets_one_merged_label(isro):
    isro.mode_buttons.value = "hard"
    label = isro.values_panel.output_label.get_text()
    assert label.replace("\n", " ") == "output = v Chandrayaan"  # on two lines if too wide


@pytest.mark.slow
def test_keys_and_values_are_drawn_in_separate_panels(isro):
    keys, values = isro.keys_panel, isro.values_panel
    assert keys.ax is not values.ax
    assert all(t.get_text().startswith(("k ", "q")) for t in keys.ax.texts)
    assert all(t.get_text().startswith(("v ", "output")) for t in values.ax.texts)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["isro", "tiffin"])
def test_every_label_of_the_figure_is_at_least_10_pt(preset):
    explorer = getattr(QueryExplorer, preset)()
    try:
        small = [(t.get_text(), t.get_fontsize()) for t in _visible_texts(explorer)]
        assert [s for s in small if s[1] < 10] == []
    finally:
        explorer.close()


@pytest.mark.slow
def test_a_pixel_of_slider_moves_at_most_002_units(isro):
    for slider in isro.query_sliders:
        width = int(slider.layout.width.removesuffix("px"))
        track = width - 8 * len(slider.description) - 90
        assert (slider.max - slider.min) / track <= UNITS_PER_PIXEL


# -- item 1: one render path --------------------------------------------------------------------


@pytest.mark.slow
def test_the_explorer_renders_through_the_live_figure_path(tiffin):
    assert isinstance(tiffin.live_figure, LiveFigure)
    full = tiffin.live_figure.renderer.full_draws
    for x in np.arange(-1, 1, 0.25):
        tiffin.query_sliders[0].value = float(x)
    assert tiffin.live_figure.renderer.full_draws == full


@pytest.mark.slow
def test_a_key_equal_to_the_query_is_drawn_over_it(isro):
    keys = isro.keys_panel
    # Chandrayaan's key (1, 1) equals the chapter's query: its copy is drawn after the query.
    assert [a.get_visible() for a in keys.key_overlays] == [False, False, True]
    order = isro.live_figure.dynamic_artists()
    assert order.index(keys.key_overlays[2]) > order.index(keys.query_arrow)
    isro.query_sliders[0].value = -2.0
    assert not any(a.get_visible() for a in keys.key_overlays)
    assert all(a.get_visible() for a in keys.key_arrows)  # the keys themselves never go


def _assert_labels_clear_of(labels: list[Text], points) -> None:
    """No visible label's box holds one of ``points`` (pixels)."""
    for label in labels:
        if not label.get_visible():
            continue
        box = _extent(label)
        inside = [p for p in points if box.x0 < p[0] < box.x1 and box.y0 < p[1] < box.y1]
        assert not inside, (label.get_text(), inside[:3])


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["isro", "tiffin"])
def test_key_labels_are_not_drawn_on_the_arrows(preset):
    # tiffin's "k tiffin" sat on the query arrow and "k it" under the key arrows, half hidden.
    explorer = getattr(QueryExplorer, preset)()
    try:
        keys = explorer.keys_panel
        tips = [explorer.query, *explorer.model.K]
        to_px = keys.ax.transData.transform
        shafts = [to_px(t * np.asarray(tip)) for tip in tips for t in np.linspace(0, 0.9, 19)]
        _assert_labels_clear_of([keys.query_label, *keys.key_labels], shafts)
    finally:
        explorer.close()


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["isro", "tiffin"])
@pytest.mark.parametrize("query", [None, (3.0, 3.0), (-3.0, -3.0), (3.0, -3.0), (-2.0, 2.0)])
def test_value_labels_are_not_drawn_on_the_blend_lines(preset, query):
    # tiffin's dotted blend line from the output to "v it" crossed that label (issue 39).
    explorer = getattr(QueryExplorer, preset)()
    try:
        if query is not None:
            with explorer.batch_updates():
                explorer.query_sliders[0].value, explorer.query_sliders[1].value = query
        values = explorer.values_panel
        to_px = values.ax.transData.transform
        out = values.output
        lines = [
            to_px(out + t * (np.asarray(v) - out))
            for v in values.values
            for t in np.linspace(0.1, 0.9, 17)
        ]
        _assert_labels_clear_of([values.output_label, *values.value_labels], lines)
    finally:
        explorer.close()
