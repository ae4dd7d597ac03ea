"""The course's late-submission penalty: a share of the score per started day late, capped.

An nbgrader late-submission plugin (nbgrader's ``AssignLatePenalties`` step of autograde calls
it for each notebook of a late submission). Set in ``nbgrader_config.py``::

    c.AssignLatePenalties.plugin_class = "attention_grader.intake.late.SharePerDay"
    c.SharePerDay.share_per_day = 0.1   # 10% of the score for each started day late
    c.SharePerDay.max_share = 0.5       # never more than half
    c.SharePerDay.grace_minutes = 15    # a submission up to 15 min late is on time

nbgrader stores the penalty per notebook; the formgrader, ``make grades`` (``late_penalty``
and a ``score`` with it subtracted) and the feedback page show it. nbgrader computes it when
the notebook is autograded, from the score at that moment: written answers graded by hand
afterwards are not included in it.
"""

from __future__ import annotations

import math
from typing import Any

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

__all__ = ["SharePerDay", "final_score", "late_penalty"]

DAY = 86400.0


def late_penalty(score: float, seconds_late: float, share_per_day: float, max_share: float,
                 grace_minutes: float = 0.0) -> float:  # fmt: skip
    """Points taken off ``score`` for a submission ``seconds_late`` after the due date.

    Parameters
    ----------
    score : float
        The notebook's score before the penalty.
    seconds_late : float
    share_per_day : float
        Share of ``score`` taken off for each started day (0.1 = 10%).
    max_share : float
        The most that is ever taken off, as a share of ``score``.
    grace_minutes : float
        Lateness forgiven (clock skew, a slow upload).

    Returns
    -------
    float
        The penalty in points, rounded to 2 decimals; 0 when on time.

    Examples
    --------
    >>> late_penalty(10, 3600, 0.1, 0.5)  # 1 h late: the first day started
    1.0
    >>> late_penalty(10, 2.5 * 86400, 0.1, 0.5)  # 3 started days
    3.0
    >>> late_penalty(10, 30 * 86400, 0.1, 0.5)  # capped
    5.0
    """
    late = seconds_late - 60 * grace_minutes
    if late <= 0 or score <= 0:
        return 0.0
    days = math.ceil(late / DAY)
    return round(score * min(max_share, share_per_day * days), 2)


def final_score(submission: Any) -> float:
    """Return a submission's score with its late penalty subtracted (never below 0).

    It is the one number the batch summary, ``grades.csv``, the Canvas file, the report and the
    formgrader show.

    nbgrader keeps the penalty apart from the grades (``submission.score`` is before it); every
    place that shows a score calls this, with the penalty beside it.

    Parameters
    ----------
    submission : nbgrader.api.SubmittedAssignment or SubmittedNotebook
    """
    return max(0.0, (submission.score or 0.0) - (submission.late_submission_penalty or 0.0))


class SharePerDay(LateSubmissionPlugin):
    """``share_per_day`` of the notebook's score per started day late, at most ``max_share``."""

    share_per_day = Float(0.1, help="Share of the score taken off per started day late.").tag(
        config=True
    )
    max_share = Float(0.5, help="The largest share of the score ever taken off.").tag(config=True)
    grace_minutes = Float(0.0, help="Minutes of lateness forgiven.").tag(config=True)

    def late_submission_penalty(
        self, student_id: str, score: float, total_seconds_late: float
    ) -> float:
        penalty = late_penalty(
            score, total_seconds_late, self.share_per_day, self.max_share, self.grace_minutes
        )
        self.log.info("%s: %.0f s late, penalty %g of %g", student_id, total_seconds_late,
                      penalty, score)  # fmt: skip
        return penalty
