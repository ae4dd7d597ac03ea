"""The formgrader shows each submission's final score: the late penalty already subtracted.

nbgrader keeps the late penalty apart from the grades, and its formgrader lists the score
before it (late sam read 6/10 there and 4.8 in ``grades.csv``). This server extension wraps
the three ``NbGraderAPI`` calls behind the formgrader's submission lists (an assignment's
submissions, one submission, a student's submissions) so that their ``score`` is
:func:`~attention_grader.intake.late.final_score`, the number the batch summary, ``grades.csv``, the
Canvas file and the report show; each such row also carries ``late_penalty``. Grading itself
and nbgrader's own exports read the gradebook, not these calls, and are unchanged.

Its submission lists (an assignment's submissions, a student's assignments) draw ``score /
max`` only; :func:`show_penalty_beside_scores` adds a small script to those two pages that
writes the penalty beside the score, as the batch summary does: ``4.8 / 10 (late −1.2)``.

Enabled with the course's Jupyter server (``jupyter-settings/jupyter_server_config.d``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from attention_grader.intake.late import final_score

__all__ = ["LATE_PENALTY_SCRIPT", "show_final_scores", "show_penalty_beside_scores"]

_WRAPPED = "_attention_grader_final_scores"


def _with_final_score(
    api: Any, row: dict[str, Any], assignment: str, student: str
) -> dict[str, Any]:
    """Set ``row["score"]`` to the submission's final score, once (``late_penalty`` marks it)."""
    from nbgrader.api import MissingEntry

    if "late_penalty" in row or not row.get("autograded"):
        return row
    with api.gradebook as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return row
        row["late_penalty"] = sub.late_submission_penalty or 0.0
        if row["late_penalty"]:
            row["score"] = final_score(sub)
    return row


def show_final_scores() -> None:
    """Wrap ``NbGraderAPI.get_submission`` and ``get_submissions`` (once per process)."""
    from nbgrader.apps.api import NbGraderAPI

    if getattr(NbGraderAPI, _WRAPPED, False):
        return
    one, many = NbGraderAPI.get_submission, NbGraderAPI.get_submissions

    @functools.wraps(one)
    def get_submission(
        self: Any, assignment_id: str, student_id: str, *args: Any, **kwargs: Any
    ) -> dict[str, Any]:
        row = one(self, assignment_id, student_id, *args, **kwargs)
        return _with_final_score(self, row, assignment_id, student_id)

    @functools.wraps(many)
    def get_submissions(self: Any, assignment_id: str) -> list[dict[str, Any]]:
        rows = many(self, assignment_id)
        return [_with_final_score(self, r, assignment_id, r["student"]) for r in rows]

    NbGraderAPI.get_submission = get_submission  # get_student_submissions calls it
    NbGraderAPI.get_submissions = get_submissions
    setattr(NbGraderAPI, _WRAPPED, True)


#: Wraps a formgrader list's row view (a Backbone view class named by ``%(view)s``): after
#: nbgrader draws ``score / max``, a row whose ``late_penalty`` is above 0 gets `` (late −p)``
#: beside it (text only; the number comes from this module's API rows, never from a page).
LATE_PENALTY_SCRIPT = """(function (View) {
  if (!View || View.prototype.__latePenalty) { return; }
  var render = View.prototype.render;
  View.prototype.render = function () {
    var out = render.apply(this, arguments);
    var penalty = Number(this.model.get("late_penalty") || 0);
    if (penalty > 0 && this.$score && this.$score.text()) {
      var shown = roundToPrecision(penalty, 2);
      this.$score.text(this.$score.text() + " (late \u2212" + shown + ")");
      this.$score.attr("title", "after the late penalty of " + shown + " point(s)");
    }
    return out;
  };
  View.prototype.__latePenalty = true;
})(window.%(view)s);"""
#: nbgrader's list pages: the script each loads, and the row view it defines.
_LIST_PAGES = {
    "manage_submissions.js": "SubmissionUI",
    "manage_students_assignments.js": "StudentSubmissionUI",
}


def with_penalty_script(page: str) -> str:
    """``page`` with :data:`LATE_PENALTY_SCRIPT` right after the list script it patches."""
    for script, view in _LIST_PAGES.items():
        tag = f'/formgrader/static/js/{script}"></script>'
        if tag in page:
            patch = LATE_PENALTY_SCRIPT % {"view": view}
            return page.replace(tag, f"{tag}\n<script>{patch}</script>", 1)
    return page


def _write_with_penalty(original: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def write(self: Any, chunk: Any) -> Any:
        if isinstance(chunk, str) and "<head" in chunk:
            chunk = with_penalty_script(chunk)
        return original(self, chunk)

    write.__wrapped__ = original  # type: ignore[attr-defined]  # the marker that says the patch is in place
    return write


def show_penalty_beside_scores() -> None:
    """Make the formgrader's two submission lists draw the late penalty (idempotent)."""
    from nbgrader.server_extensions.formgrader import handlers

    for page in (handlers.ManageSubmissionsHandler, handlers.ManageStudentsAssignmentsHandler):
        if "write" not in vars(page):  # its own write, not one it inherits
            page.write = _write_with_penalty(page.write)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "attention_grader.term.formgrader_scores"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    show_final_scores()
    show_penalty_beside_scores()
    serverapp.log.info(
        "attention_grader.term.formgrader_scores: formgrader scores are final scores"
    )
