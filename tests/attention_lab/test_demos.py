"""Lesson helpers (attention_lab.demos): the names lessons reach through it, accessible figures,
static-fallback widgets (chapter checks: tests/attention_lab/checks/test_chapter.py).
"""

import base64
import html

import numpy as np
import pytest
from matplotlib.figure import Figure

from attention_lab import attention, causal_mask, demos, experiments
from attention_lab.examples import ISRO, TIFFIN

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# --- the lessons' one entry point ---------------------------------------------------------------


def test_lessons_reach_every_helper_through_demos():
    """The notebooks call ``demos.check``, ``demos.RotationFigure``, ``demos.QueryRotation``...:
    each is the object of the module that owns it, not a copy.
    """
    from attention_lab.checks import chapter as chapter_checks
    from attention_lab.explorer import slider_figures, slider_widgets
    from attention_lab.plots import lines

    for name in ("ChapterCheck", "ChapterTable", "check", "checks"):
        assert getattr(demos, name) is getattr(chapter_checks, name)
    for name in ("HardSoftFigure", "RotationFigure", "plot_hard_vs_soft", "plot_query_rotation"):
        assert getattr(demos, name) is getattr(slider_figures, name)
    for name in ("QueryRotation", "HardSoftSlider"):
        assert getattr(demos, name) is getattr(slider_widgets, name)
    assert demos.OKABE_ITO is lines.OKABE_ITO
    assert all(hasattr(demos, name) for name in demos.__all__)


# --- figures: titled, labelled, never colour alone -------------------------------------------------


def _figures():
    sweep = experiments.hard_vs_soft_sweep(ISRO.K, ISRO.V, n_points=31)
    return {
        "bottleneck": demos.plot_bottleneck(experiments.bottleneck_recall([5, 20], n_trials=3)),
        "variance": demos.plot_score_variance(experiments.score_variance([2, 8], n_samples=50)),
        "saturation": demos.plot_saturation(experiments.softmax_saturation([2, 8], n_trials=20)),
        "hard_soft": demos.plot_hard_vs_soft(sweep, at_deg=45),
        "rotation": demos.plot_query_rotation(TIFFIN, 45),
        "alignment": demos.plot_alignment(experiments.cross_attention_alignment()),
        "mask": demos.plot_mask_comparison(
            attention(ISRO.Q, ISRO.K, ISRO.V)[1],
            attention(ISRO.Q, ISRO.K, ISRO.V, mask=causal_mask(3))[1],
            causal_mask(3),
            ISRO.tokens,
        ),
    }


@pytest.fixture(scope="module")
def figures():
    return _figures()


@pytest.mark.slow
def test_every_figure_is_titled_with_labelled_axes(figures):
    for name, fig in figures.items():
        assert isinstance(fig, Figure), name
        axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
        for ax in axes:
            assert ax.get_title() or fig.get_suptitle(), f"{name}: untitled axes"
            assert ax.get_xlabel() and ax.get_ylabel(), f"{name}: unlabelled axis"


def test_lines_differ_by_marker_or_style_not_colour_alone(figures):
    for name in ("bottleneck", "variance", "saturation", "hard_soft"):
        for ax in figures[name].axes:
            labelled = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
            styles = [(ln.get_marker(), ln.get_linestyle()) for ln in labelled]
            assert len(set(styles)) == len(styles), f"{name}: two lines differ only in colour"


def test_bottleneck_title_names_the_toy_not_the_papers_bleu(figures):
    # The toy's recall is not a BLEU score: the paper's numbers are quoted in the lesson's text.
    title = figures["bottleneck"].axes[0].get_title()
    assert "Toy" in title and "128 numbers" in title
    assert "BLEU" not in title and "17.82" not in title and "26.75" not in title


def test_hard_vs_soft_rejects_bad_component():
    sweep = experiments.hard_vs_soft_sweep(ISRO.K, ISRO.V, n_points=5)
    with pytest.raises(ValueError, match="component"):
        demos.plot_hard_vs_soft(sweep, component=2)


# --- widgets with a static fallback --------------------------------------------------------------


def _png(bundle):
    return base64.b64decode(bundle["image/png"])


@pytest.mark.slow
def test_query_rotation_default_state_and_static_fallback():
    w = demos.QueryRotation(TIFFIN)
    bundle = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert _png(bundle).startswith(PNG_MAGIC)
    # At 45 degrees the query is the chapter's (1, 1): chapter A's weights in the readout.
    assert "weights tiffin 0.610, bag 0.083, it 0.225, big 0.083" in bundle["text/plain"]
    assert "scores tiffin 3.000, bag 1.000, it 2.000, big 1.000" in bundle["text/plain"]


@pytest.mark.slow
def test_query_rotation_slider_redraws_and_rewrites_the_readout():
    w = demos.QueryRotation(ISRO)
    before_png, before_text = w.image.value, w.text
    w.slider.value = 90.0  # query (0, sqrt 2): "launched" ties the long "Chandrayaan"
    assert w.image.value != before_png and w.text != before_text
    assert "launched and Chandrayaan share the largest weight" in w.text
    w.slider.value = 100.0
    assert "the largest weight goes to launched" in w.text
    assert w.readout.value == f"<p>{w.text}</p>" and w.image.tooltip == w.text


@pytest.mark.slow
def test_static_html_has_the_picture_its_alt_text_and_the_readout():
    w = demos.QueryRotation(TIFFIN)
    page = w._repr_mimebundle_()["text/html"]
    assert f'alt="{html.escape(w.text)}"' in page and w.readout.value in page
    assert page.count('src="data:image/png;base64,') == 1


@pytest.mark.slow
def test_widget_bundle_respects_include_and_exclude():
    w = demos.QueryRotation(ISRO)
    assert set(w._repr_mimebundle_(include=["image/png"])) == {"image/png"}
    assert "image/png" not in w._repr_mimebundle_(exclude=["image/png"])


@pytest.mark.slow
def test_hard_soft_slider_reads_out_both_outputs():
    w = demos.HardSoftSlider(ISRO, angle_deg=45)
    bundle = w._repr_mimebundle_()
    assert _png(bundle).startswith(PNG_MAGIC)
    soft, _ = attention([np.sqrt(2), np.sqrt(2)], ISRO.K, ISRO.V)
    assert "hard output [0.000, 4.000]" in w.text
    assert f"soft output [{soft[0]:.3f}, {soft[1]:.3f}]" in w.text
    w.slider.value = -30.0  # only ISRO's key has a positive score: the hard pick is v1
    assert "hard output [1.000, 2.000]" in w.text


@pytest.mark.parametrize("cls", [demos.QueryRotation, demos.HardSoftSlider])
def test_widgets_reject_a_non_example(cls):
    with pytest.raises(TypeError, match="WorkedExample"):
        cls("ISRO")


# --- one fast render path (issue 17) -------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("make", "values"),
    [
        (lambda: demos.QueryRotation(TIFFIN), [50.0, 51.0, 52.0, 90.0, -120.0]),
        (lambda: demos.HardSoftSlider(ISRO), [50.0, 51.0, 52.0, 0.0, 120.0]),
    ],
)
def test_slider_widgets_blit_like_the_explorer(make, values):
    from attention_lab.live_figure import LiveFigure

    w = make()
    try:
        assert isinstance(w.live, LiveFigure)
        full, count = w.live.renderer.full_draws, w.render_count
        pictures = set()
        for v in values:
            w.slider.value = v
            pictures.add(bytes(w.image.value))
        assert w.render_count == count + len(values)  # one picture per step
        assert len(pictures) == len(values)  # each step a new picture
        assert w.live.renderer.full_draws == full  # only blits: the background was reused
    finally:
        w.close()


@pytest.mark.slow
def test_query_rotation_picture_matches_a_fresh_drawing():
    # The blitted frame shows what a figure drawn from scratch for that angle shows.
    from attention_lab._render import BlitRenderer

    w = demos.QueryRotation(TIFFIN)
    w.slider.value = 100.0
    fresh = demos.RotationFigure(TIFFIN, 100.0)
    fresh.render(100.0)  # lays out like the widget's figure
    fresh.renderer.invalidate()
    png = BlitRenderer.render(fresh.renderer)
    assert bytes(w.image.value) == png


@pytest.mark.slow
@pytest.mark.parametrize("cls", [demos.QueryRotation, demos.HardSoftSlider])
def test_one_pixel_of_an_angle_slider_is_at_most_one_degree(cls):
    w = cls(ISRO)
    width = int(w.slider.layout.width.removesuffix("px"))
    track = width - 8 * len(w.slider.description) - 90
    assert (w.slider.max - w.slider.min) / track <= 1.0 and w.slider.step == 1.0


def test_query_rotation_names_every_token_that_shares_the_largest_weight():
    """At 0° ISRO and Chandrayaan score alike: the readout said "goes to ISRO" alone."""
    w = demos.QueryRotation(ISRO, angle_deg=0)
    try:
        assert "ISRO and Chandrayaan share the largest weight" in w.text
        assert "goes to" not in w.text
    finally:
        w.close()
