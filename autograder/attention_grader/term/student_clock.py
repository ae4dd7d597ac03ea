"""The student's clock: where a student stands, said in nbgrader's Assignment List.

nbgrader's Assignment List shows no due date, offers *Fetch Feedback* as soon as an assignment is
submitted (and, pressed before any feedback exists, logs a traceback and shows nothing), and its
Validate says "Success! Your notebook passes all the tests." whenever no visible check failed,
even on a multiple-choice test whose answers are only checked after submission.

This Jupyter server extension (loaded by ``jupyter-settings/jupyter_server_config.d``) keeps
nbgrader's own pages and adds what they lack, from the server:

* ``GET <base>/attention-lab/clock?course_id=...``: for each assignment, its due date (the notice
  release publishes, :mod:`attention_grader.intake.due_notice`), how late a hand-in now would
  be and what it costs, whether feedback is released, and how late each hand-in was;
* ``GET <base>/attention-lab/validated``: what the last successful Validate really checked;
* nbgrader's ``fetch_feedback`` does nothing (no traceback) while no feedback is released.

The course's small JupyterLab plugin (``jupyter-settings/labextensions/course-ui``, plain
JavaScript, no build) shows these in the Assignment List, asks before a late Submit, hides
*Fetch Feedback* until there is feedback, and puts the validated note in place of nbgrader's
"passes all the tests".
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attention_grader.config.nbgrader_patches import apply
from attention_grader.intake.due_notice import DueNotice, notice_path, read_notice
from attention_grader.intake.final_scores import how_late

__all__ = ["AssignmentClock", "clock_of", "feedback_pages", "validated_note"]

_BLANK_MARKERS = ("YOUR ANSWER HERE", "raise NotImplementedError")


@dataclass(frozen=True)
class AssignmentClock:
    """Where a student stands on one assignment, in words.

    Attributes
    ----------
    due : str
        ``"due 2026-12-07 17:00 IST (Asia/Kolkata) = ...: in 2 d 3 h"``; empty when the teacher
        set no due date.
    late : bool
        Whether a hand-in now is after the due date.
    submit_warning : str
        What the student is asked before a late Submit (empty when on time).
    feedback : bool
        Whether feedback on a hand-in is released (Fetch Feedback has something to fetch).
    submissions : tuple of (str, str)
        ``(timestamp, "on time" | "late by 16 min: ...")`` for each hand-in.
    """

    due: str = ""
    late: bool = False
    submit_warning: str = ""
    feedback: bool = False
    submissions: tuple[tuple[str, str], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "due": self.due,
            "late": self.late,
            "submit_warning": self.submit_warning,
            "feedback": self.feedback,
            "submissions": [{"timestamp": t, "lateness": s} for t, s in self.submissions],
        }


def _parse_timestamp(text: str) -> datetime | None:
    from nbgrader.utils import parse_utc

    try:
        stamp: datetime = parse_utc(text)
    except (ValueError, TypeError, OverflowError):
        return None
    return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp


def _now_clock(notice: DueNotice | None, now: datetime) -> tuple[str, bool, str]:
    if notice is None:
        return "", False, ""
    late = notice.seconds_late(now)
    if late <= 0:
        return f"due {notice.due_text()}: in {how_late(-late)}", False, ""
    lateness = notice.lateness(now)
    warning = (
        f"The due date was {notice.due_text()}. Handed in now, this assignment is {lateness}. "
        "Hand it in anyway?"
    )
    return f"due {notice.due_text()}: now {lateness}", True, warning


def clock_of(
    assignment: str,
    notice: DueNotice | None,
    submitted: dict[str, Any] | None,
    now: datetime,
) -> AssignmentClock:
    """Return where the student stands on ``assignment`` at ``now``.

    Parameters
    ----------
    notice : DueNotice or None
        The published due date (None: the teacher set none).
    submitted : dict or None
        nbgrader's list entry of the student's hand-ins of it (``status == "submitted"``).
    now : datetime
        Aware.
    """
    due, late, warning = _now_clock(notice, now)
    hand_ins = (submitted or {}).get("submissions", [])
    feedback = any(s.get("has_exchange_feedback") or s.get("has_local_feedback") for s in hand_ins)
    rows = []
    for hand_in in hand_ins:
        stamp = str(hand_in.get("timestamp", ""))
        when = _parse_timestamp(stamp)
        if notice is not None and when is not None:
            rows.append((stamp, notice.lateness(when)))
    return AssignmentClock(due, late, warning, feedback, tuple(rows))


def validated_note(result: dict[str, Any], notebook: Path) -> str:
    """Say what a validation that found nothing wrong really checked ("" otherwise).

    Validate runs the notebook and the visible checks only: whether a choice or a value is right
    is graded after the student submits. So it is said that way, with how many answers are
    filled in, never "passes all the tests".
    """
    value = result.get("value")
    if not result.get("success"):
        return ""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return ""
    if not isinstance(value, dict) or any(
        value.get(k) for k in ("failed", "changed", "type_changed")
    ):
        return ""
    import nbformat

    try:
        nb = nbformat.read(notebook, as_version=4)
    except Exception:  # noqa: BLE001 -- validated a moment ago; a vanished file gets no note
        return ""
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    blank = [c for c in answers if any(m in c.source for m in _BLANK_MARKERS)]
    filled = f"{len(answers) - len(blank)} of {len(answers)} answers filled in"
    return (
        f"Validate ran your notebook from top to bottom: no cell stopped with an error and every "
        f"visible check passed ({filled}). It does not say whether your answers are right: "
        "they are graded after you submit."
    )


def _submitted_entry(manager: Any, course_id: str, assignment: str) -> dict[str, Any] | None:
    listed = manager.list_submitted_assignments(course_id=course_id)
    for entry in listed.get("value", []) if listed.get("success") else []:
        if entry.get("assignment_id") == assignment:
            return dict(entry)
    return None


def _exchange_root(manager: Any) -> Path:
    from nbgrader.exchange.default.exchange import Exchange

    with manager.get_assignment_dir_config() as config:
        return Path(Exchange(config=config).root)


def _course_clock(manager: Any, course_id: str, now: datetime) -> dict[str, Any]:
    outbound = notice_path(_exchange_root(manager), course_id, "x").parent
    notices = {
        p.name[len(".due-") : -len(".json")]: read_notice(p)
        for p in sorted(outbound.glob(".due-*.json"))
    }
    listed = manager.list_submitted_assignments(course_id=course_id)
    submitted = (
        {e["assignment_id"]: e for e in listed.get("value", [])} if listed.get("success") else {}
    )
    clocks = {}
    for name in sorted(set(notices) | set(submitted)):
        clocks[name] = clock_of(name, notices.get(name), submitted.get(name), now).as_json()
        clocks[name]["feedback_pages"] = feedback_pages(Path(manager.root_dir), submitted.get(name))
    return clocks


def feedback_pages(root: Path, submitted: dict[str, Any] | None) -> dict[str, list[str]]:
    """Map each hand-in's timestamp to its fetched feedback pages, relative to the server's root.

    nbgrader's "(view feedback)" opens the folder they are in; the plugin opens the page.
    """
    pages: dict[str, list[str]] = {}
    base = root.resolve()
    for hand_in in (submitted or {}).get("submissions", []):
        folder = hand_in.get("local_feedback_path")
        if not hand_in.get("has_local_feedback") or not isinstance(folder, str):
            continue
        where = (base / folder).resolve()
        if where.is_relative_to(base) and where.is_dir():
            found = [str(p.relative_to(base)) for p in sorted(where.glob("*.html"))]
            pages[str(hand_in.get("timestamp"))] = found
    return pages


def wrap_assignment_list() -> None:
    """Make nbgrader's ``fetch_feedback`` a quiet no-op while no feedback is released.

    Patch ``quiet_fetch_feedback`` of :mod:`attention_grader.config.nbgrader_patches`.
    """
    apply("quiet_fetch_feedback", {"fetch_feedback": _quiet_fetch_feedback})


def _quiet_fetch_feedback(original: Any) -> Any:
    @functools.wraps(original)
    def fetch_feedback(self: Any, course_id: str, assignment_id: str) -> dict[str, Any]:
        entry = _submitted_entry(self, course_id, assignment_id)
        if entry is None or not clock_of(assignment_id, None, entry, datetime.now(UTC)).feedback:
            self.log.info("%s: no feedback released yet, nothing to fetch", assignment_id)
            return {"success": False, "value": f"No feedback on {assignment_id} is released yet."}
        fetched: dict[str, Any] = original(self, course_id, assignment_id)
        return fetched

    return fetch_feedback


def wrap_validate() -> None:
    """Remember what the last validation that found nothing wrong checked (``validated``).

    Patch ``validated_note`` of :mod:`attention_grader.config.nbgrader_patches`.
    """
    apply("validated_note", {"validate_notebook": _noting_validate})


def _noting_validate(original: Any) -> Any:
    @functools.wraps(original)
    def validate_notebook(self: Any, path: str) -> dict[str, Any]:
        result: dict[str, Any] = original(self, path)
        note = validated_note(result, Path(self.root_dir) / path)
        self.settings["attention_lab_validated"] = note
        return result

    return validate_notebook


def _handlers(serverapp: Any) -> list[tuple[str, Any]]:
    from jupyter_server.base.handlers import JupyterHandler
    from jupyter_server.utils import url_path_join
    from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
    from tornado import web

    class ClockHandler(JupyterHandler):
        @web.authenticated
        def get(self) -> None:
            manager = self.settings.get("assignment_list_manager")
            if manager is None:
                manager = AssignmentList(parent=serverapp)
                manager.root_dir = serverapp.root_dir
            course_id = self.get_argument("course_id")
            clocks = _course_clock(manager, course_id, datetime.now(UTC))
            self.finish(json.dumps({"assignments": clocks}))

    class ValidatedHandler(JupyterHandler):
        @web.authenticated
        def get(self) -> None:
            self.finish(json.dumps({"note": self.settings.get("attention_lab_validated", "")}))

    base = serverapp.web_app.settings["base_url"]
    return [
        (url_path_join(base, "attention-lab", "clock"), ClockHandler),
        (url_path_join(base, "attention-lab", "validated"), ValidatedHandler),
    ]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "attention_grader.term.student_clock"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    wrap_assignment_list()
    wrap_validate()
    serverapp.web_app.add_handlers(".*$", _handlers(serverapp))
    serverapp.log.info("attention_grader.term.student_clock: due dates and lateness for students")
