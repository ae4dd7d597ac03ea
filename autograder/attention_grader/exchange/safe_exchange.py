"""nbgrader's collect with the intake applied, for plain nbgrader too.

:func:`attention_grader.pipeline.configure` puts :class:`SafeExchangeCollect` into a course's
``nbgrader_config.py`` (``c.ExchangeFactory.collect``), so ``nbgrader collect``, the formgrader
and ``python -m attention_grader`` all use it. nbgrader's collect takes the student and the time
from the folder's name (only logging "claims to be submitted by alice but is owned by mallory")
and copies with ``shutil.copytree``, which follows links (a link to ``../../source`` handed in
became a real copy of the solution). This one takes who and when from the system
(:mod:`~attention_grader.exchange.exchange_identity`: the folder's owner, the roster, the
exchange's ctime), refuses and quarantines anything else with one logged line, copies with
:func:`~attention_grader.intake.intake.copy_submission` (nothing followed, only notebooks and
data files), and collects every student even when one submission fails.

The intake's other places in the pipeline have their own modules: autograde's hook and first
sanitise step in :mod:`~attention_grader.intake.intake_guard`, release_feedback in
:mod:`~attention_grader.exchange.release_feedback`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import check_mode
from traitlets import Integer, Unicode

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import BAD_TIMESTAMP, UNSAFE_FILE, Flag
from attention_grader.common.safe_text import printable
from attention_grader.config.settings import intake_limits
from attention_grader.exchange.exchange_identity import (
    NBGRADER_TIME,
    REFUSED,
    Inbound,
    course_roster,
    inbound_entries,
    quarantine_refused,
    read_inbound,
)
from attention_grader.exchange.exchange_mounts import ExchangeLayout
from attention_grader.exchange.submission_history import record_collected, record_seen
from attention_grader.intake.intake import (
    IntakeLimits,
    copy_submission,
    default_quarantine,
    expected_notebooks,
    read_timestamp,
)

__all__ = ["SafeExchangeCollect"]

#: The default of ``c.SafeExchangeCollect.clock_slack`` (the config's value is the one read).
CLOCK_SLACK = 600


def _accepted_time(item: Inbound) -> datetime:
    """Return the time of a folder collect accepted (only a refused one has none)."""
    assert item.time is not None, f"{item.name!r} was refused, it has no time"
    return item.time


# --------------------------------------------------------------------------- collect


class SafeExchangeCollect(ExchangeCollect):
    """nbgrader's collect, taking who and when from the system.

    It follows no link, and never lets one submission stop the rest.

    Each ``inbound/`` folder is judged by :func:`~attention_grader.exchange.exchange_identity.read_inbound`: its owner
    must be the student its name claims (or the collecting teacher), the id must be on the
    roster (else of safe characters), and a student's folder is dated by the exchange (ctime),
    not by its name or ``timestamp.txt``. A refused folder is logged (the formgrader's Collect
    shows the log), listed in :attr:`refused` and kept in ``quarantine/refused/<assignment>/``.

    Attributes
    ----------
    flags : dict of str to list of Flag
        Per (printable) student id, what was refused; also recorded in the quarantine
        (``flags.json``), where :func:`~attention_grader.intake.intake.prepare_submission` finds it when grading.
    refused : list of Inbound
        Folders not collected, each with its one-line reason (``Inbound.line()``).
    """

    roster_file = Unicode(
        "",
        help="The class roster (a CSV with an 'id' column): collect refuses a submission whose "
        "student id is not on it. Empty: $ATTENTION_LAB_ROSTER, else <course>/roster.csv when "
        "present, else any id of safe characters (letters, digits, '_', '.', '-').",
    ).tag(config=True)

    clock_slack = Integer(
        CLOCK_SLACK,
        help="Seconds a student's timestamp.txt may differ from the exchange's time before "
        "collect flags it (bad_timestamp; the exchange's time is used either way): nbgrader's "
        "submit writes it a moment before it copies the notebooks.",
    ).tag(config=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flags: dict[str, list[Flag]] = {}
        self.refused: list[Inbound] = []
        self.limits: IntakeLimits = intake_limits(self.config)
        self.refused_lines: list[str] = []  # one per refused folder, with where it is kept
        self._current: Inbound | None = None
        self._expected: list[str] | None = None
        self.recorded = 0  # rows this collect added to the submission history

    def _flag(self, student: str, flags: list[Flag]) -> None:
        if flags:
            self.flags.setdefault(printable(student), []).extend(flags)
        for flag in flags:
            self.log.warning("%s: %s", printable(student), flag)

    def _roster(self) -> frozenset[str] | None:
        if self.roster_file and not os.path.isfile(self.roster_file):
            self.fail(f"the roster {self.roster_file} (c.SafeExchangeCollect.roster_file) does not exist")  # fmt: skip
        return course_roster(self.roster_file, self.coursedir.root)

    def expected(self) -> list[str]:
        if self._expected is None:
            self._expected = expected_notebooks(self.coursedir.root, self.coursedir.assignment_id)
        return self._expected

    def init_src(self) -> None:
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        roster, trusted = self._roster(), frozenset({0, os.geteuid()})
        by_mount = ExchangeLayout(parent=self).per_student_mounts  # one uid: the mount says who
        assignment = self.coursedir.assignment_id
        # nbgrader's "every student" is "*" (a glob); here an id is only ever compared, never globbed
        wanted = None if self.coursedir.student_id in ("", "*") else self.coursedir.student_id
        accepted: dict[str, list[Inbound]] = {}
        seen: list[Inbound] = []
        for entry, under in inbound_entries(Path(self.inbound_path)):
            parts = entry.name.rsplit("+", 3)
            if len(parts) < 2 or parts[1] != assignment:
                continue
            if wanted is not None and parts[0] != wanted:
                continue
            item = read_inbound(
                entry, trusted, roster, under, by_mount, self.limits.max_time_entries
            )
            seen.append(item)
            if item.refused:
                self._refuse(item)
            else:
                accepted.setdefault(item.student, []).append(item)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(assignment).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = [self._record(self._choose(items)) for items in accepted.values()]
        self._history(record_seen, seen)

    def _history(
        self, record: Callable[[str, str, Any, IntakeLimits], int | None], what: Any
    ) -> None:
        """Write to the submission history; a failure is logged, never stops the collect."""
        try:
            added = record(self.coursedir.root, self.coursedir.assignment_id, what, self.limits)
            self.recorded += added or 0
        except Exception as err:  # a broken history file never stops the collect
            self.log.warning("submission history not written: %s: %s", type(err).__name__, printable(err))  # fmt: skip

    def _choose(self, items: list[Inbound]) -> Inbound:
        """Pick the newest by the time collect trusts (with ``before_duedate``: the earliest on time)."""
        items = sorted(items, key=_accepted_time, reverse=True)
        if self.duedate is not None and self.before_duedate:
            on_time = [i for i in items if _accepted_time(i) <= self.duedate]
            return (on_time or items)[0]
        return items[0]

    def _record(self, item: Inbound) -> dict[str, Any]:
        # relative to inbound/: "<student>/<name>" in a student's own folder
        filename = os.path.relpath(item.path, self.inbound_path)
        return {"username": item.student, "filename": filename, "timestamp": item.time,
                "inbound": item}  # fmt: skip

    def _refuse(self, item: Inbound) -> None:
        self.refused.append(item)
        where = Path(self.coursedir.root) / "quarantine" / REFUSED / self.coursedir.assignment_id
        try:
            kept = quarantine_refused(item, where, self.expected(), self.limits)
            kept_at = f"; kept in {kept.relative_to(self.coursedir.root)}"
        except OSError as err:
            kept_at = f"; could not be kept ({type(err).__name__})"
        self.refused_lines.append(item.line() + kept_at)
        self.log.warning("%s", self.refused_lines[-1])

    def copy_files(self) -> None:
        records = self.src_records
        for rec in records:
            self.src_records, self._current = [rec], rec["inbound"]
            try:
                super().copy_files()
            except Exception as err:  # one broken submission never stops the others
                reason = printable(" ".join(str(err).split())[:120])
                self._flag(rec["username"], [Flag(UNSAFE_FILE, f"not collected: {type(err).__name__}: {reason}")])  # fmt: skip
        self.src_records = records

    def do_copy(self, src: str, dest: str, log: Any = None) -> None:
        flags = copy_submission(Path(src), Path(dest), self.expected(), self.limits)
        item, stamp_file = self._current, Path(dest) / "timestamp.txt"
        if item is not None:
            stated, _ = read_timestamp(Path(dest))
            when = _accepted_time(item).strftime(NBGRADER_TIME)
            if item.by_exchange:  # a student's own folder: the exchange's time, not theirs
                if (
                    stated is not None
                    and abs((stated - _accepted_time(item)).total_seconds()) > self.clock_slack
                ):
                    flags.append(Flag(BAD_TIMESTAMP, f"timestamp.txt says {stated:%Y-%m-%d %H:%M} UTC, the exchange {item.time:%Y-%m-%d %H:%M} UTC; the exchange's time used"))  # fmt: skip
                _write_stamp(stamp_file, when)
            elif stated is None and os.path.lexists(stamp_file):
                _write_stamp(stamp_file, when)  # the time nbgrader itself read from the name
                flags.append(Flag(BAD_TIMESTAMP, f"timestamp.txt is not a time; read as {when}"))  # fmt: skip
            self._history(record_collected, item)
        student = os.path.basename(os.path.dirname(dest))
        record_flags(
            flags, quarantine=default_quarantine(Path(dest)), reset=True
        )  # a new submission
        self._flag(student, flags)


def _write_stamp(path: Path, when: str) -> None:
    if os.path.lexists(path):
        os.unlink(path)
    path.write_text(when)
