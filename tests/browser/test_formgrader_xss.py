"""A student's script never runs in the teacher's browser: formgrader, feedback and report.

The attack (issue 13): a submission whose code outputs (``display(HTML("<script>"))``,
``<img onerror>``, ``Javascript(...)``, an SVG with ``onload``) and written answer
(``<img onerror>``, a ``javascript:`` link) carry a script that reads the teacher's ``_xsrf``
cookie, lists the submission's grades and PUTs ``manual_score: 0`` on each through
``/formgrader/api/grade/<id>``. The course is autograded with the course's own
``nbgrader_config.py``; the teacher opens the submission in the formgrader (a Jupyter server
with the course's ``attention_grader.pages.csp`` extension) in headless Chromium. No script may run
(``window.__pwned`` stays undefined, the title unchanged), no PUT may leave the page and the
gradebook must be unchanged. The second wall is tested on its own: the same page rendered from
an *unsanitised* notebook still runs nothing, because of its Content-Security-Policy.

The formgrader's own UI must keep working under that policy: the teacher types a score and the
formgrader saves it. MathJax normally comes from a CDN; with no network in tests a stub is
served at its address (the policy allows that address, which is what is under test).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.support.grading_course import notebook_course
from tests.support.nbgrader_cells import nbgrader_meta as _meta

from .driver import DEFAULT_TIMEOUT_MS, REPO, kernel_env, start_jupyter

pytestmark = pytest.mark.slow

ASSIGNMENT = "xsslab"
# Single quotes only: the payload also sits inside double-quoted HTML attributes.
PAYLOAD = (
    "window.__pwned=(window.__pwned||0)+1;document.title='PWNED';"
    "var t=(document.cookie.match(/_xsrf=([^;]+)/)||[])[1];"
    "fetch('/formgrader/api/grades?submission_id='+window.submission_id)"
    ".then(function(r){return r.json()}).then(function(gs){gs.forEach(function(g){"
    "fetch('/formgrader/api/grade/'+g.id,{method:'PUT',headers:{'X-XSRFToken':t},"
    "body:JSON.stringify({manual_score:0})})})})"
)
ATTACK_CODE = f"""\
from IPython.display import HTML, Javascript, display
payload = {PAYLOAD!r}
display(HTML('<script>' + payload + '</script>'))
display(HTML('<img src=x onerror="' + payload + '">'))
display(Javascript(payload))
display({{'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg" onload="' + payload + '"/>'}},
        raw=True)
answer = 2
"""
ATTACK_ESSAY = (
    "Attention is a weighted average of the values.\n\n"
    f'<img src=x onerror="{PAYLOAD}">\n\n'
    f"[see my working](javascript:{PAYLOAD})"
)
HONEST_ESSAY = "Attention is a weighted average of the values, with weights from $q \\cdot k$."
# What the page's CDN scripts are replaced with (no network): enough of MathJax 2's API for
# the formgrader's own script (formgrade.js asks MathJax.Hub.Startup for its "End" signal).
MATHJAX_STUB = (
    "window.MathJax={Hub:{Config:function(){},Queue:function(){},"
    "Startup:{signal:{Interest:function(){}}}}};"
)
# Recorded in every page before its own scripts (Playwright's init scripts are not subject
# to the page's policy): which directives the page's policy refused.
WATCH_CSP = (
    "window.__csp=[];document.addEventListener('securitypolicyviolation',"
    "function(e){window.__csp.push(e.violatedDirective)});"
)


def _source_notebook():
    nb = new_notebook(
        cells=[
            new_markdown_cell("# XSS lab", metadata=_meta("intro", locked=True)),
            new_code_cell(
                "### BEGIN SOLUTION\nanswer = 2\n### END SOLUTION",
                metadata=_meta("q1", solution=True),
            ),
            new_code_cell(
                "assert answer == 2",
                metadata=_meta("q1_test", grade=True, locked=True, points=1),
            ),
            new_markdown_cell(
                "YOUR ANSWER HERE",
                metadata=_meta("essay", grade=True, solution=True, points=2),
            ),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _nbgrader(root: Path, *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=root, env=kernel_env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, f"nbgrader {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"


def _submit(root: Path, student: str, code: str, essay: str) -> None:
    nb = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        cell.source = {"q1": code, "essay": essay}.get(grade_id, cell.source)
    folder = root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")


def _gradebook(root: Path) -> dict:
    """Every score of the assignment, and the submission notebooks' ids (for formgrader URLs)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "attention-lab") as gb:
        scores, ids = {}, {}
        for sub in gb.assignment_submissions(ASSIGNMENT):
            for nb in sub.notebooks:
                ids[sub.student.id] = nb.id
                for g in nb.grades:
                    scores[(sub.student.id, g.name)] = (g.auto_score, g.manual_score)
    return {"scores": scores, "ids": ids}


def _set_manual(root: Path, student: str, grade: str, score: float) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "attention-lab") as gb:
        gb.find_grade(grade, ASSIGNMENT, ASSIGNMENT, student).manual_score = score
        gb.db.commit()


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """A course (the repository's nbgrader_config.py) with an attacker and an honest student,
    autograded, manually graded and with feedback generated.
    """
    root = tmp_path_factory.mktemp("xss") / "course"
    notebook_course(root, ASSIGNMENT, _source_notebook(), REPO / "nbgrader_config.py")
    _nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    _submit(root, "mallory", ATTACK_CODE, ATTACK_ESSAY)
    _submit(root, "honest", "answer = 2", HONEST_ESSAY)
    _nbgrader(root, "autograde", ASSIGNMENT, "--force")
    _set_manual(root, "honest", "essay", 2)
    _set_manual(root, "mallory", "essay", 0)
    _nbgrader(root, "generate_feedback", ASSIGNMENT, "--force")
    return root


@pytest.fixture(scope="module")
def formgrader(graded, tmp_path_factory):
    """The course's Jupyter server with the formgrader and the course's CSP extension."""
    work = tmp_path_factory.mktemp("xss-jupyter")
    conf = work / "config" / "jupyter_server_config.d"
    conf.mkdir(parents=True)
    shutil.copy(
        REPO / "jupyter-settings" / "jupyter_server_config.d" / "attention_grader.json", conf
    )
    server = start_jupyter(graded, work)
    yield server
    server.stop()


_LOGINS: dict[str, dict] = {}


def _login(browser, server) -> dict:
    """The cookies (login, ``_xsrf``) of a teacher who logged in to ``server`` through its
    login page: logged in once per server, then carried into each fresh profile.
    """
    key = server.url("")  # the address and the token: a later server may reuse the port
    if key not in _LOGINS:
        context = browser.new_context()
        try:
            login = context.new_page()
            login.goto(server.base + "login")
            login.fill("input[name=password]", server.token)
            with login.expect_navigation():
                login.locator("[type=submit]").first.click()
            _LOGINS[key] = context.storage_state()
        finally:
            context.close()
    return _LOGINS[key]


def _browser_context(browser, server, bypass_csp: bool = False):
    """The teacher, logged in to the course's Jupyter server (a login cookie, as in real use)
    in a fresh browser profile: CDN scripts stubbed, PUTs and CSP violations recorded.
    """
    context = browser.new_context(bypass_csp=bypass_csp, storage_state=_login(browser, server))
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.add_init_script(WATCH_CSP)
    context.route(
        "https://cdnjs.cloudflare.com/**",
        lambda route: route.fulfill(
            status=200, content_type="application/javascript",
            body=MATHJAX_STUB if "mathjax" in route.request.url.lower() else "",
        ),
    )  # fmt: skip
    context.puts, context.answered = [], []
    context.on(
        "request",
        lambda req: context.puts.append(req.url) if req.method in ("PUT", "POST") else None,
    )
    context.on(
        "response",
        lambda r: context.answered.append(r.url) if r.request.method in ("PUT", "POST") else None,
    )
    return context


@pytest.fixture
def teacher(browser, formgrader):
    context = _browser_context(browser, formgrader)
    yield context
    context.close()


def _open(context, url: str):
    page = context.new_page()
    page.console_lines = []
    page.on("console", lambda m: page.console_lines.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: page.console_lines.append(f"pageerror: {e}"))
    # "load" comes after every parser-inserted script ran and every image of the page loaded
    # or failed (its onerror ran): a payload that runs at all has set window.__pwned by then.
    page.goto(url, wait_until="load")
    return page


def _until(page, done, what: str, timeout_s: float = DEFAULT_TIMEOUT_MS / 1000) -> None:
    """Wait until ``done()`` holds (polled while Playwright delivers the page's events)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting, after {timeout_s:.0f} s, for {what}")
        page.wait_for_timeout(50)  # the poll's interval, not a wait for an effect


def _wait_for_grade_puts(page, context, student: str, graded) -> None:
    """Wait until the formgrader answered a grade PUT for each of ``student``'s grades: what
    the payload sends when it runs (the gradebook holds the new scores once answered).
    """
    n = sum(1 for who, _ in _gradebook(graded)["scores"] if who == student)
    _until(
        page,
        lambda: sum("/formgrader/api/grade/" in u for u in context.answered) >= n,
        f"{n} grade PUTs answered (seen {context.answered})",
    )


def _wait_for_refusal(page, directive: str) -> None:
    """Wait until the page's policy refused something under ``directive`` (a prefix): the
    browser reports a violation as a task of its own, after the refused element.
    """
    page.wait_for_function("d => (window.__csp || []).some(v => v.startsWith(d))", arg=directive)


def _ran(page) -> dict:
    return page.evaluate(
        "() => ({pwned: window.__pwned === undefined ? null : window.__pwned,"
        " title: document.title, csp: window.__csp})"
    )


def _submission_url(server, graded, student: str) -> str:
    return server.url(f"formgrader/submissions/{_gradebook(graded)['ids'][student]}/")


def test_the_attackers_submission_runs_nothing_in_the_formgrader(teacher, formgrader, graded):
    before = _gradebook(graded)["scores"]
    page = _open(teacher, _submission_url(formgrader, graded, "mallory"))
    ran = _ran(page)
    body = page.locator("#notebook-container").first.inner_text()
    header = page.evaluate(
        "() => fetch(location.href).then(r => r.headers.get('content-security-policy'))"
    )
    page.close()
    assert ran["pwned"] is None and ran["title"] != "PWNED", ran
    assert teacher.puts == [], f"requests sent by the page: {teacher.puts}"
    assert _gradebook(graded)["scores"] == before
    # The grader still reads the written answer, and sees the attempt as text.
    assert "Attention is a weighted average of the values." in body
    assert "onerror" in body
    script_src = next(d for d in header.split("; ") if d.startswith("script-src"))
    assert "'unsafe-inline'" not in script_src and "'unsafe-hashes'" in script_src


def test_the_sanitiser_alone_stops_the_attack(browser, formgrader, graded):
    """First wall: with the page's policy switched off in the browser, nothing runs either."""
    context = _browser_context(browser, formgrader, bypass_csp=True)
    before = _gradebook(graded)["scores"]
    try:
        page = _open(context, _submission_url(formgrader, graded, "mallory"))
        ran = _ran(page)
    finally:
        context.close()
    assert ran["pwned"] is None and ran["title"] != "PWNED", ran
    assert context.puts == []
    assert _gradebook(graded)["scores"] == before


def _inject(context, url: str) -> None:
    """Serve ``url`` with raw payloads inside the notebook, its headers (the CSP) kept: what a
    page would be if the sanitiser had missed them (it runs as the page is built, so the only
    way past it is after the server).
    """
    raw = (
        f"<script>{PAYLOAD}</script>"
        f'<img src=x onerror="{PAYLOAD}">'
        f'<math><mtext><img src=y onerror="{PAYLOAD}"></mtext></math>'
    )

    def handle(route):
        response = route.fetch()
        body = response.text().replace(
            'id="notebook-container">', 'id="notebook-container">' + raw, 1
        )
        route.fulfill(response=response, body=body)

    context.route(url, handle)


def test_the_policy_alone_stops_a_script_the_sanitiser_missed(browser, teacher, formgrader, graded):
    """Second wall: payloads put into the page after the server built it."""
    url = _submission_url(formgrader, graded, "mallory")
    before = _gradebook(graded)["scores"]
    unprotected = _browser_context(browser, formgrader, bypass_csp=True)
    try:
        _inject(teacher, url)
        page = _open(teacher, url)
        _wait_for_refusal(page, "script-src")
        ran = _ran(page)
        page.close()
        teacher.unroute(url)
        blocked_scores = _gradebook(graded)["scores"]
        # Control: the same page without its policy runs the payload (the harness sees it).
        _inject(unprotected, url)
        page = _open(unprotected, url)
        ran_unprotected = _ran(page)
        # before the scores are put back: the payload's PUTs are answered
        _wait_for_grade_puts(page, unprotected, "mallory", graded)
    finally:
        unprotected.close()
        for (student, grade), (_, manual) in before.items():
            _set_manual(graded, student, grade, manual)
    assert ran["pwned"] is None and ran["title"] != "PWNED", ran
    assert "script-src-elem" in ran["csp"] or "script-src-attr" in ran["csp"], ran["csp"]
    assert teacher.puts == []
    assert blocked_scores == before
    assert ran_unprotected["pwned"] and ran_unprotected["title"] == "PWNED"
    assert any("/formgrader/api/grade/" in url for url in unprotected.puts)


def test_an_unsanitised_notebook_is_cleaned_when_the_page_is_built(browser, formgrader, graded):
    """A notebook autograded before a fix (raw payloads in its outputs and written answer,
    maths included) is cleaned as the formgrader renders it: nothing runs even with the
    page's policy off.
    """
    path = graded / "autograded" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    saved = path.read_text()
    nb = nbformat.read(path, as_version=4)
    essay = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "essay")
    essay.source = ATTACK_ESSAY + f'\n\n$\\text{{<img/src="x"/onerror="{PAYLOAD}">}}$'
    code = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "q1")
    code.outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": f"<script>{PAYLOAD}</script>"}),
        nbformat.v4.new_output("display_data", data={"application/javascript": PAYLOAD}),
        nbformat.v4.new_output(
            "display_data", data={"text/markdown": f'$\\text{{<img src=x onerror="{PAYLOAD}">}}$'}
        ),
    ]
    nbformat.write(nb, path)
    before = _gradebook(graded)["scores"]
    unprotected = _browser_context(browser, formgrader, bypass_csp=True)
    try:
        page = _open(unprotected, _submission_url(formgrader, graded, "mallory"))
        ran = _ran(page)
    finally:
        unprotected.close()
        path.write_text(saved)
    assert ran["pwned"] is None and ran["title"] != "PWNED", ran
    assert unprotected.puts == []
    assert _gradebook(graded)["scores"] == before


def test_the_payload_rewrites_grades_when_it_runs(teacher, formgrader, graded):
    """Control: the attack is real. Run by the teacher's page (Playwright's evaluate is not
    subject to the page's policy), the payload sets the submission's grades to 0.
    """
    page = _open(teacher, _submission_url(formgrader, graded, "honest"))
    page.evaluate(PAYLOAD)
    _wait_for_grade_puts(page, teacher, "honest", graded)
    page.close()
    assert _gradebook(graded)["scores"][("honest", "essay")][1] == 0
    _set_manual(graded, "honest", "essay", 2)
    teacher.puts.clear()
    teacher.answered.clear()


def test_the_formgrader_ui_still_saves_a_teachers_grade(teacher, formgrader, graded):
    page = _open(teacher, _submission_url(formgrader, graded, "honest"))
    score = page.locator("input.score#essay")
    score.wait_for(state="visible")
    # The formgrader's script fills the field with the saved grade once it has loaded.
    page.wait_for_function("() => document.querySelector('input.score#essay').value !== ''")
    with page.expect_response(
        lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT"
    ) as saved:
        score.fill("1.5")
        score.press("Tab")
    assert saved.value.ok
    violations = page.evaluate("() => window.__csp")
    page.close()
    assert _gradebook(graded)["scores"][("honest", "essay")][1] == 1.5
    assert violations == [], f"the formgrader's own page broke its policy: {violations}"
    _set_manual(graded, "honest", "essay", 2)


def test_a_submissions_own_files_are_served_sandboxed(browser, teacher, formgrader, graded):
    """A handed-in evil.html next to the notebook, opened from a link, runs no script."""
    folder = graded / "autograded" / "mallory" / ASSIGNMENT
    (folder / "evil.html").write_text(
        f"<html><body><b>hi</b><script>{PAYLOAD}</script></body></html>"
    )
    url = formgrader.url(f"formgrader/submissions/{_gradebook(graded)['ids']['mallory']}/evil.html")
    page = _open(teacher, url)
    ran = _ran(page)
    page.close()
    # Control: the same file, the browser ignoring the policy, runs (the header is what stops it).
    unprotected = _browser_context(browser, formgrader, bypass_csp=True)
    try:
        ran_unprotected = _ran(_open(unprotected, url))
    finally:
        unprotected.close()
        (folder / "evil.html").unlink()
    assert ran["pwned"] is None and teacher.puts == []
    assert ran_unprotected["pwned"] == 1


def test_feedback_and_report_pages_run_no_student_script(teacher, graded, tmp_path):
    from attention_grader.config.course import load_course
    from attention_grader.reports.report import write_report

    feedback = next((graded / "feedback" / "mallory" / ASSIGNMENT).glob("*.html"))
    report = write_report(load_course(graded), ASSIGNMENT, tmp_path / "report")
    pages = {"feedback": feedback, "report": report}
    # The second wall again: the same pages with a payload the sanitiser would have removed.
    for name, path in list(pages.items()):
        raw = path.read_text().replace("<body>", f'<body><img src=x onerror="{PAYLOAD}">', 1)
        assert raw != path.read_text(), name
        pages[f"{name} (unsanitised)"] = tmp_path / f"{name}-raw.html"
        pages[f"{name} (unsanitised)"].write_text(raw)
        shutil.copy(path, tmp_path / f"{name}-copy.html")  # keep a copy for the artifacts
    for name, path in pages.items():
        html = Path(path).read_text()
        assert 'http-equiv="Content-Security-Policy"' in html, name
        page = _open(teacher, Path(path).as_uri())
        if "unsanitised" in name:
            _wait_for_refusal(page, "script-src")
        ran = _ran(page)
        if name == "report":  # the policy must not hide the report's own figures
            loaded = page.evaluate("() => [...document.images].every(i => i.naturalWidth > 0)")
            assert loaded, "the report's figures did not load under its policy"
        page.close()
        assert ran["pwned"] is None and ran["title"] != "PWNED", (name, ran)
        if "unsanitised" in name:
            assert ran["csp"], f"{name}: the payload was not stopped by the policy"
    text = feedback.read_text()
    assert "Attention is a weighted average of the values." in text  # the answer is readable
    assert "&lt;img src=x onerror=" in text  # the attempt is shown as text
