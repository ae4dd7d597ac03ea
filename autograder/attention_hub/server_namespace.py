"""Each server's own mount namespace: private temporary folders, and a capped exchange root.

Made in the child between fork and exec, as root, just before dropping to the user (the
spawner's ``preexec_fn``, ``spawner_limits.py``); the server and everything it starts inherit it.

* :func:`private_tmp`: a capped ``tmpfs`` on each folder every user may write
  (:data:`PRIVATE_MOUNTS`: /tmp, /var/tmp, /run/lock, /dev/shm). Nobody else sees what a student
  puts there, its pages count against the student's memory limit, and it is gone when the server
  stops (the last process of the namespace ends; the cgroup's removal ends any straggler). The
  shared /dev/shm no longer keeps a stopped student's files against everyone's memory, and
  /var/tmp and /run/lock (on the machine's own disk) no longer fill it for everyone. What the
  server needs from the machine's folders there (a course installed under /tmp: its env, the
  checkout, the exchange; :func:`kept_paths`) is bound into the fresh ones at the same place.
* :func:`shield_exchange_root`: the exchange root, as a student's server sees it, holds the
  real course folders and room for nothing else.
* :func:`private_proc`: a /proc of its own with ``hidepid=invisible``: a user's processes see
  only that user's processes (no classmate's command line, environment or start to watch for).

The namespace is a slave of the machine's: binds the hub makes later in the machine's shared
folders (a student's ``inbound/<student>``, ``user_disk.share``) reach servers already running.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

__all__ = ["COURSE_CHECKOUT", "PRIVATE_MOUNTS", "ROOT_SHIELD_OPTIONS", "kept_paths",
           "needed_paths", "private_proc", "private_tmp", "private_tmp_works",
           "shield_exchange_root"]  # fmt: skip

_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded in the parent: nothing imported after fork
_CLONE_NEWNS = 0x00020000
_MS_NOEXEC = 8
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_MOVE, _MS_REC, _MS_SLAVE = 2, 4, 4096, 8192, 16384, 1 << 19
#: The machine's folders every user may write (besides the exchange, shielded below).
PRIVATE_MOUNTS = ("/tmp", "/var/tmp", "/run/lock", "/dev/shm")
#: The exchange root a student's server sees: room for nothing but the course folders.
ROOT_SHIELD_OPTIONS = b"size=1M,nr_inodes=256,mode=1777"
#: The course checkout this hub runs from (autograder/jupyterhub/ is in it).
COURSE_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _check(result: int, what: str) -> None:
    """Raise the C call's errno as an OSError naming ``what``, when ``result`` says it failed."""
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def private_tmp(size_bytes: int, keep: tuple[str, ...] = ()) -> None:
    """Give the calling process (root) its own :data:`PRIVATE_MOUNTS`; its children inherit them.

    A mount namespace of its own with a fresh ``tmpfs`` of ``size_bytes`` on each (mode 1777).
    Each folder of ``keep`` (:func:`kept_paths`: under a private mount, none inside another) is
    bound into the fresh ones at the same path, as the machine has it (a symlink's target at
    the link's path); the folders leading to it there get the machine's owners and modes.

    Raises
    ------
    OSError
        The kernel refused (no ``CAP_SYS_ADMIN``, no mount namespaces).
    """
    libc, check = _LIBC, _check
    check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # never propagate these mounts back to the machine's namespace; but see the machine's new
    # mounts in its shared folders (a student's inbound/<student>, user_disk.share)
    check(libc.mount(None, b"/", None, _MS_REC | _MS_SLAVE, None), "mount --make-rslave /")
    # held open across the new mounts, which cover them: bound back from the descriptor; the
    # folders leading there made again as the machine has them (a 0700 one stays closed)
    held = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in keep]
    leading = [(folder, os.stat(folder)) for path in keep for folder in _leading(path)]
    options = f"size={int(size_bytes)},mode=1777".encode()
    for target in PRIVATE_MOUNTS:
        if os.path.isdir(target):
            check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options),
                  f"mount tmpfs on {target}")  # fmt: skip
    for folder, st in leading:
        if not os.path.isdir(folder):
            os.mkdir(folder, 0o700)
            os.chown(folder, st.st_uid, st.st_gid)
            os.chmod(folder, st.st_mode & 0o7777)
    for path, fd in held:
        os.mkdir(path, 0o700)  # the mount point: covered by the bind
        check(libc.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None,
                         _MS_BIND | _MS_REC, None), f"mount --rbind {path}")  # fmt: skip
        os.close(fd)


def _leading(path: str) -> list[str]:
    """Return the folders between ``path``'s private mount and ``path``, outermost first."""
    mount = next(m for m in PRIVATE_MOUNTS if path.startswith(m + "/"))
    parts = path[len(mount) + 1 :].split("/")[:-1]
    return [os.path.join(mount, *parts[: i + 1]) for i in range(len(parts))]


def kept_paths(paths: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Return the folders of ``paths`` that :func:`private_tmp` must bind back in, outermost only.

    Those under a :data:`PRIVATE_MOUNTS` folder that exist (as given, and as resolved when a
    symlink leads elsewhere under one), none inside another kept one: a course installed under
    /tmp (its env, the Python it was made from, the checkout its editable install imports, the
    exchange, the Jupyter config) would otherwise be hidden from the server it runs.
    """
    found: list[str] = []
    for path in paths:
        for candidate in (os.path.abspath(path), os.path.realpath(path)):
            if os.path.isdir(candidate) and _under_private_mount(candidate):
                found.append(candidate)
    outermost = [p for p in found if not any(o != p and p.startswith(o + "/") for o in found)]
    return tuple(dict.fromkeys(sorted(outermost)))


def needed_paths(cmd: list[str], environment: dict[str, str]) -> tuple[str, ...]:
    """Return what a server needs from the machine's /tmp, /var/tmp, … (:func:`kept_paths`).

    A course installed there (``mktemp -d``, a CI clone) would otherwise be hidden by the
    private ones: the env of ``cmd`` (``Spawner.cmd``), the Python it was made from, the checkout
    this hub runs (the env's editable install imports it), the exchange and the Jupyter config
    (``environment``'s ``ATTENTION_LAB_EXCHANGE`` and ``JUPYTER_CONFIG_PATH``).
    """
    paths = [environment.get("ATTENTION_LAB_EXCHANGE", ""),
             *environment.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep), COURSE_CHECKOUT]  # fmt: skip
    command = cmd[0] if cmd else ""
    if os.path.isabs(command):
        venv = os.path.dirname(os.path.dirname(command))
        paths += [venv, *_base_prefix(venv)]
    return kept_paths([p for p in paths if p])


def _base_prefix(venv: str) -> list[str]:
    """Return the prefix of the Python ``venv`` was made from (its pyvenv.cfg ``home``'s parent)."""
    try:
        with open(os.path.join(venv, "pyvenv.cfg"), encoding="utf-8") as cfg:
            lines = cfg.read().splitlines()
    except OSError:
        return []
    homes = [line.split("=", 1)[1].strip() for line in lines
             if line.split("=", 1)[0].strip() == "home" and "=" in line]  # fmt: skip
    return [os.path.dirname(homes[0])] if homes else []


def _under_private_mount(path: str) -> bool:
    return any(path.startswith(mount + "/") for mount in PRIVATE_MOUNTS)


def private_proc() -> None:
    """In a server's own mount namespace (as root): mount a /proc that hides others' processes.

    ``hidepid=invisible`` (Linux >= 5.8: options per /proc mount, so the machine's own /proc,
    the hub's, is untouched): a process sees only the processes of its own user.

    Raises
    ------
    OSError
        The kernel refused (the spawn fails: nothing half-done is left on the machine).
    """
    _check(_LIBC.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                       b"hidepid=invisible"), "mount proc on /proc (hidepid)")  # fmt: skip


def private_tmp_works() -> str:
    """Empty when :func:`private_tmp` can work here (tried in a throw-away child), else why not."""
    import subprocess
    import sys

    probe = "import sys; sys.path.insert(0, sys.argv[1]); import server_namespace as n; n.private_tmp(1 << 20); n.private_proc()"
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(Path(__file__).parent)],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["failed"])[-1]


def shield_exchange_root(courses: list[str] | tuple[str, ...]) -> None:
    """In a server's own mount namespace (as root, its private /tmp mounted): cap the exchange root.

    nbgrader's fetch, submit and list refuse to run unless every user may write the exchange's
    root folder (1777), so a student could fill the machine's disk there, beside the course
    folders. In the student's own namespace, the root becomes a tiny ``tmpfs``
    (:data:`ROOT_SHIELD_OPTIONS`, mode 1777: nbgrader's check passes) holding the real course
    folders (``courses``, all in one root; moved there with their mounts, which keep receiving
    the machine's new binds). What the student writes beside them stops at 1 MiB, in memory,
    and is gone with the server.

    Raises
    ------
    OSError
        A mount was refused (the spawn fails: nothing half-done is left on the machine).
    """
    if not courses:
        return
    libc, check = _LIBC, _check
    stages = []
    for index, course in enumerate(courses):
        stage = f"/tmp/.exchange-{index}"
        os.mkdir(stage, 0o700)
        check(libc.mount(course.encode(), stage.encode(), None, _MS_BIND | _MS_REC, None),
              f"mount --rbind {course}")  # fmt: skip
        stages.append(stage)
    root = os.path.dirname(courses[0])
    check(libc.mount(b"tmpfs", root.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                     ROOT_SHIELD_OPTIONS), f"mount tmpfs on {root}")  # fmt: skip
    for stage, course in zip(stages, courses, strict=True):
        os.mkdir(course, 0o755)
        check(libc.mount(stage.encode(), course.encode(), None, _MS_MOVE, None),
              f"mount --move {course}")  # fmt: skip
        os.rmdir(stage)
