"""Per-user control groups: memory, CPU and pids limits, enforced by the kernel.

:class:`UserCgroup` is one user's group (made below the hub's own, so the machine's or
container's limits still bound the whole class); the spawner (``spawner_limits.py``) makes it
before the user's server starts and the server joins it in the child, so the server and every
kernel and process it starts share the limits:

* memory: ``mem_limit`` bytes, swap included; over it the kernel's OOM killer ends the biggest
  process of that group (a runaway notebook kernel), never another user's process;
* CPU: ``cpu_limit`` cores (CFS quota), e.g. 1.0 = at most one core's time in total;
* processes: ``pids_limit`` processes and threads together (the ``pids`` controller), so that
  no student can use up the machine's pid space (a fork bomb stops at its own limit);
* CPU weight: the users' shared parent group weighs one process per user (:func:`weigh_class`),
  so the class is not squeezed into one process's share when anything else runs; the hub and
  its proxy weigh as much as the whole class (:func:`shelter_hub`), since every student's
  request goes through them.

The groups are root's alone (mode 0700, the shared parent too): their files say when each
user's server starts and what runs in it.

Works on cgroup v1 (separate ``memory`` and ``cpu`` hierarchies; tested here, as root without
systemd) and on cgroup v2 when the hub's own cgroup has the ``memory`` and ``cpu`` controllers
delegated to its children (not available on the test machine: untested).
"""

from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "HUB_GROUP", "PARENT_NAME", "CgroupLayout", "UserCgroup", "find_layout", "shelter_hub",
    "weigh_class",
]  # fmt: skip

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT_NAME = "attention-lab"  # one folder per user below this, under the hub's own cgroup
HUB_GROUP = "attention-lab-hub"  # the hub, its proxy and services: beside PARENT_NAME
CFS_PERIOD_US = 100_000
PRIVATE_MODE = 0o700  # the users' groups and their shared parent: root (the hub) only
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
        base = root / _hub_base(own.get("", "/")).lstrip("/")
        if _writable_dir(base) and _delegate_v2(base):
            enabled = (base / "cgroup.subtree_control").read_text().replace("+", " ").split()
            has_pids = "pids" in enabled
            parent = base / PARENT_NAME
            return CgroupLayout(2, parent, parent, parent if has_pids else None)
        return None
    memory = root / "memory" / own.get("memory", "/").lstrip("/")
    cpu = root / "cpu" / _hub_base(own.get("cpu", "/")).lstrip("/")
    pids = root / "pids" / own.get("pids", "/").lstrip("/")
    if _writable_dir(memory) and _writable_dir(cpu):
        pids_parent = pids / PARENT_NAME if _writable_dir(pids) else None
        return CgroupLayout(1, memory / PARENT_NAME, cpu / PARENT_NAME, pids_parent)
    return None


def _hub_base(path: str) -> str:
    """Return the hub's starting cgroup, also once :func:`shelter_hub` moved it to its leaf."""
    head, _, last = path.rstrip("/").rpartition("/")
    return (head or "/") if last == HUB_GROUP else path


def _delegate_v2(base: Path) -> bool:
    """Hand the memory and cpu controllers of the hub's own v2 cgroup to its children.

    v2's "no internal processes" rule: a cgroup that enables controllers for its children holds
    no process itself, so the hub (and its proxy) first move to the leaf :data:`HUB_GROUP`.
    Under systemd this needs ``Delegate=yes`` in the unit (docs/hub-admins.md). Untested on the
    test machine (v1).
    """
    wanted = {"memory", "cpu"}
    try:
        if wanted <= set((base / "cgroup.subtree_control").read_text().split()):
            return True
        available = set((base / "cgroup.controllers").read_text().split())
        if not wanted <= available:
            return False
        leaf = base / HUB_GROUP
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
    ) -> UserCgroup:  # fmt: skip
        """Make ``user``'s group(s) with these limits (None: unlimited); returns them."""
        group = cls.of(layout, user)
        memory, cpu = layout.memory / user, layout.cpu / user
        for folder in group.folders:
            folder.mkdir(parents=True, exist_ok=True)
            # root's alone (cgroupfs makes them world-readable): a student read a classmate's
            # cgroup.procs to learn the instant their server started, and the parent's listing
            # says whose servers run
            for private in (folder.parent, folder):
                private.chmod(PRIVATE_MODE)
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

    def remove(self, wait: float = 2.0) -> None:
        """End what is left in the group (the user's processes only) and delete it.

        A killed process leaves the group only once it has exited, and a group is deleted only
        empty: wait up to ``wait`` seconds for that (milliseconds, as a rule), or the group
        stays behind on the machine.
        """
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.01)  # polls a condition: the killed processes have exited
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
            weight, name = 1024 * users, "cpu.shares"
        else:  # cpu.weight: 100 is one process's, 10000 the most
            weight, name = min(10000, 100 * users), "cpu.weight"
        _write(parent / name, weight)
    except OSError:  # no parent yet, or no cpu controller there: the default weight
        return
    hub = parent.parent / HUB_GROUP
    if hub.is_dir():  # the hub keeps the class's weight (shelter_hub says why)
        try:
            _write(hub / name, weight)
        except OSError:
            pass


def shelter_hub(layout: CgroupLayout, hub_pid: int | None = None) -> None:
    """Move the hub and the processes it started into :data:`HUB_GROUP`, weighed as the class.

    Every login, spawn, API call and websocket message of every student goes through the hub
    and its proxy. Beside a class weighing one process per user (:func:`weigh_class`) they
    weighed ONE process: while a class started, the hub was slow to begin spawns and to notice
    servers that were up (docs/hub-admins.md, "Memory and CPU limits"). Weighed as the whole
    class, they get what they need first; they use little, so the class keeps the rest. Only
    processes still in the hub's own group move: a user's server started by the hub stays in
    that user's group. Idempotent; the spawner calls it once, at its first spawn (the proxy and
    the services have started by then); :func:`weigh_class` keeps the weight after that.
    """
    hub_pid = hub_pid or os.getpid()
    group = layout.cpu.parent / HUB_GROUP
    try:
        group.mkdir(exist_ok=True)
        if layout.version == 1:  # v2: _delegate_v2 moved them into this leaf already
            beside = _pids_in(layout.cpu.parent)
            for pid in [hub_pid, *_descendants(hub_pid)]:
                if pid in beside:
                    try:
                        _write(group / "cgroup.procs", pid)
                    except ProcessLookupError:  # ended since listed (a spawn's child): the
                        continue  # rest, the proxy among them, must still move
    except OSError:  # not root, or no cpu controller here: the hub keeps its place
        return
    weigh_class(layout)


def _pids_in(group: Path) -> set[int]:
    try:
        return {int(p) for p in (group / "cgroup.procs").read_text().split()}
    except OSError:
        return set()


def _descendants(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """Pids of ``pid``'s children, their children, ... (from each process's parent pid)."""
    children: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                # the command may hold spaces and ")": the fields after its last ")"
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found


def _has_procs(group: Path) -> bool:
    try:
        return bool((group / "cgroup.procs").read_text().strip())
    except OSError:
        return False


def _write(path: Path, value: object) -> None:
    with open(path, "w") as f:
        f.write(str(value))
