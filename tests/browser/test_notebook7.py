"""The Notebook 7 interface (``/tree``, ``/notebooks/...``) shows a lesson's live widgets.

Students on a JupyterHub may land in Notebook 7 rather than JupyterLab; the explorer must
work there too (same widget manager, different shell).
"""

from __future__ import annotations

import json

import pytest

from .driver import (
    REPO,
    open_notebook,
    press_slider,
    run_all_cells,
    slider_value,
    widget_error_texts,
    write_notebook,
)
from .lessons import EXPLORER, LESSONS, check_explorer, wait_for_widgets

pytestmark = pytest.mark.slow


def _lesson_with_explorer() -> str:
    """The lesson to open: the masking lesson if it has an explorer, else the first that does."""

    def has_explorer(name: str) -> bool:
        nb = json.loads((REPO / "notebooks" / name).read_text())
        return any("QueryExplorer" in "".join(c["source"]) for c in nb["cells"])

    candidates = [n for n in LESSONS if has_explorer(n)]
    assert candidates, "no lesson displays a QueryExplorer"
    preferred = [n for n in candidates if n.startswith("04_")]
    return (preferred or candidates)[0]


def test_tree_lists_the_lessons(page, lab):
    page.goto(lab.url("tree/notebooks"))
    listing = page.locator(".jp-DirListing-content")
    listing.wait_for(state="visible")
    for lesson in LESSONS:
        listing.get_by_text(lesson, exact=True).wait_for()


def test_lesson_explorer_works_in_notebook7(page, lab, artifacts):
    lesson = _lesson_with_explorer()
    open_notebook(page, lab, f"notebooks/{lesson}", ui="notebook")
    assert "/notebooks/" in page.url  # Notebook 7's own page, not JupyterLab's
    run_all_cells(page)
    assert wait_for_widgets(page) >= 1
    assert widget_error_texts(page) == []
    # Mouse only: see the next test for the keyboard.
    check_explorer(page, page.locator(EXPLORER).first, artifacts / "notebook7-explorer.png", False)
    assert widget_error_texts(page) == []


# Notebook 7.6.5 binds ArrowLeft/ArrowRight in command mode to notebook:move-cursor-heading-*,
# which swallowed the arrow keys of a focused slider; jupyter-settings/overrides.json (installed
# into the venv by `make setup`) disables those two shortcuts. This test fails without it.
def test_arrow_keys_move_a_slider_in_notebook7(page, lab, course):
    write_notebook(
        course / "nb7_keys.ipynb",
        ["import ipywidgets as w\nw.FloatSlider(value=1.0, min=-3.0, max=3.0, step=0.05)"],
    )
    open_notebook(page, lab, "nb7_keys.ipynb", ui="notebook")
    run_all_cells(page)
    wait_for_widgets(page)
    slider = page.locator(".widget-slider").first
    press_slider(slider, "ArrowRight", 2)
    assert slider_value(slider) == pytest.approx(1.10)
