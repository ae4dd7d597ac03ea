"""Per-user memory and CPU limits for a one-machine hub, enforced by the kernel (cgroups).

JupyterHub's ``LocalProcessSpawner`` has ``mem_limit`` and ``cpu_limit`` traits but does not
enforce them. :class:`LimitedLocalProcessSpawner` does: before a user's server starts it creates
a control group for that user and the server joins it (in the child, as root, just before
dropping to the user), so the server and every kernel and process it starts share the limits:

* memory: ``mem_limit`` bytes, swap included; over it the kernel's OOM killer ends the biggest
  process of that group (a runaway notebook kernel), never another user's process;
* CPU: ``cpu_limit`` cores (CFS quota), e.g. 1.0 = at most one core's time in total;
* processes: ``pids_limit`` processes and threads together (the ``pids`` controller), so that
  no student can use up the machine's pid space (a fork bomb stops at its own limit);
* CPU weight: the users' shared parent group weighs one process per user (:func:`weigh_class`),
  so the class is not squeezed into one process's share when anything else runs.

Each server also gets a **private /tmp and /dev/shm** (``private_tmp_size``): a mount namespace
of its own with a capped ``tmpfs`` on each, made in the child as root before dropping to the
user. Nobody else sees what a student puts there, its pages count against the student's memory
limit, and it is gone when the server stops (the last process of the namespace ends; the
cgroup's removal ends any straggler). The shared /dev/shm no longer keeps a stopped student's
files against everyone's memory.

Works on cgroup v1 (separate ``memory`` and ``cpu`` hierarchies; tested here, as root without
systemd) and on cgroup v2 when the hub's own cgroup has the ``memory`` and ``cpu`` controllers
delegated to its children (not available on the test machine: untested). The groups are created
below the hub's own, so the machine's or container's limits still bound the whole class. Where
no cgroup can be written, the spawner falls back to ``RLIMIT_AS`` = ``mem_limit`` on each process
(a kernel then gets ``MemoryError`` instead of being killed; CPU is not limited) and says so in
the hub log.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import re
import resource
import signal
from dataclasses import dataclass
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from jupyterhub.traitlets import ByteSpecification
from traitlets import Float, Integer, List, Unicode
from user_disk import UserDisk, close_inbound, disks_work, prepare, share, shield_exchange_root

__all__ = [
    "CgroupLayout",
    "LimitedLocalProcessSpawner",
    "UserCgroup",
    "find_layout",
    "private_tmp",
    "private_tmp_works",
    "weigh_class",
]

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT_NAME = "attention-lab"  # one folder per user below this, under the hub's own cgroup
CFS_PERIOD_US = 100_000
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class CgroupLayout:
    """Where the per-user groups go: one folder per controller (v1) or one folder (v2)."""

    version: int
    memory: Path  # the folder under which user groups are made for memory (v2: for all)
    cpu: Path
    pids: Path | None = None  # None: no pids controller to write


def _own_cgroups(proc_cgroup: str) -> dict[str, str]:
    """``/proc/self/cgroup`` as controller -> path ("" for the v2 unified entry)."""
    out = {}
    for line in proc_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            out[name] = path
    return out


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def find_layout(root: Path = CGROUP_ROOT) -> CgroupLayout | None:
    """Find the cgroup folders this process may create per-user groups in, or None."""
    try:
        own = _own_cgroups(Path("/proc/self/cgroup").read_text())
    except OSError:
        return None
    if (root / "cgroup.controllers").exists():  # v2 mounted at the root
        base = root / own.get("", "/").lstrip("/")
        if _writable_dir(base) and _delegate_v2(base):
            enabled = (base / "cgroup.subtree_control").read_text().replace("+", " ").split()
            pids = "pids" in enabled
            parent = base / PARENT_NAME
            return CgroupLayout(2, parent, parent, parent if pids else None)
        return None
    memory = root / "memory" / own.get("memory", "/").lstrip("/")
    cpu = root / "cpu" / own.get("cpu", "/").lstrip("/")
    pids = root / "pids" / own.get("pids", "/").lstrip("/")
    if _writable_dir(memory) and _writable_dir(cpu):
        pids_parent = pids / PARENT_NAME if _writable_dir(pids) else None
        return CgroupLayout(1, memory / PARENT_NAME, cpu / PARENT_NAME, pids_parent)
    return None


def _delegate_v2(base: Path) -> bool:
    """Hand the memory and cpu controllers of the hub's own v2 cgroup to its children.

    v2's "no internal processes" rule: a cgroup that enables controllers for its children holds
    no process itself, so the hub (and its proxy) first move to a leaf ``hub``. Under systemd this
    needs ``Delegate=yes`` in the unit (docs/hub-admins.md). Untested on the test machine (v1).
    """
    wanted = {"memory", "cpu"}
    try:
        if wanted <= set((base / "cgroup.subtree_control").read_text().split()):
            return True
        available = set((base / "cgroup.controllers").read_text().split())
        if not wanted <= available:
            return False
        leaf = base / "hub"
        leaf.mkdir(exist_ok=True)
        for pid in (base / "cgroup.procs").read_text().split():
            _write(leaf / "cgroup.procs", pid)
        _write(base / "cgroup.subtree_control", "+memory +cpu" + (" +pids" if "pids" in available else ""))  # fmt: skip
        return True
    except OSError:
        return False


@dataclass(frozen=True)
class UserCgroup:
    """One user's group(s): where the server's pid is written, and how to remove them."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, layout: CgroupLayout, user: str) -> UserCgroup:
        """Return the group(s) of ``user`` (not created)."""
        if not _SAFE_NAME.match(user):
            raise ValueError(f"user name {user!r} is not usable as a cgroup folder name")
        folders = [layout.memory / user, layout.cpu / user]
        if layout.pids is not None:
            folders.append(layout.pids / user)
        return cls(tuple(dict.fromkeys(folders)))  # v2: one

    @classmethod
    def create(
        cls, layout: CgroupLayout, user: str, mem_bytes: int | None, cpus: float | None,
        pids: int | None = None,
    ):  # fmt: skip
        """Make ``user``'s group(s) with these limits (None: unlimited); returns them."""
        group = cls.of(layout, user)
        memory, cpu = layout.memory / user, layout.cpu / user
        for folder in group.folders:
            folder.mkdir(parents=True, exist_ok=True)
        if layout.version == 2:  # the shared parent hands the controllers to each user's group
            wanted = "+memory +cpu" + (" +pids" if layout.pids is not None else "")
            _write(layout.memory / "cgroup.subtree_control", wanted)
        if layout.pids is not None:
            _write(layout.pids / user / "pids.max", pids or "max")
        weigh_class(layout, starting=1)
        quota = int(cpus * CFS_PERIOD_US) if cpus else None
        if layout.version == 1:
            _write(cpu / "cpu.cfs_period_us", CFS_PERIOD_US)
            _write(cpu / "cpu.cfs_quota_us", quota if quota else -1)
            if mem_bytes:
                _write(memory / "memory.limit_in_bytes", mem_bytes)
                if (memory / "memory.memsw.limit_in_bytes").exists():  # swap accounting on
                    _write(memory / "memory.memsw.limit_in_bytes", mem_bytes)
        else:
            _write(cpu / "cpu.max", f"{quota} {CFS_PERIOD_US}" if quota else "max")
            _write(memory / "memory.max", mem_bytes or "max")
            _write(memory / "memory.swap.max", 0 if mem_bytes else "max")
        return group

    def join(self) -> None:
        """Move the calling process into the group(s) (its children inherit them)."""
        for folder in self.folders:
            _write(folder / "cgroup.procs", os.getpid())

    def pids(self) -> list[int]:
        """List processes still in the group(s)."""
        found: set[int] = set()
        for folder in self.folders:
            try:
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
            except OSError:
                continue
        return sorted(found)

    def remove(self) -> None:
        """End what is left in the group (the user's processes only) and delete it."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for folder in self.folders:
            # cgroupfs: rmdir, not rmtree (its files cannot be unlinked); the shared parent goes
            # with its last user (the hub is one thread: no spawner is creating one meanwhile).
            for path in (folder, folder.parent):
                try:
                    path.rmdir()
                except OSError:
                    break


def weigh_class(layout: CgroupLayout, starting: int = 0) -> None:
    """Give the shared parent group the CPU weight of one process per running user group in it.

    ``starting`` adds groups just made, their server not in them yet.

    The kernel weighs a group like ONE process against the processes beside it: with the
    default weight the whole class shared one process's CPU time with everything else on the
    machine (each student's server got ~1 % of a core beside other processes' 12 %, and a spawn
    took 4 minutes at load 25). Weighted by its users, each student's server competes like any
    one process, as without cgroups. Empty groups (a crashed hub's) do not count.
    """
    parent = layout.cpu
    try:
        running = sum(1 for p in parent.iterdir() if p.is_dir() and _has_procs(p))
        users = max(1, running + starting)
        if layout.version == 1:
            _write(parent / "cpu.shares", 1024 * users)
        else:  # cpu.weight: 100 is one process's, 10000 the most
            _write(parent / "cpu.weight", min(10000, 100 * users))
    except OSError:  # no parent yet, or no cpu controller there: the default weight
        pass


def _has_procs(group: Path) -> bool:
    try:
        return bool((group / "cgroup.procs").read_text().strip())
    except OSError:
        return False


def _write(path: Path, value) -> None:
    with open(path, "w") as f:
        f.write(str(value))


# --------------------------------------------------------------------------- private /tmp
_LIBC = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_SLAVE = 2, 4, 16384, 1 << 19
PRIVATE_MOUNTS = ("/tmp", "/dev/shm")


def private_tmp(size_bytes: int) -> None:
    """Give the calling process (root) a private /tmp and /dev/shm; its children inherit them.

    A mount namespace of its own with a fresh ``tmpfs`` of ``size_bytes`` on each (mode 1777).

    Raises
    ------
    OSError
        The kernel refused (no ``CAP_SYS_ADMIN``, no mount namespaces).
    """
    libc = _LIBC  # loaded in the parent: nothing is imported between fork and exec

    def check(result: int, what: str) -> None:
        if result != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")

    check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # never propagate these mounts back to the machine's namespace; but see the machine's new
    # mounts in its shared folders (a student's inbound/<student>, user_disk.share)
    check(libc.mount(None, b"/", None, _MS_REC | _MS_SLAVE, None), "mount --make-rslave /")
    options = f"size={int(size_bytes)},mode=1777".encode()
    for target in PRIVATE_MOUNTS:
        if os.path.isdir(target):
            check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options),
                  f"mount tmpfs on {target}")  # fmt: skip


def private_tmp_works() -> str:
    """Empty when :func:`private_tmp` can work here (tried in a throw-away child), else why not."""
    import subprocess
    import sys

    probe = "import sys; sys.path.insert(0, sys.argv[1]); import spawner_limits; spawner_limits.private_tmp(1 << 20)"
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(Path(__file__).parent)],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["failed"])[-1]


class LimitedLocalProcessSpawner(LocalProcessSpawner):
    """``LocalProcessSpawner`` that enforces ``mem_limit`` and ``cpu_limit`` (see the module)."""

    _cgroup: UserCgroup | None = None  # set by start() for the preexec_fn of that start

    staff_group_prefix = Unicode(
        "formgrade-", config=True, help="Members of a group named like this get the staff limits"
    )
    staff_mem_limit = ByteSpecification(
        None, allow_none=True, config=True,
        help="mem_limit for staff (instructors grade in their server); None: mem_limit",
    )  # fmt: skip
    staff_cpu_limit = Float(
        None, allow_none=True, config=True, help="cpu_limit for staff; None: cpu_limit"
    )
    pids_limit = Integer(
        512, config=True,
        help="Processes and threads one user's server may hold together (cgroup pids.max); "
        "0: no limit. 30 students x 512 stay well under a default pid_max of 32768.",
    )  # fmt: skip
    staff_pids_limit = Integer(
        None, allow_none=True, config=True,
        help="pids_limit for staff (grading runs parallel workers); None: pids_limit",
    )  # fmt: skip
    private_tmp_size = ByteSpecification(
        "256M", allow_none=True, config=True,
        help="Size of each server's own /tmp and /dev/shm (a tmpfs in a private mount "
        "namespace, emptied when the server stops; counts against its memory limit). "
        "0 or None: the machine's shared /tmp and /dev/shm.",
    )  # fmt: skip
    _private_tmp_problem: str | None = None  # probed once per hub process
    disk_size = ByteSpecification(
        "2G", allow_none=True, config=True,
        help="Size of each student's own filesystem (a sparse ext4 image in disk_folder, "
        "mounted on their home and on their folder in each course's inbound/): what they "
        "write there stops at this size. 0 or None: no per-user filesystem (homes and the "
        "exchange then stop only when their filesystem is full, for everyone). "
        "docs/hub-admins.md, 'Disk'.",
    )  # fmt: skip
    staff_disk_size = ByteSpecification(
        0, allow_none=True, config=True,
        help="disk_size for staff (their home holds the course and every submission); "
        "0 or None: no per-user filesystem for staff",
    )  # fmt: skip
    disk_folder = Unicode(
        "user-disks", config=True,
        help="Where the per-user images are kept and mounted; relative to the hub's working "
        "folder (its private state folder). Made 0700 root.",
    )  # fmt: skip
    disk_inbound = List(
        Unicode(), config=True,
        help="The courses' inbound/ folders (<exchange>/<course>/inbound): all are closed to "
        "students, and each student gets inbound/<student>/ on their own filesystem in the "
        "courses whose students' group (student_group_prefix + course) they are in; set by "
        "the shipped configs.",
    )  # fmt: skip
    student_group_prefix = Unicode(
        "nbgrader-", config=True,
        help="A student is enrolled in course X when in the hub group named this + X "
        "(nbgrader's JupyterHubAuthPlugin convention)",
    )  # fmt: skip
    _disk_problem: str | None = None  # probed once per hub process
    _disk_said = False  # "no cap" logged once per hub process

    def _limits(self) -> tuple[int | None, float | None]:
        """(memory bytes, CPUs) for this user: the staff values for instructors."""
        if self._staff():
            return (
                self.staff_mem_limit if self.staff_mem_limit is not None else self.mem_limit,
                self.staff_cpu_limit if self.staff_cpu_limit is not None else self.cpu_limit,
            )
        return self.mem_limit, self.cpu_limit

    def _staff(self) -> bool:
        return any(g.name.startswith(self.staff_group_prefix) for g in self.user.groups)

    def _pids(self) -> int | None:
        staff = self._staff() and self.staff_pids_limit is not None
        return (self.staff_pids_limit if staff else self.pids_limit) or None

    def _tmp_size(self) -> int | None:
        """Return the private /tmp size, or None (off, or the kernel refuses: said once in the log)."""
        if not self.private_tmp_size:
            return None
        cls = type(self)
        if cls._private_tmp_problem is None:
            cls._private_tmp_problem = private_tmp_works()
            if cls._private_tmp_problem:
                self.log.warning(
                    "No private /tmp and /dev/shm per user (%s): they stay shared. See "
                    "docs/hub-admins.md, 'Memory and CPU limits'.", cls._private_tmp_problem,
                )  # fmt: skip
        return None if cls._private_tmp_problem else int(self.private_tmp_size)

    def _disks_possible(self) -> bool:
        """Say whether per-user filesystems are on and work here (why not: once in the log)."""
        cls = type(self)
        if not self.disk_size:
            why = "disk_size is 0"
        else:
            if cls._disk_problem is None:
                cls._disk_problem = disks_work()
            why = cls._disk_problem
        if why and not cls._disk_said:
            cls._disk_said = True
            self.log.warning(
                "No per-user filesystem (%s): a student's home and inbound/ are not capped. "
                "See docs/hub-admins.md, 'Disk'.", why,
            )  # fmt: skip
        return not why

    async def _prepare_disk(self) -> None:
        """Mount this user's own filesystem on their home and exchange folder (user_disk.py)."""
        if not self._disks_possible():
            return
        for inbound in self.disk_inbound:  # before any server's namespace is made
            share(inbound)
            close_inbound(inbound)
        size = self.staff_disk_size if self._staff() else self.disk_size
        if not size:
            return
        disk = UserDisk.of(self.disk_folder, self.user.name)
        inbound = [] if self._staff() else self._enrolled_inbound()
        loop = asyncio.get_running_loop()
        for line in await loop.run_in_executor(None, prepare, disk, int(size), inbound):
            self.log.info("%s: %s", self.user.name, line)

    def _enrolled_inbound(self) -> list[str]:
        """Return the inbound/ folders of the courses this user is a student of."""
        groups = {g.name for g in self.user.groups}
        return [i for i in self.disk_inbound
                if self.student_group_prefix + os.path.basename(os.path.dirname(os.path.abspath(i)))
                in groups]  # fmt: skip

    def _shielded_courses(self) -> list[str]:
        """Return the course folders whose exchange root a student's server sees capped."""
        if self._staff() or not self.disk_size or type(self)._disk_problem:
            return []
        courses = [os.path.dirname(os.path.abspath(i)) for i in self.disk_inbound]
        return [c for c in courses if os.path.dirname(c) == os.path.dirname(courses[0])]

    def _shared_paths_in_tmp(self) -> list[str]:
        """List this server's exchange or Jupyter config folders under /tmp or /dev/shm.

        A private mount would hide them from it.
        """
        env = self.environment or {}
        paths = [env.get("ATTENTION_LAB_EXCHANGE", ""),
                 *env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)]  # fmt: skip
        return [p for p in paths if p and any(
            os.path.abspath(p) == m or os.path.abspath(p).startswith(m + "/")
            for m in PRIVATE_MOUNTS)]  # fmt: skip

    def make_preexec_fn(self, name):
        drop_to_user = super().make_preexec_fn(name)
        group, mem, tmp = self._cgroup, self._limits()[0], self._tmp_size()
        hidden = self._shared_paths_in_tmp() if tmp else []
        if hidden:
            self.log.error(
                "%s: no private /tmp and /dev/shm: %s would be hidden from the server. Move the "
                "exchange and the config out of /tmp (e.g. /srv/nbgrader/exchange), or set "
                "c.LimitedLocalProcessSpawner.private_tmp_size = 0.", name, ", ".join(hidden),
            )  # fmt: skip
            tmp = None

        # a student's exchange root, capped in their own namespace (staged in their new /tmp)
        shielded = self._shielded_courses() if tmp else []

        def preexec() -> None:
            # Runs in the child between fork and exec, still as root.
            if group is not None:
                group.join()
            elif mem:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            if tmp:
                private_tmp(tmp)
                shield_exchange_root(shielded)
            drop_to_user()

        return preexec

    async def start(self):
        # first: it awaits, and nothing may come between making the cgroup and the server
        # joining it (weigh_class counts the groups with processes)
        await self._prepare_disk()
        self._cgroup = None
        mem, cpus = self._limits()
        if mem or cpus or self._pids():
            layout = find_layout()
            if layout is None:
                self.log.warning(
                    "No writable cgroup for %s: memory limited per process (RLIMIT_AS), CPU not "
                    "limited. See docs/hub-admins.md, 'Limits'.", self.user.name,
                )  # fmt: skip
            else:
                UserCgroup.of(layout, self.user.name).remove()  # a stale one, from a crash
                pids = self._pids()
                self._cgroup = UserCgroup.create(layout, self.user.name, mem, cpus, pids)
                self.log.info(
                    "%s: cgroup v%d, memory %s bytes, %s CPUs, %s pids%s",
                    self.user.name, layout.version, mem, cpus, pids,
                    "" if layout.pids else " (no pids controller: not limited)",
                )  # fmt: skip
        return await super().start()

    async def stop(self, now=False):
        await super().stop(now=now)
        # Computed again, not remembered: the hub may have restarted since the server started.
        layout = find_layout()
        if layout is not None:
            UserCgroup.of(layout, self.user.name).remove()
            weigh_class(layout)
