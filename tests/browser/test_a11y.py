"""Accessibility audit with axe-core (bundled by ``axe-playwright-python``) in Chromium.

Audited: the static HTML lessons that ``make html``'s site builder writes (into a temporary
folder, in the background, from the lessons the run executed once: see conftest) and two live lessons in JupyterLab after all their cells ran.

What counts is what the project renders: markdown cells and cell outputs (figures, tables,
widgets). Violations located elsewhere are NOT counted, on purpose, because the project
does not render them and cannot fix them:

* JupyterLab's own chrome (toolbars, file browser, status bar, its cell-collapse buttons);
* nbconvert's page chrome in the static HTML (``In [n]:`` prompts) and the colours of the
  syntax-highlighting theme in code inputs;
* ipywidgets' slider handle (noUiSlider, ``role="slider"``), which gets no accessible name
  from the widget's ``description`` label (rule ``aria-input-field-name``); the widget's
  label is ours, and ``test_every_live_slider_has_a_visible_label`` checks it.

Figures need a text alternative or a caption: ``test_lesson_figures_have_text_alternatives``
checks every picture in the outputs. It replaces axe's ``image-alt`` rule in the live lesson,
because the lessons caption their matplotlib figures with a markdown cell ("*Figure (alt
text): ...*") right below them (JupyterLab cannot put alt text on an image/png output), and
goes beyond axe in the static HTML, where axe accepts nbconvert's placeholder alt text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from .driver import (
    axe_violations,
    close_current,
    evaluate,
    open_in_lab,
    run_all_cells,
    serious_violations,
)
from .lessons import LESSONS, wait_for_widgets

pytestmark = pytest.mark.slow

# The project's content: rendered markdown and outputs (nbconvert's lab template and
# JupyterLab use the same class names), and the docs site's own pages and navigation bar.
OURS = (
    ".jp-MarkdownOutput, .jp-RenderedMarkdown, .jp-OutputArea-output, nav.site-nav, .site-doc main"
)
UPSTREAM = (("aria-input-field-name", ".noUi-handle"),)
NBCONVERT_PLACEHOLDER = "No description has been provided for this image"
# Live in JupyterLab: both explorers, a heatmap, chapter tables (lesson 3); the W_Q sliders with
# their readout table, two heads' heatmaps and the training figure (lesson 6); the live loss curve,
# the temperature slider and an attention map (lesson 7).
# Each with the sliders it shows at least (lesson 7 has one: the temperature).
LIVE_SLIDERS = {
    "03_worked_examples.ipynb": 2,
    "06_projections_heads_positions.ipynb": 2,
    "07_transformer_block.ipynb": 1,
}
LIVE_LESSONS = tuple(LIVE_SLIDERS)

# Pictures in outputs without a text alternative. A picture is described when it has alt text,
# aria-label or title (not nbconvert's placeholder), sits in a <figure> with a <figcaption>,
# or its cell is followed by the lessons' caption: a markdown cell starting "Figure".
_JS_UNDESCRIBED = f"""
() => [...document.querySelectorAll('.jp-OutputArea-output img')].filter(img => {{
  const text = (img.getAttribute('alt') || img.getAttribute('aria-label')
                || img.getAttribute('title') || '').trim();
  if (text !== '' && text !== {json.dumps(NBCONVERT_PLACEHOLDER)}) return false;
  const fig = img.closest('figure');
  if (fig && fig.querySelector('figcaption')) return false;
  const cell = img.closest('.jp-Cell');
  const next = cell && cell.nextElementSibling;
  const md = next && next.classList.contains('jp-MarkdownCell')
             && next.querySelector('.jp-RenderedMarkdown, .jp-MarkdownOutput');
  return !(md && /^\\W*Figure\\b/.test(md.innerText.trim()));
}}).map(img => {{
  const cell = img.closest('.jp-Cell');
  const src = cell ? cell.querySelector('.jp-InputArea-editor') : null;
  return (src ? src.innerText.trim().split('\\n').slice(-1)[0] : '?').slice(0, 80);
}})
"""


@pytest.fixture(scope="module")
def static_html(background):
    job = background["html"]
    job.wait(timeout=600)
    # The site: the docs pages (index.html is the README), the lessons and lessons.html.
    files = sorted(job.output.glob("*.html"))
    lessons = [f.stem for f in files if f.stem[:2].isdigit()]
    assert lessons == [n.removesuffix(".ipynb") for n in LESSONS]
    assert {"index", "lessons", "students", "teachers"} <= {f.stem for f in files}
    return files


@pytest.fixture(scope="module", params=LIVE_LESSONS)
def live_lesson(request, lab_page, lab):
    open_in_lab(lab_page, lab, f"notebooks/{request.param}")
    try:
        run_all_cells(lab_page)
        wait_for_widgets(lab_page)
        yield lab_page
    finally:
        close_current(lab_page)


@dataclass(frozen=True)
class StaticAudit:
    """What each page of the static site shows the audits (file name -> lines), read in one
    visit of the page: axe's serious violations in our content, and the undescribed pictures.
    """

    violations: dict[str, list[str]]
    undescribed: dict[str, list[str]]


@pytest.fixture(scope="module")
def static_audit(static_html, browser_context) -> StaticAudit:
    page = browser_context.new_page()
    violations, undescribed = {}, {}
    try:
        for html in static_html:
            page.goto(html.as_uri())
            violations[html.name] = serious_violations(page, axe_violations(page), OURS, UPSTREAM)
            undescribed[html.name] = evaluate(page, _JS_UNDESCRIBED)
    finally:
        page.close()
    return StaticAudit(violations, undescribed)


def test_static_html_lessons_have_no_serious_violations(static_audit):
    problems = {name: found for name, found in static_audit.violations.items() if found}
    assert problems == {}


def test_live_lesson_has_no_serious_violations(live_lesson, artifacts):
    violations = axe_violations(live_lesson)
    # Figures' text alternatives (alt text or the lessons' caption) have their own test below.
    others = [v for v in violations if v["id"] != "image-alt"]
    assert serious_violations(live_lesson, others, OURS, UPSTREAM) == []
    name = live_lesson.url.rsplit("/", 1)[-1].removesuffix(".ipynb")
    live_lesson.screenshot(path=str(artifacts / f"a11y-live-{name}.png"))


def test_every_live_slider_has_a_visible_label(live_lesson, request):
    sliders = live_lesson.locator(".jp-OutputArea-output .widget-slider")
    name = request.node.callspec.params["live_lesson"]
    assert sliders.count() >= LIVE_SLIDERS[name], name
    labels = [
        sliders.nth(i).locator(".widget-label").first.inner_text().strip()
        for i in range(sliders.count())
    ]
    assert all(labels), f"sliders without a label: {labels}"


def test_lesson_figures_have_text_alternatives(live_lesson, static_audit):
    missing = {f"live {live_lesson.url}": evaluate(live_lesson, _JS_UNDESCRIBED)}
    missing.update(static_audit.undescribed)
    missing = {k: v for k, v in missing.items() if v}
    assert missing == {}
