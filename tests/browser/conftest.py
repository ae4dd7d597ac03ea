"""Fixtures for the real-browser tests: one JupyterLab and one headless Chromium per session.

JupyterLab serves a temporary copy of the course (``nbgrader_config.py``, ``notebooks/``,
``source/``), never the working tree, with a temporary token, its own config/data/settings
dirs and the news pop-up off. Each test gets a fresh browser context and page; its last
screen is saved under ``test-artifacts/browser/<test>.png``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from .driver import (
    ARTIFACTS,
    DEFAULT_TIMEOUT_MS,
    RELEASED_ASSIGNMENT,
    REPO,
    BackgroundJob,
    kernel_env,
    launch_chromium,
    make_course_copy,
    start_jupyter,
)

playwright_api = pytest.importorskip("playwright.sync_api", reason="make setup-test")


@pytest.fixture(scope="package")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="package")
def course(tmp_path_factory) -> Path:
    """A temporary copy of the course that JupyterLab serves (root dir and cwd)."""
    return make_course_copy(tmp_path_factory.mktemp("course"))


# Run order inside the browser suite: the tests that wait on background jobs go last, so that
# `make html` and the assignment release run while the lessons are being tested.
_ORDER = ("test_smoke", "test_lab", "test_notebook7", "test_nbgrader_ui", "test_a11y")


def pytest_collection_modifyitems(session, config, items):
    here = [i for i, item in enumerate(items) if "tests/browser/" in item.nodeid]

    def rank(item) -> int:
        module = item.nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
        return _ORDER.index(module) if module in _ORDER else len(_ORDER)

    ordered = sorted((items[i] for i in here), key=rank)  # stable: keeps order within a module
    for slot, item in zip(here, ordered, strict=True):
        items[slot] = item


# generate + release one assignment in one interpreter (importing nbgrader's apps alone costs
# seconds, so one process instead of two CLI calls), in the course copy, whose
# nbgrader_config.py it reads; the exchange is the copy's exchange/.
_RELEASE = """
import sys
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

config = PyFileConfigLoader("nbgrader_config.py", path=".").load_config()
api = NbGraderAPI(CourseDirectory(config=config), config=config)
result = api.generate_assignment(sys.argv[1], force=True)
if result["success"]:
    result = api.release_assignment(sys.argv[1])
if not result["success"]:
    sys.exit(f"{sys.argv[1]}: {result.get('error')}\\n{result.get('log')}")
"""


#: ``make html``'s site (attention_grader.pages.docs_site) built from the lessons as the run
#: executed them once for every module (tests/support/lesson_run.py), not executed again.
_SITE = """import sys
from attention_grader.pages import docs_site
from tests.support.lesson_run import executed_files
sys.exit(docs_site.main(["--no-execute", "--out", sys.argv[1], *map(str, executed_files())]))
"""


@pytest.fixture(scope="package", autouse=True)
def background(request, course, tmp_path_factory):
    """Slow preparations started at once, in the background, only if a collected test needs
    them: ``make html``'s site of the executed lessons (for the accessibility audit) and the
    release of an assignment (for the Assignment List). Tests wait on them through ``jobs``.
    """
    ids = [item.nodeid for item in request.session.items]
    work = tmp_path_factory.mktemp("background")
    jobs = {}
    if any("test_a11y" in i for i in ids):
        html_dir = work / "html"
        jobs["html"] = BackgroundJob(
            [sys.executable, "-c", _SITE, str(html_dir)], REPO, kernel_env(), work / "site.log"
        )
        jobs["html"].output = html_dir
    if any("test_nbgrader_ui" in i for i in ids):
        (course / "exchange").mkdir(exist_ok=True)
        jobs["release"] = BackgroundJob(
            [sys.executable, "-c", _RELEASE, RELEASED_ASSIGNMENT],
            course,
            kernel_env(),
            work / "release.log",
        )
    yield jobs
    for job in jobs.values():
        job.stop()


@pytest.fixture(scope="package")
def late_class(tmp_path_factory) -> Path:
    """A course with a late and an on-time hand-in, autograded (test_formgrader_scores): one
    for the package, as test_formgrader_scores and test_report_pages (on a copy) read it.
    """
    from .test_formgrader_scores import make_late_class

    return make_late_class(tmp_path_factory.mktemp("late") / "course")


@pytest.fixture(scope="package")
def lab(course, tmp_path_factory):
    server = start_jupyter(course, tmp_path_factory.mktemp("jupyter"))
    yield server
    server.stop()


# Package scope, not session: playwright's sync API keeps an asyncio loop running in the main
# thread while it is open, and later tests (nbclient, nbgrader) call asyncio.run().
@pytest.fixture(scope="package")
def browser():
    with sync_playwright() as pw:
        chromium = launch_chromium(pw)
        yield chromium
        chromium.close()


@pytest.fixture(scope="package")
def browser_context(browser):
    """One context for the session: JupyterLab's hashed JS bundles load once, then from cache.

    JupyterLab keeps its layout on the server (workspaces), and each page opens with
    ``?reset``, so sharing the context shares no state between tests but the HTTP cache.
    """
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture
def page(browser_context, artifacts, request):
    """A fresh page; its final state is screenshotted as a test artifact."""
    pg = browser_context.new_page()
    console_errors: list[str] = []
    pg.on("pageerror", lambda exc: console_errors.append(str(exc)))
    pg.console_errors = console_errors  # uncaught exceptions in the page, for the tests
    yield pg
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    try:
        pg.screenshot(path=str(artifacts / f"{name}.png"))
    finally:
        pg.close()


@pytest.fixture(scope="package")
def lab_page(browser_context, lab):
    """One JupyterLab page shared by the tests that open notebooks in JupyterLab.

    Loading JupyterLab costs seconds of CPU, so it is loaded once; each test opens its
    notebook in it (``open_in_lab``) and closes it again (``close_current``).
    """
    pg = browser_context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.console_errors = errors
    yield pg
    pg.close()
