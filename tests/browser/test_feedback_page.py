"""A feedback page reads at 1024 px in Chromium: nothing scrolls sideways, maths is drawn.

The issue's case: a misconception sentence of 2336 px in a 1046 px box, read with a sideways
scroll; here the same kind of page (a long message, a long printed line without spaces, a
student's traceback, a formula) must fit the window with no internet.
"""

from __future__ import annotations

import pytest

from tests.support.grading_course import render_feedback
from tests.support.student_outputs import feedback_notebook

pytestmark = pytest.mark.slow

WIDTH = 1024


def test_feedback_fits_1024_px_and_draws_maths_offline(page, tmp_path, artifacts):
    html = render_feedback(feedback_notebook(), score=0, max_score=5, ungraded=1)
    path = tmp_path / "feedback.html"
    path.write_text(html)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.route(
        "**/*",
        lambda route: route.abort() if route.request.url.startswith("http") else route.continue_(),
    )
    page.goto(path.as_uri())
    sizes = page.evaluate(
        """() => ({
            page: document.documentElement.scrollWidth,
            widest: Math.max(...[...document.querySelectorAll('pre, .feedback-note, p')]
                .map(e => e.scrollWidth - e.clientWidth)),
            maths: [...document.querySelectorAll('math')].map(
                m => m instanceof MathMLElement && m.getBoundingClientRect().width > 5),
            note: document.querySelector('.feedback-misconception').getBoundingClientRect().width,
        })"""
    )
    print(f"feedback at {WIDTH} px: page scrollWidth {sizes['page']} px, note {sizes['note']} px")
    assert sizes["page"] <= WIDTH, sizes  # no horizontal scroll bar
    assert sizes["widest"] <= 1, sizes  # no element scrolls inside itself either
    assert sizes["maths"] == [True]
    assert page.console_errors == []
    page.screenshot(path=str(artifacts / "feedback_1024.png"), full_page=True)
