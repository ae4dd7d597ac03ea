"""The hub's spawner: JupyterHub's ``LocalProcessSpawner``, with the limits it does not enforce.

``LocalProcessSpawner`` has ``mem_limit`` and ``cpu_limit`` traits but does not enforce them.
:class:`LimitedLocalProcessSpawner` composes what does, for each user's server:

* before it starts: the user's own filesystem on their home and ``inbound/<student>/``
  (``user_disk.py``), then their control group with the memory, CPU and pids limits
  (``user_cgroup.py``; staff get the ``staff_*`` values);
* in the child, as root, between fork and exec: it joins the group, gets its own mount namespace
  with private temporary folders (/tmp, /var/tmp, /run/lock, /dev/shm), a /proc showing its
  user's processes only and a capped exchange root (``server_namespace.py``), then drops to
  the user (``server_child.py``);
* its port comes from ``server_ports``, a range kernels never take theirs from
  (``server_port.py``, which keeps the book of the ports given); the hub listens on it itself
  before the server starts and hands the socket to the server (``server_launch.py``,
  undumpable, no user site-packages), and is told where the server is only once the process it
  started holds it (any user may bind a free port, and would answer in its place); a port
  someone else holds is skipped;
* it and everything it starts may bind no port of ``server_ports`` (``port_fence.py``,
  Landlock): no user can hold the range, a classmate's port or her own server's;
* its stdout and stderr are a pipe the hub reads (``server_output.py``), not the hub's log;
* when it stops: the group is removed (ending any straggler) and the class reweighed.

Where no cgroup can be written, the spawner falls back to ``RLIMIT_AS`` = ``mem_limit`` on each
process (a kernel then gets ``MemoryError`` instead of being killed; CPU is not limited); where
no private namespace or per-user filesystem can be made, the shared ones stay. Each fallback is
said in the hub log, once (``hub_probe.py``). Both hub configs set it up with
``spawner_settings.configure_spawner``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from jupyterhub.spawner import LocalProcessSpawner
from jupyterhub.traitlets import ByteSpecification
from traitlets import Bool, Float, Integer, List, TraitError, Unicode, default, validate

from attention_hub.exchange_folders import enrolled_inbound, shielded_courses
from attention_hub.hub_probe import Probe
from attention_hub.mounts import share
from attention_hub.port_fence import fence_ruleset, fence_works
from attention_hub.server_child import ChildSetup
from attention_hub.server_launch import SOCKET_ENV
from attention_hub.server_namespace import needed_paths, private_tmp_works
from attention_hub.server_output import follow
from attention_hub.server_port import DEFAULT_RANGE, PortBook, PortRange, held_by, hold, holder
from attention_hub.user_cgroup import UserCgroup, find_layout, shelter_hub, weigh_class
from attention_hub.user_disk import UserDisk, close_inbound, disks_work, prepare

if TYPE_CHECKING:
    from traitlets.config import Config

__all__ = ["LimitedLocalProcessSpawner", "configure_spawner"]


class LimitedLocalProcessSpawner(LocalProcessSpawner):
    """``LocalProcessSpawner`` that enforces ``mem_limit`` and ``cpu_limit`` (see the module)."""

    _cgroup: UserCgroup | None = None  # set by start() for the preexec_fn of that start
    # LocalProcessSpawner's traits this class reads and sets (JupyterHub has no types)
    port: int
    popen_kwargs: dict[str, Any]

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
        help="Size of each server's own /tmp, /var/tmp, /run/lock and /dev/shm (a tmpfs each, "
        "in a private mount namespace, emptied when the server stops; counts against its "
        "memory limit; the namespace also gets a /proc showing its user's processes only). "
        "A course installed under them (its env, checkout, exchange, config) stays visible, "
        "bound in at the same path. 0 or None: the machine's shared folders and /proc.",
    )  # fmt: skip
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
    server_ports = Unicode(
        DEFAULT_RANGE, config=True,
        help="Ports the users' servers listen on, 'first-last': keep it outside the kernel's "
        "ephemeral range (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 on Linux), "
        "where every notebook kernel takes its ports: JupyterHub's default random port comes "
        "from there, and in a class starting at once a kernel took a server's port before "
        "the server bound it (its spawn then never ended). '': JupyterHub's random port.",
    )  # fmt: skip
    port_attempts = Integer(
        5, config=True,
        help="Ports the hub tries for a server: it binds and listens on the server's port "
        "itself before the server starts (server_launch.py), and takes another when something "
        "else holds the one it chose (a user of an unfenced hub may bind any free port).",
    )  # fmt: skip
    fence_ports = Bool(
        True, config=True,
        help="Let each server and everything it starts bind no port of server_ports (Landlock, "
        "Linux >= 6.7; the hub listens for the server): one user held every port of the range "
        "(nobody could start a server), took a classmate's, or killed her own server and "
        "answered on its port. Where the kernel cannot, the hub log says so once and servers "
        "run unfenced. docs/hub-admins.md, 'Server ports'.",
    )  # fmt: skip
    output_budget = ByteSpecification(
        "4M", config=True,
        help="What one server (and its kernels) may write to the hub's log per start, through "
        "the pipe that is its stdout and stderr (server_output.py); the rest is dropped.",
    )  # fmt: skip
    _fence_fd: int | None = None  # the ruleset of this start, for its preexec_fn
    _socket_fd: int | None = None  # the listening socket of this start, for get_env
    _port_book: ClassVar[PortBook] = PortBook()  # the ports this hub gave, one per server
    _hub_sheltered = False  # shelter_hub done by this hub process (it walks /proc: not per spawn)
    _tmp_probe: ClassVar[Probe] = Probe(private_tmp_works, (
        "No private /tmp, /var/tmp, /run/lock and /dev/shm per user (%s): they stay shared. See "
        "docs/hub-admins.md, 'Memory and CPU limits'."))  # fmt: skip
    _disk_probe: ClassVar[Probe] = Probe(disks_work, (
        "No per-user filesystem (%s): a student's home and inbound/ are not capped. See "
        "docs/hub-admins.md, 'Disk'."))  # fmt: skip
    _fence_probe: ClassVar[Probe] = Probe(fence_works, (
        "Servers are not fenced (%s): a user may bind any port of server_ports, and hold them "
        "all. See docs/hub-admins.md, 'Server ports'."))  # fmt: skip

    # A class arriving at once on a small machine: every server starts at the same time, and
    # JupyterHub's 60 s / 30 s would fail the last ones (docs/hub-admins.md, "Sizing").
    @default("start_timeout")
    def _start_timeout_default(self) -> int:
        return 120

    @default("http_timeout")
    def _http_timeout_default(self) -> int:
        return 120

    @validate("server_ports")
    def _valid_ports(self, proposal: dict[str, Any]) -> str:
        if proposal["value"]:
            try:
                PortRange.parse(proposal["value"])
            except ValueError as err:
                raise TraitError(str(err)) from None
        return str(proposal["value"])

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
        if not self.private_tmp_size or self._tmp_probe.problem(self.log):
            return None
        return int(self.private_tmp_size)

    def _disks_possible(self) -> bool:
        """Say whether per-user filesystems are on and work here (why not: once in the log)."""
        if not self.disk_size:
            self._disk_probe.say("disk_size is 0", self.log)
            return False
        return not self._disk_probe.problem(self.log)

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
        enrolled = [] if self._staff() else self._enrolled_inbound()
        loop = asyncio.get_running_loop()
        for line in await loop.run_in_executor(None, prepare, disk, int(size), enrolled):
            self.log.info("%s: %s", self.user.name, line)

    def _enrolled_inbound(self) -> list[str]:
        """Return the inbound/ folders of the courses this user is a student of."""
        groups = {g.name for g in self.user.groups}
        return enrolled_inbound(self.disk_inbound, groups, self.student_group_prefix)

    def _shielded_courses(self) -> list[str]:
        """Return the course folders whose exchange root a student's server sees capped."""
        if self._staff() or not self.disk_size or self._disk_probe.found:
            return []
        return shielded_courses(self.disk_inbound)

    def make_preexec_fn(self, name: str) -> Callable[[], None]:
        tmp = self._tmp_size()
        return ChildSetup(
            group=self._cgroup,
            mem=self._limits()[0],
            tmp=tmp,
            keep=tuple(needed_paths(self.cmd, self.environment or {})) if tmp else (),
            # a student's exchange root, capped in their own namespace (staged in their new /tmp)
            shielded=tuple(self._shielded_courses()) if tmp else (),
            fence=self._fence_fd,
            drop_to_user=super().make_preexec_fn(name),
        )

    async def start(self) -> tuple[str, int]:
        await self._prepare_disk()  # first: it awaits (see _make_cgroup)
        taken = []
        for _ in range(max(1, self.port_attempts)):
            self._take_port()
            held = hold(self.ip or "127.0.0.1", self.port)
            if held is None:  # someone else binds it (a user of an unfenced hub, a service)
                taken.append(self.port)
                self.log.warning(
                    "%s: port %d is taken (%s): the server goes on another",
                    self.user.name, self.port, holder(self.port),
                )  # fmt: skip
                continue
            self.port = held.getsockname()[1]  # server_ports '': the kernel's choice
            try:
                return await self._start_on(held)
            finally:
                held.close()  # the server has its own copy
        raise RuntimeError(
            f"{self.user.name}'s server could not start: its ports {taken} were each taken by "
            "another process. See docs/hub-admins.md, 'Server ports'."
        )

    async def _start_on(self, held: socket.socket) -> tuple[str, int]:
        """Start the server on the socket the hub listens on for it (``server_launch.py``)."""
        self._fence_fd = await self._fence()
        self._socket_fd = held.fileno()
        # its own stdout and stderr, never the hub's (nor the hub's stdin)
        self.popen_kwargs = {**self.popen_kwargs, "stdin": subprocess.DEVNULL,
                             "stdout": subprocess.PIPE, "stderr": subprocess.STDOUT,
                             "pass_fds": (held.fileno(),)}  # fmt: skip
        try:
            self._make_cgroup()  # no await from here until the server has joined it
            ip, port = await super().start()
            follow(self.proc.stdout, self.log, self.user.name, int(self.output_budget))
        finally:
            self._socket_fd = None
            if self._fence_fd is not None:
                os.close(self._fence_fd)
                self._fence_fd = None
        if not await held_by(self.proc, self.pid, port):
            raise RuntimeError(
                f"{self.user.name}'s server ended (status {self.proc.returncode}) before it "
                f"served; its output is in the hub log ('server {self.user.name}: ...')"
            )
        return ip, port

    def get_env(self) -> dict[str, str]:
        env: dict[str, str] = super().get_env()
        if self._socket_fd is not None:
            env[SOCKET_ENV] = str(self._socket_fd)
        return env

    def _make_cgroup(self) -> None:
        """Make this user's control group, for the preexec_fn to join (None: no cgroup).

        Nothing may await between this and the server joining it: weigh_class counts the
        groups with processes, and a concurrent spawn would miss this one.
        """
        self._cgroup = None
        mem, cpus = self._limits()
        if not (mem or cpus or self._pids()):
            return
        layout = find_layout()
        if layout is None:
            self.log.warning(
                "No writable cgroup for %s: memory limited per process (RLIMIT_AS), CPU not "
                "limited. See docs/hub-admins.md, 'Limits'.", self.user.name,
            )  # fmt: skip
            return
        if not type(self)._hub_sheltered:  # once: the proxy and services run by now
            shelter_hub(layout)  # the hub and proxy weigh as much as the class
            type(self)._hub_sheltered = True
        UserCgroup.of(layout, self.user.name).remove()  # a stale one (a crash, a retry)
        pids = self._pids()
        self._cgroup = UserCgroup.create(layout, self.user.name, mem, cpus, pids)
        self.log.info(
            "%s: cgroup v%d, memory %s bytes, %s CPUs, %s pids%s",
            self.user.name, layout.version, mem, cpus, pids,
            "" if layout.pids else " (no pids controller: not limited)",
        )  # fmt: skip

    async def _fence(self) -> int | None:
        """Return the Landlock ruleset of a server's processes (None: no fence, said once)."""
        if not (self.fence_ports and self.server_ports):
            return None
        if self._fence_probe.problem(self.log):
            return None
        ports = PortRange.parse(self.server_ports)
        return await asyncio.get_running_loop().run_in_executor(None, fence_ruleset, ports)

    def _take_port(self) -> None:
        """Give this server a port of ``server_ports`` (LocalProcessSpawner keeps a set one)."""
        if self.server_ports:
            key = (self.user.name, self.name)
            self.port = self._port_book.take(key, PortRange.parse(self.server_ports), self.log)

    def _give_back_port(self) -> None:
        self._port_book.give_back((self.user.name, self.name))

    async def stop(self, now: bool = False) -> None:
        await super().stop(now=now)
        self._give_back_port()
        # Computed again, not remembered: the hub may have restarted since the server started.
        layout = find_layout()
        if layout is not None:
            UserCgroup.of(layout, self.user.name).remove()
            weigh_class(layout)


def configure_spawner(c: Config, inbound: list[str], env: Mapping[str, str] = os.environ) -> None:
    """Call ``spawner_settings.configure_spawner``, where it moved (this name: one release)."""
    from attention_hub.spawner_settings import configure_spawner as configure

    configure(c, inbound, env)
