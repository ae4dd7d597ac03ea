"""The shared exchange's course folders: made at install, owned by the instructor, checked at start.

nbgrader makes a course's folders (``<exchange>/<course>/{outbound,inbound,feedback}``) at the
instructor's first ``release``, in an exchange root every user may write (1777). Whoever makes
the course folder first owns it: a student who made it before the first release received every
classmate's submission and served them her own "assignment". So ``install.py system --owner``
makes them at install, owned by the instructor (or the grader account), and ``install.py check``
and the hub's start (:func:`course_folder_problems`, called by ``configure_classroom``) refuse a
course folder owned by anyone else.

Modes (nbgrader's, plus the sticky bit on ``inbound/``): the course folder and ``outbound/``
755, ``inbound/`` 3733 (students may create and enter, not list; setgid gives submissions the
instructor's group; sticky: nobody renames or deletes another's folder), ``feedback/`` 711
(students fetch by a name only they can compute). A hub that gives each student a filesystem of
their own (``user_disk.py``) closes ``inbound/`` to students at their first spawn
(:data:`INBOUND_PER_USER_MODE`, 3731: they hand in through ``inbound/<student>/`` on their own
disk); both modes are accepted. Standard library only (the hub loads it).
"""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "COURSE_DIR_MODES",
    "INBOUND_PER_USER_MODE",
    "course_folder_problems",
    "enrolled_inbound",
    "make_course_folders",
    "shielded_courses",
]

COURSE_DIR_MODES = {
    "": 0o755,
    "outbound": 0o755,
    "inbound": 0o3733,
    "feedback": 0o711,
}
#: ``inbound/`` once students hand in through their own folders: others may enter, not write.
INBOUND_PER_USER_MODE = 0o3731


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def course_folder_problems(exchange: str | os.PathLike[str], course_id: str, owners: Iterable[str]) -> list[str]:  # fmt: skip
    """List what is wrong with one course's folders in the exchange (empty: nothing).

    Parameters
    ----------
    exchange : path
        The exchange root.
    course_id : str
    owners : iterable of str
        Accounts that may own the course's folders (its instructors or grader account; root).
    """
    allowed = set(owners) | {"root"}
    course = Path(exchange) / course_id
    fix = (
        f"move it aside (mv {course} {course}.suspect) and run `install.py system --owner "
        f"<instructor>` again"
    )
    problems = []
    for sub, mode in COURSE_DIR_MODES.items():
        path = course / sub if sub else course
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            problems.append(f"{path} does not exist: make it with `install.py system --owner <instructor>`")  # fmt: skip
            continue
        if not stat.S_ISDIR(st.st_mode):
            problems.append(f"{path} is not a folder (a link or a file): {fix}")
            continue
        owner = _owner(st.st_uid)
        if owner not in allowed:
            problems.append(
                f"{path} is owned by {owner}, not by an instructor of {course_id} "
                f"({', '.join(sorted(allowed))}): {fix}"
            )
        elif stat.S_IMODE(st.st_mode) not in _accepted_modes(sub, mode):
            problems.append(
                f"{path} has mode {stat.S_IMODE(st.st_mode):o}, not {mode:o}: chmod {mode:o} {path}"
            )
    return problems


def _accepted_modes(sub: str, mode: int) -> tuple[int, ...]:
    return (mode, INBOUND_PER_USER_MODE) if sub == "inbound" else (mode,)


def make_course_folders(exchange: str | os.PathLike[str], course_id: str, owner: str) -> None:
    """Create (or fix the modes of) one course's folders, owned by ``owner``.

    Raises
    ------
    ValueError
        A course folder is already there and owned by someone else (made before the install:
        never taken over silently), or is not a folder.
    """
    entry = pwd.getpwnam(owner)
    course = Path(exchange) / course_id
    for sub, mode in COURSE_DIR_MODES.items():
        path = course / sub if sub else course
        if os.path.lexists(path):
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid not in (entry.pw_uid, 0):
                problems = course_folder_problems(exchange, course_id, [owner])
                raise ValueError("; ".join(problems) or f"{path} is not usable")
        else:
            path.mkdir()
        os.chown(path, entry.pw_uid, entry.pw_gid)
        if stat.S_IMODE(os.lstat(path).st_mode) not in _accepted_modes(sub, mode):
            os.chmod(path, mode)  # a closed inbound/ (per-user disks) stays closed


def enrolled_inbound(inbound: Iterable[str], groups: set[str], student_prefix: str) -> list[str]:
    """Return the courses' ``inbound/`` folders (``<exchange>/<course>/inbound``) of a student.

    ``groups``: the user's hub groups; a student of course X is in ``student_prefix + X``.
    """
    return [i for i in inbound
            if student_prefix + os.path.basename(os.path.dirname(os.path.abspath(i))) in groups]  # fmt: skip


def shielded_courses(inbound: Iterable[str]) -> list[str]:
    """Return the course folders (of ``inbound/`` folders) that share the first one's exchange root.

    A student's server sees that root capped (``server_namespace.shield_exchange_root``).
    """
    courses = [os.path.dirname(os.path.abspath(i)) for i in inbound]
    return [c for c in courses if os.path.dirname(c) == os.path.dirname(courses[0])]
