r"""The attack suite's submissions, opened in Chromium as the teacher and the student see them.

Every submission of ``tests/attacks/`` is graded through both routes (plain ``nbgrader
autograde`` and ``make grade``, :mod:`attacks.batch`); then each graded notebook becomes the two
pages people open: its feedback (``nbgrader generate_feedback`` with the course's settings) and
its formgrader view (nbgrader's ``formgrade`` template with the course's HTMLExporter settings,
rendered as nbgrader's SubmissionHandler does). Each page is loaded in headless Chromium *with
its Content-Security-Policy switched off*, so what is tested is the first wall, the allowlist on
the final HTML: no script runs (``window.__pwned``, the title), nothing is fetched from or sent
to another site (meta refresh, ``<base href>``, forms), and the student's part of the page holds
no script, frame, object, SVG, form, meta, base, event handler, ``javascript:``/``data:`` link
or MathML link.

The payloads are real: a control page with latex2mathml's own output for ``\text{<img
onerror>}`` runs the payload in the same harness.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from attacks.batch import ASSIGNMENT, graded_batch, graded_batch_parallel

from .driver import DEFAULT_TIMEOUT_MS, evaluate

# A hang guard, not a target: the first module to ask grades every attack twice (tests/attacks),
# 3 min on a quiet machine and over the default 10 min on a loaded one.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

ROUTES = {"nbgrader": graded_batch, "parallel": graded_batch_parallel}
#: What the attack pages set when their script runs (tests/attacks/page_*.py).
RUN = "window.__pwned=(window.__pwned||0)+1;document.title='PWNED'"
#: The attacks made for pages: each must get feedback and a formgrader view.
PAGE_ATTACKS = (
    "page_maths_text", "page_maths_links", "page_outputs", "id_html", "id_formula",
    "honest_full",
)  # fmt: skip

# Reads the state of a loaded page: what ran, and what live markup the student's part holds.
INSPECT = """() => {
  const root = document.querySelector('#notebook-container') || document.body;
  const banned = ['script', 'iframe', 'frame', 'object', 'embed', 'meta', 'base', 'form',
                  'svg', 'link', 'style', 'annotation-xml', 'maction'];
  const bad = [];
  for (const el of root.querySelectorAll('*')) {
    const tag = el.localName;
    if (banned.includes(tag)) bad.push('<' + tag + '>');
    for (const a of el.attributes) {
      const v = a.value.replace(/[\\x00-\\x20]/g, '').toLowerCase();
      if (a.name.startsWith('on')) bad.push(tag + '[' + a.name + ']');
      if (['href', 'src', 'action', 'formaction', 'xlink:href'].includes(a.name)
          && (v.startsWith('javascript:') || (v.startsWith('data:') && !v.startsWith('data:image/'))))
        bad.push(tag + '[' + a.name + '=' + v.slice(0, 24) + ']');
      if (a.name === 'href' && el.namespaceURI !== 'http://www.w3.org/1999/xhtml')
        bad.push(tag + '[href] outside HTML');
    }
  }
  return {bad: bad, pwned: window.__pwned === undefined ? null : window.__pwned,
          title: document.title, baseURI: document.baseURI, href: location.href};
}"""


def _feedback(batch) -> dict[str, Path]:
    """``nbgrader generate_feedback`` in every course of the batch; student -> feedback page."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    # One process per course, side by side (as the batch was graded): each mostly waits on imports.
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT, "--force"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for root in batch.roots
    ]
    try:
        outputs = [proc.communicate(timeout=900)[0] for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    for output in outputs:
        assert "Traceback" not in output, output
    pages = {}
    for key, path in batch.paths.items():
        root = path.parents[3]
        student = path.parent.parent.name
        page = root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
        if page.exists():
            pages[key] = page
    return pages


def _formgrader_views(batch, out: Path) -> dict[str, Path]:
    """Each graded notebook as the formgrader shows it (its template, the course's settings)."""
    import nbgrader.server_extensions.formgrader.handlers as handlers
    from nbconvert import HTMLExporter
    from traitlets.config.loader import PyFileConfigLoader

    pages, exporters = {}, {}
    for key, path in batch.paths.items():
        if not path.exists():
            continue
        root = path.parents[3]
        if root not in exporters:  # one per course, as the formgrader has one for every page
            config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
            config.HTMLExporter.template_name = "formgrade"
            config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
            exporters[root] = HTMLExporter(config=config)
        student = path.parent.parent.name
        resources = {
            "assignment_id": ASSIGNMENT, "notebook_id": ASSIGNMENT, "submission_id": "s1",
            "index": 0, "total": 1, "base_url": "", "student": student, "last_name": None,
            "first_name": None, "notebook_path": f"autograded/{student}/{ASSIGNMENT}",
        }  # fmt: skip
        html, _ = exporters[root].from_filename(str(path), resources=resources)
        pages[key] = out / f"formgrader-{key.replace('@', '-')}.html"
        pages[key].write_text(html)
    return pages


@pytest.fixture(scope="module", params=sorted(ROUTES))
def batch(request):
    return ROUTES[request.param]()


@pytest.fixture(scope="module")
def pages(batch, tmp_path_factory):
    """{(page kind, submission): HTML file} for every graded submission of the route."""
    out = tmp_path_factory.mktemp("attack-pages")
    found = {}
    for key, page in _feedback(batch).items():
        found[("feedback", key)] = page
    for key, page in _formgrader_views(batch, out).items():
        found[("formgrader", key)] = page
    return found


@pytest.fixture
def unprotected(browser):
    """A browser context that ignores every page's CSP, records every network request and
    refuses all of them (nothing may leave a page).
    """
    context = browser.new_context(bypass_csp=True)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.requests = []

    def refuse(route):
        context.requests.append(route.request.url)
        route.abort()

    context.route("http://**/*", refuse)
    context.route("https://**/*", refuse)
    yield context
    context.close()


def _visit(page, path: Path) -> dict:
    """Load ``path`` in ``page`` (a new document: nothing of the page before survives in it
    but the tab, and INSPECT checks the document is ``path``'s) and read its state.
    """
    page.goto(path.as_uri(), wait_until="load")
    return evaluate(page, INSPECT)


def test_the_attack_pages_were_made(pages):
    for kind in ("feedback", "formgrader"):
        missing = [name for name in PAGE_ATTACKS if (kind, name) not in pages]
        assert missing == [], f"no {kind} page for {missing}"


def test_no_attack_runs_moves_or_sends_anything_from_any_page(pages, unprotected):
    failures = {}
    # One tab for every page: a new tab each time cost as much again as the pages' loads.
    tab = unprotected.new_page()
    for (kind, key), path in sorted(pages.items()):
        state = _visit(tab, path)
        problems = list(state["bad"])
        if state["pwned"] is not None or state["title"] == "PWNED":
            problems.append(f"script ran ({state['pwned']}, title {state['title']!r})")
        if state["baseURI"] != state["href"] or state["href"] != path.as_uri():
            problems.append(f"page moved: base {state['baseURI']}, at {state['href']}")
        if problems:
            failures[f"{kind} {key}"] = problems
    assert failures == {}
    assert [u for u in unprotected.requests if "evil.example" in u] == []


def test_every_feedback_page_carries_its_policy(pages):
    for (kind, key), path in pages.items():
        if kind == "feedback":
            text = path.read_text()
            assert 'http-equiv="Content-Security-Policy"' in text, key
            assert "base-uri 'none'" in text and "form-action 'none'" in text, key


def test_the_harness_sees_latex2mathmls_own_output_run(unprotected, tmp_path):
    r"""Control: the library's own serialiser still copies ``\text{...}`` as markup, and the
    harness above sees the script run when nothing cleans it.
    """
    from latex2mathml.converter import convert

    mathml = convert('\\text{<img/src="x"/onerror="' + RUN + '">}')
    page = tmp_path / "raw.html"
    page.write_text(f"<!doctype html><html><body><p>{mathml}</p></body></html>")
    state = _visit(unprotected.new_page(), page)
    assert state["pwned"] == 1 and state["title"] == "PWNED"
    assert "img[onerror]" in state["bad"]


def test_every_csv_of_the_batch_holds_no_formula(batch):
    """grades.csv, the report's students.csv and (``make grade``) batch_summary.csv, with the
    formula and HTML ids of tests/attacks/id_*.py in them: no cell a spreadsheet runs.
    """
    from attention_grader.config.course import load_course
    from attention_grader.reports.report import write_report
    from attention_grader.steps.grades import write_grades

    starts = ("=", "+", "-", "@", "\t", "\r")
    seen_formula_id = False
    for root in batch.roots:
        course = load_course(root)
        files = [write_grades(course, root / "grades.csv")]
        report = write_report(course, ASSIGNMENT, root / "reports" / "class")
        files.append(report.parent / "students.csv")
        summary = root / "reports" / ASSIGNMENT / "batch_summary.csv"
        files += [summary] if summary.exists() else []
        for path in files:
            for row in csv.reader(path.open(newline="")):
                bad = [c for c in row if c.startswith(starts) and not re.fullmatch(r"-?[0-9.]+", c)]
                assert bad == [], (path.name, row)
                seen_formula_id |= any("HYPERLINK" in c for c in row)
        assert "<img src=x" not in report.read_text()
    assert seen_formula_id, "the formula id was graded and listed somewhere"
