"""The port each user's server listens on: from a range no kernel takes its ports from.

JupyterHub's ``LocalProcessSpawner`` gives a server a "random free port" (bind to port 0, read it,
close) from the kernel's ephemeral range, and the server binds it seconds later. Every notebook
kernel takes its five ports the same way from the same range, so in a class starting at once a
classmate's kernel can take a server's port first: the hub then waits on a port that answers in
ZeroMQ until the student gives up (docs/hub-admins.md, "Server ports").

So servers take their ports from :data:`DEFAULT_RANGE`, below the ephemeral range (Linux's is
32768-60999), where nothing that binds port 0 ever lands; a port is handed out only if nothing
listens on it and no other server of this hub was given it (it may not be listening yet).

Any user may bind any free port, so a student could take the port a classmate's server was
given in the seconds before that server bound it, and answer in its place. So the hub binds and
listens on the port itself (:func:`hold`) and hands the socket to the server it starts
(``server_launch.py``): a port someone else holds is not taken, and :func:`listener` tells the
spawner when the process it started holds the socket (then, and only then, the hub routes to it).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import pwd
import random
import socket
import subprocess
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["DEFAULT_RANGE", "Listener", "PortBook", "PortRange", "ephemeral_range", "hold",
           "holder", "held_by", "is_free", "listener", "pick_port"]  # fmt: skip

DEFAULT_RANGE = "20000-29999"
EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
SOCKET_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_LISTEN = "0A"  # TCP state in /proc/net/tcp


@dataclass(frozen=True)
class PortRange:
    """Ports ``first`` to ``last``, both included."""

    first: int
    last: int

    @classmethod
    def parse(cls, text: str) -> PortRange:
        """Read ``"20000-29999"``; a clear ValueError for anything else."""
        parts = text.replace(" ", "").split("-")
        try:
            first, last = (int(p) for p in parts)
        except ValueError:
            raise ValueError(
                f"server_ports {text!r}: write the first and last port, e.g. {DEFAULT_RANGE!r}"
            ) from None
        if not 1024 <= first <= last <= 65535:
            raise ValueError(
                f"server_ports {text!r}: need 1024 <= first <= last <= 65535 (ports below 1024 "
                f"are root's), e.g. {DEFAULT_RANGE!r}"
            )
        return cls(first, last)

    def overlaps(self, other: PortRange) -> bool:
        """Say whether the two ranges share a port."""
        return self.first <= other.last and other.first <= self.last

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"


def ephemeral_range(path: Path = EPHEMERAL) -> PortRange | None:
    """Return the range the kernel takes port-0 binds from (None where it cannot be read)."""
    try:
        first, last = (int(p) for p in path.read_text().split())
    except (OSError, ValueError):
        return None
    return PortRange(first, last)


def pick_port(ports: PortRange, given: Collection[int], host: str = "") -> int:
    """Return a port of ``ports`` not in ``given`` on which nothing listens (on any address).

    Tried in random order (two hubs on one machine rarely try the same port first); a port that
    cannot be bound (listened on, or still closing) is skipped. RuntimeError when none is left.
    """
    candidates = [p for p in range(ports.first, ports.last + 1) if p not in given]
    random.shuffle(candidates)
    for port in candidates:
        if _bindable(host, port):
            return port
    raise RuntimeError(
        f"no free port left for a server in {ports} ({len(given)} given to running servers): "
        "widen the spawner's server_ports (docs/hub-admins.md, 'Limits')"
    )


@dataclass
class PortBook:
    """The ports this hub gave its servers, perhaps not listened on yet: one per (user, server).

    One book per hub process (the spawner's class holds it), so that two servers starting at
    once never get the same port of the range.
    """

    given: dict[tuple[str, str], int] = field(default_factory=dict)
    said_overlap: bool = False  # "the range overlaps the ephemeral one", logged once per hub

    def take(self, key: tuple[str, str], ports: PortRange, log: logging.Logger) -> int:
        """Give server ``key`` (user, server name) a free port of ``ports`` nobody was given.

        Raises
        ------
        RuntimeError
            No port of the range is free (:func:`pick_port`).
        """
        ephemeral = ephemeral_range()
        if ephemeral is not None and ports.overlaps(ephemeral) and not self.said_overlap:
            self.said_overlap = True
            log.warning(
                "server_ports %s overlaps the kernel's ephemeral range %s, where kernels take "
                "their ports: a server's port may be taken before it binds it.", ports, ephemeral,
            )  # fmt: skip
        others = {port for other, port in self.given.items() if other != key}
        self.given[key] = port = pick_port(ports, others)
        return port

    def give_back(self, key: tuple[str, str]) -> None:
        """Forget server ``key``'s port (it stopped): another server may get it."""
        self.given.pop(key, None)


def is_free(port: int, host: str = "") -> bool:
    """Say whether ``port`` could be bound now (nobody binds or listens on it)."""
    return _bindable(host, port)


def hold(host: str, port: int) -> socket.socket | None:
    """Bind and listen on ``host``:``port`` for a server to take over (None: someone holds it).

    ``port`` 0: the kernel's choice. The hub (root) makes it before the server starts and
    hands it down (``server_launch.py``): from the hub's choice of a port on, nothing else can
    take it (a student watching for a classmate's spawn was 0.3 s too late before it bound).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a stopped one's TIME_WAIT
        sock.bind((host, port))
        sock.listen(128)
    except OSError as err:
        sock.close()
        if err.errno in (errno.EADDRINUSE, errno.EACCES):
            return None
        raise
    return sock


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as err:
            if err.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


@dataclass(frozen=True)
class Listener:
    """Who listens on a port: the socket's owner (uid) and whether ``pid`` holds that socket."""

    uid: int
    held_by_pid: bool


def listener(pid: int, port: int, tables: tuple[Path, ...] = SOCKET_TABLES) -> Listener | None:
    """Return who listens on TCP ``port`` (any address), as seen from /proc; None: nobody.

    ``held_by_pid`` is True only when the listening socket is one of process ``pid``'s open
    files (read as root): the proof that the server the spawner started, and no other process
    of any user, answers on ``port``.
    """
    found = None
    for table in tables:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == _LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inode, uid = int(fields[9]), int(fields[7])
                if inode in _socket_inodes(pid):
                    return Listener(uid, True)
                found = Listener(uid, False)
    return found


async def held_by(proc: subprocess.Popen[bytes] | None, pid: int, port: int) -> bool:
    """Wait until process ``pid`` holds the listening socket on ``port`` (True) or exits first.

    ``proc``: its ``Popen`` (None: not known). The hub made the socket and handed it down: until
    the process the spawner started holds it, the hub is not told the server is there.
    """
    while True:
        found = listener(pid, port)
        if found is not None and found.held_by_pid:
            return True
        if proc is not None and proc.poll() is not None:
            return False
        await asyncio.sleep(0.2)  # polls a condition: the server holds it, or it exits


def holder(port: int) -> str:
    """Say who listens on ``port`` (for the hub log): "held by <user>", or that nobody does."""
    found = listener(-1, port)
    if found is None:
        return "it exited before listening"
    try:
        return f"held by {pwd.getpwuid(found.uid).pw_name}"
    except KeyError:
        return f"held by uid {found.uid}"


def _socket_inodes(pid: int) -> set[int]:
    """Return the inodes of the sockets process ``pid`` holds open (empty when it is gone)."""
    inodes: set[int] = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes
