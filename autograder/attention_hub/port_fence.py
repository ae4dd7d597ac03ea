"""Each server's processes may bind no port of the servers' range but their own (Landlock).

Any user may bind any free TCP port, so one student could hold every port of the servers' range
(``server_port.py``): nobody's server could start (sockets are not processes: one process held
9,997 of them). Or take the port a classmate's server was given before that server binds it.
The kernel's Landlock (Linux >= 6.7, ABI 4: ``LANDLOCK_ACCESS_NET_BIND_TCP``) bounds what a
process tree may bind, for good (it is inherited through fork, exec and setuid and cannot be
lifted): a server and everything it starts may bind port 0 (the kernel's choice) and any port
outside the range, and none in the range: the hub listens on the server's port for it and hands
the socket down (``server_launch.py``), so a kernel that kills its own server cannot answer on
its port either.

The ruleset is built in the hub (one rule per allowed port: about 54,000, a fraction of a second,
done in a worker thread) and applied in the child between fork and exec, as root
(``CAP_SYS_ADMIN``: no ``no_new_privs``, so setuid programs keep working).
"""

from __future__ import annotations

import ctypes
import os

from attention_hub.server_port import PortRange

__all__ = ["fence_ruleset", "fence_works", "enter_fence"]

_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded in the parent: nothing imported after fork
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on x86-64, arm64
_CREATE_RULESET_VERSION = 1
_RULE_NET_PORT = 2
_ACCESS_NET_BIND_TCP = 1
_NET_ABI = 4  # the first Landlock ABI with network rules


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64)]


class _NetPortAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _abi() -> int:
    """Return the kernel's Landlock ABI version (0: none)."""
    version = _LIBC.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(_CREATE_RULESET_VERSION))  # fmt: skip
    return max(0, int(version))


def fence_works() -> str:
    """Empty when this kernel can fence ports (Landlock ABI >= 4), else why not."""
    abi = _abi()
    if abi < _NET_ABI:
        return f"Landlock ABI {abi} (needs {_NET_ABI}, Linux >= 6.7, with landlock in lsm=)"
    return ""


def fence_ruleset(servers: PortRange) -> int:
    """Return a Landlock ruleset fd: bind port 0 and any port outside ``servers``.

    The caller closes it (after :func:`enter_fence` ran in the child).

    Raises
    ------
    OSError
        The kernel refused (no Landlock network rules).
    """
    attr = _RulesetAttr(0, _ACCESS_NET_BIND_TCP)
    fd = _LIBC.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                       ctypes.c_uint32(0))  # fmt: skip
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock_create_ruleset: {os.strerror(err)}")
    allowed = [0, *range(1024, servers.first), *range(servers.last + 1, 65536)]
    rule, add, ref = _NetPortAttr(_ACCESS_NET_BIND_TCP, 0), _LIBC.syscall, ctypes.byref
    try:
        for port in allowed:
            rule.port = port
            if add(_SYS_ADD_RULE, fd, _RULE_NET_PORT, ref(rule), 0) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"landlock_add_rule port {port}: {os.strerror(err)}")
    except BaseException:
        os.close(fd)
        raise
    return int(fd)


def enter_fence(ruleset_fd: int) -> None:
    """In the child, as root: bind only what the ruleset allows, for this process tree for good.

    Raises
    ------
    OSError
        The kernel refused (the spawn fails: no server runs unfenced by surprise).
    """
    if _LIBC.syscall(_SYS_RESTRICT_SELF, ruleset_fd, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock_restrict_self: {os.strerror(err)}")
