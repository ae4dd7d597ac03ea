"""The port each user's server listens on: from a range no kernel takes its ports from.

JupyterHub's ``LocalProcessSpawner`` gives a server a "random free port" (bind to port 0, read it,
close) from the kernel's ephemeral range, and the server binds it seconds later. Every notebook
kernel takes its five ports the same way from the same range, so in a class starting at once a
classmate's kernel can take a server's port first: the hub then waits on a port that answers in
ZeroMQ until the student gives up (docs/hub-admins.md, "Server ports").

So servers take their ports from :data:`DEFAULT_RANGE`, below the ephemeral range (Linux's is
32768-60999), where nothing that binds port 0 ever lands; a port is handed out only if nothing
listens on it and no other server of this hub was given it (it may not be listening yet).
"""

from __future__ import annotations

import errno
import random
import socket
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_RANGE", "PortRange", "ephemeral_range", "pick_port"]

DEFAULT_RANGE = "20000-29999"
EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


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


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as err:
            if err.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True
