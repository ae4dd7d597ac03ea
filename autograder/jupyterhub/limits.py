"""Per-user memory and CPU limits for a one-machine hub, enforced by the kernel (cgroups).

JupyterHub's ``LocalProcessSpawner`` has ``mem_limit`` and ``cpu_limit`` traits but does not
enforce them. :class:`LimitedLocalProcessSpawner` does: before a user's server starts it creates
a control group for that user and the server joins it (in the child, as root, just before
dropping to the user), so the server and every kernel and process it starts share the limits:

* memory: ``mem_limit`` bytes, swap included; over it the kernel's OOM killer ends the biggest
  process of that group (a runaway notebook kernel), never another user's process;
* CPU: ``cpu_limit`` cores (CFS quota), e.g. 1.0 = at most one core's time in total.

Works on cgroup v1 (separate ``memory`` and ``cpu`` hierarchies; tested here, as root without
systemd) and on cgroup v2 when the hub's own cgroup has the ``memory`` and ``cpu`` controllers
delegated to its children (not available on the test machine: untested). The groups are created
below the hub's own, so the machine's or container's limits still bound the whole class. Where
no cgroup can be written, the spawner falls back to ``RLIMIT_AS`` = ``mem_limit`` on each process
(a kernel then gets ``MemoryError`` instead of being killed; CPU is not limited) and says so in
the hub log.
"""

from __future__ import annotations

import os
import re
import resource
import signal
from dataclasses import dataclass
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from jupyterhub.traitlets import ByteSpecification
from traitlets import Float, Unicode

__all__ = ["CgroupLayout", "LimitedLocalProcessSpawner", "UserCgroup", "find_layout"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT_NAME = "attention-lab"  # one folder per user below this, under the hub's own cgroup
CFS_PERIOD_US = 100_000
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class CgroupLayout:
    """Where the per-user groups go: one folder per controller (v1) or one folder (v2)."""

    version: int
    memory: Path  # the folder under which user groups are made for memory (v2: for both)
    cpu: Path


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
    """The cgroup folders this process may create per-user groups in, or None."""
    try:
        own = _own_cgroups(Path("/proc/self/cgroup").read_text())
    except OSError:
        return None
    if (root / "cgroup.controllers").exists():  # v2 mounted at the root
        base = root / own.get("", "/").lstrip("/")
        if _writable_dir(base) and _delegate_v2(base):
            return CgroupLayout(2, base / PARENT_NAME, base / PARENT_NAME)
        return None
    memory = root / "memory" / own.get("memory", "/").lstrip("/")
    cpu = root / "cpu" / own.get("cpu", "/").lstrip("/")
    if _writable_dir(memory) and _writable_dir(cpu):
        return CgroupLayout(1, memory / PARENT_NAME, cpu / PARENT_NAME)
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
        if not wanted <= set((base / "cgroup.controllers").read_text().split()):
            return False
        leaf = base / "hub"
        leaf.mkdir(exist_ok=True)
        for pid in (base / "cgroup.procs").read_text().split():
            _write(leaf / "cgroup.procs", pid)
        _write(base / "cgroup.subtree_control", "+memory +cpu")
        return True
    except OSError:
        return False


@dataclass(frozen=True)
class UserCgroup:
    """One user's group(s): where the server's pid is written, and how to remove them."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, layout: CgroupLayout, user: str) -> UserCgroup:
        """The group(s) of ``user`` (not created)."""
        if not _SAFE_NAME.match(user):
            raise ValueError(f"user name {user!r} is not usable as a cgroup folder name")
        return cls(tuple(dict.fromkeys([layout.memory / user, layout.cpu / user])))  # v2: one

    @classmethod
    def create(cls, layout: CgroupLayout, user: str, mem_bytes: int | None, cpus: float | None):
        """Make ``user``'s group(s) with these limits (None: unlimited); returns them."""
        group = cls.of(layout, user)
        memory, cpu = layout.memory / user, layout.cpu / user
        for folder in group.folders:
            folder.mkdir(parents=True, exist_ok=True)
        if layout.version == 2:  # the shared parent hands both controllers to each user's group
            _write(layout.memory / "cgroup.subtree_control", "+memory +cpu")
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
        """Processes still in the group(s)."""
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


def _write(path: Path, value) -> None:
    with open(path, "w") as f:
        f.write(str(value))


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

    def _limits(self) -> tuple[int | None, float | None]:
        """(memory bytes, CPUs) for this user: the staff values for instructors."""
        staff = any(g.name.startswith(self.staff_group_prefix) for g in self.user.groups)
        if staff:
            return (
                self.staff_mem_limit if self.staff_mem_limit is not None else self.mem_limit,
                self.staff_cpu_limit if self.staff_cpu_limit is not None else self.cpu_limit,
            )
        return self.mem_limit, self.cpu_limit

    def make_preexec_fn(self, name):
        drop_to_user = super().make_preexec_fn(name)
        group, mem = self._cgroup, self._limits()[0]

        def preexec() -> None:
            # Runs in the child between fork and exec, still as root.
            if group is not None:
                group.join()
            elif mem:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            drop_to_user()

        return preexec

    async def start(self):
        self._cgroup = None
        mem, cpus = self._limits()
        if mem or cpus:
            layout = find_layout()
            if layout is None:
                self.log.warning(
                    "No writable cgroup for %s: memory limited per process (RLIMIT_AS), CPU not "
                    "limited. See docs/hub-admins.md, 'Limits'.", self.user.name,
                )  # fmt: skip
            else:
                UserCgroup.of(layout, self.user.name).remove()  # a stale one, from a crash
                self._cgroup = UserCgroup.create(layout, self.user.name, mem, cpus)
                self.log.info(
                    "%s: cgroup v%d, memory %s bytes, %s CPUs",
                    self.user.name, layout.version, mem, cpus,
                )  # fmt: skip
        return await super().start()

    async def stop(self, now=False):
        await super().stop(now=now)
        # Computed again, not remembered: the hub may have restarted since the server started.
        layout = find_layout()
        if layout is not None:
            UserCgroup.of(layout, self.user.name).remove()
