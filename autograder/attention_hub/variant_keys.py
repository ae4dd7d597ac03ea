"""Each course's variant key on the hub: made as the hub starts, turned into each student's seed.

A course with variants (``Course.variant_key_file``) gives each student her own numbers: her
server gets ``HMAC(course key, login)`` as its seed (:func:`variant_seed`), never the key. The
hub makes a missing key before any server starts (:func:`ensure_variant_keys`). Standard library
only (and ``attention_lab.variants`` for the seed, the grader's key notes when a key is made).
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Sequence
from pathlib import Path

from attention_hub.course import STUDENT_PREFIX, Course

__all__ = ["ensure_variant_keys", "refuse_shared_keys", "variant_seed"]

# the name it has logged under since the hub's first variant keys (admins filter by it)
log = logging.getLogger("attention_lab.classroom")


def variant_seed(courses: Sequence[Course], groups: set[str], login: str) -> str:
    """Return the variant seeds of a student's server (``SEED_ENV``'s text), or "".

    For each course she studies (hub group ``nbgrader-<course>``) that names a key file:
    ``HMAC(course key, login)``, the login being the id the exchange trusts for her. Several
    courses: one line each (``attention_lab.variants.seeds_text``); a notebook draws with the
    seed of the course whose folder it is in (``~/<course>/<assignment>``, as fetched).
    """
    from attention_lab.variants import StudentSeed, seeds_text

    keyed = [c for c in courses if c.variant_key_file and STUDENT_PREFIX + c.course_id in groups]
    seeds = {}
    for course in keyed:
        try:
            with open(str(course.variant_key_file), encoding="ascii") as key:
                secret = bytes.fromhex(key.read().strip())
        except (OSError, ValueError) as err:  # the hub made it at start: gone or spoilt since
            log.error(
                "%s: variant key unreadable (%s): %s gets the practice numbers (answers "
                "worked on them are flagged other_variant); restore the key from a backup",
                course.course_id, err, login,
            )  # fmt: skip
            continue
        seeds[course.course_id] = StudentSeed.from_key(secret, login)
    return seeds_text(seeds) if seeds else ""


def ensure_variant_keys(courses: Sequence[Course]) -> list[str]:
    """Make each course's missing variant key now, as the hub starts; return the keys made.

    A server started before the key existed would hold no seed: its student would work on the
    practice numbers and be marked wrong (flagged ``other_variant``) at grading. So the key is
    made before any server: 32 random bytes as 64 hex digits, the form ``make release`` reads
    and writes, mode 0600, owned by whoever owns the folder it is in (the instructor's course
    folder), so that her grading reads it and no student does. An existing key is left alone.

    Raises
    ------
    ValueError
        The key's folder is missing: the hub does not start (a key made elsewhere would not be
        the one the teacher grades with).
    """
    refuse_shared_keys(courses)
    made = []
    for course in courses:
        path = course.variant_key_file
        if not path or os.path.lexists(path):
            continue
        _make_key(course, path)
        made.append(path)
    return made


def _make_key(course: Course, path: str) -> None:
    """Write a new key at ``path``, owned like its folder, and note it for grading."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(
            f"the hub does not start: ATTENTION_LAB_VARIANT_KEY ({path}) is in no folder "
            f"yet; install the course first (install.py instructor), or point it at "
            f"<course folder>/variant.key"
        )
    owner = os.stat(folder)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        if os.geteuid() == 0:
            os.fchown(fd, owner.st_uid, owner.st_gid)
        os.write(fd, (key + "\n").encode("ascii"))
    finally:
        os.close(fd)
    # so that grading refuses if the key is lost, even where the config does not name it
    from attention_grader.common.variant_key import note_issued

    mine = (owner.st_uid, owner.st_gid) if os.geteuid() == 0 else None
    note_issued(Path(path), bytes.fromhex(key), mine)
    log.warning("%s: made the course's variant key %s", course.course_id, path)


def refuse_shared_keys(courses: Sequence[Course]) -> None:
    """Refuse two courses naming one variant key: each class gets its own.

    With one key, a student of both would get the same numbers in both, and either class's
    teacher could compute every student's numbers of the other.

    Raises
    ------
    ValueError
        Two courses name the same key file.
    """
    seen: dict[str, str] = {}
    for course in courses:
        if not course.variant_key_file:
            continue
        path = os.path.realpath(course.variant_key_file)
        if path in seen:
            raise ValueError(
                f"the hub does not start: courses {seen[path]!r} and {course.course_id!r} name "
                f"one variant key ({course.variant_key_file}); give each class its own, e.g. "
                "<its course folder>/variant.key"
            )
        seen[path] = course.course_id
