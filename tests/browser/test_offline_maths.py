"""Maths in the course's static pages renders in Chromium with no internet (no MathJax).

attention_grader.pages.offline_html writes LaTeX as MathML at build time; this checks that the
browser really draws it: each formula is a MathML element, a fraction is stacked (taller than
a line of text) and a root in a heading is drawn too.
"""

from __future__ import annotations

import pytest
from attention_grader.pages.lesson_pages import Lesson, build_pages
from nbformat.v4 import new_markdown_cell, new_notebook

pytestmark = pytest.mark.slow

MARKDOWN = (
    "# Maths offline\n\n## Why $1/\\sqrt{d_k}$?\n\nThe weights, inline: $w = \\mathrm{softmax}(s)$."
    "\n\n$$\\mathrm{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V$$\n"
)


def test_mathml_is_drawn_without_a_network(page, tmp_path, artifacts):
    nb = new_notebook(cells=[new_markdown_cell(MARKDOWN)])
    (html,) = build_pages([Lesson("maths", "Maths offline", nb)], tmp_path)[:1]
    page.route(
        "**/*",
        lambda route: route.abort() if route.request.url.startswith("http") else route.continue_(),
    )
    page.goto(html.as_uri())
    found = page.evaluate(
        """() => [...document.querySelectorAll('math')].map(m => ({
            mathml: m instanceof MathMLElement,
            height: m.getBoundingClientRect().height,
            width: m.getBoundingClientRect().width,
            frac: m.querySelector('mfrac') ? m.querySelector('mfrac').getBoundingClientRect().height : 0,
        }))"""
    )
    line = float(
        page.evaluate("() => getComputedStyle(document.querySelector('p')).lineHeight")[:-2]
    )
    assert len(found) == 3 and all(m["mathml"] and m["width"] > 5 for m in found)
    assert found[2]["frac"] > 1.4 * line  # QK^T over sqrt(d_k): stacked, not a flat string
    page.screenshot(path=str(artifacts / "offline_maths.png"))
