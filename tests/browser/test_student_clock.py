"""What a student sees of the clock in nbgrader's Assignment List (issue 39, item 2).

A course of its own (the fixture assignment, released with a due date 1 d 2 h ago) served by a
JupyterLab of its own, as a student's server: the Assignment List says the due date and how late
a hand-in now is and what it costs; Submit asks first (dismissed: nothing is handed in); the
hand-in says it was late; Fetch Feedback is not offered before feedback is released (and the
server logs no traceback when asked anyway); Validate on an answered notebook says what it
checked, never "passes all the tests".
"""

from __future__ import annotations

import json
import time
import urllib.request
from datetime import UTC, datetime, timedelta

import nbformat
import pytest

from tests.support.grading_course import CORRECT, FIXTURE, answer, make_course

from .driver import open_in_lab, run_command, start_jupyter

pytestmark = pytest.mark.slow

LATE_BY = "1 d 2 h"
COST = "20% of the score is taken off"  # 2 started days after the 15 min grace, 10% each


@pytest.fixture(scope="module")
def student_lab(tmp_path_factory):
    """A released course and a JupyterLab on it, as a student's server sees it."""
    tmp = tmp_path_factory.mktemp("clock")
    course = make_course(tmp)
    course.config.AssignLatePenalties.plugin_class = "attention_grader.intake.late.SharePerDay"
    course.config.SharePerDay.grace_minutes = 15
    course.config.SharePerDay.share_per_day = 0.1
    course.config.SharePerDay.max_share = 0.5
    due = datetime.now(UTC) - timedelta(days=1, hours=2, minutes=20)
    from attention_grader.steps.release import release

    release(course, FIXTURE, duedate=f"{due:%Y-%m-%d %H:%M} UTC")
    server = start_jupyter(course.root, tmp / "jupyter")
    yield course, server
    server.stop()


def _row(page, listing: str):
    return page.locator(f"#{listing}_assignments_list > .list_item").filter(has_text=FIXTURE)


def _open_assignment_list(page, server) -> None:
    if not page.url.startswith(server.base + "lab"):
        page.goto(server.url("lab?reset"))
    page.wait_for_function(
        "() => !!window.jupyterapp && window.jupyterapp.commands.hasCommand("
        "'nbgrader:open-assignment-list')",
        timeout=60_000,
    )
    run_command(page, "nbgrader:open-assignment-list")
    page.locator("#nbgrader-assignment-list").wait_for(state="visible")


def _click_through_dialog(page, button, accept: bool) -> str:
    """Click ``button``, answer the dialog it opens; return the dialog's message.

    The dialog is answered by a handler as it opens: a click whose confirm() is still open
    waits for it, so answering after the click returns can hang a busy machine's run.
    """
    said: list[str] = []

    def answer(dialog) -> None:
        said.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", answer)
    button.click()
    deadline = time.monotonic() + 60
    while not said and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # lets the page's events (the dialog's) be handled
    assert said, "Submit opened no dialog"
    return said[0]


def _post(server, action: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{server.base}assignments/{action}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)


def test_the_student_knows_the_due_date_and_is_asked_before_a_late_submit(
    page, student_lab, artifacts
):
    course, server = student_lab
    _open_assignment_list(page, server)
    released = _row(page, "released")
    said = released.locator(".attention-clock")
    said.wait_for(timeout=60_000)
    text = said.inner_text()
    assert text.startswith("due ") and f"now late by {LATE_BY}" in text and COST in text, text

    released.get_by_role("button", name="Fetch").click()
    fetched = _row(page, "fetched")
    fetched.locator(".attention-clock").wait_for(timeout=60_000)
    assert f"late by {LATE_BY}" in fetched.locator(".attention-clock").inner_text()

    # the student changes her mind: nothing is handed in
    warning = _click_through_dialog(page, fetched.get_by_role("button", name="Submit"), False)
    assert "The due date was" in warning
    assert f"late by {LATE_BY}" in warning and COST in warning, warning
    inbound = course.exchange / course.course_id / "inbound"
    assert not any(inbound.glob("*")), "dismissed, yet handed in"
    assert fetched.get_by_role("button", name="Submit").is_enabled()

    _click_through_dialog(page, fetched.get_by_role("button", name="Submit"), True)
    submitted = _row(page, "submitted")
    submitted.locator(".attention-clock-feedback").wait_for(timeout=60_000)
    assert any(inbound.glob(f"*+{FIXTURE}+*"))
    assert submitted.locator(".attention-clock-feedback").inner_text() == (
        "feedback not released yet"
    )
    assert not submitted.get_by_role("button", name="Fetch Feedback").is_visible()
    hand_in = submitted.locator(".attention-clock-handin")
    assert f"late by {LATE_BY}" in hand_in.first.text_content()


def test_fetch_feedback_before_any_is_released_logs_no_traceback(student_lab):
    course, server = student_lab
    before = server.log()
    result = _post(
        server, "fetch_feedback", {"course_id": "attention-lab", "assignment_id": FIXTURE}
    )
    assert result["success"]
    new = server.log()[len(before) :]
    assert "Traceback" not in new, new
    assert "no feedback released yet" in new


def test_validate_says_what_it_checked_not_passes_all_the_tests(page, student_lab, artifacts):
    course, server = student_lab
    fetched = course.root / FIXTURE / f"{FIXTURE}.ipynb"
    assert fetched.exists(), "the first test fetches the assignment"
    rel = f"{FIXTURE}/answered.ipynb"
    nb = answer(nbformat.read(fetched, as_version=4), CORRECT)
    nbformat.write(nb, course.root / rel)
    open_in_lab(page, server, rel)
    page.locator(".jp-NotebookPanel-toolbar .validate-button").first.click()
    message = page.locator("#validation-message")
    message.wait_for(timeout=120_000)
    page.wait_for_function(
        "() => document.querySelector('#validation-message').dataset.attentionClock === 'explained'",
        timeout=60_000,
    )
    text = message.inner_text()
    assert "passes all the tests" not in text
    answers = sum(1 for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    assert f"{answers} of {answers} answers filled in" in text
    assert "does not say whether your answers are right" in text


def test_view_feedback_opens_the_page_not_its_folder(page, student_lab):
    """The "(view feedback)" link went to the feedback folder; it opens the page now."""
    course, server = student_lab
    inbound = course.exchange / course.course_id / "inbound"
    (handed_in,) = inbound.glob(f"*+{FIXTURE}+*")  # the first test submitted
    stamp = handed_in.name.split("+")[2]
    folder = course.root / FIXTURE / "feedback" / stamp  # where Fetch Feedback puts the page
    folder.mkdir(parents=True)
    (folder / f"{FIXTURE}.html").write_text("<html><body><p>Your feedback</p></body></html>")
    _open_assignment_list(page, server)
    submitted = _row(page, "submitted")
    link = submitted.get_by_text("(view feedback)")
    link.wait_for(timeout=60_000)
    assert submitted.get_by_role("button", name="Fetch Feedback").is_visible()  # there is some
    link.click()
    page.wait_for_function(
        "p => { const w = window.jupyterapp.shell.currentWidget;"
        " return !!w && !!w.context && w.context.path === p; }",
        arg=f"{FIXTURE}/feedback/{stamp}/{FIXTURE}.html",
        timeout=60_000,
    )
