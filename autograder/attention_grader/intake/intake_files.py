"""The file half of the intake: which entries a submission folder may hold.

The folder is walked without following links; refused entries are moved to a quarantine
(``sanitize_submission``) or not copied (``copy_submission``). See
:mod:`attention_grader.intake.intake` for the rules and flag kinds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

from attention_grader.common.flags import UNEXPECTED_FILE, UNSAFE_FILE, Flag
from attention_grader.common.safe_text import printable
from attention_grader.config.settings import IntakeLimits

__all__ = [
    "BOOKKEEPING",
    "FlagList",
    "IntakeLimits",
    "MAX_FLAGS",
    "classify_entry",
    "released_files",
    "copy_submission",
    "default_quarantine",
    "quarantine_path",
    "read_plain_file",
    "sanitize_submission",
    "walk_submission",
]

BOOKKEEPING = ("timestamp.txt", "submission_secret.txt")
#: The default of ``c.Intake.max_flags`` (the config's value is the one read).
MAX_FLAGS = IntakeLimits.max_flags


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):  # fmt: skip
        if test(mode):
            return name
    return "not a regular file"


def classify_entry(
    rel: tuple[str, ...], st: os.stat_result, expected: list[str], limits: IntakeLimits
) -> tuple[str, str] | None:
    """Whether one entry of a submission may stay: None, or ``(flag kind, why)``.

    Parameters
    ----------
    rel : tuple of str
        The entry's path inside the submission folder, one part per level (``("data", "x.csv")``).
    st : os.stat_result
        Its ``lstat`` (never the target of a link).
    expected : list of str
        Names of the assignment's notebooks, without ``.ipynb``.
    """
    name, depth = rel[-1], len(rel)
    mode = st.st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return UNSAFE_FILE.id, _kind_of(mode)
    if stat.S_ISREG(mode) and st.st_nlink > 1:
        return UNSAFE_FILE.id, f"a hard link ({st.st_nlink} names for one file)"
    if name.startswith("."):
        return UNEXPECTED_FILE.id, "a hidden file or folder"
    if printable(name) != name:
        return UNEXPECTED_FILE.id, "a name with control characters"
    if stat.S_ISDIR(mode):
        return (
            (UNEXPECTED_FILE.id, "a folder nested too deep") if depth >= limits.max_depth else None
        )
    size = st.st_size
    if depth == 1 and name in {f"{nb}.ipynb" for nb in expected}:
        too_big = size > limits.max_notebook_bytes
        return (UNEXPECTED_FILE.id, f"a notebook of {size} bytes (limit {limits.max_notebook_bytes})") if too_big else None  # fmt: skip
    if depth == 1 and name in BOOKKEEPING:
        too_big = size > limits.max_bookkeeping_bytes
        return (UNEXPECTED_FILE.id, f"{size} bytes: not what nbgrader writes") if too_big else None
    suffix = os.path.splitext(name)[1].lower()
    if suffix not in limits.data_suffixes:
        what = "another notebook" if suffix == ".ipynb" else "not a notebook or a data file"
        return UNEXPECTED_FILE.id, what
    if size > limits.max_data_file_bytes:
        return (
            UNEXPECTED_FILE.id,
            f"a data file of {size} bytes (limit {limits.max_data_file_bytes})",
        )
    return None


#: ``refuse(dir_fd, name, rel, (kind, why))``, ``keep_file(dir_fd, name, rel, st)`` and
#: ``enter_dir(rel)``: what :func:`walk_submission` calls back
Refuse = Callable[[int, str, tuple[str, ...], tuple[str, str]], None]
KeepFile = Callable[[int, str, tuple[str, ...], os.stat_result], None]
EnterDir = Callable[[tuple[str, ...]], None]


class FlagList:
    """Flags of one submission, capped at ``limit`` lines (``c.Intake.max_flags``).

    A folder of 10 000 links is one line per link up to the cap, then one "and N more".
    """

    def __init__(self, limit: int = MAX_FLAGS) -> None:
        self.items: list[Flag] = []
        self.extra = 0
        self.limit = limit

    def add(self, kind: str, rel: tuple[str, ...], why: str, action: str = "removed") -> None:
        if len(self.items) >= self.limit:
            self.extra += 1
            return
        self.items.append(Flag(kind, f"{printable('/'.join(rel))}: {why}; {action}"))

    def done(self) -> list[Flag]:
        more = [Flag(UNEXPECTED_FILE.id, f"and {self.extra} more refused")] * bool(self.extra)
        return self.items + more


def read_plain_file(path: Path, limit: int | None = None) -> bytes | None:
    """Return the bytes of a small regular file ``path``; None otherwise.

    The file must have one name (it is opened with ``O_NOFOLLOW`` and checked on the open
    descriptor) and at most ``limit`` bytes.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            return None
        if limit is not None and st.st_size > limit:
            return None
        return fh.read() if limit is None else fh.read(limit)


def default_quarantine(folder: Path) -> Path:
    """``<course>/quarantine/<student>/<assignment>`` for ``<course>/submitted/<student>/<assignment>``."""
    folder = Path(folder)
    return folder.parent.parent.parent / "quarantine" / folder.parent.name / folder.name


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


class _Budget:
    """Entries and bytes seen so far in one submission."""

    def __init__(self, limits: IntakeLimits):
        self.limits, self.entries, self.bytes = limits, 0, 0

    def take(self, st: os.stat_result) -> tuple[str, str] | None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            return UNEXPECTED_FILE.id, f"more than {self.limits.max_entries} files"
        if stat.S_ISREG(st.st_mode):
            self.bytes += st.st_size
            if self.bytes > self.limits.max_submission_bytes:
                return UNEXPECTED_FILE.id, f"over {self.limits.max_submission_bytes} bytes in all"
        return None


def walk_submission(
    folder: str | os.PathLike[str],
    expected: list[str],
    limits: IntakeLimits,
    refuse: Refuse,
    keep_file: KeepFile | None = None,
    enter_dir: EnterDir | None = None,
) -> None:
    """Visit every entry of ``folder`` through directory descriptors, never following a link.

    Each entry is ``lstat``-ed relative to its parent's descriptor (``dir_fd``), so a folder
    swapped for a link half-way cannot redirect the walk. Calls ``refuse(dir_fd, name, rel,
    (kind, why))`` for each refused entry, ``keep_file(dir_fd, name, rel, st)`` for each kept file
    and ``enter_dir(rel)`` before descending into a kept folder.
    """
    budget = _Budget(limits)

    def walk(dir_fd: int, rel: tuple[str, ...]) -> None:
        for name in sorted(os.listdir(dir_fd)):
            here = (*rel, name)
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            verdict = classify_entry(here, st, expected, limits) or budget.take(st)
            if verdict is not None:
                refuse(dir_fd, name, here, verdict)
            elif stat.S_ISDIR(st.st_mode):
                sub = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
                try:
                    if enter_dir:
                        enter_dir(here)
                    walk(sub, here)
                finally:
                    os.close(sub)
            elif keep_file:
                keep_file(dir_fd, name, here, st)

    top = os.open(folder, _DIR_FLAGS)
    try:
        walk(top, ())
    finally:
        os.close(top)


def _remove_at(dir_fd: int, name: str) -> None:
    if stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)  # rmtree never follows links inside the tree
    else:
        os.unlink(name, dir_fd=dir_fd)


def _clear(path: Path) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def quarantine_path(root: Path, rel: tuple[str, ...]) -> Path:
    """Return a free path ``root/rel...`` made of real folders only.

    The quarantine holds links a student handed in (moved, not followed). A later submission's
    refused ``sub/x`` must not land *through* an earlier quarantined link named ``sub``, so every
    folder on the way that is not a real folder is removed first, and the last name is freed.
    """
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    for part in rel[:-1]:
        path = path / part
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
            os.unlink(path)
        path.mkdir(exist_ok=True)
    path = path / rel[-1]
    _clear(path)
    return path


#: The default of ``c.Intake.max_released_hash_bytes`` (the config's value is the one read).
_RELEASED_HASH_BYTES = IntakeLimits.max_released_hash_bytes


def _sha256(dir_fd: int | None, name: str | Path, limit: int) -> str | None:
    """Return the SHA-256 of a regular file opened without following a link, or None."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        digest = hashlib.sha256()
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
        return digest.hexdigest()


def released_files(
    folder: str | os.PathLike[str], limit: int = _RELEASED_HASH_BYTES
) -> dict[tuple[str, ...], str]:
    """Return the files the teacher released beside the notebooks: relative path -> SHA-256.

    ``folder`` is the assignment's ``source/`` folder (what nbgrader's autograde copies into
    every graded folder first); notebooks are left out, and so are files over ``limit`` bytes
    (``c.Intake.max_released_hash_bytes``). A student who hands one back unchanged did nothing:
    it is dropped without a flag (nbgrader puts the teacher's copy back).
    """
    found: dict[tuple[str, ...], str] = {}
    top = Path(folder)
    for here, _dirs, files in os.walk(top):  # the teacher's own folder; links not followed
        for name in files:
            path = Path(here, name)
            if path.suffix == ".ipynb" or path.is_symlink():
                continue
            digest = _sha256(None, path, limit)
            if digest:
                found[path.relative_to(top).parts] = digest
    return found


def sanitize_submission(
    folder: Path,
    expected: list[str],
    limits: IntakeLimits | None = None,
    quarantine: Path | None = None,
    released: dict[tuple[str, ...], str] | None = None,
) -> list[Flag]:
    """Move away every entry of ``folder`` that :func:`classify_entry` refuses, following no link.

    Parameters
    ----------
    folder : Path
        A submission folder (``submitted/<student>/<assignment>``).
    expected : list of str
        The assignment's notebook names (without ``.ipynb``).
    limits : IntakeLimits, optional
    quarantine : Path, optional
        Where refused entries go (same relative path; ``rename`` moves a link itself, never its
        target); None deletes them.

    Returns
    -------
    list of Flag
        One per refused entry (at most ``limits.max_flags``, then one "and N more"); none for a
        file of ``released`` (:func:`released_files`) handed back unchanged.
    """
    limits = limits or IntakeLimits()
    flags = FlagList(limits.max_flags)
    released = released or {}

    def teachers(dir_fd: int, name: str, rel: tuple[str, ...]) -> bool:
        return rel in released and _sha256(dir_fd, name, limits.max_released_hash_bytes) == released[rel]  # fmt: skip

    def refuse(dir_fd: int, name: str, rel: tuple[str, ...], verdict: tuple[str, str]) -> None:
        if not teachers(dir_fd, name, rel):
            action = "moved to quarantine" if quarantine else "removed"
            flags.add(verdict[0], rel, verdict[1], action)
        if quarantine is not None:
            try:
                os.rename(name, quarantine_path(quarantine, rel), src_dir_fd=dir_fd)
                return
            except OSError:
                pass  # another file system, a read-only quarantine: delete instead
        _remove_at(dir_fd, name)

    if os.path.isdir(folder) and not os.path.islink(folder):
        walk_submission(folder, expected, limits, refuse)
    return flags.done()


def copy_submission(
    src: Path, dest: Path, expected: list[str], limits: IntakeLimits | None = None
) -> list[Flag]:
    """Copy the kept entries of ``src`` into a new folder ``dest``; refused ones are not copied.

    What ``nbgrader collect`` should do with a folder in the exchange (which the student can
    still change while it is copied): each file is opened with ``O_NOFOLLOW`` relative to its
    folder's descriptor and checked again on the open descriptor (regular, one link, within its
    size) before its bytes are copied, so a link swapped in after the check is refused too.
    """
    limits = limits or IntakeLimits()
    flags = FlagList(limits.max_flags)
    dest = Path(dest)
    dest.mkdir(parents=True)

    def refuse(dir_fd: int, name: str, rel: tuple[str, ...], verdict: tuple[str, str]) -> None:
        flags.add(verdict[0], rel, verdict[1], "not collected")

    def keep_file(dir_fd: int, name: str, rel: tuple[str, ...], st: os.stat_result) -> None:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        except OSError:
            return flags.add(UNSAFE_FILE.id, rel, "changed while it was copied", "not collected")
        with os.fdopen(fd, "rb") as fh:
            now = os.fstat(fd)
            same = (now.st_ino, now.st_dev) == (st.st_ino, st.st_dev) and now.st_nlink == 1
            if not (stat.S_ISREG(now.st_mode) and same and now.st_size <= st.st_size):
                return flags.add(
                    UNSAFE_FILE.id, rel, "changed while it was copied", "not collected"
                )
            data = fh.read(st.st_size + 1)
        if len(data) > st.st_size:
            return flags.add(UNEXPECTED_FILE.id, rel, "grew while it was copied", "not collected")
        dest.joinpath(*rel).write_bytes(data)

    walk_submission(
        src, expected, limits, refuse, keep_file, lambda rel: dest.joinpath(*rel).mkdir()
    )
    return flags.done()
