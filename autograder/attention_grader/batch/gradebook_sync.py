"""The gradebook side of parallel grading: one private copy per worker, one writer.

With SQLite, workers grade into private copies of a snapshot (:func:`snapshot`) and send back the
rows autograde wrote (:func:`read_rows`); the parent, the only writer, copies them into the real
gradebook (:func:`apply_rows`). With a server database (PostgreSQL) workers write directly.
"""

from __future__ import annotations

import datetime
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from attention_grader.common.flag_store import read_flags
from attention_grader.common.flags import Flag
from attention_grader.common.summary import SubmissionResult
from attention_grader.config.course import Course
from attention_grader.intake.final_scores import final_of, late_flag

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

__all__ = [
    "NotebookRows",
    "SubmissionRows",
    "apply_rows",
    "finish",
    "read_rows",
    "score_missing",
    "snapshot",
    "sqlite_path",
]


@dataclass
class NotebookRows:
    """What autograde wrote for one notebook of a submission."""

    late_submission_penalty: float | None = None
    #: grade cell name -> (auto_score, needs_manual_grade)
    grades: dict[str, tuple[float | None, bool]] = field(default_factory=dict)
    #: comment cell name -> auto_comment
    comments: dict[str, str | None] = field(default_factory=dict)


@dataclass
class SubmissionRows:
    """What autograde wrote for one submission: its timestamp and each notebook's rows."""

    timestamp: datetime.datetime | None
    notebooks: dict[str, NotebookRows] = field(default_factory=dict)


def sqlite_path(db_url: str) -> Path | None:
    """Return the file of a ``sqlite:///`` gradebook URL, else None (a server database)."""
    return Path(db_url[len("sqlite:///") :]) if db_url.startswith("sqlite:///") else None


def snapshot(db_path: Path, dest: Path) -> None:
    """Copy the SQLite gradebook consistently (``sqlite3`` online backup)."""
    src = sqlite3.connect(db_path)
    dst = sqlite3.connect(dest)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def read_rows(db_url: str, course_id: str, assignment: str, student: str) -> SubmissionRows | None:
    """Return the gradebook rows autograde writes for one submission (None if it wrote none)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url, course_id) as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return None
        return SubmissionRows(
            timestamp=sub.timestamp,
            notebooks={
                nb.name: NotebookRows(
                    late_submission_penalty=nb.late_submission_penalty,
                    grades={g.name: (g.auto_score, g.needs_manual_grade) for g in nb.grades},
                    comments={c.name: c.auto_comment for c in nb.comments},
                )
                for nb in sub.notebooks
            },
        )


def apply_rows(gb: Gradebook, assignment: str, student: str, rows: SubmissionRows) -> None:
    """Write one worker's rows into the real gradebook (the parent is the only writer)."""
    gb.update_or_create_student(student)
    if rows.timestamp is not None:
        gb.update_or_create_submission(assignment, student, timestamp=rows.timestamp)
    else:
        gb.update_or_create_submission(assignment, student)
    for nb_name, nb_rows in rows.notebooks.items():
        nb = gb.find_submission_notebook(nb_name, assignment, student)
        nb.late_submission_penalty = nb_rows.late_submission_penalty
        for g in nb.grades:
            if g.name in nb_rows.grades:
                g.auto_score, g.needs_manual_grade = nb_rows.grades[g.name]
        for c in nb.comments:
            if c.name in nb_rows.comments:
                c.auto_comment = nb_rows.comments[c.name]
    gb.db.commit()


def score_missing(gb: Gradebook, course: Course, assignment: str, student: str) -> list[Flag]:
    """Do what nbgrader's autograde does for a missing notebook: every grade 0, nothing to review.

    Returns the flags recorded for the submission (by collect and the intake), and a
    ``bad_timestamp`` flag when timestamp.txt is not a time (read as none: nbgrader's own reader
    would stop the whole batch).
    """
    from attention_grader.intake.intake import default_quarantine, read_timestamp

    gb.update_or_create_student(student)
    folder = course.root / "submitted" / student / assignment
    stamp, flags = read_timestamp(folder)
    flags = list(dict.fromkeys(read_flags(quarantine=default_quarantine(folder)) + flags))
    if stamp:
        sub = gb.update_or_create_submission(assignment, student, timestamp=stamp)
    else:
        sub = gb.update_or_create_submission(assignment, student)
    for nb in sub.notebooks:
        for g in nb.grades:
            g.auto_score = 0
            g.needs_manual_grade = False
    gb.db.commit()
    return flags


def finish(gb: Gradebook, assignment: str, result: SubmissionResult) -> None:
    """Fill in the score and the late flag of ``result`` from the real gradebook.

    The score is the submission's :class:`~attention_grader.intake.final_scores.FinalScore`, the
    number every other page shows.
    """
    from nbgrader.api import MissingEntry

    try:
        final = final_of(gb.find_submission(assignment, result.student))
    except MissingEntry:
        return
    result.score, result.max_score = final.score, final.max_score
    result.penalty, result.waiting = final.penalty, final.pending
    flag = late_flag(final)
    if flag is not None:
        result.flags.append(flag)
