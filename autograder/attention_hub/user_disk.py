"""Each student's own filesystem: a cap on the home and on what they write into the exchange.

Where the kernel has no disk quotas (our test machine: ``CONFIG_QUOTA``/``QFMT_V2``, XFS and tmpfs
quotas all off), a filesystem of its own is the cap. :func:`prepare` (called by the spawner, as
root, before a student's server starts) gives each student a sparse ext4 image in the hub's
private state folder and mounts it in the machine's namespace, so that the teacher's tools and
the next server see it:

* ``<folder>/images/<user>.img``: the image (sparse: it takes on disk what is written in it);
* ``<folder>/mnt/<user>``: where it is mounted (``nosuid,nodev,discard``: deleted files give their
  space back to the host); the folder is 0700 root, so
  nobody reaches the image but through the two bind mounts below;
* ``<mnt>/home`` is bind-mounted on the student's home: whatever they write there, the image's
  size caps it ("No space left on device"), classmates and the machine are untouched;
* ``<mnt>/inbound/<course>`` is bind-mounted on ``<course>/inbound/<user>`` of each course
  (``inbound_folders``): the student's own folder in the exchange, where
  ``PrivateExchangeSubmit`` hands in. It belongs to the instructor (``inbound/``'s owner and
  group, 2770) with an ACL ``user:<student>:rwx``: the student writes there, nowhere else in
  ``inbound/`` (which loses its "others may write" bit, :data:`INBOUND_PER_USER_MODE`); without
  a sticky bit, so the instructor can rename any entry in it (even a student's 0700 folder) out
  of the collect path; it stays on the student's image, costing only their cap.

The first time, the student's existing home is **carried** onto the image, checked, and only
then the original is kept out of reach (:mod:`attention_hub.home_carry`); the mounts and modes
are made with the system's tools (:mod:`attention_hub.mounts`).

The mounts outlive the server and the hub (a reboot undoes them: the next spawn mounts again).
Standard library only, plus ``mkfs.ext4`` (e2fsprogs) and ``mount``/``umount`` (util-linux).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from attention_hub.exchange_folders import INBOUND_PER_USER_MODE
from attention_hub.home_carry import KEPT_HOMES, carry_home
from attention_hub.mounts import grant_rwx, loop_of, private_dir, run, same_file, share

__all__ = [
    "INBOUND_PER_USER_MODE",
    "KEPT_HOMES",
    "UserDisk",
    "close_inbound",
    "disks_work",
    "prepare",
    "refuse_overpromise",
    "release",
    "share",
]

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_MKFS = ["mkfs.ext4", "-q", "-F", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1"]
# discard: what a student deletes is given back to the host (the loop device punches holes in
# the sparse image), so an image takes what its files take now, not the most they ever took
_MOUNT_OPTIONS = "loop,nosuid,nodev,discard"


@dataclass(frozen=True)
class UserDisk:
    """Where one user's image, its mount and their home are (nothing is made by this)."""

    user: str
    uid: int
    gid: int
    home: Path
    image: Path
    root: Path  # the image's mount point

    @classmethod
    def of(cls, folder: str | os.PathLike[str], user: str) -> UserDisk:
        """Return ``user``'s disk under ``folder`` (the hub's ``disk_folder``)."""
        if not _SAFE_NAME.match(user):
            raise ValueError(f"user name {user!r} is not usable as a file name")
        entry = pwd.getpwnam(user)
        base = Path(folder).absolute()
        return cls(user, entry.pw_uid, entry.pw_gid, Path(entry.pw_dir),
                   base / "images" / f"{user}.img", base / "mnt" / user)  # fmt: skip

    def inbound_source(self, inbound: str | os.PathLike[str]) -> Path:
        """Return the folder on the image shown as ``<course>/inbound/<user>``.

        Named by the course's folder, so that it stays the same whichever courses the student
        is enrolled in, and in whatever order the hub lists them.
        """
        course = Path(inbound).absolute().parent.name
        if not _SAFE_NAME.match(course):
            raise ValueError(f"course folder {course!r} is not usable as a file name")
        return self.root / "inbound" / course


def disks_work() -> str:
    """Empty when per-user images can be made and mounted here, else why not."""
    missing = [tool for tool in ("mkfs.ext4", "mount", "umount") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not found (apt-get install e2fsprogs mount)"
    if not os.path.exists("/dev/loop-control") and not os.path.exists("/dev/loop0"):
        return "no loop devices (/dev/loop-control)"
    if os.geteuid() != 0:
        return "the hub does not run as root"
    return ""


def _make_image(disk: UserDisk, size: int) -> None:
    """Make a sparse ext4 image of ``size`` bytes (removed again if mkfs fails)."""
    fd = os.open(disk.image, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)
    try:
        run(*_MKFS, str(disk.image))
    except OSError:
        disk.image.unlink()
        raise


def refuse_overpromise(images: Path, size: int) -> None:
    """Refuse a new image of ``size`` bytes the host could not hold beside what the others may grow to.

    Every image is sparse: it takes what is written in it, and may grow to its size. The
    promise is what all of them may still grow by, plus the new one; it must fit in the free
    space of the filesystem holding them, or students would meet a full host disk (the hub's
    database and every other student included) instead of their own cap.

    Raises
    ------
    OSError
        The promise exceeds the free space; the message gives both and what to do.
    """
    promised = size
    for image in images.glob("*.img"):
        st = image.stat()
        promised += max(0, st.st_size - st.st_blocks * 512)
    fs = os.statvfs(images)
    free = fs.f_bavail * fs.f_frsize
    if promised > free:
        raise OSError(
            f"a new {size >> 20} MiB disk is refused: with it, the students' disks in {images} "
            f"could still grow by {promised >> 20} MiB and the host has {free >> 20} MiB free "
            "there. Free space on that filesystem, or lower disk_size "
            "(docs/hub-admins.md, 'Disk')."
        )


def _grow(disk: UserDisk, size: int) -> None:
    """Grow a mounted image to ``size`` (a larger ``disk_size``); never shrinks one."""
    if disk.image.stat().st_size < size:
        os.truncate(disk.image, size)
        loop = loop_of(disk.root)
        if loop:
            run("losetup", "-c", loop)
            run("resize2fs", loop)


def _mount_image(disk: UserDisk, size: int) -> bool:
    """Make (first time) and mount the image; True when it was just made."""
    for folder in (disk.image.parent.parent, disk.image.parent, disk.root.parent):
        private_dir(folder)
    made = not disk.image.exists()
    if made:
        refuse_overpromise(disk.image.parent, size)
        _make_image(disk, size)
    disk.root.mkdir(mode=0o700, exist_ok=True)
    if not os.path.ismount(disk.root):
        run("mount", "-o", _MOUNT_OPTIONS, str(disk.image), str(disk.root))
    if not made:
        _grow(disk, size)
    os.chmod(disk.root, 0o711)  # the image's root: only root lists it
    return made


def _mount_home(disk: UserDisk) -> str:
    """Bind the image's ``home`` on the user's home (carrying the old one, first time)."""
    new_home = disk.root / "home"
    if same_file(disk.home, new_home):
        return ""
    said = ""
    if not new_home.exists():
        new_home.mkdir()
        carried = os.path.lexists(disk.home)
        mode = stat.S_IMODE(os.lstat(disk.home).st_mode) if carried else 0o700
        if carried:
            try:
                said = carry_home(disk.home, disk.user, new_home)
            except OSError:
                shutil.rmtree(new_home, ignore_errors=True)  # our partial copy; the home stays
                raise
        os.chown(new_home, disk.uid, disk.gid)
        os.chmod(new_home, mode)
    elif os.path.lexists(disk.home) and os.listdir(disk.home):
        # the image has a home already, but this one is in use: a second carry would merge
        # two homes; an admin decides (docs/hub-admins.md, "Disk")
        raise OSError(f"{disk.user} has a home on their disk and files in {disk.home} "
                      "(not mounted): move one aside, see docs/hub-admins.md 'Disk'")  # fmt: skip
    if not os.path.lexists(disk.home):
        disk.home.mkdir(mode=0o700)
        os.chown(disk.home, 0, 0)  # unmounted: nobody writes beside the disk
        os.chmod(disk.home, 0o000)
    run("mount", "--bind", str(new_home), str(disk.home))
    return said


def close_inbound(inbound: str | os.PathLike[str]) -> None:
    """Close a course's ``inbound/`` to students (:data:`INBOUND_PER_USER_MODE`), as root.

    Done for every course of the hub before anyone's server starts, not only at the first
    spawn of one of its students: until then a student of another class could write there.
    """
    path = Path(inbound)
    if stat.S_ISDIR(os.lstat(path).st_mode):
        os.chmod(path, INBOUND_PER_USER_MODE)


def _mount_inbound(disk: UserDisk, inbound: Path) -> str:
    """Bind the student's folder on the image on ``inbound/<user>``; ``inbound/`` closed."""
    st = os.lstat(inbound)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{inbound} is not a folder")
    os.chmod(inbound, INBOUND_PER_USER_MODE)  # first: nobody swaps the mount point after the check
    source = disk.inbound_source(inbound)
    source.mkdir(parents=True, exist_ok=True)
    os.chmod(source.parent, 0o711)
    os.chown(source, st.st_uid, st.st_gid)
    os.chmod(source, 0o2770)
    grant_rwx(source, disk.uid)
    target = inbound / disk.user
    if same_file(target, source):
        return ""
    said = ""
    if os.path.lexists(target):
        tst = os.lstat(target)
        if not (stat.S_ISDIR(tst.st_mode) and tst.st_uid == 0 and not os.listdir(target)):
            # made by someone before inbound/ was closed: kept (renamed), never mounted over
            aside = inbound / f".not-{disk.user}-{int(time.time())}"
            os.rename(target, aside)
            said = f"{target} was not the hub's (owner uid {tst.st_uid}): moved to {aside}"
    if not os.path.lexists(target):
        target.mkdir(mode=0o700)
        os.chmod(target, 0o000)  # unmounted: nobody writes there
    run("mount", "--bind", str(source), str(target))
    return said


def prepare(disk: UserDisk, size: int, inbound_folders: list[str] | tuple[str, ...] = ()) -> list[str]:  # fmt: skip
    """Give ``disk.user`` their own filesystem for home and exchange (idempotent; as root).

    Returns
    -------
    list of str
        What was done that the hub log should say (empty on an ordinary later spawn).

    Raises
    ------
    OSError
        A step failed: the message says which and what to do; the home is left as it was.
    """
    said = []
    t0 = time.monotonic()
    if _mount_image(disk, size):
        said.append(f"made a {size >> 20} MiB disk in {time.monotonic() - t0:.2f} s")
    said.append(_mount_home(disk))
    for inbound in inbound_folders:
        said.append(_mount_inbound(disk, Path(inbound)))
    return [s for s in said if s]


def release(disk: UserDisk, inbound_folders: list[str] | tuple[str, ...] = ()) -> None:
    """Unmount ``disk``'s binds and image (lazily: a running server keeps its own view).

    The image and the files stay; the next :func:`prepare` mounts them again.
    """
    ours = [(Path(i) / disk.user, disk.inbound_source(i)) for i in inbound_folders]
    for target, source in [*ours, (disk.home, disk.root / "home")]:
        if same_file(target, source):
            subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)
    if os.path.ismount(disk.root):
        subprocess.run(["umount", "-l", str(disk.root)], capture_output=True, check=False)
