"""End-to-end slider latency in a real browser: JupyterLab in Debian's headless Chromium.

What is timed: from the keyboard event that moves a query slider (``performance.now()`` in a
capturing ``keydown`` listener) to the moment the new picture is on screen: a
``MutationObserver`` sees the ``<img>`` get a new ``src`` (or a new ``<img>`` replace the old
one), the image is decoded (``img.decode()``) and the next animation frame starts. That
includes the widget message to the kernel, the Python callback, drawing, PNG encoding, the
message back and the browser's decode and paint.

Every live widget of the lessons is measured in the same page and run, 20 moves each after 2
warm-up moves:

* the course's explorer, ``attention_lab.explorer.query_explorer.QueryExplorer.tiffin()``, the lessons'
  one-slider widgets ``QueryRotation`` (lessons 0 and 2) and ``HardSoftSlider`` (lesson 5), and
  lesson 6's ``ProjectionSliders`` (its W_Q angle slider), which all redraw only what changed and swap the PNG of an ``ipywidgets.Image``
  (:mod:`attention_lab.live_figure`);
* a naive ``ipywidgets.interact`` over the same query that rebuilds a two-panel figure
  (heatmap + bars, the library's own plot functions) on every move, shown by ``plt.show()``.

Each move goes to a value not shown before (the slider walks one way from its minimum), so
no cache of earlier pictures can flatter the result. Targets (issue 17): the explorer's median
<= 55 ms, every slider's <= 100 ms.
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks import Row, format_ms, median_p90

MOVES = 20
WARMUP = 2
TARGET_MS = 100.0
EXPLORER_TARGET_MS = 55.0
_DRIVER_PATH = Path(__file__).resolve().parents[1] / "tests" / "browser" / "driver.py"

# The notebook the benchmark runs. Both widgets start with their first query slider at its
# minimum so that MOVES + WARMUP steps to the right each give a new value.
_CELLS = [
    """\
import matplotlib.pyplot as plt
import numpy as np
from ipywidgets import FloatSlider, interact
from attention_lab import attention
from attention_lab.demos import HardSoftSlider, ProjectionSliders, QueryRotation
from attention_lab.examples import ISRO, TIFFIN
from attention_lab.plots import attention_heatmap, weights_bar_chart
from attention_lab.explorer.query_explorer import QueryExplorer
""",
    """\
explorer = QueryExplorer.tiffin()
first = explorer.query_sliders[0]
first.value = first.min
explorer
""",
    """\
rotation = QueryRotation(TIFFIN)
rotation.slider.value = rotation.slider.min
rotation
""",
    """\
hard_soft = HardSoftSlider(ISRO)
hard_soft.slider.value = hard_soft.slider.min
hard_soft
""",
    """\
projection = ProjectionSliders()
projection.angle_slider.value = projection.angle_slider.min
projection
""",
    """\
def naive(qx=-3.0, qy=1.0):
    # The naive way: build the whole figure again on every move.
    Q = np.array(ISRO.Q, dtype=float)
    Q[ISRO.query_index] = (qx, qy)
    _, weights = attention(Q, ISRO.K, ISRO.V, scale=ISRO.scale)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    attention_heatmap(weights, ISRO.tokens, ISRO.tokens, ax=ax1)
    weights_bar_chart(weights[ISRO.query_index], ISRO.tokens, ax=ax2)
    plt.show()


naive_view = interact(
    naive,
    qx=FloatSlider(value=-3.0, min=-3.0, max=3.0, step=0.1, description="q x"),
    qy=FloatSlider(value=1.0, min=-3.0, max=3.0, step=0.1, description="q y"),
)
naive_view.widget.add_class("bench-naive")
""",
]

# Installed on a widget's root element: stamps the keydown and, when a new image is on screen,
# records the latency. ``imgSelector`` finds the picture inside the root. ``settleSelector``
# (optional) is an element the widget updates last for a move (the explorer's readout): the
# next key is pressed only once it changed, so a late update belonging to one move (the
# explorer re-sets the image src when its tooltip changes) is never timed as the next move.
_JS_INSTALL = """
([root, imgSelector, settleSelector]) => {
  const state = {t0: null, latencies: [], settled: 0, lastSrc: null, moves: 0};
  const current = () => root.querySelector(imgSelector);
  state.lastSrc = current() ? current().src : null;
  root.addEventListener('keydown', () => { state.t0 = performance.now(); state.moves += 1; },
                        true);
  const seen = (mutations) => {
    if (settleSelector && state.settled < state.moves && mutations.some(m => {
          const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
          return el && el.closest(settleSelector);
        })) {
      state.settled = state.moves;
    }
    const img = current();
    if (!img || img.src === state.lastSrc) return;
    state.lastSrc = img.src;  // also when not timing: a late re-set must not count later
    if (state.t0 === null) return;
    const t0 = state.t0;
    state.t0 = null;
    onScreen(img, img.src, t0);
  };
  // Decoded, then the next frame: the picture is on screen. If its src is replaced while it
  // decodes (the explorer re-sets it with the same bytes), decode() rejects and the newer src
  // is what reaches the screen: time that one.
  const onScreen = (img, src, t0) => img.decode().then(
    () => requestAnimationFrame(() => state.latencies.push(performance.now() - t0)),
    () => {
      const now = current();
      if (now && now.src !== src) onScreen(now, now.src, t0);
      else state.latencies.push(NaN);
    });
  new MutationObserver(seen).observe(root, {subtree: true, childList: true,
                                            characterData: true, attributes: true});
  if (!settleSelector) state.settled = Infinity;
  root.__bench = state;
}
"""


def _load_driver():
    spec = importlib.util.spec_from_file_location("attention_lab_browser_driver", _DRIVER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def measure_moves(
    page, root, img_selector: str, settle_selector: str | None = None, moves: int = MOVES,
    warmup: int = WARMUP,
):  # fmt: skip
    """Press ArrowRight on the root's first slider ``warmup + moves`` times; latencies in ms.

    Each press waits (on a condition) until its picture is on screen and, when
    ``settle_selector`` is given, until that element was updated too, before the next.
    """
    root.evaluate(
        "(el, args) => (" + _JS_INSTALL.strip() + ")([el, ...args])",
        [img_selector, settle_selector],
    )
    handle = root.locator(".widget-slider .noUi-handle").first
    handle.focus()
    for i in range(warmup + moves):
        handle.press("ArrowRight")
        root.page.wait_for_function(
            "([el, n]) => el.__bench.latencies.length >= n && el.__bench.settled >= n",
            arg=[root.element_handle(), i + 1],
            timeout=30_000,
            polling="raf",
        )
    latencies = [float(x) for x in root.evaluate("el => el.__bench.latencies")][warmup:]
    if not all(math.isfinite(x) for x in latencies):
        raise RuntimeError(f"an image never decoded: {latencies}")
    return latencies


def run(moves: int = MOVES) -> dict[str, list[float]]:
    """Start JupyterLab + Chromium, run the benchmark notebook, time every widget."""
    from playwright.sync_api import sync_playwright

    driver = _load_driver()
    work = Path(tempfile.mkdtemp(prefix="attention-lab-bench-browser-"))
    server = None
    try:
        root_dir = work / "root"
        root_dir.mkdir()
        driver.write_notebook(root_dir / "bench.ipynb", _CELLS)
        server = driver.start_jupyter(root_dir, work / "jupyter")
        with sync_playwright() as pw:
            browser = driver.launch_chromium(pw)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                driver.open_notebook(page, server, "bench.ipynb")
                driver.run_all_cells(page)
                explorer = page.locator(".attention-explorer").first
                demos = page.locator(".attention-demo")
                naive = page.locator(".bench-naive").first
                explorer.wait_for(state="visible")
                naive.locator("img").first.wait_for(state="visible")
                demo_img, demo_readout = "img.attention-demo-figure", ".attention-demo-readout"
                widgets = {
                    "explorer": (explorer, "img.attention-explorer-figure",
                                 ".attention-explorer-readout"),
                    "QueryRotation": (demos.nth(0), demo_img, demo_readout),
                    "HardSoftSlider": (demos.nth(1), demo_img, demo_readout),
                    "ProjectionSliders": (demos.nth(2), demo_img, demo_readout),
                    "naive": (naive, ".jp-OutputArea-output img", None),
                }  # fmt: skip
                samples = {}
                for name, (root, img, settle) in widgets.items():
                    root.scroll_into_view_if_needed()
                    samples[name] = measure_moves(page, root, img, settle, moves)
            finally:
                browser.close()
        return samples
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


def rows() -> list[Row]:
    """Measure the browser rows: key press to new picture, per widget."""
    load = os.getloadavg()[0]  # the latency depends on how busy the two cores are
    samples = run()
    slow_med, slow_p90 = median_p90(samples.pop("naive"))
    out = []
    for name, latencies in samples.items():
        med, p90 = median_p90(latencies)
        target = EXPLORER_TARGET_MS if name == "explorer" else TARGET_MS
        out.append(
            Row(
                area="browser",
                case=(
                    f"slider key -> new picture on screen, Chromium+JupyterLab, {name}, "
                    f"{MOVES} moves (load {load:.1f})"
                ),
                value=format_ms(med, p90, 0),
                baseline=f"naive interact: {format_ms(slow_med, slow_p90, 0)}",
                ratio=f"{slow_med / med:.1f}x faster",
                target=f"median <= {target:.0f} ms",
                ok=med <= target,
            )
        )
    return out


if __name__ == "__main__":
    for name, values in run().items():
        print(name, [round(v, 1) for v in values])
