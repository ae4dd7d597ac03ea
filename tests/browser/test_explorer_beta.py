"""The score scale β as a keyboard and screen-reader user meets it (issue 29).

noUiSlider (ipywidgets 8's slider) writes ``aria-valuenow`` with one decimal: with a step of
0.05 the handle said 4.0 while the readout and the table used 3.95. β moves in steps one
decimal writes exactly, so the handle, its readout and the explorer's table say one number.
"""

from __future__ import annotations

import re

import pytest

from .driver import (
    close_current,
    open_in_lab,
    press_slider,
    run_all_cells,
    slider_handle,
    slider_value,
    write_notebook,
)
from .lessons import EXPLORER

pytestmark = pytest.mark.slow

CELLS = [
    'from attention_lab import QueryExplorer\nQueryExplorer.isro(controls=("query", "beta"))',
]


@pytest.fixture(scope="module")
def beta_notebook(course):
    write_notebook(course / "beta_explorer.ipynb", CELLS)
    return "beta_explorer.ipynb"


def _table_beta(root) -> float | None:
    found = re.search(r"β = (-?\d+(?:\.\d+)?)", root.inner_text())
    return float(found[1]) if found else None


def test_beta_handle_readout_and_table_say_one_number(lab_page, lab, beta_notebook):
    open_in_lab(lab_page, lab, beta_notebook)
    try:
        run_all_cells(lab_page)
        root = lab_page.locator(EXPLORER).first
        root.wait_for(state="visible")
        beta = root.locator(".widget-slider", has_text="score scale β")
        handle = slider_handle(beta)  # noUiSlider puts the aria attributes on it
        for presses in (3, 3, 23):  # 1 -> 1.3 -> 1.6 -> 3.9: each a value a step of 0.05 would
            press_slider(beta, "ArrowRight", presses)  # have made 1.15, 1.45, 3.95
            shown = slider_value(beta)
            lab_page.wait_for_function(
                "([el, b]) => el.innerText.includes('β = ' + b)",
                arg=[root.element_handle(), f"{shown:.3f}"],
            )
            now = float(handle.get_attribute("aria-valuenow"))
            assert now == shown == _table_beta(root), (now, shown, _table_beta(root))
        assert shown == pytest.approx(3.9)
    finally:
        close_current(lab_page)
