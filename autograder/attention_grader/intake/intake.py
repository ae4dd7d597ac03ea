"""Make a student's submission folder safe to read, before anything grades, copies or publishes it.

Everything in a submission folder is the student's choice, including what *kind* of file it is.
nbgrader copies with ``shutil.copy``/``copytree``, which follow symbolic links: a notebook that is
a link to ``../../source/<a>/<a>.ipynb`` becomes a real copy of the solution, an extra ``*.html``
linked to ``gradebook.db`` is published as "feedback". So every entry is looked at *without
following links* (``lstat``) and kept only when it is one of:

* an expected notebook ``<name>.ipynb`` (top level, at most ``IntakeLimits.max_notebook_bytes``);
* nbgrader's own ``timestamp.txt`` / ``submission_secret.txt`` (top level, small);
* an ordinary data file (``IntakeLimits.data_suffixes``: ``.csv``, ``.json``, ``.npy``, ``.png`` …)
  of at most ``max_data_file_bytes``, in a visible folder at most ``max_depth`` deep.

Anything else is moved to a quarantine folder (``<course>/quarantine/<student>/<assignment>/files/``,
which nothing that grades, releases or publishes reads) and flagged, one :class:`~attention_grader.common.flags.Flag`
each:

``unsafe_file``
    symbolic link, hard link (a regular file with more than one name), device, FIFO, socket.
``unexpected_file``
    hidden file or folder (``.autosave.ipynb``, ``.ipynb_checkpoints``), extra notebooks,
    ``*.html``, code (``*.py``), too large, too deep, too many files, control characters in a name.
``invalid_notebook``
    an expected notebook that is not JSON, too large, too deeply nested or has too many cells.
``edited_metadata``
    execution-changing cell metadata (``tags`` such as ``skip-execution``, ``raises-exception``)
    removed from a test or locked cell.
``bad_timestamp``
    a ``timestamp.txt`` that is not a time: read as "no timestamp" (not late) instead of failing.

Flags are also recorded in the quarantine folder (``flags.json``, by
:func:`attention_grader.common.flag_store.record_flags`), so a submission keeps its flags when it is graded
again, and flags found while collecting reach the batch summary.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from nbformat import NotebookNode

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import BAD_TIMESTAMP, Flag
from attention_grader.common.safe_text import printable
from attention_grader.intake.intake_files import (
    FlagList,
    IntakeLimits,
    classify_entry,
    copy_submission,
    default_quarantine,
    quarantine_path,
    read_plain_file,
    released_files,
    sanitize_submission,
)
from attention_grader.intake.intake_notebook import (
    json_depth,
    read_notebook_safely,
    strip_cell_metadata,
)

__all__ = [
    "FlagList",
    "IntakeLimits",
    "IntakeResult",
    "classify_entry",
    "copy_submission",
    "default_quarantine",
    "expected_notebooks",
    "json_depth",
    "parse_timestamp",
    "prepare_submission",
    "read_notebook_safely",
    "read_plain_file",
    "read_timestamp",
    "released_files",
    "sanitize_submission",
    "strip_cell_metadata",
    "visible_notebooks",
]

#: Refused entries go to ``<quarantine>/files/`` (their own names, so a student's file can never
#: be, or point at, the record ``<quarantine>/flags.json``: :data:`~attention_grader.common.flag_store.FLAGS_FILE`).
QUARANTINED_FILES = "files"


@dataclass
class IntakeResult:
    """What :func:`prepare_submission` found.

    Attributes
    ----------
    flags : list of Flag
        Everything removed or changed, one line each (also those recorded when it was collected).
    notebooks : dict of str to NotebookNode
        The expected notebooks that may be graded (parsed, within the caps, cell metadata
        stripped), by notebook name (without ``.ipynb``).
    missing : list of str
        Expected notebooks that are absent or were refused (score them 0, as nbgrader does).
    timestamp : datetime or None
        The submission time from ``timestamp.txt`` (naive UTC), None when absent or unreadable.
    """

    flags: list[Flag] = field(default_factory=list)
    notebooks: dict[str, NotebookNode] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    timestamp: datetime | None = None


def visible_notebooks(folder: Path) -> list[Path]:
    """Return ``folder/*.ipynb`` as nbgrader sees them (sorted).

    pathlib's glob also matches hidden files such as a ``.autosave.ipynb``, which nbgrader skips
    (and a non-JSON one must not stop a batch).
    """
    return sorted(p for p in Path(folder).glob("*.ipynb") if not p.name.startswith("."))


def expected_notebooks(course_root: str | os.PathLike[str], assignment: str) -> list[str]:
    """Return the assignment's notebook names: those in ``source/<assignment>/`` (nbgrader's)."""
    folder = Path(course_root) / "source" / assignment
    return sorted(p.stem for p in folder.glob("*.ipynb") if not p.name.startswith("."))


# --------------------------------------------------------------------------- timestamp

_TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?( ?[+-]\d{2}:?\d{2}| [A-Za-z][\w+\-/]{0,40})?"
)


def parse_timestamp(text: str) -> datetime | None:
    """Return a time in the form nbgrader writes as naive UTC; None for anything else.

    The form is ``2026-11-30 09:00:00.000000 UTC`` (or an offset, or a zone name).

    nbgrader's own parser (dateutil) looks a zone name up as a *file*, so a student's text is
    matched against this narrow form first.
    """
    text = text.strip()
    if not _TIMESTAMP.fullmatch(text) or ".." in text:
        return None
    from nbgrader.utils import parse_utc

    try:
        return cast(datetime, parse_utc(text))
    except Exception:  # dateutil raises ValueError, OverflowError, …
        return None


def read_timestamp(folder: Path) -> tuple[datetime | None, list[Flag]]:
    """Read the submission time in ``folder/timestamp.txt`` (naive UTC), never failing.

    nbgrader's own reader calls ``self.fail`` (which ``CourseDirectory`` does not have) on a
    timestamp it cannot parse, which stopped a whole grading run. Here anything but a time is
    "no timestamp" plus one ``bad_timestamp`` flag: the submission is graded, not counted late.
    """
    path = Path(folder) / "timestamp.txt"
    if not os.path.lexists(path):
        return None, []
    data = read_plain_file(path, limit=200)
    text = data.decode("utf-8", "replace").strip() if data is not None else ""
    stamp = parse_timestamp(text) if text else None
    if stamp is not None:
        return stamp, []
    shown = printable(text[:40]) if text else "empty or not a file"
    return None, [Flag(BAD_TIMESTAMP, f"timestamp.txt is not a time ({shown}); read as none")]


# --------------------------------------------------------------------------- one entry point


def _set_aside(path: Path, files: Path) -> None:
    """Move one refused file (a notebook that is not one, a bad ``timestamp.txt``) out of the way."""
    try:
        os.rename(path, quarantine_path(files, (path.name,)))
    except OSError:
        os.unlink(path)


def prepare_submission(
    folder: Path,
    expected: list[str],
    limits: IntakeLimits | None = None,
    quarantine: Path | None = None,
    released: dict[tuple[str, ...], str] | None = None,
) -> IntakeResult:
    """Sanitise the folder, then read each notebook safely: the one intake step before grading.

    Refused files, notebooks that cannot be read within the caps and a ``timestamp.txt`` that is
    not a time are moved to the quarantine, so nbgrader (which follows links and fails on a bad
    timestamp) never meets them; what remains in ``folder`` is safe for nbgrader to grade.

    Parameters
    ----------
    folder : Path
        ``submitted/<student>/<assignment>``.
    expected : list of str
        The assignment's notebook names (from the gradebook), without ``.ipynb``.
    limits : IntakeLimits, optional
    quarantine : Path, optional
        Defaults to :func:`default_quarantine` (``<course>/quarantine/<student>/<assignment>``).
    released : dict, optional
        The files released with the assignment (:func:`released_files`): handed back
        unchanged, they are dropped without a flag.

    Returns
    -------
    IntakeResult
        Never raises for anything the student controls.
    """
    limits = limits or IntakeLimits()
    folder = Path(folder)
    quarantine = default_quarantine(folder) if quarantine is None else Path(quarantine)
    files = quarantine / QUARANTINED_FILES
    flags = sanitize_submission(folder, expected, limits, files, released)
    result = IntakeResult()
    for name in expected:
        path = folder / f"{name}.ipynb"
        nb = None
        if os.path.lexists(path):
            nb, more = read_notebook_safely(path, limits)
            flags += more
            if nb is None:
                _set_aside(path, files)
        if nb is None:
            result.missing.append(name)
            continue
        flags += strip_cell_metadata(nb)
        result.notebooks[name] = nb
    result.timestamp, more = read_timestamp(folder)
    if more and os.path.lexists(folder / "timestamp.txt"):
        _set_aside(folder / "timestamp.txt", files)
    result.flags = record_flags(flags + more, quarantine=quarantine)
    return result
