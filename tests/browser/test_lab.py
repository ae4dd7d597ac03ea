"""Every lesson in JupyterLab, in headless Chromium, as a student meets it.

Open the lesson, run all cells (Run > Run All Cells), and then, for every explorer and every
one-slider figure in it: move its slider with the keyboard and with the mouse, and check that
the picture changes and the numbers shown are the ones ``attention()`` computes. No output
may say "Error displaying widget".
"""

from __future__ import annotations

import pytest

from .driver import close_current, open_in_lab, run_all_cells, widget_error_texts
from .lessons import (
    EXPLORER,
    LESSONS,
    check_explorer,
    check_slider_figure,
    slider_figures,
    wait_for_widgets,
)

pytestmark = pytest.mark.slow


def test_there_are_lessons():
    assert len(LESSONS) >= 5, f"expected the course's lessons in notebooks/, found {LESSONS}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_widgets_respond_in_jupyterlab(lab_page, lab, lesson, artifacts):
    page, stem = lab_page, lesson.removesuffix(".ipynb")
    errors_before = len(page.console_errors)  # the page is shared: only this lesson's count
    open_in_lab(page, lab, f"notebooks/{lesson}")
    try:
        run_all_cells(page)
        n_widgets = wait_for_widgets(page)
        assert widget_error_texts(page) == []
        assert n_widgets >= 1, f"{lesson} shows no live widget"

        explorers = page.locator(EXPLORER)
        figures = slider_figures(page)
        assert explorers.count() + len(figures) >= 1, f"{lesson} has no slider to move"
        for i in range(explorers.count()):
            check_explorer(page, explorers.nth(i), artifacts / f"{stem}-explorer-{i}.png")
        for i, out in enumerate(figures):
            check_slider_figure(page, out, artifacts / f"{stem}-slider-figure-{i}.png")
        assert widget_error_texts(page) == []
        assert page.console_errors[errors_before:] == []
    finally:
        page.screenshot(path=str(artifacts / f"{stem}-jupyterlab.png"))
        close_current(page)
