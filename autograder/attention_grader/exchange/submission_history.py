"""Every submission the exchange received, as the system saw it: an append-only record.

nbgrader keeps one submission per student (``submitted/<student>/<assignment>``, replaced by a
resubmission), and the exchange's folders are named by the student's own submit. So collect
(:class:`~attention_grader.exchange.safe_exchange.SafeExchangeCollect`: ``make collect``, ``nbgrader collect`` and the
formgrader's Collect) writes what *it* saw into ``submission_history/<assignment>.csv`` in the
course folder, one row per event, never rewriting a row:

* ``received``: an ``inbound/`` folder collect accepted, the first time it is seen as it is
  (its owner's id, the exchange's time, a SHA-256 of its files);
* ``refused``: a folder collect refused (:mod:`~attention_grader.exchange.exchange_identity`), under its *owner*, never
  under the id its name claims: a folder mallory named ``alice+…`` is not in alice's history;
* ``collected``: the folder collect copied into ``submitted/`` (the one grading reads).

Who and when come from the system (the folder's owning account and the latest ``ctime`` in it,
:func:`~attention_grader.exchange.exchange_identity.exchange_time`); what the student wrote enters only as a hash (of
the folder's name, to tell folders apart, and of its files' names and bytes). A refused row's
``reason`` is collect's own line about it, student text made printable. Every cell goes
through :func:`~attention_grader.common.safe_text.csv_cell`, so the file is safe to open in a spreadsheet.

:func:`student_submissions` reads it back with the gradebook's view: which one was graded, which
was late.
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import os
import stat
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, overload

from attention_grader.common.safe_text import csv_cell
from attention_grader.config.settings import IntakeLimits
from attention_grader.exchange.exchange_identity import Inbound, exchange_time

if TYPE_CHECKING:
    from attention_grader.config.course import Course

__all__ = [
    "FIELDS",
    "HISTORY_DIR",
    "Seen",
    "SubmissionLine",
    "content_digest",
    "history_file",
    "read_history",
    "record_collected",
    "record_seen",
    "student_submissions",
]

#: The folder of the course that holds one history file per assignment (class data: only
#: ``make reset-course CONFIRM=yes`` removes it, after archiving it).
HISTORY_DIR = "submission_history"
FIELDS = (
    "recorded_at", "event", "student", "owner", "received", "time_used", "sha256", "folder",
    "reason",
)  # fmt: skip
#: The defaults of ``c.Intake.max_history_hash_bytes`` / ``_entries`` (the config's are read).
MAX_HASH_BYTES = IntakeLimits.max_history_hash_bytes
MAX_HASH_ENTRIES = IntakeLimits.max_history_hash_entries
_DEFAULTS = IntakeLimits()
#: nbgrader's bookkeeping, new at every submit (the claimed time, a random secret): not the work,
#: so the same notebooks handed in twice get the same hash.
BOOKKEEPING = frozenset({"timestamp.txt", "submission_secret.txt"})


@dataclass(frozen=True)
class Seen:
    """One row of a history file.

    Attributes
    ----------
    recorded_at : datetime
        When collect wrote the row (UTC).
    event : str
        ``received``, ``refused`` or ``collected``.
    student : str
        The student it counts for (an accepted folder's id); empty for ``refused``.
    owner : str
        The account owning the folder (from the filesystem).
    received : datetime or None
        The exchange's time of the folder (latest ctime in it, UTC).
    time_used : datetime or None
        The time collect gave grading (the exchange's, or the name's for a folder the teacher
        made); None for ``refused``.
    sha256 : str
        Of the folder's file names and contents (``…+partial`` past the hashing caps).
    folder : str
        A hash of the folder's name (tells folders apart without showing the name).
    reason : str
        Why it was refused (printable).
    """

    recorded_at: datetime
    event: str
    student: str
    owner: str
    received: datetime | None
    time_used: datetime | None
    sha256: str
    folder: str
    reason: str = ""

    def key(self) -> tuple[str, str, datetime | None, str]:
        """Return what makes two ``received``/``refused`` rows the same sighting of one folder."""
        return (self.event, self.folder, self.received, self.sha256)


def history_file(root: str | os.PathLike[str], assignment: str) -> Path:
    """``<root>/submission_history/<assignment>.csv``."""
    return Path(root) / HISTORY_DIR / f"{assignment}.csv"


def content_digest(folder: Path, limits: IntakeLimits = _DEFAULTS) -> str:
    """Return the SHA-256 of the regular files under ``folder``.

    It covers relative names and bytes, sorted, but not nbgrader's :data:`BOOKKEEPING` files at
    its top.

    Nothing is followed (links and special files count by name only); past
    ``limits.max_history_hash_entries`` files or ``limits.max_history_hash_bytes`` bytes the
    digest covers what was read and ends in ``+partial``.
    """
    digest, budget, seen, partial = hashlib.sha256(), limits.max_history_hash_bytes, 0, False
    stack = [(folder, "")]
    while stack:
        here, rel = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > limits.max_history_hash_entries:
                partial = True
                break
            if not rel and entry.name in BOOKKEEPING:
                continue
            name = f"{rel}/{entry.name}"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            digest.update(os.fsencode(name) + b"\0")
            if stat.S_ISDIR(st.st_mode):
                stack.append((Path(entry.path), name))
            elif stat.S_ISREG(st.st_mode):
                partial |= st.st_size > budget
                budget -= _hash_file(Path(entry.path), digest, budget)
    return digest.hexdigest() + ("+partial" if partial else "")


def _hash_file(path: Path, digest: hashlib._Hash, budget: int) -> int:
    """Add up to ``budget`` bytes of ``path`` (opened without following a link); bytes read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return 0
    done = 0
    with os.fdopen(fd, "rb") as fh:
        while done < budget and (chunk := fh.read(min(2**20, budget - done))):
            digest.update(chunk)
            done += len(chunk)
    return done


def _name_hash(name: str) -> str:
    return hashlib.sha256(os.fsencode(name)).hexdigest()[:12]


def _time(value: datetime | None) -> str:
    return "" if value is None else value.replace(tzinfo=UTC).isoformat(timespec="microseconds")


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text).astimezone(UTC).replace(tzinfo=None)
    except ValueError:
        return None


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def read_history(root: str | os.PathLike[str], assignment: str) -> list[Seen]:
    """Every row of ``assignment``'s history, in the order written ([] when there is none)."""
    path = history_file(root, assignment)
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        return [_row(r) for r in csv.DictReader(fh)]


def _row(r: dict[str, str]) -> Seen:
    return Seen(
        _parse_time(r.get("recorded_at", "")) or datetime.min,
        r.get("event", ""),
        r.get("student", ""),
        r.get("owner", ""),
        _parse_time(r.get("received", "")),
        _parse_time(r.get("time_used", "")),
        r.get("sha256", ""),
        r.get("folder", ""),
        r.get("reason", ""),
    )


def _append(
    root: str | os.PathLike[str], assignment: str, rows: list[Seen], *, new_only: bool
) -> int:
    """Append ``rows`` (those not yet in the file when ``new_only``), under a lock; how many."""
    path = history_file(root, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+", newline="", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # the formgrader's Collect and `make collect` at once
        fh.seek(0)
        old = [_row(r) for r in csv.DictReader(fh)]
        known = {s.key() for s in old}
        rows = [r for r in rows if not (new_only and r.key() in known)]
        writer = csv.writer(fh)
        if not old and fh.tell() == 0:
            writer.writerow(FIELDS)
        for r in rows:
            times = _time(r.recorded_at), _time(r.received), _time(r.time_used)
            cells = [times[0], r.event, r.student, r.owner, times[1], times[2], r.sha256,
                     r.folder, r.reason]  # fmt: skip
            writer.writerow([csv_cell(c) for c in cells])
    return len(rows)


def _sighting(
    item: Inbound,
    event: str,
    known: dict[tuple[str, str, datetime | None], str],
    limits: IntakeLimits,
) -> Seen:
    """``item`` as a row; the content is hashed only for a folder not seen as it is."""
    folder = _name_hash(item.name)
    if not os.path.isdir(item.path) or os.path.islink(item.path):
        received, digest = None, ""
    else:
        received = exchange_time(item.path, limits.max_time_entries)
        digest = known.get((event, folder, received)) or content_digest(item.path, limits)
    student = "" if event == "refused" else item.student
    used = None if event == "refused" else item.time
    return Seen(_now(), event, student, item.owner, received, used, digest, folder, item.refused)


def record_seen(
    root: str | os.PathLike[str],
    assignment: str,
    items: list[Inbound],
    limits: IntakeLimits = _DEFAULTS,
) -> int:
    """Append a ``received`` or ``refused`` row per folder of ``items``; return how many.

    A folder already recorded as it is now is not added again; ``limits`` caps the hashing.
    """
    known = {(s.event, s.folder, s.received): s.sha256 for s in read_history(root, assignment)}
    rows = [_sighting(i, "refused" if i.refused else "received", known, limits) for i in items]
    return _append(root, assignment, rows, new_only=True)


def record_collected(
    root: str | os.PathLike[str],
    assignment: str,
    item: Inbound,
    limits: IntakeLimits = _DEFAULTS,
) -> None:
    """Append a ``collected`` row: ``item`` was copied into ``submitted/`` just now."""
    known = {(s.event, s.folder, s.received): s.sha256 for s in read_history(root, assignment)}
    row = replace(_sighting(item, "received", known, limits), event="collected")
    _append(root, assignment, [row], new_only=False)


@dataclass(frozen=True)
class SubmissionLine:
    """One submission of one student, as a teacher reads it.

    Attributes
    ----------
    student : str
    received : datetime or None
        The exchange's time (UTC).
    time_used : datetime or None
        The time grading uses (the exchange's for a student's own folder).
    late_seconds : float
        How long after the due date (``time_used``); 0 when on time or with no due date.
    sha256 : str
    status : str
        ``graded`` (the gradebook's submission), ``collected, not graded yet``, or
        ``earlier`` / ``later`` (not the one collected).
    """

    student: str
    received: datetime | None
    time_used: datetime | None
    late_seconds: float
    sha256: str
    status: str


Histories = dict[str, list[SubmissionLine]]


def student_submissions(course: Course, assignment: str) -> tuple[Histories, list[Seen]]:
    """Each student's submissions (oldest first) and the refused folders, from the history.

    Returns
    -------
    by_student : dict of str to list of SubmissionLine
        Sorted by student.
    refused : list of Seen
        One per refused folder (its latest sighting), oldest first.
    """
    rows = read_history(course.root, assignment)
    graded_at, due = _gradebook_times(course, assignment)
    collected = {r.student: r for r in rows if r.event == "collected"}  # the last one counts
    received = {(r.student, r.folder, r.received, r.sha256): r for r in rows if r.event == "received"}  # fmt: skip
    refused = {r.folder: r for r in rows if r.event == "refused"}
    by_student: Histories = defaultdict(list)
    for r in sorted(received.values(), key=_received):
        late = (r.time_used - due).total_seconds() if due and r.time_used else 0.0
        status = _status(r, collected.get(r.student), graded_at.get(r.student))
        line = SubmissionLine(r.student, r.received, r.time_used, max(late, 0.0), r.sha256, status)
        by_student[r.student].append(line)
    return dict(sorted(by_student.items())), sorted(refused.values(), key=_received)


def _received(row: Seen) -> datetime:
    return row.received or datetime.min


def _status(row: Seen, collected: Seen | None, graded_at: datetime | None) -> str:
    if collected is None:
        return "not collected"
    if (row.folder, row.received) != (collected.folder, collected.received):
        return "earlier" if _received(row) < _received(collected) else "later, not collected"
    return "graded" if graded_at == row.time_used else "collected, not graded yet"


def _gradebook_times(course: Course, assignment: str) -> tuple[dict[str, datetime], datetime | None]:  # fmt: skip
    """Map student -> the submission time the gradebook graded (naive UTC); the due date."""
    from nbgrader.api import MissingEntry

    with course.gradebook() as gb:
        try:
            due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            return {}, None
        stamps = {s.student.id: s.timestamp for s in gb.assignment_submissions(assignment)}
    return {k: _naive_utc(v) for k, v in stamps.items() if v is not None}, _naive_utc(due)


@overload
def _naive_utc(when: datetime) -> datetime: ...
@overload
def _naive_utc(when: None) -> None: ...
@overload
def _naive_utc(when: datetime | None) -> datetime | None: ...


def _naive_utc(when: datetime | None) -> datetime | None:
    if when is None or when.tzinfo is None:
        return when
    return when.astimezone(UTC).replace(tzinfo=None)
