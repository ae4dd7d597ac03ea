"""Each sandboxed kernel's private folder (sockets, kernel log, the copy of the submission).

The kernel manager removes its folder when the kernel is cleaned up. A grading process killed
outright (the submission's budget, ``make grade``'s watch over its workers, SIGKILL, OOM) never
gets there, and its folder, a copy of a student's files among them, would stay in ``/tmp``. So
each folder records the process that made it (:data:`OWNER`), and every new kernel first reaps
the folders whose process is gone (:func:`reap_orphans`).
"""

from __future__ import annotations

import os
import shutil
import tempfile

__all__ = ["OWNER", "PREFIX", "make_control_dir", "reap_orphans"]

PREFIX = "attention-sandbox-"
#: The file in a control folder naming the grading process that made it (pid, pid namespace).
OWNER = "owner.pid"


def _pid_namespace() -> str:
    """Return our pid namespace: a pid means something only there (containers share /tmp)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def make_control_dir(root: str | None) -> str:
    """Make a private folder in ``root`` (None: the system's temporary folder), owned by us."""
    folder = tempfile.mkdtemp(prefix=PREFIX, dir=root or None)
    with open(os.path.join(folder, OWNER), "w") as fh:
        fh.write(f"{os.getpid()} {_pid_namespace()}")
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that pid: alive
        return True
    return True


def _owner(folder: str) -> int | None:
    """Return the pid that made ``folder``, or None when it does not say (then it is kept).

    None too for a folder of another pid namespace (another container sharing the folder):
    its pid cannot be looked up from here.
    """
    try:
        with open(os.path.join(folder, OWNER)) as fh:
            pid, _, namespace = fh.read(200).partition(" ")
    except OSError:
        return None
    if not pid.isdigit() or namespace.strip() != _pid_namespace():
        return None
    return int(pid)


def _ours(uid: int) -> bool:
    """Whether a folder of ``uid`` may be ours: as root, the kernel's folder was chowned."""
    return uid == os.getuid() or os.getuid() == 0


def reap_orphans(root: str | None) -> list[str]:
    """Remove the control folders in ``root`` whose grading process is gone; return them.

    Only this user's folders (as root, the sandbox user's too: the kernel's folder is handed to
    it), named with :data:`PREFIX`, that are real folders (not links) and name a process that no
    longer exists: a folder of a live grader (here or in another process) or one that does not
    say whose it is stays.
    """
    root = root or tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(root) if n.startswith(PREFIX)]
    except OSError:
        return []
    reaped = []
    for name in names:
        folder = os.path.join(root, name)
        try:
            st = os.lstat(folder)
        except OSError:
            continue
        if not os.path.isdir(folder) or os.path.islink(folder) or not _ours(st.st_uid):
            continue
        pid = _owner(folder)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        reaped.append(folder)
    return reaped
