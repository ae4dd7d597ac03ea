"""nbgrader's collect, autograde and release_feedback with the intake applied, for plain nbgrader too.

:func:`attention_grader.pipeline.configure` puts these into a course's ``nbgrader_config.py``,
so ``nbgrader collect``, ``nbgrader autograde``, ``nbgrader release_feedback``, the formgrader
and ``python -m attention_grader`` all use them:

* :class:`SafeExchangeCollect` (``c.ExchangeFactory.collect``): nbgrader's collect takes the
  student and the time from the folder's name (only logging "claims to be submitted by alice
  but is owned by mallory") and copies with ``shutil.copytree``, which follows links (a link to
  ``../../source`` handed in became a real copy of the solution). This one takes who and when
  from the system (:mod:`~attention_grader.intake.exchange_identity`: the folder's owner, the roster, the exchange's
  ctime), refuses and quarantines anything else with one logged line, copies with
  :func:`~attention_grader.intake.intake.copy_submission` (nothing followed, only notebooks and data files), and
  collects every student even when one submission fails.
* :func:`intake_hook` (``c.Autograde.pre_convert_hook``): runs :func:`~attention_grader.intake.intake.prepare_submission`
  on ``submitted/<student>/<assignment>`` before nbgrader copies or reads anything there.
* :class:`IntakeGuard` (first of ``c.Autograde.sanitize_preprocessors``): strips cell metadata
  (``skip-execution`` …) and refuses a notebook over the caps.
* :class:`SafeExchangeReleaseFeedback` (``c.ExchangeFactory.release_feedback``): publishes only
  ``<notebook>.html`` of the assignment's notebooks, as plain single-link files readable by
  their student only where the student has an account (:func:`~attention_grader.intake.private_submit.readable_only_by`),
  and a student without a readable ``submission_secret.txt`` is named and skipped instead of
  stopping everyone.
"""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbformat import NotebookNode

    from attention_grader.intake.intake import IntakeResult

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import check_mode
from traitlets import Unicode

from attention_grader.common.flags import (
    BAD_TIMESTAMP,
    UNEXPECTED_FILE,
    UNSAFE_FILE,
    Flag,
    record_flags,
)
from attention_grader.common.safe_text import printable
from attention_grader.common.settings import course_intake_limits, intake_limits
from attention_grader.intake.exchange_identity import (
    NBGRADER_TIME,
    REFUSED,
    Inbound,
    course_roster,
    inbound_entries,
    quarantine_refused,
    read_inbound,
)
from attention_grader.intake.intake import (
    IntakeLimits,
    copy_submission,
    default_quarantine,
    prepare_submission,
    read_plain_file,
    read_timestamp,
    strip_cell_metadata,
)
from attention_grader.intake.private_submit import readable_only_by
from attention_grader.intake.submission_history import record_collected, record_seen

__all__ = [
    "IntakeGuard",
    "SafeExchangeCollect",
    "SafeExchangeReleaseFeedback",
    "UnsafeSubmission",
    "expected_notebooks",
    "intake_hook",
]

#: How far (s) a student's ``timestamp.txt`` may be from the exchange's time without a flag:
#: nbgrader's submit writes it a moment before it copies the notebooks.
CLOCK_SLACK = 600


def _accepted_time(item: Inbound) -> datetime:
    """Return the time of a folder collect accepted (only a refused one has none)."""
    assert item.time is not None, f"{item.name!r} was refused, it has no time"
    return item.time


class UnsafeSubmission(RuntimeError):
    """A notebook the intake refuses to grade; the message is the one-line reason."""


def expected_notebooks(course_root: str | os.PathLike[str], assignment: str) -> list[str]:
    """Return the assignment's notebook names: those in ``source/<assignment>/`` (nbgrader's)."""
    folder = Path(course_root) / "source" / assignment
    return sorted(p.stem for p in folder.glob("*.ipynb") if not p.name.startswith("."))


# --------------------------------------------------------------------------- collect


class SafeExchangeCollect(ExchangeCollect):
    """nbgrader's collect, taking who and when from the system.

    It follows no link, and never lets one submission stop the rest.

    Each ``inbound/`` folder is judged by :func:`~attention_grader.intake.exchange_identity.read_inbound`: its owner
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
            item = read_inbound(entry, trusted, roster, under)
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

    def _history(self, record: Callable[[str, str, Any], int | None], what: Any) -> None:
        """Write to the submission history; a failure is logged, never stops the collect."""
        try:
            added = record(self.coursedir.root, self.coursedir.assignment_id, what)
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
                    and abs((stated - _accepted_time(item)).total_seconds()) > CLOCK_SLACK
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


# --------------------------------------------------------------------------- autograde


def intake_hook(
    assignment: str | None = None,
    student: str | None = None,
    notebooks: list[str] | None = None,
    **_: Any,
) -> IntakeResult | None:
    """``Autograde.pre_convert_hook``: make the submission folder safe before nbgrader reads it.

    nbgrader calls it after choosing a submission and before copying its files or reading its
    notebooks, with ``notebooks`` (the list nbgrader will grade, changed here in place so that
    refused notebooks are skipped). nbgrader logs and ignores any exception from a hook.
    """
    if not notebooks:
        return None
    folder = Path(notebooks[0]).parent
    root = folder.parent.parent.parent
    # nbgrader passes its hook no config: the caps come from the course's own config file.
    limits = course_intake_limits(root)
    result = prepare_submission(folder, expected_notebooks(root, folder.name), limits)
    notebooks[:] = [nb for nb in notebooks if os.path.lexists(nb)]
    return result


class IntakeGuard(NbGraderPreprocessor):
    """First sanitise step: drop execution-changing cell metadata; refuse notebooks over the caps.

    Flags go to the notebook's grading metadata (:func:`attention_grader.common.flags.record_flags`,
    read by the batch summary) and to the log, together with those recorded for the submission
    by collect and :func:`intake_hook`.
    """

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        limits = intake_limits(self.config)
        folder = (resources or {}).get("metadata", {}).get("path")
        name = (resources or {}).get("unique_key", "notebook")
        if folder:
            path = Path(folder) / f"{name}.ipynb"
            st = os.lstat(path) if os.path.lexists(path) else None
            if st is not None and (not stat.S_ISREG(st.st_mode) or st.st_nlink > 1):
                raise UnsafeSubmission(f"{printable(name)}.ipynb is a link or special file; not graded")  # fmt: skip
            if st is not None and st.st_size > limits.max_notebook_bytes:
                raise UnsafeSubmission(f"{printable(name)}.ipynb is over {limits.max_notebook_bytes} bytes; not graded")  # fmt: skip
        if len(nb.cells) > limits.max_cells:
            raise UnsafeSubmission(f"{printable(name)}.ipynb has {len(nb.cells)} cells (limit {limits.max_cells}); not graded")  # fmt: skip
        flags = strip_cell_metadata(nb)
        for flag in flags:
            self.log.warning("%s", flag)
        if folder:
            # What collect and intake_hook refused is recorded with the submission: report it
            # once per submission (with its first notebook), merged with this notebook's flags.
            quarantine = default_quarantine(Path(folder))
            every = record_flags(flags, quarantine=quarantine)
            first = expected_notebooks(quarantine.parent.parent.parent, Path(folder).name)[:1]
            flags = every if first == [name] else flags
        record_flags(flags, notebook=nb)
        return nb, resources


# --------------------------------------------------------------------------- release_feedback


def _read_secret(folder: Path) -> str | None:
    """``submission_secret.txt`` as nbgrader wrote it (a plain file of hex digits), else None."""
    data = read_plain_file(folder / "submission_secret.txt", limit=4096)
    text = data.decode("ascii", "replace") if data is not None else ""
    # hashed exactly as read, as nbgrader's fetch_feedback does with the student's own copy
    digits = text.strip()
    return text if digits and all(c in "0123456789abcdefABCDEF" for c in digits) else None


class SafeExchangeReleaseFeedback(ExchangeReleaseFeedback):
    """Release only the generated feedback of the assignment's notebooks; skip, never stop.

    Attributes
    ----------
    released : list of str
        Students whose feedback was published.
    withheld : dict of str to str
        Printable student id -> one-line reason nothing was published for them.
    flags : dict of str to list of Flag
        Files in a feedback folder that were not published (extra ``*.html``, links).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.released: list[str] = []
        self.withheld: dict[str, str] = {}
        self.flags: dict[str, list[Flag]] = {}

    def copy_files(self) -> None:
        exclude = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
        expected = expected_notebooks(self.coursedir.root, self.coursedir.assignment_id)
        for folder in sorted(glob.glob(self.src_path)):
            student = os.path.basename(os.path.dirname(folder))
            if student in exclude or not os.path.isdir(folder) or os.path.islink(folder):
                continue
            try:
                self._release_one(Path(folder), student, expected)
            except Exception as err:  # one student's folder never stops the others
                self._withhold(student, f"{type(err).__name__}: {' '.join(str(err).split())[:100]}")

    def _withhold(self, student: str, reason: str) -> None:
        self.withheld[printable(student)] = printable(reason)
        self.log.error("Feedback not released for %s: %s", printable(student), printable(reason))

    def _release_one(self, folder: Path, student: str, expected: list[str]) -> None:
        from nbgrader.utils import notebook_hash

        wanted = {f"{nb}.html" for nb in expected}
        extra = sorted(p.name for p in folder.glob("*.html") if p.name not in wanted)
        if extra:
            shown = printable(", ".join(extra)[:100])
            flags = [Flag(UNEXPECTED_FILE, f"feedback/{shown}: not from an assignment notebook; not released")]  # fmt: skip
            self.flags.setdefault(printable(student), []).extend(flags)
            self.log.warning("%s: %s", printable(student), flags[0])
        secret = _read_secret(folder)
        if secret is None:
            return self._withhold(student, "no readable submission_secret.txt (re-collect it)")
        pages = {nb: read_plain_file(folder / f"{nb}.html") for nb in expected}
        if not any(page is not None for page in pages.values()):
            return self._withhold(student, "no feedback page was generated")
        for nb, page in pages.items():
            if page is None:
                continue
            checksum = notebook_hash(secret=secret, notebook_id=nb)
            tmp = Path(self.dest_path) / f"{checksum}-tmp.html"
            if os.path.lexists(tmp):
                os.unlink(tmp)  # never write through a link someone left there
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(page)
            if not readable_only_by(tmp, student):  # no account or no ACLs: nbgrader's 0644
                os.chmod(tmp, 0o644)
            os.replace(tmp, Path(self.dest_path) / f"{checksum}.html")
            self.log.info("Released feedback for %s: %s", printable(student), printable(nb))
        self.released.append(student)
