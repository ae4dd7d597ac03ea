"""nbgrader's collect, autograde and release_feedback with the intake applied, for plain nbgrader too.

:func:`configure_intake` puts these into a course's ``nbgrader_config.py``, so ``nbgrader
collect``, ``nbgrader autograde``, ``nbgrader release_feedback``, the formgrader and
``python -m attention_grader`` all use them:

* :class:`SafeExchangeCollect` (``c.ExchangeFactory.collect``): nbgrader's collect copies the
  exchange folder with ``shutil.copytree``, which follows links, so a link to ``../../source``
  handed in became a real copy of the solution. This one copies with
  :func:`~.intake.copy_submission` (nothing followed, only notebooks and data files), refuses
  exchange folders whose name is not ``<plain id>+<assignment>+<time>``, replaces a
  ``timestamp.txt`` that is not a time by the time in the folder's name, and collects every
  student even when one submission fails.
* :func:`intake_hook` (``c.Autograde.pre_convert_hook``): runs :func:`~.intake.prepare_submission`
  on ``submitted/<student>/<assignment>`` before nbgrader copies or reads anything there.
* :class:`IntakeGuard` (first of ``c.Autograde.sanitize_preprocessors``): strips cell metadata
  (``skip-execution`` …) and refuses a notebook over the caps.
* :class:`SafeExchangeReleaseFeedback` (``c.ExchangeFactory.release_feedback``): publishes only
  ``<notebook>.html`` of the assignment's notebooks, as plain single-link files, and a student
  without a readable ``submission_secret.txt`` is named and skipped instead of stopping everyone.
"""

from __future__ import annotations

import glob
import os
import stat
from datetime import datetime
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.preprocessors import NbGraderPreprocessor

from .intake import (
    IntakeLimits,
    copy_submission,
    default_quarantine,
    parse_timestamp,
    prepare_submission,
    read_plain_file,
    record_flags,
    strip_cell_metadata,
)
from .safe_text import printable
from .summary import Flag
from .summary import record_flags as record_notebook_flags

__all__ = [
    "IntakeGuard",
    "SafeExchangeCollect",
    "SafeExchangeReleaseFeedback",
    "UnsafeSubmission",
    "configure_intake",
    "expected_notebooks",
    "intake_hook",
]

NBGRADER_TIME = "%Y-%m-%d %H:%M:%S.%f UTC"


class UnsafeSubmission(RuntimeError):
    """A notebook the intake refuses to grade; the message is the one-line reason."""


def expected_notebooks(course_root: str | os.PathLike, assignment: str) -> list[str]:
    """The assignment's notebook names: those in ``source/<assignment>/`` (nbgrader's authority)."""
    folder = Path(course_root) / "source" / assignment
    return sorted(p.stem for p in folder.glob("*.ipynb") if not p.name.startswith("."))


def _safe_id(student: str) -> bool:
    """A student id that is one plain path component (no dot first, no control characters)."""
    return (
        bool(student)
        and not student.startswith(".")
        and "/" not in student
        and (printable(student) == student)
    )


# --------------------------------------------------------------------------- collect


class SafeExchangeCollect(ExchangeCollect):
    """nbgrader's collect without following links and without one submission stopping the rest.

    Attributes
    ----------
    flags : dict of str to list of Flag
        Per (printable) student id, what was refused; also recorded in the quarantine
        (``flags.json``), where :func:`~.intake.prepare_submission` finds it when grading.
    """

    limits = IntakeLimits()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.flags: dict[str, list[Flag]] = {}
        self._current: dict | None = None

    def _flag(self, student: str, flags: list[Flag]) -> None:
        if flags:
            self.flags.setdefault(printable(student), []).extend(flags)
        for flag in flags:
            self.log.warning("%s: %s", printable(student), flag)

    def _path_to_record(self, path):
        filename = os.path.basename(path)
        parts = filename.rsplit("+", 3)
        record = {"username": parts[0], "filename": filename, "timestamp": datetime.min}
        stamp = parse_timestamp(parts[2]) if len(parts) >= 3 else None
        if not _safe_id(parts[0]):
            record["refused"] = "the student id in its name is not a plain name"
        elif stamp is None:
            record["refused"] = "its name is not <student>+<assignment>+<time>"
        else:
            record["timestamp"] = stamp
        return record

    def copy_files(self):
        records, self._expected = self.src_records, None
        for rec in records:
            if rec.get("refused"):
                shown = printable(rec["filename"])
                self._flag(rec["username"], [Flag("unsafe_file", f"exchange folder {shown}: {rec['refused']}; not collected")])  # fmt: skip
                continue
            self.src_records, self._current = [rec], rec
            try:
                super().copy_files()
            except Exception as err:  # one broken submission never stops the others
                reason = printable(" ".join(str(err).split())[:120])
                self._flag(rec["username"], [Flag("unsafe_file", f"not collected: {type(err).__name__}: {reason}")])  # fmt: skip
        self.src_records = records

    def do_copy(self, src, dest, log=None):
        if self._expected is None:
            self._expected = expected_notebooks(self.coursedir.root, self.coursedir.assignment_id)
        flags = copy_submission(Path(src), Path(dest), self._expected, self.limits)
        stamp_file = Path(dest) / "timestamp.txt"
        if self._current is not None and os.path.exists(stamp_file):
            if parse_timestamp(stamp_file.read_text(errors="replace")) is None:
                when = self._current["timestamp"].strftime(NBGRADER_TIME)
                stamp_file.write_text(when)  # the time nbgrader itself read from the folder name
                flags.append(Flag("bad_timestamp", f"timestamp.txt is not a time; read as {when}"))  # fmt: skip
        student = os.path.basename(os.path.dirname(dest))
        record_flags(default_quarantine(Path(dest)), flags, reset=True)  # a new submission
        self._flag(student, flags)


# --------------------------------------------------------------------------- autograde


def intake_hook(assignment=None, student=None, notebooks=None, **_):
    """``Autograde.pre_convert_hook``: make the submission folder safe before nbgrader reads it.

    nbgrader calls it after choosing a submission and before copying its files or reading its
    notebooks, with ``notebooks`` (the list nbgrader will grade, changed here in place so that
    refused notebooks are skipped). nbgrader logs and ignores any exception from a hook.
    """
    if not notebooks:
        return
    folder = Path(notebooks[0]).parent
    root = folder.parent.parent.parent
    result = prepare_submission(folder, expected_notebooks(root, folder.name))
    notebooks[:] = [nb for nb in notebooks if os.path.lexists(nb)]
    return result


class IntakeGuard(NbGraderPreprocessor):
    """First sanitise step: drop execution-changing cell metadata; refuse notebooks over the caps.

    Flags go to the notebook's grading metadata (:func:`attention_grader.summary.record_flags`,
    read by the batch summary) and to the log, together with those recorded for the submission
    by collect and :func:`intake_hook`.
    """

    def preprocess(self, nb, resources):
        limits = IntakeLimits()
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
            every = record_flags(quarantine, flags)
            first = expected_notebooks(quarantine.parent.parent.parent, Path(folder).name)[:1]
            flags = every if first == [name] else flags
        record_notebook_flags(nb, flags)
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.released: list[str] = []
        self.withheld: dict[str, str] = {}
        self.flags: dict[str, list[Flag]] = {}

    def copy_files(self):
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
            flags = [Flag("unexpected_file", f"feedback/{shown}: not from an assignment notebook; not released")]  # fmt: skip
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
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(page)
            os.replace(tmp, Path(self.dest_path) / f"{checksum}.html")
            self.log.info("Released feedback for %s: %s", printable(student), printable(nb))
        self.released.append(student)


# --------------------------------------------------------------------------- config


def configure_intake(c) -> None:
    """Turn the intake on in an nbgrader config (``nbgrader_config.py``: ``configure_intake(c)``).

    Idempotent; keeps a teacher's own sanitise steps (the guard goes first). A teacher's own
    ``pre_convert_hook`` must call :func:`intake_hook` itself (a ValueError says so).
    """
    from nbgrader.converters import Autograde

    c.ExchangeFactory.collect = SafeExchangeCollect
    c.ExchangeFactory.release_feedback = SafeExchangeReleaseFeedback
    steps = c.Autograde.get("sanitize_preprocessors")
    if steps is None:
        steps = Autograde.class_traits()["sanitize_preprocessors"].default()
    if IntakeGuard not in steps:
        c.Autograde.sanitize_preprocessors = [IntakeGuard, *steps]
    previous = c.Autograde.get("pre_convert_hook")
    if previous is not None and previous is not intake_hook:
        raise ValueError(
            "c.Autograde.pre_convert_hook is already set: call "
            "attention_grader.safe_exchange.intake_hook(**kwargs) first in your own hook"
        )
    c.Autograde.pre_convert_hook = intake_hook
