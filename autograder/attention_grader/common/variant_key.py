"""The course key behind every student's variant, kept with the teacher and never released.

Each student's numbers derive from ``HMAC(course key, student | assignment | question)``
(:mod:`attention_lab.variants`). The key is 32 random bytes in a file outside the released tree
(:attr:`Variants.key_file`, by default ``variant.key`` in the course folder beside
``gradebook.db``); the classroom hub creates it as it starts, mode 0600, when it is missing:
only the hub gives each student's server her seed, so a course without a key gives everyone
the practice numbers and grades everyone on them. A key inside ``source/``, ``release/`` or the exchange is refused:
those are what students receive. The grader and the hub's spawner read it to derive one
student's seed (:func:`student_seed`); the student gets only that seed.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from traitlets import Enum, Unicode
from traitlets.config import Config, Configurable

from attention_lab.variants import PRACTICE, StudentSeed, current_seed

__all__ = [
    "KeyMissing",
    "Variants",
    "course_key",
    "issued_path",
    "key_path",
    "note_issued",
    "student_seed",
]

KEY_BYTES = 32
#: The student nbgrader's generate_assignment names when it checks the teacher's solution.
RELEASE_CHECK_STUDENT = "."


class KeyMissing(RuntimeError):
    """The course has no key (the classroom hub makes one as it starts)."""


class Variants(Configurable):
    """Per-student variants: where the course key lives."""

    key_file = Unicode(
        "",
        help="The course key every student's variant derives from (32 random bytes, mode 0600; "
        "the classroom hub makes it as it starts, for ATTENTION_LAB_VARIANT_KEY). Only the hub "
        "gives each student's server her seed: a course without a key gives everyone, and "
        "grades everyone on, the practice numbers. Keep it outside source/, release/ and the "
        "exchange, out of git, and backed up with the gradebook: whoever holds it can compute "
        "every student's numbers. Relative paths are read from the course folder; empty means "
        "<course>/variant.key. Set it on purpose and grading refuses while the file is missing.",
    ).tag(config=True)

    without_key = Enum(
        ["practice", "own"],
        "practice",
        help="What grading does with a student's notebook when the course has no key (and "
        "key_file is not set on purpose): 'practice' (no hub gave anyone a seed: everyone "
        "worked on the practice numbers) or 'own' (make check's scratch course on the "
        "student's machine: her own seed, the hub's, else the practice numbers).",
    ).tag(config=True)


def key_path(config: Config) -> Path:
    """Return where the course key is, refusing a place students receive."""
    root = Path(config.CourseDirectory.get("root") or os.getcwd()).resolve()
    chosen = Variants(config=config).key_file or "variant.key"
    path = (root / chosen).resolve()
    released = [
        root / str(config.CourseDirectory.get("source_directory") or "source"),
        root / str(config.CourseDirectory.get("release_directory") or "release"),
    ]
    exchange = config.Exchange.get("root")
    if exchange:
        released.append(Path(str(exchange)).resolve())
    for folder in released:
        if path.is_relative_to(folder.resolve()):
            raise ValueError(
                f"c.Variants.key_file ({path}) is inside {folder}, which students receive: "
                "put the course key outside source/, release/ and the exchange"
            )
    return path


#: Beside the key, a note that the course has (had) a key: its fingerprint, never the key.
ISSUED_SUFFIX = ".issued"


def issued_path(key: Path) -> Path:
    """Return where the note that ``key`` was made lives (``variant.key.issued``)."""
    return key.with_name(key.name + ISSUED_SUFFIX)


def note_issued(key_file: Path, key: bytes, owner: tuple[int, int] | None = None) -> None:
    """Leave, beside the key, a note that it exists: who loses the key still knows there was one.

    Without it a course whose config does not name the key (``c.Variants.key_file``) would,
    the key lost, grade every student on the practice numbers in silence. The note holds the
    key's SHA-256 fingerprint (which gives nobody the key) and is written once, best effort,
    where the key is made (here and by the classroom hub), never beside a key only read. It is
    made new, never through a link (the hub runs as root in the teacher's folder); ``owner``
    ``(uid, gid)`` is given to it as it is made.
    """
    text = (
        "This course draws every student's numbers from the key beside this note (SHA-256 "
        f"{hashlib.sha256(key).hexdigest()[:16]}). If the key is lost, restore it from a "
        "backup: grading refuses without it.\n"
    )
    try:
        fd = os.open(
            issued_path(key_file), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644
        )
    except OSError:  # there already (or a link in its place): left as it is
        return
    with os.fdopen(fd, "w", encoding="ascii") as out:
        if owner is not None:
            os.fchown(fd, *owner)
        out.write(text)


def course_key(config: Config, create: bool = False) -> bytes:
    """Read the course key; ``create`` makes it (mode 0600) when missing.

    Raises
    ------
    KeyMissing
        No key and ``create`` is False.
    ValueError
        The file is not a key (too short) or lies where students receive files.
    """
    path = key_path(config)
    if not path.exists():
        if not create:
            raise KeyMissing(f"the course has no variant key at {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        made = secrets.token_hex(KEY_BYTES)
        with os.fdopen(fd, "w") as out:
            out.write(made + "\n")
        note_issued(path, bytes.fromhex(made))
    text = path.read_text(encoding="ascii", errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise ValueError(f"{path} is not a course key (64 hex digits): restore it from a backup")
    return key


def student_seed(config: Config, student: str | None) -> StudentSeed:
    """Return ``student``'s seed; the practice seed when there is no student.

    No student (or nbgrader's ``"."``): the release check grades the teacher's own solution.
    No key: the practice numbers, which every student without the hub's seed worked on
    (``c.Variants.without_key = "own"``, as ``make check``'s scratch course says: her own seed,
    the hub's, else the practice numbers); refused (:class:`KeyMissing`) when the course set
    ``c.Variants.key_file`` on purpose or the key's note (:func:`note_issued`) says there was
    one, since her numbers then came from that key.
    """
    if not student or student == RELEASE_CHECK_STUDENT:
        return PRACTICE
    try:
        return StudentSeed.from_key(course_key(config), student)
    except KeyMissing as missing:
        note = issued_path(key_path(config))
        if Variants(config=config).key_file or note.exists():
            # Never the practice numbers in silence: she was given her own.
            why = "c.Variants.key_file names it" if not note.exists() else f"{note} says it existed"
            raise KeyMissing(
                f"{missing}, and {why}: {student!r}'s numbers came from it, and grading without "
                "it would mark her against numbers she never saw. Restore the key from a backup "
                "(a new key gives every student new numbers)"
            ) from None
        if Variants(config=config).without_key == "own":
            return current_seed()
        return PRACTICE
