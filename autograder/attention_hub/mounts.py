"""The mounts and file modes a per-user filesystem needs, done as root with the system's tools.

What :mod:`attention_hub.user_disk` and :mod:`attention_hub.home_carry` run: ``mount``,
``losetup`` and friends (util-linux), a private folder, a POSIX ACL, a folder made a shared
mount. Standard library only.
"""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

__all__ = [
    "grant_rwx",
    "loop_of",
    "mount_fields",
    "private_dir",
    "run",
    "same_file",
    "share",
]


def run(*cmd: str) -> None:
    """Run a system command as root; OSError with the end of its output when it fails."""
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise OSError(f"{' '.join(cmd)}: {(done.stderr or done.stdout).strip()[-300:]}")


def private_dir(path: Path) -> None:
    """Make ``path`` (and its parents) a folder only root enters (0700 root)."""
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, 0, 0)
    os.chmod(path, 0o700)


def same_file(a: Path, b: Path) -> bool:
    """Say whether ``a`` and ``b`` are one file (a bind mount shows its source); False if either is missing."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def loop_of(mount_point: Path) -> str:
    """Return the loop device mounted on ``mount_point`` ("" when none is)."""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        device, where = line.split()[:2]
        if where == str(mount_point) and device.startswith("/dev/loop"):
            return device
    return ""


_USER_OBJ, _USER, _GROUP_OBJ, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
_NO_ID = 0xFFFFFFFF


def grant_rwx(path: Path, uid: int) -> None:
    """POSIX ACL: owner and group rwx, ``uid`` rwx, others nothing."""
    entries = [(_USER_OBJ, 7, _NO_ID), (_USER, 7, uid), (_GROUP_OBJ, 7, _NO_ID),
               (_MASK, 7, _NO_ID), (_OTHER, 0, _NO_ID)]  # fmt: skip
    blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
    os.setxattr(path, "system.posix_acl_access", blob)


def mount_fields(path: Path) -> list[str] | None:
    """Return the optional fields (``shared:N`` …) of the mount at ``path``, None if none is there."""
    found = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[4] == str(path):
            found = fields[6 : fields.index("-")]  # the last mount on a path is the one seen
    return found


def share(folder: str | os.PathLike[str]) -> None:
    """Make ``folder`` a shared mount (a bind on itself), once (as root).

    A server's private mount namespace (``server_namespace.private_tmp``) is a slave of the machine's:
    binds made later in a shared folder (a student's ``inbound/<student>``, at their first
    spawn) reach servers already running, e.g. the instructor's formgrader.
    """
    path = Path(folder).absolute()
    fields = mount_fields(path)
    if fields is not None and any(f.startswith("shared:") for f in fields):
        return
    if fields is None:
        run("mount", "--bind", str(path), str(path))
    run("mount", "--make-shared", str(path))
