"""Who may read what in the exchange.

A submission: its student and the instructors; a released feedback page: its student.

nbgrader's release_feedback leaves each page 0644 in ``feedback/`` (0711): anyone who can compute
its name (a hash of the submission's secret) reads it. :func:`readable_only_by` gives the page to
its student alone with a POSIX ACL (``user:<student>:r``, nothing for group and others), where
the student has an account here and the filesystem has ACLs (a hub); elsewhere (one laptop) the
page stays 0644.

nbgrader's submit, leaving the submission readable only by its student and the instructors:

nbgrader's ``ExchangeSubmit`` leaves the folder in ``inbound/`` mode 0777 with 0644 files "so
the instructor can delete later": anyone who learns the folder's name (a log line is enough)
reads the notebook and ``submission_secret.txt`` (from which the name of the student's released
feedback follows), and replaces the notebook. ``inbound/`` is setgid (``install.py system``), so
the folder and its files already carry the instructor's group; this submit then sets the folder
(and any folder in it) to 2770 and the files to 0640: the student and the instructors' group,
nobody else. The instructors may still remove it (group write on the folder).

On a hub that gives each student a filesystem of their own (``autograder/attention_hub/user_disk.py``),
``inbound/`` is closed to students and each has ``inbound/<student>/`` on their own disk:
this submit hands in there (:func:`own_inbound`), so what a student writes counts against their
own cap only. Without that folder (one laptop, a hub without per-user disks) it hands in to
``inbound/`` itself, as nbgrader does.

The system-wide ``nbgrader_config.py`` of a hub (``install.py system``) sets
``c.ExchangeFactory.submit`` to :class:`PrivateExchangeSubmit` (and ``c.ExchangeFactory.list`` to
:class:`~attention_grader.exchange.inbound_list.SafeExchangeList`, which lists a student's own
folder for them). The modes are set at submit time, so they add nothing to the time collect
reads (the exchange's ctime, see :mod:`attention_grader.exchange.exchange_identity`).
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import struct
from collections.abc import Callable
from typing import Any

from nbgrader.exchange.default.submit import ExchangeSubmit

__all__ = [
    "FILE_MODE",
    "FOLDER_MODE",
    "PrivateExchangeSubmit",
    "make_private",
    "own_inbound",
    "own_student_folder",
    "readable_only_by",
    "remember_inbound_name",
    "remembered_inbound",
]

FOLDER_MODE = 0o2770
FILE_MODE = 0o640


def make_private(folder: str | os.PathLike[str]) -> None:
    """Set ``folder`` and its folders to :data:`FOLDER_MODE`, its files to :data:`FILE_MODE`.

    Links are left alone, never followed.
    """
    for root, dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.chmod(path, FILE_MODE)
        for name in dirs:
            path = os.path.join(root, name)
            if stat.S_ISDIR(os.lstat(path).st_mode):
                os.chmod(path, FOLDER_MODE)
    os.chmod(folder, FOLDER_MODE)


def own_inbound(inbound: str | os.PathLike[str], user: str) -> str | None:
    """Return ``inbound/<user>`` when it is the user's own folder there (a real folder), else None."""
    path = os.path.join(inbound, user)
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return path if stat.S_ISDIR(st.st_mode) else None


def own_student_folder(inbound: str | os.PathLike[str]) -> tuple[str, str] | None:
    """Return ``(student id, folder)``: this user's own folder in ``inbound/``, or None.

    The account's (``inbound/<account>/``, a hub of local accounts) or, in a pod where every
    user is ``jovyan``, the folder the hub mounted for the user it authenticated
    (``inbound/<slug>/``, :func:`~attention_grader.exchange.exchange_mounts.folder_slug` of
    ``$JUPYTERHUB_USER``). The variable only says where to look: a pod holds no folder but its
    own, so naming a classmate finds nothing.
    """
    from nbgrader.utils import get_username

    from attention_grader.exchange.exchange_mounts import folder_slug

    account = get_username()
    own = own_inbound(inbound, account)
    if own is not None:
        return account, own
    hub_user = os.environ.get("JUPYTERHUB_USER", "")
    mounted = own_inbound(inbound, folder_slug(hub_user)) if hub_user else None
    return (hub_user, mounted) if mounted is not None else None


#: In the student's own cached copy of a hand-in: the full name of its folder in ``inbound/``.
INBOUND_NAME_FILE = "inbound_name.txt"


def remember_inbound_name(cache_path: str, folder_name: str) -> None:
    """Write ``folder_name`` into the student's cached copy of the hand-in.

    On one machine without per-user folders a student hands in straight to ``inbound/``, which
    she may enter but not list (3733), and nbgrader caches her copy without the folder name's
    random end. So the name is kept here: ``nbgrader list --inbound``
    (:class:`~attention_grader.exchange.inbound_list.SafeExchangeList`) finds her own hand-ins
    by it. Only a name: what it names is judged as collect judges it.
    """
    cached = os.path.join(cache_path, folder_name.rsplit("+", 1)[0])
    if os.path.isdir(cached) and not os.path.islink(cached):
        with open(os.path.join(cached, INBOUND_NAME_FILE), "w", encoding="utf8") as out:
            out.write(folder_name)


def remembered_inbound(cache_path: str, inbound: str) -> list[str]:
    """Return the folders in ``inbound`` this user's cached hand-ins name (existing ones only)."""
    found = []
    try:
        cached = sorted(os.scandir(cache_path), key=lambda e: e.name)
    except OSError:
        return []
    for entry in cached:
        note = os.path.join(entry.path, INBOUND_NAME_FILE)
        if not entry.is_dir(follow_symlinks=False) or os.path.islink(note):
            continue
        try:
            with open(note, encoding="utf8") as text:
                name = text.read(4096).strip()
        except OSError:
            continue
        # her own note, but a name only: one folder of inbound/ whose name starts as the cache's
        if (
            name.startswith(entry.name + "+")
            and "/" not in name
            and os.path.lexists(os.path.join(inbound, name))
        ):
            found.append(os.path.join(inbound, name))
    return found


class PrivateExchangeSubmit(ExchangeSubmit):
    """``ExchangeSubmit``, then :func:`make_private` on the new folder in ``inbound/``.

    Its copy keeps the setgid bit the new folder inherits from ``inbound/``: nbgrader's copy
    (``shutil.copytree``) copies the student's folder mode onto it, which, the student not being
    in the instructors' group, clears setgid, so ``timestamp.txt`` and ``submission_secret.txt``
    (written next) got the student's own group and the instructors could not read the secret:
    no feedback could be released.
    """

    def init_dest(self) -> None:
        """Nbgrader's, handing in to ``inbound/<student>/`` when the hub made one (:func:`own_inbound`).

        nbgrader's own checks that ``inbound/`` itself is writable, which it is not then; the rest
        (access, ids, the folder's name) is nbgrader's, as in its ``init_dest``.
        """
        import base64

        from nbgrader.utils import check_mode

        course = self.coursedir.course_id
        found = own_student_folder(os.path.join(self.root, course, "inbound")) if course else None
        if found is None:
            super().init_dest()
            return
        user, own = found
        if not self.authenticator.has_access(self.coursedir.student_id, course):
            self.fail("You do not have access to this course.")
        if not check_mode(own, write=True, execute=True):
            self.fail(f"Your folder in the exchange ({own}) is not ready: ask your teacher")
        self.inbound_path = own
        self.cache_path = os.path.join(self.cache, course)
        student_id = self.coursedir.student_id
        if student_id == "*":
            student_id = user  # the account, or in a one-uid pod the hub's name for the user
        elif "*" in student_id or "+" in student_id:
            self.fail(f"The student ID should contain no '*' nor '+'; got {student_id}")
        parts = [student_id, self.coursedir.assignment_id, self.timestamp]
        if self.add_random_string:
            parts.append(base64.urlsafe_b64encode(os.urandom(9)).decode("ascii"))
        self.assignment_filename = "+".join(parts)

    def copy_files(self) -> None:
        super().copy_files()
        make_private(os.path.join(self.inbound_path, self.assignment_filename))
        remember_inbound_name(self.cache_path, self.assignment_filename)

    def do_copy(self, src: str, dest: str, log: Any = None) -> None:
        from nbgrader.utils import ignore_patterns

        size = self.get_size(src)
        if size > 1000 * self.coursedir.max_dir_size:
            raise RuntimeError(f"Directory size is too big. Size is {size}, maximum size is "
                               f"{1000 * self.coursedir.max_dir_size}")  # fmt: skip
        ignore = ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                 max_file_size=self.coursedir.max_file_size, log=self.log)  # fmt: skip
        _copy_contents(src, dest, ignore)


def _copy_contents(
    src: str, dest: str, ignore: Callable[[str, list[str]], set[str]] | None
) -> None:
    """Copy ``src`` into a new ``dest``, contents only.

    Folders are made (inheriting group and setgid) and file contents copied; no mode or owner is
    copied (``shutil.copytree`` without its ``copystat``).
    """
    os.makedirs(dest)
    names = os.listdir(src)
    skipped = ignore(src, names) if ignore else set()
    for name in names:
        if name in skipped:
            continue
        source, target = os.path.join(src, name), os.path.join(dest, name)
        if os.path.isdir(source):
            _copy_contents(source, target, ignore)
        else:
            shutil.copyfile(source, target)


# POSIX ACL xattr (linux/posix_acl_xattr.h): version 2, then (tag, perm, id) entries, sorted by tag
_ACL_VERSION = 2
_USER_OBJ, _USER, _GROUP_OBJ, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
_NO_ID = 0xFFFFFFFF


def readable_only_by(path: str | os.PathLike[str], user: str) -> bool:
    """Make ``path`` (owned by the caller) readable by its owner and ``user`` only.

    Returns
    -------
    bool
        True when done; False when ``user`` has no account here or the filesystem has no ACLs
        (then the mode is left as it was: the caller decides).
    """
    try:
        uid = pwd.getpwnam(user).pw_uid
    except KeyError:
        return False
    if uid == os.stat(path).st_uid:
        os.chmod(path, 0o600)
        return True
    entries = [(_USER_OBJ, 6, _NO_ID), (_USER, 4, uid), (_GROUP_OBJ, 0, _NO_ID),
               (_MASK, 4, _NO_ID), (_OTHER, 0, _NO_ID)]  # fmt: skip
    blob = struct.pack("<I", _ACL_VERSION) + b"".join(struct.pack("<HHI", *e) for e in entries)
    try:
        os.setxattr(path, "system.posix_acl_access", blob)
    except OSError:
        return False
    return True
