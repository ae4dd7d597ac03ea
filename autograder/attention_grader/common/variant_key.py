"""The course key behind every student's variant, kept with the teacher and never released.

Each student's numbers derive from ``HMAC(course key, student | assignment | question)``
(:mod:`attention_lab.variants`). The key is 32 random bytes in a file outside the released tree
(:attr:`Variants.key_file`, by default ``variant.key`` in the course folder beside
``gradebook.db``); ``make release`` (or the classroom hub, as it starts) creates it, mode
0600, when it is missing. A key inside ``source/``, ``release/`` or the exchange is refused:
those are what students receive. The grader and the hub's spawner read it to derive one
student's seed (:func:`student_seed`); the student gets only that seed.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from traitlets import Enum, Unicode
from traitlets.config import Config, Configurable

from attention_lab.variants import PRACTICE, StudentSeed, current_seed

__all__ = ["KeyMissing", "Variants", "course_key", "key_path", "student_seed"]

KEY_BYTES = 32
#: The student nbgrader's generate_assignment names when it checks the teacher's solution.
RELEASE_CHECK_STUDENT = "."


class KeyMissing(RuntimeError):
    """The course has no key yet (``make release`` makes one)."""


class Variants(Configurable):
    """Per-student variants: where the course key lives."""

    key_file = Unicode(
        "",
        help="The course key every student's variant derives from (32 random bytes, created "
        "mode 0600 by `make release` when missing). Keep it outside source/, release/ and the "
        "exchange, and out of git: whoever holds it can compute every student's numbers. "
        "Relative paths are read from the course folder; empty means <course>/variant.key.",
    ).tag(config=True)

    without_key = Enum(
        ["refuse", "own"],
        "refuse",
        help="What grading does with a student's notebook when the course has no key: "
        "'refuse' (a teacher's course: every student's numbers derive from the key, and "
        "grading without it would mark her against numbers she never saw) or 'own' (make "
        "check's scratch course on the student's machine: her own seed, the hub's, else the "
        "practice numbers).",
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


def course_key(config: Config, create: bool = False) -> bytes:
    """Read the course key; ``create`` makes it (mode 0600) when missing (``make release``).

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
            raise KeyMissing(f"the course has no variant key at {path}: `make release` creates one")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(KEY_BYTES) + "\n")
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
    No key: refused (:class:`KeyMissing`), unless the course says
    ``c.Variants.without_key = "own"``, as ``make check``'s scratch course does: there her own
    seed is the one her server has (the hub's, else the practice numbers).
    """
    if not student or student == RELEASE_CHECK_STUDENT:
        return PRACTICE
    try:
        return StudentSeed.from_key(course_key(config), student)
    except KeyMissing as missing:
        if Variants(config=config).without_key == "own":
            return current_seed()
        # Never the practice numbers in silence: she was given her own.
        raise KeyMissing(
            f"{missing}, and {student!r}'s notebook draws her own numbers from it: grading "
            "without the key would mark her against numbers she never saw. Restore the key "
            "(c.Variants.key_file) from a backup; a new key gives every student new numbers"
        ) from None
