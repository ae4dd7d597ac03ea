"""Real local accounts and an exchange they can reach, for the exchange tests that run as
students (tests/attention_grader/exchange/: test_exchange_identity, test_inbound_list,
test_separate_accounts; their ``accounts`` fixture is that folder's conftest.py). Needs root.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import os
import stat
import struct
import subprocess
import sys
from pathlib import Path

#: A submission time in the future, as a forged folder's name or timestamp.txt says.
FUTURE = "2099-01-01 00:00:00.000000 UTC"


def account_uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


def chown_tree(path: Path, uid: int) -> None:
    """Hand ``path`` to ``uid`` (the group stays: inbound's setgid group, as on the hub)."""
    for root, dirs, files in os.walk(path):
        for n in [*dirs, *files]:
            os.lchown(os.path.join(root, n), uid, -1)
    os.lchown(path, uid, -1)


def inbound_folder(course) -> Path:
    return course.exchange / course.course_id / "inbound"


def run_nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    cmd = [sys.executable, "-m", "nbgrader", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def own_folder(course, student: str, owner_uid: int = 0) -> Path:
    """``inbound/<student>/`` as a hub with per-user disks makes it (the hub's, here root's)."""
    folder = inbound_folder(course) / student
    folder.mkdir()
    os.lchown(folder, owner_uid, -1)
    return folder


def hub_module(module: str):
    """A module of the hub's package (autograder/attention_hub), or its ``install.py`` command."""
    import importlib

    # install.py, a command admins run by path, is on pytest's pythonpath by its module name
    return importlib.import_module(module if module == "install" else f"attention_hub.{module}")


#: The students' Python: here the venv's interpreter lives under /root (pyenv), which students
#: cannot enter (a hub builds its env under /opt); the system's of the same version, given the
#: venv's packages, is what a student's server runs.
STUDENT_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
CLI = (
    "import site, sys; site.addsitedir(sys.argv.pop(1)); "
    "from nbgrader.apps.nbgraderapp import main; main()"
)


#: POSIX ACL entry tags (acl_ea.h) and the extended attribute that holds a folder's ACL.
ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ, ACL_MASK, ACL_OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
ACL_XATTR = "system.posix_acl_access"
_NO_ID = 0xFFFFFFFF


def acl_with_search(folder: Path, uids: list[int]) -> bytes:
    """``folder``'s ACL (its own, or its mode's) plus search (x) for each of ``uids``."""
    try:
        blob = os.getxattr(folder, ACL_XATTR)
        entries = [struct.unpack_from("<HHI", blob, 4 + 8 * i) for i in range((len(blob) - 4) // 8)]
    except OSError:  # no ACL: the mode's three classes
        mode = folder.stat().st_mode
        entries = [(ACL_USER_OBJ, (mode >> 6) & 7, _NO_ID), (ACL_GROUP_OBJ, (mode >> 3) & 7, _NO_ID),
                   (ACL_OTHER, mode & 7, _NO_ID)]  # fmt: skip
    users = {uid: perm for tag, perm, uid in entries if tag == ACL_USER}
    users.update({uid: users.get(uid, 0) | 1 for uid in uids})
    kept = [e for e in entries if e[0] not in (ACL_USER, ACL_MASK)]
    kept += [(ACL_USER, perm, uid) for uid, perm in users.items()]
    # the mask bounds every named entry and the group: it grants no more than they hold
    group_class = [perm for tag, perm, _ in kept if tag not in (ACL_USER_OBJ, ACL_OTHER)]
    kept.append((ACL_MASK, functools.reduce(operator.or_, group_class, 0), _NO_ID))
    kept.sort(key=lambda e: (e[0], e[2]))
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in kept)


@contextlib.contextmanager
def students_may_enter(paths: list[Path], uids: list[int]):
    """Each folder above ``paths`` that others cannot enter, enterable (search only, no
    listing) by ``uids`` for a while: a clone in ``mktemp -d`` (0700) holds the venv and the
    course's packages a student's process runs from, as a hub's environment under /opt is
    readable by everyone. Each folder's ACL and mode are put back afterwards.
    """
    closed = {
        folder
        for path in paths
        for folder in {*path.parents, *path.resolve().parents}
        if not folder.stat().st_mode & stat.S_IXOTH
    }
    before = {}
    try:
        for folder in sorted(closed):
            try:
                acl = os.getxattr(folder, ACL_XATTR)
            except OSError:
                acl = None
            before[folder] = (folder.stat().st_mode, acl)
            os.setxattr(folder, ACL_XATTR, acl_with_search(folder, uids))
        yield
    finally:
        for folder, (mode, acl) in before.items():
            if acl is None:
                os.removexattr(folder, ACL_XATTR)
            else:
                os.setxattr(folder, ACL_XATTR, acl)
            os.chmod(folder, stat.S_IMODE(mode))
