"""The browser harness itself, on a notebook of its own: an IntSlider driving an Image.

If these fail, the lesson tests cannot be trusted either: the server, the page, running all
cells, finding a slider, moving it by keyboard and by mouse, and seeing an image change.
"""

from __future__ import annotations

import pytest

from .driver import (
    close_current,
    drag_slider,
    image_bytes,
    open_in_lab,
    press_slider,
    run_all_cells,
    slider_readout,
    wait_for_new_image,
    widget_error_texts,
    write_notebook,
)

pytestmark = pytest.mark.slow

# A slider whose value is drawn into a PNG (a heatmap whose bright cell moves with the value)
# and echoed in an HTML readout: the shape of the course's explorer, without its code.
SMOKE_CELLS = [
    """\
import io
import ipywidgets as w
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

def png(n):
    grid = np.zeros((4, 10))
    grid[n % 4, n % 10] = 1.0
    fig, ax = plt.subplots(figsize=(3, 1.5), dpi=60)
    ax.imshow(grid)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()
""",
    """\
slider = w.IntSlider(value=3, min=0, max=20, description="n")
image = w.Image(value=png(3), format="png")
image.add_class("smoke-figure")
readout = w.HTML(layout=w.Layout(min_width="10em"))
readout.add_class("smoke-readout")

def redraw(change=None):
    image.value = png(slider.value)
    readout.value = f"square = {slider.value ** 2}"

slider.observe(redraw, names="value")
redraw()
box = w.VBox([slider, image, readout])
box.add_class("smoke-root")
box
""",
]


@pytest.fixture(scope="module")
def smoke_notebook(course):
    write_notebook(course / "browser_smoke.ipynb", SMOKE_CELLS)
    return "browser_smoke.ipynb"


def test_slider_moves_the_image_by_keyboard_and_by_mouse(lab_page, lab, smoke_notebook, artifacts):
    open_in_lab(lab_page, lab, smoke_notebook)
    try:
        _check_smoke(lab_page, artifacts)
    finally:
        lab_page.screenshot(path=str(artifacts / "smoke-jupyterlab.png"))
        close_current(lab_page)


def _check_smoke(page, artifacts):
    run_all_cells(page)
    root = page.locator(".smoke-root")
    root.wait_for(state="visible")
    slider = root.locator(".widget-slider")
    img = root.locator("img.smoke-figure")
    readout = root.locator(".smoke-readout")
    assert slider_readout(slider) == "3"
    assert "square = 9" in readout.inner_text()

    before_src, before_bytes = img.get_attribute("src"), image_bytes(img)
    press_slider(slider, "ArrowRight", 2)
    wait_for_new_image(img, before_src)
    page.wait_for_function(
        "el => el.innerText.includes('square = 25')", arg=readout.element_handle()
    )
    assert slider_readout(slider) == "5"
    after_key = image_bytes(img)
    assert after_key != before_bytes

    src = img.get_attribute("src")
    drag_slider(page, slider, 0.9)
    wait_for_new_image(img, src)
    dragged = int(slider_readout(slider))
    # 0.9 of a 0..20 track, give or take the handle's width.
    assert 16 <= dragged <= 20, dragged
    page.wait_for_function(
        "([el, s]) => el.innerText.includes(s)",
        arg=[readout.element_handle(), f"square = {dragged**2}"],
    )
    assert image_bytes(img) != after_key
    root.screenshot(path=str(artifacts / "smoke_widget.png"))
    assert widget_error_texts(page) == []
