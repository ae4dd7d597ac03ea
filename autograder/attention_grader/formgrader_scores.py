"""The formgrader shows each submission's final score: the late penalty already subtracted.

nbgrader keeps the late penalty apart from the grades, and its formgrader lists the score
before it (late sam read 6/10 there and 4.8 in ``grades.csv``). This server extension wraps
the three ``NbGraderAPI`` calls behind the formgrader's submission lists (an assignment's
submissions, one submission, a student's submissions) so that their ``score`` is
:func:`~attention_grader.late.final_score`, the number the batch summary, ``grades.csv``, the
Canvas file and the report show; each such row also carries ``late_penalty``. Grading itself
and nbgrader's own exports read the gradebook, not these calls, and are unchanged.

Enabled with the course's Jupyter server (``jupyter-settings/jupyter_server_config.d``).
"""

from __future__ import annotations

import functools

from .late import final_score

__all__ = ["show_final_scores"]

_WRAPPED = "_attention_grader_final_scores"


def _with_final_score(api, row: dict, assignment: str, student: str) -> dict:
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
    def get_submission(self, assignment_id, student_id, *args, **kwargs):
        row = one(self, assignment_id, student_id, *args, **kwargs)
        return _with_final_score(self, row, assignment_id, student_id)

    @functools.wraps(many)
    def get_submissions(self, assignment_id):
        rows = many(self, assignment_id)
        return [_with_final_score(self, r, assignment_id, r["student"]) for r in rows]

    NbGraderAPI.get_submission = get_submission  # get_student_submissions calls it
    NbGraderAPI.get_submissions = get_submissions
    setattr(NbGraderAPI, _WRAPPED, True)


def _jupyter_server_extension_points():
    return [{"module": "attention_grader.formgrader_scores"}]


def _load_jupyter_server_extension(serverapp) -> None:
    show_final_scores()
    serverapp.log.info("attention_grader.formgrader_scores: formgrader scores are final scores")
