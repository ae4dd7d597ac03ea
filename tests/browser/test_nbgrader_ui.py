"""nbgrader's JupyterLab extension for the course: the student's Assignment List and the
teacher's Formgrader open, know the course, and show its assignments.

An assignment is generated and released with nbgrader's own API in the temporary
course copy (its exchange is the copy's ``exchange/``, see ``nbgrader_config.py``), so the
Assignment List has something real to list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .driver import RELEASED_ASSIGNMENT as RELEASED

pytestmark = pytest.mark.slow

COURSE_ID = "attention-lab"


def _source_assignments(course: Path) -> list[str]:
    return sorted(p.name for p in (course / "source").iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def released(background, course) -> str:
    """The assignment released (in the background, see conftest) to the copy's exchange."""
    assert (course / "source" / RELEASED).is_dir(), f"source/{RELEASED} is missing"
    background["release"].wait(timeout=240)
    return RELEASED


def _execute(page, command: str) -> None:
    """Run a JupyterLab command once the app has restored its layout (which would hide it)."""
    page.wait_for_function(
        "c => !!window.jupyterapp && window.jupyterapp.commands.hasCommand(c)", arg=command
    )
    page.evaluate(
        "c => window.jupyterapp.restored.then(() => window.jupyterapp.commands.execute(c))", command
    )


def test_assignment_list_shows_the_released_assignment(page, lab, released, artifacts):
    page.goto(lab.url("lab?reset"))
    _execute(page, "nbgrader:open-assignment-list")
    panel = page.locator("#nbgrader-assignment-list")
    panel.wait_for(state="visible")
    released_list = panel.locator("#released_assignments_list")
    # The row for the assignment appears once the extension has asked the exchange.
    released_list.get_by_text(released, exact=True).wait_for(timeout=60_000)
    course_picker = panel.locator("#course_list_dropdown, .dropdown-toggle").first
    assert COURSE_ID in panel.inner_text() or COURSE_ID in course_picker.inner_text()
    assert "does not exist" not in panel.inner_text()
    panel.screenshot(path=str(artifacts / "nbgrader_assignment_list.png"))


def test_formgrader_lists_the_course_assignments(page, lab, course, released, artifacts):
    page.goto(lab.url("lab?reset"))
    _execute(page, "nbgrader:open-formgrader")
    frame = page.frame_locator("#formgrader-iframe iframe")
    table = frame.locator("#main-table")
    # The formgrader's first request builds the gradebook (alembic): allow it time.
    for name in _source_assignments(course):
        table.get_by_text(name, exact=True).first.wait_for(timeout=90_000)
    text = table.inner_text()
    assert "released" in text.lower() or released in text
    assert "error" not in frame.locator("body").inner_text().lower()
    page.screenshot(path=str(artifacts / "nbgrader_formgrader.png"))
