"""Step 2: collect the students' submissions from the exchange into ``submitted/``."""

from __future__ import annotations

from dataclasses import dataclass, field

from attention_grader.common.flags import Flag
from attention_grader.config.course import Course, check_result

__all__ = ["CollectReport", "collect", "collect_report"]


@dataclass
class CollectReport:
    """What one collect did.

    Attributes
    ----------
    students : list of str
        Everyone with a collected submission of the assignment (sorted).
    flags : dict of str to list of Flag
        Per (printable) student id, what was refused while copying from the exchange: links,
        special files, hidden and unexpected files, a timestamp that is not the exchange's.
    refused : list of str
        One line per exchange folder not collected, with the reason and where it is kept
        ("refused: folder owned by mallory names alice (exchange folder …); not collected";
        see :mod:`attention_grader.exchange.exchange_identity`).
    recorded : int
        Folders this collect added to ``submission_history/<assignment>.csv`` (first seen as
        they are: :mod:`attention_grader.exchange.submission_history`).
    """

    students: list[str] = field(default_factory=list)
    flags: dict[str, list[Flag]] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    recorded: int = 0


def collect_report(course: Course, assignment: str) -> CollectReport:
    """``nbgrader collect --update`` through :class:`~attention_grader.exchange.safe_exchange.SafeExchangeCollect`.

    A student who submitted again after an earlier collect gets the newer submission (the
    grader then re-grades it, because its timestamp is newer than the autograded copy). Who
    handed in and when come from the system, not from the folder's name; a folder that fails
    that check is refused, one line each in :attr:`CollectReport.refused`, and kept in
    ``quarantine/refused/<assignment>/``. Nothing
    in the exchange is followed: links and special files are not copied (see
    :mod:`attention_grader.intake.intake`), whatever the course's ``nbgrader_config.py`` says.
    """
    from nbgrader.utils import capture_log

    from attention_grader.exchange.safe_exchange import SafeExchangeCollect

    api = course.api()
    if not api.exchange_is_functional:
        raise FileNotFoundError(
            f"the exchange {course.exchange} is missing or unreadable; run `make release` first"
            " or set ATTENTION_LAB_EXCHANGE to the shared exchange folder"
        )
    coursedir = course.coursedir(assignment_id=assignment)
    # as NbGraderAPI.collect does (its log captured, not printed), with the safe collector
    app = SafeExchangeCollect(coursedir=coursedir, authenticator=api.authenticator, parent=api)
    app.update = True
    check_result(capture_log(app), f"collect {assignment}")
    submitted = course.root / "submitted"
    students = sorted(p.parent.name for p in submitted.glob(f"*/{assignment}") if p.is_dir())
    return CollectReport(students, app.flags, list(app.refused_lines), app.recorded)


def collect(course: Course, assignment: str) -> list[str]:
    """:func:`collect_report`; return the ids of students collected."""
    return collect_report(course, assignment).students
