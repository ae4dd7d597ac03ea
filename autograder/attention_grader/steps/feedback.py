"""Step 4: generate HTML feedback from the autograded notebooks and release it to the exchange."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from attention_grader.common.flags import UNEXPECTED_FILE, Flag
from attention_grader.common.safe_text import printable
from attention_grader.config.course import Course, GradingStepError, check_result

__all__ = [
    "FeedbackReport",
    "UngradedAnswers",
    "clean_feedback_folder",
    "feedback",
    "feedback_report",
    "ungraded_answers",
]

#: What ``nbgrader generate_feedback`` writes next to the pages, and the release needs.
KEEP = ("timestamp.txt", "submission_secret.txt")


@dataclass
class FeedbackReport:
    """What one feedback run did.

    Attributes
    ----------
    released : list of str
        Students whose feedback was published to the exchange (sorted).
    withheld : dict of str to str
        Printable student id -> one-line reason nothing was published for them (no readable
        ``submission_secret.txt``, no feedback page generated).
    flags : dict of str to list of Flag
        Files in a feedback folder that were not published (extra ``*.html``).
    ungraded : dict of str to list of str
        With ``partial``: student -> answers released as "not graded yet".
    """

    released: list[str] = field(default_factory=list)
    withheld: dict[str, str] = field(default_factory=dict)
    flags: dict[str, list[Flag]] = field(default_factory=dict)
    ungraded: dict[str, list[str]] = field(default_factory=dict)


class UngradedAnswers(GradingStepError):
    """Feedback was refused: some answers still wait for a teacher's grade.

    Attributes
    ----------
    waiting : dict of str to list of str
        Student id -> ``"<notebook>/<grade_id>"`` of each answer not graded yet.
    """

    def __init__(self, assignment: str, waiting: dict[str, list[str]]):
        self.waiting = waiting
        cells = sum(len(v) for v in waiting.values())
        lines = [
            f"not releasing feedback for {printable(assignment)}: {cells} answer(s) of "
            f"{len(waiting)} student(s) are waiting for a teacher (their feedback would not show a confirmed grade for them)."
        ]
        lines += [f"  {printable(s)}: {printable(', '.join(c))}" for s, c in waiting.items()]
        lines.append(
            "Grade them in the formgrader, or release anyway with `make feedback "
            f'A={printable(assignment)} PARTIAL=1` (those answers then say "not graded yet").'
        )
        super().__init__("\n".join(lines))


def ungraded_answers(course: Course, assignment: str) -> dict[str, list[str]]:
    """Answers still waiting for a teacher, by student (sorted): ``"<notebook>/<grade_id>"``.

    The gradebook's ``needs_manual_grade``: a written answer nobody graded yet (a blank one is
    scored 0 by nbgrader and does not wait), or an autograded cell marked for review.
    """
    waiting: dict[str, list[str]] = {}
    with course.gradebook() as gb:
        for sub in gb.assignment_submissions(assignment):
            cells = [
                f"{nb.name}/{grade.name}"
                for nb in sub.notebooks
                for grade in nb.grades
                if grade.needs_manual_grade
            ]
            if cells:
                waiting[sub.student.id] = sorted(cells)
    return dict(sorted(waiting.items()))


def clean_feedback_folder(folder: Path, expected: list[str]) -> list[Flag]:
    """Leave only ``<notebook>.html`` pages and nbgrader's two files in a feedback folder.

    ``generate_feedback`` copies every other file of the autograded folder next to the pages
    (following links); nothing but the pages is feedback. Removed entries are flagged.
    """
    wanted = {f"{nb}.html" for nb in expected} | set(KEEP)
    flags = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        st = entry.stat(follow_symlinks=False)
        if entry.name in wanted and stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            continue
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
        detail = f"feedback/{printable(entry.name)}: not feedback of a notebook; not released"
        flags.append(Flag(UNEXPECTED_FILE, detail))
    return flags


def feedback_report(course: Course, assignment: str, partial: bool = False) -> FeedbackReport:
    """``nbgrader generate_feedback`` + a release that publishes only what it should.

    Refused (:class:`UngradedAnswers`, nothing generated) while any answer waits for a
    teacher's grade, unless ``partial``: then those answers say "not graded yet"
    (:class:`~attention_grader.pages.feedback_page.MarkUngraded`).

    Release goes through :class:`~attention_grader.exchange.release_feedback.SafeExchangeReleaseFeedback`: only
    ``<notebook>.html`` of the assignment's notebooks is published (never another ``*.html``
    that reached the feedback folder), and a student whose feedback cannot be released is named
    with a reason while everyone else's is released.
    """
    from nbgrader.utils import capture_log

    from attention_grader.exchange.release_feedback import SafeExchangeReleaseFeedback

    waiting = ungraded_answers(course, assignment)
    if waiting and not partial:
        raise UngradedAnswers(assignment, waiting)
    api = course.api()
    generated = api.generate_feedback(assignment, force=True)
    graded = {p.parent.name for p in (course.root / "autograded").glob(f"*/{assignment}")}
    have = {p.parent.name for p in (course.root / "feedback").glob(f"*/{assignment}")}
    if not generated.get("success") and not have:
        check_result(generated, f"generate feedback {assignment}")  # nothing at all: say why
    from attention_grader.intake.intake import expected_notebooks

    expected, flags = expected_notebooks(course.root, assignment), {}
    for folder in sorted((course.root / "feedback").glob(f"*/{assignment}")):
        if folder.is_dir() and not folder.is_symlink():
            found = clean_feedback_folder(folder, expected)
            if found:
                flags[printable(folder.parent.name)] = found
    coursedir = course.coursedir(assignment_id=assignment, student_id="*")
    app = SafeExchangeReleaseFeedback(
        coursedir=coursedir, authenticator=api.authenticator, parent=api
    )
    check_result(capture_log(app), f"release feedback {assignment}")
    withheld = dict(app.withheld)
    for student in sorted(graded - have):  # nbgrader removes the folder of a failed student
        withheld[printable(student)] = "feedback could not be generated (see nbgrader's log)"
    for student, found in app.flags.items():
        flags.setdefault(student, []).extend(found)
    return FeedbackReport(sorted(app.released), withheld, flags, waiting)


def feedback(course: Course, assignment: str, partial: bool = False) -> list[str]:
    """:func:`feedback_report`; return the students whose feedback was released."""
    return feedback_report(course, assignment, partial).released
