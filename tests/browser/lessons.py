"""Checks of the course's widgets as a student sees them in the browser.

``check_explorer`` moves a ``QueryExplorer``'s query sliders (keyboard, then mouse drag) and
asserts that the heatmap image changes and that the readout table shows what
``attention_lab.attention`` computes for the query the sliders now show.
``check_slider_figure`` does the same for the lessons' one-slider figures (``demos``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from attention_lab import attention, causal_mask, dot_product_scores, examples

from .driver import (
    REPO,
    drag_slider,
    image_bytes,
    press_slider,
    slider_value,
    wait_for_new_image,
)

__all__ = [
    "LESSONS",
    "EXPLORER",
    "wait_for_widgets",
    "slider_figures",
    "check_explorer",
    "check_slider_figure",
]

LESSONS = sorted(p.name for p in (REPO / "notebooks").glob("[0-9]*.ipynb"))
EXPLORER = ".attention-explorer"
_WORKED = (examples.ISRO, examples.TIFFIN)
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _num(text: str) -> str:
    """A number as the readouts print it: 3 decimals, never '-0.000'."""
    s = f"{text:.3f}"
    return "0.000" if s == "-0.000" else s


def wait_for_widgets(page: Any, timeout_ms: float = 120_000) -> int:
    """Wait until every widget output of the notebook has rendered (or failed); return how many.

    ipywidgets renders a view asynchronously after the kernel's display message. The number
    expected is read from the notebook model (outputs carrying the widget-view MIME type); the
    rendered ones are output areas holding a ``.jupyter-widgets`` view or the error message.
    """
    handle = page.wait_for_function(
        f"""() => {{
          const w = window.jupyterapp.shell.currentWidget;
          let expected = 0;
          for (const cell of w.content.widgets) {{
            if (cell.model.type !== 'code') continue;
            const outs = cell.model.outputs;
            for (let i = 0; i < outs.length; i++) {{
              if ('{_WIDGET_MIME}' in (outs.get(i).data || {{}})) expected += 1;
            }}
          }}
          const rendered = [...document.querySelectorAll('.jp-OutputArea-output')].filter(o =>
            o.querySelector(':scope > .jupyter-widgets')
            || /Error displaying widget/.test(o.innerText));
          const loading = rendered.some(o => /Loading widget/.test(o.innerText));
          return rendered.length >= expected && !loading ? {{n: expected}} : null;
        }}""",
        timeout=timeout_ms,
        polling=100,
    )
    return int(handle.json_value()["n"])


# --------------------------------------------------------------------------------------------
# QueryExplorer
# --------------------------------------------------------------------------------------------


def _query_slider(root: Any, dimension: int) -> Any:
    return root.locator(".widget-slider").filter(has_text=f"query dimension {dimension}").first


def _checkbox(root: Any, label: str) -> bool:
    """Whether the explorer's checkbox ``label`` is ticked (False when the lesson hides it)."""
    box = root.locator(".widget-checkbox").filter(has_text=label).locator("input")
    return box.count() > 0 and box.first.is_checked()


def _readout_table(readout: Any) -> dict:
    """The explorer's readout: caption, per-key rows and the output line."""
    rows = []
    for tr in readout.locator("tbody tr").all():
        cells = [c.strip() for c in tr.locator("th, td").all_inner_texts()]
        rows.append(cells)  # token, key, score, weight, value
    return {
        "caption": readout.locator("caption").inner_text().strip(),
        "rows": rows,
        "output": readout.locator("tfoot td").first.inner_text().strip(),
    }


def _expected(table: dict, q: tuple[float, float], causal: bool) -> dict:
    """What ``attention`` gives for the explorer's example with query row set to ``q``."""
    tokens = tuple(r[0] for r in table["rows"])
    matches = [ex for ex in _WORKED if tuple(ex.tokens) == tokens]
    assert matches, f"explorer tokens {tokens} are not a worked example's"
    ex = matches[0]
    caption = table["caption"]
    token = re.search(r"Query “(.+?)”", caption)
    assert token, f"no query token in the readout caption {caption!r}"
    qi = ex.tokens.index(token.group(1))
    assert "β" not in caption and "hard" not in caption, f"unexpected mode: {caption!r}"
    scale = "√" in caption.split("score =", 1)[1]
    Q = np.array(ex.Q, dtype=float)
    Q[qi] = q
    mask = causal_mask(len(tokens)) if causal else None
    outputs, weights = attention(Q, ex.K, ex.V, mask=mask, scale=scale)
    scores = dot_product_scores(Q, ex.K, scale=scale)
    allowed = np.ones_like(weights, dtype=bool) if mask is None else mask
    return {
        "query": "(" + ", ".join(_num(x) for x in q) + ")",
        "scores": [
            _num(s) if a else "masked" for s, a in zip(scores[qi], allowed[qi], strict=True)
        ],
        "weights": [_num(w) for w in weights[qi]],
        "output": "(" + ", ".join(_num(x) for x in outputs[qi]) + ")",
    }


def _readout_matches(root: Any, causal: bool) -> tuple[bool, str]:
    q = tuple(slider_value(_query_slider(root, d)) for d in (1, 2))
    table = _readout_table(root.locator(".attention-explorer-readout"))
    want = _expected(table, q, causal)
    got = {
        "query": table["caption"],
        "scores": [r[2] for r in table["rows"]],
        "weights": [r[3] for r in table["rows"]],
        "output": table["output"],
    }
    ok = (
        f"q = {want['query']}" in got["query"]
        and all(g.startswith(w) for g, w in zip(got["scores"], want["scores"], strict=True))
        and all(g.startswith(w) for g, w in zip(got["weights"], want["weights"], strict=True))
        and got["output"].startswith(want["output"])
    )
    return ok, f"readout {got} but attention() gives {want}"


def _wait_for_readout(root: Any, causal: bool, timeout_s: float = 60.0) -> None:
    """Wait (polling the page) until the readout shows attention() for the sliders' query."""
    page = root.page
    deadline = page.evaluate("performance.now()") + timeout_s * 1000
    while True:
        ok, why = _readout_matches(root, causal)
        if ok:
            return
        if page.evaluate("performance.now()") > deadline:
            raise AssertionError(why)
        # Let the page process the next kernel message before looking again.
        page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => r(true)))")


def _check_prediction_mode(root: Any, img: Any) -> None:
    """A lesson opened the explorer in prediction mode: reveal, move, then switch it off.

    The weights are hidden until "reveal the weights"; moving the query hides them again and
    clears the table that compared the guesses with the old weights (issue 17). Prediction mode
    is then switched off, as the lessons tell students to, to drag the query freely.
    """
    assert not img.is_visible(), "prediction mode shows the figure before the reveal"
    feedback = root.get_by_text("Your guesses against the real weights")
    root.get_by_role("button", name="reveal the weights").click()
    feedback.wait_for(state="visible")
    img.wait_for(state="visible")
    press_slider(_query_slider(root, 1), "ArrowRight")
    feedback.wait_for(state="detached")
    img.wait_for(state="hidden")
    root.locator(".widget-checkbox").filter(has_text="prediction mode").locator("input").click()


def check_explorer(page: Any, root: Any, shot: Path, keyboard: bool = True) -> None:
    """Move an explorer's query by keyboard and by mouse; the heatmap and numbers must follow.

    Parameters
    ----------
    root : Locator
        The explorer (``.attention-explorer``).
    shot : Path
        Where to save a screenshot of the explorer after the moves.
    keyboard : bool, default True
        Move the first slider with the arrow keys (else drag it too).
    """
    root.scroll_into_view_if_needed()
    img = root.locator("img.attention-explorer-figure")
    if _checkbox(root, "prediction mode"):
        _check_prediction_mode(root, img)
    img.wait_for(state="visible")
    causal = _checkbox(root, "causal mask")
    _wait_for_readout(root, causal)  # the opening state is already right

    first = _query_slider(root, 1)
    start = slider_value(first)
    src, pixels = img.get_attribute("src"), image_bytes(img)
    if keyboard:
        key = "ArrowLeft" if start > 0 else "ArrowRight"  # room to move either way
        press_slider(first, key, 2)
        moved = slider_value(first)
        assert moved != start, "the arrow keys did not move the query slider"
        assert (moved < start) == (key == "ArrowLeft")
    else:
        drag_slider(page, first, 0.15 if start > 0 else 0.85)
        assert slider_value(first) != start, "dragging did not move the query slider"
    wait_for_new_image(img, src)
    _wait_for_readout(root, causal)
    after_first = image_bytes(img)
    assert after_first != pixels, "the heatmap image did not change after the first move"

    second = _query_slider(root, 2)
    before_drag = slider_value(second)
    src = img.get_attribute("src")
    drag_slider(page, second, 0.15 if before_drag > 0 else 0.85)
    assert slider_value(second) != before_drag, "dragging did not move the slider"
    wait_for_new_image(img, src)
    _wait_for_readout(root, causal)
    assert image_bytes(img) != after_first, "the heatmap image did not change after a drag"
    root.screenshot(path=str(shot))


# --------------------------------------------------------------------------------------------
# The lessons' one-slider figures (attention_lab.demos): slider, image, one-line readout
# --------------------------------------------------------------------------------------------


def slider_figures(page: Any) -> list[Any]:
    """Widget outputs holding a slider and an image that are not explorers."""
    outputs = page.locator(".jp-OutputArea-output").filter(has=page.locator(".jupyter-widgets"))
    found = []
    for i in range(outputs.count()):
        out = outputs.nth(i)
        if out.locator(EXPLORER).count():
            continue
        if out.locator(".widget-slider").count() and out.locator("img").count():
            found.append(out)
    return found


_ROTATION = re.compile(r"Query at (-?\d+)° = [(\[](-?[\d.]+), (-?[\d.]+)[)\]]: .*?weights (.+?);")


def _check_rotation_numbers(text: str) -> None:
    """A QueryRotation readout: its query points at its angle, its weights are attention()'s."""
    m = _ROTATION.search(text)
    if not m:
        # Only a rotation's readout gives the query and its weights; any other one-slider
        # figure (hard vs soft output, temperature) is checked by its image and value alone.
        assert not ("Query at" in text and "weights" in text), f"unreadable rotation: {text!r}"
        return
    angle, qx, qy = float(m.group(1)), float(m.group(2)), float(m.group(3))
    assert math.isclose(math.degrees(math.atan2(qy, qx)) % 360, angle % 360, abs_tol=0.5), text
    pairs = [p.rsplit(" ", 1) for p in m.group(4).split(", ")]
    tokens = tuple(p[0] for p in pairs)
    ex = next((e for e in _WORKED if tuple(e.tokens) == tokens), None)
    assert ex is not None, f"readout tokens {tokens} are not a worked example's"
    _, weights = attention(np.array([qx, qy]), ex.K, ex.V, scale=ex.scale)
    # The printed query is rounded to 3 decimals: allow for that in the weights.
    assert np.allclose([float(p[1]) for p in pairs], weights, atol=2e-3), (text, weights)


def _wait_for_value(page: Any, out: Any, value: float) -> None:
    """Wait until the figure's readout says the slider's new value.

    A rotation reads "Query at 50° ...", lesson 7's temperature "T = 1.05 (β = 0.95) ...".
    """
    said = [f"at {value:.0f}°", f"T = {value:.2f} "]
    page.wait_for_function(
        "([el, said]) => said.some(s => el.innerText.includes(s))",
        arg=[out.element_handle(), said],
    )


def check_slider_figure(page: Any, out: Any, shot: Path) -> None:
    """Move a one-slider figure by keyboard and mouse; its image and readout must follow."""
    out.scroll_into_view_if_needed()
    slider = out.locator(".widget-slider").first
    img = out.locator("img").first
    img.wait_for(state="visible")
    src, pixels = img.get_attribute("src"), image_bytes(img)
    start = slider_value(slider)
    press_slider(slider, "ArrowRight")
    moved = slider_value(slider)
    assert moved > start, "the arrow keys did not move the slider"
    wait_for_new_image(img, src)
    assert image_bytes(img) != pixels
    _wait_for_value(page, out, moved)
    _check_rotation_numbers(out.inner_text())

    src = img.get_attribute("src")
    drag_slider(page, slider, 0.2)
    dragged = slider_value(slider)
    assert dragged != moved, "dragging did not move the slider"
    wait_for_new_image(img, src)
    _wait_for_value(page, out, dragged)
    _check_rotation_numbers(out.inner_text())
    out.screenshot(path=str(shot))
