"""The formgrader shows each student's one final score: the late penalty already subtracted.

nbgrader keeps the late penalty apart from the grades, and its formgrader adds up the scores
before it: the same late student read 8/10 in Manual Grading, 32/50 in Manage Students and the
class average was not the report's. This server extension wraps every ``NbGraderAPI`` call
behind a score the formgrader draws so that each reads the one
:class:`~attention_grader.intake.final_scores.FinalScore` that ``grades.csv``, the Canvas file,
the batch summary and the report show:

* an assignment's submissions and one submission (``get_submissions``, ``get_submission``,
  also behind a student's list): the final score, with ``late_penalty`` beside it;
* a notebook's submissions (Manual Grading) and a student's notebooks: each notebook's score
  less that notebook's share of the penalty (nbgrader keeps it per notebook);
* the students (Manage Students): the sum of each student's final scores;
* the assignments' and notebooks' averages:
  :func:`~attention_grader.intake.final_scores.class_mean`, over the fully graded submissions.

Grading itself and nbgrader's own exports read the gradebook, not these calls, and are
unchanged. Its submission lists (an assignment's submissions, a student's assignments) draw
``score / max`` only; :func:`show_penalty_beside_scores` adds a small script to those two pages
that writes the penalty beside the score, as the batch summary does: ``4.8 / 10 (late −1.2)``.

Enabled with the course's Jupyter server (``jupyter-settings/jupyter_server_config.d``).
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable
from typing import Any

from attention_grader.config.nbgrader_patches import apply
from attention_grader.intake.final_scores import assignment_finals, class_mean, final_of

__all__ = ["LATE_PENALTY_SCRIPT", "show_final_scores", "show_penalty_beside_scores"]


def _submission_final(api: Any, row: dict[str, Any], assignment: str, *_: Any) -> dict[str, Any]:
    """Set ``row["score"]`` to the submission's final score, once (``late_penalty`` marks it)."""
    from nbgrader.api import MissingEntry

    if "late_penalty" in row or not row.get("autograded"):
        return row
    with api.gradebook as gb:
        try:
            final = final_of(gb.find_submission(assignment, row["student"]))
        except MissingEntry:
            return row
    row["late_penalty"] = final.penalty
    row["score"] = final.score
    return row


def _notebook_final(api: Any, row: dict[str, Any], *_: Any) -> dict[str, Any]:
    """Subtract a submitted notebook's own penalty from its row (found by the row's ``id``)."""
    from nbgrader.api import MissingEntry

    if row.get("id") is None or "late_penalty" in row:
        return row
    with api.gradebook as gb:
        try:
            nb = gb.find_submission_notebook_by_id(row["id"])
        except MissingEntry:
            return row
        penalty = nb.late_submission_penalty or 0.0
    row["late_penalty"] = penalty
    row["score"] = max(0.0, (row.get("score") or 0.0) - penalty)
    return row


def _student_total(api: Any, row: dict[str, Any], *_: Any) -> dict[str, Any]:
    """Set a Manage Students row's score to the sum of the student's final scores."""
    from nbgrader.api import MissingEntry

    with api.gradebook as gb:
        try:
            subs = gb.find_student(row["id"]).submissions
        except MissingEntry:  # handed in, not on the roster: nbgrader lists 0 already
            return row
        row["score"] = sum(final_of(sub).score for sub in subs)
    return row


def _assignment_average(api: Any, row: dict[str, Any], assignment: str, *_: Any) -> dict[str, Any]:
    """Set an assignment row's average to the class mean every page shows."""
    if row.get("num_submissions"):
        with api.gradebook as gb:
            mean = class_mean(assignment_finals(gb, assignment))
        row["average_score"] = 0.0 if mean is None else mean
    return row


def _notebook_average(api: Any, row: dict[str, Any], assignment: str, *_: Any) -> dict[str, Any]:
    """Set a notebook row's average to the mean of its final scores, as :func:`_assignment_average`.

    Every submission counts, one still waiting for a teacher with its score so far, as in
    :func:`~attention_grader.intake.final_scores.class_mean`.
    """
    if not row.get("num_submissions"):
        return row
    with api.gradebook as gb:
        scores = [
            max(0.0, (nb.score or 0.0) - (nb.late_submission_penalty or 0.0))
            for nb in gb.notebook_submissions(row["name"], assignment)
        ]
    row["average_score"] = statistics.fmean(scores) if scores else 0.0
    return row


_Fix = Callable[..., dict[str, Any]]

#: Each wrapped ``NbGraderAPI`` call and what it does to every row it returns (a row, a list of
#: rows, or None); the fix gets the call's own positional arguments after the row.
_FIXES: dict[str, _Fix] = {
    "get_submission": _submission_final,  # get_student_submissions calls it
    "get_submissions": _submission_final,
    "get_notebook_submissions": _notebook_final,
    "get_student_notebook_submissions": _notebook_final,
    "get_students": _student_total,
    "get_student": _student_total,
    "get_assignment": _assignment_average,  # get_assignments calls it
    "get_notebooks": _notebook_average,
}


def _each_row(original: Callable[..., Any], fix: _Fix) -> Callable[..., Any]:
    @functools.wraps(original)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, *args, **kwargs)
        if isinstance(out, list):
            return [fix(self, row, *args) for row in out]
        return out if out is None else fix(self, out, *args)

    return wrapped


def show_final_scores() -> None:
    """Wrap every ``NbGraderAPI`` call behind a score the formgrader draws (once per process)."""
    apply(
        "final_scores",
        {name: functools.partial(_each_row, fix=fix) for name, fix in _FIXES.items()},
    )


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

    return write


def show_penalty_beside_scores() -> None:
    """Make the formgrader's two submission lists draw the late penalty (idempotent)."""
    apply("penalty_beside_submissions", {"write": _write_with_penalty})
    apply("penalty_beside_student_assignments", {"write": _write_with_penalty})


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "attention_grader.term.formgrader_scores"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    show_final_scores()
    show_penalty_beside_scores()
    serverapp.log.info(
        "attention_grader.term.formgrader_scores: formgrader scores are final scores"
    )
