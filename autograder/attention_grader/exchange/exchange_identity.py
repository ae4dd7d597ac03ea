"""Who handed a submission in, and when: from the system, never from what the student wrote.

A folder in the exchange's ``inbound/`` is named ``<student>+<assignment>+<time>[+<random>]``
by nbgrader's submit, but every part of that name, and the ``timestamp.txt`` inside, is written
by whoever made the folder. So collect reads them as *claims* and checks each one against what
the system recorded (:func:`read_inbound`):

* **who**: the folder's owner (its uid, mapped to an account name) must be the student the name
  claims. A folder owned by the teacher who collects (or by root) is the teacher's own doing
  (one laptop, a folder copied in by hand) and keeps the name's claim.
* **where**: on a hub with per-user disks a submission sits in ``inbound/<student>/`` (that
  student's own folder, on their own filesystem); its name must claim that student and its
  owner be that student, like a folder directly in ``inbound/`` (one laptop, or a hub without).
* **which id**: the claimed id must be on the class roster (:func:`roster_ids`) and, with or
  without one, made of :data:`SAFE_ID`'s characters (no ``*``, ``<``, ``=``, ``/``, spaces, controls).
* **when**: for a student's own folder, the latest status-change time (``ctime``) of the folder
  and of everything in it. Only the kernel sets a ctime, to "now", whenever anything changes, so
  a student can make it later but never earlier: the time in the folder's name and in
  ``timestamp.txt`` are not used (a 2099 name does not beat a later resubmission, a backdated
  one is not on time).

Anything that fails a check is *refused*: :class:`Inbound` carries the one-line reason, and
:func:`quarantine_refused` keeps a safe copy for the teacher (``quarantine/refused/``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import pwd
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from attention_grader.common.safe_text import printable
from attention_grader.config.environment import variable_value
from attention_grader.config.settings import IntakeLimits

__all__ = [
    "NBGRADER_TIME",
    "SAFE_ID",
    "Inbound",
    "course_roster",
    "exchange_time",
    "inbound_entries",
    "owner_name",
    "quarantine_refused",
    "read_inbound",
    "read_mounted",
    "roster_ids",
    "student_entries",
]

#: A student id collect accepts: what ``useradd`` and nbgrader both handle, nothing a path, a
#: glob, a page or a spreadsheet treats specially.
SAFE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
#: The default of ``c.Intake.max_time_entries`` (the config's value is the one read).
MAX_TIME_ENTRIES = IntakeLimits.max_time_entries
REFUSED = "refused"
#: How nbgrader writes a time (``timestamp.txt``, the folder's name), in UTC.
NBGRADER_TIME = "%Y-%m-%d %H:%M:%S.%f UTC"


@dataclass(frozen=True)
class Inbound:
    """One folder of ``inbound/`` as collect judged it.

    Attributes
    ----------
    path : Path
    name : str
        The folder's name as found (the student's text: print it through ``printable``).
    student : str
        The id the name claims (first ``+`` part).
    claimed_time : datetime or None
        The time in the name (naive UTC), None when it is not a time.
    owner : str
        The owning account's name, or ``uid <n>`` when no account has that uid; with one uid
        for every pod (:func:`read_mounted`), the name of the student's mounted folder.
    time : datetime or None
        The submission time collect uses (naive UTC): the exchange's for a student's folder,
        the claimed one for a folder the teacher made.
    refused : str
        Empty when accepted; else the one-line reason ("folder owned by mallory names alice").
    by_exchange : bool
        True when :attr:`time` is the exchange's (a student's folder), False when it is the
        name's (a folder the teacher made).
    """

    path: Path
    name: str
    student: str
    claimed_time: datetime | None
    owner: str
    time: datetime | None
    refused: str = ""
    by_exchange: bool = False

    def line(self) -> str:
        """Return the one line a teacher reads about a refused folder (every part printable)."""
        return f"refused: {self.refused} (exchange folder {printable(self.name)}); not collected"


def owner_name(uid: int) -> str:
    """Return the account name of ``uid``, or ``uid <n>`` when there is none."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def exchange_time(folder: Path, limit: int = MAX_TIME_ENTRIES) -> datetime:
    """Return the latest ctime of ``folder`` and all under it (links not followed), naive UTC.

    A student cannot set a ctime (``touch`` and ``utime`` set mtime and atime; the kernel then
    sets ctime to now), so this is the earliest time the folder can have been complete.
    Past ``limit`` entries the folder's own ctime is what is left (never earlier than true).
    """
    latest, seen, stack = os.lstat(folder).st_ctime, 0, [str(folder)]
    while stack and seen < limit:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            latest = max(latest, st.st_ctime)
            if stat.S_ISDIR(st.st_mode):
                stack.append(entry.path)
    return datetime.fromtimestamp(latest, UTC).replace(tzinfo=None)


def roster_ids(path: str | os.PathLike[str] | None) -> frozenset[str] | None:
    """Return the ``id`` column of a roster CSV; None when ``path`` is empty or absent.

    The file is ``install.py roster``'s or nbgrader's ``roster.csv``.

    Raises
    ------
    ValueError
        The file has no ``id`` column (says which file and what to do).
    """
    if not path or not os.path.isfile(path):
        return None
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if "id" not in (reader.fieldnames or []):
            raise ValueError(
                f"the roster {path} has no 'id' column: give it a header line starting with id"
                " (id,first_name,last_name,email or id,role,...)"
            )
        return frozenset(row["id"].strip() for row in reader if (row.get("id") or "").strip())


def course_roster(roster_file: str, course_root: str | os.PathLike[str]) -> frozenset[str] | None:
    """Return the roster collect checks ids against (:func:`roster_ids`), None without one.

    ``roster_file`` (``c.SafeExchangeCollect.roster_file``), else ``$ATTENTION_LAB_ROSTER``, else
    ``<course_root>/roster.csv`` when present.
    """
    path = roster_file or str(variable_value("ATTENTION_LAB_ROSTER") or "")
    return roster_ids(path or os.path.join(course_root, "roster.csv"))


def student_entries(folder: Path, student: str) -> list[tuple[Path, str | None]]:
    """Each candidate in a student's own folder ``inbound/<student>/``, with that student.

    Names starting with "." (what the teacher moved out of the way) are not candidates; an
    unreadable folder has none. Links are never entered.
    """
    try:
        inner = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []  # not readable: not a student's folder the hub made, or not this user's
    return [(Path(e.path), student) for e in inner if not e.name.startswith(".")]


def inbound_entries(inbound: Path) -> list[tuple[Path, str | None]]:
    """Each candidate in ``inbound/``, with the student whose own folder it sits in (or None).

    A folder whose name has no ``+`` is a student's own folder (a hub with per-user disks,
    ``inbound/<student>/``): its entries are the candidates (:func:`student_entries`). Names
    starting with "." are not. Links are never entered.
    """
    found: list[tuple[Path, str | None]] = []
    for entry in sorted(os.scandir(inbound), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        if "+" in entry.name or not entry.is_dir(follow_symlinks=False):
            found.append((Path(entry.path), None))
        else:
            found += student_entries(Path(entry.path), entry.name)
    return found


def _claimed_time(text: str) -> datetime | None:
    from attention_grader.intake.intake import parse_timestamp

    return parse_timestamp(text)


def read_inbound(
    path: Path, trusted_uids: frozenset[int], roster: frozenset[str] | None,
    under: str | None = None, by_mount: bool = False, max_time_entries: int = MAX_TIME_ENTRIES,
) -> Inbound:  # fmt: skip
    """Judge one ``inbound/`` entry: who the system says made it, when, and whether to collect it.

    Parameters
    ----------
    path : Path
        ``inbound/<name>``; looked at without following a link.
    trusted_uids : frozenset of int
        Owners whose folders keep their name's claims (the collecting teacher, root).
    roster : frozenset of str or None
        The class's ids; None: any id of :data:`SAFE_ID`'s characters.
    under : str or None
        The student whose own folder ``path`` sits in (``inbound/<under>/<name>``); None: directly
        in ``inbound/``.
    by_mount : bool
        One uid for every pod (:attr:`~attention_grader.exchange.exchange_mounts.ExchangeLayout.per_student_mounts`):
        the student is the one whose folder ``under`` is (the hub mounted it in her pod alone),
        never the owner; see :func:`read_mounted`.
    max_time_entries : int
        Most entries looked at for the folder's time (``c.Intake.max_time_entries``).
    """
    if by_mount:
        return read_mounted(path, roster, under, max_time_entries)
    name = path.name
    parts = name.rsplit("+", 3)
    student = parts[0]
    claimed = _claimed_time(parts[2]) if len(parts) >= 3 else None
    st = os.lstat(path)
    owner = owner_name(st.st_uid)
    judged = Inbound(path, name, student, claimed, owner, claimed)

    def refuse(reason: str) -> Inbound:
        return Inbound(path, name, student, claimed, owner, None, reason)

    shown = printable(student)
    if not stat.S_ISDIR(st.st_mode):
        return refuse(f"not a folder (owned by {owner})")
    if not SAFE_ID.fullmatch(student):
        return refuse(
            f"folder owned by {owner} names {shown!r}, not a student id"
            " (letters, digits, '_', '.', '-' only)"
        )
    if roster is not None and student not in roster:
        return refuse(f"folder owned by {owner} names {shown}, who is not on the roster")
    if len(parts) < 3 or claimed is None:
        return refuse(f"folder owned by {owner}: its name is not <student>+<assignment>+<time>")
    trusted = st.st_uid in trusted_uids
    if not trusted and owner != student:
        return refuse(f"folder owned by {owner} names {shown}")
    if under is not None and student != under:  # even the teacher's: one student's folder
        return refuse(f"folder owned by {owner} in {printable(under)}'s folder names {shown}")
    if trusted:
        return judged  # the teacher's own folder (one laptop, or copied in by hand)
    return Inbound(
        path, name, student, claimed, owner, exchange_time(path, max_time_entries), by_exchange=True
    )


def read_mounted(
    path: Path,
    roster: frozenset[str] | None,
    under: str | None,
    max_time_entries: int = MAX_TIME_ENTRIES,
) -> Inbound:
    """Judge one ``inbound/`` entry when every pod has one uid and its own mounted folder.

    The student is :func:`~attention_grader.exchange.exchange_mounts.folder_student` of the
    folder it sits in (the hub mounted ``inbound/<under>/`` in that student's pod only); the
    name must claim that student; the time is the exchange's (ctime), whoever made it. An entry
    directly in ``inbound/`` is refused: no student pod can write there, and the owner uid, the
    same for every pod, cannot say whose it is. :attr:`Inbound.owner` is the folder's name.
    """
    from attention_grader.exchange.exchange_mounts import folder_student

    name = path.name
    parts = name.rsplit("+", 3)
    claimed = _claimed_time(parts[2]) if len(parts) >= 3 else None
    where = printable(under) if under is not None else "inbound/"
    st = os.lstat(path)

    def refuse(reason: str) -> Inbound:
        return Inbound(path, name, parts[0], claimed, under or "", None, reason)

    if under is None:
        return refuse(
            "directly in inbound/, not in a student's own folder (one uid for every pod:"
            " only the folder the hub mounted says who handed in)"
        )
    student = folder_student(under, roster)
    if student is None:
        whose = "on the roster" if roster is not None else "(its name is not a student id)"
        return refuse(f"in the folder {where}, which is no student's {whose}")
    if not stat.S_ISDIR(st.st_mode):
        return refuse(f"not a folder (in {student}'s folder)")
    if len(parts) < 3 or claimed is None:
        return refuse(f"in {student}'s folder: its name is not <student>+<assignment>+<time>")
    if parts[0] != student:
        return refuse(f"in {student}'s folder names {printable(parts[0])!r}")
    return Inbound(
        path, name, student, claimed, under, exchange_time(path, max_time_entries), by_exchange=True
    )


def _quarantine_key(item: Inbound) -> str:
    digest = hashlib.sha256(os.fsencode(item.name)).hexdigest()[:12]
    return f"{SAFE_ID.fullmatch(item.owner) and item.owner or 'unknown'}-{digest}"


def quarantine_refused(
    item: Inbound, quarantine: Path, expected: list[str], limits: IntakeLimits | None = None
) -> Path:
    """Keep a refused folder for the teacher in ``quarantine/<owner>-<hash>/``.

    It holds ``refusal.json`` (who, what it claimed, why) and ``files/`` (a safe copy, as
    collect copies).

    The exchange's folder is left where it is (it may belong to the student, who alone can
    remove it); each collect refuses it again, and finds it kept already.
    """
    from attention_grader.intake.intake_files import copy_submission

    kept = Path(quarantine) / _quarantine_key(item)
    if kept.exists():
        return kept
    kept.mkdir(parents=True, mode=0o700)
    record = {
        "exchange_folder": printable(item.name),
        "claimed_student": printable(item.student),
        "owner": item.owner,
        "claimed_time": str(item.claimed_time) if item.claimed_time else None,
        "exchange_time": str(exchange_time(item.path, (limits or IntakeLimits()).max_time_entries))
        if os.path.isdir(item.path)
        else None,
        "reason": item.refused,
    }
    try:
        copy_submission(item.path, kept / "files", expected, limits)
    except OSError as err:
        record["copy"] = f"not copied: {type(err).__name__}: {printable(str(err))[:120]}"
    (kept / "refusal.json").write_text(json.dumps(record, indent=1) + "\n")
    return kept
